import type { SlicingScheduler } from '../modules/designs/design-service.ts';
import type { DesignService } from '../modules/designs/design-service.ts';
import type { FileStorage } from '../modules/designs/file-storage.ts';
import { SlicingRefusedError, type Slicer } from '../modules/designs/slicer.ts';
import type { SlicingTurns } from '../modules/designs/slicing-turn-repository.ts';
import type { FarmFiles, PlateFileRequest, PrintFileRequest } from '../modules/production/farm-dispatcher.ts';
import type { PrintJobRepository } from '../modules/production/print-job-repository.ts';
import { QUEUES, stableJobId, type JobQueue } from './job-queue.ts';

/** Exact slicing of a print configuration, as a job (at least once; runSlicing is idempotent). */
export interface SlicePrintConfigJob {
  configId: string;
  settingsVersion: number;
  /** The request's turn (slicing-turn-repository.ts); absent on jobs queued before turns existed. */
  turn?: number;
}

/** pg-boss priorities are 32-bit integers, served highest first: a turn is its priority negated. */
const LOWEST_PRIORITY = -(2 ** 31) + 1;
export const priorityOfTurn = (turn: number): number => Math.max(LOWEST_PRIORITY, -turn);

/**
 * Exact quotes are served fairly per seller: each request takes its seller's next turn, and the
 * queue runs the lowest turn first, so one seller's backlog delays another seller's first exact
 * quote by at most the run in progress (docs/jobs.md, "Fair slicing").
 */
export function slicingScheduler(queue: JobQueue | null, slicer: Slicer | null, turns: SlicingTurns): SlicingScheduler {
  if (!queue || !slicer) return { available: false, schedule: async () => undefined };
  return {
    available: true,
    async schedule(configId, settingsVersion, ownerId) {
      const turn = await turns.next(ownerId);
      await queue.send<SlicePrintConfigJob>(
        QUEUES.slicePrintConfig,
        { configId, settingsVersion, turn },
        { singletonKey: `${configId}:${settingsVersion}`, priority: priorityOfTurn(turn) },
      );
    },
  };
}

/** `afterSlice` runs once the exact slice is recorded (the listing images' render, docs/listing-images.md). */
export async function workSlicingJobs(
  queue: JobQueue,
  slicer: Slicer,
  designs: DesignService,
  turns: SlicingTurns,
  afterSlice: (configId: string, settingsVersion: number) => Promise<void>,
): Promise<void> {
  await queue.work<SlicePrintConfigJob>(QUEUES.slicePrintConfig, async (job) => {
    if (job.turn !== undefined) await turns.started(job.turn);
    await designs.runSlicing(slicer, job.configId, job.settingsVersion);
    await afterSlice(job.configId, job.settingsVersion);
  });
}

/**
 * The print farm's files (docs/print-farm.md): a configuration sliced for one printer profile, asked
 * for when a job first meets a printer of that profile. The job id is derived from the request, so
 * asking twice queues it once. The farm's files have their own queue and worker (a lane beside the
 * quotes'), so sellers' quotes never hold up printing and the farm never holds up a quote.
 */
export function printFileScheduler(queue: JobQueue): Pick<FarmFiles, 'requestSlicing' | 'requestPlateSlicing'> {
  return {
    async requestSlicing(request) {
      const key = `${request.configId}:${request.settingsVersion}:${request.profileKey}`;
      await queue.send<PrintFileRequest>(QUEUES.slicePrintFile, request, { id: stableJobId(QUEUES.slicePrintFile, key) });
    },
    async requestPlateSlicing(request) {
      await queue.send<PlateFileRequest>(QUEUES.slicePlate, request, { id: stableJobId(QUEUES.slicePlate, request.plateFileId) });
    },
  };
}

/** Slices a configuration for a printer profile and records the file (or PrusaSlicer's refusal) for the dispatcher. */
export async function workPrintFileJobs(queue: JobQueue, slicer: Slicer, designs: DesignService, jobs: PrintJobRepository): Promise<void> {
  await queue.work<PrintFileRequest>(QUEUES.slicePrintFile, async (request) => {
    const { configId, settingsVersion, profileKey } = request;
    const gcodeKey = `gcode/${configId}-v${settingsVersion}-${profileKey}.gcode`;
    try {
      const sliced = await designs.slicePrintFile(slicer, configId, settingsVersion, request.printer, gcodeKey);
      await jobs.finishPrintFile(configId, settingsVersion, profileKey, sliced ? { gcodeKey, ...sliced } : { error: 'The print configuration changed or was deleted meanwhile' });
    } catch (error) {
      if (!(error instanceof SlicingRefusedError)) throw error;
      await jobs.finishPrintFile(configId, settingsVersion, profileKey, { error: error.message });
    }
  });
}

/**
 * Slices a plate of several parts for the printer it was assigned to and records its file and
 * objects, or PrusaSlicer's refusal (the plate's check included), for the dispatcher, which splits
 * a refused plate back into single parts (docs/print-farm.md, "Plates").
 */
export async function workPlateFileJobs(queue: JobQueue, slicer: Slicer, designs: DesignService, jobs: PrintJobRepository, storage: FileStorage): Promise<void> {
  await queue.work<PlateFileRequest>(QUEUES.slicePlate, async (request) => {
    const gcodeKey = `gcode/plate-${request.plateFileId}.gcode`;
    try {
      const sliced = await designs.slicePlateFile(slicer, request.configId, request.settingsVersion, request.printer, request.parts, gcodeKey);
      const kept = await jobs.finishPlateFile(request.plateFileId, sliced ? { gcodeKey, ...sliced } : { error: 'The print configuration changed or was deleted meanwhile' });
      // The plate ended (cancelled) while it was sliced: no one will print this file.
      if (sliced && !kept) await storage.delete(gcodeKey);
    } catch (error) {
      if (!(error instanceof SlicingRefusedError)) throw error;
      await jobs.finishPlateFile(request.plateFileId, { error: error.message });
    }
  });
}
