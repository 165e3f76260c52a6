import { describe, expect, it } from 'vitest';
import { analyzeModel, isMeshError, type ModelAnalysis } from './index.ts';
import { make3mf } from './testing/zip-writer.ts';

/**
 * The weld (WebAssembly kernels weldStl and weldVertices, the JavaScript probe and rehash) on
 * meshes big enough to span many kernel calls and to outgrow the first hash table: every
 * format must give one vertex per distinct point (+0 and -0 alike) and reproduce each corner.
 */
type Point = [number, number, number];

/** `count` distinct points, a few of them with -0 twins listed separately. */
function pointPool(count: number): Point[] {
  const pool: Point[] = [];
  for (let i = 0; i < count; i++) pool.push([(i % 97) * 0.5, Math.floor(i / 97) * 0.25, ((i * 7919) % 13) - 6]);
  return pool;
}

/** Triangles over the pool in a scrambled order, so repeats of a vertex are far apart. */
function scrambledTriangles(poolSize: number, count: number): [number, number, number][] {
  const tris: [number, number, number][] = [];
  let s = 12345;
  const next = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) % poolSize;
  for (let t = 0; t < count; t++) {
    const a = t % poolSize;
    tris.push([a, (a + 1 + next()) % poolSize, (a + 2 + next()) % poolSize]);
  }
  return tris.filter(([a, b, c]) => a !== b && b !== c && a !== c);
}

/** The pool with -0 for every zero coordinate of odd-numbered points: the same places. */
function signedZero(p: Point, i: number): Point {
  return i % 2 ? (p.map((v) => (v === 0 ? -0 : v)) as Point) : p;
}

function binaryStl(pool: Point[], tris: [number, number, number][]): Uint8Array {
  const bytes = new Uint8Array(84 + 50 * tris.length);
  const dv = new DataView(bytes.buffer);
  dv.setUint32(80, tris.length, true);
  tris.forEach((t, k) => t.forEach((v, c) => signedZero(pool[v]!, k + c).forEach((x, a) => dv.setFloat32(84 + 50 * k + 12 + c * 12 + a * 4, x, true))));
  return bytes;
}

function obj(pool: Point[], tris: [number, number, number][]): Uint8Array {
  const lines = pool.map((p, i) => `v ${signedZero(p, i).map((v) => (Object.is(v, -0) ? '-0' : String(v))).join(' ')}`);
  // The same points again under other numbers (and signs of zero): they weld to the first ones.
  lines.push(...pool.map((p, i) => `v ${signedZero(p, i + 1).map((v) => (Object.is(v, -0) ? '-0' : String(v))).join(' ')}`));
  tris.forEach(([a, b, c], t) => lines.push(`f ${a + 1} ${(t % 2 ? b + pool.length : b) + 1} ${c + 1}`));
  return new TextEncoder().encode(lines.join('\n') + '\n');
}

function threeMf(pool: Point[], tris: [number, number, number][]): Uint8Array {
  const v = pool.map(([x, y, z], i) => `<vertex x="${x}" y="${y}" z="${i % 2 && z === 0 ? '-0' : z}"/>`).join('');
  const t = tris.map(([a, b, c]) => `<triangle v1="${a}" v2="${b}" v3="${c}"/>`).join('');
  return make3mf(
    `<?xml version="1.0" encoding="UTF-8"?><model unit="millimeter" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02"><resources><object id="1" type="model"><mesh><vertices>${v}</vertices><triangles>${t}</triangles></mesh></object></resources><build><item objectid="1"/></build></model>`,
  );
}

function expectCornersReproduced(a: ModelAnalysis, pool: Point[], tris: [number, number, number][]): void {
  const { positions: p, indices: idx } = a.mesh;
  let mismatches = 0;
  tris.forEach((t, k) =>
    t.forEach((v, c) => {
      const id = idx[k * 3 + c]!;
      for (let axis = 0; axis < 3; axis++) if (p[id * 3 + axis] !== Math.fround(pool[v]![axis]!)) mismatches++;
    }),
  );
  expect(mismatches).toBe(0);
}

describe('weld', () => {
  // 40,000 points: more than one kernel call of vertices (12,288) and more than the first table of
  // a 30,000-triangle STL holds (its size is guessed from the triangle count), so it is rehashed.
  const pool = pointPool(40_000);
  const tris = scrambledTriangles(pool.length, 30_000);
  const used = new Set(tris.flat()).size;

  it('binary STL: one vertex per distinct point across chunks and a rehash', async () => {
    const a = await analyzeModel(binaryStl(pool, tris), { fileName: 'x.stl' });
    expect(a.triangleCount).toBe(tris.length);
    expect(a.vertexCount).toBe(used);
    expectCornersReproduced(a, pool, tris);
  });

  it('OBJ: duplicated vertex lines and -0 weld to one vertex', async () => {
    const a = await analyzeModel(obj(pool, tris), { fileName: 'x.obj' });
    expect(a.vertexCount).toBe(used);
    expectCornersReproduced(a, pool, tris);
  });

  it('3MF: the same', async () => {
    const a = await analyzeModel(threeMf(pool, tris), { fileName: 'x.3mf' });
    expect(a.vertexCount).toBe(used);
    expectCornersReproduced(a, pool, tris);
  });

  it('binary STL: a coordinate that is not finite is refused, in the last chunk too', async () => {
    for (const at of [0, tris.length - 1]) {
      const bytes = binaryStl(pool, tris);
      new DataView(bytes.buffer).setFloat32(84 + 50 * at + 12 + 4, Number.NaN, true);
      const error = await analyzeModel(bytes, { fileName: 'x.stl' }).catch((e: unknown) => e);
      expect(isMeshError(error) && error.code).toBe('malformed');
      expect((error as Error).message).toMatch(/not a finite number/);
    }
  });
});
