import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeModel, type ModelAnalysis } from './index.ts';
import { parseObj } from './obj.ts';
import { boxStl } from './testing/zip-writer.ts';
import {
  cleanAsciiStl,
  cleanObj,
  quirkyAsciiStl,
  quirkyObj,
  trianglesOfBinaryStl,
  type Triangle,
} from './testing/text-models.ts';

/**
 * Valid models written with random harmless quirks (testing/text-models.ts: case, whitespace,
 * line ends, names, blocks, normals, missing keywords, trailing text, number forms, comments,
 * continuations, padding) must read to exactly the clean file's mesh and analysis.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const DIR = '/work/shared/models/';

const seeds: Triangle[][] = [
  trianglesOfBinaryStl(boxStl(10, 20, 30)),
  trianglesOfBinaryStl(new Uint8Array(readFileSync(DIR + 'i3-plug-aligner.stl'))),
  // An open mesh with -0 coordinates, read from its own ASCII file.
  await analyzeModel(readFileSync(DIR + 'assimp-sphere_with_hole.stl')).then(trianglesOf),
];

function trianglesOf(a: ModelAnalysis): Triangle[] {
  const p = a.mesh.positions;
  const at = (v: number): [number, number, number] => [p[3 * v]!, p[3 * v + 1]!, p[3 * v + 2]!];
  const tris: Triangle[] = [];
  for (let t = 0; t < a.mesh.indices.length; t += 3)
    tris.push([at(a.mesh.indices[t]!), at(a.mesh.indices[t + 1]!), at(a.mesh.indices[t + 2]!)]);
  return tris;
}

/** Everything the analysis reports, the mesh's bits included. */
function summary(a: ModelAnalysis): unknown {
  const { mesh, problems, ...rest } = a;
  return {
    ...rest,
    problems: problems.map((p) => ({ ...p, triangles: p.triangles && [...p.triangles] })),
    positions: Buffer.from(
      mesh.positions.buffer,
      mesh.positions.byteOffset,
      mesh.positions.byteLength,
    ).toString('base64'),
    indices: [...mesh.indices],
  };
}

const clean = {
  stl: await Promise.all(
    seeds.map((s) => analyzeModel(new TextEncoder().encode(cleanAsciiStl(s))).then(summary)),
  ),
  obj: await Promise.all(seeds.map((s) => analyzeModel(new TextEncoder().encode(cleanObj(s))).then(summary))),
};

describe('fuzz: quirky text models read as their clean selves', () => {
  it(`ASCII STL (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: seeds.length - 1 }), fc.integer(), async (si, seed) => {
        const bytes = quirkyAsciiStl(seeds[si]!, seed);
        expect(summary(await analyzeModel(bytes, { fileName: 'hand-made.stl' }))).toEqual(clean.stl[si]);
      }),
      { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261126) },
    );
  }, 120_000);

  it(`OBJ (${RUNS} runs), the line kernel and the TypeScript reader alike`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: seeds.length - 1 }), fc.integer(), async (si, seed) => {
        const bytes = quirkyObj(seeds[si]!, seed);
        const a = await analyzeModel(bytes, { fileName: 'hand-made.obj' });
        expect(summary(a)).toEqual(clean.obj[si]);
        const reference = parseObj(bytes, { lineKernel: false });
        expect([reference.positions, reference.indices]).toEqual([a.mesh.positions, a.mesh.indices]);
      }),
      { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261126) },
    );
  }, 120_000);
});
