import type { FilamentType, PrinterSlicerProfile } from '@layerline/contracts';

/**
 * A farm printer the G-code is made for: its nozzle and build volume, and how it is sliced (a
 * bundled PrusaSlicer printer preset, the operator's own start and end G-code, or null: Layerline's
 * generic start and end G-code; docs/slicing-profiles.md).
 */
export interface SlicerPrinter {
  readonly nozzleMm: number;
  readonly bedMm: { readonly x: number; readonly y: number; readonly z: number };
  /** Absent in a request queued before printer profiles existed: treated as null. */
  readonly profile?: PrinterSlicerProfile | null;
}

/** Exact slicing of a model file (port; the PrusaSlicer integration implements it). */
export interface Slicer {
  readonly version: string;
  slice(input: {
    modelPath: string;
    format: 'stl' | 'obj' | '3mf';
    settings: { layerHeightMm: number; infillPercent: number; filament: FilamentType; densityGPerCm3: number };
    /** The printer the G-code is for (its profile, nozzle and bed); absent: the quotes' profile (0.4 mm, 250 × 210 × 210 mm, no material profile). */
    printer?: SlicerPrinter;
  }): Promise<{ grams: number; printSeconds: number; gcodePath: string }>;
  /**
   * Slices several parts as one plate for a farm printer, each at the place given (docs/print-farm.md,
   * "Plates"): one G-code printing them all, each part an object named by its label, checked to print
   * every part inside its footprint. Refusals are SlicingRefusedError, as for `slice`.
   */
  slicePlate(input: {
    parts: readonly SlicerPlatePart[];
    settings: { layerHeightMm: number; infillPercent: number; filament: FilamentType; densityGPerCm3: number };
    printer: SlicerPrinter;
  }): Promise<{ grams: number; printSeconds: number; gcodePath: string; objects: { index: number; label: string }[] }>;
}

/** One part of a plate: its model file and where it goes on the bed (plate-packer.ts's Placement). */
export interface SlicerPlatePart {
  readonly modelPath: string;
  readonly format: 'stl' | 'obj' | '3mf';
  /** Letters, digits and underscore: the object's name in the G-code (the part's index is its place in the list). */
  readonly label: string;
  readonly centerX: number;
  readonly centerY: number;
  readonly rotationDeg: 0 | 90;
  readonly width: number;
  readonly depth: number;
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
