import { describe, expect, it } from 'vitest';
import { FILAMENT_DENSITY_G_PER_CM3, fulfilmentCostUsd } from '@layerline/contracts';
import {
  analyzeModel,
  DEFAULT_PRINT_SETTINGS,
  estimatePrint,
  MESH_LIMITS,
  MeshError,
  resolveSettings,
} from './index.ts';
import type { ModelAnalysis } from './index.ts';
import { boxStl, make3mf } from './testing/zip-writer.ts';
import { layerGeometry } from './slicing/layer-geometry.ts';
import { sliceTriangles } from './slicing/slice.ts';
import { LayerTimer } from './slicing/layer-time.ts';
import { sequenceTime } from './slicing/motion.ts';

const cube20 = await analyzeModel(boxStl(20, 20, 20));

describe('print estimate', () => {
  it('defaults follow the PrusaSlicer profile', () => {
    expect(DEFAULT_PRINT_SETTINGS).toMatchObject({
      infillPercent: 15,
      layerHeightMm: 0.2,
      perimeters: 2,
      topLayers: 3,
      bottomLayers: 4,
      nozzleMm: 0.4,
      extrusionWidthMm: 0.45,
    });
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
    expect(e.filamentMm).toBeCloseTo(e.extrudedMm3 / (Math.PI * 0.875 ** 2), 6);
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
    expect(abs.grams / pla.grams).toBeCloseTo(
      FILAMENT_DENSITY_G_PER_CM3.ABS / FILAMENT_DENSITY_G_PER_CM3.PLA,
      9,
    );
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

  it('small layers are slowed to the minimum layer time, as PrusaSlicer counts it', async () => {
    // PrusaSlicer's CoolingBuffer slows a layer's extrusions until length / feedrate reaches 15 s;
    // accelerating, lifting and travelling then take the machine longer than that (1689 s for
    // the cube's 100 layers).
    const cube = estimatePrint(cube20);
    expect(cube.breakdown.slowdownS).toBeGreaterThan(0);
    expect(cube.printSeconds / cube.layers).toBeGreaterThan(15.5);
    expect(cube.printSeconds / cube.layers).toBeLessThan(18);
    // A 3 x 3 mm pin cannot be slowed to 15 s: its extrusions reach min_print_speed (15 mm/s) first.
    const pin = estimatePrint(await analyzeModel(boxStl(3, 3, 5)));
    expect(pin.breakdown.slowdownS).toBeGreaterThan(0);
    expect(pin.printSeconds / pin.layers).toBeLessThan(15);
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
  const build = Array.from(
    { length: items },
    (_, i) =>
      `<item objectid="1" transform="1 0 0 0 1 0 0 0 1 ${(i % 50) * 6} ${Math.floor(i / 50) * 6} 0"/>`,
  ).join('');
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
    for (let i = 0; i < n; i++)
      [i * 0.1, 0, 0, i * 0.1 + 0.05, 0, 0, i * 0.1, 0, 400].forEach((v, k) =>
        buf.writeFloatLE(v, 84 + 50 * i + 12 + k * 4),
      );
    const fan = await analyzeModel(new Uint8Array(buf));
    const started = performance.now();
    const error = refusal(() => estimatePrint(fan, { layerHeightMm: 0.05 }));
    expect(error.code).toBe('too-complex');
    expect(error.message).toContain('cuts its triangles more than 16,000,000 times');
    expect(performance.now() - started).toBeLessThan(1000);
    expect(MESH_LIMITS.maxLayerCuts * 16).toBeLessThanOrEqual(256 * 1024 * 1024);
  });
});

/** Binary STL of a pyramid: a w x d base at z = 0, its apex h above the base's centre. */
function pyramidStl(w: number, d: number, h: number): Uint8Array {
  const v = [
    [0, 0, 0],
    [w, 0, 0],
    [w, d, 0],
    [0, d, 0],
    [w / 2, d / 2, h],
  ];
  const faces = [
    [0, 2, 1],
    [0, 3, 2],
    [0, 1, 4],
    [1, 2, 4],
    [2, 3, 4],
    [3, 0, 4],
  ];
  const buf = Buffer.alloc(84 + 50 * faces.length);
  buf.writeUInt32LE(faces.length, 80);
  faces.forEach((f, i) =>
    f.forEach((c, j) => v[c]!.forEach((x, k) => buf.writeFloatLE(x, 84 + 50 * i + 12 + j * 12 + k * 4))),
  );
  return new Uint8Array(buf);
}

/** The estimate with another cell budget (MESH_LIMITS.estimateCellBudget), restored afterwards. */
function withBudget<T>(cells: number, run: () => T): T {
  const limits = MESH_LIMITS as { estimateCellBudget: number };
  const kept = limits.estimateCellBudget;
  limits.estimateCellBudget = cells;
  try {
    return run();
  } finally {
    limits.estimateCellBudget = kept;
  }
}

describe('estimate at a bounded cost (issue 14)', () => {
  it('a prism is one layer mask and a few classifications, however tall', async () => {
    for (const height of [20, 200]) {
      const e = estimatePrint(await analyzeModel(boxStl(20, 20, height)));
      expect(e.work.masks).toBe(1);
      // The bottom and top skins and the layers next to them; every layer between takes the figures below it.
      expect(e.work.classified).toBeLessThanOrEqual(
        2 * (DEFAULT_PRINT_SETTINGS.topLayers + DEFAULT_PRINT_SETTINGS.bottomLayers + 2),
      );
      expect(e.work.interpolated).toBe(0);
    }
    const short = estimatePrint(cube20),
      tall = estimatePrint(await analyzeModel(boxStl(20, 20, 200)));
    expect(tall.work.cells).toBe(short.work.cells);
    // The 180 mm more are sparse infill and perimeters, layer after layer.
    expect(tall.grams / short.grams).toBeGreaterThan(5);
  });

  it('the work stays within the cell budget for the largest print the bed takes, every layer still estimated', async () => {
    const big = await analyzeModel(pyramidStl(240, 200, 205));
    expect(big.printability.fitsBuildVolume).toBe(true);
    const e = estimatePrint(big);
    expect(e.layers).toBe(1025);
    expect(e.work.cells).toBeLessThanOrEqual(MESH_LIMITS.estimateCellBudget);
    expect(e.work.interpolated).toBeGreaterThan(0);
    expect(e.work.classified + e.work.interpolated).toBeGreaterThanOrEqual(e.layers);
    // A pyramid of 3.28 L of PLA, printed with two walls and 15 % gyroid: a fraction of it.
    const solid = (big.volumeMm3 / 1000) * 1.24;
    expect(e.grams / solid).toBeGreaterThan(0.12);
    expect(e.grams / solid).toBeLessThan(0.3);
  });

  it('a model larger than any bed gets a sixteenth of the budget, however large', async () => {
    const huge = await analyzeModel(pyramidStl(1000, 1000, 400));
    expect(huge.printability.fitsBuildVolume).toBe(false);
    const e = estimatePrint(huge);
    expect(e.layers).toBe(2000);
    expect(e.work.cells).toBeLessThanOrEqual(MESH_LIMITS.estimateCellBudget / 16);
    expect(e.grams).toBeGreaterThan(0);
  });

  it('interpolated layers land where classifying every layer does', async () => {
    const pyramid = await analyzeModel(pyramidStl(60, 50, 60));
    const full = withBudget(1e12, () => estimatePrint(pyramid));
    expect(full.work.interpolated).toBe(0);
    const sampled = withBudget(full.work.cells / 4, () => estimatePrint(pyramid));
    expect(sampled.work.cells).toBeLessThanOrEqual(full.work.cells / 4);
    expect(sampled.work.interpolated).toBeGreaterThan(full.layers / 2);
    expect(Math.abs(sampled.grams / full.grams - 1)).toBeLessThan(0.03);
    expect(Math.abs(sampled.printSeconds / full.printSeconds - 1)).toBeLessThan(0.05);
  });
});

describe('exact layer geometry', () => {
  const sliced = (a: ModelAnalysis, layers: number) => {
    const { positions: p, indices: idx } = a.mesh;
    return {
      geo: layerGeometry(p, idx, 0, idx.length / 3, 0, 0.1, 0.2, layers),
      segs: sliceTriangles(p, idx, 0, idx.length / 3, 0, 0.1, 0.2, layers),
    };
  };

  it("each layer's area and outline are those of its slice, and a change is the surface between two layers", async () => {
    const { geo, segs } = sliced(await analyzeModel(pyramidStl(30, 20, 10)), 50);
    for (let k = 0; k < 50; k++) {
      let twice = 0;
      for (let q = segs.offsets[k]! * 4; q < segs.offsets[k + 1]! * 4; q += 4)
        twice += segs.segs[q]! * segs.segs[q + 3]! - segs.segs[q + 2]! * segs.segs[q + 1]!;
      expect(geo.area[k]).toBeCloseTo(Math.abs(twice) / 2, 3);
      expect(geo.outline[k]).toBeCloseTo(segs.outline[k]!, 6);
      // Similar cross-sections: (1 - z/h)² of the base, (1 - z/h) of its outline.
      const z = 0.1 + 0.2 * k,
        shrink = 1 - z / 10;
      expect(geo.area[k]).toBeCloseTo(600 * shrink * shrink, 6);
      expect(geo.outline[k]).toBeCloseTo(100 * shrink, 6);
    }
    // Between two planes, the sloped faces' horizontal area is the difference of the sections.
    for (let k = 0; k + 1 < 50; k++) expect(geo.change[k]).toBeCloseTo(geo.area[k]! - geo.area[k + 1]!, 6);
  });

  it("a prism's layers are all the same", async () => {
    const { geo } = sliced(await analyzeModel(boxStl(10, 10, 10)), 50);
    expect([...geo.change].every((c) => c === 0)).toBe(true);
    expect(new Set(geo.area).size).toBe(1);
  });
});

describe('print time from the motion, as PrusaSlicer plans it', () => {
  const s = resolveSettings({});
  const limits = {
    feed: [200, 200, 12, 120],
    accel: [1000, 1000, 200, 5000],
    jerk: [8, 8, 0.4, 4.5],
  } as const;

  it('a 0.4 mm lift at 200 mm/s² and 0.4 mm/s Z jerk takes 86 ms, not 0.4/12 s', () => {
    // From 0.4 mm/s up to sqrt(0.4² + 200 · 0.4) and down again: a triangle.
    const peak = Math.sqrt(0.16 + 200 * 0.4);
    expect(sequenceTime([{ d: [0, 0, 0.4, 0], feed: 180, accel: 1500 }], limits)).toBeCloseTo(
      (2 * (peak - 0.4)) / 200,
      9,
    );
  });

  it('a straight run that does not turn keeps its speed across moves', () => {
    const one = sequenceTime([{ d: [20, 0, 0, 0], feed: 50, accel: 1000 }], limits);
    const split = sequenceTime(
      [
        { d: [10, 0, 0, 0], feed: 50, accel: 1000 },
        { d: [10, 0, 0, 0], feed: 50, accel: 1000 },
      ],
      limits,
    );
    expect(split).toBeCloseTo(one, 9);
    const corner = sequenceTime(
      [
        { d: [10, 0, 0, 0], feed: 50, accel: 1000 },
        { d: [0, 10, 0, 0], feed: 50, accel: 1000 },
      ],
      limits,
    );
    // The corner slows both moves to the 8 mm/s jerk: each accelerates from and brakes to it.
    expect(corner).toBeCloseTo(one + 2 * ((50 - 8) / 1000 - (50 * 50 - 8 * 8) / (2 * 1000) / 50), 9);
  });

  it('a retracting travel is its wipe, retraction, lift, move, lower and unretraction', () => {
    const timer = new LayerTimer(s);
    const travel = timer.retractTravel(12, true);
    // PrusaSlicer's own planner on its G-code: ~0.35 s around the move (~0.15 s for 12 mm at 180 mm/s).
    expect(travel).toBeGreaterThan(0.45);
    expect(travel).toBeLessThan(0.55);
    expect(timer.retractTravel(12, false)).toBeLessThan(travel);
    // The CoolingBuffer counts the same moves at their feedrates only.
    expect(timer.retractTravelNominal(12, true)).toBeCloseTo(
      (0.95 * 0.8) / 35 + (0.05 * 0.8) / 35 + (2 * 0.4 + 12) / 180 + 0.8 / 35,
      9,
    );
    const noLift = new LayerTimer(resolveSettings({ retractLiftMm: 0 }));
    expect(noLift.retractTravel(12, true)).toBeLessThan(travel - 0.12);
  });
});
