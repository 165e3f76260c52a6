import { mkdir } from 'node:fs/promises';
import { SlicingRefusedError, type Slicer } from '../../modules/designs/slicer.ts';
import { slicePlateWithPrusaSlicer } from './plate-slicing.ts';
import { detectPrusaSlicer, isSlicerError, removeStaleSlicerScratch, sliceWithPrusaSlicer } from './prusa-slicer.ts';

/** Each run's limits, enforced by the operating system (docs/slicer-sandbox.md). */
export interface SlicerRunLimits {
  /** RLIMIT_CPU: the kernel sends SIGXCPU at this many seconds of CPU time (SIGKILL 5 s later). */
  cpuSeconds: number;
  /** RLIMIT_AS: allocations past this address space fail (std::bad_alloc). */
  memoryBytes: number;
  /** Wall clock, a safety net for a run that hangs without using CPU: the process group is killed. */
  timeoutMs: number;
}

/**
 * PrusaSlicer behind the designs module's Slicer port, or null when it is not installed. What the
 * slicer says about a model (does not fit, empty, too slow, too big, crashed on it) will not change
 * on a retry, so it becomes SlicingRefusedError; only a missing binary propagates for a retry.
 */
export async function createPrusaSlicer(options: { binaryPath?: string; scratchRoot: string; limits: SlicerRunLimits }): Promise<Slicer | null> {
  const detected = await detectPrusaSlicer(options.binaryPath ? { binaryPath: options.binaryPath } : {});
  if (!detected.available || !detected.path) return null;
  await mkdir(options.scratchRoot, { recursive: true });
  await removeStaleSlicerScratch({ scratchRoot: options.scratchRoot });
  const { limits } = options;
  const run = {
    binaryPath: detected.path,
    scratchRoot: options.scratchRoot,
    cpuLimitSeconds: limits.cpuSeconds,
    memoryLimitBytes: limits.memoryBytes,
    timeoutMs: limits.timeoutMs,
  };
  return {
    version: detected.version ?? 'unknown',
    async slice(input) {
      try {
        const result = await sliceWithPrusaSlicer({ ...input, ...run });
        return { grams: result.grams, printSeconds: result.printSeconds, gcodePath: result.gcodePath };
      } catch (error) {
        throw refusalOf(error);
      }
    },
    async slicePlate(input) {
      try {
        const result = await slicePlateWithPrusaSlicer({ ...input, ...run });
        return { grams: result.grams, printSeconds: result.printSeconds, gcodePath: result.gcodePath, objects: result.objects };
      } catch (error) {
        throw refusalOf(error);
      }
    },
  };
}

function refusalOf(error: unknown): unknown {
  if (!isSlicerError(error) || error.code === 'unavailable') return error;
  // Past a limit, the same settings would hit it again: say what would change the outcome.
  const overLimit = error.code === 'timeout' || error.code === 'memory';
  return new SlicingRefusedError(overLimit ? `${error.message}. These settings need more than one slicing run may use; thicker layers or less infill need less` : error.message);
}
