import type { PrinterConnectionInput } from '@layerline/contracts';
import {
  startFakePrinterServer,
  type FakeAnswer,
  type FakeRequest,
} from '../http-client/fake-printer-server.ts';
import type { PrinterSimulator } from '../printer-drivers/printer-simulator.ts';
import { createEjectRecorder } from '../printer-drivers/eject-tail-run.ts';
import { createSimulatorAuth } from './prusalink-simulator-auth.ts';
import { startSwitchableListener } from '../http-client/switchable-listener.ts';

/**
 * A PrusaLink printer that answers as the real ones do, one of two servers speaking the same
 * /api/v1 (shared/contracts/printers/prusalink.md, which cites the sources named here):
 * - `buddy`: the Buddy firmware's own server (MK4, XL, MINI, Core One), repo
 *   prusa3d/Prusa-Firmware-Buddy at 818d812;
 * - `mk3`: Prusa-Link 0.8.1 on a Raspberry Pi beside an MK3S, repo prusa3d/Prusa-Link at 58d09da.
 * Credentials as in prusalink-simulator-auth.ts. The printer's own life is driven through the
 * PrinterSimulator methods; every answer below names the lines it imitates.
 */
export interface PrusalinkSimulatorOptions {
  readonly firmware: 'buddy' | 'mk3';
  /** Buddy only: '6.3.0' (nonces live 300 s) or '5.1.2' (5 s, 8 s with a body). Default 6.3.0. */
  readonly buddyVersion?: string;
  /** What connection() hands the farm. Both are accepted by the printer. Default digest. */
  readonly auth?: 'digest' | 'api-key';
  /** Digest user: Buddy's is always "maker"; Prusa-Link's is set in its wizard. */
  readonly username?: string;
  readonly password?: string;
  readonly apiKey?: string;
  /** The printer's clock (nonce ages, Prusa-Link's job tick). Default Date.now. */
  readonly now?: () => number;
}

type VendorState = 'IDLE' | 'BUSY' | 'PRINTING' | 'PAUSED' | 'FINISHED' | 'STOPPED' | 'ATTENTION' | 'ERROR';

interface Job {
  readonly id: number;
  readonly fileName: string;
  /** 0..1 */
  progress: number;
  /** Buddy's print preview on the screen after an upload without Print-After-Upload. */
  readonly preview: boolean;
  /** Prusa-Link: when the job ended (it is shown once more, then gone). */
  endedAt: number | null;
}

/** Prusa-Link's job thread moves an ended job (ENDING) to IDLE on its next tick, about a second. */
const PRUSA_LINK_JOB_TICK_MS = 1_000;
/** A print's length when the simulator knows no better (time_remaining / time_printing). */
const NOMINAL_PRINT_SECONDS = 3_600;
const BUDDY_INVALID_NAME = /["*:<>?\\|]/;

export const startPrusalinkSimulator = async (
  options: PrusalinkSimulatorOptions,
): Promise<PrinterSimulator> => {
  const buddy = options.firmware === 'buddy';
  const buddyVersion = options.buddyVersion ?? '6.3.0';
  const now = options.now ?? Date.now;
  const username = buddy ? 'maker' : (options.username ?? 'maker');
  const password = options.password ?? 'screen-pa55';
  const apiKey = options.apiKey ?? 'PLk3yFromScreen';
  const storage = buddy ? 'usb' : 'local';
  const auth = createSimulatorAuth({
    firmware: options.firmware,
    buddyVersion,
    username,
    password,
    apiKey,
    now,
  });

  let state: VendorState = 'IDLE';
  let job: Job | null = null;
  let nextJobId = 1;
  let printsStarted = 0;
  let reportedState: string | null = null;
  /** Prusa-Link: why it is in ERROR (its status_printer message). */
  let errorMessage: string | null = null;
  /** Buddy: halted on a red screen, not answering until someone resets it. */
  let redScreen = false;
  let cablePlugged = true;
  /** Prusa-Link: requests answered 503 while its daemon starts after a restart. */
  let daemonStartingRequests = 0;
  const files = new Map<string, Buffer>();
  const ejects = createEjectRecorder('marlin');
  /** Buddy stores long names on FAT and prints them by their 8.3 alias. */
  const shortNames = new Map<string, string>();

  // ── What is on the printer now ──────────────────────────────────────────────────────────────

  /** Prusa-Link shows an ended job for one more tick (job.py L111–139); Buddy drops it at once. */
  const visibleJob = (): Job | null => {
    if (job?.endedAt != null && now() - job.endedAt >= PRUSA_LINK_JOB_TICK_MS) job = null;
    return job;
  };
  const activeJob = (): Job | null => (job && job.endedAt === null ? job : null);

  /** Remote starts are allowed in IDLE, FINISHED and STOPPED (Buddy `remote_print_ready`, ps.cpp L408–425). */
  const canStartRemotely = (): boolean =>
    activeJob() === null && (state === 'IDLE' || state === 'FINISHED' || state === 'STOPPED');

  const startJob = (fileName: string, preview = false): void => {
    job = { id: nextJobId++, fileName, progress: 0, preview, endedAt: null };
    state = preview ? 'ATTENTION' : 'PRINTING';
    errorMessage = null;
    if (!preview) printsStarted += 1;
    ejects.printStarted();
  };

  /** FINISHED / STOPPED: Buddy's job is gone at once (204); Prusa-Link's after a tick (section 6). */
  const endJob = (ending: 'FINISHED' | 'STOPPED'): void => {
    state = ending;
    if (buddy || !job) job = null;
    else job.endedAt = now();
  };

  const shortName = (fileName: string): string => {
    const known = shortNames.get(fileName);
    if (known) return known;
    const dot = fileName.lastIndexOf('.');
    const base = fileName
      .slice(0, dot)
      .replace(/[^A-Za-z0-9]/g, '')
      .slice(0, 6)
      .toUpperCase();
    const alias = `${base}~${shortNames.size + 1}.${fileName.slice(dot + 1, dot + 4).toUpperCase()}`;
    shortNames.set(fileName, alias);
    return alias;
  };

  /** A job on the bed keeps the heaters on (paused and attention included). */
  const heating = (): boolean => state === 'PRINTING' || state === 'PAUSED' || state === 'ATTENTION';

  // ── Answers ─────────────────────────────────────────────────────────────────────────────────

  /** Buddy bg.cpp L191–214 / Prusa-Link main.py L278–315: neither carries `version` nor `printer`. */
  const version = (): FakeAnswer =>
    buddy
      ? {
          status: 200,
          json: {
            api: '2.0.0',
            server: '2.1.2',
            nozzle_diameter: 0.4,
            text: 'PrusaLink',
            hostname: 'prusa-mk4',
            capabilities: { 'upload-by-put': true },
          },
        }
      : {
          status: 200,
          json: {
            api: '2.0.0',
            server: '0.8.1',
            original: 'PrusaLink MK3S',
            text: 'PrusaLink 0.8.1',
            firmware: '3.14.1',
            sdk: '0.8.0',
            capabilities: { 'upload-by-put': true },
            hostname: 'prusa-mk3s',
          },
        };

  /** Buddy bg.cpp L216–241 / Prusa-Link main.py L166–187. */
  const info = (): FakeAnswer =>
    buddy
      ? {
          status: 200,
          json: {
            nozzle_diameter: 0.4,
            mmu: false,
            serial: 'SN4217Q0001',
            hostname: 'prusa-mk4',
            min_extrusion_temp: 170,
          },
        }
      : {
          status: 200,
          json: {
            name: 'MK3S by the window',
            location: 'Farm rack 2',
            farm_mode: false,
            network_error_chime: false,
            nozzle_diameter: 0.4,
            min_extrusion_temp: 170,
            serial: 'CZPX1234X004XK01234',
            hostname: 'prusa-mk3s',
            port: 80,
          },
        };

  const jobTimes = (current: Job) => ({
    progress: Math.round(current.progress * 10_000) / 100,
    time_remaining: Math.round(NOMINAL_PRINT_SECONDS * (1 - current.progress)),
    time_printing: Math.round(NOMINAL_PRINT_SECONDS * current.progress),
  });

  /** Buddy sr.cpp L19–82 (storage an object; axis_x/y not while printing) / Prusa-Link main.py L190–275 (a storage list, status_printer). */
  const status = (): FakeAnswer => {
    const current = visibleJob();
    const hot = heating();
    const printer = {
      state: reportedState ?? state,
      temp_bed: hot ? 59.8 : ejects.idleBed(24.1),
      target_bed: hot ? 60 : 0,
      temp_nozzle: hot ? 214.7 : 24.6,
      target_nozzle: hot ? 215 : 0,
      axis_z: hot ? 12.4 : 5,
      ...(hot ? {} : { axis_x: 241, axis_y: 170 }),
      flow: 100,
      speed: 100,
      fan_hotend: hot ? 7000 : 0,
      fan_print: hot ? 4500 : 0,
    };
    return {
      status: 200,
      json: {
        ...(current ? { job: { id: current.id, ...jobTimes(current) } } : {}),
        ...(buddy
          ? { storage: { path: '/usb/', name: 'usb', read_only: false }, printer }
          : {
              storage: [
                { path: '/local', name: 'LOCAL', read_only: false },
                { path: '/sdcard', name: 'SD Card', read_only: true },
              ],
              printer: {
                ...printer,
                status_printer: errorMessage
                  ? { ok: false, message: errorMessage }
                  : { ok: true, message: 'OK' },
                status_connect: { ok: false, message: 'Not configured' },
              },
            }),
      },
    };
  };

  /**
   * 200 while a job exists, else 204 (Buddy v1.cpp L150–158, has_job() ps.cpp L427–440; Prusa-Link
   * main.py L568–603). Buddy's job state is PRINTING or PAUSED (attention included, bg.cpp
   * L372–392); Prusa-Link's is the printer's state.
   */
  const jobAnswer = (): FakeAnswer => {
    const current = visibleJob();
    if (!current) return { status: 204 };
    const jobState = buddy ? (state === 'PAUSED' || state === 'ATTENTION' ? 'PAUSED' : 'PRINTING') : state;
    const size = files.get(current.fileName)?.length ?? 0;
    return {
      status: 200,
      json: {
        id: current.id,
        state: jobState,
        ...jobTimes(current),
        file: {
          name: buddy ? shortName(current.fileName) : current.fileName,
          display_name: current.fileName,
          path: buddy ? '/usb' : '/local',
          size,
          m_timestamp: 1_733_500_000,
        },
      },
    };
  };

  const text = (status: number, words: string): FakeAnswer => ({ status, text: words });

  /** PUT /api/v1/files/<storage>/<name> (section 3: Buddy up.cpp, Prusa-Link files.py). */
  const upload = (target: string, name: string, request: FakeRequest): FakeAnswer => {
    if (buddy && target !== 'usb') return text(404, 'Not Found');
    if (!buddy && target === 'sdcard') return text(409, 'Storage is read only'); // check_storage, lib/files.py L330–347
    if (!buddy && target !== 'local') return text(404, 'Storage not found');
    if (request.headers['content-length'] === undefined)
      return text(411, buddy ? 'Length Required' : 'LengthRequired');
    if (buddy && request.body.length === 0) return text(501, "0-sized files aren't implemented"); // up.cpp L121–130
    if (BUDDY_INVALID_NAME.test(name))
      return buddy ? text(422, 'Filename contains invalid characters') : text(400, 'ForbiddenCharacters');
    if (activeJob()?.fileName === name) return text(409, buddy ? 'File is busy' : 'FileCurrentlyPrinted'); // up.cpp L245–251
    if (files.has(name) && request.headers.overwrite !== '?1')
      return text(409, buddy ? 'File already exists' : 'FileAlreadyExists'); // up.cpp L262–263, files.py L218–222
    files.set(name, request.body);
    if (request.headers['print-after-upload'] === '?1') {
      // The file is kept either way (up.cpp L322–330, files.py L286–298).
      if (!canStartRemotely()) return text(409, buddy ? "Can't print right now" : 'NotStateToPrint');
      startJob(name);
    } else if (buddy && canStartRemotely()) {
      startJob(name, true); // the preview opens on the screen (wui.cpp L268–293)
    }
    if (!buddy) return { status: 201 }; // empty body, files.py L300
    return {
      status: 201,
      json: {
        name: shortName(name),
        display_name: name,
        ro: false,
        type: 'PRINT_FILE',
        m_timestamp: 1_733_500_000,
        size: request.body.length,
        refs: { download: `/usb/${shortName(name)}` },
      },
    };
  };

  /** POST /api/v1/files/<storage>/<name>: 204, 409 when it cannot print, 404 missing (ah.cpp L128–143; files.py L330–346). */
  const startFile = (target: string, name: string): FakeAnswer => {
    if (target !== storage || !files.has(name)) return text(404, 'Not Found');
    if (!canStartRemotely()) return text(409, buddy ? "Can't print right now" : 'NotStateToPrint');
    startJob(name);
    return { status: 204 };
  };

  /** Section 4: Buddy v1.cpp L51–130, Prusa-Link main.py L606–650 and cond.py L327–330. */
  const jobCommand = (method: string, id: number, command: string | undefined): FakeAnswer => {
    const current = visibleJob();
    if (!current || current.id !== id) return text(404, buddy ? 'Not Found' : 'NotCurrentJob');
    const inProgress = current.endedAt === null;
    if (method === 'DELETE' && command === undefined) {
      const stoppable = buddy
        ? state === 'PRINTING' || state === 'PAUSED' || state === 'ATTENTION'
        : inProgress && (state === 'PRINTING' || state === 'PAUSED');
      if (!stoppable) return text(409, 'Conflict');
      endJob('STOPPED');
      return { status: 204 };
    }
    if (method === 'PUT' && command === 'pause') {
      if (!inProgress || state !== 'PRINTING') return text(409, buddy ? 'Conflict' : 'NotPrinting');
      state = 'PAUSED';
      return { status: 204 };
    }
    if (method === 'PUT' && command === 'resume') {
      if (!inProgress || state !== 'PAUSED') return text(409, buddy ? 'Conflict' : 'NotPaused');
      state = 'PRINTING';
      return { status: 204 };
    }
    // Buddy refuses a command it does not know; Prusa-Link's `continue` is a no-op.
    return buddy ? text(400, 'Bad Request') : { status: 204 };
  };

  const route = (request: FakeRequest): FakeAnswer => {
    const { method } = request;
    const path = request.url.pathname;
    if (method === 'GET' && path === '/api/version') return version();
    if (method === 'GET' && path === '/api/v1/info') return info();
    if (method === 'GET' && path === '/api/v1/status') return status();
    if (method === 'GET' && path === '/api/v1/job') return jobAnswer();
    const jobPath = /^\/api\/v1\/job\/(\d+)(?:\/([a-z_]+))?$/.exec(path);
    if (jobPath) return jobCommand(method, Number(jobPath[1]), jobPath[2]);
    const filePath = /^\/api\/v1\/files\/([^/]+)\/(.+)$/.exec(path);
    if (filePath) {
      const name = decodeURIComponent(filePath[2]!);
      if (method === 'PUT') return upload(filePath[1]!, name, request);
      if (method === 'POST') return startFile(filePath[1]!, name);
    }
    return text(404, 'Not Found');
  };

  const server = await startFakePrinterServer((request) => {
    if (daemonStartingRequests > 0) {
      daemonStartingRequests -= 1;
      return text(503, 'Service Unavailable'); // the daemon is not ready yet (auth.py L58–61)
    }
    return auth.refusal(request) ?? route(request);
  });
  const listener = await startSwitchableListener(Number(new URL(server.origin).port));

  const requireActiveJob = (what: string): Job => {
    const current = activeJob();
    if (!current)
      throw new Error(`The simulated printer cannot ${what}: nothing is printing (${describe()})`);
    return current;
  };

  const describe = (): string => {
    const current = visibleJob();
    const jobText = current
      ? `, job ${current.id} ${current.fileName} at ${Math.round(current.progress * 100)}%${current.preview ? ' (preview)' : ''}`
      : ', no job';
    return `${label}: ${reportedState ?? state}${jobText}${redScreen ? ', halted on a red screen' : ''}${listener.isOpen ? '' : ', not answering'}`;
  };

  const label = buddy ? `PrusaLink on Buddy ${buddyVersion}` : 'Prusa-Link 0.8.1 on an MK3S';

  const connectionWith = (secret: 'right' | 'wrong'): PrinterConnectionInput => ({
    kind: 'prusalink',
    baseUrl: listener.origin,
    storage,
    auth:
      (options.auth ?? 'digest') === 'digest'
        ? { kind: 'digest', username, password: secret === 'right' ? password : `${password}-wrong` }
        : { kind: 'api-key', apiKey: secret === 'right' ? apiKey : `${apiKey}-wrong` },
  });

  return {
    label,
    origin: listener.origin,
    connection: () => connectionWith('right'),
    wrongCredentials: () => connectionWith('wrong'),
    requests: server.requests,
    faults: server.faults,
    files,
    get printsStarted() {
      return printsStarted;
    },
    ejectsRun: ejects.runs,
    describe,

    advance(fraction) {
      requireActiveJob('advance').progress = Math.min(1, Math.max(0, fraction));
    },
    /** Finishing (unload, park) reports PRINTING at 100 % on both (ps.cpp L276–286); then FINISHED. */
    finish() {
      const ending = requireActiveJob('finish');
      ending.progress = 1;
      // The firmware ran the file to its end, an eject tail included, before it says FINISHED.
      ejects.printEnded(files.get(ending.fileName));
      endJob('FINISHED');
    },
    /**
     * Buddy: a red screen (thermal runaway, MINTEMP…): the firmware halts and HTTP stops answering
     * until a person resets it (restartServer); it boots IDLE, the print lost (section 7). The
     * printer's words stay on its screen. Prusa-Link: ERROR with the words in status_printer, the
     * job gone (state_manager.py L240, L501, L597; section 6).
     */
    fail(message) {
      if (buddy) {
        redScreen = true;
        job = null;
        state = 'IDLE';
        void listener.close();
        return;
      }
      state = 'ERROR';
      errorMessage = message;
      job = null;
    },
    cancelOnScreen() {
      requireActiveJob('be cancelled');
      endJob('STOPPED');
    },
    /** Runout: ATTENTION; Buddy's job then reads PAUSED (bg.cpp L383–386), Prusa-Link's ATTENTION. */
    runOut() {
      requireActiveJob('run out of filament');
      state = 'ATTENTION';
    },
    startLocalPrint(fileName) {
      if (activeJob()) throw new Error(`The simulated printer is busy: ${describe()}`);
      startJob(fileName);
    },
    /**
     * Buddy: the printer reboots (a reset button, a red screen cleared): refused meanwhile, then
     * IDLE with no job, the print lost; old nonces answered stale. Prusa-Link: the Pi reboots:
     * refused, then 503 to the first request while the daemon starts, then IDLE, the print it
     * streamed from `local` lost (an SD-card print would go on; not simulated).
     */
    async restartServer() {
      await listener.close();
      redScreen = false;
      job = null;
      state = 'IDLE';
      errorMessage = null;
      auth.reboot();
      if (!buddy) daemonStartingRequests = 1;
      if (cablePlugged) await listener.open();
    },
    setReachable(reachable) {
      cablePlugged = reachable;
      if (reachable && !redScreen) void listener.open();
      else if (!reachable) void listener.close();
    },
    sayUnknownState(vendorState) {
      reportedState = vendorState;
    },
    async stop() {
      await listener.close();
      await server.stop();
    },
  };
};
