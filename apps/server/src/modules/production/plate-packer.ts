/**
 * Lays several parts out on one bed (issue 22, docs/print-farm.md "Plates"): pure code, no I/O.
 *
 * Layerline places the parts itself and hands the slicer fixed positions, because PrusaSlicer's own
 * arrange silently leaves out what does not fit: a plate the farm believes holds five parts must
 * hold five. Shelf packing (first fit by decreasing depth): each part lies as the seller oriented it,
 * or turned 90° about Z (never on another face), with `edgeMarginMm` kept free at the bed's edges and
 * `gapMm` between parts, so a failed part can be skipped or lifted off without touching its
 * neighbours. Shelves are not optimal, but they are predictable, fast for the few dozen parts of a
 * plate, and every part keeps a rectangle of its own (what exclude-object needs).
 */

export interface PlatePart {
  readonly id: string;
  /** The part's bounding box as printed (mm); z only has to fit the bed, parts never stack. */
  readonly size: { readonly x: number; readonly y: number; readonly z: number };
}

export interface PlateBed {
  readonly x: number;
  readonly y: number;
  readonly z: number;
}

export interface PlateSpacing {
  /** Kept free between the bed's edges and any part (mm). */
  readonly edgeMarginMm: number;
  /** Kept free between two parts (mm). */
  readonly gapMm: number;
  /** Kept free above the tallest part (mm). */
  readonly heightMarginMm: number;
}

/** Where one part goes: the centre of its footprint on the bed (mm from the bed's front-left corner). */
export interface Placement {
  readonly id: string;
  readonly centerX: number;
  readonly centerY: number;
  /** 0, or 90 when the part is turned about Z to fit. */
  readonly rotationDeg: 0 | 90;
  /** The footprint as placed (after turning). */
  readonly width: number;
  readonly depth: number;
}

interface Footprint {
  readonly part: PlatePart;
  readonly width: number;
  readonly depth: number;
  readonly rotated: boolean;
}

/**
 * The placements of all `parts` on the bed, or null when they do not all fit. Deterministic: the
 * same parts give the same layout.
 */
export function packPlate(
  parts: readonly PlatePart[],
  bed: PlateBed,
  spacing: PlateSpacing,
): Placement[] | null {
  const usableX = bed.x - 2 * spacing.edgeMarginMm;
  const usableY = bed.y - 2 * spacing.edgeMarginMm;
  const usableZ = bed.z - spacing.heightMarginMm;
  const footprints: Footprint[] = [];
  for (const part of parts) {
    if (part.size.z > usableZ) return null;
    // Lay the long side along X so shelves stay shallow; turn it back when that side is too long for the bed.
    const long = Math.max(part.size.x, part.size.y);
    const short = Math.min(part.size.x, part.size.y);
    const rotatedIsLong = part.size.y > part.size.x;
    if (long <= usableX && short <= usableY) {
      footprints.push({ part, width: long, depth: short, rotated: rotatedIsLong });
    } else if (short <= usableX && long <= usableY) {
      footprints.push({ part, width: short, depth: long, rotated: !rotatedIsLong });
    } else return null;
  }
  footprints.sort(
    (a, b) =>
      b.depth - a.depth || b.width - a.width || (a.part.id < b.part.id ? -1 : a.part.id > b.part.id ? 1 : 0),
  );

  interface Shelf {
    readonly y: number;
    readonly depth: number;
    usedX: number;
  }
  const shelves: Shelf[] = [];
  const placements: Placement[] = [];
  let nextShelfY = 0;
  for (const f of footprints) {
    let shelf = shelves.find((s) => s.usedX + spacing.gapMm + f.width <= usableX && f.depth <= s.depth);
    let x: number;
    if (shelf) {
      x = shelf.usedX + spacing.gapMm;
    } else {
      const y = shelves.length === 0 ? 0 : nextShelfY + spacing.gapMm;
      if (y + f.depth > usableY) return null;
      shelf = { y, depth: f.depth, usedX: 0 };
      shelves.push(shelf);
      nextShelfY = y + f.depth;
      x = 0;
    }
    shelf.usedX = x + f.width;
    placements.push({
      id: f.part.id,
      centerX: round(spacing.edgeMarginMm + x + f.width / 2),
      centerY: round(spacing.edgeMarginMm + shelf.y + f.depth / 2),
      rotationDeg: f.rotated ? 90 : 0,
      width: f.width,
      depth: f.depth,
    });
  }
  return placements;
}

const round = (n: number) => Math.round(n * 100) / 100;
