import { Worker } from 'node:worker_threads';
import { MeshError, type MeshErrorCode } from '@layerline/mesh';
import type { BuildVolume, BuildVolumes } from './build-volume.ts';
import { watchCpuBudget, type CpuBudgetWatch } from './cpu-budget.ts';
import { ANALYSIS_CACHE_SIZE as CACHE_SIZE, type AnalysisSummary, type EstimateFigures, type EstimateSettings } from './model-work.ts';
import type { WorkError, WorkRequest } from './model-worker-thread.ts';
import type { ListingRenderOptions, ListingView } from './listing-render.ts';

/**
 * Model work (analysis, estimates, viewer mesh, thumbnail, listing views) on a small pool of background threads,
 * so the event loop keeps answering while models are analysed, with budgets no file can exceed:
 *
 * - **Time**: each job may use `jobCpuMs` of its thread's CPU time (worker.cpuUsage(); waiting for
 *   a core on a loaded machine is not counted, cpu-budget.ts); a thread past it, or still working
 *   after WALL_CAP_FACTOR times it in wall-clock time, is terminated (`worker.terminate()` stops
 *   even a tight loop) and replaced, and the job fails with ModelWorkError('time-budget').
 * - **Memory**: each thread runs with V8 `resourceLimits` (`heapMb` old generation); a thread that
 *   runs out is ended by V8 and replaced, and its job fails with ModelWorkError('memory-budget').
 *   Typed arrays live outside the V8 heap: the mesh engine bounds them by checking sizes before it
 *   allocates (MESH_LIMITS), and a RangeError on allocation fails the job the same way.
 * - **Fairness**: one queue per seller; a free thread takes the next job of the seller served least
 *   recently (sellers never served first, in arrival order). So once a seller has a job waiting,
 *   every other seller starts at most one job before it (plus the jobs already running, each
 *   bounded by the time budget): one seller's files never delay another's by more than one job.
 *   A seller may have at most `maxQueuedPerSeller` jobs waiting; more fail with 'queue-full'.
 *
 * Each thread keeps its last few analyses (CACHE_SIZE); the pool mirrors which keys each thread
 * holds and gives a job to the free thread that has its key, else to any free thread, which asks
 * for the bytes when it lacks them. Bytes are loaded only when a job starts (a queued job holds no
 * file in memory) and are moved to the thread, not copied.
 */
export interface ModelWorker {
  analyse(owner: string, key: string, loadBytes: () => Promise<Uint8Array>, fileName: string, settings: EstimateSettings[]): Promise<{ summary: AnalysisSummary; estimates: EstimateFigures[] }>;
  estimate(owner: string, key: string, loadBytes: () => Promise<Uint8Array>, fileName: string, settings: EstimateSettings[]): Promise<EstimateFigures[]>;
  viewerMesh(owner: string, key: string, loadBytes: () => Promise<Uint8Array>, fileName: string): Promise<Buffer>;
  thumbnail(owner: string, key: string, loadBytes: () => Promise<Uint8Array>, fileName: string): Promise<Buffer>;
  /** Listing images (docs/listing-images.md): each view's raw RGB pixels, one after another. */
  listingViews(owner: string, key: string, loadBytes: () => Promise<Uint8Array>, fileName: string, views: readonly ListingView[], options: ListingRenderOptions): Promise<Buffer>;
  stats(): ModelWorkerStats;
  close(): Promise<void>;
}

export interface ModelWorkerStats {
  threads: number;
  running: number;
  queued: number;
  /** Threads ended for a budget or a crash (each is replaced on demand). */
  replaced: number;
}

export interface ModelWorkerOptions {
  threads: number;
  jobCpuMs: number;
  heapMb: number;
  maxQueuedPerSeller: number;
  buildVolumes: BuildVolumes;
}

export type ModelWorkFailure = 'time-budget' | 'memory-budget' | 'unprintable' | 'queue-full' | 'closed';

/** Why model work did not finish, other than a MeshError about the file itself. */
export class ModelWorkError extends Error {
  readonly kind: ModelWorkFailure;
  constructor(kind: ModelWorkFailure, message: string) {
    super(message);
    this.name = 'ModelWorkError';
    this.kind = kind;
  }
}

type RequestBody = WorkRequest extends infer R ? (R extends unknown ? Omit<R, 'id' | 'volumes'> : never) : never;
type Reply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: WorkError };

interface Job {
  owner: string;
  body: RequestBody;
  loadBytes: () => Promise<Uint8Array>;
  /** Analysis always needs the bytes; other jobs only when the thread has no analysis for the key. */
  eager: boolean;
  volumes: readonly BuildVolume[];
  resolve(value: unknown): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker | undefined;
  job: Job | undefined;
  /** Keys the thread holds, least recent first (a mirror of its cache). */
  keys: string[];
  budget: CpuBudgetWatch | undefined;
  /** Which reply the slot waits for. */
  id: number;
  /** Settles when the thread has loaded its code (or has died): budgets start after it. */
  ready: Promise<boolean>;
}

/** A job that uses little CPU but never finishes (it should not exist) is ended after this many CPU budgets of wall-clock time. */
const WALL_CAP_FACTOR = 10;

export function createModelWorker(options: ModelWorkerOptions): ModelWorker {
  const slots: Slot[] = Array.from({ length: Math.max(1, options.threads) }, () => ({ worker: undefined, job: undefined, keys: [], budget: undefined, id: 0, ready: Promise.resolve(false) }));
  const queues = new Map<string, Job[]>();
  const lastServed = new Map<string, number>();
  let served = 0;
  let nextId = 1;
  let replaced = 0;
  let closed = false;

  function startWorker(slot: Slot): Worker {
    const worker = new Worker(new URL('./model-worker-thread.ts', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
    });
    worker.unref();
    let markReady: (ready: boolean) => void = () => undefined;
    slot.ready = new Promise((resolve) => (markReady = resolve));
    worker.once('exit', () => markReady(false));
    worker.on('message', (reply: Reply | { ready: true }) => {
      if ('ready' in reply) return markReady(true);
      if (slot.worker !== worker || reply.id !== slot.id) return;
      onReply(slot, reply);
    });
    worker.on('error', (error: Error & { code?: string }) => {
      if (slot.worker !== worker) return;
      const memory = error.code === 'ERR_WORKER_OUT_OF_MEMORY';
      end(slot, memory ? new ModelWorkError('memory-budget', `needs more than the ${options.heapMb} MB of memory a model may use`) : error);
    });
    worker.on('exit', (code) => {
      if (slot.worker !== worker) return;
      end(slot, new Error(`model worker exited with code ${code}`));
    });
    slot.worker = worker;
    slot.keys = [];
    return worker;
  }

  /** Ends the slot's thread (a budget was exceeded or it crashed): its job fails, a new thread starts on demand. */
  function end(slot: Slot, error: Error): void {
    const { worker, job } = slot;
    slot.worker = undefined;
    slot.keys = [];
    slot.job = undefined;
    slot.budget?.stop();
    if (worker) {
      replaced++;
      void worker.terminate();
      // Replace it at once, so the next job does not wait for a thread to start.
      if (!closed) startWorker(slot);
    }
    job?.reject(error);
    dispatch();
  }

  function post(slot: Slot, job: Job, bytes?: Uint8Array): void {
    slot.id = nextId++;
    const body = 'settings' in job.body ? { ...job.body, volumes: job.volumes } : job.body;
    const transfer = bytes && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? [bytes.buffer as ArrayBuffer] : [];
    slot.worker!.postMessage({ ...body, ...(bytes ? { bytes } : {}), id: slot.id }, transfer);
  }

  async function run(slot: Slot, job: Job): Promise<void> {
    slot.job = job;
    try {
      if ('settings' in job.body) job.volumes = await options.buildVolumes.list();
      const bytes = job.eager ? await job.loadBytes() : undefined;
      if (!slot.worker) startWorker(slot);
      // The budget is the job's own: a new thread's start-up (loading the engine) is not counted.
      if (!(await slot.ready)) return; // died while starting: end() has failed the job
      if (slot.job !== job) return; // ended meanwhile
      const worker = slot.worker!;
      slot.budget = watchCpuBudget({
        readCpuMs: async () => {
          const { user, system } = await worker.cpuUsage();
          return (user + system) / 1000;
        },
        budgetMs: options.jobCpuMs,
        wallCapMs: options.jobCpuMs * WALL_CAP_FACTOR,
        onExceeded: (reason) => {
          if (slot.job !== job) return;
          const seconds = options.jobCpuMs / 1000;
          end(slot, new ModelWorkError('time-budget', reason === 'cpu' ? `needed more than the ${seconds} s of CPU time a model may use` : `was still not done after ${seconds * WALL_CAP_FACTOR} s`));
        },
      });
      post(slot, job, bytes);
    } catch (error) {
      if (slot.job === job) finish(slot, () => job.reject(error as Error));
    }
  }

  function finish(slot: Slot, settle: () => void): void {
    slot.budget?.stop();
    slot.job = undefined;
    settle();
    dispatch();
  }

  function onReply(slot: Slot, reply: Reply): void {
    const job = slot.job;
    if (!job) return;
    if (reply.ok && reply.result && typeof reply.result === 'object' && 'needBytes' in reply.result) {
      job
        .loadBytes()
        .then((bytes) => {
          if (slot.job === job) post(slot, job, bytes);
        })
        .catch((error: Error) => {
          if (slot.job === job) finish(slot, () => job.reject(error));
        });
      return;
    }
    if (reply.ok) {
      const key = job.body.key;
      slot.keys = [...slot.keys.filter((k) => k !== key), key].slice(-CACHE_SIZE);
      finish(slot, () => job.resolve(reply.result));
      return;
    }
    const { error } = reply;
    finish(slot, () =>
      job.reject(
        error.meshCode
          ? new MeshError(error.meshCode as MeshErrorCode, error.message)
          : error.unprintable
            ? new ModelWorkError('unprintable', error.message)
            : error.rangeError
              ? new ModelWorkError('memory-budget', `needs more memory than a model may use (${error.message})`)
              : new Error(error.message),
      ),
    );
  }

  /** The next job by the fairness rule above, or undefined. */
  function nextJob(): Job | undefined {
    let pick: string | undefined;
    let pickServed = Infinity;
    for (const owner of queues.keys()) {
      const at = lastServed.get(owner) ?? -1;
      if (at < pickServed) {
        pick = owner;
        pickServed = at;
      }
    }
    if (pick === undefined) return undefined;
    const queue = queues.get(pick)!;
    const job = queue.shift()!;
    if (queue.length === 0) queues.delete(pick);
    lastServed.set(pick, ++served);
    if (lastServed.size > 10_000) for (const owner of lastServed.keys()) if (!queues.has(owner) && lastServed.size > 5_000) lastServed.delete(owner);
    return job;
  }

  function dispatch(): void {
    if (closed) return;
    for (;;) {
      const free = slots.filter((slot) => !slot.job);
      if (free.length === 0) return;
      const job = nextJob();
      if (!job) return;
      const slot = free.find((s) => s.worker && s.keys.includes(job.body.key)) ?? free.find((s) => s.worker) ?? free[0]!;
      // A thread that lacks the key's analysis needs the bytes: load them before posting.
      job.eager = job.body.kind === 'analyse' || !slot.keys.includes(job.body.key);
      void run(slot, job);
    }
  }

  function submit<T>(owner: string, body: RequestBody, loadBytes: () => Promise<Uint8Array>): Promise<T> {
    if (closed) return Promise.reject(new ModelWorkError('closed', 'model work is shutting down'));
    const queue = queues.get(owner) ?? [];
    if (queue.length >= options.maxQueuedPerSeller) {
      return Promise.reject(new ModelWorkError('queue-full', `${queue.length} of your models are already waiting to be processed`));
    }
    return new Promise<T>((resolve, reject) => {
      queue.push({ owner, body, loadBytes, eager: true, volumes: [], resolve: resolve as (v: unknown) => void, reject });
      queues.set(owner, queue);
      dispatch();
    });
  }

  return {
    analyse: (owner, key, loadBytes, fileName, settings) => submit(owner, { kind: 'analyse', key, fileName, settings } as RequestBody, loadBytes),
    estimate: async (owner, key, loadBytes, fileName, settings) =>
      (await submit<{ estimates: EstimateFigures[] }>(owner, { kind: 'estimate', key, fileName, settings }, loadBytes)).estimates,
    viewerMesh: async (owner, key, loadBytes, fileName) => Buffer.from((await submit<{ buffer: Uint8Array }>(owner, { kind: 'viewer-mesh', key, fileName }, loadBytes)).buffer),
    thumbnail: async (owner, key, loadBytes, fileName) => Buffer.from((await submit<{ buffer: Uint8Array }>(owner, { kind: 'thumbnail', key, fileName }, loadBytes)).buffer),
    listingViews: async (owner, key, loadBytes, fileName, views, options) => {
      const { buffer } = await submit<{ buffer: Uint8Array }>(owner, { kind: 'listing-views', key, fileName, views, options }, loadBytes);
      return Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength); // tens of MB: a view, not a copy
    },
    stats: () => ({
      threads: slots.length,
      running: slots.filter((s) => s.job).length,
      queued: [...queues.values()].reduce((n, q) => n + q.length, 0),
      replaced,
    }),
    async close() {
      closed = true;
      const error = new ModelWorkError('closed', 'model work is shutting down');
      for (const queue of queues.values()) for (const job of queue) job.reject(error);
      queues.clear();
      await Promise.all(
        slots.map(async (slot) => {
          slot.budget?.stop();
          slot.job?.reject(error);
          slot.job = undefined;
          const worker = slot.worker;
          slot.worker = undefined;
          await worker?.terminate();
        }),
      );
    },
  };
}
