import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { packPlate } from '../../modules/production/plate-packer.ts';
import { plateGcodeProblems, withExcludeObjectMarkers, type PlateGcodePart } from './plate-gcode.ts';
import { slicePlateWithPrusaSlicer, type PlateSlicePart } from './plate-slicing.ts';
import { SlicerError, detectPrusaSlicer } from './prusa-slicer.ts';

const MODELS = path.resolve(import.meta.dirname, '../../../../../../shared/models');
const slicer = await detectPrusaSlicer();
const skipReason = !slicer.available
  ? 'prusa-slicer is not installed (not found in PATH)'
  : !existsSync(path.join(MODELS, 'ps-20mm_cube.obj'))
    ? `the model corpus is not at ${MODELS}`
    : null;

const PLA = { layerHeightMm: 0.2, infillPercent: 15, filament: 'PLA', densityGPerCm3: 1.24 } as const;
const PRINTER = { nozzleMm: 0.4, bedMm: { x: 250, y: 210, z: 220 } };

const part = (label: string, centerX: number, centerY: number, width = 20, depth = 20): PlateGcodePart => ({
  label,
  centerX,
  centerY,
  width,
  depth,
});
const layer = (label: string, id: number, x: number, y: number) =>
  [`; printing object ${label}.stl id:${id} copy 0`, `G1 X${x} Y${y} E0.5`, `; stop printing object ${label}.stl id:${id} copy 0`].join('\n');

describe('checking a plate’s G-code', () => {
  const parts = [part('P0_a', 40, 40), part('P1_b', 90, 40)];

  it('accepts G-code that prints every part under its own id, inside its footprint', () => {
    expect(plateGcodeProblems([layer('P0_a', 0, 41, 39), layer('P1_b', 1, 95, 45)].join('\n'), parts)).toEqual([]);
  });

  it('names a part the G-code leaves out, one it does not know, a wrong id and a part printed elsewhere', () => {
    expect(plateGcodeProblems(layer('P0_a', 0, 40, 40), parts)).toEqual(['The G-code does not print P1_b']);
    expect(plateGcodeProblems([layer('P0_a', 0, 40, 40), layer('P1_b', 1, 90, 40), layer('P9_z', 2, 9, 9)].join('\n'), parts)).toEqual([
      'The G-code prints an object Layerline did not put on the plate: P9_z',
    ]);
    expect(plateGcodeProblems([layer('P0_a', 1, 40, 40), layer('P1_b', 1, 90, 40)].join('\n'), parts)).toEqual([
      'P0_a is object 1 in the G-code, not 0',
    ]);
    expect(plateGcodeProblems([layer('P0_a', 0, 125, 105), layer('P1_b', 1, 90, 40)].join('\n'), parts)).toEqual([
      'P0_a is not where the plate put it: 1 extrusions outside its footprint',
    ]);
  });

  it('adds Klipper’s markers: every object defined before the first, each object’s moves between START and END', () => {
    const marked = withExcludeObjectMarkers(['G28', layer('P0_a', 0, 40, 40), layer('P1_b', 1, 90, 40)].join('\n'), parts).split('\n');
    expect(marked.slice(0, 3)).toEqual([
      'G28',
      'EXCLUDE_OBJECT_DEFINE NAME=P0_a CENTER=40,40 POLYGON=[[30,30],[50,30],[50,50],[30,50]]',
      'EXCLUDE_OBJECT_DEFINE NAME=P1_b CENTER=90,40 POLYGON=[[80,30],[100,30],[100,50],[80,50]]',
    ]);
    expect(marked.slice(3, 7)).toEqual([
      '; printing object P0_a.stl id:0 copy 0',
      'EXCLUDE_OBJECT_START NAME=P0_a',
      'G1 X40 Y40 E0.5',
      'EXCLUDE_OBJECT_END NAME=P0_a',
    ]);
  });
});

describe.skipIf(skipReason !== null)(`a plate sliced by PrusaSlicer ${slicer.version ?? ''}${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'layerline-plate-test-'));
    await chmod(root, 0o711);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const models = [
    { label: 'P0_cube', file: 'ps-20mm_cube.obj', size: { x: 20, y: 20, z: 20 } },
    { label: 'P1_plug', file: 'i3-plug-aligner.stl', size: { x: 7.3, y: 17.7, z: 5.5 } },
    { label: 'P2_box', file: '3mfs-box_prod.3mf', size: { x: 10, y: 20, z: 30 } },
  ];
  const placedParts = (): PlateSlicePart[] => {
    const layout = packPlate(
      models.map((m) => ({ id: m.label, size: m.size })),
      { x: 250, y: 210, z: 220 },
      { edgeMarginMm: 5, gapMm: 10, heightMarginMm: 2 },
    )!;
    return models.map((m) => {
      const at = layout.find((p) => p.id === m.label)!;
      return {
        ...at,
        label: m.label,
        modelPath: path.join(MODELS, m.file),
        format: path.extname(m.file).slice(1) as PlateSlicePart['format'],
      };
    });
  };

  it('prints every part where the packer put it, labelled for PrusaSlicer and Klipper, in one G-code', async () => {
    const parts = placedParts();
    expect(parts.find((p) => p.label === 'P1_plug')!.rotationDeg).toBe(90);
    const result = await slicePlateWithPrusaSlicer({ parts, settings: PLA, printer: PRINTER, scratchRoot: root });
    expect(result.objects).toEqual(models.map((m, index) => ({ index, label: m.label })));
    expect(result.grams).toBeGreaterThan(3);
    const gcode = await readFile(result.gcodePath, 'utf8');
    expect(plateGcodeProblems(gcode, parts)).toEqual([]);
    for (const m of models) {
      expect(gcode).toContain(`EXCLUDE_OBJECT_DEFINE NAME=${m.label} `);
      expect(gcode).toContain(`EXCLUDE_OBJECT_START NAME=${m.label}\n`);
    }
    // Only the G-code is left behind; the scratch directory is gone.
    expect((await readdir(root)).filter((n) => !n.startsWith('layerline-gcode-'))).toEqual([]);
  }, 120_000);

  it('refuses a plate with a label that is not a plain name, before any slicing', async () => {
    const parts = placedParts();
    const error = await slicePlateWithPrusaSlicer({
      parts: [{ ...parts[0]!, label: 'P0 cube' }, ...parts.slice(1)],
      settings: PLA,
      printer: PRINTER,
      scratchRoot: root,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SlicerError);
    expect((error as SlicerError).message).toContain('P0 cube');
    expect(await readdir(root)).toEqual([]);
  });
});
