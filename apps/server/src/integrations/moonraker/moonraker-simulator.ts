import { createHash, randomBytes } from 'node:crypto';
import type { PrinterConnectionInput } from '@layerline/contracts';
import {
  startFakePrinterServer,
  type FakeAnswer,
  type FakeRequest,
} from '../http-client/fake-printer-server.ts';
import type { PrinterSimulator } from '../printer-drivers/printer-simulator.ts';
import { startSwitchableListener } from '../http-client/switchable-listener.ts';
import { createEjectRecorder } from '../printer-drivers/eject-tail-run.ts';

/**
 * Moonraker in front of Klipper, answering as the real pair does. Every behaviour is taken from
 * shared/contracts/printers/moonraker-klipper.md, which read it from Arksine/moonraker
 * d5ee17128bb88434aacdab90c2e9e990e2b64e4a and Klipper3d/klipper
 * 84104bbbd7625d28b4eaaad83f4562972460ecd9; the comments below cite the same files and lines
 * (fm.py = moonraker/components/file_manager/file_manager.py, kapis.py = klippy_apis.py,
 * kconn.py = klippy_connection.py, jq.py = job_queue.py, hist.py = history.py; ps.py, vsd.py,
 * pr.py, fss.py = klippy/extras/print_stats.py, virtual_sdcard.py, pause_resume.py,
 * filament_switch_sensor.py).
 */
export interface MoonrakerSimulatorOptions {
  /** The key Moonraker's [authorization] wants in X-Api-Key; null: a trusted client needs none. */
  readonly apiKey?: string | null;
  /** `[file_manager] queue_gcode_uploads` (default False, docs/configuration.md L119–126). */
  readonly queueGcodeUploads?: boolean;
  /** `[job_queue] automatic_transition` (default False, jq.py L35–44). */
  readonly automaticTransition?: boolean;
  /** The name of a `[filament_switch_sensor <name>]`, or null when the printer has none. */
  readonly runoutSensor?: string | null;
  /** printer.cfg has an `[exclude_object]` section (default true): parts of a plate can be skipped. */
  readonly excludeObject?: boolean;
}

export type KlippyState = 'ready' | 'startup' | 'error' | 'shutdown' | 'disconnected';

/** Klipper's own life beyond what every vendor's simulator offers. */
export interface MoonrakerSimulator extends PrinterSimulator {
  /**
   * Klipper shuts down (a heater fault, an MCU lost): webhooks and klippy_state `shutdown` with
   * this message, the print stopped, history `klippy_shutdown`. Leaves it with
   * POST /printer/firmware_restart.
   */
  shutdownKlipper(message: string): void;
  /** Klippy starting, in a config error, or its process gone (503 on /printer/*); back to ready. */
  setKlippy(state: 'startup' | 'error' | 'disconnected' | 'ready', message?: string): void;
  /** Moonraker's job queue as GET /server/job_queue/status lists it. */
  readonly queuedFiles: readonly string[];
  /**
   * The server restarts; `graceful` (systemctl restart) records a running job as `server_exit`
   * (hist.py on_exit), otherwise (Moonraker killed) it is found `interrupted` at start-up.
   */
  restartServer(options?: { graceful?: boolean }): Promise<void>;
  /** Klipper's exclude_object `excluded_objects`: the names EXCLUDE_OBJECT was given, upper-cased. */
  readonly excludedObjects: readonly string[];
}

type PrintState = 'standby' | 'printing' | 'paused' | 'complete' | 'cancelled' | 'error';

interface HistoryRow {
  readonly job_id: string;
  readonly filename: string;
  status: string;
  readonly start_time: number;
  end_time: number | null;
  print_duration: number;
  total_duration: number;
  filament_used: number;
  readonly user: string | null;
}

interface QueuedJob {
  readonly filename: string;
  readonly job_id: string;
  readonly time_added: number;
}

const MOONRAKER_VERSION = 'v0.9.3-86-gd5ee171';
const KLIPPER_VERSION = 'v0.12.0-85-gd785b396';
/** A print's length when the test moves it along by fraction (print_duration grows with it). */
const NOMINAL_PRINT_SECONDS = 3600;
const GCODES_DIR = '/home/pi/printer_data/gcodes';

// introduction.md L28–41: success bodies are {"result": …}; L43–46, L140: errors carry code and message.
const result = (value: unknown, status = 200): FakeAnswer => ({ status, json: { result: value } });
const error = (status: number, message: string): FakeAnswer => ({
  status,
  json: { error: { code: status, message, traceback: '' } },
});

export async function startMoonrakerSimulator(
  options: MoonrakerSimulatorOptions = {},
): Promise<MoonrakerSimulator> {
  const apiKey = options.apiKey === undefined ? `moon-${randomBytes(8).toString('hex')}` : options.apiKey;
  const queueGcodeUploads = options.queueGcodeUploads ?? false;
  const automaticTransition = options.automaticTransition ?? false;
  const runoutSensor = options.runoutSensor === undefined ? 'filament_sensor' : options.runoutSensor;
  const excludeObject = options.excludeObject ?? true;

  const files = new Map<string, Buffer>();
  const ejects = createEjectRecorder('klipper');
  const history: HistoryRow[] = [];
  const queue: QueuedJob[] = [];
  let queueState: 'ready' | 'paused' = 'ready';
  let nextId = 1;
  let printsStarted = 0;

  let klippy: KlippyState = 'ready';
  let klippyMessage = 'Printer is ready';
  const stats = {
    state: 'standby' as PrintState,
    filename: '',
    progress: 0,
    message: '',
    printDuration: 0,
  };
  let filamentDetected = true;
  let unknownState: string | null = null;
  /** exclude_object's state (Klipper klippy/extras/exclude_object.py get_status). */
  let definedObjects: { name: string; center?: number[] }[] = [];
  let excludedObjects: string[] = [];
  let currentRow: HistoryRow | null = null;

  const clock = () => Date.now() / 1000;
  const isBusy = () => stats.state === 'printing' || stats.state === 'paused';

  const finishRow = (status: string): void => {
    if (!currentRow) return;
    currentRow.status = status;
    currentRow.end_time = clock();
    currentRow.print_duration = stats.printDuration;
    currentRow.total_duration = stats.printDuration;
    currentRow = null;
  };

  /** SDCARD_PRINT_FILE: set_current_file resets print_stats, then the print starts (ps.py L29–31, L44). */
  const startPrint = (filename: string, user: string | null): void => {
    // hist.py _on_job_state_changed: a new start closes a job still open as cancelled.
    finishRow('cancelled');
    Object.assign(stats, { state: 'printing', filename, progress: 0, message: '', printDuration: 0 });
    unknownState = null;
    filamentDetected = true;
    defineObjects(filename);
    currentRow = {
      job_id: (nextId++).toString(16).toUpperCase().padStart(6, '0'),
      filename,
      status: 'in_progress',
      start_time: clock(),
      end_time: null,
      print_duration: 0,
      total_duration: 0,
      filament_used: 0,
      user,
    };
    history.push(currentRow);
    printsStarted += 1;
    ejects.printStarted();
  };

  /**
   * Loading a file resets exclude_object (its sdcard:reset_file handler); the file's
   * `EXCLUDE_OBJECT_DEFINE NAME=… CENTER=x,y` lines, at its head, then define its objects, names
   * upper-cased as Klipper does (Klipper docs/Exclude_Object.md, klippy/extras/exclude_object.py).
   */
  const defineObjects = (filename: string): void => {
    excludedObjects = [];
    definedObjects = [];
    const text = files.get(filename)?.toString('utf8') ?? '';
    for (const match of text.matchAll(/^EXCLUDE_OBJECT_DEFINE\s+NAME=(\S+)(?:\s+CENTER=([-\d.]+),([-\d.]+))?/gm)) {
      const center = match[2] === undefined ? undefined : [Number(match[2]), Number(match[3])];
      definedObjects.push({ name: match[1]!.toUpperCase(), ...(center ? { center } : {}) });
    }
  };

  /** After a job ends the queue loads the next one only with automatic_transition (jq.py L35–44). */
  const afterJobEnded = (): void => {
    if (!automaticTransition) {
      queueState = 'paused';
      return;
    }
    const next = queue.shift();
    if (next && queueState === 'ready') startPrint(next.filename, null);
  };

  const printerFree = () => klippy === 'ready' && !isBusy();

  const queueJob = (filename: string): QueuedJob => {
    const job = {
      filename,
      job_id: randomBytes(8).toString('hex').toUpperCase(),
      time_added: clock(),
    };
    queue.push(job);
    return job;
  };

  const queueStatus = () => ({
    queued_jobs: queue.map((job) => ({ ...job, time_in_queue: clock() - job.time_added })),
    queue_state: queueState,
  });

  const fileSize = () => files.get(stats.filename)?.length ?? 0;
  const heating = isBusy;

  /** The objects Klipper has; only those asked for are answered, unknown ones left out (introduction.md L362–420). */
  const printerObjects = (): Record<string, unknown> => {
    const webhooks = { state: klippy, state_message: klippyMessage };
    // Klippy starting or in a config error has loaded no printer objects yet (printer.md L55–69).
    if (klippy === 'startup' || klippy === 'error') return { webhooks };
    const objects: Record<string, unknown> = {
      webhooks,
      // ps.py L99–122
      print_stats: {
        filename: stats.filename,
        total_duration: stats.printDuration,
        print_duration: stats.printDuration,
        filament_used: stats.progress * 1200,
        state: unknownState ?? stats.state,
        message: stats.message,
        info: { total_layer: null, current_layer: null },
      },
      // vsd.py L104–111, L116–120: progress is file_position / file_size.
      virtual_sdcard: {
        file_path: stats.filename ? `${GCODES_DIR}/${stats.filename}` : null,
        progress: stats.progress,
        is_active: stats.state === 'printing' && klippy === 'ready',
        file_position: Math.round(stats.progress * fileSize()),
        file_size: fileSize(),
      },
      pause_resume: { is_paused: stats.state === 'paused' },
      extruder: { temperature: heating() ? 214.8 : 23.1, target: heating() ? 215 : 0, power: 0 },
      heater_bed: { temperature: heating() ? 59.9 : ejects.idleBed(22.4), target: heating() ? 60 : 0, power: 0 },
    };
    // exclude_object.py get_status: present only with an [exclude_object] section in printer.cfg.
    if (excludeObject) {
      objects.exclude_object = {
        objects: definedObjects,
        excluded_objects: excludedObjects,
        current_object: isBusy() && definedObjects.length > 0 ? definedObjects[0]!.name : null,
      };
    }
    // fss.py: a sensor's status is {filament_detected, enabled}.
    if (runoutSensor) {
      objects[`filament_switch_sensor ${runoutSensor}`] = {
        filament_detected: filamentDetected,
        enabled: true,
      };
    }
    return objects;
  };

  const readUpload = async (request: FakeRequest): Promise<FakeAnswer> => {
    if (!String(request.headers['content-type'] ?? '').startsWith('multipart/form-data'))
      return error(400, 'No file found in upload');
    const form = await server.formData(request);
    const part = form.get('file');
    if (!(part instanceof File)) return error(400, 'No file found in upload');
    const root = String(form.get('root') ?? 'gcodes');
    if (root !== 'gcodes') return error(400, `Invalid root request: ${root}`);
    const dir = String(form.get('path') ?? '').replace(/^\/+|\/+$/g, '');
    const path = dir ? `${dir}/${part.name}` : part.name;
    const bytes = Buffer.from(await part.arrayBuffer());
    // fm.py L544–564: the file loaded while printing or paused may not be replaced.
    if (isBusy() && stats.filename === path) return error(403, 'File is loaded, upload not permitted');
    const checksum = form.get('checksum');
    if (typeof checksum === 'string' && checksum) {
      const calculated = createHash('sha256').update(bytes).digest('hex');
      // fm.py L896–935: a checksum mismatch is 422.
      if (calculated !== checksum.toLowerCase())
        return error(422, `File checksum mismatch: expected ${checksum}, calculated ${calculated}`);
    }
    files.set(path, bytes);
    let printStarted = false;
    let printQueued = false;
    if (form.get('print') === 'true') {
      if (queueGcodeUploads) {
        // fm.py L896–935 with queue_gcode_uploads: handed to the job queue, which loads it at
        // once only when the printer is free and nothing waits before it.
        if (printerFree() && queue.length === 0) {
          startPrint(path, null);
          printStarted = true;
        } else {
          queueJob(path);
          printQueued = true;
        }
      } else if (printerFree()) {
        startPrint(path, null);
        printStarted = true;
      }
      // Otherwise stored only: a refused start is swallowed (print_started false).
    }
    const item = { path, root: 'gcodes', modified: clock(), size: bytes.length, permissions: 'rw' };
    return {
      status: 201,
      headers: { location: `/server/files/gcodes/${path}` },
      // file_manager.md L1043–1135
      json: {
        result: { item, print_started: printStarted, print_queued: printQueued, action: 'create_file' },
      },
    };
  };

  const klippyWords: Readonly<Record<KlippyState, string>> = {
    ready: 'Printer is ready',
    startup: 'Printer is not ready\nThe klippy host software is attempting to connect.',
    error: 'Error loading config',
    shutdown: 'Shutdown',
    disconnected: 'Klippy Disconnected',
  };
  /**
   * Klippy leaving `ready` other than by a shutdown means its host restarted or went away: the
   * print is lost, history klippy_disconnect; coming back to `ready` is a fresh Klipper with
   * print_stats in standby (moonraker-klipper.md §4, Klipper host restart).
   */
  const setKlippy = (state: Exclude<KlippyState, 'shutdown'>, message?: string): void => {
    if (state !== klippy) {
      finishRow('klippy_disconnect');
      Object.assign(stats, { state: 'standby', filename: '', progress: 0, message: '', printDuration: 0 });
      unknownState = null;
    }
    klippy = state;
    klippyMessage = message ?? klippyWords[state];
  };

  /** CANCEL_PRINT: the virtual_sdcard file is closed, print_stats `cancelled` (vsd.py L134–140, ps.py L58–59). */
  const cancel = (): void => {
    if (!isBusy()) return;
    stats.state = 'cancelled';
    finishRow('cancelled');
    afterJobEnded();
  };

  /** A G-code command through Klippy; Klipper's refusal is 400 with its words (kconn.py L557). */
  const gcodeCommand = (run: () => FakeAnswer | null): FakeAnswer => {
    if (klippy !== 'ready') return error(400, klippyMessage);
    return run() ?? result('ok');
  };

  /**
   * POST /printer/gcode/script (printer.md, "Run a gcode"): only what the farm sends is modelled.
   * EXCLUDE_OBJECT NAME=… adds the upper-cased name to excluded_objects even when no object of that
   * name was defined (exclude_object.py cmd_EXCLUDE_OBJECT); without an [exclude_object] section
   * the command is unknown, which Klipper only reports to the console (gcode.py cmd_default,
   * `Unknown command:"EXCLUDE_OBJECT"`), so Moonraker still answers "ok".
   */
  const runScript = (script: string): FakeAnswer | null => {
    const [command, ...args] = script.trim().split(/\s+/);
    if (command?.toUpperCase() !== 'EXCLUDE_OBJECT' || !excludeObject) return null;
    const name = args.find((arg) => /^NAME=/i.test(arg))?.slice(5).toUpperCase();
    if (name && !excludedObjects.includes(name)) excludedObjects.push(name);
    return null;
  };

  const handle = async (request: FakeRequest): Promise<FakeAnswer> => {
    // authorization.md L8–13
    if (apiKey !== null && request.headers['x-api-key'] !== apiKey) return error(401, 'Unauthorized');
    const { pathname: path, searchParams } = request.url;
    const route = `${request.method} ${path}`;

    if (route === 'GET /server/info') {
      // server.md L6–66
      return result({
        klippy_connected: klippy !== 'disconnected',
        klippy_state: klippy,
        components: [
          'database',
          'file_manager',
          'klippy_apis',
          'machine',
          'data_store',
          'history',
          'job_queue',
        ],
        failed_components: [],
        registered_directories: ['config', 'logs', 'gcodes', 'config_examples', 'docs'],
        warnings: [],
        websocket_count: 2,
        moonraker_version: MOONRAKER_VERSION,
        api_version: [1, 5, 0],
        api_version_string: '1.5.0',
      });
    }
    if (route === 'POST /server/files/upload') return readUpload(request);
    if (route === 'GET /server/history/list') {
      // hist.py _handle_jobs_list: newest first by default, `limit` rows from `start`.
      const limit = Number(searchParams.get('limit') ?? 50);
      const start = Number(searchParams.get('start') ?? 0);
      const ordered = searchParams.get('order') === 'asc' ? [...history] : [...history].reverse();
      const jobs = ordered.slice(start, start + limit).map((row) => ({
        ...row,
        exists: files.has(row.filename),
        metadata: {},
        auxiliary_data: [],
      }));
      return result({ count: jobs.length, jobs });
    }
    if (route === 'GET /server/job_queue/status') return result(queueStatus());
    if (route === 'POST /server/job_queue/job') {
      const names = (searchParams.get('filenames') ?? '').split(',').filter(Boolean);
      const missing = names.find((name) => !files.has(name));
      // job_queue.md: the request fails if any file does not exist.
      if (missing) return error(400, `Invalid filename: ${missing}`);
      names.forEach(queueJob);
      return result(queueStatus());
    }
    if (route === 'DELETE /server/job_queue/job') {
      // job_queue.md: unknown job ids are ignored.
      const ids = new Set((searchParams.get('job_ids') ?? '').split(','));
      const all = searchParams.get('all') === 'true';
      for (let i = queue.length - 1; i >= 0; i--) if (all || ids.has(queue[i]!.job_id)) queue.splice(i, 1);
      return result(queueStatus());
    }

    if (!path.startsWith('/printer/')) return error(404, 'Not Found');
    // kconn.py L216, L607, L776: nothing reaches Klipper while Klippy is not connected.
    if (klippy === 'disconnected') return error(503, 'Klippy Host not connected');

    if (route === 'GET /printer/info') {
      // printer.md L11–70
      return result({
        state: klippy,
        state_message: klippyMessage,
        hostname: 'voron',
        software_version: KLIPPER_VERSION,
        cpu_info: '4 core ARMv7 Processor rev 4 (v7l)',
        klipper_path: '/home/pi/klipper',
        python_path: '/home/pi/klippy-env/bin/python',
        log_file: '/home/pi/printer_data/logs/klippy.log',
        config_file: '/home/pi/printer_data/config/printer.cfg',
      });
    }
    if (route === 'GET /printer/objects/list') return result({ objects: Object.keys(printerObjects()) });
    if (route === 'GET /printer/objects/query') {
      const all = printerObjects();
      const status = Object.fromEntries(
        [...searchParams.keys()].filter((name) => name in all).map((name) => [name, all[name]]),
      );
      return result({ eventtime: process.uptime(), status });
    }
    if (route === 'POST /printer/print/start') {
      const filename = searchParams.get('filename');
      if (!filename) return error(400, 'No data for argument: filename');
      // kapis.py L127–149 runs SDCARD_PRINT_FILE; vsd.py L161–163, L189–207.
      return gcodeCommand(() => {
        if (isBusy()) return error(400, 'SD busy');
        if (!files.has(filename)) return error(400, 'Unable to open file');
        startPrint(filename, 'layerline');
        return null;
      });
    }
    // kapis.py L151–173, pr.py L35–40, L61–86: "ok" even when there is nothing to pause or resume.
    if (route === 'POST /printer/print/pause')
      return gcodeCommand(() => {
        if (stats.state === 'printing') stats.state = 'paused';
        return null;
      });
    if (route === 'POST /printer/print/resume')
      return gcodeCommand(() => {
        if (stats.state === 'paused') {
          stats.state = 'printing';
          filamentDetected = true;
        }
        return null;
      });
    if (route === 'POST /printer/print/cancel') return gcodeCommand(() => (cancel(), null));
    if (route === 'POST /printer/gcode/script') {
      const script = searchParams.get('script');
      if (!script) return error(400, 'No data for argument: script');
      return gcodeCommand(() => runScript(script));
    }
    if (route === 'POST /printer/firmware_restart' || route === 'POST /printer/restart') {
      // moonraker-klipper.md §4: startup → ready, print_stats back to standby.
      setKlippy('ready');
      return result('ok');
    }
    return error(404, 'Not Found');
  };

  const server = await startFakePrinterServer(handle);
  const network = await startSwitchableListener(Number(new URL(server.origin).port));
  const connection = (key: string | null): PrinterConnectionInput => ({
    kind: 'moonraker',
    baseUrl: network.origin,
    ...(key ? { apiKey: key } : {}),
  });
  const requirePrinting = (what: string): void => {
    if (!isBusy())
      throw new Error(`Moonraker simulator: ${what} needs a running print (${simulator.describe()})`);
  };

  const simulator: MoonrakerSimulator = {
    label: `Moonraker ${MOONRAKER_VERSION} + Klipper ${KLIPPER_VERSION}`,
    origin: network.origin,
    connection: () => connection(apiKey),
    wrongCredentials: () => {
      if (apiKey === null)
        throw new Error('This Moonraker trusts every client: there is no key to get wrong');
      return connection('not-the-key');
    },
    requests: server.requests,
    faults: server.faults,
    files,
    get printsStarted() {
      return printsStarted;
    },
    ejectsRun: ejects.runs,
    get excludedObjects() {
      return excludedObjects;
    },
    get queuedFiles() {
      return queue.map((job) => job.filename);
    },
    describe: () =>
      `klippy ${klippy}, print_stats ${unknownState ?? stats.state} ${stats.filename || '(no file)'} at ${Math.round(stats.progress * 100)}%, queue [${queue.map((j) => j.filename).join(', ')}]`,

    advance(fraction) {
      requirePrinting('advance');
      stats.progress = Math.min(1, Math.max(0, fraction));
      stats.printDuration = stats.progress * NOMINAL_PRINT_SECONDS;
    },
    finish() {
      requirePrinting('finish');
      // ps.py L54–55: complete, filename kept; progress stays at its last value (vsd.py L116–120).
      stats.progress = 1;
      stats.printDuration = NOMINAL_PRINT_SECONDS;
      stats.state = 'complete';
      // The file's last bytes, an eject tail included, ran before Klipper calls the print complete.
      ejects.printEnded(files.get(stats.filename));
      finishRow('completed');
      afterJobEnded();
    },
    fail(message) {
      requirePrinting('fail');
      // ps.py L56–57: a G-code error ends the print in `error` with its message (vsd.py L287–295).
      stats.state = 'error';
      stats.message = message;
      finishRow('error');
      afterJobEnded();
    },
    cancelOnScreen: cancel,
    runOut() {
      requirePrinting('runOut');
      if (!runoutSensor) throw new Error('This Klipper has no filament sensor: a runout would go unnoticed');
      // fss.py L16, L45–54: pause_on_runout runs PAUSE, then runout_gcode.
      filamentDetected = false;
      stats.state = 'paused';
    },
    startLocalPrint(fileName) {
      if (!files.has(fileName)) files.set(fileName, Buffer.from('G28\n'));
      if (printerFree()) startPrint(fileName, null);
    },
    shutdownKlipper(message) {
      // Klipper's state table: webhooks shutdown, the reader stops (vsd.py L52–57), history klippy_shutdown.
      klippy = 'shutdown';
      klippyMessage = message;
      if (stats.state === 'printing') stats.state = 'paused';
      finishRow('klippy_shutdown');
    },
    setKlippy,
    async restartServer({ graceful = false } = {}) {
      await network.close();
      // hist.py: a graceful exit closes the running job as server_exit (on_exit); after a crash
      // the row still in_progress is marked interrupted at start-up (L252–259). Klipper prints on.
      finishRow(graceful ? 'server_exit' : 'interrupted');
      await new Promise((resolve) => setTimeout(resolve, 50));
      await network.open();
    },
    setReachable(reachable) {
      void (reachable ? network.open() : network.close());
    },
    sayUnknownState(state) {
      unknownState = state;
    },
    async stop() {
      await network.close();
      await server.stop();
    },
  };
  return simulator;
}
