import { z } from 'zod';
import type { OctoprintConnection, PrinterStatus } from '@layerline/contracts';
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
 * OctoPrint's REST API (docs/api/*.rst in OctoPrint/OctoPrint), authenticated with the
 * `X-Api-Key` header. Calls:
 * - probe: GET /api/version
 * - upload: POST /api/files/local, multipart `file` + `select` + `print` (print=true starts it)
 * - start: POST /api/files/local/{name} {"command":"select","print":true}
 * - pause / resume / cancel: POST /api/job {"command":"pause","action":"pause"|"resume"} / {"command":"cancel"}
 * - status: GET /api/printer (state flags, temperatures; 409 when the printer is not connected)
 *           and GET /api/job (file, progress, time left, error)
 */
const VENDOR = 'OctoPrint';

const temperature = z
  .object({ actual: z.number().nullable().optional(), target: z.number().nullable().optional() })
  .partial();

const printerSchema = z.object({
  temperature: z.record(z.string(), z.unknown()).optional(),
  state: z.object({
    text: z.string(),
    flags: z.object({
      operational: z.boolean(),
      paused: z.boolean(),
      printing: z.boolean(),
      cancelling: z.boolean().optional(),
      pausing: z.boolean().optional(),
      finishing: z.boolean().optional(),
      error: z.boolean(),
      ready: z.boolean(),
      closedOrError: z.boolean(),
    }),
  }),
});

const jobSchema = z.object({
  job: z.object({
    file: z.object({ name: z.string().nullable().optional() }).partial(),
    estimatedPrintTime: z.number().nullable().optional(),
  }),
  progress: z.object({
    completion: z.number().nullable().optional(),
    printTime: z.number().nullable().optional(),
    printTimeLeft: z.number().nullable().optional(),
  }),
  state: z.string(),
  error: z.string().optional(),
});

const versionSchema = z.object({ api: z.string(), server: z.string(), text: z.string().optional() });

const uploadSchema = z.object({
  files: z.object({ local: z.object({ name: z.string(), path: z.string().optional() }) }),
  done: z.boolean().optional(),
  effectivePrint: z.boolean().optional(),
});

export type OctoprintPrinterAnswer = z.infer<typeof printerSchema>;
export type OctoprintJobAnswer = z.infer<typeof jobSchema>;

const readTemperature = (raw: unknown): { actual: number | null; target: number | null } => {
  const parsed = temperature.safeParse(raw);
  if (!parsed.success) return { actual: null, target: null };
  return { actual: parsed.data.actual ?? null, target: parsed.data.target ?? null };
};

/** OctoPrint's state flags and job → our status (table in docs/printers.md). */
export const octoprintStatus = (
  printer: OctoprintPrinterAnswer | null,
  job: OctoprintJobAnswer | null,
): PrinterStatus => {
  if (!printer) {
    // 409 from /api/printer: OctoPrint runs but no printer is connected to it.
    return { ...blankStatus('offline'), errorText: job?.error ?? null };
  }
  const flags = printer.state.flags;
  const completion = job?.progress.completion;
  const progress = typeof completion === 'number' ? Math.min(1, Math.max(0, completion / 100)) : null;
  let state: PrinterStatus['state'];
  if (flags.error) state = 'error';
  else if (flags.closedOrError || !flags.operational) state = 'offline';
  else if (flags.paused || flags.pausing) state = 'paused';
  else if (flags.printing || flags.finishing) state = 'printing';
  else if (flags.cancelling) state = 'busy';
  else if (progress !== null && progress >= 1 && job?.job.file.name) state = 'finished';
  else state = 'idle';
  const temps = printer.temperature ?? {};
  return {
    state,
    progress,
    fileName: job?.job.file.name ?? null,
    currentLayer: null,
    totalLayers: null,
    secondsLeft: state === 'printing' || state === 'paused' ? (job?.progress.printTimeLeft ?? null) : null,
    temperatures: { nozzle: readTemperature(temps.tool0), bed: readTemperature(temps.bed) },
    errorText: state === 'error' ? (job?.error ?? printer.state.text) : null,
  };
};

export const createOctoprintDriver = (
  connection: OctoprintConnection,
  options: PrinterTransportOptions,
): PrinterDriver => {
  const http = createPrinterHttp({ vendor: VENDOR, baseUrl: connection.baseUrl, ...options });
  const headers = { 'x-api-key': connection.apiKey };
  const now = options.now ?? Date.now;

  const jobCommand = async (
    command: Record<string, string>,
    operation: string,
  ): Promise<PrinterResult<void>> => {
    const result = await http.call({
      method: 'POST',
      path: '/api/job',
      headers,
      json: command,
      operation,
      kind: 'command',
      acceptStatuses: [409],
    });
    if (!result.ok) return result;
    if (result.value.status === 409) {
      return failed(
        'rejected',
        `${VENDOR} ${operation}: no print job is active (or the printer is not operational)`,
        409,
      );
    }
    return succeeded(undefined);
  };

  return {
    kind: 'octoprint',

    async probe() {
      const started = now();
      const result = await http.call({
        method: 'GET',
        path: '/api/version',
        headers,
        operation: 'version',
        kind: 'read',
      });
      if (!result.ok) return result;
      const version = parseAnswer(versionSchema, result.value.body, VENDOR, 'version');
      if (!version.ok) return version;
      return succeeded({
        kind: 'octoprint' as const,
        software: version.value.text ?? `OctoPrint ${version.value.server}`,
        firmware: null,
        latencyMs: now() - started,
      });
    },

    async upload(file, { startPrint }) {
      const problem = printFileNameProblem(file.fileName);
      if (problem) return failed('rejected', problem);
      const form = new FormData();
      // Blob copies the bytes; the DOM typing (bench and e2e compile this too) only admits unshared buffers.
      form.set('file', new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' }), file.fileName);
      form.set('select', startPrint ? 'true' : 'false');
      form.set('print', startPrint ? 'true' : 'false');
      const result = await http.call({
        method: 'POST',
        path: '/api/files/local',
        headers,
        body: form,
        operation: 'upload',
        kind: 'upload',
      });
      if (!result.ok) return result;
      const answer = parseAnswer(uploadSchema, result.value.body, VENDOR, 'upload');
      if (!answer.ok) return answer;
      if (startPrint && answer.value.effectivePrint === false) {
        return failed(
          'busy',
          `${VENDOR} stored ${file.fileName} but did not start it: the printer is not operational`,
        );
      }
      return succeeded({
        fileName: answer.value.files.local.path ?? answer.value.files.local.name,
        printStarted: startPrint && answer.value.effectivePrint !== false,
      });
    },

    async start(fileName) {
      const problem = printFileNameProblem(fileName);
      if (problem) return failed('rejected', problem);
      const result = await http.call({
        method: 'POST',
        path: `/api/files/local/${encodeURIComponent(fileName)}`,
        headers,
        json: { command: 'select', print: true },
        operation: 'start',
        kind: 'command',
      });
      return result.ok ? succeeded(undefined) : result;
    },

    pause: () => jobCommand({ command: 'pause', action: 'pause' }, 'pause'),
    resume: () => jobCommand({ command: 'pause', action: 'resume' }, 'resume'),
    cancel: () => jobCommand({ command: 'cancel' }, 'cancel'),
    lastOutcome: async () => succeeded(outcomeUnknown),

    async status() {
      const printerCall = await http.call({
        method: 'GET',
        path: '/api/printer',
        query: { exclude: 'sd' },
        headers,
        operation: 'printer state',
        kind: 'read',
        acceptStatuses: [409],
      });
      if (!printerCall.ok) return printerCall;
      const jobCall = await http.call({
        method: 'GET',
        path: '/api/job',
        headers,
        operation: 'job',
        kind: 'read',
      });
      if (!jobCall.ok) return jobCall;
      const job = parseAnswer(jobSchema, jobCall.value.body, VENDOR, 'job');
      if (!job.ok) return job;
      if (printerCall.value.status === 409) return succeeded(octoprintStatus(null, job.value));
      const printer = parseAnswer(printerSchema, printerCall.value.body, VENDOR, 'printer state');
      if (!printer.ok) return printer;
      return succeeded(octoprintStatus(printer.value, job.value));
    },
  };
};
