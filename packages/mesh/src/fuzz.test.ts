import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyzeModel, MeshError } from './index.ts';
import { boxStl, cubeModelXml, make3mf } from './testing/zip-writer.ts';

/** FILE-9: mutated seeds must only ever produce a model or a MeshError. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const DIR = '/work/shared/models/';

const seeds: Record<string, Uint8Array[]> = {
  stl: [boxStl(10, 20, 30), new Uint8Array(readFileSync(DIR + 'ps-20mmbox-CRLF.stl')), new Uint8Array(readFileSync(DIR + 'i3-plug-aligner.stl'))],
  obj: [new Uint8Array(readFileSync(DIR + 'ps-20mm_cube.obj')), new Uint8Array(readFileSync(DIR + 'assimp-concave_polygon.obj'))],
  '3mf': [make3mf(cubeModelXml()), new Uint8Array(readFileSync(DIR + '3mfs-components.3mf'))],
};

/** Byte-level mutations: overwrite, insert, delete, truncate, splice a token. */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 64 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('token' as const),
    at: fc.nat(),
    token: fc.constantFrom('-', 'e99', 'nan', '0', '-1', '999999999', '<', '>', '"', '&x;', '\n', '/', 'facet', 'endloop', 'f 1 2', 'v 1'),
  }),
);

function mutate(seed: Uint8Array, muts: { kind: string; at: number; value?: number; bytes?: Uint8Array; len?: number; token?: string }[]): Uint8Array {
  let b = Buffer.from(seed);
  for (const m of muts) {
    const at = b.length ? m.at % b.length : 0;
    if (m.kind === 'set' && b.length) b[at] = m.value!;
    else if (m.kind === 'insert') b = Buffer.concat([b.subarray(0, at), Buffer.from(m.bytes!), b.subarray(at)]);
    else if (m.kind === 'delete') b = Buffer.concat([b.subarray(0, at), b.subarray(at + m.len!)]);
    else if (m.kind === 'truncate') b = b.subarray(0, at);
    else if (m.kind === 'token') b = Buffer.concat([b.subarray(0, at), Buffer.from(m.token!), b.subarray(at)]);
  }
  return new Uint8Array(b);
}

describe('fuzz: parsers only ever throw MeshError', () => {
  for (const [format, list] of Object.entries(seeds)) {
    it(`${format} (${RUNS} runs)`, async () => {
      let accepted = 0;
      let rejected = 0;
      await fc.assert(
        fc.asyncProperty(fc.nat({ max: list.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 4 }), async (si, muts) => {
          const bytes = mutate(list[si]!, muts);
          const t = performance.now();
          try {
            const a = await analyzeModel(bytes, { fileName: `fuzz.${format}` });
            expect(a.triangleCount).toBeGreaterThan(0);
            accepted++;
          } catch (e) {
            if (!(e instanceof MeshError)) throw e;
            rejected++;
          }
          expect(performance.now() - t).toBeLessThan(2000);
        }),
        { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261121) },
      );
      // Both outcomes must occur, or the mutations are not exercising the parser.
      expect(accepted).toBeGreaterThan(0);
      expect(rejected).toBeGreaterThan(0);
    }, 120_000);
  }
});
