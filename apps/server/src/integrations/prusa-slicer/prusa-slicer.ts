import { readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FilamentType, PrinterSlicerProfile } from '@layerline/contracts';
import { detectPrusaSlicer } from './detect.ts';
import { SlicerError } from './errors.ts';
import { readGcodeSummary } from './gcode-summary.ts';
import { composePrintProfile } from './print-profile.ts';
import { DEFAULT_SANDBOX_LIMITS, buildSandboxCommand, probeSandbox, runSandboxed } from './sandbox.ts';
import { handOver, makeScratch, traversableByOthers, type Scratch } from './scratch.ts';
import { classifyFailure, extractWarnings, outputForLogs } from './slicer-messages.ts';

/**
 * The quote engine's exact path: slice a model with PrusaSlicer 2.5 in a sandbox (see
 * docs/slicer-sandbox.md) and return its own grams and print time.
 */

export { detectPrusaSlicer, type DetectOptions, type PrusaSlicerInfo } from './detect.ts';
export { SlicerError, SLICER_ERROR_CODES, isSlicerError, type SlicerErrorCode } from './errors.ts';
export { buildSandboxCommand, probeSandbox, type SandboxCommand, type SandboxIsolation } from './sandbox.ts';
export { removeStaleSlicerScratch } from './scratch.ts';

export type ModelFormat = 'stl' | 'obj' | '3mf';

export interface SliceSettings {
  layerHeightMm: number;
  infillPercent: number;
  filament: FilamentType;
  densityGPerCm3: number;
}

/**
 * The farm printer the G-code is for (the part is centred on its bed): sliced with its printer
 * profile and the material's bundled filament profile (print-profile.ts). A bundled preset brings
 * its own bed and nozzle; custom G-code and no profile use these.
 */
export interface SlicePrinter {
  nozzleMm: number;
  bedMm: { x: number; y: number; z: number };
  /** Null or absent: Layerline's generic start and end G-code (no mesh bed levelling). */
  profile?: PrinterSlicerProfile | null;
}

export interface SliceInput {
  /** A server-side path; the file is copied, never opened by the slicer in place. */
  modelPath: string;
  format: ModelFormat;
  settings: SliceSettings;
  printer?: SlicePrinter;
  /** Where the per-job scratch directory and the returned G-code go; default os.tmpdir(). */
  scratchRoot?: string;
  /** Wall clock; default 180 s. The whole process group is killed at the limit. */
  timeoutMs?: number;
  /** Address space (RLIMIT_AS); default 2 GiB. */
  memoryLimitBytes?: number;
  /** CPU time (RLIMIT_CPU); default 120 s. */
  cpuLimitSeconds?: number;
  signal?: AbortSignal;
  /** The PrusaSlicer binary (path or name in PATH); the config module maps PRUSA_SLICER_PATH here. */
  binaryPath?: string;
  /** Where the vendor bundles are; default found beside the binary (vendor-bundles.ts). */
  profilesDir?: string;
}

export interface SliceResult {
  /** PrusaSlicer's `total filament used [g]` (computed with the density we passed). */
  grams: number;
  /** `estimated printing time (normal mode)`, in seconds. */
  printSeconds: number;
  filamentMm: number;
  filamentCm3: number;
  /**
   * The G-code, in its own file directly under scratchRoot (`layerline-gcode-<uuid>.gcode`,
   * mode 0600, owned by this process). The caller owns it: move it or delete it.
   */
  gcodePath: string;
  /** Slicer warnings ("Empty layer between ...") and any sandbox isolation that was unavailable. */
  warnings: string[];
  slicerVersion: string;
  /** Wall-clock time of the slicer run itself. */
  sliceMs: number;
}

export const DEFAULT_TIMEOUT_MS = 180_000;

/**
 * The base profile: a copy of /work/shared/models/prusaslicer-profile.ini: every key (261), see
 * docs/slicer-sandbox.md on why all. Quotes are sliced with it as it is; a farm printer's G-code
 * with the printer's and the material's bundled profiles over it.
 */
export const PROFILE_PATH = fileURLToPath(new URL('./profile.ini', import.meta.url));

/** PrusaSlicer 2.5's `filament_type` names. */
const FILAMENT_TYPE: Readonly<Record<FilamentType, string>> = {
  PLA: 'PLA',
  PETG: 'PET',
  ABS: 'ABS',
  ASA: 'ASA',
  TPU: 'FLEX',
  Nylon: 'NYLON',
};

const num = (n: number): string => String(Number(n.toFixed(4)));

function validate(input: SliceInput): void {
  const { layerHeightMm, infillPercent, densityGPerCm3, filament } = input.settings;
  const bad = (what: string): never => {
    throw new SlicerError('failed', `Invalid slicing settings: ${what}`);
  };
  if (!['stl', 'obj', '3mf'].includes(input.format)) bad(`format ${String(input.format)}`);
  if (!(layerHeightMm >= 0.05 && layerHeightMm <= 0.4)) bad('layerHeightMm must be 0.05 to 0.4 (0.4 mm nozzle)');
  if (!(infillPercent >= 0 && infillPercent <= 100)) bad('infillPercent must be 0 to 100');
  if (!(densityGPerCm3 > 0.5 && densityGPerCm3 < 3)) bad('densityGPerCm3 must be between 0.5 and 3');
  if (!(filament in FILAMENT_TYPE)) bad(`filament ${String(filament)}`);
  if (input.printer) {
    const { nozzleMm, bedMm } = input.printer;
    if (!(nozzleMm >= 0.1 && nozzleMm <= 2)) bad('nozzleMm must be 0.1 to 2');
    if (![bedMm.x, bedMm.y, bedMm.z].every((v) => v >= 10 && v <= 2000)) bad('the bed must be 10 to 2000 mm on each axis');
  }
  for (const [name, value] of [['timeoutMs', input.timeoutMs], ['memoryLimitBytes', input.memoryLimitBytes], ['cpuLimitSeconds', input.cpuLimitSeconds]] as const) {
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) bad(`${name} must be a positive number`);
  }
}

/** A farm printer's config comes whole from print-profile.ts; a quote's material is only named (its grams need no more). */
function slicerArgs(scratch: Scratch, settings: SliceSettings, forPrinter: boolean): string[] {
  return [
    '--loglevel', '1',
    '--datadir', path.join(scratch.workDir, 'datadir'),
    '--load', scratch.profileFile,
    '--layer-height', num(settings.layerHeightMm),
    '--fill-density', `${num(settings.infillPercent)}%`,
    '--filament-density', num(settings.densityGPerCm3),
    ...(forPrinter ? [] : ['--filament-type', FILAMENT_TYPE[settings.filament]]),
    '--export-gcode',
    '--output', scratch.outFile,
    scratch.modelFile,
  ];
}

export async function sliceWithPrusaSlicer(input: SliceInput): Promise<SliceResult> {
  validate(input);
  const slicer = await detectPrusaSlicer(input.binaryPath === undefined ? {} : { binaryPath: input.binaryPath });
  if (!slicer.available || !slicer.path || !slicer.version) {
    throw new SlicerError('unavailable', slicer.path ? `${slicer.path} is not PrusaSlicer` : 'PrusaSlicer is not installed');
  }
  const isolation = await probeSandbox();
  if (!isolation.prlimit) throw new SlicerError('unavailable', 'prlimit (util-linux) is required to sandbox the slicer');
  if (input.signal?.aborted) throw new SlicerError('failed', 'Slicing was cancelled', { cause: input.signal.reason });

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

  const model = await stat(input.modelPath).catch((error: unknown) => {
    throw new SlicerError('failed', 'The model file could not be read', { cause: error });
  });
  if (!model.isFile()) throw new SlicerError('failed', 'The model path is not a file');
  if (model.size === 0) throw new SlicerError('failed', 'The model file is empty');

  const baseProfile = await readFile(PROFILE_PATH, 'utf8');
  const profile = input.printer
    ? await composePrintProfile({
        baseProfile,
        printer: input.printer,
        filament: input.settings.filament,
        bundles: { binaryPath: slicer.path, ...(input.profilesDir ? { profilesDir: input.profilesDir } : {}) },
      })
    : baseProfile;

  let scratch: Scratch | undefined;
  try {
    try {
      scratch = await makeScratch(root, input.format, input.modelPath, profile, jobIsolation.dropTo);
    } catch (error) {
      throw new SlicerError('failed', `Could not prepare the slicing directory: ${(error as Error).message}`, { cause: error });
    }
    const command = buildSandboxCommand({ command: slicer.path, args: slicerArgs(scratch, input.settings, input.printer !== undefined), workDir: scratch.workDir, limits, isolation: jobIsolation });
    const run = await runSandboxed(command, { timeoutMs, ...(input.signal ? { signal: input.signal } : {}) });
    const context = { scratchDir: scratch.dir, timeoutMs, cpuSeconds: limits.cpuSeconds, memoryLimitBytes: limits.addressSpaceBytes };
    if (run.timedOut || run.aborted || run.exitCode !== 0) throw classifyFailure(run, context);

    const summary = await readGcodeSummary(scratch.outFile).catch(() => null);
    if (!summary) {
      throw new SlicerError('failed', 'The slicer finished but wrote no usable G-code summary', {
        exitCode: run.exitCode, pid: run.pid, output: outputForLogs(run, scratch.dir),
      });
    }
    if (summary.grams <= 0 || summary.filamentMm <= 0) {
      throw new SlicerError('empty-print', 'Nothing printable came out of the model: the G-code extrudes no filament', { pid: run.pid });
    }
    warnings.push(...extractWarnings(run.stdout, scratch.dir));
    if (run.outputTruncated) warnings.push('slicer output was longer than the capture limit and was cut');
    const gcodePath = await handOver(scratch.outFile, root);
    return { ...summary, gcodePath, warnings, slicerVersion: slicer.version, sliceMs: run.elapsedMs };
  } finally {
    if (scratch) await rm(scratch.dir, { recursive: true, force: true, maxRetries: 2 });
  }
}
