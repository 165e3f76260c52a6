import { Readable } from 'node:stream';
import sharp from 'sharp';
import { ZipFile } from 'yazl';
import { isMeshError } from '@layerline/mesh';
import { LISTING_IMAGE_ANGLES, LISTING_IMAGE_SIZE_PX, type ListingImageAngle, type ListingImageSet, type ProductListingImages } from '@layerline/contracts';
import { AppError, notFound } from '../../errors.ts';
import type { AuditRecord } from '../audit/audit-repository.ts';
import type { FileStorage } from '../designs/file-storage.ts';
import { colourOf, type ListingView } from '../designs/listing-render.ts';
import { ModelWorkError, type ModelWorker } from '../designs/model-worker.ts';
import type { ListingImageRepository, ListingImageSetRow, RenderSource } from './listing-image-repository.ts';

export interface Actor {
  readonly id: string;
  readonly isAdmin: boolean;
  readonly requestId: string;
}

/** Queues a render of a configuration at a settings version; `again` asks even if one was queued before. */
export type RenderScheduler = (configId: string, settingsVersion: number, again: boolean) => Promise<void>;

/**
 * The angles, in LISTING_IMAGE_ANGLES order: three-quarter views from the front, the right and the
 * back a little above the table, as a product photographer walks round an object, and one from high
 * above that shows the top.
 */
export const LISTING_VIEWS: Record<ListingImageAngle, ListingView> = {
  front: { yawDeg: -30, pitchDeg: 22 },
  right: { yawDeg: 60, pitchDeg: 22 },
  back: { yawDeg: 150, pitchDeg: 22 },
  top: { yawDeg: -30, pitchDeg: 68 },
};

const imageKey = (configId: string, settingsVersion: number, angle: ListingImageAngle) => `listing-images/${configId}-v${settingsVersion}-${angle}.png`;

/**
 * Listing images (issue 24, point 5; docs/listing-images.md): after a configuration's exact slice, its
 * model — the design file PrusaSlicer sliced, parsed by the same mesh engine — is drawn from a few
 * angles in the configuration's colour on the model worker's threads, encoded as 2000 × 2000 PNGs by
 * sharp, stored, and offered for download one by one or as a zip.
 */
export function createListingImageService(deps: {
  repository: ListingImageRepository;
  storage: FileStorage;
  worker: ModelWorker;
  audit: { record(entry: AuditRecord): Promise<void> };
  sizePx?: number;
}) {
  const { repository, storage, worker, audit } = deps;
  const sizePx = deps.sizePx ?? LISTING_IMAGE_SIZE_PX;
  let schedule: RenderScheduler | null = null;

  function ensureVisible(actor: Actor, ownerId: string | undefined, what: string): void {
    // Another seller's product reads as missing, not forbidden: its existence is not theirs to know.
    if (ownerId === undefined || (ownerId !== actor.id && !actor.isAdmin)) throw notFound(what);
  }

  function setOf(source: RenderSource, row: ListingImageSetRow | undefined): ListingImageSet {
    const current = isCurrent(source, row) ? row : undefined;
    const done = current?.status === 'done';
    return {
      printConfigId: source.configId,
      configName: source.configName,
      colour: source.colour,
      status: current?.status ?? 'pending',
      error: current?.error ?? null,
      settingsVersion: source.settingsVersion,
      images: done
        ? LISTING_IMAGE_ANGLES.map((angle) => ({ angle, url: `/api/listing-images/${source.configId}/${angle}.png`, widthPx: current.sizePx, heightPx: current.sizePx }))
        : [],
      zipUrl: done ? `/api/listing-images/${source.configId}/images.zip` : null,
    };
  }

  async function doneSet(actor: Actor, configId: string): Promise<{ source: RenderSource; row: ListingImageSetRow }> {
    const source = await repository.source(configId);
    ensureVisible(actor, source?.ownerId, 'Listing images');
    const [row] = await repository.sets([configId]);
    if (!row || row.status !== 'done' || !isCurrent(source!, row)) throw new AppError('not-found', 'These listing images are not ready yet');
    return { source: source!, row };
  }

  return {
    /** Called once by bootstrap with the job queue. */
    connect(scheduler: RenderScheduler): void {
      schedule = scheduler;
    },

    /** After an exact slice: queues the configuration's render (once per settings version). */
    async afterSlice(configId: string, settingsVersion: number): Promise<void> {
      const source = await repository.source(configId);
      if (!schedule || !source?.sliced || source.settingsVersion !== settingsVersion) return;
      await schedule(configId, settingsVersion, false);
    },

    /** The job: renders, stores and records one configuration's images. Safe to repeat. */
    async render(configId: string, settingsVersion: number): Promise<void> {
      const source = await repository.source(configId);
      if (!source || !source.sliced || source.settingsVersion !== settingsVersion) return;
      const started = await repository.startRendering(source, sizePx);
      if (!started) return;
      const angles = LISTING_IMAGE_ANGLES;
      let pixels: Buffer;
      try {
        pixels = await worker.listingViews(
          source.ownerId,
          source.storageKey,
          async () => {
            const bytes = await storage.readAll(source.storageKey);
            return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
          },
          source.fileName,
          angles.map((angle) => LISTING_VIEWS[angle]),
          { sizePx, colour: colourOf(source.colour) },
        );
      } catch (error) {
        // The model itself is the problem (it cannot be parsed, or needs more than a model may use): retrying changes nothing.
        const final = isMeshError(error) || (error instanceof ModelWorkError && ['time-budget', 'memory-budget', 'unprintable'].includes(error.kind));
        if (!final) throw error;
        await repository.fail(configId, settingsVersion, `The model could not be drawn: ${error.message}`);
        return;
      }
      const frame = sizePx * sizePx * 3;
      const keys: string[] = [];
      try {
        for (const [i, angle] of angles.entries()) {
          const png = await sharp(pixels.subarray(i * frame, (i + 1) * frame), { raw: { width: sizePx, height: sizePx, channels: 3 } })
            .png({ compressionLevel: 6 })
            .toBuffer();
          const key = imageKey(configId, settingsVersion, angle);
          await storage.write(key, Readable.from([png]), { maxBytes: png.length });
          keys.push(key);
        }
      } catch (error) {
        await Promise.all(keys.map((key) => storage.delete(key).catch(() => undefined)));
        throw error;
      }
      const recorded = await repository.finish(configId, settingsVersion, keys);
      const obsolete = recorded ? started.replacedKeys.filter((key) => !keys.includes(key)) : keys;
      await Promise.all(obsolete.map((key) => storage.delete(key).catch(() => undefined)));
    },

    /**
     * Deletes the files of sets whose configuration was deleted, then the sets (files first: a crash
     * in between leaves the row, and the next sweep deletes the same keys again, which is harmless).
     * Answers how many sets it removed.
     */
    async sweepOrphans(): Promise<number> {
      const orphans = await repository.orphans(100);
      for (const orphan of orphans) {
        await Promise.all(orphan.imageKeys.map((key) => storage.delete(key)));
        await repository.forget(orphan.id);
      }
      return orphans.length;
    },

    /** A product's variants, each with the listing images of its parts' configurations. */
    async ofProduct(actor: Actor, productId: string): Promise<ProductListingImages> {
      const product = await repository.productConfigs(productId);
      ensureVisible(actor, product?.ownerId, 'Product');
      const configIds = [...new Set(product!.variants.flatMap((v) => v.configIds))];
      const [sources, rows] = await Promise.all([repository.sources(configIds), repository.sets(configIds)]);
      const sourceById = new Map(sources.map((s) => [s.configId, s]));
      const rowById = new Map(rows.map((r) => [r.printConfigId, r]));
      return {
        productId,
        variants: product!.variants.map((variant) => ({
          variantId: variant.id,
          variantName: variant.name,
          sku: variant.sku,
          sets: variant.configIds.flatMap((id) => {
            const source = sourceById.get(id);
            return source ? [setOf(source, rowById.get(id))] : [];
          }),
        })),
      };
    },

    /**
     * Asks again for the product's images that are missing, stale or failed (configurations sliced
     * before this existed, recoloured since — a colour alone is not re-sliced —, a render that
     * failed); a configuration not yet sliced gets its images after its slice.
     */
    async requestForProduct(actor: Actor, productId: string): Promise<ProductListingImages> {
      const product = await repository.productConfigs(productId);
      ensureVisible(actor, product?.ownerId, 'Product');
      if (!schedule) throw new AppError('conflict', 'Listing images are made by the job queue, which this server does not run');
      const configIds = [...new Set(product!.variants.flatMap((v) => v.configIds))];
      const [sources, rows] = await Promise.all([repository.sources(configIds), repository.sets(configIds)]);
      const rowById = new Map(rows.map((r) => [r.printConfigId, r]));
      await audit.record({ actorId: actor.id, targetUserId: product!.ownerId, action: 'listing-images.requested', detail: { productId }, requestId: actor.requestId });
      for (const source of sources) {
        const row = rowById.get(source.configId);
        const current = isCurrent(source, row) ? row : undefined;
        if (!source.sliced || current?.status === 'done' || current?.status === 'rendering') continue;
        await schedule(source.configId, source.settingsVersion, true);
      }
      return this.ofProduct(actor, productId);
    },

    async image(actor: Actor, configId: string, angle: ListingImageAngle): Promise<{ png: Buffer; fileName: string }> {
      const { source, row } = await doneSet(actor, configId);
      const key = row.imageKeys[LISTING_IMAGE_ANGLES.indexOf(angle)]!;
      return { png: await storage.readAll(key), fileName: `${fileStem(source)}-${angle}.png` };
    },

    /** Every angle of one configuration as a zip, streamed (the PNGs are already compressed: stored as they are). */
    async zip(actor: Actor, configId: string): Promise<{ stream: Readable; fileName: string }> {
      const { source, row } = await doneSet(actor, configId);
      const zip = new ZipFile();
      for (const [i, angle] of LISTING_IMAGE_ANGLES.entries()) {
        zip.addReadStream(await storage.read(row.imageKeys[i]!), `${fileStem(source)}-${angle}.png`, { compress: false, mtime: row.renderedAt ?? new Date() });
      }
      zip.end();
      return { stream: Readable.from(zip.outputStream), fileName: `${fileStem(source)}.zip` };
    },
  };
}

/** Images of the configuration as it is now: its settings version and its colour. */
function isCurrent(source: RenderSource, row: ListingImageSetRow | undefined): row is ListingImageSetRow {
  return row !== undefined && row.settingsVersion === source.settingsVersion && row.colour === source.colour;
}

/** A file name from the configuration's name: letters, digits and dashes only. */
function fileStem(source: RenderSource): string {
  const stem = source.configName.normalize('NFKD').replace(/[^\w-]+/g, '-').replace(/^-+|-+$/g, '').toLowerCase();
  return stem || 'listing';
}

export type ListingImageService = ReturnType<typeof createListingImageService>;
