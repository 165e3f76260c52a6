import { parentPort } from 'node:worker_threads';
import { isMeshError, type ModelAnalysis } from '@layerline/mesh';
import { analyzeModel, encodeViewerMesh, estimate, summarise, thumbnailOf, type EstimateSettings } from './model-work.ts';

/**
 * Worker side of model-worker.ts. Keeps the last few analyses by key so a seller dragging the
 * infill slider does not re-parse a large file for every what-if quote.
 */
export type WorkRequest =
  | { id: number; kind: 'analyse'; key: string; bytes: Uint8Array; fileName: string; settings: EstimateSettings[] }
  | { id: number; kind: 'estimate'; key: string; bytes?: Uint8Array; fileName: string; settings: EstimateSettings[] }
  | { id: number; kind: 'viewer-mesh' | 'thumbnail'; key: string; bytes?: Uint8Array; fileName: string };

const CACHE_SIZE = 3;
const cache = new Map<string, ModelAnalysis>();

async function analysisFor(key: string, bytes: Uint8Array | undefined, fileName: string): Promise<ModelAnalysis | null> {
  const cached = cache.get(key);
  if (cached) {
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  if (!bytes) return null;
  const analysis = await analyzeModel(bytes, { fileName });
  cache.set(key, analysis);
  while (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return analysis;
}

async function handle(request: WorkRequest): Promise<unknown> {
  const analysis = await analysisFor(request.key, request.bytes, request.fileName);
  if (!analysis) return { needBytes: true };
  switch (request.kind) {
    case 'analyse':
      return { summary: summarise(analysis), estimates: request.settings.map((s) => estimate(analysis, s)) };
    case 'estimate':
      return { estimates: request.settings.map((s) => estimate(analysis, s)) };
    case 'viewer-mesh':
      return { buffer: encodeViewerMesh(analysis) };
    case 'thumbnail':
      return { buffer: thumbnailOf(analysis) };
  }
}

parentPort!.on('message', (request: WorkRequest) => {
  handle(request).then(
    (result) => parentPort!.postMessage({ id: request.id, ok: true, result }),
    (error: unknown) =>
      parentPort!.postMessage({
        id: request.id,
        ok: false,
        error: isMeshError(error)
          ? { meshCode: error.code, message: error.message }
          : { message: error instanceof Error ? error.message : String(error) },
      }),
  );
});
