import { analyzeModel, estimatePrint, type ModelAnalysis } from '@layerline/mesh';
import type { FilamentType } from '@layerline/contracts';
import { renderThumbnail } from './thumbnail.ts';
import { renderListingView, type ListingRenderOptions, type ListingView } from './listing-render.ts';
import { checkPrintable, type BuildVolume } from './build-volume.ts';

/**
 * The CPU-heavy work on a model's bytes: analysis, estimates, the viewer mesh and the thumbnail.
 * Pure functions of the bytes; model-worker.ts runs them off the main thread.
 */
export interface EstimateSettings {
  readonly filament: FilamentType;
  readonly infillPercent: number;
  readonly layerHeightMm: number;
}

export interface AnalysisSummary {
  format: 'stl' | 'obj' | '3mf';
  triangles: number;
  volumeMm3: number;
  surfaceAreaMm2: number;
  bboxMm: [number, number, number];
  shells: number;
  objectCount: number;
  partVolumesMm3: number[];
  fitsBuildVolume: boolean;
  watertight: boolean;
  problems: { code: string; severity: 'error' | 'warning' | 'info'; message: string; count: number; triangles: number[] }[];
}

export interface EstimateFigures {
  grams: number;
  printSeconds: number;
}

/** Analyses each worker thread keeps, most recent last (the pool mirrors which keys each holds). */
export const ANALYSIS_CACHE_SIZE = 3;

/** Problem triangles kept per problem for the viewer; enough to show where, small enough to store. */
export const MAX_PROBLEM_TRIANGLES = 5000;

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

export function summarise(analysis: ModelAnalysis): AnalysisSummary {
  const { positions, indices, parts } = analysis.mesh;
  const partVolumesMm3: number[] = [];
  for (let k = 0; k + 1 < parts.length; k++) partVolumesMm3.push(round(signedVolume(positions, indices, parts[k]!, parts[k + 1]!), 3));
  return {
    format: analysis.format.startsWith('stl') ? 'stl' : (analysis.format as 'obj' | '3mf'),
    triangles: analysis.triangleCount,
    volumeMm3: round(analysis.volumeMm3, 3),
    surfaceAreaMm2: round(analysis.surfaceAreaMm2, 3),
    bboxMm: analysis.bbox.size.map((v) => round(v, 3)) as [number, number, number],
    shells: analysis.shells,
    objectCount: analysis.objectCount,
    partVolumesMm3: partVolumesMm3.length > 0 ? partVolumesMm3 : [round(analysis.volumeMm3, 3)],
    fitsBuildVolume: analysis.printability.fitsBuildVolume,
    watertight: analysis.printability.watertight,
    problems: analysis.problems.map((problem) => ({
      code: problem.code,
      severity: problem.severity,
      message: problem.message,
      count: problem.count,
      triangles: problem.triangles ? Array.from(problem.triangles.subarray(0, MAX_PROBLEM_TRIANGLES)) : [],
    })),
  };
}

/** Triangles [from, to) as a signed-tetrahedron sum: the volume of one printable object. */
function signedVolume(p: Float32Array, idx: Uint32Array, from: number, to: number): number {
  let sum = 0;
  for (let t = from; t < to; t++) {
    const a = idx[t * 3]! * 3, b = idx[t * 3 + 1]! * 3, c = idx[t * 3 + 2]! * 3;
    sum +=
      p[a]! * (p[b + 1]! * p[c + 2]! - p[b + 2]! * p[c + 1]!) -
      p[a + 1]! * (p[b]! * p[c + 2]! - p[b + 2]! * p[c]!) +
      p[a + 2]! * (p[b]! * p[c + 1]! - p[b + 1]! * p[c]!);
  }
  return sum / 6;
}

/** The size (mm, as laid) of each printable object: one per 3MF build item, one for other files. */
export function objectSizes(analysis: ModelAnalysis): [number, number, number][] {
  const { positions: p, indices: idx, parts } = analysis.mesh;
  const sizes: [number, number, number][] = [];
  for (let k = 0; k + 1 < parts.length; k++) {
    let x0 = Infinity, y0 = Infinity, z0 = Infinity, x1 = -Infinity, y1 = -Infinity, z1 = -Infinity;
    for (let t = parts[k]! * 3, end = parts[k + 1]! * 3; t < end; t++) {
      const o = idx[t]! * 3;
      const x = p[o]!, y = p[o + 1]!, z = p[o + 2]!;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      if (z < z0) z0 = z;
      if (z > z1) z1 = z;
    }
    if (x1 >= x0) sizes.push([x1 - x0, y1 - y0, z1 - z0]);
  }
  return sizes;
}

/** A model no printer of the farm could print; refused before any per-layer work. */
export class UnprintableModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnprintableModelError';
  }
}

/** Throws UnprintableModelError when the model fits none of the build volumes (see build-volume.ts). */
export function refuseIfUnprintable(analysis: ModelAnalysis, volumes: readonly BuildVolume[]): void {
  const verdict = checkPrintable(objectSizes(analysis), volumes, analysis.bbox.size);
  if (verdict) throw new UnprintableModelError(`No printer of the farm can print it: ${verdict.reason}.`);
}

export function estimate(analysis: ModelAnalysis, settings: EstimateSettings): EstimateFigures {
  const result = estimatePrint(analysis, {
    filament: settings.filament,
    infillPercent: settings.infillPercent,
    layerHeightMm: settings.layerHeightMm,
  });
  return { grams: round(result.grams, 3), printSeconds: Math.round(result.printSeconds) };
}

/** The viewer's binary mesh: u32 vertex count, u32 triangle count, f32 positions, u32 indices (LE). */
export function encodeViewerMesh(analysis: ModelAnalysis): Buffer {
  const { positions, indices } = analysis.mesh;
  const header = Buffer.alloc(8);
  header.writeUInt32LE(positions.length / 3, 0);
  header.writeUInt32LE(indices.length / 3, 4);
  return Buffer.concat([
    header,
    Buffer.from(positions.buffer, positions.byteOffset, positions.byteLength),
    Buffer.from(indices.buffer, indices.byteOffset, indices.byteLength),
  ]);
}

export function thumbnailOf(analysis: ModelAnalysis): Buffer {
  return renderThumbnail(analysis.mesh.positions, analysis.mesh.indices, 256);
}

/** The listing images' raw RGB pixels, one view after another in one buffer (moved, not copied, off the thread). */
export function listingViewsOf(analysis: ModelAnalysis, views: readonly ListingView[], options: ListingRenderOptions): Uint8Array {
  const frame = options.sizePx * options.sizePx * 3;
  const out = new Uint8Array(frame * views.length);
  views.forEach((view, i) => out.set(renderListingView(analysis.mesh.positions, analysis.mesh.indices, view, options), i * frame));
  return out;
}

export { analyzeModel };
