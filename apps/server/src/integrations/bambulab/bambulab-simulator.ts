import { randomInt } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo, Server, Socket } from 'node:net';
import { createServer, type TLSSocket } from 'node:tls';
import { Aedes, type AuthenticateError, type Client } from 'aedes';
import type { BambulabModel, PrinterConnectionInput } from '@layerline/contracts';
import type { Fault, FakeRequest } from '../http-client/fake-printer-server.ts';
import type { PrinterSimulator } from '../printer-drivers/printer-simulator.ts';
import { PLATE_GCODE } from './bambulab-package.ts';
import { CANCELLED_BY_USER, COMMAND_VERIFICATION_FAILED } from './bambulab-status.ts';
import { SIMULATED_SERIAL, SIMULATOR_IDENTITIES } from './bambulab-simulator-identities.ts';

/**
 * A Bambu Lab printer in LAN mode as shared/contracts/printers/bambulab.md describes it (no
 * official spec exists; the notes cite OpenBambuAPI and ha-bambulab, quoted by section here):
 * - MQTT over TLS (an aedes broker on a TLS server), user `bblp` and the access code, a refused
 *   code answered with CONNACK 4 (§2, §6 "wrong access code → MQTT auth refusal"); reports on
 *   `device/<serial>/report` as `{"print":{"command":"push_status",…}}`, the full state after
 *   `pushall` and only the changed fields otherwise, as the P1 and A1 series do (§2 pushall);
 * - commands on `device/<serial>/request`, answered on the report topic with the same
 *   `sequence_id` and `command` and `result` (§2 message shape, §3); without Developer Mode every
 *   `print` command is answered with err_code 84033543 (bambulab-status.ts cites it);
 * - FTPS with implicit TLS: USER/PASS (530 for a wrong code), PBSZ/PROT, EPSV/PASV with a TLS data
 *   connection, STOR, SIZE (§4);
 * - the states of §6 and the sequences of §7: IDLE → PREPARE → RUNNING → FINISH; PAUSE with
 *   stg_cur 16 (by a person) or 6 (runout); FAILED with print_error 50348044 for a moment after a
 *   cancel; a reboot drops MQTT and forgets the job.
 * The certificate is self-signed with CN = serial (bambulab-simulator-identities.ts); swapping it
 * shows what a replaced printer (or something else at its address) looks like to the pin.
 * Faults (PrinterSimulator.faults): 'wrong-json' makes the next report unreadable, 'hang' leaves the
 * next command unanswered; the HTTP ones (html, a status) have no MQTT counterpart and are ignored.
 */
export interface BambulabSimulatorOptions {
  readonly model?: BambulabModel;
  /** Developer Mode (with LAN-only mode): off, the printer reports but refuses every command. */
  readonly developerMode?: boolean;
  /** The AMS trays (unit 0, slots 0–3), or none: the external spool. */
  readonly ams?: ReadonlyArray<{ readonly type: string; readonly colour: string }>;
  /** The demo's printer prints by itself: a print takes this long, reported every second. Tests drive it instead. */
  readonly printSeconds?: number;
}

export interface BambulabSimulator extends PrinterSimulator {
  readonly serial: string;
  readonly accessCode: string;
  /** Every command published to the request topic, as sent. */
  readonly commands: Array<Record<string, Record<string, unknown>>>;
  /** The ids skip_objects named during the current print. */
  readonly skippedObjects: number[];
  /** The printer now shows its other certificate (a replaced printer, or an impostor). */
  swapCertificate(): void;
  setDeveloperMode(on: boolean): void;
  /** A person resumes a paused print on the screen (after loading filament). */
  resumeOnScreen(): void;
}

type PrintFields = Record<string, unknown> & { gcode_state: string };

const idleState = (): PrintFields => ({
  gcode_state: 'IDLE',
  mc_percent: 0,
  mc_remaining_time: 0,
  print_error: 0,
  hms: [],
  stg_cur: -1,
  gcode_file: '',
  subtask_name: '',
  layer_num: 0,
  total_layer_num: 0,
  nozzle_temper: 24,
  nozzle_target_temper: 0,
  bed_temper: 23,
  bed_target_temper: 0,
  gcode_file_prepare_percent: '0',
});

const ACTIVE = new Set(['PREPARE', 'RUNNING', 'PAUSE']);
const TOTAL_LAYERS = 50;
const PRINT_MINUTES = 60;

export async function startBambulabSimulator(options: BambulabSimulatorOptions = {}): Promise<BambulabSimulator> {
  const serial = SIMULATED_SERIAL;
  const accessCode = String(randomInt(10_000_000, 100_000_000));
  const reportTopic = `device/${serial}/report`;
  const requestTopic = `device/${serial}/request`;
  let identity = 0;
  let developerMode = options.developerMode ?? true;
  let reachable = true;
  let print: PrintFields = idleState();
  let unknownState: string | null = null;
  let sequence = 0;
  let printsStarted = 0;
  const files = new Map<string, Buffer>();
  const requests: FakeRequest[] = [];
  const faults: Fault[] = [];
  const commands: Array<Record<string, Record<string, unknown>>> = [];
  const skippedObjects: number[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const ams = options.ams
    ? { ams: [{ id: '0', tray: options.ams.map((t, slot) => ({ id: String(slot), tray_type: t.type, tray_color: `${t.colour.replace('#', '').toUpperCase()}FF` })) }] }
    : { ams: [] };

  if (options.printSeconds) {
    const perSecond = 100 / options.printSeconds;
    const ticker = setInterval(() => {
      if (print.gcode_state !== 'RUNNING') return;
      const percent = Math.min(100, Number(print.mc_percent) + perSecond);
      if (percent >= 100) return finish();
      advanceTo(percent / 100);
    }, 1000);
    ticker.unref();
    timers.add(ticker);
  }

  const later = (ms: number, step: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      step();
    }, ms);
    timers.add(timer);
  };

  const record = (method: string, path: string, body: string) =>
    requests.push({ method, url: new URL(`bambu://${serial}${path}`), headers: {}, body: Buffer.from(body) });

  const broker = await Aedes.createBroker({
    authenticate(_client: Client, username, password, done) {
      if (username === 'bblp' && password?.toString('utf8') === accessCode) return done(null, true);
      const refused = Object.assign(new Error('Bad user name or password'), { returnCode: 4 }) as AuthenticateError;
      return done(refused, null);
    },
  });

  const send = (message: Record<string, unknown>) => {
    const fault = faults[0];
    if (fault === 'wrong-json') faults.shift();
    const payload = fault === 'wrong-json' ? Buffer.from('{"print": {"gcode_state": ') : Buffer.from(JSON.stringify(message));
    broker.publish({ cmd: 'publish', topic: reportTopic, payload, qos: 0, retain: false, dup: false }, () => undefined);
  };

  const reported = (fields: Record<string, unknown>) => ({
    ...fields,
    ...(unknownState !== null && 'gcode_state' in fields ? { gcode_state: unknownState } : {}),
  });

  /** A push_status with the fields that changed (P1/A1 behaviour), or the whole state after pushall. */
  const push = (changed: Record<string, unknown> | 'all') => {
    sequence += 1;
    const fields = changed === 'all' ? { ...print, ams } : changed;
    send({ print: { command: 'push_status', msg: changed === 'all' ? 0 : 1, sequence_id: String(sequence), ...reported(fields) } });
  };

  const change = (fields: Record<string, unknown>) => {
    print = { ...print, ...fields } as PrintFields;
    push(fields);
  };

  const reply = (type: string, body: Record<string, unknown>, answer: Record<string, unknown>) =>
    send({ [type]: { sequence_id: body.sequence_id, command: body.command, ...answer } });

  const startPrint = (name: string) => {
    printsStarted += 1;
    skippedObjects.length = 0;
    change({ gcode_state: 'PREPARE', subtask_name: name, gcode_file: name, mc_percent: 0, mc_remaining_time: PRINT_MINUTES, print_error: 0, hms: [], stg_cur: 2, layer_num: 0, total_layer_num: TOTAL_LAYERS, nozzle_target_temper: 220, bed_target_temper: 55 });
    // PREPARE (heating, levelling) then RUNNING (§7 good print).
    later(30, () => {
      if (print.gcode_state === 'PREPARE' && print.subtask_name === name) change({ gcode_state: 'RUNNING', stg_cur: 0, nozzle_temper: 220, bed_temper: 55 });
    });
  };

  const handlePrint = (body: Record<string, unknown>) => {
    const command = String(body.command);
    if (!developerMode) return reply('print', body, { err_code: COMMAND_VERIFICATION_FAILED });
    switch (command) {
      case 'project_file': {
        if (ACTIVE.has(print.gcode_state)) return reply('print', body, { result: 'fail', reason: 'the printer is busy' });
        const url = String(body.url ?? '');
        const name = url.replace(/^file:\/\/\/sdcard\//, '').replace(/^ftp:\/\//, '');
        const file = files.get(name);
        if (!file || body.param !== PLATE_GCODE || !file.includes(Buffer.from(`${PLATE_GCODE}.md5`))) {
          return reply('print', body, { result: 'fail', reason: `${name}: no such plate (${String(body.param)})` });
        }
        reply('print', body, { result: 'success', param: body.param, url });
        return startPrint(String(body.subtask_name || name));
      }
      case 'pause':
        if (print.gcode_state !== 'RUNNING') return reply('print', body, { result: 'fail', reason: 'not printing' });
        reply('print', body, { result: 'success' });
        return change({ gcode_state: 'PAUSE', stg_cur: 16 });
      case 'resume':
        if (print.gcode_state !== 'PAUSE') return reply('print', body, { result: 'fail', reason: 'not paused' });
        reply('print', body, { result: 'success' });
        return change({ gcode_state: 'RUNNING', stg_cur: 0, hms: [] });
      case 'stop':
        if (!ACTIVE.has(print.gcode_state)) return reply('print', body, { result: 'fail', reason: 'not printing' });
        reply('print', body, { result: 'success' });
        return cancel();
      case 'skip_objects':
        if (!ACTIVE.has(print.gcode_state)) return reply('print', body, { result: 'fail', reason: 'not printing' });
        skippedObjects.push(...(Array.isArray(body.obj_list) ? body.obj_list.map(Number) : []));
        return reply('print', body, { result: 'success', obj_list: body.obj_list });
      case 'gcode_line':
        return reply('print', body, { result: 'success', param: body.param });
      default:
        return reply('print', body, { result: 'fail', reason: `unknown command ${command}` });
    }
  };

  const cancel = () => {
    change({ gcode_state: 'FAILED', print_error: CANCELLED_BY_USER, stg_cur: -1 });
    // Sent for a moment, then reset to 0 (models.py L1112–1126).
    later(100, () => {
      if (print.gcode_state === 'FAILED') change({ print_error: 0 });
    });
  };

  broker.on('publish', (packet, client) => {
    if (!client || packet.topic !== requestTopic) return;
    const text = packet.payload.toString();
    record('MQTT', `/${packet.topic}`, text);
    let message: Record<string, Record<string, unknown>>;
    try {
      message = JSON.parse(text) as Record<string, Record<string, unknown>>;
    } catch {
      return; // the printer ignores what it cannot read
    }
    commands.push(message);
    if (faults[0] === 'hang') {
      faults.shift();
      return;
    }
    if (message.pushing?.command === 'pushall') return push('all');
    if (message.info?.command === 'get_version')
      return reply('info', message.info, { module: [{ name: 'ota', sw_ver: '01.08.02.00', hw_ver: '', sn: serial }, { name: 'mc', sw_ver: '00.00.27.04', hw_ver: 'MC07', sn: serial }] });
    if (message.print) return handlePrint(message.print);
  });

  const track = (socket: Socket) => {
    if (!reachable) return socket.destroy();
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };

  const tlsOptions = () => SIMULATOR_IDENTITIES[identity]!;
  const mqttServer = createServer(tlsOptions(), (socket) => {
    track(socket);
    if (!socket.destroyed) broker.handle(socket);
  });
  const ftpServer = createServer(tlsOptions(), (socket) => {
    track(socket);
    if (!socket.destroyed) ftpSession(socket);
  });
  // Handshakes refused while unreachable or cut by a restart are the client's to see, not ours.
  mqttServer.on('tlsClientError', () => undefined);
  ftpServer.on('tlsClientError', () => undefined);

  function ftpSession(socket: TLSSocket) {
    let user: string | null = null;
    let authed = false;
    let data: { server: Server; received: Promise<Buffer> } | null = null;
    let buffer = '';
    let queue = Promise.resolve();
    const answer = (line: string) => {
      if (!socket.destroyed) socket.write(`${line}\r\n`);
    };
    const openData = async () => {
      data?.server.close();
      const server = createServer(tlsOptions());
      const received = new Promise<Buffer>((resolve, reject) => {
        server.once('secureConnection', (dataSocket) => {
          track(dataSocket);
          const chunks: Buffer[] = [];
          dataSocket.on('data', (chunk: Buffer) => chunks.push(chunk));
          dataSocket.on('end', () => {
            resolve(Buffer.concat(chunks));
            dataSocket.end();
          });
          dataSocket.on('error', reject);
        });
      });
      received.catch(() => undefined);
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      data = { server, received };
      return (server.address() as AddressInfo).port;
    };
    const handle = async (line: string) => {
      const [verb = '', ...rest] = line.split(' ');
      const arg = rest.join(' ');
      const command = verb.toUpperCase();
      record('FTP', `/${command}`, command === 'PASS' ? '***' : arg);
      if (!authed && !['USER', 'PASS', 'QUIT', 'FEAT'].includes(command)) return answer('530 Please login with USER and PASS');
      switch (command) {
        case 'USER':
          user = arg;
          return answer('331 Password required');
        case 'PASS':
          authed = user === 'bblp' && arg === accessCode;
          return answer(authed ? '230 Login successful' : '530 Login incorrect');
        case 'FEAT':
          return answer('211-Features:\r\n PBSZ\r\n PROT\r\n SIZE\r\n EPSV\r\n211 End');
        case 'TYPE':
        case 'STRU':
        case 'OPTS':
        case 'PBSZ':
        case 'PROT':
          return answer('200 OK');
        case 'PWD':
          return answer('257 "/"');
        case 'CWD':
          return answer('250 OK');
        case 'MKD':
          return answer(`257 "${arg}" created`);
        case 'EPSV':
          return answer(`229 Entering Extended Passive Mode (|||${await openData()}|)`);
        case 'PASV': {
          const port = await openData();
          return answer(`227 Entering Passive Mode (127,0,0,1,${port >> 8},${port & 255})`);
        }
        case 'STOR': {
          if (!data) return answer('425 Use PASV first');
          const transfer = data;
          data = null;
          answer('150 Ok to send data');
          try {
            files.set(arg.replace(/^\/+/, ''), await transfer.received);
            answer('226 Transfer complete');
          } catch {
            answer('426 Connection closed; transfer aborted');
          } finally {
            transfer.server.close();
          }
          return;
        }
        case 'SIZE': {
          const file = files.get(arg.replace(/^\/+/, ''));
          return answer(file ? `213 ${file.length}` : '550 No such file');
        }
        case 'DELE':
          return answer(files.delete(arg.replace(/^\/+/, '')) ? '250 Deleted' : '550 No such file');
        case 'QUIT':
          answer('221 Goodbye');
          return void socket.end();
        default:
          return answer(`502 ${command} not implemented`);
      }
    };
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let end: number;
      while ((end = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        queue = queue.then(() => handle(line));
      }
    });
    socket.on('close', () => data?.server.close());
    answer('220 Bambu Lab FTPS');
  }

  const listen = async (server: Server, port = 0) => {
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    return (server.address() as AddressInfo).port;
  };
  const mqttPort = await listen(mqttServer);
  const ftpsPort = await listen(ftpServer);

  const dropAll = async () => {
    for (const socket of sockets) socket.destroy();
    await Promise.all([new Promise((r) => mqttServer.close(r)), new Promise((r) => ftpServer.close(r))]);
  };
  const listenAgain = async () => {
    await listen(mqttServer, mqttPort);
    await listen(ftpServer, ftpsPort);
  };

  const model = options.model ?? 'P1S';

  function advanceTo(fraction: number) {
    change({
      gcode_state: 'RUNNING',
      stg_cur: 0,
      mc_percent: Math.round(fraction * 100),
      layer_num: Math.round(fraction * TOTAL_LAYERS),
      mc_remaining_time: Math.round((1 - fraction) * PRINT_MINUTES),
    });
  }
  function finish() {
    change({ gcode_state: 'RUNNING', mc_percent: 100, layer_num: TOTAL_LAYERS, mc_remaining_time: 0 });
    change({ gcode_state: 'FINISH', stg_cur: -1, nozzle_target_temper: 0, bed_target_temper: 0 });
  }

  return {
    label: `Bambu Lab ${model} (LAN mode, simulated)`,
    origin: `mqtts://127.0.0.1:${mqttPort}`,
    serial,
    accessCode,
    // The farm appends no eject tail for Bambu Lab firmware (continuous-printing.ts knows no dialect for it).
    ejectsRun: [],
    connection: () => ({ kind: 'bambulab', host: '127.0.0.1', serial, accessCode, model, mqttPort, ftpsPort }) satisfies PrinterConnectionInput,
    wrongCredentials: () => ({ kind: 'bambulab', host: '127.0.0.1', serial, accessCode: accessCode === '00000000' ? '11111111' : '00000000', model, mqttPort, ftpsPort }),
    requests,
    faults,
    files,
    commands,
    skippedObjects,
    get printsStarted() {
      return printsStarted;
    },
    describe: () => `${print.gcode_state} ${String(print.subtask_name)} (stage ${String(print.stg_cur)}, ${String(print.mc_percent)}%)`,

    advance: advanceTo,
    finish,
    fail() {
      // Bambu printers report codes, not sentences: a nozzle heater fault is stage 20 (const.py L85–135).
      change({ gcode_state: 'FAILED', stg_cur: 20, nozzle_target_temper: 0, bed_target_temper: 0 });
    },
    cancelOnScreen: cancel,
    runOut() {
      change({ gcode_state: 'PAUSE', stg_cur: 6 });
    },
    resumeOnScreen() {
      change({ gcode_state: 'RUNNING', stg_cur: 0, hms: [] });
    },
    startLocalPrint(fileName) {
      startPrint(fileName);
    },
    async restartServer() {
      // A reboot: MQTT drops, the job is gone, the printer comes back idle (§7).
      await dropAll();
      print = idleState();
      unknownState = null;
      await new Promise((r) => setTimeout(r, 200));
      await listenAgain();
    },
    setReachable(on) {
      if (on === reachable) return;
      reachable = on;
      void (on ? listenAgain() : dropAll());
    },
    sayUnknownState(state) {
      unknownState = state;
      push({ gcode_state: print.gcode_state });
    },
    swapCertificate() {
      identity = 1 - identity;
      mqttServer.setSecureContext(tlsOptions());
      ftpServer.setSecureContext(tlsOptions());
      for (const socket of sockets) socket.destroy();
    },
    setDeveloperMode(on) {
      developerMode = on;
    },
    async stop() {
      for (const timer of timers) clearTimeout(timer); // clears the demo's interval too
      await dropAll();
      await new Promise<void>((r) => broker.close(() => r()));
    },
  };
}
