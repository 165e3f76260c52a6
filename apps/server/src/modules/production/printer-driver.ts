import type {
  PrinterConnection,
  PrinterFailureKind,
  PrinterIdentity,
  PrinterKind,
  PrinterStatus,
} from '@layerline/contracts';

/**
 * The port the print farm uses to drive one printer (issue 11, item 1). One adapter per kind in
 * integrations/ (octoprint, moonraker, prusalink, simulated-printer), chosen by kind in one place
 * (integrations/printer-drivers.ts). docs/printers.md maps every call to the vendor's documents.
 *
 * Expected failures are values, not exceptions (as Vendure returns business failures): a printer
 * that is unplugged, refuses the key, is busy or answers garbage is normal on a farm, and the
 * dispatcher must branch on it. Only programming errors throw.
 *
 * Using it from a job queue: every method is one bounded call (a timeout on every request, no
 * retries of commands: a command that may have reached the printer is never sent twice behind the
 * caller's back). A job handler that is re-run (the queue is at-least-once) should read `status()`
 * first: if the printer already prints the job's file, the upload-and-start has happened.
 * Uploads are named by the caller (e.g. `layerline-<jobId>.gcode`), so a repeated upload replaces
 * the same file instead of adding another.
 */

export interface PrinterFailure {
  readonly kind: PrinterFailureKind;
  /** For people (the board, the job's history); never contains the API key or password. */
  readonly message: string;
  /** The printer's HTTP status when it answered with one. */
  readonly status?: number;
}

export type PrinterResult<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly failure: PrinterFailure };

export const succeeded = <T>(value: T): PrinterResult<T> => ({ ok: true, value });
export const failed = <T = never>(
  kind: PrinterFailureKind,
  message: string,
  status?: number,
): PrinterResult<T> => ({
  ok: false,
  failure: status === undefined ? { kind, message } : { kind, message, status },
});

/**
 * One part on a plate of several (issue 22): its place in the plate's list, which is also the id
 * the plate's G-code labels it with, and that label as the slicer wrote it. Drivers that can skip an
 * object mid-print (Klipper's EXCLUDE_OBJECT, Bambu's skip_objects) name it to the printer by these.
 */
export interface PlateObject {
  /** 0-based position in the plate's object list; stable for the plate's life. */
  readonly index: number;
  /** The object's label in the G-code. */
  readonly label: string;
}

/** A sliced job ready to send. */
export interface PrintFile {
  /**
   * The name it gets on the printer: letters, digits, dot, dash and underscore only, ending in the
   * format's extension (.gcode, .bgcode or .3mf). Checked by `printFileNameProblem`.
   */
  readonly fileName: string;
  readonly bytes: Uint8Array;
  /** The slicer's estimate of the print time in seconds (the simulated printer prints this long). */
  readonly estimatedPrintSeconds: number;
  /** Layer count when the slicer reported it (the simulated printer reports layers from it). */
  readonly layerCount?: number;
  /** The parts on the plate, in label order; absent for a plate of one part sliced alone. */
  readonly objects?: readonly PlateObject[];
}

export interface UploadOptions {
  /** Start printing as soon as the upload completes (one call where the printer supports it). */
  readonly startPrint: boolean;
}

export interface UploadedFile {
  /** The name the printer stored it under (what `start` and `status().fileName` use). */
  readonly fileName: string;
  /** True when the printer said it started printing it. */
  readonly printStarted: boolean;
}

export interface PrinterDriver {
  readonly kind: PrinterKind;
  /** Cheap: is it reachable, does it accept our credentials, what is it. For "Test connection". */
  probe(): Promise<PrinterResult<PrinterIdentity>>;
  upload(file: PrintFile, options: UploadOptions): Promise<PrinterResult<UploadedFile>>;
  /** Starts printing a file already uploaded. `busy` when something is printing. */
  start(fileName: string): Promise<PrinterResult<void>>;
  pause(): Promise<PrinterResult<void>>;
  resume(): Promise<PrinterResult<void>>;
  cancel(): Promise<PrinterResult<void>>;
  status(): Promise<PrinterResult<PrinterStatus>>;
  /**
   * How the last print of `fileName` ended, as far as the printer remembers (OctoPrint's file
   * metadata, Moonraker's job history). Asked only when `status()` no longer names the job the
   * farm believed printing (the host restarted, or the printer forgot its finished job).
   * `unknown` when the printer keeps no such record (PrusaLink) or has none for that file.
   */
  lastOutcome(fileName: string): Promise<PrinterResult<PrintOutcome>>;
  /**
   * Stops printing these objects of the running plate and finishes the rest. Only on printers that
   * can (absent otherwise); the farm calls it when a person fails one part of a plate mid-print.
   */
  skipObjects?(objects: readonly PlateObject[]): Promise<PrinterResult<void>>;
}

/** What a printer remembers of how a print ended (`lastOutcome`). */
export interface PrintOutcome {
  readonly outcome: 'completed' | 'cancelled' | 'failed' | 'unknown';
  /** The printer's own words about it (an error message), when it has any. */
  readonly message: string | null;
}

/** For printers that keep no record of past prints. */
export const outcomeUnknown: PrintOutcome = { outcome: 'unknown', message: null };

/**
 * For a job handler: is it worth trying again later by itself? Network trouble, a timeout, a busy
 * printer or one garbled answer may pass; refused credentials, a refused address or a refused
 * request will not change until a person acts (show it on the board, do not spin).
 */
export const isTransientPrinterFailure = (failure: PrinterFailure): boolean =>
  failure.kind === 'unreachable' ||
  failure.kind === 'timeout' ||
  failure.kind === 'busy' ||
  failure.kind === 'bad_answer';

/** Builds a driver for a printer from its stored connection (the printer's id names its state). */
export type PrinterDriverFactory = (printerId: string, connection: PrinterConnection) => PrinterDriver;

const PRINT_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}\.(gcode|bgcode|3mf)$/;

/** A readable reason when the name may not be used on a printer, or null. */
export const printFileNameProblem = (fileName: string): string | null => {
  if (!PRINT_FILE_NAME.test(fileName) || fileName.includes('..')) {
    return 'A print file name must be letters, digits, dot, dash or underscore, ending in .gcode, .bgcode or .3mf';
  }
  return null;
};

/** An empty status with the given state, for adapters to fill in. */
export const blankStatus = (state: PrinterStatus['state']): PrinterStatus => ({
  state,
  progress: null,
  fileName: null,
  currentLayer: null,
  totalLayers: null,
  secondsLeft: null,
  temperatures: { nozzle: { actual: null, target: null }, bed: { actual: null, target: null } },
  errorText: null,
  vendorState: null,
});
