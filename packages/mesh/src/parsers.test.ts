import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeModel, sniffFormat } from './index.ts';
import { boxStl, cubeModelXml, make3mf } from './testing/zip-writer.ts';

const enc = (s: string) => new Uint8Array(Buffer.from(s));
const DIR = '/work/shared/models/';

describe('STL', () => {
  it('binary STL whose header starts with "solid" is read as binary', async () => {
    const bytes = new Uint8Array(readFileSync(DIR + 'openscad-import_bin_solid.stl'));
    expect(Buffer.from(bytes.subarray(0, 5)).toString()).toBe('solid');
    expect(sniffFormat(bytes)).toBe('stl-binary');
  });

  it('ASCII STL with CR, LF and CRLF line ends gives the same mesh', async () => {
    const lf = readFileSync(DIR + 'ps-20mmbox-CRLF.stl', 'latin1').replace(/\r\n/g, '\n');
    const vols = await Promise.all(
      [lf, lf.replace(/\n/g, '\r'), lf.replace(/\n/g, '\r\n')].map(async (t) => (await analyzeModel(enc(t))).volumeMm3),
    );
    expect(vols).toEqual([8000, 8000, 8000].map((v) => expect.closeTo(v, 6)));
  });

  it('binary and ASCII of the same box agree', async () => {
    const a = await analyzeModel(boxStl(10, 20, 30));
    expect(a.volumeMm3).toBeCloseTo(6000, 6);
    expect(a.bbox.size).toEqual([10, 20, 30]);
    expect(a.shells).toBe(1);
    expect(a.printability.watertight).toBe(true);
  });

  it('flags an open box and names the triangles', async () => {
    const stl = Buffer.from(boxStl(10, 10, 10));
    const cut = Buffer.concat([stl.subarray(0, 84 + 50 * 11)]);
    cut.writeUInt32LE(11, 80);
    const a = await analyzeModel(new Uint8Array(cut));
    expect(a.printability.openEdges).toBe(3);
    const p = a.problems.find((x) => x.code === 'open-edges')!;
    expect(p.message).toMatch(/open/);
    expect([...p.triangles!].length).toBeGreaterThanOrEqual(2);
  });
});

describe('OBJ', () => {
  it('fan-triangulates polygons, resolves negative indices and ignores groups', async () => {
    const obj = `# cube with quads, negative indices and groups
o cube
v 0 0 0
v 10 0 0
v 10 10 0
v 0 10 0
v 0 0 10
v 10 0 10
v 10 10 10
v 0 10 10
g bottom
f -8 -5 -6 -7
g top
usemtl red
f 5/1/1 6/2/1 7/3/1 8/4/1
f 1//1 2//1 6//1 5//1
f 2 3 7 6
f 3 4 8 7
f 4 1 5 8
`;
    const a = await analyzeModel(enc(obj), { fileName: 'c.obj' });
    expect(a.format).toBe('obj');
    expect(a.triangleCount).toBe(12);
    expect(a.volumeMm3).toBeCloseTo(1000, 6);
    expect(a.printability.watertight).toBe(true);
  });

  it('n-gon faces are valid for us (PrusaSlicer refuses them)', async () => {
    const a = await analyzeModel(new Uint8Array(readFileSync(DIR + 'assimp-concave_polygon.obj')));
    expect(a.triangleCount).toBe(64);
  });

  it('rejects a face that points past the vertices', async () => {
    await expect(analyzeModel(enc('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n'))).rejects.toMatchObject({ code: 'malformed' });
    await expect(analyzeModel(enc('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -9\n'))).rejects.toMatchObject({ code: 'malformed' });
    await expect(analyzeModel(enc('# nothing\nv 0 0 0\n'))).rejects.toMatchObject({ code: 'empty' });
  });
});

describe('3MF', () => {
  it('applies units, build-item and component transforms', async () => {
    const xml = cubeModelXml('', 'centimeter')
      .replace('</resources>', '<object id="2"><components><component objectid="1" transform="2 0 0 0 1 0 0 0 1 0 0 0"/><component objectid="1" transform="1 0 0 0 1 0 0 0 1 30 0 0"/></components></object></resources>')
      .replace('<item objectid="1"/>', '<item objectid="2" transform="1 0 0 0 1 0 0 0 1 0 0 5"/>');
    const a = await analyzeModel(make3mf(xml));
    // Two 10 cm cubes, one stretched x2 in X: 2000 + 1000 cm³.
    expect(a.volumeMm3).toBeCloseTo(3_000_000, 0);
    expect(a.bbox.min[2]).toBeCloseTo(50, 6);
    expect(a.bbox.size).toEqual([400, 100, 100].map((v) => expect.closeTo(v, 4)));
    expect(a.objectCount).toBe(1);
    expect(a.printability.fitsBuildVolume).toBe(false);
  });

  it('keeps each build item as its own object', async () => {
    const xml = cubeModelXml().replace('<item objectid="1"/>', '<item objectid="1"/><item objectid="1" transform="1 0 0 0 1 0 0 0 1 20 0 7"/>');
    const a = await analyzeModel(make3mf(xml));
    expect(a.objectCount).toBe(2);
    expect(a.shells).toBe(2);
    expect(a.mesh.parts).toEqual(Uint32Array.from([0, 12, 24]));
  });
});
