import { describe, expect, it } from 'vitest';
import { analyzeModel, sniffFormat, type ModelAnalysis } from './index.ts';
import { parseObj } from './obj.ts';
import { boxStl } from './testing/zip-writer.ts';
import { cleanAsciiStl, cleanObj, hexFloat, trianglesOfBinaryStl } from './testing/text-models.ts';

/**
 * One test per quirk the ASCII STL and OBJ readers take because PrusaSlicer's or admesh's
 * reader does (docs/quote-engine.md, "Reading models"): each quirky file must give exactly the
 * clean file's mesh. Then the refusals, where the geometry would be a guess.
 */
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const cube = trianglesOfBinaryStl(boxStl(10, 20, 30));
const CLEAN_STL = cleanAsciiStl(cube);
const CLEAN_OBJ = cleanObj(cube);

async function expectSameMesh(bytes: Uint8Array, clean: string): Promise<ModelAnalysis> {
  const want = await analyzeModel(enc(clean));
  const got = await analyzeModel(bytes);
  expect(got.format).toBe(want.format);
  expect(got.triangleCount).toBe(12);
  expect(
    Buffer.from(got.mesh.positions.buffer, got.mesh.positions.byteOffset, got.mesh.positions.byteLength),
  ).toEqual(
    Buffer.from(want.mesh.positions.buffer, want.mesh.positions.byteOffset, want.mesh.positions.byteLength),
  );
  expect([...got.mesh.indices]).toEqual([...want.mesh.indices]);
  expect(got.volumeMm3).toBeCloseTo(6000, 6);
  return got;
}

const stl = (s: string): Promise<ModelAnalysis> => expectSameMesh(enc(s), CLEAN_STL);
/** The clean STL's facets with `edit` applied to each facet's text (facets are 7 lines from line 1). */
function facets(edit: (facet: string, k: number) => string): string {
  const lines = CLEAN_STL.split('\n');
  const out: string[] = [];
  for (let k = 0; k < 12; k++) out.push(edit(lines.slice(1 + 7 * k, 8 + 7 * k).join('\n'), k));
  return out.join('\n');
}
async function refusedStl(text: string, code = 'malformed'): Promise<void> {
  await expect(analyzeModel(enc(text), { fileName: 'hand-made.stl' })).rejects.toMatchObject({
    name: 'MeshError',
    code,
  });
}

describe('ASCII STL: what PrusaSlicer (src/admesh/stlinit.cpp) or admesh (src/stlinit.c) reads, we read', () => {
  it('keywords in any case (admesh reads its words positionally, never comparing them)', async () => {
    await stl(CLEAN_STL.toUpperCase());
    await stl(CLEAN_STL.replace(/facet normal/g, 'Facet Normal').replace(/vertex/g, 'VeRtEx'));
  });

  it('any whitespace: tabs, runs of blanks, indentation, blank lines, CR, LF and CR LF', async () => {
    await stl(CLEAN_STL.replace(/ /g, ' \t  ').replace(/\n/g, '\r\n\r\n\t'));
    await stl(CLEAN_STL.replace(/\n/g, '\r'));
  });

  it('a number of a facet on the next line (scanf skips line ends between words)', async () => {
    await stl(CLEAN_STL.replace(/(vertex \S+) (\S+) /g, '$1\n$2\n   '));
  });

  it('solid names with spaces or none, and endsolid with another name or none', async () => {
    await stl(
      CLEAN_STL.replace('solid clean', 'solid My part, v2 (final)').replace('endsolid clean', 'endsolid'),
    );
    await stl(CLEAN_STL.replace('solid clean', 'solid').replace('endsolid clean', 'endsolid something else'));
  });

  it('no endsolid at the end', async () => {
    await stl(CLEAN_STL.replace('endsolid clean\n', ''));
    await stl(CLEAN_STL.replace('\nendsolid clean\n', ''));
  });

  it('no solid line: the file starts at its first facet ("skip solid/endsolid" before each facet)', async () => {
    const text = CLEAN_STL.replace('solid clean\n', '');
    expect(sniffFormat(enc(text))).toBe('stl-ascii');
    await stl(text);
  });

  it('several solids, a solid opened before the last one closed, an endsolid before a facet', async () => {
    await stl(
      `solid a\n${facets((f, k) => (k === 4 ? `endsolid a\nsolid b\n${f}` : k === 8 ? `solid c\n${f}` : k === 10 ? `endsolid c\n${f}` : f))}\nendsolid d\n`,
    );
  });

  it('normals of any kind: nan, 1.#QNAN, inf, words, too few, or none at all (they are never read)', async () => {
    const garbage = [
      'nan nan nan',
      '-nan -nan -nan',
      '1.#QNAN 1.#QNAN 1.#QNAN',
      '-1.#IND00 0 0',
      'inf -inf 0',
      'x y z',
      '',
      '0 0',
    ];
    await stl(
      `solid x\n${facets((f, k) => f.replace('facet normal 0 0 0', `facet normal ${garbage[k % garbage.length]}`))}\nendsolid x\n`,
    );
    await stl(`solid x\n${facets((f) => f.replace('facet normal 0 0 0', 'facet'))}\nendsolid x\n`);
  });

  it('"outer loop" missing, or "outer" alone (PrusaSlicer\'s scanf(" outer loop") is met by nothing)', async () => {
    await stl(
      `solid x\n${facets((f, k) => f.replace('outer loop\n', k % 2 ? '' : 'outer\n'))}\nendsolid x\n`,
    );
  });

  it('"endloop" or "endfacet" missing', async () => {
    await stl(
      `solid x\n${facets((f, k) => f.replace(k % 2 ? 'endloop\n' : '\nendfacet', ''))}\nendsolid x\n`,
    );
  });

  it('text after endloop and endfacet on their lines ("Some G-code generators tend to produce text after ...")', async () => {
    await stl(
      `solid x\n${facets((f) => f.replace('endloop', 'endloop ; loop 1 2 3').replace('endfacet', 'endfacet\t# facet done'))}\nendsolid x\n`,
    );
    // The next keyword may share the line.
    await stl(
      `solid x\n${facets((f) => f.replace('endloop\n', 'endloop ').replace('endfacet', 'endfacet '))}endsolid x\n`,
    );
  });

  it('numbers in every form scanf("%f") reads: exponents, signs, a bare dot, MSVC\'s three exponent digits, hexadecimal', async () => {
    const forms: Record<string, string> = {
      '10': '1.000000e+001',
      '20': '+20.',
      '30': '3E+01',
      '0': '.0e-000',
    };
    await stl(CLEAN_STL.replace(/(?<=vertex.*)\b(10|20|30|0)\b(?!\.)/g, (m) => forms[m]!));
    await stl(CLEAN_STL.replace(/(?<=vertex.*) (10|20|30|0)\b/g, (m) => ` ${hexFloat(Number(m))}`));
  });

  it('text or NUL padding after the last facet: neither reader reads past its last facet', async () => {
    await stl(`${CLEAN_STL}\n; exported by a script\nEND\n`);
    await stl(`${CLEAN_STL.replace('endsolid clean\n', '')}garbage 1 2 3\n`);
    for (const text of [CLEAN_STL, CLEAN_STL.replace('endsolid clean\n', '')]) {
      const padded = new Uint8Array(enc(text).length + 3000);
      padded.set(enc(text));
      expect(sniffFormat(padded)).toBe('stl-ascii');
      await expectSameMesh(padded, CLEAN_STL);
    }
  });

  it('a UTF-8 byte order mark (admesh skips the first line whatever it holds)', async () => {
    await stl(`\ufeff${CLEAN_STL}`);
    await stl(`\ufeff${CLEAN_STL.replace('solid clean\n', '')}`);
  });

  it('a binary STL whose header leaves the triangle count 0: the size counts them, as admesh does', async () => {
    const bytes = boxStl(10, 20, 30);
    new DataView(bytes.buffer).setUint32(80, 0, true);
    expect(sniffFormat(bytes)).toBe('stl-binary');
    const a = await analyzeModel(bytes, { fileName: 'box.stl' });
    expect(a.triangleCount).toBe(12);
    expect(a.volumeMm3).toBeCloseTo(6000, 6);
  });

  it('a facet of 4 or more vertices is fan-triangulated (PrusaSlicer refuses it; as OBJ polygons)', async () => {
    const quad =
      'solid q\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 1 1 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid q\n';
    const a = await analyzeModel(enc(quad));
    expect(a.triangleCount).toBe(2);
    expect(a.surfaceAreaMm2).toBeCloseTo(1, 9);
  });
});

describe('ASCII STL: refused where the geometry would be a guess', () => {
  it('a facet with fewer than 3 vertices', async () => {
    await refusedStl(facets((f, k) => (k === 3 ? f.replace(/vertex [^\n]*\n/, '') : f)));
  });

  it('a coordinate that is not a finite number: nan, inf, a word, a comma decimal, junk after the number', async () => {
    for (const bad of ['nan', 'inf', '-INF', 'infinity', 'banana', '1,5', '1.5f', '1e', '1.#QNAN', '0x']) {
      await refusedStl(CLEAN_STL.replace('vertex 0 0 0', `vertex 0 ${bad} 0`));
    }
  });

  it('anything else where a keyword belongs while geometry follows', async () => {
    await refusedStl(facets((f, k) => (k === 6 ? `${f}\nhello` : f)));
    await refusedStl(facets((f, k) => (k === 6 ? f.replace('facet normal', 'facetnormal') : f)));
    await refusedStl(facets((f, k) => (k === 6 ? f.replace('vertex 10', 'vertex 10 7') : f)));
    // A stray vertex after the end is geometry, not trailing text; the message names the first word out of place.
    await refusedStl(`${CLEAN_STL}vertex 1 2 3\n`);
    await expect(analyzeModel(enc(`${CLEAN_STL}; made by\nhand\nvertex 1 2 3\n`))).rejects.toThrow(
      `ASCII STL: expected "facet", "solid" or "endsolid", found ";" near line ${CLEAN_STL.split('\n').length}.`,
    );
  });

  it('a file cut in the middle of a facet', async () => {
    await refusedStl(CLEAN_STL.slice(0, CLEAN_STL.lastIndexOf('vertex') + 9));
  });

  it('nothing but solid lines, or no facet at all', async () => {
    await refusedStl('solid x\nendsolid x\n', 'empty');
    await refusedStl('solid but this is prose, not a model');
    await refusedStl('facet normal 0 0 1\n');
  });

  it('a binary STL whose non-zero count disagrees with its size (a cut-off upload)', async () => {
    const bytes = boxStl(10, 20, 30);
    const cut = bytes.slice(0, bytes.length - 50);
    await expect(analyzeModel(cut, { fileName: 'box.stl' })).rejects.toMatchObject({ code: 'malformed' });
  });
});

const obj = async (s: string): Promise<void> => {
  const bytes = enc(s);
  await expectSameMesh(bytes, CLEAN_OBJ);
  // The line kernel takes or declines each line; either way the mesh is the TypeScript reader's.
  expect(parseObj(bytes, { lineKernel: true })).toEqual(parseObj(bytes, { lineKernel: false }));
};
async function refusedObj(text: string, code = 'malformed'): Promise<void> {
  await expect(analyzeModel(enc(text), { fileName: 'hand-made.obj' })).rejects.toMatchObject({
    name: 'MeshError',
    code,
  });
  expect(() => parseObj(enc(text), { lineKernel: false })).toThrow();
}
const V = CLEAN_OBJ.split('\n').filter((l) => l.startsWith('v '));
const F = CLEAN_OBJ.split('\n').filter((l) => l.startsWith('f '));

describe('OBJ: what PrusaSlicer (src/libslic3r/Format/objparser.cpp, OBJ.cpp) reads, we read', () => {
  it('blanks and tabs anywhere, CR, LF and CR LF', async () => {
    await obj(CLEAN_OBJ.replace(/ /g, '\t  ').replace(/^/gm, ' \t').replace(/\n/g, '\r\n'));
    await obj(CLEAN_OBJ.replace(/\n/g, '\r'));
  });

  it('face corners as v, v/vt, v/vt/vn and v//vn, with + signs and relative (negative) indices', async () => {
    const forms = [
      (i: number) => `${i}/${i}`,
      (i: number) => `${i}/1/${i}`,
      (i: number) => `${i}//${i}`,
      (i: number) => `+${i}`,
      (i: number) => `${i - 9}`,
    ];
    await obj(
      [...V, ...F.map((l, k) => l.replace(/\d+/g, (d) => forms[k % forms.length]!(Number(d))))].join('\n'),
    );
  });

  it('w or MeshLab\'s r g b after a vertex\'s z (PrusaSlicer: "obj files containing extra data, as those generated by Meshlab")', async () => {
    await obj([...V.map((l, k) => l + [' 1', ' 0.5 0.25 1', ' 0.5 0.25 1 1'][k % 3]), ...F].join('\n'));
  });

  it('numbers in every form strtod reads, hexadecimal too', async () => {
    const forms = [
      (v: string) => Number(v).toExponential().toUpperCase(),
      (v: string) => `+${v}.`,
      (v: string) => hexFloat(Number(v)),
      (v: string) => `${v}.000`,
    ];
    await obj([...V.map((l, k) => l.replace(/\d+/g, (d) => forms[k % forms.length]!(d))), ...F].join('\n'));
  });

  it('statements it does not need, and empty f statements, are skipped', async () => {
    await obj(
      [
        'mtllib box.mtl',
        'o box',
        ...V,
        'vt 0.5 0.5',
        'vn 0 0 1',
        'vp 0.5',
        'g side',
        's off',
        'usemtl red',
        'l 1 2',
        'p 3',
        'f ',
        'f\t',
        ...F,
        'curv 0 1 1 2',
      ].join('\n'),
    );
  });

  it('comments on their own lines and after a statement (a word starting with #)', async () => {
    await obj(
      [
        '# box',
        ...V.map((l) => `${l} # a corner`),
        '#',
        ...F.map((l, k) => (k % 2 ? `${l}\t#face` : `${l} # f 1 2 3`)),
      ].join('\n'),
    );
  });

  it('a backslash continues a face, or a vertex short of its z, on the next line (the OBJ specification)', async () => {
    await obj(
      [
        ...V.map((l, k) =>
          k % 2 ? l.replace(/ (\S+)$/, ' \\\n   $1') : l.replace(/ (\S+) (\S+)$/, '\\\r\n$1 $2'),
        ),
        ...F.map((l) => l.replace(/ (\d+)$/, ' \\\n$1').replace(' ', ' \\  \n')),
      ].join('\n'),
    );
  });

  it('a byte order mark and NUL padding', async () => {
    await obj(`\ufeff${CLEAN_OBJ}`);
    const padded = new Uint8Array(enc(CLEAN_OBJ).length + 1000);
    padded.set(enc(CLEAN_OBJ));
    expect(sniffFormat(padded)).toBe('obj');
    await expectSameMesh(padded, CLEAN_OBJ);
    // Padded past byte 84, a small file's count field is NUL and its size may fit a binary STL: it is still text.
    const tiny = new Uint8Array(84 + 50);
    tiny.set(enc('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n'));
    expect(sniffFormat(tiny)).toBe('obj');
    tiny.fill(0).set(enc('facet normal 0 0 1 outer loop vertex 0 0 0 vertex 1 0 0 vertex 0 1 0'));
    expect(sniffFormat(tiny)).toBe('stl-ascii');
    expect((await analyzeModel(tiny)).triangleCount).toBe(1);
  });
});

describe('OBJ: refused where PrusaSlicer drops a line silently and the numbering or the geometry would shift', () => {
  it('a vertex short of a number, or with a word that is not one', async () => {
    for (const bad of ['v 1 2', 'v 1 2 # 3', 'v 1 2 nan', 'v 1 2 inf', 'v 1 2 3x', 'v 1,5 2 3'])
      await refusedObj([bad, ...V, ...F].join('\n'));
  });

  it('a face of one or two corners, a corner 0 or not an integer, or past the vertices', async () => {
    for (const bad of ['f 1 2', 'f 1', 'f 0 1 2', 'f 1 2 3x', 'f 1 2 3#', 'f 1 2 99', 'f 1 2 \\'])
      await refusedObj([...V, bad, ...F].join('\n'));
  });
});
