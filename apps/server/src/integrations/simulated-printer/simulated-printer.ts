import type { PrinterStatus, SimulatedConnection } from '@layerline/contracts';
import {
  blankStatus,
  failed,
  printFileNameProblem,
  outcomeUnknown,
  succeeded,
  type PrinterDriver,
  type PrinterResult,
} from '../../modules/production/printer-driver.ts';
import { runEjectTail } from '../printer-drivers/eject-tail-run.ts';

/**
 * The built-in simulated printer: no network, prints in accelerated time. A job lasts its
 * estimated print seconds divided by the connection's speedFactor, reports progress, layers,
 * time left and temperatures, and can be told to fail at a layer (the print ends `failed`), run out
 * of filament at a layer (it waits in `attention` until resumed; both name the layer), or go offline and come back
 * (it keeps printing while unreachable, like a real printer whose network drops).
 * A file with an eject tail (continuous printing) is run as Marlin runs it (eject-tail-run.ts):
 * after the last layer the printer keeps printing while its bed cools to the tail's release
 * temperature, then finishes with the bed at that temperature; a wait Marlin does not know is
 * skipped, so the print finishes at once with the bed still hot.
 *
 * Time comes from an injectable clock and every value is computed from it when asked (no timers),
 * so tests are deterministic and a thousand simulated printers cost nothing while idle.
 *
 * State lives in this process only (the farm keeps one SimulatedPrinterFarm per process, in the
 * process that runs the farm's jobs). Nothing survives a restart: every simulated printer comes
 * back idle with no files and no job, online unless its connection says `offline`. To the farm
 * that looks like a printer that lost power: the job it believed printing is gone (docs/printers.md).
 */
export interface SimulatedPrinterFarm {
  /** The driver of one simulated printer (its state is kept by id; a changed connection applies). */
  driver(printerId: string, connection: SimulatedConnection): PrinterDriver;
  /** Test and demo controls: pull or plug the network cable. */
  setOffline(printerId: string, offline: boolean): void;
  /** Drops a printer's state (the printer was deleted). */
  forget(printerId: string): void;
}

interface SimJob {
  readonly fileName: string;
  /** Real milliseconds the whole print takes at the printer's speed. */
  readonly durationMs: number;
  readonly layers: number;
  readonly startedAt: number;
  /** Progress (0..1) at which it stops (an error, or a runout that waits for a person), if it will. */
  stopAt: { readonly progress: number; readonly message: string; readonly runout: boolean } | null;
  pausedAt: number | null;
  pausedTotalMs: number;
  cancelled: boolean;
  /** The eject tail run after the last layer, or null for a file without one. */
  readonly eject: { readonly cooledToC: number | null } | null;
}

interface SimPrinter {
  connection: SimulatedConnection;
  offline: boolean;
  readonly files: Map<
    string,
    {
      readonly estimatedPrintSeconds: number;
      readonly layers: number;
      readonly eject: { readonly cooledToC: number | null } | null;
      readonly objects: readonly string[];
    }
  >;
  job: SimJob | null;
}

const AMBIENT_C = 22;
/** Heating time constant in simulated seconds. */
const HEAT_TAU_S = 60;
/** A bed cools more slowly than it heats (no heater driving it): its time constant in simulated seconds. */
const COOL_TAU_S = 300;

export const createSimulatedPrinterFarm = (options: { now?: () => number } = {}): SimulatedPrinterFarm => {
  const now = options.now ?? Date.now;
  const printers = new Map<string, SimPrinter>();

  const printerFor = (printerId: string, connection: SimulatedConnection): SimPrinter => {
    let printer = printers.get(printerId);
    if (!printer) {
      printer = { connection, offline: connection.offline, files: new Map(), job: null };
      printers.set(printerId, printer);
    } else {
      if (printer.connection.offline !== connection.offline) printer.offline = connection.offline;
      printer.connection = connection;
    }
    return printer;
  };

  /** How far the job is at `at`, before any failure stops it. */
  const rawProgress = (job: SimJob, at: number): number => {
    const elapsed = (job.pausedAt ?? at) - job.startedAt - job.pausedTotalMs;
    return Math.max(0, Math.min(1, elapsed / job.durationMs));
  };

  /**
   * The eject tail after the last layer: the bed switched off cools from its target; the print
   * ends once it reached the temperature the tail waits for (at once when the firmware did not wait).
   */
  const ejectPhase = (
    printer: SimPrinter,
    job: SimJob,
    eject: { readonly cooledToC: number | null },
    at: number,
  ): PrinterStatus => {
    const { bedTargetC, speedFactor } = printer.connection;
    const sinceEndS = (((job.pausedAt ?? at) - job.startedAt - job.pausedTotalMs - job.durationMs) * speedFactor) / 1000;
    const bed = Math.round((AMBIENT_C + (bedTargetC - AMBIENT_C) * Math.exp(-sinceEndS / COOL_TAU_S)) * 10) / 10;
    const wait = eject.cooledToC;
    // A release temperature at or below the room's is never reached: the firmware waits for ever, as a real one would.
    const coolS =
      wait === null || wait >= bedTargetC
        ? 0
        : wait <= AMBIENT_C
          ? Infinity
          : COOL_TAU_S * Math.log((bedTargetC - AMBIENT_C) / (wait - AMBIENT_C));
    const cooling = sinceEndS < coolS;
    return {
      state: cooling ? 'printing' : 'finished',
      progress: cooling ? 0.999 : 1,
      fileName: job.fileName,
      currentLayer: job.layers,
      totalLayers: job.layers,
      secondsLeft: cooling && Number.isFinite(coolS) ? Math.ceil((coolS - sinceEndS) / speedFactor) : null,
      temperatures: {
        nozzle: { actual: AMBIENT_C, target: 0 },
        bed: { actual: cooling || wait === null ? bed : Math.min(bed, wait), target: cooling && wait !== null ? wait : 0 },
      },
      errorText: null,
    };
  };

  const statusOf = (printer: SimPrinter, at: number): PrinterStatus => {
    const job = printer.job;
    const { nozzleTargetC, bedTargetC, speedFactor } = printer.connection;
    if (!job || job.cancelled) {
      return {
        ...blankStatus(job ? 'cancelled' : 'idle'),
        fileName: job?.fileName ?? null,
        temperatures: { nozzle: { actual: AMBIENT_C, target: 0 }, bed: { actual: AMBIENT_C, target: 0 } },
      };
    }
    let progress = rawProgress(job, at);
    let state: PrinterStatus['state'] = job.pausedAt !== null ? 'paused' : 'printing';
    let errorText: string | null = null;
    if (job.stopAt && progress >= job.stopAt.progress) {
      progress = job.stopAt.progress;
      // A runout waits for a person with the job on the printer; any other stop ends the print.
      state = job.stopAt.runout ? 'attention' : 'failed';
      errorText = job.stopAt.message;
    } else if (progress >= 1) {
      if (job.eject) return ejectPhase(printer, job, job.eject, at);
      state = 'finished';
    }
    const currentLayer = Math.min(job.layers, Math.floor(progress * job.layers) + 1);
    const heating = state === 'printing' || state === 'paused' || state === 'attention';
    const simulatedSeconds = (progress * job.durationMs * speedFactor) / 1000;
    const warm = (target: number): number =>
      Math.round((target - (target - AMBIENT_C) * Math.exp(-simulatedSeconds / HEAT_TAU_S)) * 10) / 10;
    return {
      state,
      progress,
      fileName: job.fileName,
      currentLayer,
      totalLayers: job.layers,
      secondsLeft: heating ? Math.ceil(((1 - progress) * job.durationMs) / 1000) : null,
      temperatures: heating
        ? {
            nozzle: { actual: warm(nozzleTargetC), target: nozzleTargetC },
            bed: { actual: warm(bedTargetC), target: bedTargetC },
          }
        : { nozzle: { actual: AMBIENT_C, target: 0 }, bed: { actual: AMBIENT_C, target: 0 } },
      errorText,
    };
  };

  const startJob = (printer: SimPrinter, fileName: string, at: number): PrinterResult<void> => {
    const file = printer.files.get(fileName);
    if (!file) return failed('rejected', `The simulated printer has no file named ${fileName}`, 404);
    const current = statusOf(printer, at).state;
    if (current === 'printing' || current === 'paused' || current === 'attention')
      return failed('busy', 'The simulated printer is already printing', 409);
    const { failAtLayer, filamentRunsOutAtLayer, speedFactor } = printer.connection;
    const stops = [
      failAtLayer !== undefined && failAtLayer <= file.layers
        ? {
            layer: failAtLayer,
            message: `Print failed at layer ${failAtLayer} of ${file.layers}: the part came loose from the bed (simulated)`,
            runout: false,
          }
        : null,
      filamentRunsOutAtLayer !== undefined && filamentRunsOutAtLayer <= file.layers
        ? {
            layer: filamentRunsOutAtLayer,
            message: `Filament ran out at layer ${filamentRunsOutAtLayer} of ${file.layers}: load a new spool and resume (simulated)`,
            runout: true,
          }
        : null,
    ]
      .filter((stop) => stop !== null)
      .sort((a, b) => a.layer - b.layer);
    const first = stops[0];
    printer.job = {
      fileName,
      durationMs: Math.max(1, (file.estimatedPrintSeconds * 1000) / speedFactor),
      layers: file.layers,
      startedAt: at,
      stopAt: first ? { progress: (first.layer - 1) / file.layers, message: first.message, runout: first.runout } : null,
      pausedAt: null,
      pausedTotalMs: 0,
      cancelled: false,
      eject: file.eject,
    };
    return succeeded(undefined);
  };

  const offlineFailure = <T>(): PrinterResult<T> =>
    failed('unreachable', 'The simulated printer is offline (as if unplugged)');

  return {
    driver(printerId, connection) {
      const printer = printerFor(printerId, connection);
      const online = <T>(action: (at: number) => PrinterResult<T>): Promise<PrinterResult<T>> =>
        Promise.resolve(printer.offline ? offlineFailure<T>() : action(now()));
      return {
        kind: 'simulated',
        probe: () =>
          online(() =>
            succeeded({
              kind: 'simulated' as const,
              software: 'Layerline simulator',
              firmware: printer.connection.model,
              latencyMs: 0,
            }),
          ),
        upload: (file, { startPrint }) =>
          online((at) => {
            const problem = printFileNameProblem(file.fileName);
            if (problem) return failed('rejected', problem);
            if (file.bytes.length === 0) return failed('rejected', 'The print file is empty');
            if (!(file.estimatedPrintSeconds > 0))
              return failed('rejected', 'The print file has no estimated print time');
            const layers = file.layerCount ?? Math.max(1, Math.ceil(file.estimatedPrintSeconds / 30));
            if (startPrint) {
              const state = statusOf(printer, at).state;
              if (state === 'printing' || state === 'paused' || state === 'attention') {
                return failed('busy', 'The simulated printer is busy with another job', 409);
              }
            }
            const eject = runEjectTail(file.bytes, 'marlin');
            printer.files.set(file.fileName, {
              estimatedPrintSeconds: file.estimatedPrintSeconds,
              layers,
              eject,
              objects: (file.objects ?? []).map((o) => o.label),
            });
            if (startPrint) {
              const started = startJob(printer, file.fileName, at);
              if (!started.ok) return started;
            }
            return succeeded({ fileName: file.fileName, printStarted: startPrint });
          }),
        start: (fileName) => online((at) => startJob(printer, fileName, at)),
        pause: () =>
          online((at) => {
            const job = printer.job;
            const state = statusOf(printer, at).state;
            if (!job || state === 'paused')
              return state === 'paused' ? succeeded(undefined) : failed('rejected', 'Nothing is printing');
            if (state !== 'printing')
              return failed('rejected', `The simulated printer cannot pause: it is ${state}`, 409);
            job.pausedAt = at;
            return succeeded(undefined);
          }),
        resume: () =>
          online((at) => {
            const job = printer.job;
            const state = statusOf(printer, at).state;
            if (state === 'printing') return succeeded(undefined);
            if (job && state === 'attention' && job.stopAt) {
              // A new spool is in (the person says so by resuming): the print goes on from where it stopped.
              const stoppedAt = job.stopAt.progress;
              job.stopAt = null;
              job.pausedTotalMs += at - job.startedAt - job.pausedTotalMs - stoppedAt * job.durationMs;
              return succeeded(undefined);
            }
            if (!job || state !== 'paused' || job.pausedAt === null)
              return failed('rejected', `The simulated printer cannot resume: it is ${state}`, 409);
            job.pausedTotalMs += at - job.pausedAt;
            job.pausedAt = null;
            return succeeded(undefined);
          }),
        cancel: () =>
          online((at) => {
            const job = printer.job;
            const state = statusOf(printer, at).state;
            if (!job || (state !== 'printing' && state !== 'paused' && state !== 'attention')) {
              return failed('rejected', 'Nothing is printing', 409);
            }
            job.cancelled = true;
            return succeeded(undefined);
          }),
        // Like Klipper's exclude_object: only objects of the running plate, and only while it prints;
        // the print takes as long as before (the simulation keeps no per-object time).
        skipObjects: (objects) =>
          online((at) => {
            const job = printer.job;
            const state = statusOf(printer, at).state;
            if (!job || (state !== 'printing' && state !== 'paused' && state !== 'attention'))
              return failed('rejected', 'Nothing is printing', 409);
            const known = printer.files.get(job.fileName)?.objects ?? [];
            const unknown = objects.find((o) => !known.includes(o.label));
            if (unknown) return failed('rejected', `The running print has no object ${unknown.label}`);
            return succeeded(undefined);
          }),
        status: () => online((at) => succeeded(statusOf(printer, at))),
        lastOutcome: (fileName) =>
          online((at) => {
            // It remembers its last job only (a restart forgets it, like a printer that lost power).
            if (printer.job?.fileName !== fileName) return succeeded(outcomeUnknown);
            const { state, errorText } = statusOf(printer, at);
            const ended = { finished: 'completed', cancelled: 'cancelled', failed: 'failed' } as const;
            const outcome = state in ended ? ended[state as keyof typeof ended] : 'unknown';
            return succeeded({ outcome, message: errorText });
          }),
      };
    },
    setOffline(printerId, offline) {
      const printer = printers.get(printerId);
      if (printer) printer.offline = offline;
    },
    forget(printerId) {
      printers.delete(printerId);
    },
  };
};
