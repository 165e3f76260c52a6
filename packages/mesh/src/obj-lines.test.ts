import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MeshError } from './errors.ts';
import { MESH_LIMITS } from './limits.ts';
import { parseObj } from './obj.ts';

/**
 * The OBJ line kernel (readObjLines) against the TypeScript reader it mirrors: on random and
 * hostile text, both must give the same mesh bit for bit, or the same error with the same
 * message (line numbers included).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);

/** The mesh as digests of its arrays (cheap to compare at any size), or the error. */
type Outcome = { ok: true; triangles: number; positions: string; indices: string } | { ok: false; error: string };

const digest = (a: Float32Array | Uint32Array): string => createHash('sha256').update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength)).digest('hex');

function outcome(bytes: Uint8Array, lineKernel: boolean): Outcome {
  try {
    const m = parseObj(bytes, { lineKernel });
    return { ok: true, triangles: m.indices.length / 3, positions: digest(m.positions), indices: digest(m.indices) };
  } catch (e) {
    if (e instanceof MeshError) return { ok: false, error: `${e.code}: ${e.message}` };
    return { ok: false, error: `not a MeshError: ${(e as Error).message}` };
  }
}

function expectSameAsReference(text: string): Outcome {
  const bytes = new TextEncoder().encode(text);
  const fast = outcome(bytes, true);
  expect(fast).toEqual(outcome(bytes, false));
  return fast;
}

const number = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }).map(String),
  fc.double({ min: -1e4, max: 1e4, noNaN: true }).map(String),
  fc.double({ min: -1e4, max: 1e4, noNaN: true }).map((v) => v.toPrecision(17)),
  fc.double({ min: 1e-30, max: 1e30, noNaN: true }).map((v) => v.toExponential(8)),
  fc.constantFrom('0', '-0', '+1.5', '.5', '5.', '1e', '1e+', 'nan', 'inf', '1,5', '0x10', '1e400', '1e-400', '12345678901234567890.5', '--1', ''),
);
const index = fc.oneof(
  fc.integer({ min: 1, max: 12 }).map(String),
  fc.integer({ min: -12, max: -1 }).map(String),
  fc.integer({ min: 1, max: 12 }).map((v) => `${v}/${v}/${v}`),
  fc.integer({ min: 1, max: 12 }).map((v) => `${v}//${v}`),
  fc.constantFrom('0', '-0', '1.0', '1e0', '+2', '99', '1234567890', 'x', '\\', '2/'),
);
const blank = fc.constantFrom(' ', '  ', '\t', ' \t');
const line = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(blank, number, blank, number, blank, number, fc.constantFrom('', ' 1', ' 0.5 0.5 0.5', ' ')).map(([a, x, b, y, c, z, w]) => `v${a}${x}${b}${y}${c}${z}${w}`) },
  { weight: 4, arbitrary: fc.array(index, { minLength: 0, maxLength: 6 }).chain((ix) => blank.map((b) => `f${b}${ix.join(b)}`)) },
  { weight: 1, arbitrary: fc.constantFrom('vt 0.5 0.5', 'vn 0 0 1', '# comment', 'g group', 'o object', 'usemtl m', '', '   ', 'v', 'f', 'v 1 2', 'vx 1 2 3', 'f1 2 3', '\tv 1 2 3') },
);
const eol = fc.constantFrom('\n', '\r\n', '\r', '\n\r');

describe('OBJ line kernel = TypeScript reader', () => {
  it(`random lines and line ends (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(line, eol), { minLength: 1, maxLength: 40 }), fc.boolean(), fc.boolean(), (lines, bom, lastEol) => {
        const text = (bom ? '\ufeff' : '') + lines.map(([l, e], k) => (k === lines.length - 1 && !lastEol ? l : l + e)).join('');
        expectSameAsReference(text);
      }),
      { numRuns: RUNS },
    );
  });

  it('a model over several 1 MiB windows, with lines and CR LF cut at window edges', () => {
    const lines: string[] = [];
    let size = 0;
    // ~3 MB: vertices with 1-17 digit coordinates, faces in every index form, skipped lines.
    for (let n = 0; size < 3_000_000; n++) {
      const before = lines.length;
      const ending = ['\n', '\r\n', '\r'][n % 3]!;
      lines.push(`v ${(n * 0.37).toFixed(n % 7)} ${-(n % 101) / 7} ${(n * 1.1).toPrecision(1 + (n % 17))}${ending}`);
      if (n % 5 === 0) lines.push(`vn 0 0 1${ending}`);
      if (n >= 3) lines.push(n % 4 === 0 ? `f ${n - 1}/1/1 ${n}/2/2 ${n + 1}/3/3${ending}` : n % 4 === 1 ? `f -1 -2 -3 -4${ending}` : `f ${n + 1} ${n} ${n - 1}${ending}`);
      for (let k = before; k < lines.length; k++) size += lines[k]!.length;
    }
    const text = lines.join('');
    const r = expectSameAsReference(text);
    expect(r.ok).toBe(true);
    // The same text shifted by one byte at a time moves every window edge.
    for (let pad = 1; pad <= 3; pad++) expectSameAsReference('#'.repeat(pad) + '\n' + text);
  });

  it('a CR LF split by the window edge is one line end', () => {
    const head = 'v 1 2 3\r\nv 2 3 4\r\nv 3 4 5\r\nf 1 2 3\r\n'.repeat(20_000);
    // A comment line whose CR is the window's last byte (the first window starts at 0).
    const comment = '#'.repeat((1 << 20) - 1 - head.length);
    const r = expectSameAsReference(`${head}${comment}\r\nv 1 1 1\r\nf 1 2\r\n`);
    expect(r).toEqual({ ok: false, error: `malformed: OBJ: a face needs at least 3 vertices on line ${80_000 + 3}.` });
  });

  it('errors far into a big file name the same line', () => {
    const body = Array.from({ length: 60_000 }, (_, n) => `v ${n} ${n % 13} ${n % 7}\r\nf ${n + 1} ${n + 1} ${n + 1}\n`).join('');
    for (const bad of ['f 1 2 1.5', 'f 1 2', 'v 1 2 x', 'f 0 1 2', 'f -99999999 1 2', 'f 1 2 3 \\']) {
      const r = expectSameAsReference(body + bad + '\n' + body);
      expect(r.ok).toBe(false);
    }
  });

  it('a face index past the vertex limit is refused on its line, never wrapped to 32 bits', () => {
    const tetra = (index: string) => `v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf ${index} 2 3\nf 1 2 4\nf 2 3 4\nf 3 1 4\n`;
    // 2^32 + 1 once wrapped to vertex 1 (a valid-looking model), 2^53 and 3e9 to negative slots.
    for (const index of ['4294967297', '9007199254740992', '3000000000', '4000001', '999999999', '4294967297/1/1']) {
      const shown = index.split('/')[0];
      expect(expectSameAsReference(tetra(index))).toEqual({
        ok: false,
        error: `malformed: OBJ: face index ${shown} is out of range (a model has at most ${MESH_LIMITS.maxVertices} vertices) on line 5.`,
      });
    }
    // At the limit itself the index is in range: only the vertices actually read decide.
    expect(expectSameAsReference(tetra(String(MESH_LIMITS.maxVertices)))).toEqual({
      ok: false,
      error: `malformed: OBJ: a face refers to vertex ${MESH_LIMITS.maxVertices} but there are only 4.`,
    });
  });

  it('an out-of-range index far into a big file names its line, kernel or not', () => {
    const body = Array.from({ length: 60_000 }, (_, n) => `v ${n} ${n % 13} ${n % 7}\nf ${n + 1} ${n + 1} ${n + 1}\n`).join('');
    for (const index of ['4294967297', '5000000']) {
      const r = expectSameAsReference(`${body}f 1 2 ${index}\n${body}`);
      expect(r).toEqual({
        ok: false,
        error: `malformed: OBJ: face index ${index} is out of range (a model has at most ${MESH_LIMITS.maxVertices} vertices) on line 120001.`,
      });
    }
  });
});
