import type { FilamentType } from '@layerline/contracts';

/** Exact slicing of a model file (port; the PrusaSlicer integration implements it). */
export interface Slicer {
  readonly version: string;
  slice(input: {
    modelPath: string;
    format: 'stl' | 'obj' | '3mf';
    settings: { layerHeightMm: number; infillPercent: number; filament: FilamentType; densityGPerCm3: number };
  }): Promise<{ grams: number; printSeconds: number; gcodePath: string }>;
}

/**
 * The slicer refused the model for a reason that will not change on a retry (does not fit the bed,
 * nothing to print, too slow, too big). Anything else is retried by the job queue.
 */
export class SlicingRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SlicingRefusedError';
  }
}
