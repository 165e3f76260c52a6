import {
  startFakePrinterServer,
  type FakeAnswer,
  type FakePrinterServer,
  type FakeRequest,
} from '../http-client/fake-printer-server.ts';
import type { PrinterSimulator } from '../printer-drivers/printer-simulator.ts';
import { createEjectRecorder } from '../printer-drivers/eject-tail-run.ts';
import { startSwitchableListener } from '../http-client/switchable-listener.ts';

/**
 * An in-process OctoPrint 1.11.8 with a Marlin printer on its serial port, answering every request
 * in every state the way the real server does. Each behaviour is taken from
 * shared/contracts/printers/octoprint.md, which was read from OctoPrint/OctoPrint at tag 1.11.8
 * (commit 42be7409d4820431043da48ece30014e26b47073); the comments below cite the same files and
 * lines, abbreviated as the notes do (files.py = src/octoprint/server/api/files.py, job.py,
 * printer.py, comm.py = src/octoprint/util/comm.py, standard.py = src/octoprint/printer/standard.py).
 *
 * Transitional states (Starting, Pausing, Resuming, Finishing, Cancelling, Error, Connecting) are
 * asynchronous on the real server and last about one poll: here each is seen by exactly one
 * `GET /api/job` and has settled before the next (the farm reads /api/printer, then /api/job).
 */
export interface OctoprintSimulatorOptions {
  /** The API key it accepts (default 'octo-key-1234'). */
  readonly apiKey?: string;
  /**
   * OctoPrint's serial autoconnect (`serial.autoconnect`), off by default as on a fresh install
   * (src/octoprint/schema/config/serial.py L105): after a restart the printer stays Offline until
   * someone POSTs `/api/connection {"command":"connect"}`.
   */
  readonly autoconnect?: boolean;
  /** Whether the key's user holds the PRINT permission (default true). */
  readonly printPermission?: boolean;
}

export interface OctoprintSimulator extends PrinterSimulator {
  /** OctoPrint's own `state.text` now ("Printing", "Offline after error"). */
  readonly stateText: string;
  /**
   * An OctoPrint state the notes do not list, e.g. one a future release or a plugin adds.
   * `operational` (default true) says whether OctoPrint counts it as operational: then
   * /api/printer answers 200 with `operational: true` and none of printing, paused or ready (a busy
   * state that is neither a print nor idle); otherwise /api/printer answers 409 as for every
   * non-operational state, and only /api/job's `state` text shows it.
   */
  sayUnknownState(state: string, options?: { operational?: boolean }): void;
}

type Phase =
  | 'Offline'
  | 'Connecting'
  | 'Operational'
  | 'Starting'
  | 'Printing'
  | 'Pausing'
  | 'Paused'
  | 'Resuming'
  | 'Finishing'
  | 'Cancelling'
  | 'Error'
  | 'Offline after error';

/** comm.py L462–483: OPERATIONAL_STATES and PRINTING_STATES. */
const OPERATIONAL: ReadonlySet<Phase> = new Set<Phase>([
  'Operational',
  'Starting',
  'Printing',
  'Pausing',
  'Paused',
  'Resuming',
  'Finishing',
  'Cancelling',
]);
const PRINTING: ReadonlySet<Phase> = new Set<Phase>(['Starting', 'Printing', 'Cancelling', 'Pausing', 'Resuming', 'Finishing']);

/** One entry of a file's print history (src/octoprint/filemanager/__init__.py L962–985, log_print). */
interface HistoryEntry {
  readonly timestamp: number;
  readonly success: boolean;
  /** Recorded for successful prints only. */
  readonly printTime?: number;
}

/** The slicer's estimate the simulator pretends its analysis found (seconds). */
const ESTIMATED_PRINT_SECONDS = 3600;

/** `abort(403)` from a permission decorator: werkzeug's description, wrapped by make_api_error (src/octoprint/server/util/flask.py L1758). */
const FORBIDDEN: FakeAnswer = {
  status: 403,
  json: {
    error:
      "You don't have the permission to access the requested resource. It is either read-protected or not readable by the server.",
  },
};
/** API errors are `{"error": description}` JSON (src/octoprint/server/__init__.py L1753–1758). */
const apiError = (status: number, description: string): FakeAnswer => ({ status, json: { error: description } });
/** NO_CONTENT = ("", 204, {"Content-Type": "text/plain"}) (src/octoprint/server/__init__.py L71). */
const NO_CONTENT: FakeAnswer = { status: 204, text: '' };
const VALID_BOOLEAN_TRUES = new Set(['true', 'yes', 'y', '1']);

export async function startOctoprintSimulator(options: OctoprintSimulatorOptions = {}): Promise<OctoprintSimulator> {
  const apiKey = options.apiKey ?? 'octo-key-1234';
  const autoconnect = options.autoconnect ?? false;
  const printPermission = options.printPermission ?? true;

  const files = new Map<string, Buffer>();
  const ejects = createEjectRecorder('marlin');
  const fileDates = new Map<string, number>();
  const history = new Map<string, HistoryEntry[]>();
  let phase: Phase = 'Operational';
  let unknownState: { text: string; operational: boolean } | null = null;
  let selected: string | null = null;
  /** 0..1 of the print; null when OctoPrint reports no progress. */
  let progress: number | null = null;
  let errorText: string | null = null;
  let printsStarted = 0;

  const now = (): number => Math.floor(Date.now() / 1000);
  const text = (): string => unknownState?.text ?? phase;
  const isOperational = (): boolean => (unknownState ? unknownState.operational : OPERATIONAL.has(phase));
  const isPrinting = (): boolean => !unknownState && PRINTING.has(phase);
  const isActive = (): boolean => isPrinting() || (!unknownState && phase === 'Paused');
  /** standard.py L926–932: operational, not busy (printing, paused) and not streaming. */
  const isReady = (): boolean => isOperational() && !unknownState && phase === 'Operational';

  const logPrint = (success: boolean): void => {
    if (!selected) return;
    const entry: HistoryEntry = success
      ? { timestamp: now(), success, printTime: Math.round((progress ?? 1) * ESTIMATED_PRINT_SECONDS) }
      : { timestamp: now(), success };
    history.set(selected, [...(history.get(selected) ?? []), entry]);
  };

  const startPrint = (name: string): void => {
    selected = name;
    phase = 'Starting';
    progress = 0;
    errorText = null;
    printsStarted += 1;
    ejects.printStarted();
  };

  /** The connection to the printer closed: job data and progress are cleared (standard.py L1515–1534). */
  const closeConnection = (next: 'Offline' | 'Offline after error'): void => {
    phase = next;
    selected = null;
    progress = null;
    unknownState = null;
  };

  /** The asynchronous step each transitional state takes once it has been seen. */
  const settle = (): void => {
    if (unknownState) return;
    switch (phase) {
      case 'Starting':
      case 'Resuming':
        phase = 'Printing';
        return;
      case 'Pausing':
        phase = 'Paused';
        return;
      case 'Finishing':
        // Done: completion 100, printTimeLeft 0, the file stays selected (standard.py L1664–1672);
        // the print is logged as a success (standard.py L1699–1709).
        progress = 1;
        logPrint(true);
        phase = 'Operational';
        return;
      case 'Cancelling':
        // Cancelled: logged as a failure (standard.py L1774–1785), progress fields reset to null
        // (standard.py L1730–1732); the file stays selected.
        logPrint(false);
        progress = null;
        phase = 'Operational';
        return;
      case 'Error':
        // disconnectOnErrors (default true) closes the port after an error (comm.py L4073–4077, L4107–4125).
        closeConnection('Offline after error');
        return;
      case 'Connecting':
        phase = 'Operational';
        return;
      default:
        return;
    }
  };

  const flags = () => ({
    // standard.py L1426–1439
    operational: isOperational(),
    printing: isPrinting(),
    cancelling: !unknownState && phase === 'Cancelling',
    pausing: !unknownState && phase === 'Pausing',
    resuming: !unknownState && phase === 'Resuming',
    finishing: !unknownState && phase === 'Finishing',
    closedOrError: !unknownState && (phase === 'Offline' || phase === 'Error' || phase === 'Offline after error'),
    error: !unknownState && (phase === 'Error' || phase === 'Offline after error'),
    paused: !unknownState && phase === 'Paused',
    ready: isReady(),
    sdReady: false,
  });

  const temperature = () => {
    const heating = isActive();
    return {
      tool0: { actual: heating ? 214.7 : 24.1, target: heating ? 215.0 : 0.0, offset: 0 },
      bed: { actual: heating ? 59.8 : ejects.idleBed(23.6), target: heating ? 60.0 : 0.0, offset: 0 },
    };
  };

  const fileInfo = (name: string) => ({
    name,
    path: name,
    display: name,
    origin: 'local',
    size: files.get(name)?.length ?? null,
    date: fileDates.get(name) ?? null,
  });

  const jobAnswer = () => {
    const printTime = progress === null ? null : Math.round(progress * ESTIMATED_PRINT_SECONDS);
    return {
      job: {
        file: selected ? fileInfo(selected) : { name: null, path: null, display: null, origin: null, size: null, date: null },
        estimatedPrintTime: selected ? ESTIMATED_PRINT_SECONDS : null,
        averagePrintTime: null,
        lastPrintTime: null,
        filament: null,
        user: selected ? 'farm' : null,
      },
      progress: {
        // completion is progress * 100, a float percent (standard.py L1198), exactly 100 when done.
        completion: progress === null ? null : progress * 100,
        filepos: progress === null || !selected ? null : Math.round(progress * (files.get(selected)?.length ?? 0)),
        printTime,
        printTimeLeft: printTime === null ? null : ESTIMATED_PRINT_SECONDS - printTime,
        printTimeLeftOrigin: printTime === null ? null : 'estimate',
      },
      state: text(),
    };
  };

  /** The file metadata a GET /api/files/local/<name> answers, with `prints` built from the history (files.py L446–481). */
  const fileDetails = (name: string) => {
    const entries = history.get(name) ?? [];
    const last = entries.at(-1);
    return {
      ...fileInfo(name),
      type: 'machinecode',
      typePath: ['machinecode', 'gcode'],
      refs: { resource: `${origin}/api/files/local/${name}`, download: `${origin}/downloads/files/local/${name}` },
      ...(last
        ? {
            prints: {
              success: entries.filter((entry) => entry.success).length,
              failure: entries.filter((entry) => !entry.success).length,
              last: {
                success: last.success,
                date: last.timestamp,
                ...(last.printTime !== undefined ? { printTime: last.printTime } : {}),
              },
            },
          }
        : {}),
    };
  };

  const readJson = (request: FakeRequest): Record<string, unknown> | null => {
    if (!String(request.headers['content-type'] ?? '').includes('application/json')) return null;
    try {
      const parsed: unknown = JSON.parse(request.body.toString('utf8'));
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  };

  /** X-Api-Key or a Bearer token; a missing or wrong key is the anonymous user, refused with 403 (docs/api/general.rst L9–48). */
  const authorised = (request: FakeRequest): boolean =>
    request.headers['x-api-key'] === apiKey || request.headers.authorization === `Bearer ${apiKey}`;

  const upload = async (request: FakeRequest): Promise<FakeAnswer> => {
    // files.py L842: neither a file nor a folder.
    const noFile = apiError(400, 'No file to upload and no folder to create');
    if (!String(request.headers['content-type'] ?? '').startsWith('multipart/form-data')) return noFile;
    const form = await backend.formData(request);
    const file = form.get('file');
    if (!(file instanceof File)) return noFile;
    if (!file.name || /[/\\]/.test(file.name)) return apiError(400, 'Can not upload file, invalid file name');
    // files.py L632–636: never overwrite the file being printed.
    if (isActive() && selected === file.name) {
      return apiError(409, 'Trying to overwrite file that is currently being printed');
    }
    // files.py L696–706 → L1380–1381: the storage refuses what is not machine code (or a model).
    if (!/\.(gcode|gco|g)$/i.test(file.name)) return apiError(415, 'Could not upload file, invalid type');
    const bytes = Buffer.from(await file.arrayBuffer());
    // storage.py L978–985: a changed file (its hash) throws its old metadata, print history included, away.
    if (!files.get(file.name)?.equals(bytes)) history.delete(file.name);
    files.set(file.name, bytes);
    fileDates.set(file.name, now());
    // files.py L574–599: select/print only with the permission and a ready printer; otherwise the file
    // is still stored, 201, with the effective flags false ("we do NOT abort(409) here").
    const wants = (field: string): boolean => VALID_BOOLEAN_TRUES.has(String(form.get(field) ?? '').toLowerCase());
    const accepted = isOperational() && !isActive();
    const effectiveSelect = wants('select') && accepted;
    const effectivePrint = wants('print') && printPermission && accepted;
    // standard.py L699–701: select_file does nothing on a busy printer, whatever the flags said
    // (only an operational state that is not idle, like an unknown one, gets here busy).
    if (isReady() && effectivePrint) startPrint(file.name);
    else if (isReady() && effectiveSelect) {
      selected = file.name;
      progress = null;
    }
    const location = `${origin}/api/files/local/${file.name}`;
    return {
      status: 201,
      headers: { location },
      json: {
        files: {
          local: {
            name: file.name,
            path: file.name,
            origin: 'local',
            refs: { resource: location, download: `${origin}/downloads/files/local/${file.name}` },
          },
        },
        done: true,
        effectiveSelect,
        effectivePrint,
      },
    };
  };

  /** POST /api/files/local/<name> {"command":"select","print":bool} (files.py L871–905). */
  const select = (name: string, body: Record<string, unknown> | null): FakeAnswer => {
    if (!body || typeof body.command !== 'string') return apiError(400, 'Expected content-type JSON');
    if (body.command !== 'select') return apiError(400, `Command ${body.command} is not supported here`);
    if (!files.has(name)) return apiError(404, 'Not Found');
    if (!isReady()) return apiError(409, 'Printer is already printing, cannot select a new file');
    const print = body.print === true || VALID_BOOLEAN_TRUES.has(String(body.print ?? '').toLowerCase());
    if (print) {
      if (!printPermission) return FORBIDDEN;
      startPrint(name);
    } else {
      selected = name;
      progress = null;
    }
    return NO_CONTENT;
  };

  /** POST /api/job (job.py L13–68): "not operational" is checked first, then the command, then PRINT. */
  const jobCommand = (body: Record<string, unknown> | null): FakeAnswer => {
    if (!isOperational()) return apiError(409, 'Printer is not operational');
    const command = body?.command;
    if (command !== 'start' && command !== 'restart' && command !== 'pause' && command !== 'cancel') {
      return apiError(400, 'Expected content-type JSON with a valid command');
    }
    if (!printPermission) return FORBIDDEN;
    const active = isActive();
    if (command === 'start') {
      if (active) return apiError(409, "Printer already has an active print job, did you mean 'restart'?");
      // With nothing selected (or a busy printer, standard.py L699–701) a silent no-op.
      if (selected && isReady()) startPrint(selected);
      return NO_CONTENT;
    }
    if (command === 'restart') {
      if (phase !== 'Paused') return apiError(409, 'Printer does not have an active print job or is not paused');
      startPrint(selected!);
      return NO_CONTENT;
    }
    if (!active) {
      return apiError(409, `Printer is neither printing nor paused, '${command}' command cannot be performed`);
    }
    if (command === 'cancel') {
      phase = 'Cancelling';
      return NO_CONTENT;
    }
    const action = body?.action ?? 'toggle';
    if (action === 'pause' || (action === 'toggle' && phase !== 'Paused')) {
      if (phase === 'Printing' || phase === 'Starting') phase = 'Pausing';
    } else if (action === 'resume' || action === 'toggle') {
      if (phase === 'Paused') phase = 'Resuming';
    } else return apiError(400, 'Unknown action');
    return NO_CONTENT;
  };

  /** POST /api/connection (docs/api/connection.rst): 204, the connection is made asynchronously. */
  const connectionCommand = (body: Record<string, unknown> | null): FakeAnswer => {
    if (body?.command === 'connect') {
      if (phase === 'Offline' || phase === 'Offline after error') {
        phase = 'Connecting';
        errorText = null;
      }
      return NO_CONTENT;
    }
    if (body?.command === 'disconnect') {
      closeConnection('Offline');
      errorText = null;
      return NO_CONTENT;
    }
    return apiError(400, 'Expected content-type JSON with a valid command');
  };

  const handle = async (request: FakeRequest): Promise<FakeAnswer> => {
    if (!authorised(request)) return FORBIDDEN;
    const path = request.url.pathname;
    const method = request.method;
    // api/__init__.py L285–290: exactly these three keys.
    if (method === 'GET' && path === '/api/version') {
      return { status: 200, json: { api: '0.1', server: '1.11.8', text: 'OctoPrint 1.11.8' } };
    }
    if (method === 'GET' && path === '/api/printer') {
      // printer.py L19–62: 409 whenever the printer is not operational (Offline, connecting, Error...).
      if (!isOperational()) return apiError(409, 'Printer is not operational');
      const excluded = new Set((request.url.searchParams.get('exclude') ?? '').split(',').map((part) => part.trim()));
      return {
        status: 200,
        json: {
          ...(excluded.has('temperature') ? {} : { temperature: temperature() }),
          ...(excluded.has('sd') ? {} : { sd: { ready: false } }),
          ...(excluded.has('state') ? {} : { state: { text: text(), flags: flags(), error: errorText ?? '' } }),
        },
      };
    }
    if (method === 'GET' && path === '/api/job') {
      // job.py L71–83: always 200, with `error` only when an error string is set.
      const answer = { status: 200, json: { ...jobAnswer(), ...(errorText ? { error: errorText } : {}) } };
      settle();
      return answer;
    }
    if (method === 'POST' && path === '/api/files/local') return upload(request);
    const fileRoute = /^\/api\/files\/local\/([^/]+)$/.exec(path);
    if (fileRoute) {
      const name = decodeURIComponent(fileRoute[1]!);
      if (method === 'GET') return files.has(name) ? { status: 200, json: fileDetails(name) } : apiError(404, 'Not Found');
      if (method === 'POST') return select(name, readJson(request));
    }
    if (method === 'POST' && path === '/api/job') return jobCommand(readJson(request));
    if (method === 'POST' && path === '/api/connection') return connectionCommand(readJson(request));
    return apiError(404, 'Not Found');
  };

  const backend: FakePrinterServer = await startFakePrinterServer(handle);
  const front = await startSwitchableListener(Number(new URL(backend.origin).port));
  const origin = front.origin;

  const requirePrint = (what: string): void => {
    if (!isActive()) throw new Error(`OctoPrint simulator: ${what} needs a running print, but it is ${text()}`);
  };

  return {
    label: 'OctoPrint 1.11.8',
    origin,
    connection: () => ({ kind: 'octoprint', baseUrl: origin, apiKey }),
    wrongCredentials: () => ({ kind: 'octoprint', baseUrl: origin, apiKey: 'not-the-key' }),
    requests: backend.requests,
    faults: backend.faults,
    files,
    get printsStarted() {
      return printsStarted;
    },
    ejectsRun: ejects.runs,
    get stateText() {
      return text();
    },
    describe: () =>
      `${text()}${selected ? `, ${selected}` : ''}${progress !== null ? ` at ${Math.round(progress * 100)} %` : ''}${errorText ? ` (${errorText})` : ''}`,

    advance(fraction) {
      requirePrint('advance');
      if (phase === 'Starting') phase = 'Printing';
      progress = Math.min(0.999, Math.max(0, fraction));
    },
    finish() {
      requirePrint('finish');
      // comm.py: the last line acknowledged → Finishing (printing and finishing flags) → Operational.
      progress = 1;
      // The host streamed the file's last lines, an eject tail included, before it finishes.
      if (selected) ejects.printEnded(files.get(selected));
      phase = 'Finishing';
    },
    fail(message) {
      requirePrint('fail');
      // A firmware `Error:` line: _trigger_error → Error, the print logged as failed
      // (standard.py L1478–1500), then the port closes → Offline after error (see settle).
      errorText = message;
      logPrint(false);
      phase = 'Error';
    },
    cancelOnScreen() {
      requirePrint('cancelOnScreen');
      // `//action:cancel` from the printer's screen is handled as a cancel from the UI (comm.py L2411–2445).
      phase = 'Cancelling';
    },
    runOut() {
      requirePrint('runOut');
      // With host action commands a runout pauses the print: `//action:paused` (comm.py L2411–2445).
      // OctoPrint's API carries no reason for it.
      phase = 'Pausing';
    },
    startLocalPrint(fileName) {
      if (!isReady()) throw new Error(`OctoPrint simulator: cannot start ${fileName} while ${text()}`);
      if (!files.has(fileName)) {
        files.set(fileName, Buffer.from('G28\n'));
        fileDates.set(fileName, now());
      }
      startPrint(fileName);
    },
    async restartServer() {
      await front.close();
      // The process ends: a host-streamed print is lost with it (nothing is logged: OctoPrint died
      // before it could), the selection and the error are forgotten; files and their metadata
      // (print history) are on disk and stay.
      unknownState = null;
      errorText = null;
      selected = null;
      progress = null;
      phase = autoconnect ? 'Operational' : 'Offline';
      await front.open();
    },
    setReachable(reachable) {
      void (reachable ? front.open() : front.close());
    },
    sayUnknownState(state, unknownOptions = {}) {
      unknownState = { text: state, operational: unknownOptions.operational ?? true };
    },
    async stop() {
      await front.close();
      await backend.stop();
    },
  };
}
