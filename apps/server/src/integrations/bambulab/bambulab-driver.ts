import type { BambulabConnection } from '@layerline/contracts';
import {
  failed,
  outcomeUnknown,
  printFileNameProblem,
  succeeded,
  type PrinterDriver,
  type PrinterResult,
} from '../../modules/production/printer-driver.ts';
import { checkPrinterHost, type HostLookup, type PrinterHostPolicy } from '../http-client/printer-host-policy.ts';
import { chooseAmsTray } from './bambulab-ams.ts';
import { createBambuConnection, type BambuConnection } from './bambulab-connection.ts';
import { uploadOverFtps } from './bambulab-ftps.ts';
import { bambuPackage, filamentOf, PLATE_GCODE, type PlateFilament } from './bambulab-package.ts';
import { printerWords, readBambuStatus } from './bambulab-status.ts';
import type { CertificatePins } from './bambulab-tls.ts';

/**
 * Bambu Lab printers (X1 Carbon, P1S, P1P, A1, A1 mini) in LAN-only mode with Developer Mode on,
 * as shared/contracts/printers/bambulab.md describes them (OpenBambuAPI cc383a2c…, ha-bambulab
 * 809391e7…; no official spec exists):
 * - probe: the connection's first full report (pushall), `info.get_version`, and while the printer
 *   is free a G-code comment (`print.gcode_line`), which a printer without Developer Mode refuses;
 * - upload: the G-code packaged as `<name>.3mf` (bambulab-package.ts) over FTPS, then `project_file`;
 * - start: `print.project_file` with the plate, `url` file:///sdcard/<file> and the AMS mapping;
 * - pause / resume / cancel: `print.pause` | `resume` | `stop`; skipObjects: `print.skip_objects`;
 * - status: the merged reports (no request: the printer pushes them);
 * - lastOutcome: the end of the last print this connection watched (the printer keeps no history
 *   Layerline can read over LAN).
 * One MQTT connection per printer, kept by the fleet (the firmware accepts only a few clients).
 */
export interface BambulabFleetDeps {
  readonly policy: PrinterHostPolicy;
  /** Where each printer's pinned certificate is kept (the printers table). */
  readonly pins: (printerId: string) => CertificatePins;
  /** Per connect, read or command; default 10 s. */
  readonly timeoutMs?: number;
  /** Per upload; default 5 min. */
  readonly uploadTimeoutMs?: number;
  readonly lookup?: HostLookup;
  readonly now?: () => number;
  /**
   * `host:port` of printers this process runs itself (the demo's simulated Bambu Lab printer on
   * loopback): ours, so the host policy's loopback rule does not apply to them. Nothing else is.
   */
  readonly inProcess?: ReadonlySet<string>;
}

export interface BambulabFleet {
  driver(printerId: string, connection: BambulabConnection): PrinterDriver;
  /** Closes every printer's connection (shutdown). */
  close(): Promise<void>;
}

const BUSY_STATES = new Set(['printing', 'paused', 'attention', 'busy']);

export function createBambulabFleet(deps: BambulabFleetDeps): BambulabFleet {
  const timeoutMs = deps.timeoutMs ?? 10_000;
  const uploadTimeoutMs = deps.uploadTimeoutMs ?? 300_000;
  const now = deps.now ?? Date.now;
  const connections = new Map<string, { key: string; connection: BambuConnection }>();
  /** The filament of each file uploaded, for the AMS mapping when it is started. */
  const filaments = new Map<string, PlateFilament | null>();

  const hostUrl = (host: string) => new URL(`https://${host.includes(':') ? `[${host}]` : host}`);

  function connectionOf(printerId: string, c: BambulabConnection): BambuConnection {
    const key = JSON.stringify([c.host, c.mqttPort, c.serial, c.accessCode]);
    const held = connections.get(printerId);
    if (held?.key === key) return held.connection;
    if (held) void held.connection.close();
    const connection = createBambuConnection(
      { host: c.host, port: c.mqttPort, serial: c.serial, accessCode: c.accessCode },
      {
        pins: deps.pins(printerId),
        timeoutMs,
        hostProblem: async () =>
          deps.inProcess?.has(`${c.host}:${c.mqttPort}`) ? null : checkPrinterHost(hostUrl(c.host), deps.policy, deps.lookup),
      },
    );
    connections.set(printerId, { key, connection });
    return connection;
  }

  return {
    driver(printerId, c) {
      const connection = connectionOf(printerId, c);
      const fileKey = (fileName: string) => `${printerId}\0${fileName}`;

      const status = async () => {
        const answer = await connection.report();
        return answer.ok ? succeeded(readBambuStatus(answer.value.report, answer.value.cancelled)) : answer;
      };

      /** `busy` when the printer has a job on it or is doing something else. */
      const whenFree = async (): Promise<PrinterResult<void>> => {
        const current = await status();
        if (!current.ok) return current;
        if (BUSY_STATES.has(current.value.state))
          return failed('busy', `The printer is ${current.value.vendorState ?? current.value.state}${current.value.fileName ? ` (${current.value.fileName})` : ''}`);
        return succeeded(undefined);
      };

      const printCommand = async (command: string, operation: string, extra: Record<string, unknown> = { param: '' }) => {
        const answer = await connection.command('print', { command, ...extra }, operation);
        return answer.ok ? succeeded(undefined) : answer;
      };

      const start = async (fileName: string): Promise<PrinterResult<void>> => {
        const problem = printFileNameProblem(fileName);
        if (problem) return failed('rejected', problem);
        const report = await connection.report();
        if (!report.ok) return report;
        const free = await whenFree();
        if (!free.ok) return free;
        const ams = chooseAmsTray(report.value.report.ams, filaments.get(fileKey(fileName)) ?? null);
        if ('problem' in ams) return failed('rejected', ams.problem);
        // Every parameter as ha-bambulab sends it to real X1/P1/A1 printers (cmd.py L56–78): the
        // file on the SD card, bed levelling on, `bed_leveling` spelt with one l.
        return printCommand('project_file', 'project_file', {
          param: PLATE_GCODE,
          project_id: '0',
          profile_id: '0',
          task_id: '0',
          subtask_id: '0',
          subtask_name: fileName,
          url: `file:///sdcard/${fileName}.3mf`,
          md5: '',
          timelapse: false,
          bed_type: 'auto',
          bed_leveling: true,
          flow_cali: false,
          vibration_cali: false,
          layer_inspect: false,
          use_ams: ams.useAms,
          ...(ams.useAms ? { ams_mapping: ams.mapping } : {}),
        });
      };

      return {
        kind: 'bambulab',

        async probe() {
          const started = now();
          const current = await status();
          if (!current.ok) return current;
          const version = await connection.command('info', { command: 'get_version' }, 'get_version');
          if (!version.ok) return version;
          const modules = Array.isArray(version.value.module) ? (version.value.module as Array<Record<string, unknown>>) : [];
          const ota = modules.find((m) => m.name === 'ota');
          // Write commands need Developer Mode (bambulab.md §1): a comment line moves nothing, and
          // is sent only while the printer is free, so a running print never gets a line injected.
          if (!BUSY_STATES.has(current.value.state)) {
            const check = await connection.command('print', { command: 'gcode_line', param: '; Layerline connection test\n' }, 'a test command');
            if (!check.ok) return check;
          }
          return succeeded({
            kind: 'bambulab' as const,
            software: `Bambu Lab ${c.model}`,
            firmware: typeof ota?.sw_ver === 'string' ? `firmware ${ota.sw_ver}` : null,
            latencyMs: now() - started,
          });
        },

        async upload(file, { startPrint }) {
          const problem = printFileNameProblem(file.fileName);
          if (problem) return failed('rejected', problem);
          const free = await whenFree();
          if (!free.ok) return free;
          const filament = filamentOf(file.bytes);
          const pkg = await bambuPackage({
            gcode: file.bytes,
            printSeconds: file.estimatedPrintSeconds,
            filament,
            ...(file.layerCount !== undefined ? { layerCount: file.layerCount } : {}),
            ...(file.objects ? { objects: file.objects } : {}),
          });
          const sent = await uploadOverFtps({
            host: c.host,
            port: c.ftpsPort,
            serial: c.serial,
            accessCode: c.accessCode,
            pins: deps.pins(printerId),
            remoteName: `${file.fileName}.3mf`,
            bytes: pkg.bytes,
            timeoutMs: uploadTimeoutMs,
          });
          if (!sent.ok) return sent;
          filaments.set(fileKey(file.fileName), filament);
          if (!startPrint) return succeeded({ fileName: file.fileName, printStarted: false });
          const started = await start(file.fileName);
          return started.ok ? succeeded({ fileName: file.fileName, printStarted: true }) : started;
        },

        start,
        pause: () => printCommand('pause', 'pause'),
        resume: () => printCommand('resume', 'resume'),
        cancel: () => printCommand('stop', 'stop'),
        status,

        async lastOutcome(fileName) {
          const report = await connection.report();
          if (!report.ok) return report;
          const ended = connection.lastEnded();
          if (!ended || ended.name !== fileName) return succeeded(outcomeUnknown);
          if (ended.state === 'FINISH') return succeeded({ outcome: 'completed', message: null });
          if (ended.cancelled) return succeeded({ outcome: 'cancelled', message: null });
          return succeeded({ outcome: 'failed', message: printerWords(ended.words) });
        },

        async skipObjects(objects) {
          // obj_list holds the identify_ids of slice_info.config, which bambulab-package.ts writes as
          // each object's index (synman/bambu-printer-manager docs, "Skip Objects During Print").
          return printCommand('skip_objects', 'skip_objects', { obj_list: objects.map((o) => o.index) });
        },
      };
    },

    async close() {
      const all = [...connections.values()];
      connections.clear();
      await Promise.all(all.map((held) => held.connection.close()));
    },
  };
}
