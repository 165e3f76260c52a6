import { randomBytes } from 'node:crypto';
import { MqttClient } from 'mqtt';
import { failed, succeeded, type PrinterFailure, type PrinterResult } from '../../modules/production/printer-driver.ts';
import { CANCELLED_BY_USER, COMMAND_VERIFICATION_FAILED, printReportSchema, type PrintReport } from './bambulab-status.ts';
import { pinnedTlsStream, type CertificatePins } from './bambulab-tls.ts';

/**
 * The one MQTT connection Layerline keeps to a Bambu Lab printer (its firmware accepts few clients):
 * `mqtts://<host>:8883`, user `bblp`, the access code as password, reports subscribed on
 * `device/<serial>/report`, commands published to `device/<serial>/request`
 * (shared/contracts/printers/bambulab.md §2–3; OpenBambuAPI mqtt.md L20–77; ha-bambulab
 * client.py L386, L478, L637–649). On every (re)connect it asks for the full state (`pushall`) and
 * then merges the printer's reports into it: the P1 and A1 series send only what changed.
 * It does not reconnect by itself: the next call does, so a printer that is off costs one bounded
 * attempt per farm tick instead of a reconnect loop.
 */
export interface BambuLink {
  readonly host: string;
  readonly port: number;
  readonly serial: string;
  readonly accessCode: string;
}

export interface BambuConnectionDeps {
  readonly pins: CertificatePins;
  /** Why the host may not be called (the printer host policy), or null. */
  readonly hostProblem: () => Promise<string | null>;
  readonly timeoutMs: number;
}

/** How the last print the connection watched ended, by the name the farm gave it. */
export interface WatchedEnd {
  readonly name: string;
  readonly state: 'FINISH' | 'FAILED';
  readonly cancelled: boolean;
  readonly words: PrintReport;
}

export interface BambuConnection {
  /** The merged report, connecting first when needed. */
  report(): Promise<PrinterResult<{ report: PrintReport; cancelled: boolean }>>;
  /** Publishes one command and waits for the printer's answer with the same sequence_id. */
  command(type: 'print' | 'info', body: Record<string, unknown>, operation: string): Promise<PrinterResult<Record<string, unknown>>>;
  /** The last print seen to end, if any (forgotten when the printer restarts). */
  lastEnded(): WatchedEnd | null;
  close(): Promise<void>;
}

const REPLY_KEYS = new Set(['command', 'sequence_id', 'result', 'reason', 'err_code', 'msg']);

interface Waiter {
  readonly command: string;
  readonly resolve: (reply: Record<string, unknown>) => void;
}

/** A connect failure in the farm's words. MQTT 3.1.1 CONNACK 4 and 5 are a refused user or password. */
function connectFailure(error: Error & { code?: unknown }, link: BambuLink): PrinterFailure {
  const code = error.code;
  if (code === 4 || code === 5 || code === 134 || code === 135)
    return { kind: 'auth_refused', message: `The printer refused the LAN access code (MQTT: ${error.message}): enter the code its screen shows now (it changes when LAN mode is turned off and on)` };
  if (code === 'BAMBU_CERTIFICATE_CHANGED') return { kind: 'not_allowed', message: error.message };
  if (code === 'ETIMEDOUT') return { kind: 'timeout', message: `No answer from ${link.host}:${link.port} (MQTT)` };
  return { kind: 'unreachable', message: `Could not reach the printer at ${link.host}:${link.port} (MQTT: ${error.message})` };
}

export function createBambuConnection(link: BambuLink, deps: BambuConnectionDeps): BambuConnection {
  const reportTopic = `device/${link.serial}/report`;
  const requestTopic = `device/${link.serial}/request`;
  let client: MqttClient | null = null;
  let connecting: Promise<PrinterResult<void>> | null = null;
  let merged: PrintReport | null = null;
  let cancelled = false;
  let ended: WatchedEnd | null = null;
  let sequence = 0;
  const waiters = new Map<string, Waiter>();

  function merge(fields: Record<string, unknown>): void {
    const delta = printReportSchema.safeParse(fields);
    if (!delta.success) return; // a field of an unexpected type: the rest of the state stands
    const before = merged?.gcode_state;
    merged = { ...merged, ...delta.data };
    const state = merged.gcode_state;
    if (state === 'FAILED' && merged.print_error === CANCELLED_BY_USER) cancelled = true;
    if (state !== 'FAILED') cancelled = false;
    if ((state === 'FINISH' || state === 'FAILED') && before !== state) {
      const name = merged.subtask_name || merged.gcode_file;
      if (name) ended = { name, state, cancelled, words: merged };
    }
    if (state === 'FAILED' && cancelled && ended) ended = { ...ended, cancelled: true };
  }

  function onMessage(topic: string, payload: Buffer): void {
    if (topic !== reportTopic) return;
    let message: unknown;
    try {
      message = JSON.parse(payload.toString('utf8'));
    } catch {
      return; // a report that is not JSON tells nothing; the state stands
    }
    if (typeof message !== 'object' || message === null) return;
    for (const [type, value] of Object.entries(message as Record<string, unknown>)) {
      if (typeof value !== 'object' || value === null) continue;
      const body = value as Record<string, unknown>;
      const key = `${type}:${String(body.sequence_id ?? '')}`;
      const waiter = waiters.get(key);
      if (waiter && waiter.command === body.command) {
        waiters.delete(key);
        waiter.resolve(body);
        continue;
      }
      if (type === 'print' && body.command === 'push_status') {
        merge(Object.fromEntries(Object.entries(body).filter(([k]) => !REPLY_KEYS.has(k))));
      }
    }
  }

  function connectOnce(): Promise<PrinterResult<void>> {
    return new Promise((resolve) => {
      let settled = false;
      let established = false;
      const mqtt = new MqttClient(() => pinnedTlsStream({ host: link.host, port: link.port, servername: link.serial, pins: deps.pins }), {
        username: 'bblp',
        password: link.accessCode,
        clientId: `layerline-${randomBytes(4).toString('hex')}`,
        protocolVersion: 4,
        clean: true,
        reconnectPeriod: 0,
        connectTimeout: deps.timeoutMs,
        keepalive: 30,
        manualConnect: true,
      });
      const finish = (result: PrinterResult<void>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (result.ok) {
          established = true;
          client = mqtt;
        } else {
          mqtt.end(true);
        }
        resolve(result);
      };
      const timer = setTimeout(
        () =>
          finish(
            failed(
              'timeout',
              `The printer at ${link.host} sent no report on ${reportTopic} within ${deps.timeoutMs / 1000} s: check its serial number`,
            ),
          ),
        deps.timeoutMs,
      );
      mqtt.on('message', onMessage);
      mqtt.on('error', (error) => finish({ ok: false, failure: connectFailure(error as Error & { code?: unknown }, link) }));
      mqtt.on('close', () => {
        if (established && client === mqtt) {
          // The printer went away (rebooted, unplugged): its next state is asked for afresh.
          client = null;
          merged = null;
          ended = null;
          for (const [key, waiter] of waiters) {
            waiters.delete(key);
            waiter.resolve({ command: waiter.command, result: 'closed' });
          }
        }
        finish(failed('unreachable', `The printer at ${link.host}:${link.port} closed the MQTT connection`));
      });
      mqtt.on('connect', () => {
        merged = null;
        mqtt.subscribe(reportTopic, { qos: 0 }, (error) => {
          if (error) return finish(failed('rejected', `The printer refused the subscription to ${reportTopic}: ${error.message}`));
          // pushall: the whole state (mqtt.md L137–160); the P1 answers deltas only after it.
          mqtt.publish(requestTopic, JSON.stringify({ pushing: { sequence_id: '0', command: 'pushall', version: 1, push_target: 1 } }));
          const poll = setInterval(() => {
            if (settled) return clearInterval(poll);
            if (merged?.gcode_state !== undefined) {
              clearInterval(poll);
              finish(succeeded(undefined));
            }
          }, 20);
        });
      });
      mqtt.connect();
    });
  }

  async function ensureConnected(): Promise<PrinterResult<void>> {
    if (client?.connected) return succeeded(undefined);
    if (!connecting) {
      connecting = (async () => {
        const problem = await deps.hostProblem();
        if (problem) return failed('not_allowed', `The printer's address is refused: ${problem}`);
        return connectOnce();
      })().finally(() => {
        connecting = null;
      });
    }
    return connecting;
  }

  return {
    async report() {
      const ready = await ensureConnected();
      if (!ready.ok) return ready;
      if (!merged) return failed('unreachable', 'The printer disconnected before it reported its state');
      return succeeded({ report: merged, cancelled });
    },

    async command(type, body, operation) {
      const ready = await ensureConnected();
      if (!ready.ok) return ready;
      const mqtt = client!;
      sequence += 1;
      const sequenceId = String(sequence);
      const command = String(body.command);
      const reply = await new Promise<Record<string, unknown> | null>((resolve) => {
        const key = `${type}:${sequenceId}`;
        const timer = setTimeout(() => {
          waiters.delete(key);
          resolve(null);
        }, deps.timeoutMs);
        waiters.set(key, {
          command,
          resolve: (answer) => {
            clearTimeout(timer);
            resolve(answer);
          },
        });
        // QoS 1 as OpenBambuAPI sends pause/resume/stop (mqtt.md L517–575).
        mqtt.publish(requestTopic, JSON.stringify({ [type]: { sequence_id: sequenceId, ...body } }), { qos: 1 });
      });
      if (reply === null) return failed('timeout', `The printer did not answer ${operation} within ${deps.timeoutMs / 1000} s`);
      if (reply.result === 'closed') return failed('unreachable', `The printer disconnected before it answered ${operation}`);
      if (reply.err_code === COMMAND_VERIFICATION_FAILED)
        return failed(
          'not_allowed',
          `The printer refused ${operation} (err_code ${COMMAND_VERIFICATION_FAILED}, MQTT command verification failed): ` +
            'since the 2025 Authorization Control firmware it takes commands from Layerline only in LAN-only mode with Developer Mode on (Settings › Network on its screen)',
        );
      const result = typeof reply.result === 'string' ? reply.result.toLowerCase() : '';
      if (result.startsWith('fail') || (typeof reply.err_code === 'number' && reply.err_code !== 0)) {
        const reason = typeof reply.reason === 'string' && reply.reason ? reply.reason : `err_code ${String(reply.err_code ?? 'none')}`;
        return failed('rejected', `The printer refused ${operation}: ${reason}`);
      }
      return succeeded(reply);
    },

    lastEnded: () => ended,

    async close() {
      const mqtt = client;
      client = null;
      if (mqtt) await mqtt.endAsync(true);
    },
  };
}
