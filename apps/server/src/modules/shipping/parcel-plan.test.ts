import { describe, expect, it } from 'vitest';
import { PACKING_EFFICIENCY, partFits, planParcels, UnpackableError } from './parcel-plan.ts';

const size = (id: string, l: number, w: number, h: number, maxGrams = 5000, tareGrams = 100) => ({ id, name: id, lengthMm: l, widthMm: w, heightMm: h, tareGrams, maxGrams, costCents: 50 });
const part = (x: number, y: number, z: number, grams = 10) => ({ sizeMm: { x, y, z }, grams });
const SIZES = [size('large', 400, 300, 250, 15_000), size('small', 150, 120, 80, 2000), size('medium', 250, 200, 150)];

describe('planParcels', () => {
  it('puts an order in the smallest parcel that takes it whole, with the tare in the weight', () => {
    const [only, ...rest] = planParcels([part(20, 20, 20), part(30, 30, 10)], SIZES);
    expect(rest).toEqual([]);
    expect(only!.size.id).toBe('small');
    expect(only!.weightGrams).toBe(120);
  });

  it('turns a part to fit: a long part goes into a box along its longest side', () => {
    expect(partFits(part(60, 200, 40), size('medium', 250, 200, 150))).toBe(true);
    expect(partFits(part(60, 260, 40), size('medium', 250, 200, 150))).toBe(false);
    expect(planParcels([part(60, 220, 40)], SIZES)[0]!.size.id).toBe('medium');
  });

  it('moves up a size for weight and for room (parts do not tessellate)', () => {
    expect(planParcels([part(20, 20, 20, 1950)], SIZES)[0]!.size.id).toBe('medium');
    const cube = Math.cbrt(150 * 120 * 80 * PACKING_EFFICIENCY) + 1;
    expect(planParcels([part(cube / 2, cube, cube), part(cube / 2, cube, cube)], SIZES)[0]!.size.id).toBe('medium');
  });

  it('splits what no parcel takes whole over several, each as small as it can be', () => {
    const heavy = Array.from({ length: 4 }, () => part(100, 100, 100, 6000));
    const plan = planParcels(heavy, SIZES);
    expect(plan.map((p) => p.parts.length)).toEqual([2, 2]);
    expect(plan.every((p) => p.size.id === 'large' && p.weightGrams <= 15_000)).toBe(true);
    const mixed = planParcels([...heavy.slice(0, 2), part(100, 100, 100, 6000), part(20, 20, 20, 5)], SIZES);
    expect(mixed.flatMap((p) => p.parts)).toHaveLength(4);
    expect(mixed.every((p) => p.weightGrams <= p.size.maxGrams)).toBe(true);
  });

  it('names a part no parcel takes, and a profile without sizes', () => {
    expect(() => planParcels([part(500, 20, 20)], SIZES)).toThrow(UnpackableError);
    expect(() => planParcels([part(500, 20, 20)], SIZES)).toThrow(/500 × 20 × 20 mm/);
    expect(() => planParcels([part(10, 10, 10)], [])).toThrow(/no parcel sizes/);
  });

  it('ships an order without printed parts (packed by hand) in the smallest parcel', () => {
    expect(planParcels([], SIZES)[0]!.size.id).toBe('small');
  });
});
