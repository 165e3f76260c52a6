import type { ListingImageService } from '../modules/listing-images/listing-image-service.ts';
import { QUEUES, stableJobId, type JobQueue } from './job-queue.ts';

/** A configuration's listing images at one settings version (docs/listing-images.md). */
export interface RenderListingImagesJob {
  configId: string;
  settingsVersion: number;
}

/**
 * Connects the listing images to the queue: every process may queue a render (after a slice, or a
 * seller asking again); job-working processes render. The job id is derived from the configuration
 * and version, so a slice repeated by the queue queues one render; asking again gets a fresh id.
 */
/** How often a job-working process deletes the files of listing images whose configuration was deleted. */
const ORPHAN_SWEEP_MS = 10 * 60 * 1000;

export async function startListingImageJobs(
  queue: JobQueue,
  listingImages: ListingImageService,
  options: { work: boolean; log: { error(obj: unknown, msg?: string): void } },
): Promise<() => void> {
  listingImages.connect(async (configId, settingsVersion, again) => {
    // Asked again: a fresh job (a render repeated by mistake does nothing once the images are done).
    const options = again ? {} : { id: stableJobId(QUEUES.renderListingImages, `${configId}:${settingsVersion}`) };
    await queue.send<RenderListingImagesJob>(QUEUES.renderListingImages, { configId, settingsVersion }, options);
  });
  if (!options.work) return () => undefined;
  await queue.work<RenderListingImagesJob>(QUEUES.renderListingImages, async (job) => {
    await listingImages.render(job.configId, job.settingsVersion);
  });
  // A deleted configuration leaves its set's row (references nulled) for this sweep to delete its files.
  const sweep = () => {
    void (async () => {
      while ((await listingImages.sweepOrphans()) > 0);
    })().catch((error: unknown) => options.log.error(error, 'listing images: the sweep of deleted configurations failed'));
  };
  sweep();
  const timer = setInterval(sweep, ORPHAN_SWEEP_MS);
  timer.unref();
  return () => clearInterval(timer);
}
