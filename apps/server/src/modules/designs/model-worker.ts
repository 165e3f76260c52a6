import { Worker } from 'node:worker_threads';
import { MeshError, type MeshErrorCode } from '@layerline/mesh';
import type { AnalysisSummary, EstimateFigures, EstimateSettings } from './model-work.ts';
import type { WorkRequest } from './model-worker-thread.ts';

/**
 * Runs model work on one background thread, one job at a time (the work is CPU-bound and the
 * machine small), so the event loop keeps answering requests while a large model is analysed.
 * The worker keeps recent analyses; when it has none for a key it asks for the bytes again.
 * Bytes given to it are handed over (transferred): the caller must not use them afterwards.
 */
export interface ModelWorker {
  analyse(key: string, bytes: Uint8Array, fileName: string, settings: EstimateSettings[]): Promise<{ summary: AnalysisSummary; estimates: EstimateFigures[] }>;
  estimate(key: string, loadBytes: () => Promise<Uint8Array>, fileName: string, settings: EstimateSettings[]): Promise<EstimateFigures[]>;
  viewerMesh(key: string, loadBytes: () => Promise<Uint8Array>, fileName: string): Promise<Buffer>;
  thumbnail(key: string, loadBytes: () => Promise<Uint8Array>, fileName: string): Promise<Buffer>;
  close(): Promise<void>;
}

type Pending = { resolve(value: unknown): void; reject(error: Error): void };
type Reply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: { meshCode?: MeshErrorCode; message: string } };
type RequestBody = WorkRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

export function createModelWorker(): ModelWorker {
  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  function ensureWorker(): Worker {
    if (worker) return worker;
    const started = new Worker(new URL('./model-worker-thread.ts', import.meta.url));
    started.unref();
    started.on('message', (reply: Reply) => {
      const waiting = pending.get(reply.id);
      if (!waiting) return;
      pending.delete(reply.id);
      if (reply.ok) waiting.resolve(reply.result);
      else waiting.reject(reply.error.meshCode ? new MeshError(reply.error.meshCode, reply.error.message) : new Error(reply.error.message));
    });
    // A crashed worker (e.g. out of memory on a hostile file) fails what it held; the next call starts a new one.
    started.on('error', (error) => failAll(error));
    started.on('exit', (code) => {
      if (worker === started) worker = undefined;
      if (code !== 0) failAll(new Error(`model worker exited with code ${code}`));
    });
    worker = started;
    return started;
  }

  function failAll(error: Error): void {
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
  }

  function call<T>(body: RequestBody): Promise<T> {
    const id = nextId++;
    // A model's bytes are moved to the worker, not copied (a large STL is tens of MB).
    const bytes = 'bytes' in body ? body.bytes : undefined;
    const transfer = bytes && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? [bytes.buffer as ArrayBuffer] : [];
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      ensureWorker().postMessage({ ...body, id }, transfer);
    });
  }

  async function withBytes<T>(body: RequestBody, loadBytes: () => Promise<Uint8Array>): Promise<T> {
    const first = await call<T | { needBytes: true }>(body);
    if (first && typeof first === 'object' && 'needBytes' in first) {
      return call<T>({ ...body, bytes: await loadBytes() } as RequestBody);
    }
    return first as T;
  }

  return {
    analyse: (key, bytes, fileName, settings) => call({ kind: 'analyse', key, bytes, fileName, settings }),
    estimate: async (key, loadBytes, fileName, settings) =>
      (await withBytes<{ estimates: EstimateFigures[] }>({ kind: 'estimate', key, fileName, settings }, loadBytes)).estimates,
    viewerMesh: async (key, loadBytes, fileName) =>
      Buffer.from((await withBytes<{ buffer: Uint8Array }>({ kind: 'viewer-mesh', key, fileName }, loadBytes)).buffer),
    thumbnail: async (key, loadBytes, fileName) =>
      Buffer.from((await withBytes<{ buffer: Uint8Array }>({ kind: 'thumbnail', key, fileName }, loadBytes)).buffer),
    async close() {
      failAll(new Error('model worker closed'));
      await worker?.terminate();
      worker = undefined;
    },
  };
}
