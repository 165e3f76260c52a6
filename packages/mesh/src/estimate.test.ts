import { describe, expect, it } from 'vitest';
import { FILAMENT_DENSITY_G_PER_CM3, fulfilmentCostUsd } from '@layerline/contracts';
import { analyzeModel, DEFAULT_PRINT_SETTINGS, estimatePrint } from './index.ts';
import { boxStl } from './testing/zip-writer.ts';

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
