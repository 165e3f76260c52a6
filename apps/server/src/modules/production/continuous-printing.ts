import { clearsItself, type BoardPrinter, type PrinterClearing, type PrinterKind, type PrinterStatus } from '@layerline/contracts';

/**
 * Continuous printing (issue 22, point 3; docs/print-farm.md "Continuous printing"): a printer
 * that clears its own bed goes on to its next plate without a person. Two pure pieces: the eject
 * tail appended to every job's G-code at upload, and the verdict on a finished print, which decides
 * whether the bed counts as clear or a person must look.
 */

/** The first line of the tail, so a reader of the file (or a simulator) finds where the job ends and the eject begins. */
export const EJECT_TAIL_MARKER = '; layerline:eject';
/** The tail's last line. */
export const EJECT_TAIL_END = '; layerline:eject-end';

/** How a firmware is told to wait for the bed to cool. */
export type FirmwareDialect = 'klipper' | 'marlin';

/**
 * The firmware behind a connection: Moonraker fronts Klipper; OctoPrint, PrusaLink and the simulated
 * printer speak Marlin's G-code (Prusa's firmwares are Marlin-based). A kind not listed has no
 * known dialect, and an eject G-code is refused for it rather than appended in the wrong words.
 */
const FIRMWARE: Partial<Record<PrinterKind, FirmwareDialect>> = {
  moonraker: 'klipper',
  octoprint: 'marlin',
  prusalink: 'marlin',
  simulated: 'marlin',
};
export const firmwareOf = (kind: PrinterKind): FirmwareDialect | null => FIRMWARE[kind] ?? null;

/** Why this printer cannot run this clearing, in words, or null (checked when a printer is saved). */
export function clearingProblem(clearing: PrinterClearing, kind: PrinterKind): string | null {
  if (clearing.kind !== 'eject_gcode' || firmwareOf(kind) !== null) return null;
  return `clearing: Layerline does not know how a ${kind} printer waits for its bed to cool, so it cannot append an eject G-code for it; choose a person or a plate changer`;
}

/**
 * The wait for the bed to cool to `releaseTempC`, in the firmware's own words:
 * - Klipper: `TEMPERATURE_WAIT SENSOR=heater_bed MAXIMUM=<t>` waits until the sensor reads at or
 *   below MAXIMUM (Klipper3d/klipper docs/G-Codes.md, "TEMPERATURE_WAIT"). Klipper's M190 reads only
 *   S and would not wait for cooling (klippy/extras/heater_bed.py cmd_M190; heaters.py waits only for a non-zero target), so it must not be used.
 * - Marlin (and Prusa's firmwares): `M190 R<t>` waits for the bed to reach the target heating *or
 *   cooling* (marlinfw.org/docs/gcode/M190.html; Prusa-Firmware M190 R). It also sets the target, so
 *   the bed is switched off again after it.
 */
export function coolingWait(dialect: FirmwareDialect, releaseTempC: number): string[] {
  return dialect === 'klipper'
    ? ['M140 S0', `TEMPERATURE_WAIT SENSOR=heater_bed MAXIMUM=${releaseTempC}`]
    : ['M140 S0', `M190 R${releaseTempC}`, 'M140 S0'];
}

/**
 * The G-code appended to a job's file on a printer that ejects its own parts: bed off, wait for it
 * to cool to the release temperature, then the operator's sweep. Null for any other clearing (a
 * plate changer runs its own end G-code; a person needs nothing appended).
 */
export function ejectTail(clearing: PrinterClearing, kind: PrinterKind): string | null {
  const dialect = firmwareOf(kind);
  if (clearing.kind !== 'eject_gcode' || dialect === null) return null;
  const sweep = clearing.gcode.replace(/\r\n?/g, '\n').trim();
  return [
    '',
    EJECT_TAIL_MARKER,
    `; continuous printing: cool the bed to ${clearing.releaseTempC} °C, then clear the plate`,
    ...coolingWait(dialect, clearing.releaseTempC),
    sweep,
    EJECT_TAIL_END,
    '',
  ].join('\n');
}

/** The job's file with the eject tail after it (unchanged when the printer does not eject by G-code). */
export function withEjectTail(bytes: Uint8Array, clearing: PrinterClearing, kind: PrinterKind): Uint8Array {
  const tail = ejectTail(clearing, kind);
  if (tail === null) return bytes;
  const suffix = new TextEncoder().encode(tail);
  const joined = new Uint8Array(bytes.length + suffix.length);
  joined.set(bytes);
  joined.set(suffix, bytes.length);
  return joined;
}

/** Degrees above the release temperature still read as "cooled": a bed sensor's noise and the poll's lag. */
export const RELEASE_TEMP_MARGIN_C = 5;

/** What follows a print that ended well on a printer, for its bed. */
export type ClearingVerdict =
  /** A person clears this printer's bed (as before continuous printing). */
  | { readonly kind: 'person' }
  /** The printer cleared its bed: the next plate goes without a person. */
  | { readonly kind: 'cleared'; readonly detail: string }
  /** It printed its last plate allowed without a person: the bed waits for a person's confirmation. */
  | { readonly kind: 'cap'; readonly detail: string }
  /** The eject could not be confirmed: the printer stops and a person is called. */
  | { readonly kind: 'stop'; readonly reason: string };

/**
 * Whether a print that ended well leaves the bed clear by itself. Only a clean end counts: the
 * printer itself said `finished` (naming our file, or none), with no error, and (for an eject G-code) a bed at
 * or near the release temperature when it says so. Anything else, a finish found only in the
 * printer's history, a note for QC, a bed still hot, stops the printer for a person: a part left on
 * the bed under the next print is the failure continuous printing must never cause.
 */
export function verdictOnFinish(input: {
  readonly clearing: PrinterClearing;
  readonly printerName: string;
  /** Plates it started after clearing its own bed since a person last confirmed it clear. */
  readonly unattendedPlates: number;
  /** The status the print's end was read from (null: the end was not seen, only recalled). */
  readonly status: PrinterStatus | null;
  /**
   * True when `status` names a file other than this job's. Naming none is a clean end too: Buddy
   * drops its job the moment it finishes (shared/contracts/printers/prusalink.md §7, "204 + FINISHED").
   */
  readonly namesAnotherFile: boolean;
}): ClearingVerdict {
  const { clearing, printerName: name, status } = input;
  if (clearing.kind === 'person') return { kind: 'person' };
  const how = clearing.kind === 'eject_gcode' ? 'its eject G-code' : 'its plate changer';
  if (!status || status.state !== 'finished' || input.namesAnotherFile)
    return {
      kind: 'stop',
      reason: `${name} did not report the end of its print cleanly, so the eject by ${how} is not confirmed: look at the bed, confirm it clear, then clear this flag`,
    };
  if (status.errorText)
    return {
      kind: 'stop',
      reason: `${name} finished with a message (“${status.errorText}”), so the eject by ${how} is not confirmed: look at the bed, confirm it clear, then clear this flag`,
    };
  const bed = status.temperatures.bed.actual;
  if (clearing.kind === 'eject_gcode' && bed !== null && bed > clearing.releaseTempC + RELEASE_TEMP_MARGIN_C)
    return {
      kind: 'stop',
      reason: `${name} finished with its bed at ${bed} °C, above the release temperature of ${clearing.releaseTempC} °C: the eject did not wait for the bed to cool (check the firmware runs the wait), so the part may still be on it. Look at the bed, confirm it clear, then clear this flag`,
    };
  const next = input.unattendedPlates + 1;
  if (next > clearing.maxUnattendedPlates)
    return {
      kind: 'cap',
      detail: `${name} has printed ${clearing.maxUnattendedPlates} plate${clearing.maxUnattendedPlates === 1 ? '' : 's'} in a row without a person, its limit: it waits for a person to look at it and confirm the bed clear`,
    };
  return {
    kind: 'cleared',
    detail: `Bed cleared by ${how}: the next plate is ${next} of ${clearing.maxUnattendedPlates} without a person`,
  };
}

/** The board's view of a printer's clearing: its method, whether it clears itself, and its count against the cap. */
export const boardClearing = (clearing: PrinterClearing, unattendedPlates: number): BoardPrinter['clearing'] => ({
  kind: clearing.kind,
  clearsItself: clearsItself(clearing),
  unattendedPlates,
  maxUnattendedPlates: clearing.kind === 'person' ? null : clearing.maxUnattendedPlates,
});
