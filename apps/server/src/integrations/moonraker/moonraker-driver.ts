import { z } from 'zod';
import type { MoonrakerConnection, PrinterStatus } from '@layerline/contracts';
import {
  blankStatus,
  failed,
  printFileNameProblem,
  outcomeUnknown,
  succeeded,
  type PrinterDriver,
  type PrinterResult,
} from '../../modules/production/printer-driver.ts';
import { createPrinterHttp, parseAnswer } from '../http-client/printer-http.ts';
import type { PrinterTransportOptions } from '../http-client/printer-transport-options.ts';

/**
 * Moonraker (Klipper's API server; Arksine/moonraker docs/external_api/*.md), optional `X-Api-Key`.
 * Calls:
 * - probe: GET /server/info, then GET /printer/info for Klipper's version when Klippy is ready
 * - upload: POST /server/files/upload, multipart `file` + `root=gcodes` + `print=true|false`
 * - start: POST /printer/print/start?filename=…
 * - pause / resume / cancel: POST /printer/print/pause | resume | cancel
 * - status: GET /printer/objects/query?print_stats&virtual_sdcard&webhooks&extruder&heater_bed
 * Every answer is `{"result": …}` (the upload's may be bare; both are accepted).
 */
const VENDOR = 'Moonraker';

const okSchema = z.object({ result: z.literal('ok') });

const serverInfoSchema = z.object({
  result: z.object({ klippy_state: z.string(), moonraker_version: z.string().optional() }),
});
const printerInfoSchema = z.object({ result: z.object({ software_version: z.string().optional() }) });

const uploadBody = z.object({
  item: z.object({ path: z.string(), root: z.string().optional() }),
  print_started: z.boolean().optional(),
});
const uploadSchema = z.union([z.object({ result: uploadBody }).transform((v) => v.result), uploadBody]);

const heater = z.object({
  temperature: z.number().nullable().optional(),
  target: z.number().nullable().optional(),
});
const statusSchema = z.object({
  result: z.object({
    status: z.object({
      webhooks: z.object({ state: z.string(), state_message: z.string().optional() }),
      print_stats: z
        .object({
          filename: z.string().nullable().optional(),
          print_duration: z.number().optional(),
          state: z.string(),
          message: z.string().optional(),
          info: z
            .object({
              total_layer: z.number().int().nullable().optional(),
              current_layer: z.number().int().nullable().optional(),
            })
            .partial()
            .optional(),
        })
        .optional(),
      virtual_sdcard: z.object({ progress: z.number().optional() }).optional(),
      extruder: heater.optional(),
      heater_bed: heater.optional(),
    }),
  }),
});
export type MoonrakerStatusAnswer = z.infer<typeof statusSchema>;

/** Moonraker's webhooks + print_stats states → ours (table in docs/printers.md). */
export const moonrakerStatus = (answer: MoonrakerStatusAnswer): PrinterStatus => {
  const {
    webhooks,
    print_stats: stats,
    virtual_sdcard: sdcard,
    extruder,
    heater_bed: bed,
  } = answer.result.status;
  const temperatures = {
    nozzle: { actual: extruder?.temperature ?? null, target: extruder?.target ?? null },
    bed: { actual: bed?.temperature ?? null, target: bed?.target ?? null },
  };
  if (webhooks.state !== 'ready') {
    // startup: Klippy is still starting; shutdown / error: Klipper stopped (emergency stop, MCU lost...).
    const state = webhooks.state === 'startup' ? 'offline' : 'error';
    return {
      ...blankStatus(state),
      temperatures,
      errorText: webhooks.state_message ?? `Klipper is in state ${webhooks.state}`,
    };
  }
  if (!stats)
    return {
      ...blankStatus('error'),
      temperatures,
      errorText: 'Klipper has no print_stats object (is [virtual_sdcard] configured?)',
    };
  const byState: Record<string, PrinterStatus['state']> = {
    standby: 'idle',
    printing: 'printing',
    paused: 'paused',
    complete: 'finished',
    cancelled: 'idle',
    error: 'error',
  };
  const state = byState[stats.state] ?? 'busy';
  const rawProgress = sdcard?.progress;
  const progress =
    state === 'idle' && stats.state === 'standby'
      ? null
      : typeof rawProgress === 'number'
        ? Math.min(1, Math.max(0, rawProgress))
        : null;
  const active = state === 'printing' || state === 'paused';
  const elapsed = stats.print_duration;
  const secondsLeft =
    active && progress !== null && progress > 0 && typeof elapsed === 'number'
      ? Math.max(0, Math.round(elapsed / progress - elapsed))
      : null;
  return {
    state,
    progress: state === 'finished' ? 1 : progress,
    fileName: stats.filename || null,
    currentLayer: stats.info?.current_layer ?? null,
    totalLayers: stats.info?.total_layer ?? null,
    secondsLeft,
    temperatures,
    errorText: state === 'error' ? stats.message || 'The print stopped with an error' : null,
  };
};

const describeMoonrakerError = (body: unknown): string => {
  const parsed = z.object({ error: z.object({ message: z.string() }) }).safeParse(body);
  if (parsed.success) return parsed.data.error.message;
  return typeof body === 'string' ? body.slice(0, 200) : 'no reason given';
};

export const createMoonrakerDriver = (
  connection: MoonrakerConnection,
  options: PrinterTransportOptions,
): PrinterDriver => {
  const http = createPrinterHttp({ vendor: VENDOR, baseUrl: connection.baseUrl, ...options });
  const headers: Record<string, string> = connection.apiKey ? { 'x-api-key': connection.apiKey } : {};
  const now = options.now ?? Date.now;

  /** A print command: "ok", or Klipper's refusal (400) read as busy when a print is in progress. */
  const printCommand = async (
    path: string,
    operation: string,
    query?: Record<string, string>,
  ): Promise<PrinterResult<void>> => {
    const result = await http.call({
      method: 'POST',
      path,
      headers,
      operation,
      kind: 'command',
      acceptStatuses: [400, 503],
      ...(query ? { query } : {}),
    });
    if (!result.ok) return result;
    const { status, body } = result.value;
    if (status === 503)
      return failed(
        'unreachable',
        `${VENDOR} ${operation}: Klipper is not connected (${describeMoonrakerError(body)})`,
        503,
      );
    if (status === 400) {
      const reason = describeMoonrakerError(body);
      const kind = /in progress|already printing|busy/i.test(reason) ? 'busy' : 'rejected';
      return failed(kind, `${VENDOR} ${operation} refused: ${reason}`, 400);
    }
    const ok = parseAnswer(okSchema, body, VENDOR, operation);
    return ok.ok ? succeeded(undefined) : ok;
  };

  return {
    kind: 'moonraker',

    async probe() {
      const started = now();
      const info = await http.call({
        method: 'GET',
        path: '/server/info',
        headers,
        operation: 'server info',
        kind: 'read',
      });
      if (!info.ok) return info;
      const server = parseAnswer(serverInfoSchema, info.value.body, VENDOR, 'server info');
      if (!server.ok) return server;
      let firmware: string | null = null;
      if (server.value.result.klippy_state === 'ready') {
        const printer = await http.call({
          method: 'GET',
          path: '/printer/info',
          headers,
          operation: 'printer info',
          kind: 'read',
        });
        if (!printer.ok) return printer;
        const parsed = parseAnswer(printerInfoSchema, printer.value.body, VENDOR, 'printer info');
        if (!parsed.ok) return parsed;
        firmware = parsed.value.result.software_version
          ? `Klipper ${parsed.value.result.software_version}`
          : null;
      } else {
        firmware = `Klipper (${server.value.result.klippy_state})`;
      }
      return succeeded({
        kind: 'moonraker' as const,
        software: `Moonraker ${server.value.result.moonraker_version ?? ''}`.trim(),
        firmware,
        latencyMs: now() - started,
      });
    },

    async upload(file, { startPrint }) {
      const problem = printFileNameProblem(file.fileName);
      if (problem) return failed('rejected', problem);
      const form = new FormData();
      form.set('root', 'gcodes');
      form.set('print', startPrint ? 'true' : 'false');
      // Blob copies the bytes; the DOM typing (bench and e2e compile this too) only admits unshared buffers.
      form.set('file', new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' }), file.fileName);
      const result = await http.call({
        method: 'POST',
        path: '/server/files/upload',
        headers,
        body: form,
        operation: 'upload',
        kind: 'upload',
      });
      if (!result.ok) return result;
      const answer = parseAnswer(uploadSchema, result.value.body, VENDOR, 'upload');
      if (!answer.ok) return answer;
      return succeeded({
        fileName: answer.value.item.path,
        printStarted: answer.value.print_started === true,
      });
    },

    async start(fileName) {
      const problem = printFileNameProblem(fileName);
      if (problem) return failed('rejected', problem);
      return printCommand('/printer/print/start', 'start', { filename: fileName });
    },
    pause: () => printCommand('/printer/print/pause', 'pause'),
    resume: () => printCommand('/printer/print/resume', 'resume'),
    cancel: () => printCommand('/printer/print/cancel', 'cancel'),

    // PrusaLink-like placeholder until the history lookup lands (issue 20).
    lastOutcome: async () => succeeded(outcomeUnknown),

    async status() {
      const result = await http.call({
        method: 'GET',
        // Moonraker reads the objects from the query string's bare keys (introduction.md).
        path: '/printer/objects/query?print_stats&virtual_sdcard&webhooks&extruder&heater_bed',
        headers,
        operation: 'objects query',
        kind: 'read',
        acceptStatuses: [503],
      });
      if (!result.ok) return result;
      if (result.value.status === 503) {
        return succeeded({ ...blankStatus('offline'), errorText: describeMoonrakerError(result.value.body) });
      }
      const answer = parseAnswer(statusSchema, result.value.body, VENDOR, 'objects query');
      return answer.ok ? succeeded(moonrakerStatus(answer.value)) : answer;
    },
  };
};
