import type { ParcelPlan } from '@layerline/contracts';
import type { ParcelSizeJson } from '../../db/schema.ts';

/** A printed part as the packing station handles it: its bounding box (mm) and weight (g). */
export interface PackedPart {
  readonly sizeMm: { readonly x: number; readonly y: number; readonly z: number };
  readonly grams: number;
}

export interface PlannedParcel {
  readonly size: ParcelSizeJson;
  readonly parts: readonly PackedPart[];
  /** Parts plus the box's tare, grams. */
  readonly weightGrams: number;
}

/**
 * Parts take more room than their boxes' volume: they do not tessellate and need padding. A parcel
 * is filled to at most this share of its inside volume.
 */
export const PACKING_EFFICIENCY = 0.6;

const sorted = (a: number, b: number, c: number): [number, number, number] => [a, b, c].sort((p, q) => q - p) as [number, number, number];

/** Whether the part fits through the parcel in some orientation (its dimensions, largest first, each within). */
export function partFits(part: PackedPart, size: ParcelSizeJson): boolean {
  const [p1, p2, p3] = sorted(part.sizeMm.x, part.sizeMm.y, part.sizeMm.z);
  const [s1, s2, s3] = sorted(size.lengthMm, size.widthMm, size.heightMm);
  return p1 <= s1 && p2 <= s2 && p3 <= s3;
}

const volume = (x: number, y: number, z: number) => x * y * z;
const partVolume = (part: PackedPart) => volume(part.sizeMm.x, part.sizeMm.y, part.sizeMm.z);
const parcelVolume = (size: ParcelSizeJson) => volume(size.lengthMm, size.widthMm, size.heightMm);

function fitsTogether(parts: readonly PackedPart[], size: ParcelSizeJson): boolean {
  const grams = parts.reduce((sum, part) => sum + part.grams, 0) + size.tareGrams;
  const room = parts.reduce((sum, part) => sum + partVolume(part), 0);
  return grams <= size.maxGrams && room <= parcelVolume(size) * PACKING_EFFICIENCY && parts.every((part) => partFits(part, size));
}

export class UnpackableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnpackableError';
  }
}

/**
 * Picks the parcels for an order's parts: the smallest parcel size (by volume) that takes them all;
 * when none does, the parts are split over several parcels, largest part first, each into the first
 * open parcel that some size can still take with it, else a new parcel; each parcel then gets the
 * smallest size its parts fit. A part no parcel size takes is an error in words (an admin adds a size).
 */
export function planParcels(parts: readonly PackedPart[], sizes: readonly ParcelSizeJson[]): PlannedParcel[] {
  if (sizes.length === 0) throw new UnpackableError('The shipping profile has no parcel sizes');
  const bySize = [...sizes].sort((a, b) => parcelVolume(a) - parcelVolume(b));
  const smallestFor = (group: readonly PackedPart[]) => bySize.find((size) => fitsTogether(group, size));
  const parcel = (size: ParcelSizeJson, group: readonly PackedPart[]): PlannedParcel => ({
    size,
    parts: group,
    weightGrams: Math.round(group.reduce((sum, part) => sum + part.grams, 0) + size.tareGrams),
  });
  if (parts.length === 0) return [parcel(bySize[0]!, [])];

  const whole = smallestFor(parts);
  if (whole) return [parcel(whole, parts)];

  for (const part of parts) {
    if (!bySize.some((size) => fitsTogether([part], size))) {
      const [x, y, z] = sorted(part.sizeMm.x, part.sizeMm.y, part.sizeMm.z).map((n) => Math.round(n));
      throw new UnpackableError(`A part of ${x} × ${y} × ${z} mm and ${Math.round(part.grams)} g fits no parcel size of the shipping profile`);
    }
  }
  const groups: PackedPart[][] = [];
  for (const part of [...parts].sort((a, b) => partVolume(b) - partVolume(a) || b.grams - a.grams)) {
    const open = groups.find((group) => smallestFor([...group, part]) !== undefined);
    if (open) open.push(part);
    else groups.push([part]);
  }
  // Every group has a size: it was only ever grown while one took it.
  return groups.map((group) => parcel(smallestFor(group)!, group));
}

/** A planned parcel as the pages and the shipment row describe it (the row adds the box's cost). */
export function parcelPlanOf(parcel: PlannedParcel): ParcelPlan & { costCents: number } {
  return {
    parcelId: parcel.size.id,
    name: parcel.size.name,
    lengthMm: parcel.size.lengthMm,
    widthMm: parcel.size.widthMm,
    heightMm: parcel.size.heightMm,
    weightGrams: parcel.weightGrams,
    partCount: parcel.parts.length,
    costCents: parcel.size.costCents,
  };
}
