import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { MoonrakerConnection, PrinterStatus } from '@layerline/contracts';
import {
  blankStatus,
  failed,
  outcomeUnknown,
  printFileNameProblem,
  succeeded,
  type PrintOutcome,
  type PrinterDriver,
  type PrinterResult,
} from '../../modules/production/printer-driver.ts';
import { createPrinterHttp, parseAnswer } from '../http-client/printer-http.ts';
import type { PrinterTransportOptions } from '../http-client/printer-transport-options.ts';

/**
 * Moonraker (Klipper's API server), read as shared/contracts/printers/moonraker-klipper.md describes
 * it (Arksine/moonraker d5ee1712…, Klipper3d/klipper 84104bbb…). Optional `X-Api-Key`. Calls:
 * - probe: GET /server/info, then GET /printer/info for Klipper's version when Klippy is ready
 * - upload: POST /server/files/upload, multipart `file` + `root=gcodes` + `checksum` + `print`;
 *   a file Moonraker queued instead of printing is taken back out of its job queue
 * - start: POST /printer/print/start?filename=…
 * - pause / resume / cancel: POST /printer/print/pause | resume | cancel
 * - status: GET /printer/objects/query?webhooks&print_stats&virtual_sdcard&extruder&heater_bed,
 *   and while paused the filament sensors (GET /printer/objects/list names them)
 * - lastOutcome: GET /server/history/list (newest first)
 * - skipObjects: GET /printer/objects/query?exclude_object, then per part
 *   POST /printer/gcode/script?script=EXCLUDE_OBJECT NAME=… (Klipper docs/Exclude_Object.md)
 * Every answer is `{"result": …}`; errors are `{"error": {code, message}}`.
 */
const VENDOR = 'Moonraker';

const okSchema = z.object({ result: z.literal('ok') });

const serverInfoSchema = z.object({
  result: z.object({ klippy_state: z.string(), moonraker_version: z.string().optional() }),
});
const printerInfoSchema = z.object({ result: z.object({ software_version: z.string().optional() }) });

const uploadSchema = z.object({
  result: z.object({
    item: z.object({ path: z.string() }),
    print_started: z.boolean().optional(),
    print_queued: z.boolean().optional(),
  }),
});

const queueSchema = z.object({
  result: z.object({ queued_jobs: z.array(z.object({ filename: z.string(), job_id: z.string() })) }),
});

const historySchema = z.object({
  result: z.object({ jobs: z.array(z.object({ filename: z.string(), status: z.string() })) }),
});

const excludeObjectSchema = z.object({
  result: z.object({
    status: z.object({
      exclude_object: z
        .object({
          objects: z.array(z.object({ name: z.string() })),
          excluded_objects: z.array(z.string()),
        })
        .optional(),
    }),
  }),
});

/** What may follow NAME= in a G-code command without reaching another parameter or command. */
const OBJECT_LABEL = /^[A-Za-z0-9_]{1,64}$/;

const objectsListSchema = z.object({ result: z.object({ objects: z.array(z.string()) }) });

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
type MoonrakerStatusAnswer = z.infer<typeof statusSchema>;

const sensorsSchema = z.object({
  result: z.object({
    status: z.record(z.string(), z.object({ filament_detected: z.boolean().optional() })),
  }),
});

/** Klipper's runout sensors (klippy/extras/filament_switch_sensor.py; the motion sensor reports alike). */
const FILAMENT_SENSOR = /^filament_(switch|motion)_sensor /;

/**
 * Klippy host states (webhooks.state; moonraker-klipper.md §3): anything but `ready` means Klipper
 * cannot print. shutdown and error need a person (firmware_restart, a config fix); startup passes.
 */
const klippyStates: Readonly<Record<string, PrinterStatus['state']>> = {
  shutdown: 'error',
  error: 'error',
  startup: 'offline',
};

/** print_stats.state (Klipper's print_stats.py; moonraker-klipper.md §3) → ours; paused may become attention. */
const printStates: Readonly<Record<string, PrinterStatus['state']>> = {
  standby: 'idle',
  printing: 'printing',
  paused: 'paused',
  complete: 'finished',
  cancelled: 'cancelled',
  error: 'failed',
};

/** Moonraker's job history statuses (history.md, hist.py) → how the print ended. */
const historyOutcomes: Readonly<Record<string, PrintOutcome['outcome']>> = {
  completed: 'completed',
  cancelled: 'cancelled',
  error: 'failed',
  klippy_shutdown: 'failed',
  klippy_disconnect: 'failed',
  // Moonraker itself stopped (server_exit: it was restarted; interrupted: it was killed) while
  // Klipper, which does not need it to print, may well have finished the job: not known.
  server_exit: 'unknown',
  interrupted: 'unknown',
  in_progress: 'unknown',
};

const historyWords: Readonly<Record<string, string>> = {
  error: 'the print stopped with an error (Moonraker history: error)',
  klippy_shutdown: 'Klipper shut down during the print (Moonraker history: klippy_shutdown)',
  klippy_disconnect: 'Klipper lost its connection during the print (Moonraker history: klippy_disconnect)',
};

/** Moonraker's webhooks + print_stats → ours (table in docs/printers.md). */
const moonrakerStatus = (answer: MoonrakerStatusAnswer, runout: string | null): PrinterStatus => {
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
    const state = klippyStates[webhooks.state] ?? 'unknown';
    const words =
      webhooks.state === 'startup'
        ? 'Klipper is starting'
        : webhooks.state_message || `Klipper is in state ${webhooks.state}`;
    return { ...blankStatus(state), temperatures, errorText: words, vendorState: webhooks.state };
  }
  if (!stats) {
    return {
      ...blankStatus('error'),
      temperatures,
      errorText: 'Klipper has no print_stats object (is [virtual_sdcard] configured?)',
      vendorState: webhooks.state,
    };
  }
  const mapped = printStates[stats.state] ?? 'unknown';
  const state = mapped === 'paused' && runout ? 'attention' : mapped;
  const progress =
    stats.state === 'standby' || typeof sdcard?.progress !== 'number'
      ? null
      : Math.min(1, Math.max(0, sdcard.progress));
  const active = state === 'printing' || state === 'paused' || state === 'attention';
  const elapsed = stats.print_duration;
  const secondsLeft =
    active && progress !== null && progress > 0 && typeof elapsed === 'number'
      ? Math.max(0, Math.round(elapsed / progress - elapsed))
      : null;
  const errorText =
    state === 'failed'
      ? stats.message || 'The print stopped with an error'
      : state === 'attention'
        ? runout
        : state === 'unknown'
          ? `Klipper reports a print state Layerline does not know: ${stats.state}`
          : null;
  return {
    state,
    progress: state === 'finished' ? 1 : progress,
    fileName: stats.filename || null,
    currentLayer: stats.info?.current_layer ?? null,
    totalLayers: stats.info?.total_layer ?? null,
    secondsLeft,
    temperatures,
    errorText,
    vendorState: stats.state,
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

  const read = async <T>(
    path: string,
    operation: string,
    schema: z.ZodType<T>,
  ): Promise<PrinterResult<T>> => {
    const answer = await http.call({ method: 'GET', path, headers, operation, kind: 'read' });
    return answer.ok ? parseAnswer(schema, answer.value.body, VENDOR, operation) : answer;
  };

  /** A print command: "ok", or Klipper's refusal (400, kconn.py L557) with its words. */
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
      // "SD busy": a print is loaded (virtual_sdcard.py L161–163).
      const kind = /SD busy/i.test(reason) ? 'busy' : 'rejected';
      return failed(kind, `${VENDOR} ${operation} refused: ${reason}`, 400);
    }
    const ok = parseAnswer(okSchema, body, VENDOR, operation);
    return ok.ok ? succeeded(undefined) : ok;
  };

  /**
   * With queue_gcode_uploads Moonraker queues a file it cannot print now. Left there it would
   * start by itself after the current print (onto a bed nobody cleared) or be printed twice once
   * the farm sends it again, so it is taken out: every queue entry of this file is removed.
   */
  const takeOutOfQueue = async (fileName: string): Promise<PrinterResult<void>> => {
    const queue = await read('/server/job_queue/status', 'job queue status', queueSchema);
    if (!queue.ok) return queue;
    const ids = queue.value.result.queued_jobs
      .filter((job) => job.filename === fileName)
      .map((job) => job.job_id);
    if (ids.length === 0) return succeeded(undefined);
    const removed = await http.call({
      method: 'DELETE',
      path: '/server/job_queue/job',
      query: { job_ids: ids.join(',') },
      headers,
      operation: 'job queue removal',
      kind: 'command',
    });
    if (!removed.ok) return removed;
    const after = parseAnswer(queueSchema, removed.value.body, VENDOR, 'job queue removal');
    if (!after.ok) return after;
    return after.value.result.queued_jobs.some((job) => job.filename === fileName)
      ? failed('rejected', `${VENDOR} kept ${fileName} in its job queue after we removed it`)
      : succeeded(undefined);
  };

  /** The name of a filament sensor that reports no filament, or null (only asked while paused). */
  const runoutSensor = async (): Promise<PrinterResult<string | null>> => {
    const list = await read('/printer/objects/list', 'objects list', objectsListSchema);
    if (!list.ok) return list;
    const sensors = list.value.result.objects.filter((name) => FILAMENT_SENSOR.test(name));
    if (sensors.length === 0) return succeeded(null);
    const query = sensors.map(encodeURIComponent).join('&');
    const states = await read(`/printer/objects/query?${query}`, 'filament sensors', sensorsSchema);
    if (!states.ok) return states;
    const empty = Object.entries(states.value.result.status).find(
      ([, sensor]) => sensor.filament_detected === false,
    );
    return succeeded(empty ? `Filament ran out (sensor ${empty[0].replace(FILAMENT_SENSOR, '')})` : null);
  };

  const excludeObjectState = () =>
    read('/printer/objects/query?exclude_object', 'exclude_object query', excludeObjectSchema);

  return {
    kind: 'moonraker',

    async probe() {
      const started = now();
      const server = await read('/server/info', 'server info', serverInfoSchema);
      if (!server.ok) return server;
      const { klippy_state: klippy, moonraker_version: version } = server.value.result;
      let firmware = `Klipper (${klippy})`;
      if (klippy === 'ready') {
        const printer = await read('/printer/info', 'printer info', printerInfoSchema);
        if (!printer.ok) return printer;
        const klipper = printer.value.result.software_version;
        firmware = klipper ? `Klipper ${klipper}` : 'Klipper';
      }
      return succeeded({
        kind: 'moonraker' as const,
        software: `Moonraker ${version ?? ''}`.trim(),
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
      // Moonraker checks it and refuses a file damaged on the way (422, file_manager.py L896–935).
      form.set('checksum', createHash('sha256').update(file.bytes).digest('hex'));
      // Blob copies the bytes; the DOM typing (bench and e2e compile this too) only admits unshared buffers.
      form.set(
        'file',
        new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' }),
        file.fileName,
      );
      const result = await http.call({
        method: 'POST',
        path: '/server/files/upload',
        headers,
        body: form,
        operation: 'upload',
        kind: 'upload',
        acceptStatuses: [403, 422],
      });
      if (!result.ok) return result;
      const { status, body } = result.value;
      if (status === 403) {
        const reason = describeMoonrakerError(body);
        // file_manager.py L544–564: the file being printed or paused cannot be replaced. Moonraker's
        // own refusal of a key is 401, so any other 403 is a refusal of this upload, not of us.
        return /File is loaded|in use/i.test(reason)
          ? failed(
              'busy',
              `${VENDOR} is printing ${file.fileName} now and will not replace it (${reason})`,
              403,
            )
          : failed('rejected', `${VENDOR} refused the upload: ${reason}`, 403);
      }
      if (status === 422)
        return failed('rejected', `${VENDOR} refused the upload: ${describeMoonrakerError(body)}`, 422);
      const answer = parseAnswer(uploadSchema, body, VENDOR, 'upload');
      if (!answer.ok) return answer;
      const { item, print_started: started, print_queued: queued } = answer.value.result;
      if (queued === true) {
        const removed = await takeOutOfQueue(item.path);
        if (!removed.ok) {
          return failed(
            'not_allowed',
            `${VENDOR} put ${item.path} in its job queue instead of printing it, and it could not be taken out ` +
              `(${removed.failure.message}): remove it from the queue on the printer, and set ` +
              '[file_manager] queue_gcode_uploads: False',
          );
        }
        return failed('busy', `${VENDOR}: the printer is busy; the file was not left in its queue`);
      }
      return succeeded({ fileName: item.path, printStarted: started === true });
    },

    async start(fileName) {
      const problem = printFileNameProblem(fileName);
      if (problem) return failed('rejected', problem);
      return printCommand('/printer/print/start', 'start', { filename: fileName });
    },
    pause: () => printCommand('/printer/print/pause', 'pause'),
    resume: () => printCommand('/printer/print/resume', 'resume'),
    cancel: () => printCommand('/printer/print/cancel', 'cancel'),

    async status() {
      const result = await http.call({
        method: 'GET',
        // Moonraker reads the objects from the query string's bare keys (introduction.md L362–420).
        path: '/printer/objects/query?webhooks&print_stats&virtual_sdcard&extruder&heater_bed',
        headers,
        operation: 'objects query',
        kind: 'read',
        acceptStatuses: [503],
      });
      if (!result.ok) return result;
      if (result.value.status === 503) {
        // Klippy is not running (klippy_connection.py L216, L607, L776).
        return succeeded({
          ...blankStatus('offline'),
          errorText: `Klipper is not connected to Moonraker (${describeMoonrakerError(result.value.body)})`,
          vendorState: 'disconnected',
        });
      }
      const answer = parseAnswer(statusSchema, result.value.body, VENDOR, 'objects query');
      if (!answer.ok) return answer;
      const { webhooks, print_stats: stats } = answer.value.result.status;
      let runout: string | null = null;
      if (webhooks.state === 'ready' && stats?.state === 'paused') {
        const sensor = await runoutSensor();
        if (!sensor.ok) return sensor;
        runout = sensor.value;
      }
      return succeeded(moonrakerStatus(answer.value, runout));
    },

    /**
     * EXCLUDE_OBJECT accepts any name, defined or not, and a Klipper without [exclude_object]
     * takes it as an unknown command and still answers "ok" (exclude_object.py, gcode.py): so the
     * plate's objects are checked first and the exclusion read back, never assumed.
     */
    async skipObjects(objects) {
      const unsafe = objects.find((object) => !OBJECT_LABEL.test(object.label));
      if (unsafe) return failed('rejected', `Object label “${unsafe.label}” is not one Klipper can be given`);
      const before = await excludeObjectState();
      if (!before.ok) return before;
      const state = before.value.result.status.exclude_object;
      if (!state)
        return failed('rejected', 'Klipper has no [exclude_object] section in printer.cfg, so it cannot skip a part');
      const defined = new Set(state.objects.map((object) => object.name.toUpperCase()));
      const unknown = objects.find((object) => !defined.has(object.label.toUpperCase()));
      if (unknown)
        return failed('rejected', `The print on the printer defines no object ${unknown.label} (is it the plate's file?)`);
      for (const object of objects) {
        const sent = await printCommand('/printer/gcode/script', 'exclude object', {
          script: `EXCLUDE_OBJECT NAME=${object.label}`,
        });
        if (!sent.ok) return sent;
      }
      const after = await excludeObjectState();
      if (!after.ok) return after;
      const excluded = new Set(after.value.result.status.exclude_object?.excluded_objects.map((n) => n.toUpperCase()));
      const missed = objects.find((object) => !excluded.has(object.label.toUpperCase()));
      return missed
        ? failed('bad_answer', `Klipper answered "ok" but does not list ${missed.label} as excluded`)
        : succeeded(undefined);
    },

    async lastOutcome(fileName) {
      const result = await http.call({
        method: 'GET',
        // Newest first is Moonraker's default order (history.py _handle_jobs_list); 50 rows reach
        // back past any job the farm still waits on.
        path: '/server/history/list',
        query: { limit: '50', order: 'desc' },
        headers,
        operation: 'job history',
        kind: 'read',
        acceptStatuses: [404],
      });
      if (!result.ok) return result;
      // No [history] component: Moonraker keeps no record of past prints.
      if (result.value.status === 404) return succeeded(outcomeUnknown);
      const history = parseAnswer(historySchema, result.value.body, VENDOR, 'job history');
      if (!history.ok) return history;
      const job = history.value.result.jobs.find((entry) => entry.filename === fileName);
      if (!job) return succeeded(outcomeUnknown);
      const outcome = historyOutcomes[job.status] ?? 'unknown';
      return succeeded({
        outcome,
        message: outcome === 'failed' ? (historyWords[job.status] ?? null) : null,
      });
    },
  };
};
