import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeModel, type ModelAnalysis } from './index.ts';

/**
 * The printability report against a plain reference (a Map of edges, a union-find per
 * triangle) on random meshes over a small vertex pool, which are full of open, non-manifold,
 * inconsistent and degenerate edges. The same triangles go in as binary STL (sums gathered
 * while reading) and as OBJ (sums from the indexed mesh), so both paths are checked.
 */
type Tri = [number, number, number];

/** Distinct points (x = i) on a few levels, so faces lean every way and some are collinear. */
function point(i: number): [number, number, number] {
  return [i, (i * i) % 7, i % 3];
}

function binaryStl(tris: Tri[]): Uint8Array {
  const bytes = new Uint8Array(84 + 50 * tris.length);
  const dv = new DataView(bytes.buffer);
  dv.setUint32(80, tris.length, true);
  tris.forEach((t, k) => t.forEach((v, c) => point(v).forEach((x, a) => dv.setFloat32(84 + 50 * k + 12 + c * 12 + a * 4, x, true))));
  return bytes;
}

function obj(tris: Tri[], poolSize: number): Uint8Array {
  const lines: string[] = [];
  for (let i = 0; i < poolSize; i++) lines.push(`v ${point(i).join(' ')}`);
  for (const t of tris) lines.push(`f ${t.map((v) => v + 1).join(' ')}`);
  return new TextEncoder().encode(lines.join('\n') + '\n');
}

interface Expected {
  open: number;
  nonManifold: number;
  inconsistent: number;
  shells: number;
  degenerate: number;
  openTris: number[];
  nonManifoldTris: number[];
  windingTris: number[];
}

function reference(tris: Tri[]): Expected {
  const edges = new Map<string, { fwd: number; bwd: number; tris: Set<number> }>();
  tris.forEach(([a, b, c], t) => {
    for (const [p, q] of [[a, b], [b, c], [c, a]] as const) {
      if (p === q) continue;
      const key = `${Math.min(p, q)},${Math.max(p, q)}`;
      const e = edges.get(key) ?? { fwd: 0, bwd: 0, tris: new Set<number>() };
      if (p < q) e.fwd++;
      else e.bwd++;
      e.tris.add(t);
      edges.set(key, e);
    }
  });
  const out: Expected = { open: 0, nonManifold: 0, inconsistent: 0, shells: 0, degenerate: 0, openTris: [], nonManifoldTris: [], windingTris: [] };
  const open = new Set<number>(), nonManifold = new Set<number>(), winding = new Set<number>();
  for (const e of edges.values()) {
    const m = e.fwd + e.bwd;
    if (m === 1) {
      out.open++;
      e.tris.forEach((t) => open.add(t));
    } else if (m > 2) {
      out.nonManifold++;
      e.tris.forEach((t) => nonManifold.add(t));
    } else if (e.fwd !== 1) {
      out.inconsistent++;
      e.tris.forEach((t) => winding.add(t));
    }
  }
  const parent = new Map<number, number>();
  const find = (x: number): number => {
    while (parent.get(x) !== x) x = parent.get(x)!;
    return x;
  };
  for (const t of tris) for (const v of t) parent.set(v, v);
  for (const [a, b, c] of tris) {
    parent.set(find(b), find(a));
    parent.set(find(c), find(a));
  }
  out.shells = [...parent.keys()].filter((v) => find(v) === v).length;
  for (const [a, b, c] of tris) {
    const [pa, pb, pc] = [point(a), point(b), point(c)];
    const u = pb.map((x, i) => x - pa[i]!), v = pc.map((x, i) => x - pa[i]!), w = pc.map((x, i) => x - pb[i]!);
    const n = [u[1]! * v[2]! - u[2]! * v[1]!, u[2]! * v[0]! - u[0]! * v[2]!, u[0]! * v[1]! - u[1]! * v[0]!];
    const len = Math.hypot(...n);
    const maxEdge2 = Math.max(...[u, v, w].map((e) => e[0]! ** 2 + e[1]! ** 2 + e[2]! ** 2));
    if (a === b || b === c || a === c || len <= 1e-6 * maxEdge2) out.degenerate++;
  }
  const sorted = (s: Set<number>) => [...s].sort((x, y) => x - y);
  out.openTris = sorted(open);
  out.nonManifoldTris = sorted(nonManifold);
  out.windingTris = sorted(winding);
  return out;
}

function listed(a: ModelAnalysis, code: string): number[] {
  return Array.from(a.problems.find((p) => p.code === code)?.triangles ?? []);
}

const POOL = 9;
const mesh = fc.array(fc.tuple(fc.nat(POOL - 1), fc.nat(POOL - 1), fc.nat(POOL - 1)), { minLength: 1, maxLength: 40 });

describe('printability report matches a plain reference', () => {
  it('on random meshes, read as binary STL and as OBJ', async () => {
    await fc.assert(
      fc.asyncProperty(mesh, async (tris) => {
        const expected = reference(tris);
        const stl = await analyzeModel(binaryStl(tris), { fileName: 'm.stl' });
        const fromObj = await analyzeModel(obj(tris, POOL), { fileName: 'm.obj' });
        for (const a of [stl, fromObj]) {
          expect(a.printability.openEdges).toBe(expected.open);
          expect(a.printability.nonManifoldEdges).toBe(expected.nonManifold);
          expect(a.printability.inconsistentWindingEdges).toBe(expected.inconsistent);
          expect(a.printability.degenerateTriangles).toBe(expected.degenerate);
          expect(a.shells).toBe(expected.shells);
          expect(listed(a, 'open-edges')).toEqual(expected.openTris);
          expect(listed(a, 'non-manifold-edges')).toEqual(expected.nonManifoldTris);
          expect(listed(a, 'inconsistent-winding')).toEqual(expected.windingTris);
        }
        // Both ways of gathering the sums see the same triangles in the same order.
        expect(fromObj.volumeMm3).toBe(stl.volumeMm3);
        expect(fromObj.surfaceAreaMm2).toBe(stl.surfaceAreaMm2);
        expect(fromObj.printability.overhangAreaMm2).toBe(stl.printability.overhangAreaMm2);
        expect(listed(fromObj, 'overhangs')).toEqual(listed(stl, 'overhangs'));
        expect(fromObj.bbox).toEqual(stl.bbox);
      }),
      { numRuns: 300 },
    );
  });
});
