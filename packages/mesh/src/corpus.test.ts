import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeModel, estimatePrint, MeshError } from './index.ts';

const DIR = '/work/shared/models/';
const ref = readFileSync(DIR + 'REFERENCE.tsv', 'utf8')
  .trim()
  .split('\n')
  .map((l) => l.split('\t'));
const head = ref.shift()!;
const col = (n: string) => head.indexOf(n);
const files = readdirSync(DIR).filter((f) => /\.(stl|obj|3mf)$/.test(f));

describe('corpus: every model is analysed or rejected for a named reason, and quoted when PrusaSlicer sliced it', () => {
  for (const r of ref) {
    const model = r[col('model')]!;
    const scale = Number(r[col('scale')]);
    const tris = Number(r[col('triangles')]);
    // Rows PrusaSlicer refused (0-byte file, CR-only STL, n-gon OBJ, invalid 3MF, nothing on the bed) have no figures.
    const sliced = r[col('prusa_filament_g')] !== '';
    it(`${model} x${scale}${sliced ? ' (sliced by PrusaSlicer: quoted)' : ''}`, async () => {
      const bytes = readFileSync(DIR + model);
      if (tris === 0) {
        await expect(analyzeModel(bytes, { fileName: model, scale })).rejects.toMatchObject({
          code: 'empty',
        });
        return;
      }
      const a = await analyzeModel(bytes, { fileName: model, scale });
      expect(a.triangleCount).toBe(tris);
      const vol = Number(r[col('mesh_volume_mm3')]);
      expect(Math.abs(a.volumeMm3 - vol)).toBeLessThanOrEqual(Math.abs(vol) * 0.001);
      const bbox = r[col('bbox_mm')]!.split('x').map(Number);
      // Scaled rows carry the unscaled bbox's rounding (e.g. 0.156 mm x 1000).
      a.bbox.size.forEach((s, i) =>
        expect(Math.abs(s - bbox[i]!)).toBeLessThanOrEqual(0.002 + 0.005 * bbox[i]!),
      );
      expect(a.format).toBe(r[col('format')]);
      // A model that PrusaSlicer could not fit on the bed must be flagged.
      if (/could not fit/.test(r[col('prusa_errors')] ?? '')) {
        expect(a.printability.fitsBuildVolume).toBe(false);
        expect(a.problems.map((p) => p.code)).toContain('exceeds-build-volume');
      }
      if (sliced) {
        const e = estimatePrint(a);
        for (const v of [e.grams, e.printSeconds, e.costUsd]) expect(Number.isFinite(v) && v >= 0).toBe(true);
        // PrusaSlicer's 0.00 g rows are specks (models in metres at x1); anything it weighed, we weigh too.
        if (Number(r[col('prusa_filament_g')]) > 0) expect(e.grams).toBeGreaterThan(0);
      }
    }, 60_000);
  }

  it('covers every model file in the folder', () => {
    const inRef = new Set(ref.map((r) => r[0]));
    expect(files.filter((f) => !inRef.has(f))).toEqual([]);
    expect(ref.filter((r) => r[col('prusa_filament_g')] !== '').length).toBe(35);
  });

  it('reports topology problems the manifest lists', async () => {
    const bunny = await analyzeModel(readFileSync(DIR + 'stanford-bunny.obj'));
    expect(bunny.printability.openEdges).toBe(223);
    expect(bunny.problems.find((p) => p.code === 'open-edges')?.triangles?.length).toBeGreaterThan(0);
    const quads = await analyzeModel(readFileSync(DIR + 'ps-extruder_idler_quads.obj'));
    expect(quads.printability.nonManifoldEdges).toBe(92);
    expect(quads.shells).toBe(3);
    const gears = await analyzeModel(readFileSync(DIR + '3mfs-cube_gears.3mf'));
    expect(gears.shells).toBe(17);
    expect(gears.objectCount).toBe(17);
    expect(gears.printability.degenerateTriangles).toBe(92);
    const cube = await analyzeModel(readFileSync(DIR + 'ps-20mm_cube.obj'));
    expect(cube.problems).toEqual([]);
    expect(cube.printability.watertight).toBe(true);
    expect(cube.surfaceAreaMm2).toBeCloseTo(2400, 3);
  });

  it('reads the inch-unit lib3mf file with its units and flags the support component', async () => {
    const a = await analyzeModel(readFileSync(DIR + 'lib3mf-holed_cube_support.3mf'));
    expect(a.bbox.size[0]).toBeCloseTo(252.323, 2);
    expect(a.problems.map((p) => p.code)).toContain('support-object-in-component');
  });

  it('returns welded geometry a viewer can use', async () => {
    const a = await analyzeModel(readFileSync(DIR + 'ps-20mmbox-CR.stl'));
    expect(a.mesh.positions).toBeInstanceOf(Float32Array);
    expect(a.mesh.positions.length).toBe(8 * 3);
    expect(a.mesh.indices.length).toBe(36);
    expect(() => {
      throw new MeshError('empty', 'x');
    }).toThrow(MeshError);
  });
});
