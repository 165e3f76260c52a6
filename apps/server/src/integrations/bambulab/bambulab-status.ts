import { z } from 'zod';
import type { PrinterStatus } from '@layerline/contracts';
import { blankStatus } from '../../modules/production/printer-driver.ts';

/**
 * A Bambu Lab printer's `print` report, as shared/contracts/printers/bambulab.md §2 lists the fields
 * (OpenBambuAPI mqtt.md L175–395; ha-bambulab models.py L1012–1140). Every field is optional: the
 * P1 and A1 series send only what changed since the last report, so the connection merges them
 * (bambulab-connection.ts) and this module reads the merged whole.
 */
const hmsSchema = z.object({ attr: z.number(), code: z.number() });
const traySchema = z
  .object({ id: z.union([z.string(), z.number()]), tray_type: z.string().optional(), tray_color: z.string().optional() })
  .passthrough();
export const amsSchema = z
  .object({
    ams: z.array(z.object({ id: z.union([z.string(), z.number()]), tray: z.array(traySchema).default([]) }).passthrough()).default([]),
  })
  .passthrough();

export const printReportSchema = z
  .object({
    gcode_state: z.string().optional(),
    mc_percent: z.number().optional(),
    mc_remaining_time: z.number().optional(),
    print_error: z.number().optional(),
    hms: z.array(hmsSchema).optional(),
    stg_cur: z.number().optional(),
    gcode_file: z.string().optional(),
    subtask_name: z.string().optional(),
    layer_num: z.number().optional(),
    total_layer_num: z.number().optional(),
    nozzle_temper: z.number().optional(),
    nozzle_target_temper: z.number().optional(),
    bed_temper: z.number().optional(),
    bed_target_temper: z.number().optional(),
    ams: amsSchema.optional(),
  })
  .passthrough();
export type PrintReport = z.infer<typeof printReportSchema>;

/** print_error when a person (or a `stop`) cancelled the print: sent for a moment, then reset to 0 (models.py L1112–1126). */
export const CANCELLED_BY_USER = 50_348_044;

/**
 * The error a printer in LAN mode without Developer Mode answers every write command with, since
 * the 2025 Authorization Control firmware: seen as `{"command":"pause","err_code":84033543}`
 * (coelacant1/Bambu-Lab-Cloud-API issue #4) with HMS 0500_0500_0001_0007 "MQTT command
 * verification failed" on the screen (greghesp/ha-bambulab issue #1250).
 */
export const COMMAND_VERIFICATION_FAILED = 84_033_543;

/** stg_cur stages that mean the printer stopped for a person (const.py L85–135), in words. */
const STAGE_WORDS: Readonly<Record<number, string>> = {
  6: 'Paused: the filament ran out',
  16: 'Paused by the user',
  20: 'Nozzle temperature malfunction',
  21: 'Heatbed temperature malfunction',
  26: 'Paused: the AMS was lost',
  34: 'Paused: the first layer inspection found a defect',
  35: 'Paused: the nozzle is clogged',
};

/** HMS codes whose meaning Layerline knows without Bambu's tables (each cited where it is used). */
const HMS_WORDS: Readonly<Record<string, string>> = {
  '0500_0500_0001_0007': 'MQTT command verification failed: turn on LAN-only mode and Developer Mode on the printer',
};

const hex4 = (n: number) => (n & 0xffff).toString(16).toUpperCase().padStart(4, '0');

/** An HMS alarm as Bambu writes it (AAAA_AAAA_CCCC_CCCC), as its wiki pages are named. */
export const hmsCode = (hms: { attr: number; code: number }): string =>
  `${hex4(hms.attr >>> 16)}_${hex4(hms.attr)}_${hex4(hms.code >>> 16)}_${hex4(hms.code)}`;

const hmsWords = (hms: { attr: number; code: number }): string => {
  const code = hmsCode(hms);
  return HMS_WORDS[code] ?? `HMS ${code} (https://wiki.bambulab.com/en/x1/troubleshooting/hmscode/${code})`;
};

/** print_error as the 8 hex digits Bambu's HMS tables key it by (0300400C = cancelled by the user). */
const printErrorWords = (printError: number): string =>
  printError === CANCELLED_BY_USER
    ? 'cancelled on the printer'
    : `print_error ${(printError >>> 0).toString(16).toUpperCase().padStart(8, '0')}`;

/** The printer's own words about what stopped it: its stage, its HMS alarms and its print_error. */
export const printerWords = (report: PrintReport): string | null => {
  const words: string[] = [];
  if (report.stg_cur !== undefined && STAGE_WORDS[report.stg_cur]) words.push(STAGE_WORDS[report.stg_cur]!);
  for (const alarm of report.hms ?? []) words.push(hmsWords(alarm));
  if (report.print_error) words.push(printErrorWords(report.print_error));
  return words.length > 0 ? words.join('; ') : null;
};

/**
 * gcode_state (bambulab.md §6; const.py L173–184) → ours. PAUSE splits on the stage: paused by a
 * person or a command, or stopped for a person (runout, clog, AMS) which is `attention`; FAILED
 * splits on print_error into cancelled and failed (readBambuStatus).
 */
const GCODE_STATES: Readonly<Record<string, PrinterStatus['state']>> = {
  IDLE: 'idle',
  PREPARE: 'printing',
  RUNNING: 'printing',
  PAUSE: 'paused',
  FINISH: 'finished',
  FAILED: 'failed',
  SLICING: 'busy',
  INIT: 'busy',
  OFFLINE: 'offline',
};

/**
 * The merged report in Layerline's words. `cancelled` says the connection saw print_error
 * 50348044 during this FAILED (the printer clears it a moment later).
 */
export function readBambuStatus(report: PrintReport, cancelled: boolean): PrinterStatus {
  const vendorState = report.gcode_state ?? null;
  const temperatures = {
    nozzle: { actual: report.nozzle_temper ?? null, target: report.nozzle_target_temper ?? null },
    bed: { actual: report.bed_temper ?? null, target: report.bed_target_temper ?? null },
  };
  if (vendorState === null) {
    return { ...blankStatus('unknown'), temperatures, errorText: 'The printer has not said its gcode_state yet' };
  }
  let state = GCODE_STATES[vendorState.toUpperCase()] ?? 'unknown';
  const words = printerWords(report);
  if (state === 'paused' && report.stg_cur !== 16 && (report.stg_cur !== undefined && STAGE_WORDS[report.stg_cur] || (report.hms ?? []).length > 0)) {
    state = 'attention';
  }
  if (state === 'failed' && (cancelled || report.print_error === CANCELLED_BY_USER)) state = 'cancelled';
  const progress = typeof report.mc_percent === 'number' && state !== 'idle' ? Math.min(1, Math.max(0, report.mc_percent / 100)) : null;
  const active = state === 'printing' || state === 'paused' || state === 'attention';
  const errorText =
    state === 'unknown'
      ? `The printer reports a gcode_state Layerline does not know: ${vendorState}`
      : state === 'attention' || state === 'failed' || state === 'error'
        ? (words ?? 'The printer stopped without saying why')
        : state === 'cancelled'
          ? 'Cancelled on the printer'
          : null;
  return {
    state,
    progress: state === 'finished' ? 1 : progress,
    // subtask_name is the name the farm gave the job (project_file's subtask_name); gcode_file the plate inside it.
    fileName: state === 'idle' ? null : report.subtask_name || report.gcode_file || null,
    currentLayer: report.layer_num ?? null,
    totalLayers: report.total_layer_num ?? null,
    // mc_remaining_time is in minutes (ha-bambulab utils.py L376–379).
    secondsLeft: active && typeof report.mc_remaining_time === 'number' ? report.mc_remaining_time * 60 : null,
    temperatures,
    errorText,
    vendorState,
  };
}
