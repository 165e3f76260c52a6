import { z } from 'zod';
import type { OctoprintConnection, PrinterStatus } from '@layerline/contracts';
import {
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
 * OctoPrint's REST API, as OctoPrint 1.11.8 answers it (shared/contracts/printers/octoprint.md, read
 * from OctoPrint/OctoPrint at tag 1.11.8), authenticated with the `X-Api-Key` header. Calls:
 * - probe: GET /api/version (`api`, `server`, `text`: nothing else)
 * - upload: POST /api/files/local, multipart `file` + `select` + `print` (print=true starts it when
 *   the printer is ready; otherwise the file is still stored, 201, with `effectivePrint: false`)
 * - start: POST /api/files/local/{name} {"command":"select","print":true}
 * - pause / resume / cancel: POST /api/job {"command":"pause","action":"pause"|"resume"} / {"command":"cancel"}
 * - status: GET /api/printer (state flags, temperatures; 409 whenever the printer is not
 *   operational, Error included) and GET /api/job (always 200: file, progress, state text, error)
 * - lastOutcome: GET /api/files/local/{name} (`prints.last.success`, OctoPrint's print history)
 * Decisions read the state flags, not the text (texts vary: "Printing from SD", "Starting print
 * from SD"); the text only decides when /api/printer says 409 and /api/job is all there is.
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
      resuming: z.boolean().optional(),
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

const versionSchema = z.object({ api: z.string(), server: z.string(), text: z.string() });

const uploadSchema = z.object({
  files: z.object({ local: z.object({ name: z.string(), path: z.string().optional() }) }),
  done: z.boolean().optional(),
  effectivePrint: z.boolean().optional(),
});

/** A file's print history (docs/api/datamodel.rst, "Print History"; built in files.py L446–481). */
const fileDetailsSchema = z.object({
  name: z.string(),
  prints: z
    .object({
      success: z.number(),
      failure: z.number(),
      last: z.object({ success: z.boolean(), date: z.number().optional(), printTime: z.number().optional() }),
    })
    .optional(),
});

/** API errors are JSON `{"error": "..."}` (src/octoprint/server/util/flask.py, make_api_error). */
const apiErrorSchema = z.object({ error: z.string() });

export type OctoprintPrinterAnswer = z.infer<typeof printerSchema>;
export type OctoprintJobAnswer = z.infer<typeof jobSchema>;

/** State texts of a printer that is not (yet) connected (comm.py L965–1011). */
const NOT_CONNECTED_TEXTS = new Set(['Offline', 'Opening serial connection', 'Detecting serial connection', 'Connecting']);
/** Error, then Offline after error once the port is closed (comm.py L4073–4125). */
const ERROR_TEXTS = new Set(['Error', 'Offline after error']);

const readTemperature = (raw: unknown): { actual: number | null; target: number | null } => {
  const parsed = temperature.safeParse(raw);
  if (!parsed.success) return { actual: null, target: null };
  return { actual: parsed.data.actual ?? null, target: parsed.data.target ?? null };
};

const errorWords = (body: unknown): string | null => {
  const parsed = apiErrorSchema.safeParse(body);
  return parsed.success ? parsed.data.error : null;
};

/** The state from the flags of a 200 from /api/printer (docs/printers.md has the table). */
const stateFromFlags = (
  flags: OctoprintPrinterAnswer['state']['flags'],
  job: OctoprintJobAnswer,
): PrinterStatus['state'] => {
  if (flags.error) return 'error';
  if (flags.cancelling) return 'busy';
  if (flags.pausing || flags.paused) return 'paused';
  // `printing` covers Starting, Printing, Resuming and Finishing (comm.py L476–483).
  if (flags.printing || flags.resuming || flags.finishing) return 'printing';
  if (flags.operational && flags.ready) {
    // There is no "Finished" text: a completed print is Operational with completion exactly 100
    // and its file still selected (standard.py L1664–1672); after a cancel completion is null.
    return job.progress.completion === 100 && job.job.file.name ? 'finished' : 'idle';
  }
  return 'unknown';
};

/** OctoPrint's two answers → our status. `printer` is null when /api/printer said 409. */
export const octoprintStatus = (printer: OctoprintPrinterAnswer | null, job: OctoprintJobAnswer): PrinterStatus => {
  const vendorState = printer?.state.text ?? job.state;
  let state: PrinterStatus['state'];
  if (printer) state = stateFromFlags(printer.state.flags, job);
  // 409: not operational, and /api/job's text is all that says why (printer.py L19–23).
  else if (NOT_CONNECTED_TEXTS.has(job.state)) state = 'offline';
  else if (ERROR_TEXTS.has(job.state)) state = 'error';
  else state = 'unknown';
  const completion = job.progress.completion;
  const temps = printer?.temperature ?? {};
  return {
    state,
    progress: typeof completion === 'number' ? Math.min(1, Math.max(0, completion / 100)) : null,
    fileName: job.job.file.name ?? null,
    currentLayer: null,
    totalLayers: null,
    secondsLeft: state === 'printing' || state === 'paused' ? (job.progress.printTimeLeft ?? null) : null,
    temperatures: { nozzle: readTemperature(temps.tool0), bed: readTemperature(temps.bed) },
    errorText: state === 'error' || state === 'unknown' ? (job.error ?? vendorState) : null,
    vendorState,
  };
};

export const createOctoprintDriver = (
  connection: OctoprintConnection,
  options: PrinterTransportOptions,
): PrinterDriver => {
  const http = createPrinterHttp({ vendor: VENDOR, baseUrl: connection.baseUrl, ...options });
  const headers = { 'x-api-key': connection.apiKey };
  const now = options.now ?? Date.now;

  /**
   * A 403 on a print command comes from the PRINT permission (job.py L31, files.py L891) or from a
   * key OctoPrint does not know (every call is refused then): one read with the same key tells which.
   */
  const refusedCommand = async (operation: string): Promise<PrinterResult<never>> => {
    const check = await http.call({ method: 'GET', path: '/api/version', headers, operation: 'version', kind: 'read' });
    if (!check.ok) return check;
    return failed(
      'not_allowed',
      `${VENDOR} refused to ${operation} (403): the API key may not start or control prints; give its user the PRINT permission`,
      403,
    );
  };

  /** POST /api/files/local/{name} select+print: 409 when the printer is not ready (files.py L882–899). */
  const selectAndPrint = async (fileName: string): Promise<PrinterResult<void>> => {
    const result = await http.call({
      method: 'POST',
      path: `/api/files/local/${encodeURIComponent(fileName)}`,
      headers,
      json: { command: 'select', print: true },
      operation: 'start',
      kind: 'command',
      acceptStatuses: [403, 409],
    });
    if (!result.ok) return result;
    if (result.value.status === 403) return refusedCommand('start a print');
    if (result.value.status === 409) {
      const words = errorWords(result.value.body) ?? 'the printer is busy or not operational';
      return failed('busy', `${VENDOR} did not start ${fileName}: ${words}`, 409);
    }
    return succeeded(undefined);
  };

  const jobCommand = async (command: Record<string, string>, operation: string): Promise<PrinterResult<void>> => {
    const result = await http.call({
      method: 'POST',
      path: '/api/job',
      headers,
      json: command,
      operation,
      kind: 'command',
      acceptStatuses: [403, 409],
    });
    if (!result.ok) return result;
    if (result.value.status === 403) return refusedCommand(operation);
    if (result.value.status === 409) {
      // job.py L16–57: not operational, or no print job is active.
      const words = errorWords(result.value.body) ?? 'no print job is active, or the printer is not operational';
      return failed('rejected', `${VENDOR} could not ${operation}: ${words}`, 409);
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
        software: version.value.text,
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
        acceptStatuses: [409],
      });
      if (!result.ok) return result;
      if (result.value.status === 409) {
        // files.py L632–636: the same name as the file being printed.
        const words = errorWords(result.value.body) ?? 'the file is in use';
        return failed('busy', `${VENDOR} did not store ${file.fileName}: ${words}`, 409);
      }
      const answer = parseAnswer(uploadSchema, result.value.body, VENDOR, 'upload');
      if (!answer.ok) return answer;
      const fileName = answer.value.files.local.path ?? answer.value.files.local.name;
      if (startPrint && answer.value.effectivePrint === false) {
        // Stored but not started (files.py L574–599): the printer is not ready, or the key lacks
        // the PRINT permission. Asking once more names which (409 busy, 403 permission).
        const started = await selectAndPrint(fileName);
        if (!started.ok) return started;
      }
      return succeeded({ fileName, printStarted: startPrint });
    },

    async start(fileName) {
      const problem = printFileNameProblem(fileName);
      if (problem) return failed('rejected', problem);
      return selectAndPrint(fileName);
    },

    pause: () => jobCommand({ command: 'pause', action: 'pause' }, 'pause'),
    resume: () => jobCommand({ command: 'pause', action: 'resume' }, 'resume'),
    cancel: () => jobCommand({ command: 'cancel' }, 'cancel'),

    async lastOutcome(fileName) {
      if (printFileNameProblem(fileName)) return succeeded(outcomeUnknown);
      const result = await http.call({
        method: 'GET',
        path: `/api/files/local/${encodeURIComponent(fileName)}`,
        headers,
        operation: 'file details',
        kind: 'read',
        acceptStatuses: [404],
      });
      if (!result.ok) return result;
      if (result.value.status === 404) return succeeded(outcomeUnknown);
      const details = parseAnswer(fileDetailsSchema, result.value.body, VENDOR, 'file details');
      if (!details.ok) return details;
      const last = details.value.prints?.last;
      if (!last) return succeeded(outcomeUnknown);
      if (last.success) return succeeded({ outcome: 'completed', message: null });
      // OctoPrint logs a cancelled print as not successful, like one that failed (standard.py L1774–1785).
      return succeeded({
        outcome: 'failed',
        message: `${VENDOR} records the last print of ${fileName} as not successful (it failed or was cancelled; OctoPrint does not say which)`,
      });
    },

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
