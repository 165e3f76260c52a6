import { parentPort } from 'node:worker_threads';
import { isMeshError, type ModelAnalysis } from '@layerline/mesh';
import type { BuildVolume } from './build-volume.ts';
import type { ListingRenderOptions, ListingView } from './listing-render.ts';
import { ANALYSIS_CACHE_SIZE as CACHE_SIZE, analyzeModel, encodeViewerMesh, estimate, listingViewsOf, refuseIfUnprintable, summarise, thumbnailOf, UnprintableModelError, type EstimateSettings } from './model-work.ts';

/**
 * Worker side of model-worker.ts (one of a small pool). Keeps the last few analyses by key so a
 * seller dragging the infill slider does not re-parse a large file for every what-if quote; the
 * pool sends a key's jobs to the thread that has it when that thread is free.
 */
export type WorkRequest =
  | { id: number; kind: 'analyse'; key: string; bytes: Uint8Array; fileName: string; settings: EstimateSettings[]; volumes: readonly BuildVolume[] }
  | { id: number; kind: 'estimate'; key: string; bytes?: Uint8Array; fileName: string; settings: EstimateSettings[]; volumes: readonly BuildVolume[] }
  | { id: number; kind: 'viewer-mesh' | 'thumbnail'; key: string; bytes?: Uint8Array; fileName: string }
  | { id: number; kind: 'listing-views'; key: string; bytes?: Uint8Array; fileName: string; views: readonly ListingView[]; options: ListingRenderOptions };

export type WorkError = { meshCode?: string; unprintable?: boolean; rangeError?: boolean; message: string };

const cache = new Map<string, ModelAnalysis>();
/**
 * The cache is bounded by bytes too: three 4M-triangle analyses would keep ~1 GB per thread
 * resident. The pool's mirror of the keys may then be stale; a thread without the key asks again.
 */
const CACHE_BYTES = 192 * 1024 * 1024;
const sizeOf = (a: ModelAnalysis) =>
  a.mesh.positions.byteLength + a.mesh.indices.byteLength + a.problems.reduce((n, p) => n + (p.triangles?.byteLength ?? 0), 0);

async function analysisFor(request: WorkRequest): Promise<ModelAnalysis | null> {
  const cached = cache.get(request.key);
  if (cached) {
    cache.delete(request.key);
    cache.set(request.key, cached);
    return cached;
  }
  if (!request.bytes) return null;
  const analysis = await analyzeModel(request.bytes, { fileName: request.fileName });
  // Right after analysis, before anything per layer: what no printer can print goes no further.
  if ('volumes' in request) refuseIfUnprintable(analysis, request.volumes);
  cache.set(request.key, analysis);
  let bytes = 0;
  for (const kept of cache.values()) bytes += sizeOf(kept);
  while (cache.size > CACHE_SIZE || (cache.size > 0 && bytes > CACHE_BYTES)) {
    const oldest = cache.keys().next().value!;
    bytes -= sizeOf(cache.get(oldest)!);
    cache.delete(oldest); // the analysis just made is still in use by this request
  }
  return analysis;
}

async function handle(request: WorkRequest): Promise<unknown> {
  const analysis = await analysisFor(request);
  if (!analysis) return { needBytes: true };
  switch (request.kind) {
    case 'analyse':
      return { summary: summarise(analysis), estimates: request.settings.map((s) => estimate(analysis, s)) };
    case 'estimate':
      // A design stored before the farm's limits were checked is refused here too.
      refuseIfUnprintable(analysis, request.volumes);
      return { estimates: request.settings.map((s) => estimate(analysis, s)) };
    case 'viewer-mesh':
      return { buffer: encodeViewerMesh(analysis) };
    case 'thumbnail':
      return { buffer: thumbnailOf(analysis) };
    case 'listing-views':
      return { buffer: listingViewsOf(analysis, request.views, request.options) };
  }
}

function describe(error: unknown): WorkError {
  if (isMeshError(error)) return { meshCode: error.code, message: error.message };
  if (error instanceof UnprintableModelError) return { unprintable: true, message: error.message };
  // "Array buffer allocation failed", "Invalid typed array length": the model needs more memory than we give.
  if (error instanceof RangeError) return { rangeError: true, message: error.message };
  return { message: error instanceof Error ? error.message : String(error) };
}

parentPort!.on('message', (request: WorkRequest) => {
  handle(request).then(
    (result) => {
      const buffer = result && typeof result === 'object' && 'buffer' in result ? (result.buffer as Uint8Array) : undefined;
      const transfer = buffer && buffer.byteOffset === 0 && buffer.byteLength === buffer.buffer.byteLength ? [buffer.buffer as ArrayBuffer] : [];
      try {
        parentPort!.postMessage({ id: request.id, ok: true, result }, transfer);
      } catch {
        parentPort!.postMessage({ id: request.id, ok: true, result }); // a buffer that cannot be moved is copied
      }
    },
    (error: unknown) => parentPort!.postMessage({ id: request.id, ok: false, error: describe(error) }),
  );
});

/** A 10 mm cube, analysed and estimated once at start so the engine (and its WebAssembly) is compiled before any budget runs. */
function warmUpModel(): Uint8Array {
  const v = [[0, 0, 0], [10, 0, 0], [10, 10, 0], [0, 10, 0], [0, 0, 10], [10, 0, 10], [10, 10, 10], [0, 10, 10]];
  const t = [[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7], [0, 1, 5], [0, 5, 4], [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6], [3, 0, 4], [3, 4, 7]];
  const view = new DataView(new ArrayBuffer(84 + 50 * t.length));
  view.setUint32(80, t.length, true);
  t.forEach((tri, i) => tri.forEach((corner, k) => v[corner]!.forEach((c, a) => view.setFloat32(84 + 50 * i + 12 + k * 12 + a * 4, c, true))));
  return new Uint8Array(view.buffer);
}

analyzeModel(warmUpModel(), { fileName: 'warm-up.stl' })
  .then((analysis) => estimate(analysis, { filament: 'PLA', infillPercent: 15, layerHeightMm: 0.2 }))
  .catch(() => undefined)
  .finally(() => parentPort!.postMessage({ ready: true }));
