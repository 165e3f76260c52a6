import { EJECT_TAIL_MARKER, type FirmwareDialect } from '../../modules/production/continuous-printing.ts';

/**
 * How a printer's firmware runs the eject tail of a print file (continuous printing), for the
 * simulators: they imitate the firmware, so they read the tail's G-code as it would.
 * - Klipper waits for a bed to cool only with `TEMPERATURE_WAIT SENSOR=heater_bed MAXIMUM=<t>`
 *   (docs/G-Codes.md, TEMPERATURE_WAIT); its M190 reads S alone (klippy/extras/heater_bed.py
 *   cmd_M190), so `M190 R<t>` sets the bed to 0 and does not wait.
 * - Marlin (and Prusa's firmwares) wait for cooling with `M190 R<t>` (marlinfw.org/docs/gcode/M190.html);
 *   `M190 S<t>` waits only while heating; an unknown command such as TEMPERATURE_WAIT is answered
 *   "echo:Unknown command" and skipped.
 * Neither firmware stops a print over these, so a wrong dialect shows only as a bed still hot when
 * the print ends, which is what the farm checks.
 */
export interface EjectTailRun {
  /** The temperature the firmware waited for the bed to cool to, or null when it did not wait. */
  readonly cooledToC: number | null;
  /** The tail's G-code lines, comments left out, as the firmware received them. */
  readonly commands: readonly string[];
}

/** The eject tail of a file as `dialect` runs it, or null when the file has no eject tail. */
export function runEjectTail(bytes: Uint8Array, dialect: FirmwareDialect): EjectTailRun | null {
  // The tail is the file's end: its sweep is at most 20,000 characters (80 KB of UTF-8), so the last 128 KiB hold it.
  const text = new TextDecoder().decode(bytes.subarray(Math.max(0, bytes.length - 131_072)));
  const at = text.lastIndexOf(`${EJECT_TAIL_MARKER}\n`);
  if (at < 0) return null;
  const commands = text
    .slice(at)
    .split('\n')
    .map((line) => line.replace(/;.*$/, '').trim())
    .filter(Boolean);
  let cooledToC: number | null = null;
  for (const command of commands) {
    const wait =
      dialect === 'klipper'
        ? /^TEMPERATURE_WAIT\s+SENSOR=heater_bed\s+MAXIMUM=(-?\d+(?:\.\d+)?)$/i.exec(command)
        : /^M190\s+R(-?\d+(?:\.\d+)?)$/i.exec(command);
    if (wait) cooledToC = Number(wait[1]);
  }
  return { cooledToC, commands };
}

/** A bed just switched off after a print at 60 °C, read on the next poll when nothing waited for it to cool. */
const BED_JUST_OFF_C = 58.7;

/**
 * What a simulator keeps of the ejects its firmware ran: every tail, in order, and the bed
 * temperature the last one left until the next print heats it again.
 */
export function createEjectRecorder(dialect: FirmwareDialect) {
  const runs: EjectTailRun[] = [];
  let bedAfterC: number | null = null;
  return {
    runs: runs as readonly EjectTailRun[],
    /** A print of these bytes reached its end: the firmware runs the file's eject tail, if it has one. */
    printEnded(bytes: Uint8Array | undefined): void {
      const run = bytes ? runEjectTail(bytes, dialect) : null;
      if (!run) return;
      runs.push(run);
      bedAfterC = run.cooledToC === null ? BED_JUST_OFF_C : run.cooledToC - 0.5;
    },
    printStarted(): void {
      bedAfterC = null;
    },
    /** The bed's temperature while no print heats it: what the last eject left, else the room's. */
    idleBed(ambientC: number): number {
      return bedAfterC ?? ambientC;
    },
  };
}
