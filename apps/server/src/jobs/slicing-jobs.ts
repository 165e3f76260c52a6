import type { SlicingScheduler } from '../modules/designs/design-service.ts';
import type { DesignService } from '../modules/designs/design-service.ts';
import type { Slicer } from '../modules/designs/slicer.ts';
import { QUEUES, type JobQueue } from './job-queue.ts';

/** Exact slicing of a print configuration, as a job (at least once; runSlicing is idempotent). */
export interface SlicePrintConfigJob {
  configId: string;
  settingsVersion: number;
}

export function slicingScheduler(queue: JobQueue | null, slicer: Slicer | null): SlicingScheduler {
  if (!queue || !slicer) return { available: false, schedule: async () => undefined };
  return {
    available: true,
    async schedule(configId, settingsVersion) {
      await queue.send<SlicePrintConfigJob>(QUEUES.slicePrintConfig, { configId, settingsVersion }, { singletonKey: `${configId}:${settingsVersion}` });
    },
  };
}

export async function workSlicingJobs(queue: JobQueue, slicer: Slicer, designs: DesignService): Promise<void> {
  await queue.work<SlicePrintConfigJob>(QUEUES.slicePrintConfig, (job) => designs.runSlicing(slicer, job.configId, job.settingsVersion));
}
