import { describe, expect, it } from 'vitest';
import { FILAMENT_DENSITY_G_PER_CM3, fulfilmentCostUsd } from '@layerline/contracts';
import { analyzeModel, DEFAULT_PRINT_SETTINGS, estimatePrint, MESH_LIMITS, MeshError } from './index.ts';
import { boxStl, make3mf } from './testing/zip-writer.ts';

const cube20 = await analyzeModel(boxStl(20, 20, 20));

describe('print estimate', () => {
  it('defaults follow the PrusaSlicer profile', () => {
    expect(DEFAULT_PRINT_SETTINGS).toMatchObject({ infillPercent: 15, layerHeightMm: 0.2, perimeters: 2, topLayers: 3, bottomLayers: 4, nozzleMm: 0.4, extrusionWidthMm: 0.45 });
    expect(DEFAULT_PRINT_SETTINGS.speeds.externalPerimeter).toBe(25);
    expect(DEFAULT_PRINT_SETTINGS.minLayerTimeS).toBe(15);
  });

  it('a 20 mm cube lands where a slicer puts it, far below volume x density', () => {
    const e = estimatePrint(cube20);
    // PrusaSlicer 2.5 with the profile: 3.50 g, 28 min 9 s.
    expect(e.grams).toBeGreaterThan(3.2);
    expect(e.grams).toBeLessThan(3.8);
    expect(e.grams).toBeLessThan(8 * 1.24 * 0.6);
    expect(e.printSeconds).toBeGreaterThan(1400);
    expect(e.printSeconds).toBeLessThan(2000);
    expect(e.layers).toBe(100);
    const b = e.breakdown;
    expect(b.perimeterG + b.skinG + b.infillG).toBeCloseTo(e.grams, 6);
    expect(e.costUsd).toBeCloseTo(fulfilmentCostUsd('PLA', e.grams), 9);
    expect(e.filamentMm).toBeCloseTo((e.extrudedMm3 / (Math.PI * 0.875 ** 2)), 6);
  });

  it('is monotonic in infill', () => {
    const g = [0, 10, 15, 30, 60, 100].map((infillPercent) => estimatePrint(cube20, { infillPercent }));
    for (let i = 1; i < g.length; i++) {
      expect(g[i]!.grams).toBeGreaterThan(g[i - 1]!.grams);
      expect(g[i]!.breakdown.infillG).toBeGreaterThanOrEqual(g[i - 1]!.breakdown.infillG);
    }
    // 100 % sparse approaches a solid part.
    expect(g[5]!.grams).toBeGreaterThan(8 * 1.24 * 0.85);
  });

  it('scales grams with filament density and changes cost with the filament rate', () => {
    const pla = estimatePrint(cube20, { filament: 'PLA' });
    const abs = estimatePrint(cube20, { filament: 'ABS' });
    expect(abs.grams / pla.grams).toBeCloseTo(FILAMENT_DENSITY_G_PER_CM3.ABS / FILAMENT_DENSITY_G_PER_CM3.PLA, 9);
    expect(abs.costUsd).toBeCloseTo(fulfilmentCostUsd('ABS', abs.grams), 9);
  });

  it('thinner layers take longer and more perimeters weigh more', () => {
    const base = estimatePrint(cube20);
    const fine = estimatePrint(cube20, { layerHeightMm: 0.1 });
    expect(fine.layers).toBe(200);
    expect(fine.printSeconds).toBeGreaterThan(base.printSeconds * 1.3);
    const walls = estimatePrint(cube20, { perimeters: 4 });
    expect(walls.breakdown.perimeterG).toBeGreaterThan(base.breakdown.perimeterG * 1.6);
    const skins = estimatePrint(cube20, { topLayers: 6, bottomLayers: 8 });
    expect(skins.breakdown.skinG).toBeGreaterThan(base.breakdown.skinG * 1.5);
    const nozzle = estimatePrint(cube20, { nozzleMm: 0.6, layerHeightMm: 0.3 });
    expect(nozzle.printSeconds).toBeLessThan(base.printSeconds);
  });

  it('thin features are all shell', async () => {
    const wall = await analyzeModel(boxStl(30, 1, 10));
    const e = estimatePrint(wall);
    expect(e.breakdown.infillG).toBe(0);
    const solid = (wall.volumeMm3 / 1000) * 1.24;
    expect(e.grams / solid).toBeGreaterThan(0.85);
    expect(e.grams / solid).toBeLessThan(1.1);
  });

  it('small layers are slowed to the minimum layer time', async () => {
    const pin = await analyzeModel(boxStl(3, 3, 5));
    const e = estimatePrint(pin);
    expect(e.breakdown.slowdownS).toBeGreaterThan(0);
    expect(e.printSeconds / e.layers).toBeLessThanOrEqual(15.5);
  });

  it('rejects nonsense settings', () => {
    expect(() => estimatePrint(cube20, { infillPercent: 150 })).toThrow(RangeError);
    expect(() => estimatePrint(cube20, { layerHeightMm: 0 })).toThrow(RangeError);
  });
});

/** Binary STL of one triangle `height` mm tall (134 bytes). */
function tallTriangle(height: number): Uint8Array {
  const buf = Buffer.alloc(134);
  buf.writeUInt32LE(1, 80);
  [0, 0, 0, 10, 0, 0, 0, 0, height].forEach((v, k) => buf.writeFloatLE(v, 96 + k * 4));
  return new Uint8Array(buf);
}

/** `items` build items of one tetrahedron `z` mm tall, side by side. */
function needles(items: number, z: number): Uint8Array {
  const build = Array.from({ length: items }, (_, i) => `<item objectid="1" transform="1 0 0 0 1 0 0 0 1 ${(i % 50) * 6} ${Math.floor(i / 50) * 6} 0"/>`).join('');
  return make3mf(
    `<?xml version="1.0" encoding="UTF-8"?><model unit="millimeter" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02"><resources><object id="1" type="model"><mesh><vertices><vertex x="0" y="0" z="0"/><vertex x="5" y="0" z="0"/><vertex x="0" y="5" z="0"/><vertex x="0" y="0" z="${z}"/></vertices><triangles><triangle v1="0" v2="2" v3="1"/><triangle v1="0" v2="1" v3="3"/><triangle v1="1" v2="2" v3="3"/><triangle v1="0" v2="3" v3="2"/></triangles></mesh></object></resources><build>${build}</build></model>`,
  );
}

describe('estimate work bounds (issue 10: layers x triangles had no bound)', () => {
  const refusal = (run: () => unknown): MeshError => {
    try {
      run();
    } catch (error) {
      if (error instanceof MeshError) return error;
      throw error;
    }
    throw new Error('not refused');
  };

  it('refuses a one-triangle model 1 km tall before any per-layer work (it took 14.7 s and +690 MB)', async () => {
    const analysis = await analyzeModel(tallTriangle(1_000_000));
    const started = performance.now();
    const rss = process.memoryUsage().rss;
    for (const layerHeightMm of [0.2, 0.05]) {
      const error = refusal(() => estimatePrint(analysis, { layerHeightMm }));
      expect(error.code).toBe('too-complex');
      expect(error.message).toContain(`too complex to estimate at ${layerHeightMm} mm layers`);
    }
    expect(performance.now() - started).toBeLessThan(1000);
    expect(process.memoryUsage().rss - rss).toBeLessThan(20 * 1024 * 1024);
  });

  it('bounds the layer slices summed over the objects of a 3MF', async () => {
    const plate = await analyzeModel(needles(2000, 100), { fileName: 'needles.3mf' });
    expect(plate.objectCount).toBe(2000);
    const started = performance.now();
    expect(refusal(() => estimatePrint(plate)).code).toBe('too-complex');
    expect(performance.now() - started).toBeLessThan(1000);
    // Under the bound the same objects are estimated as before: 20 of them at 0.2 mm is 10,000 slices.
    const few = await analyzeModel(needles(20, 100), { fileName: 'few.3mf' });
    expect(20 * 500).toBeLessThan(MESH_LIMITS.maxObjectLayers);
    expect(estimatePrint(few).layers).toBe(500);
  });

  it('bounds the triangle-plane cuts (their memory) too: triangles x layers', async () => {
    // 2,100 slivers 400 mm tall (105 KB): inside the volume, 8,000 layers at 0.05 mm, but every
    // sliver is cut by every plane: 16.8 M cuts (270 MB of segments) is past the bound.
    const n = 2100;
    const buf = Buffer.alloc(84 + 50 * n);
    buf.writeUInt32LE(n, 80);
    for (let i = 0; i < n; i++) [i * 0.1, 0, 0, i * 0.1 + 0.05, 0, 0, i * 0.1, 0, 400].forEach((v, k) => buf.writeFloatLE(v, 84 + 50 * i + 12 + k * 4));
    const fan = await analyzeModel(new Uint8Array(buf));
    const started = performance.now();
    const error = refusal(() => estimatePrint(fan, { layerHeightMm: 0.05 }));
    expect(error.code).toBe('too-complex');
    expect(error.message).toContain('cuts its triangles more than 16,000,000 times');
    expect(performance.now() - started).toBeLessThan(1000);
    expect(MESH_LIMITS.maxLayerCuts * 16).toBeLessThanOrEqual(256 * 1024 * 1024);
  });
});
