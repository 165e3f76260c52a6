import { createHash } from 'node:crypto';
import { clearsItself, isPrinterFree, PRINT_JOB_ON_PRINTER, type PrinterKind, type PrinterSlicerProfile, type PrinterSpool, type PrinterStatus } from '@layerline/contracts';
import { verdictOnFinish, withEjectTail } from './continuous-printing.ts';
import {
  DEFAULT_PLANNER_OPTIONS,
  DispatchQueue,
  gramsNeeded,
  planDispatch,
  type PlannerJob,
  type PlannerPrinter,
  type PowerGroup,
} from './dispatch-planner.ts';
import type { FileStorage } from '../designs/file-storage.ts';
import type { SlicerPlatePart, SlicerPrinter } from '../designs/slicer.ts';
import { packPlate } from './plate-packer.ts';
import { actorIdOf, type FarmActor, type JobOutcomes } from './job-outcomes.ts';
import type { PrintJobRepository, PrintJobRow, QueueEntryRow } from './print-job-repository.ts';
import type { PlateObject, PrinterDriverFactory, PrinterFailure, PrintFile } from './printer-driver.ts';
import { fileMatch, readOutcome, readPrinter, type Reading } from './printer-reading.ts';
import { clearingOf, type PrinterRepository, type PrinterRow } from './printer-repository.ts';

/**
 * The farm at work (docs/print-farm.md, "The dispatcher"): one `tick` reads every printer, lets the
 * autopilot take its steps, then makes one dispatch decision and starts what it assigned. A tick
 * runs as a job on the queue (one at a time across every process: policy 'stately'), and every
 * write is compare-and-set, so two ticks racing, or a process killed mid-tick, lose nothing:
 * - a job is assigned only while `queued`, and the partial unique index keeps one job per printer;
 * - a job left `assigned` (killed before its upload) is started by the next tick;
 * - a job left `uploading` is settled by the printer's own status (printing our file, or not).
 * A printer that stops answering mid-print is shown as connection lost; its job stays `printing`
 * and is never restarted silently: the printer's next answer settles it.
 */

/** Where a file is uploaded on every printer: one name per job, so a repeated upload replaces it. */
export const printFileName = (jobId: string) => `layerline-${jobId}.gcode`;

/** The file a job's print is in: its own, or its plate lead's (issue 22). */
const fileNameOf = (job: Pick<PrintJobRow, 'id' | 'plateLeadId'>) => printFileName(job.plateLeadId ?? job.id);

/**
 * The plate_file row of a plate: its parts in plate order, the settings and the printer profile, so
 * a plate formed again with other parts, or for another profile, is sliced again.
 */
export const plateFileIdOf = (parts: readonly Pick<PrintJobRow, 'id'>[], settingsVersion: number, profileKey: string) =>
  createHash('sha256').update([...parts.map((p) => p.id), String(settingsVersion), profileKey].join('\0')).digest('hex').slice(0, 32);

/** A part's object on its plate: its index and a label Klipper and PrusaSlicer take as it is. */
export const plateObjectOf = (job: Pick<PrintJobRow, 'id' | 'plateIndex'>): PlateObject => ({
  index: job.plateIndex ?? 0,
  label: `P${job.plateIndex ?? 0}_${job.id.replace(/-/g, '').slice(0, 8)}`,
});

/**
 * How long a plate waits for its slicing before it is split into single parts: past the
 * 'slice-plate' queue's three attempts of at most 15 minutes each and their backoff, the job failed
 * for good (or was lost with a process killed between the claim and the request), and a printer
 * must not hold a plate that will never come.
 */
const PLATE_SLICING_PATIENCE_MS = 60 * 60_000;

/** How many printed jobs and packed orders the autopilot looks at per tick (those for a person are skipped). */
const AUTOPILOT_PAGE = 500;

/** The seconds an upload may stay unsettled before the printer's status decides it. */
const UPLOAD_SETTLE_MS = 120_000;

export interface FarmDispatcherOptions {
  /** FARM_AUTOPILOT: confirm beds, QC, spools and packing by itself after `delayMs`. */
  readonly autopilot: { readonly enabled: boolean; readonly delayMs: number };
  /** FARM_PARTS_PER_PLATE (issue 22): at most this many parts on one plate; 1 prints each alone. */
  readonly partsPerPlate?: number;
  readonly now?: () => number;
}

/** What the dispatcher needs of the designs module and the job queue to get a job's file for a printer. */
export interface FarmFiles {
  /** The configuration's settings version now, or null when it was deleted. */
  settingsVersion(configId: string): Promise<number | null>;
  /** Queues the slicing of a configuration for a printer profile ('slice-print-file'). */
  requestSlicing(request: PrintFileRequest): Promise<void>;
  /** Queues the slicing of a plate for the printer it was assigned to ('slice-plate'). */
  requestPlateSlicing(request: PlateFileRequest): Promise<void>;
}

/** A plate of copies of one configuration, to be sliced for one printer (docs/jobs.md, "slice-plate"). */
export interface PlateFileRequest {
  /** The plate_file row the result goes to (plateFileIdOf). */
  readonly plateFileId: string;
  readonly configId: string;
  readonly settingsVersion: number;
  readonly printer: SlicerPrinter;
  /** In plate order: a part's place in the list is its index, its object id in the G-code and in a Bambu package. */
  readonly parts: readonly Omit<SlicerPlatePart, 'modelPath' | 'format'>[];
}

export interface PrintFileRequest {
  readonly configId: string;
  readonly settingsVersion: number;
  readonly profileKey: string;
  readonly printer: SlicerPrinter;
}

/**
 * A printer's slicing profile: its nozzle, build volume and printer profile, and the key its files
 * are stored under: `n<nozzle>-<x>x<y>x<z>-<profile>`, the profile being `generic` (none),
 * `b<hash>` (a bundled preset: vendor and name) or `c<hash>` (custom start and end G-code), so
 * changing any of them slices the configuration again. The material is part of the configuration.
 */
export function printerProfileOf(row: Pick<PrinterRow, 'nozzleMm' | 'buildXMm' | 'buildYMm' | 'buildZMm' | 'slicerProfile'>): { key: string; printer: SlicerPrinter } {
  const mm = (n: number) => String(Math.round(n * 1000) / 1000);
  const profile = (row.slicerProfile as PrinterSlicerProfile | null) ?? null;
  return {
    key: `n${mm(row.nozzleMm)}-${mm(row.buildXMm)}x${mm(row.buildYMm)}x${mm(row.buildZMm)}-${profileIdentity(profile)}`,
    printer: { nozzleMm: row.nozzleMm, bedMm: { x: row.buildXMm, y: row.buildYMm, z: row.buildZMm }, profile },
  };
}

function profileIdentity(profile: PrinterSlicerProfile | null): string {
  if (!profile) return 'generic';
  if (profile.kind === 'bambulab') return `bbl-${profile.model.replace(/\W+/g, '-').toLowerCase()}`;
  const parts = profile.kind === 'bundled' ? [profile.vendor, profile.preset] : [profile.startGcode, profile.endGcode];
  return `${profile.kind === 'bundled' ? 'b' : 'c'}${createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 16)}`;
}

export interface TickReport {
  readonly polled: number;
  readonly assigned: number;
  readonly started: number;
  readonly decisionMs: number;
}

/**
 * A printer as the planner sees it, from its row, the job it holds and the farm's power groups
 * (by id; a group missing from `groups` staggers nothing).
 */
export function plannerPrinterOf(
  row: PrinterRow,
  holdsJob: boolean,
  groups: ReadonlyMap<string, PowerGroup> = new Map(),
): PlannerPrinter {
  const state = row.lastState as PrinterStatus | null;
  const loaded = (row.spools as PrinterSpool[]).find((s) => s.loaded) ?? null;
  return {
    id: row.id,
    name: row.name,
    bed: { x: row.buildXMm, y: row.buildYMm, z: row.buildZMm },
    nozzleMm: row.nozzleMm,
    loaded: loaded
      ? { material: loaded.material, colour: loaded.colourHex.toLowerCase(), gramsLeft: loaded.gramsLeft }
      : null,
    materials: row.materials,
    enclosed: row.enclosed,
    flagged: row.attention !== null,
    group: row.groupId === null ? null : (groups.get(row.groupId) ?? null),
    online: state !== null && row.lastError === null && state.state !== 'offline' && state.state !== 'error' && state.state !== 'unknown',
    idle: !holdsJob && state !== null && isPrinterFree(state.state),
    bedClear: row.bedConfirmedClear,
    paused: row.status === 'paused',
    retired: row.status === 'retired',
    lastStartAt: row.lastStartedAt?.getTime() ?? null,
  };
}

/** A queued job as the planner sees it. */
export function plannerJobOf(
  job: Pick<
    PrintJobRow,
    | 'id' | 'seq' | 'sizeXMm' | 'sizeYMm' | 'sizeZMm' | 'material' | 'colour' | 'nozzleMm' | 'printSeconds' | 'grams'
    | 'placedAt' | 'dueAt' | 'rush' | 'pinnedPrinterId' | 'manualKey' | 'printConfigId' | 'printsAlone'
  >,
): PlannerJob {
  return {
    id: job.id,
    size: { x: job.sizeXMm, y: job.sizeYMm, z: job.sizeZMm },
    material: job.material,
    colour: job.colour,
    nozzleMm: job.nozzleMm,
    printSeconds: job.printSeconds,
    grams: job.grams,
    orderPlacedAt: job.placedAt.getTime(),
    dueAt: job.dueAt?.getTime() ?? null,
    sellerPriority: 0,
    rush: job.rush,
    pinnedPrinterId: job.pinnedPrinterId,
    priorityOverride: job.manualKey,
    seq: job.seq,
    plateKey: job.printsAlone ? null : job.printConfigId,
  };
}

/** The bytes of a simulation file: what the simulated printer needs, said honestly at the top. */
export function simulationFile(job: PrintJobRow): Uint8Array {
  return new TextEncoder().encode(
    [
      '; Layerline simulation file: PrusaSlicer is not installed, so this job has no real G-code.',
      '; It prints only on a simulated printer, for as long as the estimate says.',
      `; part: ${job.partName.replace(/[\r\n]/g, ' ')}`,
      `; estimated printing time (normal mode) = ${Math.round(job.printSeconds)}s`,
      `; filament used [g] = ${job.grams.toFixed(2)}`,
      '',
    ].join('\n'),
  );
}

/** The simulation file of a plate: every part on it, printing for as long as their estimates together. */
export function plateSimulationFile(parts: readonly PrintJobRow[]): Uint8Array {
  const seconds = parts.reduce((sum, p) => sum + p.printSeconds, 0);
  const grams = parts.reduce((sum, p) => sum + p.grams, 0);
  return new TextEncoder().encode(
    [
      '; Layerline simulation file of a plate: PrusaSlicer is not installed, so these parts have no real G-code.',
      '; It prints only on a simulated printer, for as long as the estimates together say.',
      ...parts.map((p) => `; part ${plateObjectOf(p).label}: ${p.partName.replace(/[\r\n]/g, ' ')}`),
      ...parts.map((p) => `EXCLUDE_OBJECT_DEFINE NAME=${plateObjectOf(p).label}`),
      `; estimated printing time (normal mode) = ${Math.round(seconds)}s`,
      `; filament used [g] = ${grams.toFixed(2)}`,
      '',
    ].join('\n'),
  );
}

/** What a new spool holds (a 1 kg spool, the common size). */
const FULL_SPOOL_GRAMS = 1000;

/** How often the tick looks for orders whose every part passed QC but that were not moved on (a crash between the two). */
const PASSED_SWEEP_MS = 30_000;

/** The whole queue is read again at least this often; between, only the jobs changed since the last read. */
const QUEUE_FULL_READ_MS = 60_000;
/** A read of changes looks this far back past the last one (clocks of several processes, late commits). */
const QUEUE_CHANGES_MARGIN_MS = 10_000;

/**
 * The dispatcher's queue, kept between decisions (docs/print-farm.md, "Decision time"): reading
 * 10,000 queued jobs for every decision cost far more than the decision. Each decision reads only
 * the jobs changed since the last read (by `updated_at`, with a margin), and the whole queue once a
 * minute, so anything a read missed is corrected within a minute. A stale entry cannot do harm:
 * the assignment's compare-and-set checks the job and its order again.
 */
function createKeptQueue(jobs: PrintJobRepository, now: () => number, partsPerPlate: number) {
  let sliced = new DispatchQueue([], { partsPerPlate });
  let simulation = new DispatchQueue([], { partsPerPlate });
  let fullReadAt = -Infinity;
  let readAt = 0;
  const split = (rows: readonly QueueEntryRow[]) => ({
    sliced: new DispatchQueue(rows.filter((r) => r.fileKind !== 'simulation').map(plannerJobOf), { partsPerPlate }),
    simulation: new DispatchQueue(rows.filter((r) => r.fileKind === 'simulation').map(plannerJobOf), { partsPerPlate }),
  });
  const drop = (jobId: string) => {
    sliced.remove(jobId);
    simulation.remove(jobId);
  };
  return {
    async sync(): Promise<{ sliced: DispatchQueue; simulation: DispatchQueue }> {
      const t = now();
      if (t - fullReadAt >= QUEUE_FULL_READ_MS) {
        ({ sliced, simulation } = split(await jobs.queueEntries(null)));
        fullReadAt = t;
      } else {
        for (const row of await jobs.queueEntries(new Date(readAt - QUEUE_CHANGES_MARGIN_MS))) {
          drop(row.id);
          if (row.placeable) (row.fileKind === 'simulation' ? simulation : sliced).add(plannerJobOf(row));
        }
      }
      readAt = t;
      return { sliced, simulation };
    },
    taken: drop,
  };
}

export function createFarmDispatcher(deps: {
  jobs: PrintJobRepository;
  printers: PrinterRepository;
  drivers: PrinterDriverFactory;
  storage: FileStorage;
  files: FarmFiles;
  outcomes: JobOutcomes;
  options: FarmDispatcherOptions;
  /** Told when a printer that was answering stops (the farm's Discord alert); must not throw. */
  onPrinterOffline?: (printer: PrinterRow, reason: string) => Promise<void>;
  /** Told when a printer that clears itself stops for a person (continuous printing; the farm's Discord alert); must not throw. */
  onContinuousStopped?: (printer: PrinterRow, reason: string, jobId: string) => Promise<void>;
  log?: { error(obj: unknown, msg?: string): void };
}) {
  const { jobs, printers, drivers, storage, outcomes, options } = deps;
  const now = options.now ?? Date.now;
  const autopilot: FarmActor = { kind: 'autopilot' };

  const driverOf = (row: PrinterRow) => drivers(row.id, printers.connection(row));
  const keptQueue = createKeptQueue(jobs, now, options.partsPerPlate ?? 1);

  /** The jobs that print together with `job`: every part of its plate (itself too), or itself alone. */
  const partsOf = async (job: PrintJobRow): Promise<PrintJobRow[]> =>
    job.plateIndex === null ? [job] : jobs.plateParts(job.plateLeadId ?? job.id);
  let passedSweepAt = -Infinity;

  /**
   * The file a job prints on a printer: a simulation file, or the configuration's G-code sliced for
   * the printer's profile (nozzle, bed and printer profile: printerProfileOf), asked for the first time a job of that configuration
   * meets a printer of that profile. `wait`: it is being sliced; `refused`: PrusaSlicer refused it.
   */
  async function fileFor(job: PrintJobRow, row: PrinterRow): Promise<{ ready: PrintFile } | { wait: true } | { refused: string }> {
    const base = { fileName: printFileName(job.id), estimatedPrintSeconds: job.printSeconds, ...(job.layerCount ? { layerCount: job.layerCount } : {}) };
    // A printer that ejects its own parts gets its eject after the job (continuous printing); only plain G-code can take a tail.
    const ejecting = (bytes: Uint8Array) =>
      base.fileName.endsWith('.gcode') ? withEjectTail(bytes, clearingOf(row), row.connectionKind as PrinterKind) : bytes;
    if (job.fileKind === 'simulation') return { ready: { ...base, bytes: ejecting(simulationFile(job)) } };
    const version = await deps.files.settingsVersion(job.printConfigId);
    if (version === null) return { refused: `The print configuration of “${job.partName}” was deleted` };
    const profile = printerProfileOf(row);
    const file = await jobs.printFile(job.printConfigId, version, profile.key);
    if (!file) {
      if (await jobs.claimPrintFile(job.printConfigId, version, profile.key))
        await deps.files.requestSlicing({ configId: job.printConfigId, settingsVersion: version, profileKey: profile.key, printer: profile.printer });
      return { wait: true };
    }
    if (file.status === 'failed') return { refused: `PrusaSlicer could not slice “${job.partName}” for ${row.name}: ${file.error ?? 'no reason given'}` };
    if (file.status !== 'done' || !file.gcodeKey) return { wait: true };
    return { ready: { ...base, bytes: ejecting(await storage.readAll(file.gcodeKey)), estimatedPrintSeconds: file.printSeconds ?? job.printSeconds } };
  }

  /**
   * A plate's file. A simulated printer prints it from its parts' estimates (it reads no G-code, so
   * no plate is sliced for it); a real one gets the plate sliced for it by the 'slice-plate' job,
   * each part where the packer puts it (the planner's layout, made again from the parts and the bed:
   * packPlate is deterministic). A plate that cannot be laid out or sliced is split back into single
   * parts (`split`): nothing is lost, each part prints alone.
   */
  async function plateFileFor(lead: PrintJobRow, parts: readonly PrintJobRow[], row: PrinterRow): Promise<{ ready: PrintFile } | { wait: true } | { split: string }> {
    const base = { fileName: printFileName(lead.id), objects: parts.map(plateObjectOf) };
    if (lead.fileKind === 'simulation' || row.connectionKind === 'simulated')
      return { ready: { ...base, bytes: plateSimulationFile(parts), estimatedPrintSeconds: parts.reduce((sum, p) => sum + p.printSeconds, 0) } };
    const version = await deps.files.settingsVersion(lead.printConfigId);
    if (version === null) return { split: `The print configuration of “${lead.partName}” was deleted` };
    const profile = printerProfileOf(row);
    const id = plateFileIdOf(parts, version, profile.key);
    const file = await jobs.plateFile(id);
    if (!file) {
      const { bedMarginMm, plateGapMm, heightMarginMm } = DEFAULT_PLANNER_OPTIONS;
      const layout = packPlate(
        parts.map((p) => ({ id: p.id, size: { x: p.sizeXMm, y: p.sizeYMm, z: p.sizeZMm } })),
        { x: row.buildXMm, y: row.buildYMm, z: row.buildZMm },
        { edgeMarginMm: bedMarginMm, gapMm: plateGapMm, heightMarginMm },
      );
      if (!layout) return { split: `The plate led by “${lead.partName}” no longer fits ${row.name}'s bed` };
      const at = new Map(layout.map((p) => [p.id, p]));
      if (await jobs.claimPlateFile(id, lead.id)) {
        await deps.files.requestPlateSlicing({
          plateFileId: id,
          configId: lead.printConfigId,
          settingsVersion: version,
          printer: profile.printer,
          parts: parts.map((part) => {
            const { centerX, centerY, rotationDeg, width, depth } = at.get(part.id)!;
            return { label: plateObjectOf(part).label, centerX, centerY, rotationDeg, width, depth };
          }),
        });
      }
      return { wait: true };
    }
    if (file.status === 'failed') return { split: `PrusaSlicer could not slice the plate for ${row.name}: ${file.error ?? 'no reason given'}` };
    if (file.status === 'queued' && now() - file.createdAt.getTime() > PLATE_SLICING_PATIENCE_MS)
      return { split: `The plate for ${row.name} was not sliced within an hour (the slicing job keeps failing, or was lost)` };
    if (file.status !== 'done' || !file.gcodeKey || !file.objects) return { wait: true };
    // The objects the G-code (and a Bambu package's identify_ids) name must be the ones skipPart names.
    const sameObjects =
      file.objects.length === base.objects.length &&
      file.objects.every((o, i) => o.index === base.objects[i]!.index && o.label === base.objects[i]!.label);
    if (!sameObjects)
      return { split: `The plate sliced for ${row.name} does not hold the parts now on it` };
    const bytes = await storage.readAll(file.gcodeKey);
    return {
      ready: {
        ...base,
        bytes: withEjectTail(bytes, clearingOf(row), row.connectionKind as PrinterKind),
        estimatedPrintSeconds: file.printSeconds ?? parts.reduce((sum, p) => sum + p.printSeconds, 0),
      },
    };
  }

  /** Back to the queue (nothing printed): the printer is let go, and the reason kept for the board. */
  async function requeue(job: PrintJobRow, from: 'assigned' | 'uploading', reason: string): Promise<void> {
    // A plate goes back whole, each part on its own again: the next decision may plate them anew.
    for (const part of await partsOf(job)) {
      const moved = await jobs.move(part.id, from, 'queued', { printerId: null, spoolChange: null, failureReason: reason, plateLeadId: null, plateIndex: null });
      if (moved) await jobs.record({ kind: 'requeued', jobId: part.id, printerId: part.printerId, orderId: part.orderId, actorKind: 'system', detail: reason });
    }
  }

  /**
   * The print ended on the printer: a fact (time, material, reason) kept on each part it held. QC
   * stays per part, and a part that fails is reprinted alone (job-outcomes).
   */
  async function endPrint(held: PrintJobRow, row: PrinterRow, status: PrinterStatus | null, failure: string | null, qcNote: string | null = null): Promise<void> {
    for (const part of await partsOf(held)) await endPartPrint(part, row, status, failure, qcNote);
    await dropPlateFiles(held);
  }

  /**
   * A plate's G-code is made for one plate of one printer: once the print ended (or can no longer
   * end), no one prints it again, so it leaves storage. Its lead's other plates that never printed go too.
   */
  async function dropPlateFiles(held: PrintJobRow): Promise<void> {
    for (const key of await jobs.dropPlateFiles(held.plateLeadId ?? held.id)) {
      await storage.delete(key).catch((error: unknown) => deps.log?.error({ err: error, key }, 'could not delete a plate file'));
    }
  }

  async function endPartPrint(job: PrintJobRow, row: PrinterRow, status: PrinterStatus | null, failure: string | null, qcNote: string | null): Promise<void> {
    if (failure === null) {
      const printed = await jobs.move(job.id, 'printing', 'printed', { progress: 1, secondsLeft: 0, finishedAt: new Date(now()), qcNote });
      if (!printed) return;
      await jobs.setBedClear(row.id, false, null);
      await useFilament(row, job.grams);
      await jobs.record({ kind: 'printed', jobId: job.id, printerId: row.id, orderId: job.orderId, actorKind: 'printer', detail: qcNote ? `Printed on ${row.name}? ${qcNote}` : `Printed on ${row.name}` });
      await clearAfterPrint(job, row, status);
      return;
    }
    const failed = await jobs.move(job.id, 'printing', 'failed', {
      failureReason: failure,
      progress: status?.progress ?? job.progress,
      finishedAt: new Date(now()),
    });
    if (!failed) return;
    // Whatever is on the bed must come off before the next print.
    await jobs.setBedClear(row.id, false, null);
    await jobs.record({ kind: 'failed', jobId: job.id, printerId: row.id, orderId: job.orderId, actorKind: 'printer', detail: failure });
    if (clearsItself(clearingOf(row)))
      await stopContinuous(row, job.id, `The print failed on ${row.name}, so it did not clear its bed (${failure}): look at the bed, confirm it clear, then clear this flag`);
    await outcomes.jobFailed(failed, { kind: 'printer' });
  }

  /**
   * Continuous printing: after a good print, a printer that clears itself has a clear bed for the
   * next plate, when its end was clean and the cap of plates without a person allows it
   * (verdictOnFinish); otherwise it stops for a person.
   */
  async function clearAfterPrint(job: PrintJobRow, row: PrinterRow, status: PrinterStatus | null): Promise<void> {
    const verdict = verdictOnFinish({
      clearing: clearingOf(row),
      printerName: row.name,
      unattendedPlates: row.unattendedPlates,
      status,
      namesAnotherFile: status !== null && fileMatch(status, printFileName(job.id)) === 'other',
    });
    switch (verdict.kind) {
      case 'person':
        return;
      case 'cleared':
        if (await printers.clearedItself(row.id, row.unattendedPlates))
          await jobs.record({ kind: 'bed_clear', jobId: job.id, printerId: row.id, actorKind: 'printer', detail: verdict.detail });
        return;
      case 'cap':
        await jobs.record({ kind: 'continuous_limit', jobId: job.id, printerId: row.id, actorKind: 'system', detail: verdict.detail });
        await deps.onContinuousStopped?.(row, verdict.detail, job.id);
        return;
      case 'stop':
        return stopContinuous(row, job.id, verdict.reason);
    }
  }

  /** A printer that clears itself stops and calls a person: the board's flag (no job goes to it) and the farm's alert. */
  async function stopContinuous(row: PrinterRow, jobId: string, reason: string): Promise<void> {
    await printers.flagAttention(row.id, reason);
    await jobs.record({ kind: 'continuous_stopped', jobId, printerId: row.id, actorKind: 'system', detail: reason });
    await deps.onContinuousStopped?.(row, reason, jobId);
  }

  /** A printing job whose printer is gone: it failed (what it printed is lost to us), and is reprinted. */
  async function printerGone(job: PrintJobRow, reason: string): Promise<void> {
    for (const part of await partsOf(job)) {
      const failed = await jobs.move(part.id, 'printing', 'failed', { failureReason: reason, finishedAt: new Date(now()) });
      if (!failed) continue;
      await jobs.record({ kind: 'failed', jobId: part.id, printerId: part.printerId, orderId: part.orderId, actorKind: 'system', detail: reason });
      await outcomes.jobFailed(failed, { kind: 'system' });
    }
    await dropPlateFiles(job);
  }

  /** A print used its grams of the loaded spool (read again: a person may have changed spools meanwhile). */
  async function useFilament(row: PrinterRow, grams: number): Promise<void> {
    const current = (await printers.find(row.id)) ?? row;
    const spools = (current.spools as PrinterSpool[]).map((s) =>
      s.loaded ? { ...s, gramsLeft: Math.max(0, Math.round(s.gramsLeft - grams)) } : s,
    );
    await printers.setSpools(row.id, spools);
  }

  /**
   * One printer's status, and what it says of the job it holds: the decision comes from the one
   * table in printer-reading.ts; this only carries it out.
   */
  async function pollPrinter(row: PrinterRow, held: PrintJobRow | undefined): Promise<void> {
    const driver = driverOf(row);
    const answer = await driver.status();
    // Up at the last poll (an answer, and not 'offline'): going down now is news for the farm.
    const wasUp = row.lastError === null && row.lastState !== null && (row.lastState as PrinterStatus).state !== 'offline';
    if (!answer.ok) {
      await printers.recordState(row.id, { error: answer.failure.message });
      if (wasUp) await deps.onPrinterOffline?.(row, answer.failure.message);
    } else {
      await printers.recordState(row.id, { status: answer.value });
      if (wasUp && answer.value.state === 'offline') await deps.onPrinterOffline?.(row, `${row.name}'s host answers, but the printer behind it does not`);
    }
    if (!held || (held.status !== 'uploading' && held.status !== 'printing')) {
      if (answer.ok && answer.value.state === 'unknown') await carryOut(readPrinter('printing', answer, '', row.name), undefined, row);
      return;
    }
    const fileName = fileNameOf(held);
    let reading = readPrinter(held.status, answer, fileName, row.name);
    if (reading.kind === 'ask-outcome') reading = readOutcome(await driver.lastOutcome(fileName), row.name);
    await carryOut(reading, held, row, answer.ok ? answer.value : null);
  }

  /** Does what the reading says with the held job (none: only a flag can apply). */
  async function carryOut(reading: Reading, held: PrintJobRow | undefined, row: PrinterRow, status: PrinterStatus | null = null): Promise<void> {
    if (reading.kind === 'flag') return printers.flagAttention(row.id, reading.reason);
    if (!held) return;
    switch (reading.kind) {
      case 'started':
        return markPrinting(held, row);
      case 'progress':
        return void (await jobs.setProgress(held.id, status?.progress ?? null, status?.secondsLeft ?? null));
      case 'printed':
        return endPrint(held, row, status, null, reading.note);
      case 'failed':
        return endPrint(held, row, status, reading.reason);
      case 'requeue':
      case 'wait':
      case 'ask-outcome':
        // An upload that never became a print goes back to the queue once it had time to.
        if (held.status === 'uploading' && now() - held.updatedAt.getTime() > UPLOAD_SETTLE_MS)
          await requeue(held, 'uploading', `The upload to ${row.name} did not turn into a print; the job went back to the queue`);
        return;
    }
  }

  async function markPrinting(job: PrintJobRow, row: PrinterRow): Promise<void> {
    for (const part of await partsOf(job)) {
      const moved = await jobs.move(part.id, 'uploading', 'printing', { startedAt: new Date(now()), failureReason: null });
      if (!moved) continue;
      await jobs.record({ kind: 'printing', jobId: part.id, printerId: row.id, orderId: part.orderId, actorKind: 'printer', detail: `Printing on ${row.name}` });
      await outcomes.jobStarted(moved);
    }
  }

  /** Sends an assigned job's file to its printer and starts it. */
  async function startJob(jobId: string): Promise<boolean> {
    const job = await jobs.find(jobId);
    // The other parts of a plate start with its lead.
    if (!job || job.status !== 'assigned' || job.printerId === null || job.spoolChange !== null || job.plateLeadId !== null) return false;
    const parts = await partsOf(job);
    const row = await printers.find(job.printerId);
    if (!row || row.status !== 'active') {
      await requeue(job, 'assigned', 'The printer was paused or retired before the job started');
      return false;
    }
    let found: Awaited<ReturnType<typeof fileFor>> | Awaited<ReturnType<typeof plateFileFor>>;
    try {
      found = parts.length > 1 ? await plateFileFor(job, parts, row) : await fileFor(job, row);
    } catch (error) {
      deps.log?.error({ err: error, jobId }, 'print file could not be read');
      await requeue(job, 'assigned', 'The sliced file could not be read; it is tried again');
      return false;
    }
    if ('wait' in found) return false; // sliced for this printer meanwhile; the next tick tries again
    if ('split' in found) {
      // The lead stays on the printer alone (its own file is asked for next tick), the others go back to the queue.
      await jobs.splitPlate(job.id, found.split, new Date(now()));
      return false;
    }
    if ('refused' in found) {
      await requeue(job, 'assigned', found.refused);
      await outcomes.moveOrder(job.orderId, ['accepted', 'in_production'], 'on_hold', `${found.refused}. Pin the job to another printer, or change the model or its settings, then release the order.`, { kind: 'system' });
      return false;
    }
    const file = found.ready;
    const uploading = await jobs.move(job.id, 'assigned', 'uploading');
    if (!uploading) return false;
    for (const part of parts) if (part.id !== job.id) await jobs.move(part.id, 'assigned', 'uploading');
    const driver = driverOf(row);
    const uploaded = await driver.upload(file, { startPrint: true });
    if (!uploaded.ok) return notStarted(uploading, row, uploaded.failure, `${row.name}: ${uploaded.failure.message}`);
    if (!uploaded.value.printStarted) {
      const started = await driver.start(uploaded.value.fileName);
      if (!started.ok) return notStarted(uploading, row, started.failure, `${row.name} did not start the print: ${started.failure.message}`);
    }
    await markPrinting(uploading, row);
    return true;
  }

  /**
   * An upload or start that did not succeed. No answer at all (a timeout, a dropped connection, a
   * garbled reply) may still have started the print: the job stays `uploading` and the printer's
   * own status settles it, so a print is never sent twice. A busy printer gives the job back to
   * the queue; a refusal that only a person can mend also flags the printer.
   */
  async function notStarted(job: PrintJobRow, row: PrinterRow, failure: PrinterFailure, reason: string): Promise<false> {
    if (failure.kind === 'timeout' || failure.kind === 'unreachable' || failure.kind === 'bad_answer') {
      await printers.recordState(row.id, { error: failure.message });
      return false;
    }
    if (failure.kind === 'auth_refused') await printers.recordState(row.id, { error: failure.message });
    if (failure.kind === 'not_allowed' || failure.kind === 'rejected') await printers.flagAttention(row.id, reason);
    await requeue(job, 'uploading', reason);
    return false;
  }

  /**
   * The autopilot's steps (FARM_AUTOPILOT): each is what a person would confirm, recorded as the
   * autopilot's. It acts on simulated printers only, whatever the environment: a real printer's bed,
   * spool, printed part and parcel always wait for a person.
   */
  async function autopilotSteps(rows: readonly PrinterRow[], held: ReadonlyMap<string, PrintJobRow>): Promise<void> {
    const before = new Date(now() - options.autopilot.delayMs);
    // Every printer, retired ones too: a part printed on a simulated printer since retired is still simulated.
    const simulated = new Set(
      (await printers.list()).filter((r) => r.connectionKind === 'simulated').map((r) => r.id),
    );
    const onSimulated = (job: PrintJobRow) => job.printerId !== null && simulated.has(job.printerId);
    for (const job of await jobs.awaitingSpoolBefore(before)) {
      if (!onSimulated(job)) continue;
      await loadSpool(job, autopilot);
      await startJob(job.id);
    }
    const simulatedRows = rows.filter((r) => simulated.has(r.id));
    const lastFinished = await jobs.lastFinishedOn(simulatedRows.map((r) => r.id));
    for (const row of simulatedRows) {
      const state = (row.lastState as PrinterStatus | null)?.state;
      if (row.bedConfirmedClear || held.has(row.id) || row.status === 'retired') continue;
      if (!state || !isPrinterFree(state)) continue;
      const finished = lastFinished.get(row.id);
      if (finished && finished > before) continue;
      await confirmBedClear(row.id, autopilot);
    }
    // Oldest first; a generous page, so that parts waiting for a person's QC do not hide the simulated ones.
    for (const job of await jobs.printedBefore(before, AUTOPILOT_PAGE)) {
      if (!onSimulated(job)) continue;
      const passed = await jobs.move(job.id, 'printed', 'qc_passed', { qcBy: 'autopilot' });
      if (!passed) continue;
      await jobs.record({ kind: 'qc_pass', jobId: job.id, orderId: job.orderId, actorKind: 'autopilot', detail: 'Passed QC' });
      await outcomes.jobPassed(passed, autopilot);
    }
    for (const packing of await jobs.ordersAwaitingPacking(AUTOPILOT_PAGE)) {
      if (packing.updatedAt > before) continue;
      const printedOn = (await jobs.ofOrder(packing.id)).filter((j) => j.printerId !== null);
      if (!printedOn.every(onSimulated)) continue;
      if (await outcomes.moveOrder(packing.id, ['printed'], 'packed', 'Packing confirmed by the farm autopilot', autopilot))
        await jobs.record({ kind: 'packed', orderId: packing.id, actorKind: 'autopilot', detail: 'Packing confirmed' });
    }
  }

  /** A person (or the autopilot) says the bed is clear: the printer may take the next job. */
  async function confirmBedClear(printerId: string, actor: FarmActor): Promise<boolean> {
    if (!(await jobs.setBedClear(printerId, true, actorIdOf(actor)))) return false;
    await jobs.record({ kind: 'bed_clear', printerId, actorKind: actor.kind, actorId: actorIdOf(actor), detail: 'Bed confirmed clear' });
    return true;
  }

  /** What the farm calls a colour: the name on any spool of that colour, else its hex. */
  async function colourNameOf(hex: string): Promise<string> {
    for (const row of await printers.list()) {
      const named = (row.spools as PrinterSpool[]).find((s) => s.colourHex.toLowerCase() === hex && s.colourName !== hex);
      if (named) return named.colourName;
    }
    return hex;
  }

  /**
   * The spool the job asked for is in the toolhead: the printer's spools say so, and the job may
   * start. The spool loaded holds enough for the job, or its whole plate (the grams plus the margin): a spare on the
   * printer that does, else a new full one, never the nearly empty spool it replaces.
   */
  async function loadSpool(job: PrintJobRow, actor: FarmActor): Promise<PrintJobRow | undefined> {
    if (!job.spoolChange || job.status !== 'assigned' || job.printerId === null) return job;
    const row = await printers.find(job.printerId);
    if (!row) return job;
    const wanted = job.spoolChange;
    // A plate's lead loads the spool for every part on the plate.
    const needed = gramsNeeded((await partsOf(job)).reduce((sum, part) => sum + part.grams, 0));
    const spools = (row.spools as PrinterSpool[]).map((s) => ({ ...s, loaded: false }));
    const match = spools.find(
      (s) =>
        s.material === wanted.material &&
        (wanted.colour === 'any' || s.colourHex.toLowerCase() === wanted.colour) &&
        s.gramsLeft >= needed,
    );
    if (match) match.loaded = true;
    else {
      const colourHex = wanted.colour === 'any' ? '#9e9e9e' : wanted.colour;
      const fresh: PrinterSpool = {
        material: wanted.material as PrinterSpool['material'],
        colourName: wanted.colour === 'any' ? `${wanted.material} (any colour)` : await colourNameOf(wanted.colour),
        colourHex,
        gramsLeft: Math.max(FULL_SPOOL_GRAMS, needed),
        loaded: true,
      };
      // The spools too short for this job of the same material and colour are used up: they leave the printer.
      const keep = spools.filter(
        (s) => !(s.material === fresh.material && s.colourHex.toLowerCase() === colourHex && s.gramsLeft < needed),
      );
      spools.length = 0;
      spools.push(...keep, fresh);
    }
    await printers.setSpools(row.id, spools.slice(-16));
    const updated = await jobs.setSpoolChange(job.id, null);
    await jobs.record({
      kind: 'spool_loaded',
      jobId: job.id,
      printerId: row.id,
      actorKind: actor.kind,
      actorId: actorIdOf(actor),
      detail: `Loaded ${wanted.material} ${wanted.colour} on ${row.name}`,
    });
    return updated;
  }

  /**
   * One dispatch decision: the planner on the farm as it is now and the kept queue, each assignment
   * written with compare-and-set. Jobs whose file is only a simulation go to simulated printers only.
   */
  async function dispatchOnce(): Promise<{ assigned: string[]; decisionMs: number }> {
    const started = performance.now();
    const [rows, busyPrinters, queues, groupRows] = await Promise.all([
      printers.list().then((list) => list.filter((r) => r.status !== 'retired')),
      jobs.busyPrinters(),
      keptQueue.sync(),
      printers.groups.staggers(),
    ]);
    const groups = new Map(groupRows.map((g) => [g.id, g]));
    const farm = rows.map((row) => plannerPrinterOf(row, busyPrinters.has(row.id), groups));
    const simulated = new Set(rows.filter((r) => r.connectionKind === 'simulated').map((r) => r.id));
    const t = now();
    const first = planDispatch(farm, queues.sliced, t);
    const busy = new Set(first.assignments.map((a) => a.printerId));
    const second = planDispatch(
      farm.map((p) => (busy.has(p.id) ? { ...p, idle: false, lastStartAt: t } : p)).filter((p) => simulated.has(p.id)),
      queues.simulation,
      t,
    );
    const assigned: string[] = [];
    for (const a of [...first.assignments, ...second.assignments]) {
      // Taken or not, it leaves the kept queue: a lost race or an order on hold comes back by the next read.
      keptQueue.taken(a.jobId);
      for (const part of a.plate ?? []) keptQueue.taken(part.id);
      const detail = a.spoolChange
        ? `Assigned (${a.rule}); load ${a.spoolChange.material} ${a.spoolChange.colour} first`
        : `Assigned (${a.rule})${a.plate ? ` with ${a.plate.length - 1} more parts on its plate` : ''}`;
      if (!(await jobs.assign(a.jobId, a.printerId, a.spoolChange, new Date(t), detail))) continue;
      assigned.push(a.jobId);
      if (a.plate) {
        const others = a.plate.slice(1).map((part, i) => ({ id: part.id, index: i + 1 }));
        await jobs.joinPlate(a.jobId, a.printerId, others, new Date(t));
      }
    }
    return { assigned, decisionMs: performance.now() - started };
  }

  /**
   * A part of a plate failed mid-print (a person saw it): the printer skips it and prints the rest
   * (Klipper's exclude_object, Bambu's skip_objects), and the part fails now, to be reprinted alone.
   * The bed needs clearing after this print whatever else happens. `refused`: the printer cannot skip.
   */
  async function skipPart(job: PrintJobRow, reason: string, actor: FarmActor): Promise<{ refused: string } | { failed: PrintJobRow }> {
    const row = job.printerId === null ? undefined : await printers.find(job.printerId);
    if (!row) return { refused: 'The part is on no printer' };
    const driver = driverOf(row);
    if (!driver.skipObjects) return { refused: `${row.name} cannot skip one part of a plate; fail it at QC when the plate is done` };
    const skipped = await driver.skipObjects([plateObjectOf(job)]);
    if (!skipped.ok) return { refused: `${row.name} did not skip the part: ${skipped.failure.message}` };
    await jobs.setBedClear(row.id, false, null);
    const failed = await jobs.move(job.id, 'printing', 'failed', { failureReason: reason, finishedAt: new Date(now()) });
    if (!failed) return { refused: 'The part stopped printing meanwhile; reload the board' };
    await jobs.record({ kind: 'failed', jobId: job.id, printerId: row.id, orderId: job.orderId, actorKind: actor.kind, actorId: actorIdOf(actor), detail: `Skipped on ${row.name}: ${reason}` });
    await outcomes.jobFailed(failed, actor);
    return { failed };
  }

  return {
    startJob,
    confirmBedClear,
    loadSpool,
    skipPart,

    /** Cancels a job's print on its printer (the order was cancelled). */
    async cancelOnPrinter(job: PrintJobRow): Promise<void> {
      if (job.printerId === null) return;
      const row = await printers.find(job.printerId);
      if (!row) return;
      if (job.plateIndex !== null) {
        // Other orders' parts share the plate: they print on. Not started yet, they go back to the
        // queue (their plate's lead may be this job); printing, this part is skipped where the printer can.
        const others = (await partsOf(job)).filter((p) => p.id !== job.id && (PRINT_JOB_ON_PRINTER as readonly string[]).includes(p.status));
        if (others.length > 0) {
          const waiting = others.find((p) => p.status === 'assigned');
          if (waiting) return requeue(waiting, 'assigned', 'A part on its plate was cancelled before the plate started');
          const driver = driverOf(row);
          const skipped = driver.skipObjects ? await driver.skipObjects([plateObjectOf(job)]) : null;
          if (skipped && !skipped.ok) deps.log?.error({ printerId: row.id, failure: skipped.failure }, 'could not skip a cancelled part of a plate');
          return;
        }
      }
      // The job may have started since the last poll: the printer is asked whatever it said last.
      const result = await driverOf(row).cancel();
      if (!result.ok) deps.log?.error({ printerId: row.id, failure: result.failure }, 'could not cancel a print on its printer');
      await dropPlateFiles(job);
      await jobs.setBedClear(row.id, false, null);
      // A cancelled print never reaches its eject: what it left on the bed needs a person.
      if (clearsItself(clearingOf(row)))
        await stopContinuous(row, job.id, `The print on ${row.name} was cancelled (its order was cancelled), so it did not clear its bed: look at the bed, confirm it clear, then clear this flag`);
    },

    /** Polls, autopilot, dispatch, starts: one turn of the farm. */
    async tick(): Promise<TickReport> {
      let rows = (await printers.list()).filter((r) => r.status !== 'retired');
      const onPrinters = await jobs.onPrinters();
      // What a printer holds: its job, or the first part of its plate still on it.
      const held = new Map<string, PrintJobRow>();
      for (const { job } of onPrinters) {
        if (job.printerId === null) continue;
        const other = held.get(job.printerId);
        if (!other || (job.plateIndex ?? 0) < (other.plateIndex ?? 0)) held.set(job.printerId, job);
      }
      await Promise.all(
        rows.map((row) =>
          pollPrinter(row, held.get(row.id)).catch((error: unknown) =>
            deps.log?.error({ err: error, printerId: row.id }, 'printer poll failed'),
          ),
        ),
      );
      // Jobs on a printer retired (or removed) under them: nothing more will come from it.
      const live = new Set(rows.map((r) => r.id));
      for (const { job } of onPrinters) {
        if (job.printerId !== null && live.has(job.printerId)) continue;
        const reason = 'The printer was retired or removed while it held this job';
        if (job.status === 'printing') await printerGone(job, reason);
        else await requeue(job, job.status as 'assigned' | 'uploading', reason);
      }
      // Orders whose last part passed QC in a process that died before moving the order on: a
      // rare case and a query over every open order, so looked for every half minute, not each tick.
      if (now() - passedSweepAt >= PASSED_SWEEP_MS) {
        passedSweepAt = now();
        for (const orderId of await jobs.ordersPassedNotMoved(20)) {
          const [job] = await jobs.ofOrder(orderId);
          if (job) await outcomes.jobPassed(job, { kind: 'system' });
        }
      }
      // Assigned jobs waiting for their printer's file, or that a killed tick never started.
      for (const { job } of onPrinters) {
        if (job.status === 'assigned' && job.spoolChange === null && job.printerId !== null && live.has(job.printerId))
          await startJob(job.id);
      }
      if (options.autopilot.enabled) {
        rows = (await printers.list()).filter((r) => r.status !== 'retired');
        await autopilotSteps(rows, held);
      }
      const { assigned, decisionMs } = await dispatchOnce();
      let started = 0;
      for (const jobId of assigned) if (await startJob(jobId)) started += 1;
      return { polled: rows.length, assigned: assigned.length, started, decisionMs };
    },

    dispatchOnce,
  };
}

export type FarmDispatcher = ReturnType<typeof createFarmDispatcher>;
