import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { PlateObject } from '../../modules/production/printer-driver.ts';
import { detectPrusaSlicer } from './detect.ts';
import { SlicerError } from './errors.ts';
import { readGcodeSummary } from './gcode-summary.ts';
import {
  PLATE_LABEL,
  plateGcodeProblems,
  plateInputName,
  withExcludeObjectMarkers,
  type PlateGcodePart,
} from './plate-gcode.ts';
import { composePrintProfile } from './print-profile.ts';
import {
  DEFAULT_TIMEOUT_MS,
  PROFILE_PATH,
  type ModelFormat,
  type SliceInput,
  type SliceResult,
  type SlicePrinter,
} from './prusa-slicer.ts';
import { DEFAULT_SANDBOX_LIMITS, buildSandboxCommand, probeSandbox, runSandboxed } from './sandbox.ts';
import { handOver, makePlateScratch, traversableByOthers } from './scratch.ts';
import { classifyFailure, extractWarnings, outputForLogs } from './slicer-messages.ts';

/**
 * Slices a plate of several parts in one PrusaSlicer run (issue 22, docs/print-farm.md "Plates"),
 * at the places Layerline's packer chose: PrusaSlicer's own arrange leaves out what does not fit,
 * and a plate must hold exactly the parts the farm put on it.
 *
 * Each part is first turned and moved in a run of its own (`--export-stl --rotate 90 --center x,y`,
 * which writes the mesh where it will print), named by its label; then one run slices them all
 * with `--merge --dont-arrange` (merged into one plate, "keep their original XY coordinates"), so
 * each part is an object labelled `<label>.stl id:<i>`. The G-code is checked to print every part,
 * each inside its own footprint, and gets Klipper's exclude_object markers. Every run is sandboxed
 * like a quote's (docs/slicer-sandbox.md); the per-part runs read no settings from the model files,
 * and the plate run reads only the meshes they wrote.
 */

export interface PlateSlicePart extends PlateGcodePart {
  /** A server-side path; copied, never opened in place. */
  readonly modelPath: string;
  readonly format: ModelFormat;
  /** 90 when the packer turned the part about Z. */
  readonly rotationDeg: 0 | 90;
}

export interface PlateSliceInput extends Omit<SliceInput, 'modelPath' | 'format' | 'printer'> {
  /** In label order: a part's index here is its object id in the G-code. */
  readonly parts: readonly PlateSlicePart[];
  readonly printer: SlicePrinter;
}

export interface PlateSliceResult extends SliceResult {
  /** The parts as the printer knows them (PrintFile.objects). */
  readonly objects: PlateObject[];
}

const num = (n: number): string => String(Number(n.toFixed(3)));

function validatePlate(input: PlateSliceInput): void {
  const bad = (what: string): never => {
    throw new SlicerError('failed', `Invalid plate: ${what}`);
  };
  if (input.parts.length === 0) bad('it has no parts');
  const labels = new Set<string>();
  for (const part of input.parts) {
    if (!PLATE_LABEL.test(part.label)) bad(`label “${part.label}” must be 1 to 40 letters, digits or underscores`);
    if (labels.has(part.label)) bad(`label ${part.label} is used twice`);
    labels.add(part.label);
    if (!['stl', 'obj', '3mf'].includes(part.format)) bad(`format ${String(part.format)}`);
    const { bedMm } = input.printer;
    if (!(part.centerX > 0 && part.centerX < bedMm.x && part.centerY > 0 && part.centerY < bedMm.y))
      bad(`${part.label} is placed off the bed`);
  }
}

export async function slicePlateWithPrusaSlicer(input: PlateSliceInput): Promise<PlateSliceResult> {
  validatePlate(input);
  const slicer = await detectPrusaSlicer(input.binaryPath === undefined ? {} : { binaryPath: input.binaryPath });
  if (!slicer.available || !slicer.path || !slicer.version) {
    throw new SlicerError('unavailable', slicer.path ? `${slicer.path} is not PrusaSlicer` : 'PrusaSlicer is not installed');
  }
  const isolation = await probeSandbox();
  if (!isolation.prlimit) throw new SlicerError('unavailable', 'prlimit (util-linux) is required to sandbox the slicer');

  const root = path.resolve(input.scratchRoot ?? os.tmpdir());
  const timeoutMs = input.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const limits = {
    ...DEFAULT_SANDBOX_LIMITS,
    ...(input.memoryLimitBytes === undefined ? {} : { addressSpaceBytes: input.memoryLimitBytes }),
    ...(input.cpuLimitSeconds === undefined ? {} : { cpuSeconds: input.cpuLimitSeconds }),
  };
  const warnings = [...isolation.warnings];
  let jobIsolation = isolation;
  if (isolation.dropTo && !(await traversableByOthers(root))) {
    jobIsolation = { ...isolation, dropTo: null };
    warnings.push(`running the slicer as root: ${root} is not searchable by nobody`);
  }
  for (const part of input.parts) {
    const model = await stat(part.modelPath).catch((error: unknown) => {
      throw new SlicerError('failed', `The model file of ${part.label} could not be read`, { cause: error });
    });
    if (!model.isFile() || model.size === 0) throw new SlicerError('failed', `The model file of ${part.label} is empty`);
  }

  const profile = await composePrintProfile({
    baseProfile: await readFile(PROFILE_PATH, 'utf8'),
    printer: input.printer,
    filament: input.settings.filament,
    bundles: { binaryPath: slicer.path, ...(input.profilesDir ? { profilesDir: input.profilesDir } : {}) },
  });
  const scratch = await makePlateScratch(
    root,
    input.parts.map((p) => ({ path: p.modelPath, format: p.format })),
    profile,
    jobIsolation.dropTo,
  ).catch((error: unknown) => {
    throw new SlicerError('failed', `Could not prepare the slicing directory: ${(error as Error).message}`, { cause: error });
  });
  const started = performance.now();
  try {
    const run = async (args: string[]) => {
      const command = buildSandboxCommand({ command: slicer.path!, args, workDir: scratch.workDir, limits, isolation: jobIsolation });
      const result = await runSandboxed(command, { timeoutMs, ...(input.signal ? { signal: input.signal } : {}) });
      const context = { scratchDir: scratch.dir, timeoutMs, cpuSeconds: limits.cpuSeconds, memoryLimitBytes: limits.addressSpaceBytes };
      if (result.timedOut || result.aborted || result.exitCode !== 0) throw classifyFailure(result, context);
      return result;
    };
    const datadir = path.join(scratch.workDir, 'datadir');
    const placed: string[] = [];
    for (const [i, part] of input.parts.entries()) {
      const out = path.join(scratch.workDir, plateInputName(part.label));
      await run([
        '--loglevel', '1', '--datadir', datadir, '--export-stl',
        ...(part.rotationDeg === 90 ? ['--rotate', '90'] : []),
        '--center', `${num(part.centerX)},${num(part.centerY)}`,
        '--output', out, scratch.modelFiles[i]!,
      ]);
      placed.push(out);
    }
    const { settings } = input;
    const plate = await run([
      '--loglevel', '1', '--datadir', datadir, '--load', scratch.profileFile,
      '--layer-height', num(settings.layerHeightMm),
      '--fill-density', `${num(settings.infillPercent)}%`,
      '--filament-density', num(settings.densityGPerCm3),
      '--export-gcode', '--merge', '--dont-arrange',
      '--output', scratch.outFile, ...placed,
    ]);

    const summary = await readGcodeSummary(scratch.outFile).catch(() => null);
    if (!summary || summary.grams <= 0) {
      throw new SlicerError('failed', 'The slicer finished but wrote no usable G-code for the plate', {
        exitCode: plate.exitCode, pid: plate.pid, output: outputForLogs(plate, scratch.dir),
      });
    }
    const gcode = await readFile(scratch.outFile, 'utf8');
    const problems = plateGcodeProblems(gcode, input.parts);
    if (problems.length > 0) throw new SlicerError('failed', `The plate's G-code is not the plate: ${problems.join('; ')}`);
    await writeFile(scratch.outFile, withExcludeObjectMarkers(gcode, input.parts));
    warnings.push(...extractWarnings(plate.stdout, scratch.dir));
    const gcodePath = await handOver(scratch.outFile, root);
    return {
      ...summary,
      gcodePath,
      warnings,
      slicerVersion: slicer.version,
      sliceMs: performance.now() - started,
      objects: input.parts.map((part, index) => ({ index, label: part.label })),
    };
  } finally {
    await rm(scratch.dir, { recursive: true, force: true, maxRetries: 2 });
  }
}
