import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { packPlate, type Placement, type PlatePart } from './plate-packer.ts';

const BED = { x: 250, y: 210, z: 220 };
const SPACING = { edgeMarginMm: 5, gapMm: 10, heightMarginMm: 2 };
const part = (id: string, x: number, y: number, z = 20): PlatePart => ({ id, size: { x, y, z } });

/** The footprint's rectangle on the bed. */
const box = (p: Placement) => ({
  x0: p.centerX - p.width / 2,
  x1: p.centerX + p.width / 2,
  y0: p.centerY - p.depth / 2,
  y1: p.centerY + p.depth / 2,
});
const EPS = 1e-6;

function expectValidLayout(parts: readonly PlatePart[], layout: readonly Placement[]) {
  expect(layout.map((p) => p.id).sort()).toEqual(parts.map((p) => p.id).sort());
  for (const p of layout) {
    const source = parts.find((q) => q.id === p.id)!;
    const [w, d] = p.rotationDeg === 90 ? [source.size.y, source.size.x] : [source.size.x, source.size.y];
    expect([p.width, p.depth]).toEqual([w, d]);
    const b = box(p);
    expect(b.x0).toBeGreaterThanOrEqual(SPACING.edgeMarginMm - EPS);
    expect(b.y0).toBeGreaterThanOrEqual(SPACING.edgeMarginMm - EPS);
    expect(b.x1).toBeLessThanOrEqual(BED.x - SPACING.edgeMarginMm + EPS);
    expect(b.y1).toBeLessThanOrEqual(BED.y - SPACING.edgeMarginMm + EPS);
  }
  for (let i = 0; i < layout.length; i++)
    for (let j = i + 1; j < layout.length; j++) {
      const a = box(layout[i]!);
      const b = box(layout[j]!);
      const apart =
        a.x1 + SPACING.gapMm <= b.x0 + EPS ||
        b.x1 + SPACING.gapMm <= a.x0 + EPS ||
        a.y1 + SPACING.gapMm <= b.y0 + EPS ||
        b.y1 + SPACING.gapMm <= a.y0 + EPS;
      expect(apart, `${layout[i]!.id} and ${layout[j]!.id} keep the gap`).toBe(true);
    }
}

describe('packing parts on a plate', () => {
  it('places sixteen 40 mm parts on an MK4 bed, each with the gap around it', () => {
    const parts = Array.from({ length: 16 }, (_, i) => part(`p${i}`, 40, 40));
    const layout = packPlate(parts, BED, SPACING);
    expect(layout).not.toBeNull();
    expectValidLayout(parts, layout!);
  });

  it('answers null rather than leaving a part out when they do not all fit', () => {
    // 5 × 4 of 40 mm fit in 240 × 200 with 10 mm gaps (5·40 + 4·10 = 240); a 21st does not.
    const twenty = Array.from({ length: 20 }, (_, i) => part(`p${i}`, 40, 40));
    expect(packPlate(twenty, BED, SPACING)).not.toBeNull();
    expect(packPlate([...twenty, part('extra', 40, 40)], BED, SPACING)).toBeNull();
  });

  it('turns a part 90° about Z only when it does not fit as laid, and never lays it on another face', () => {
    const long = part('long', 30, 230);
    const layout = packPlate([long], BED, SPACING)!;
    expect(layout[0]).toMatchObject({ rotationDeg: 90, width: 230, depth: 30 });
    expect(packPlate([part('tall', 20, 20, 219)], BED, SPACING)).toBeNull();
  });

  it('lays out any set of parts it accepts inside the bed with the gaps kept (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            x: fc.integer({ min: 5, max: 240 }),
            y: fc.integer({ min: 5, max: 200 }),
            z: fc.integer({ min: 1, max: 218 }),
          }),
          { minLength: 1, maxLength: 20 },
        ),
        (sizes) => {
          const parts = sizes.map((s, i) => part(`p${i}`, s.x, s.y, s.z));
          const layout = packPlate(parts, BED, SPACING);
          if (layout) expectValidLayout(parts, layout);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gives the same layout for the same parts', () => {
    const parts = [part('a', 50, 30), part('b', 20, 60), part('c', 80, 80)];
    expect(packPlate(parts, BED, SPACING)).toEqual(packPlate([...parts].reverse(), BED, SPACING));
  });
});
