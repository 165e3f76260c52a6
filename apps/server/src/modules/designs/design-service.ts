import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { isMeshError, type MeshError } from '@layerline/mesh';
import {
  FILAMENT_DENSITY_G_PER_CM3,
  estimateCostInputSchema,
  printConfigInputSchema,
  type CostDataInput,
  type Design,
  type DesignList,
  type EstimateCostInput,
  type FileMetadata,
  type PrintConfig,
  type PrintConfigInput,
  type PrintConfigUpdate,
  type Quote,
} from '@layerline/contracts';
import { AppError, notFound } from '../../errors.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import { partShares, priceQuote } from '../quotes/pricing.ts';
import type { PriceTableRepository } from '../quotes/price-table-repository.ts';
import { addOnsOf, toDesignDto, toPrintConfigDto } from './design-dto.ts';
import type { DesignRepository, DesignWithConfigs, PrintConfigRow } from './design-repository.ts';
import { FileTooLargeError, type FileStorage } from './file-storage.ts';
import { ModelWorkError, type ModelWorker } from './model-worker.ts';
import type { EstimateSettings } from './model-work.ts';
import { SlicingRefusedError, type Slicer, type SlicerPlatePart, type SlicerPrinter } from './slicer.ts';

/** Who acts: the signed-in user, and whether they are an admin (admins see every seller's designs). */
export interface Actor {
  readonly id: string;
  readonly isAdmin: boolean;
  readonly requestId: string;
}

/** Exact slicing of a configuration, when a slicer is installed (port; a job queue implements it). */
export interface SlicingScheduler {
  readonly available: boolean;
  /** Queues the slicing of a configuration at these settings; `ownerId` is whose turn it takes (fair per seller). */
  schedule(configId: string, settingsVersion: number, ownerId: string): Promise<void>;
}

export interface DesignLimits {
  readonly maxUploadBytes: number;
  readonly quotaBytes: number;
}

/** Names of the products whose variants print this design or configuration (they block deletion). */
export type ProductsUsing = (target: { designId: string } | { printConfigId: string }) => Promise<string[]>;

export interface DesignServiceDeps {
  readonly designs: DesignRepository;
  readonly storage: FileStorage;
  readonly worker: ModelWorker;
  readonly prices: PriceTableRepository;
  readonly audit: AuditRepository;
  readonly slicing: SlicingScheduler;
  readonly limits: DesignLimits;
  readonly productsUsing: ProductsUsing;
}

const CONTENT_TYPES = { stl: 'model/stl', obj: 'model/obj', '3mf': 'model/3mf' } as const;
const DEFAULT_CONFIG = printConfigInputSchema.parse({ name: 'Standard PLA' });

const settingsOf = (c: { filament: string; infillPercent: number; layerHeightMm: number }): EstimateSettings => ({
  filament: c.filament as EstimateSettings['filament'],
  infillPercent: c.infillPercent,
  layerHeightMm: c.layerHeightMm,
});

/**
 * Characters that show nothing or reorder what is shown: controls (C0, C1), format characters
 * (bidi embeddings, overrides and isolates such as U+202E and U+2066–U+2069, zero-width spaces
 * and joiners U+200B–U+200F, U+FEFF, soft hyphen, ...) and line/paragraph separators.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/** A user-supplied name or text with the invisible and reordering characters removed. */
export function visibleText(raw: string): string {
  return raw.replace(INVISIBLE, '').trim();
}

/** Makes a user-supplied file name safe to show and to put in a download header. */
export function cleanFileName(raw: string): string {
  const base = visibleText(path.basename(visibleText(raw).replaceAll('\\', '/')));
  return (base || 'model').slice(0, 200);
}

const MODEL_EXTENSIONS: readonly string[] = ['stl', 'obj', '3mf'];

/**
 * The stored and downloaded name: its extension is the format found in the bytes. Another model
 * extension is replaced (`part.obj` holding an STL → `part.stl`); anything else is kept and the
 * right one appended (`model.html` → `model.html.stl`, `bracket v1.2` → `bracket v1.2.stl`).
 */
export function fileNameForFormat(cleanName: string, format: string): string {
  const dot = cleanName.lastIndexOf('.');
  const extension = dot > 0 ? cleanName.slice(dot + 1).toLowerCase() : '';
  if (extension === format) return cleanName;
  const base = MODEL_EXTENSIONS.includes(extension) ? cleanName.slice(0, dot) : cleanName;
  return `${base.slice(0, 200 - format.length - 1)}.${format}`;
}

/** A design's download name, cleaned again so rows stored before these rules are safe too. */
const downloadName = (design: { fileName: string; format: string }): string => fileNameForFormat(cleanFileName(design.fileName), design.format);

/** `Content-Disposition` for a download (RFC 6266/8187: `'()*` are not attr-chars, so they are encoded too). */
export function attachmentHeader(fileName: string): string {
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename*=UTF-8''${encoded}`;
}

/** Room an upload of unknown size holds ahead of the bytes it has received (docs/storage.md). */
const RESERVE_AHEAD_BYTES = 1024 * 1024;
/** A reservation left by a process that died mid-upload stops counting after this long. */
const RESERVATION_TTL_SECONDS = 3600;

class QuotaExceededError extends Error {}

/**
 * Model work's failures as answers (docs/security.md, "Model work"): what no printer could print,
 * a model past the time budget or too complex to estimate → 422; past the memory budget → 413;
 * a seller with too many models waiting → 429. Never a 500 for a file that is merely too big.
 */
async function modelWork<T>(fileName: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isMeshError(error)) throw meshErrorToAppError(error, fileName);
    if (!(error instanceof ModelWorkError)) throw error;
    const could = `“${fileName}” could not be used`;
    switch (error.kind) {
      case 'unprintable':
        throw new AppError('unprocessable', `${could}: ${error.message}`, { cause: error });
      case 'time-budget':
        throw new AppError('unprocessable', `${could}: the model is too complex: processing it ${error.message}.`, { cause: error });
      case 'memory-budget':
        throw new AppError('payload-too-large', `${could}: the model is too large: it ${error.message}.`, { cause: error });
      case 'queue-full':
        throw new AppError('rate-limited', `${error.message}; try again when they are done.`, { cause: error, retryAfterSeconds: 30 });
      case 'closed':
        throw new AppError('unavailable', 'The server is restarting; try again in a moment.', { cause: error });
    }
  }
}

function meshErrorToAppError(error: MeshError, fileName: string): AppError {
  const message = `“${fileName}” could not be used: ${error.message}`;
  switch (error.code) {
    case 'unsupported-format':
      return new AppError('unsupported-media-type', message, { cause: error });
    case 'too-large':
      return new AppError('payload-too-large', message, { cause: error });
    default:
      return new AppError('unprocessable', message, { cause: error });
  }
}

export function createDesignService(deps: DesignServiceDeps) {
  const { designs, storage, worker, prices, audit, slicing, limits, productsUsing } = deps;

  /** An admin changing another seller's design is recorded with the real actor (AC-2). */
  async function auditIfForOther(actor: Actor, ownerId: string, action: string, detail: Record<string, unknown>): Promise<void> {
    if (actor.id === ownerId) return;
    await audit.record({ actorId: actor.id, targetUserId: ownerId, action, detail, requestId: actor.requestId });
  }

  async function refuseIfInUse(target: Parameters<ProductsUsing>[0], what: string): Promise<void> {
    const names = await productsUsing(target);
    if (names.length > 0) {
      throw new AppError('conflict', `This ${what} is part of ${names.map((n) => `“${n}”`).join(', ')}. Remove it from the product first.`);
    }
  }

  async function visible(actor: Actor, designId: string): Promise<DesignWithConfigs> {
    const found = await designs.find(designId);
    // Another seller's design answers exactly like a missing one: its existence is not revealed.
    if (!found || (found.design.ownerId !== actor.id && !actor.isAdmin)) throw notFound('Design');
    return found;
  }

  async function visibleConfig(actor: Actor, configId: string): Promise<{ config: PrintConfigRow; item: DesignWithConfigs }> {
    const config = await designs.findConfig(configId);
    if (!config || (config.ownerId !== actor.id && !actor.isAdmin)) throw notFound('Print configuration');
    return { config, item: await visible(actor, config.designId) };
  }

  async function dto(actor: Actor, designId: string): Promise<Design> {
    return toDesignDto(await visible(actor, designId), await prices.get(), slicing.available, actor.isAdmin);
  }

  async function configDto(actor: Actor, configId: string): Promise<PrintConfig> {
    const { config, item } = await visibleConfig(actor, configId);
    return toPrintConfigDto(config, item.design, await prices.get(), slicing.available);
  }

  // The file's own memory, not a copy: the pool moves it to the model thread (a 200 MB STL once
  // sat in memory three times over).
  const loader = (key: string) => async () => {
    const bytes = await storage.readAll(key);
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };

  async function estimateFor(item: DesignWithConfigs, settings: EstimateSettings[]) {
    const { design } = item;
    return modelWork(design.fileName, () => worker.estimate(design.ownerId, design.storageKey, loader(design.storageKey), design.fileName, settings));
  }

  /**
   * Slices a configuration's model (for a printer of the farm, or with the quotes' profile) in a
   * scratch directory and stores the G-code at `gcodeKey`; the scratch is removed whatever happens.
   */
  async function sliceInto(
    slicer: Slicer,
    config: PrintConfigRow,
    item: DesignWithConfigs,
    gcodeKey: string,
    printer?: SlicerPrinter,
  ): Promise<{ grams: number; printSeconds: number }> {
    const scratch = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'layerline-model-'));
    const modelPath = path.join(scratch, `model.${item.design.format}`);
    let gcodePath: string | undefined;
    try {
      await fs.promises.writeFile(modelPath, await storage.readAll(item.design.storageKey));
      const filament = config.filament as EstimateSettings['filament'];
      const result = await slicer.slice({
        modelPath,
        format: item.design.format as 'stl' | 'obj' | '3mf',
        settings: { layerHeightMm: config.layerHeightMm, infillPercent: config.infillPercent, filament, densityGPerCm3: FILAMENT_DENSITY_G_PER_CM3[filament] },
        ...(printer ? { printer } : {}),
      });
      gcodePath = result.gcodePath;
      await storage.write(gcodeKey, fs.createReadStream(result.gcodePath), { maxBytes: 2 * 1024 * 1024 * 1024 });
      return { grams: result.grams, printSeconds: result.printSeconds };
    } finally {
      if (gcodePath) await fs.promises.rm(gcodePath, { force: true });
      await fs.promises.rm(scratch, { recursive: true, force: true });
    }
  }

  async function scheduleSlicing(configId: string, settingsVersion: number, ownerId: string): Promise<void> {
    if (!slicing.available) return;
    await designs.recordSlicing(configId, settingsVersion, { status: 'queued', error: null });
    await slicing.schedule(configId, settingsVersion, ownerId);
  }

  return {
    limits,

    /**
     * Stores an uploaded model, analyses it and prices its default configuration. Anything that
     * fails on the way removes the stored file: a failed upload leaves nothing behind.
     */
    async upload(
      actor: Actor,
      ownerId: string,
      file: { fileName: string; stream: Readable; name?: string; truncated?: () => boolean; declaredBytes?: number },
    ): Promise<Design> {
      const fileName = cleanFileName(file.fileName);
      const id = randomUUID();
      const storageKey = `designs/${id}`;
      const quotaFull = (usedBytes: number) =>
        new AppError(
          'payment-required',
          usedBytes >= limits.quotaBytes
            ? 'Your storage quota is full. Delete designs you no longer need to upload more.'
            : 'This upload would exceed your storage quota. Delete designs you no longer need to upload more.',
        );
      // The quota is held before the bytes are written (docs/storage.md): the declared request
      // size at once, and for a body of unknown size, room ahead of the bytes as they arrive.
      let reserved = 0;
      let lastUsed = 0;
      const reserve = async (bytes: number): Promise<boolean> => {
        const result = await designs.reserveStorage({ id, ownerId, bytes, quotaBytes: limits.quotaBytes, ttlSeconds: RESERVATION_TTL_SECONDS });
        lastUsed = result.usedBytes;
        if (result.granted) reserved += bytes;
        return result.granted;
      };
      const reserveUpTo = async (needed: number): Promise<boolean> => {
        if (needed <= reserved) return true;
        const ahead = Math.min(Math.max(needed, reserved + RESERVE_AHEAD_BYTES), limits.maxUploadBytes) - reserved;
        return (await reserve(ahead)) || (ahead > needed - reserved && (await reserve(needed - reserved)));
      };
      let stored;
      let gateError: unknown;
      try {
        if (file.declaredBytes && !(await reserveUpTo(Math.min(file.declaredBytes, limits.maxUploadBytes)))) throw new QuotaExceededError();
        let arrived = 0;
        const gate = new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            arrived += chunk.length;
            // Past the upload limit the storage's own meter refuses the file (413).
            if (arrived <= reserved || arrived > limits.maxUploadBytes) return callback(null, chunk);
            reserveUpTo(arrived).then((ok) => (ok ? callback(null, chunk) : callback(new QuotaExceededError())), callback);
          },
        });
        // The gate may refuse before the storage has started reading it: keep that error for below.
        gate.on('error', (error) => (gateError ??= error));
        // The client's stream is not destroyed on a refusal: it is drained below.
        file.stream.once('error', (error) => gate.destroy(error));
        stored = await storage.write(storageKey, file.stream.pipe(gate), { maxBytes: limits.maxUploadBytes });
      } catch (caught) {
        const error = gateError ?? caught;
        file.stream.unpipe();
        file.stream.resume(); // drain what the client still sends, so the request can be answered
        await designs.releaseStorage(id);
        if (error instanceof QuotaExceededError) throw quotaFull(lastUsed);
        if (error instanceof FileTooLargeError) throw new AppError('payload-too-large', `“${fileName}” is larger than the ${Math.round(limits.maxUploadBytes / 1048576)} MB upload limit`);
        throw error;
      }
      try {
        // A multipart parser that hit its own limit ends the stream early instead of failing it.
        if (file.truncated?.()) throw new AppError('payload-too-large', `“${fileName}” is larger than the ${Math.round(limits.maxUploadBytes / 1048576)} MB upload limit`);
        const { summary, estimates } = await modelWork(fileName, () => worker.analyse(ownerId, storageKey, loader(storageKey), fileName, [settingsOf(DEFAULT_CONFIG)]));
        const now = new Date();
        const inserted = await designs.insertUploaded(
          {
            id,
            ownerId,
            name: (visibleText(file.name ?? '') || fileName.replace(/\.[^.]+$/, '')).slice(0, 200),
            fileName: fileNameForFormat(fileName, summary.format),
            format: summary.format,
            contentType: CONTENT_TYPES[summary.format],
            storageKey,
            sizeBytes: stored.sizeBytes,
            md5Base64: stored.md5Base64,
            triangles: summary.triangles,
            volumeMm3: summary.volumeMm3,
            surfaceAreaMm2: summary.surfaceAreaMm2,
            bboxMm: summary.bboxMm,
            shells: summary.shells,
            objectCount: summary.objectCount,
            partVolumesMm3: summary.partVolumesMm3,
            fitsBuildVolume: summary.fitsBuildVolume,
            watertight: summary.watertight,
            problems: summary.problems,
            customMetadata: { originalName: fileName, uploadedBy: actor.id },
          },
          {
            ownerId,
            ...DEFAULT_CONFIG,
            estimate: { grams: estimates[0]!.grams, printSeconds: estimates[0]!.printSeconds, computedAt: now.toISOString() },
          },
          limits.quotaBytes,
        );
        if (!inserted) throw quotaFull(lastUsed);
      } catch (error) {
        await storage.delete(storageKey);
        await designs.releaseStorage(id);
        if (isMeshError(error)) throw meshErrorToAppError(error, fileName);
        throw error;
      }
      if (actor.id !== ownerId) {
        await audit.record({ actorId: actor.id, targetUserId: ownerId, action: 'design.uploaded-for-user', detail: { designId: id }, requestId: actor.requestId });
      }
      const created = await designs.find(id);
      if (created && slicing.available) {
        for (const config of created.configs) await scheduleSlicing(config.id, config.settingsVersion, created.design.ownerId);
      }
      return dto(actor, id);
    },

    async list(
      actor: Actor,
      query: { ownerId: string | null; search: string; cursor?: string | undefined; limit: number },
    ): Promise<DesignList> {
      if (query.ownerId === null && !actor.isAdmin) throw new AppError('forbidden', 'Only admins may list every seller’s designs');
      const [{ items, nextCursor, total }, table, usedBytes] = await Promise.all([
        designs.list(query),
        prices.get(),
        designs.storageUsedBytes(query.ownerId ?? actor.id),
      ]);
      return {
        items: items.map((item) => toDesignDto(item, table, slicing.available, actor.isAdmin)),
        nextCursor,
        total,
        storage: { usedBytes, quotaBytes: limits.quotaBytes },
      };
    },

    get: dto,

    async rename(actor: Actor, designId: string, name: string): Promise<Design> {
      const item = await visible(actor, designId);
      name = visibleText(name);
      if (!name) throw new AppError('bad-request', 'The name has no visible characters');
      await designs.rename(designId, name);
      await auditIfForOther(actor, item.design.ownerId, 'design.renamed-for-user', { designId, from: item.design.name, to: name });
      return dto(actor, designId);
    },

    /** Deletes the design, its configurations and every file that belongs to it. */
    async delete(actor: Actor, designId: string): Promise<void> {
      const item = await visible(actor, designId);
      await refuseIfInUse({ designId }, 'design');
      const removed = await designs.delete(designId);
      if (!removed) return;
      for (const key of [removed.storageKey, removed.thumbnailKey, ...removed.gcodeKeys]) if (key) await storage.delete(key);
      await audit.record({
        actorId: actor.id,
        targetUserId: item.design.ownerId,
        action: 'design.deleted',
        detail: { designId, name: item.design.name },
        requestId: actor.requestId,
      });
    },

    async download(actor: Actor, designId: string): Promise<{ fileName: string; contentType: string; sizeBytes: number; stream: Readable }> {
      const { design } = await visible(actor, designId);
      return { fileName: downloadName(design), contentType: design.contentType, sizeBytes: design.sizeBytes, stream: await storage.read(design.storageKey) };
    },

    async metadata(actor: Actor, designId: string): Promise<FileMetadata> {
      const { design } = await visible(actor, designId);
      return {
        bucket: storage.bucket,
        generation: String(design.createdAt.getTime()),
        metageneration: String(design.metageneration),
        fullPath: design.storageKey,
        name: downloadName(design),
        size: design.sizeBytes,
        timeCreated: design.createdAt.toISOString(),
        updated: design.updatedAt.toISOString(),
        md5Hash: design.md5Base64,
        cacheControl: 'private, no-store',
        contentDisposition: attachmentHeader(downloadName(design)),
        contentEncoding: 'identity',
        contentLanguage: '',
        contentType: design.contentType,
        customMetadata: design.customMetadata,
      };
    },

    async viewerMesh(actor: Actor, designId: string): Promise<Buffer> {
      const { design } = await visible(actor, designId);
      return modelWork(design.fileName, () => worker.viewerMesh(design.ownerId, design.storageKey, loader(design.storageKey), design.fileName));
    },

    async problemAreas(actor: Actor, designId: string) {
      const { design } = await visible(actor, designId);
      return { areas: design.problems.filter((p) => p.triangles.length > 0).map(({ code, message, triangles }) => ({ code, message, triangles })) };
    },

    /** The thumbnail is rendered on first request and kept in storage. */
    async thumbnail(actor: Actor, designId: string): Promise<Buffer> {
      const { design } = await visible(actor, designId);
      if (design.thumbnailKey) {
        try {
          return await storage.readAll(design.thumbnailKey);
        } catch {
          // missing: render it again below
        }
      }
      const png = await modelWork(design.fileName, () => worker.thumbnail(design.ownerId, design.storageKey, loader(design.storageKey), design.fileName));
      const key = `thumbnails/${design.id}.png`;
      await storage.write(key, Readable.from([png]), { maxBytes: 16 * 1024 * 1024 });
      await designs.setThumbnailKey(design.id, key);
      return png;
    },

    async createConfig(actor: Actor, designId: string, input: PrintConfigInput): Promise<PrintConfig> {
      const item = await visible(actor, designId);
      const parsed = printConfigInputSchema.parse(input);
      const [figures] = await estimateFor(item, [settingsOf(parsed)]);
      const id = await designs.insertConfig({
        ...parsed,
        designId,
        ownerId: item.design.ownerId,
        estimate: { ...figures!, computedAt: new Date().toISOString() },
      });
      await scheduleSlicing(id, 1, item.design.ownerId);
      await auditIfForOther(actor, item.design.ownerId, 'print-config.created-for-user', { designId, configId: id });
      return configDto(actor, id);
    },

    async updateConfig(actor: Actor, configId: string, changes: PrintConfigUpdate): Promise<PrintConfig> {
      const { config, item } = await visibleConfig(actor, configId);
      const merged = printConfigInputSchema.parse({
        name: config.name,
        filament: config.filament,
        colour: config.colour,
        layerHeightMm: config.layerHeightMm,
        infillPercent: config.infillPercent,
        isMultipart: config.isMultipart,
        parts: config.parts,
        multicolour: config.multicolour,
        addOns: addOnsOf(config.addOns),
        ...changes,
      });
      const geometryChanged =
        merged.filament !== config.filament || merged.infillPercent !== config.infillPercent || merged.layerHeightMm !== config.layerHeightMm;
      if (geometryChanged) {
        const [figures] = await estimateFor(item, [settingsOf(merged)]);
        const version = await designs.replaceConfigSettings(configId, {
          ...merged,
          estimate: { ...figures!, computedAt: new Date().toISOString() },
          slicingStatus: 'unavailable',
          slicingError: null,
        });
        await scheduleSlicing(configId, version, config.ownerId);
      } else {
        await designs.updateConfig(configId, merged);
      }
      await auditIfForOther(actor, config.ownerId, 'print-config.updated-for-user', { configId, changes });
      return configDto(actor, configId);
    },

    async deleteConfig(actor: Actor, configId: string): Promise<void> {
      const { config } = await visibleConfig(actor, configId);
      if ((await designs.countConfigs(config.designId)) <= 1) {
        throw new AppError('conflict', 'A design keeps at least one print configuration');
      }
      await refuseIfInUse({ printConfigId: configId }, 'print configuration');
      for (const key of await designs.deleteConfig(configId)) await storage.delete(key);
      await auditIfForOther(actor, config.ownerId, 'print-config.deleted-for-user', { configId, designId: config.designId });
    },

    /** The spec's estimatePrintCostThreeJS: a quote for settings, without saving anything. */
    async estimateCost(actor: Actor, input: EstimateCostInput): Promise<Quote> {
      const parsed = estimateCostInputSchema.parse(input);
      const designId = parsed.filePath.replace(/^designs\//, '');
      const item = await visible(actor, designId);
      const base = parsed.printConfigId ? item.configs.find((c) => c.id === parsed.printConfigId) : undefined;
      if (parsed.printConfigId && !base) throw notFound('Print configuration');
      const settings = {
        filament: parsed.filamentType,
        infillPercent: parsed.infillPercent ?? base?.infillPercent ?? DEFAULT_CONFIG.infillPercent,
        layerHeightMm: parsed.layerHeightMm ?? base?.layerHeightMm ?? DEFAULT_CONFIG.layerHeightMm,
      };
      const [figures] = await estimateFor(item, [settingsOf(settings)]);
      const parts = partShares(
        {
          filament: settings.filament,
          isMultipart: parsed.isMultipartPrint,
          parts: parsed.parts ?? base?.parts.map((p) => ({ filament: p.filament as typeof settings.filament })) ?? [],
        },
        item.design.partVolumesMm3,
      );
      return priceQuote({
        basis: 'estimate',
        basisNote: 'Estimated from the model’s geometry',
        grams: figures!.grams,
        printSeconds: figures!.printSeconds,
        parts,
        addOns: parsed.addOns ?? addOnsOf(base?.addOns ?? {}),
        table: await prices.get(),
      });
    },

    /** The spec's createCostData: an admin fixes the cost data of a configuration. */
    async setCostData(actor: Actor, input: CostDataInput): Promise<PrintConfig> {
      if (!actor.isAdmin) throw new AppError('forbidden', 'Only admins may set cost data');
      const { config } = await visibleConfig(actor, input.configId);
      await designs.updateConfig(config.id, {
        adminCost: {
          grams: input.costData.grams,
          printSeconds: input.costData.printSeconds,
          costUsd: input.costData.costUsd ?? null,
          note: input.costData.note ?? '',
          setBy: actor.id,
          computedAt: new Date().toISOString(),
        },
      });
      await audit.record({
        actorId: actor.id,
        targetUserId: config.ownerId,
        action: 'print-config.cost-data-set',
        detail: { configId: config.id, ...input.costData },
        requestId: actor.requestId,
      });
      return configDto(actor, config.id);
    },

    /**
     * The spec's createPlaceholderCost3MF: an admin gives a 3MF configuration a provisional cost from
     * its geometry estimate, marked as a placeholder, until exact figures are set.
     */
    async setPlaceholderCost3mf(actor: Actor, input: { filePath: string; printConfigId: string }): Promise<PrintConfig> {
      if (!actor.isAdmin) throw new AppError('forbidden', 'Only admins may set placeholder costs');
      const item = await visible(actor, input.filePath.replace(/^designs\//, ''));
      if (item.design.format !== '3mf') throw new AppError('bad-request', 'Placeholder costs are for 3MF designs');
      const config = item.configs.find((c) => c.id === input.printConfigId);
      if (!config) throw notFound('Print configuration');
      const [figures] = await estimateFor(item, [settingsOf(config)]);
      await designs.updateConfig(config.id, {
        adminCost: {
          grams: figures!.grams,
          printSeconds: figures!.printSeconds,
          costUsd: null,
          note: 'Placeholder cost from the geometry estimate, to be confirmed by the print farm',
          setBy: actor.id,
          computedAt: new Date().toISOString(),
        },
      });
      await audit.record({ actorId: actor.id, targetUserId: config.ownerId, action: 'print-config.placeholder-cost-set', detail: { configId: config.id }, requestId: actor.requestId });
      return configDto(actor, config.id);
    },

    countForOwner: designs.countForOwner,

    /**
     * Slices one configuration, as it is at `settingsVersion`, for a printer profile of the farm
     * (its nozzle and bed) and stores the G-code at `gcodeKey`. Returns null when the configuration
     * or its design is gone or its settings moved on; throws SlicingRefusedError when PrusaSlicer
     * refuses the model for that printer (it does not fit, nothing to print).
     */
    async slicePrintFile(
      slicer: Slicer,
      configId: string,
      settingsVersion: number,
      printer: SlicerPrinter,
      gcodeKey: string,
    ): Promise<{ grams: number; printSeconds: number } | null> {
      const config = await designs.findConfig(configId);
      if (!config || config.settingsVersion !== settingsVersion) return null;
      const item = await designs.find(config.designId);
      if (!item) return null;
      return sliceInto(slicer, config, item, gcodeKey, printer);
    },

    /**
     * A plate of copies of one configuration (the farm puts only parts of one configuration on a
     * plate), sliced for a farm printer with each copy at its place, stored at `gcodeKey`. Null when
     * the configuration changed or was deleted meanwhile. The scratch is removed whatever happens.
     */
    async slicePlateFile(
      slicer: Slicer,
      configId: string,
      settingsVersion: number,
      printer: SlicerPrinter,
      parts: readonly Omit<SlicerPlatePart, 'modelPath' | 'format'>[],
      gcodeKey: string,
    ): Promise<{ grams: number; printSeconds: number; objects: { index: number; label: string }[] } | null> {
      const config = await designs.findConfig(configId);
      if (!config || config.settingsVersion !== settingsVersion) return null;
      const item = await designs.find(config.designId);
      if (!item) return null;
      const scratch = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'layerline-model-'));
      const format = item.design.format as SlicerPlatePart['format'];
      const modelPath = path.join(scratch, `model.${format}`);
      let gcodePath: string | undefined;
      try {
        await fs.promises.writeFile(modelPath, await storage.readAll(item.design.storageKey));
        const filament = config.filament as EstimateSettings['filament'];
        const result = await slicer.slicePlate({
          parts: parts.map((part) => ({ ...part, modelPath, format })),
          settings: { layerHeightMm: config.layerHeightMm, infillPercent: config.infillPercent, filament, densityGPerCm3: FILAMENT_DENSITY_G_PER_CM3[filament] },
          printer,
        });
        gcodePath = result.gcodePath;
        await storage.write(gcodeKey, fs.createReadStream(result.gcodePath), { maxBytes: 2 * 1024 * 1024 * 1024 });
        return { grams: result.grams, printSeconds: result.printSeconds, objects: result.objects };
      } finally {
        if (gcodePath) await fs.promises.rm(gcodePath, { force: true });
        await fs.promises.rm(scratch, { recursive: true, force: true });
      }
    },

    /**
     * The slicing job: slices one configuration as it was at `settingsVersion` and stores the exact
     * figures and G-code. Idempotent: a stale, finished or refused job changes nothing, and a result
     * for settings that changed meanwhile is thrown away. A refusal (over a limit, does not fit) is
     * recorded for these settings and not retried; anything else is thrown for the queue to retry.
     */
    async runSlicing(slicer: Slicer, configId: string, settingsVersion: number): Promise<void> {
      const config = await designs.findConfig(configId);
      // 'failed' is PrusaSlicer's refusal of these very settings (a limit, a bed): running them again changes nothing.
      if (!config || config.settingsVersion !== settingsVersion || config.sliced || config.slicingStatus === 'failed') return;
      const item = await designs.find(config.designId);
      if (!item) return;
      await designs.recordSlicing(configId, settingsVersion, { status: 'running', error: null });
      const gcodeKey = `gcode/${configId}-v${settingsVersion}.gcode`;
      try {
        const result = await sliceInto(slicer, config, item, gcodeKey);
        const stored = await designs.recordSlicing(configId, settingsVersion, {
          status: 'done',
          error: null,
          sliced: { grams: result.grams, printSeconds: result.printSeconds, gcodeKey, slicerVersion: slicer.version, computedAt: new Date().toISOString() },
        });
        if (!stored) await storage.delete(gcodeKey);
      } catch (error) {
        if (error instanceof SlicingRefusedError) {
          await designs.recordSlicing(configId, settingsVersion, { status: 'failed', error: error.message });
          return;
        }
        await designs.recordSlicing(configId, settingsVersion, { status: 'queued', error: 'Slicing will be retried' });
        throw error;
      }
    },
  };
}

export type DesignService = ReturnType<typeof createDesignService>;
