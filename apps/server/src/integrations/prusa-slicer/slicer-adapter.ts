import { mkdir } from 'node:fs/promises';
import { SlicingRefusedError, type Slicer } from '../../modules/designs/slicer.ts';
import { detectPrusaSlicer, isSlicerError, removeStaleSlicerScratch, sliceWithPrusaSlicer } from './prusa-slicer.ts';

/**
 * PrusaSlicer behind the designs module's Slicer port, or null when it is not installed. What the
 * slicer says about a model (does not fit, empty, too slow, too big, crashed on it) will not change
 * on a retry, so it becomes SlicingRefusedError; only a missing binary propagates for a retry.
 */
export async function createPrusaSlicer(options: { binaryPath?: string; scratchRoot: string }): Promise<Slicer | null> {
  const detected = await detectPrusaSlicer(options.binaryPath ? { binaryPath: options.binaryPath } : {});
  if (!detected.available || !detected.path) return null;
  await mkdir(options.scratchRoot, { recursive: true });
  await removeStaleSlicerScratch({ scratchRoot: options.scratchRoot });
  const binaryPath = detected.path;
  return {
    version: detected.version ?? 'unknown',
    async slice(input) {
      try {
        const result = await sliceWithPrusaSlicer({ ...input, binaryPath, scratchRoot: options.scratchRoot });
        return { grams: result.grams, printSeconds: result.printSeconds, gcodePath: result.gcodePath };
      } catch (error) {
        if (isSlicerError(error) && error.code !== 'unavailable') {
          throw new SlicingRefusedError(error.message);
        }
        throw error;
      }
    },
  };
}
