import { describe, expect, it } from 'vitest';
import { colourOf, renderListingView } from './listing-render.ts';

/** A box of w × d × h mm standing on the bed (z from 0), outward winding. */
function box(w: number, d: number, h: number): { positions: Float32Array; indices: Uint32Array } {
  const v = [[0, 0, 0], [w, 0, 0], [w, d, 0], [0, d, 0], [0, 0, h], [w, 0, h], [w, d, h], [0, d, h]];
  const t = [[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7], [0, 1, 5], [0, 5, 4], [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6], [3, 0, 4], [3, 4, 7]];
  return { positions: new Float32Array(v.flat()), indices: new Uint32Array(t.flat()) };
}

const SIZE = 200;
const pixel = (img: Uint8Array, x: number, y: number) => [...img.subarray((y * SIZE + x) * 3, (y * SIZE + x) * 3 + 3)];
const isModel = (rgb: number[], colour: readonly number[]) => {
  // A shaded pixel of the model keeps the colour's hue: its channels in the same order.
  const order = (c: readonly number[]) => [0, 1, 2].sort((i, j) => c[j]! - c[i]!).join();
  return order(rgb) === order(colour) && Math.abs(rgb[0]! - rgb[2]!) > 40;
};

describe('renderListingView', () => {
  const orange = colourOf('#f97316');

  it('draws the model in its colour, centred, on a light neutral backdrop', () => {
    const { positions, indices } = box(20, 20, 20);
    const image = renderListingView(positions, indices, { yawDeg: -30, pitchDeg: 22 }, { sizePx: SIZE, colour: orange });
    expect(image.length).toBe(SIZE * SIZE * 3);
    expect(isModel(pixel(image, SIZE / 2, SIZE / 2), orange)).toBe(true);
    for (const [x, y] of [[2, 2], [SIZE - 3, 2], [2, SIZE - 3], [SIZE - 3, SIZE - 3]]) {
      const [r, g, b] = pixel(image, x!, y!);
      expect(Math.max(r!, g!, b!) - Math.min(r!, g!, b!)).toBeLessThanOrEqual(3); // grey
      expect(r).toBeGreaterThan(215);
    }
  });

  it('shades faces by their angle to the light, so the sides of a box differ', () => {
    const { positions, indices } = box(20, 20, 20);
    const image = renderListingView(positions, indices, { yawDeg: -30, pitchDeg: 22 }, { sizePx: SIZE, colour: orange });
    const shades = new Set<string>();
    for (let y = 0; y < SIZE; y += 4) for (let x = 0; x < SIZE; x += 4) if (isModel(pixel(image, x, y), orange)) shades.add(pixel(image, x, y).join());
    expect(shades.size).toBeGreaterThanOrEqual(3); // top, front and side faces
  });

  it('fits the model with a margin whatever its size, and shows a tall part tall', () => {
    const { positions, indices } = box(10, 10, 100);
    const image = renderListingView(positions, indices, { yawDeg: 0, pitchDeg: 0 }, { sizePx: SIZE, colour: orange });
    const rows = [...Array(SIZE).keys()].filter((y) => isModel(pixel(image, SIZE / 2, y), orange));
    const columns = [...Array(SIZE).keys()].filter((x) => isModel(pixel(image, x, SIZE / 2), orange));
    expect(rows.length).toBeGreaterThan(SIZE * 0.75);
    expect(rows.length).toBeLessThan(SIZE * 0.85);
    expect(columns.length).toBeLessThan(rows.length / 5);
  });

  it('draws a mesh whose triangles face inwards (bad winding) the same as one facing outwards', () => {
    const { positions, indices } = box(20, 20, 20);
    const flipped = new Uint32Array(indices);
    for (let t = 0; t < flipped.length; t += 3) [flipped[t + 1], flipped[t + 2]] = [flipped[t + 2]!, flipped[t + 1]!];
    const view = { yawDeg: 60, pitchDeg: 22 };
    expect(renderListingView(positions, flipped, view, { sizePx: SIZE, colour: orange })).toEqual(renderListingView(positions, indices, view, { sizePx: SIZE, colour: orange }));
  });

  it('answers the bare backdrop for an empty mesh', () => {
    const image = renderListingView(new Float32Array(), new Uint32Array(), { yawDeg: 0, pitchDeg: 20 }, { sizePx: SIZE, colour: orange });
    expect(pixel(image, SIZE / 2, 0)).toEqual(pixel(image, 7, 0));
  });
});

describe('colourOf', () => {
  it('reads #rrggbb and #rgb, and falls back to grey', () => {
    expect(colourOf('#f97316')).toEqual([249, 115, 22]);
    expect(colourOf('#0f0')).toEqual([0, 255, 0]);
    expect(colourOf('Galaxy Black')).toEqual([160, 160, 160]);
  });
});
