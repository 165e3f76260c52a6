import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SlicerError, detectPrusaSlicer, sliceWithPrusaSlicer, type SliceInput, type SliceResult } from './prusa-slicer.ts';
import { livingInGroup } from './test-helpers.ts';

const MODELS = path.resolve(import.meta.dirname, '../../../../../../shared/models');
const slicer = await detectPrusaSlicer();
const haveModels = existsSync(path.join(MODELS, 'REFERENCE.tsv'));
const skipReason = !slicer.available
  ? 'prusa-slicer is not installed (not found in PATH)'
  : !haveModels
    ? `the model corpus is not at ${MODELS}`
    : null;
if (skipReason) console.warn(`PrusaSlicer integration tests skipped: ${skipReason}`);

/** REFERENCE.tsv rows at scale 1, by model file name. */
function reference(model: string): { grams: number; seconds: number } {
  const [header, ...rows] = readFileSync(path.join(MODELS, 'REFERENCE.tsv'), 'utf8').trim().split('\n').map((l) => l.split('\t'));
  const col = (name: string) => header!.indexOf(name);
  const row = rows.find((r) => r[col('model')] === model && r[col('scale')] === '1');
  if (!row) throw new Error(`no reference row for ${model}`);
  return { grams: Number(row[col('prusa_filament_g')]), seconds: Number(row[col('prusa_time_s')]) };
}

const PLA = { layerHeightMm: 0.2, infillPercent: 15, filament: 'PLA', densityGPerCm3: 1.24 } as const;

async function expectSlicerError(promise: Promise<unknown>): Promise<SlicerError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a SlicerError, the slice succeeded');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SlicerError);
  return error as SlicerError;
}

describe.skipIf(skipReason !== null)(`PrusaSlicer ${slicer.version ?? ''} in the sandbox${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let root: string;
  const slice = (model: string, extra: Partial<SliceInput> = {}): Promise<SliceResult> =>
    sliceWithPrusaSlicer({
      modelPath: path.join(MODELS, model),
      format: path.extname(model).slice(1) as SliceInput['format'],
      settings: PLA,
      scratchRoot: root,
      ...extra,
    });
  const leftovers = async () => (await readdir(root)).filter((name) => !name.startsWith('layerline-gcode-'));

  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'layerline-slicer-test-'));
    await chmod(root, 0o711); // searchable, so the sandbox can drop to nobody
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('detects the binary and its version', () => {
    expect(slicer).toMatchObject({ available: true, version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect(path.isAbsolute(slicer.path!)).toBe(true);
  });

  it.each(['ps-20mm_cube.obj', 'voron-filament_card.stl', 'i3-plug-aligner.stl'])(
    'slices %s to the reference grams and time (within 1 percent)',
    async (model) => {
      const ref = reference(model);
      const result = await slice(model);
      expect(Math.abs(result.grams - ref.grams)).toBeLessThanOrEqual(ref.grams * 0.01);
      expect(Math.abs(result.printSeconds - ref.seconds)).toBeLessThanOrEqual(ref.seconds * 0.01);
      expect(result.filamentMm).toBeGreaterThan(0);
      expect(result.grams / result.filamentCm3).toBeCloseTo(1.24, 1);
      expect(result.slicerVersion).toBe(slicer.version);
      expect(result.warnings).toEqual([]);
      // The caller owns the G-code; the scratch directory is gone.
      expect(path.dirname(result.gcodePath)).toBe(root);
      const info = await stat(result.gcodePath);
      expect(info.mode & 0o777).toBe(0o600);
      expect(info.uid).toBe(process.getuid!());
      expect(readFileSync(result.gcodePath, 'utf8')).toContain('; total filament used [g]');
      expect(await leftovers()).toEqual([]);
    },
  );

  it('more infill gives more grams; the filament density we pass gives the grams', async () => {
    const at15 = await slice('ps-20mm_cube.obj');
    const at40 = await slice('ps-20mm_cube.obj', { settings: { ...PLA, infillPercent: 40 } });
    expect(at40.grams).toBeGreaterThan(at15.grams * 1.2);
    const petg = await slice('i3-plug-aligner.stl', { settings: { ...PLA, filament: 'PETG', densityGPerCm3: 1.27 } });
    expect(petg.grams / petg.filamentCm3).toBeCloseTo(1.27, 1);
  });

  it.skipIf(process.getuid?.() !== 0)('as root, a scratchRoot nobody cannot search still slices, as root, with a warning', async () => {
    await chmod(root, 0o700);
    const result = await slice('ps-20mm_cube.obj');
    expect(result.warnings).toEqual([`running the slicer as root: ${root} is not searchable by nobody`]);
    expect(await leftovers()).toEqual([]);
  });

  it('a model larger than the bed is does-not-fit', async () => {
    const error = await expectSlicerError(slice('admesh-conveyor-nearby-bad.stl'));
    expect(error.code).toBe('does-not-fit');
    expect(error.message).toMatch(/does not fit on the print bed/);
    expect(await leftovers()).toEqual([]);
  });

  it('an empty or unprintable model is a readable failure, with no scratch paths in the message', async () => {
    const zero = await expectSlicerError(slice('openscad-empty.stl'));
    expect(zero.code).toBe('failed');
    expect(zero.message).toBe('The model file is empty');

    const tiny = await expectSlicerError(slice('stanford-bunny.obj')); // metre units: 0.15 mm across
    expect(tiny.code).toBe('empty-print');
    expect(tiny.message).toMatch(/The print is empty/);
    expect(tiny.message).not.toContain(root);
    expect(tiny.message).not.toContain('/');
    expect(await leftovers()).toEqual([]);
  });

  it('a timeout kills the slicer’s process group and removes the scratch directory', async () => {
    const started = performance.now();
    const error = await expectSlicerError(slice('i3-extruder-body.stl', { timeoutMs: 1_000 }));
    const elapsed = performance.now() - started;
    expect(error.code).toBe('timeout');
    expect(error.signal).toBe('SIGKILL');
    expect(elapsed).toBeLessThan(5_000);
    expect(error.pid).toBeGreaterThan(0);
    expect(() => process.kill(error.pid!, 0)).toThrow();
    expect(livingInGroup(error.pid!)).toEqual([]);
    expect(await readdir(root)).toEqual([]);
  });

  it('the memory limit ends the slicer as memory, without hanging', async () => {
    const atStart = await expectSlicerError(slice('ps-20mm_cube.obj', { memoryLimitBytes: 64 * 1024 ** 2, timeoutMs: 20_000 }));
    expect(['memory', 'failed']).toContain(atStart.code);
    expect(atStart.code).toBe('memory');
    const midSlice = await expectSlicerError(slice('i3-extruder-body.stl', { memoryLimitBytes: 256 * 1024 ** 2, timeoutMs: 20_000 }));
    expect(midSlice.code).toBe('memory');
    expect(midSlice.message).toMatch(/256 MiB/);
    expect(await readdir(root)).toEqual([]);
  });

  it('an unknown binary is unavailable', async () => {
    const error = await expectSlicerError(slice('ps-20mm_cube.obj', { binaryPath: '/nonexistent/prusa-slicer' }));
    expect(error.code).toBe('unavailable');
    expect(await detectPrusaSlicer({ binaryPath: '/bin/true' })).toEqual({ available: false, version: null, path: '/bin/true' });
  });
});
