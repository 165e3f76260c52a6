import { z } from 'zod';
import type { PrinterStatus, PrusalinkConnection } from '@layerline/contracts';
import {
  blankStatus,
  failed,
  printFileNameProblem,
  outcomeUnknown,
  succeeded,
  type PrinterDriver,
  type PrinterResult,
} from '../../modules/production/printer-driver.ts';
import type { HttpResponse } from '../http-client/http-client.ts';
import { createPrinterHttp, parseAnswer, type PrinterCall } from '../http-client/printer-http.ts';
import type { PrinterTransportOptions } from '../http-client/printer-transport-options.ts';
import { digestAuthorization, parseDigestChallenge, type DigestChallenge } from './digest-auth.ts';

/**
 * PrusaLink (its OpenAPI: /work/shared/contracts/prusalink/openapi.yaml, "PrusaLink Web" 1.0.0),
 * as two different servers speak it (shared/contracts/printers/prusalink.md): the Buddy firmware
 * (MK4, XL, MINI, Core One; storage `usb`) and Prusa-Link on the MK3 (storage `local`). X-Api-Key
 * or HTTP Digest. Calls:
 * - probe: GET /api/version
 * - upload: PUT /api/v1/files/{storage}/{name}, the raw bytes, `Print-After-Upload: ?1|?0`,
 *   `Overwrite: ?1` (a re-run job replaces its own file)
 * - start: POST /api/v1/files/{storage}/{name}
 * - pause / resume / cancel: PUT /api/v1/job/{id}/pause | resume, DELETE /api/v1/job/{id},
 *   with the id read from GET /api/v1/status
 * - status: GET /api/v1/status, and GET /api/v1/job for the file name when a job is on (204 once
 *   the job is over: both servers forget a finished or stopped job, section 6 of the notes)
 */
const VENDOR = 'PrusaLink';

/**
 * Neither server sends `version` or `printer` (Buddy basic_gets.cpp L191–214: text "PrusaLink",
 * no firmware; Prusa-Link main.py L278–315: text "PrusaLink 0.8.1", `original`, `firmware`).
 */
const versionSchema = z.object({
  text: z.string(),
  original: z.string().optional(),
  firmware: z.string().optional(),
});

/** Buddy: one storage object (status_renderer.cpp L19–82); Prusa-Link: a list (main.py L190–275). */
const storageSchema = z.object({ path: z.string(), read_only: z.boolean().optional() });

const statusSchema = z.object({
  job: z
    .object({
      id: z.number().int().optional(),
      progress: z.number().optional(),
      time_remaining: z.number().optional(),
    })
    .optional(),
  storage: z.union([storageSchema, z.array(storageSchema)]).optional(),
  printer: z.object({
    /** A string, not an enum: a state we have never seen is reported as `unknown`, not refused. */
    state: z.string(),
    temp_nozzle: z.number().optional(),
    target_nozzle: z.number().optional(),
    temp_bed: z.number().optional(),
    target_bed: z.number().optional(),
    status_printer: z.object({ ok: z.boolean().optional(), message: z.string().optional() }).optional(),
  }),
});
export type PrusalinkStatusAnswer = z.infer<typeof statusSchema>;

const jobSchema = z.object({
  id: z.number().int(),
  file: z.object({ name: z.string().optional(), display_name: z.string().optional() }).optional(),
});

/**
 * PrusaLink's printer.state → ours (the table in docs/printers.md). Both servers' strings
 * (Buddy printer_state.cpp L442–465; Prusa-Link's SDK State, OpenAPI L1269). Buddy never sends
 * READY or ERROR over PrusaLink; its firmware errors halt the server instead (it goes offline).
 */
const STATES: Readonly<Record<string, PrinterStatus['state']>> = {
  IDLE: 'idle',
  READY: 'idle',
  BUSY: 'busy',
  PRINTING: 'printing',
  PAUSED: 'paused',
  ATTENTION: 'attention',
  FINISHED: 'finished',
  STOPPED: 'cancelled',
  ERROR: 'error',
};

const errorTextOf = (
  printer: PrusalinkStatusAnswer['printer'],
  state: PrinterStatus['state'],
): string | null => {
  const words = printer.status_printer?.ok === false ? (printer.status_printer.message ?? null) : null;
  if (state === 'error') return words ?? 'The printer reports an error (see its screen)';
  if (state === 'attention')
    return words ? `The printer needs attention: ${words}` : 'The printer needs attention on its screen';
  if (state === 'unknown') return `The printer reports “${printer.state}”, a state Layerline does not know`;
  return null;
};

/** Maps a status answer (and the job's file name, null when /api/v1/job had none) onto ours. */
export const prusalinkStatus = (answer: PrusalinkStatusAnswer, fileName: string | null): PrinterStatus => {
  const printer = answer.printer;
  const state = Object.hasOwn(STATES, printer.state) ? STATES[printer.state]! : 'unknown';
  const percent = answer.job?.progress;
  const active = state === 'printing' || state === 'paused' || state === 'attention';
  return {
    ...blankStatus(state),
    progress:
      state === 'finished' ? 1 : typeof percent === 'number' ? Math.min(1, Math.max(0, percent / 100)) : null,
    fileName,
    secondsLeft: active ? (answer.job?.time_remaining ?? null) : null,
    temperatures: {
      nozzle: { actual: printer.temp_nozzle ?? null, target: printer.target_nozzle ?? null },
      bed: { actual: printer.temp_bed ?? null, target: printer.target_bed ?? null },
    },
    errorText: errorTextOf(printer, state),
    vendorState: printer.state,
  };
};

/** The storages a status answer lists, by name ("usb", "local"), with whether they take files. */
const storagesOf = (answer: PrusalinkStatusAnswer): { name: string; writable: boolean }[] =>
  (Array.isArray(answer.storage) ? answer.storage : answer.storage ? [answer.storage] : []).map((entry) => ({
    name: entry.path.replace(/^\/+|\/+$/g, ''),
    writable: entry.read_only !== true,
  }));

/**
 * Buddy firmware up to 5.1 lets a nonce live 5 s, 8 s for a request with a body, from the moment
 * it issued it (notes section 1; v5.1.0 types.h L151–157): a file is never sent on a nonce older
 * than this, so it cannot expire while the body is on its way. /api/version does not say the
 * firmware version, so every printer is treated as one that might be that old.
 */
const UPLOAD_NONCE_MAX_AGE_MS = 4_000;

/** Prusa-Link answers 503 from every endpoint while its daemon starts (auth.py L58–61). */
const STARTING = 503;

/** A short quote of a printer's plain-text answer, for people. */
const wordsOf = (body: unknown): string =>
  typeof body === 'string' && body.trim() && !/<html|<!doctype/i.test(body)
    ? `: ${body.trim().slice(0, 80)}`
    : '';

export const createPrusalinkDriver = (
  connection: PrusalinkConnection,
  options: PrinterTransportOptions,
): PrinterDriver => {
  const http = createPrinterHttp({ vendor: VENDOR, baseUrl: connection.baseUrl, ...options });
  const prefix = new URL(connection.baseUrl).pathname.replace(/\/+$/, '');
  const now = options.now ?? Date.now;
  const auth = connection.auth;
  let challenge: DigestChallenge | null = null;
  let challengeAt = 0;
  let nonceCount = 0;

  const adopt = (offered: DigestChallenge): void => {
    challenge = offered;
    challengeAt = now();
    nonceCount = 0;
  };

  /** Credentials for one request, the digest computed now, immediately before it is sent. */
  const authorise = (call: PrinterCall): PrinterCall => {
    if (auth.kind === 'api-key') return { ...call, headers: { ...call.headers, 'x-api-key': auth.apiKey } };
    if (!challenge) return call;
    nonceCount += 1;
    const target = new URL(`${prefix}${call.path}`, 'http://printer');
    for (const [key, value] of Object.entries(call.query ?? {})) target.searchParams.set(key, value);
    const authorization = digestAuthorization(challenge, auth, {
      method: call.method,
      uri: `${target.pathname}${target.search}`,
      nonceCount,
    });
    return { ...call, headers: { ...call.headers, authorization } };
  };

  const refused = (response: HttpResponse): PrinterResult<never> =>
    failed(
      'auth_refused',
      `${VENDOR} refused our credentials (${response.status}): check the ${auth.kind === 'digest' ? 'user name and password' : 'API key'}`,
      response.status,
    );

  const starting = (): PrinterResult<never> =>
    failed('unreachable', `${VENDOR} is starting (${STARTING}): try again in a minute`, STARTING);

  /** Asks for a new nonce (a request without credentials is answered with a challenge). */
  const freshChallenge = async (): Promise<PrinterResult<void>> => {
    const bare = await http.call({
      method: 'GET',
      path: '/api/version',
      operation: 'version',
      kind: 'read',
      acceptStatuses: [401, 403, STARTING],
    });
    if (!bare.ok) return bare;
    if (bare.value.status === STARTING) return starting();
    if (bare.value.status === 401 || bare.value.status === 403) {
      const offered = parseDigestChallenge(bare.value.headers.get('www-authenticate'));
      if (!offered) return refused(bare.value);
      adopt(offered);
    }
    return succeeded(undefined);
  };

  /**
   * One call with the connection's credentials. Digest: a 401 with a new challenge is answered
   * once (first contact, an expired nonce answered `stale=true`, a rebooted printer); a second 401
   * is a refusal. An upload first gets a fresh nonce unless ours is young (see
   * UPLOAD_NONCE_MAX_AGE_MS), so the file is sent once. 503 (Prusa-Link starting) is a failure
   * with that status.
   */
  const send = async (call: PrinterCall): Promise<PrinterResult<HttpResponse>> => {
    const accept = [...(call.acceptStatuses ?? []), 401, 403, STARTING];
    if (
      auth.kind === 'digest' &&
      call.kind === 'upload' &&
      (!challenge || now() - challengeAt >= UPLOAD_NONCE_MAX_AGE_MS)
    ) {
      const fresh = await freshChallenge();
      if (!fresh.ok) return fresh;
    }
    const answered = (response: HttpResponse): PrinterResult<HttpResponse> => {
      if (response.status === STARTING) return starting();
      if (response.status === 401 || response.status === 403) return refused(response);
      return succeeded(response);
    };
    const first = await http.call({ ...authorise(call), acceptStatuses: accept });
    if (!first.ok) return first;
    if (first.value.status !== 401 || auth.kind !== 'digest') return answered(first.value);
    const offered = parseDigestChallenge(first.value.headers.get('www-authenticate'));
    if (!offered || (challenge !== null && !offered.stale && offered.nonce === challenge.nonce))
      return refused(first.value);
    adopt(offered);
    const second = await http.call({ ...authorise(call), acceptStatuses: accept });
    return second.ok ? answered(second.value) : second;
  };

  const filePath = (fileName: string): string =>
    `/api/v1/files/${encodeURIComponent(connection.storage)}/${encodeURIComponent(fileName)}`;

  const readStatus = async (): Promise<PrinterResult<PrusalinkStatusAnswer>> => {
    const result = await send({ method: 'GET', path: '/api/v1/status', operation: 'status', kind: 'read' });
    if (!result.ok) return result;
    return parseAnswer(statusSchema, result.value.body, VENDOR, 'status');
  };

  /**
   * When the configured storage is not one this printer writes to (Buddy has only `usb`,
   * Prusa-Link `local` and a read-only `sdcard`), says so and what to set instead; else null.
   */
  const storageProblem = async (): Promise<string | null> => {
    const status = await readStatus();
    if (!status.ok) return null;
    const storages = storagesOf(status.value);
    const configured = storages.find((entry) => entry.name === connection.storage);
    if (storages.length === 0 || configured?.writable) return null;
    const writable = storages.filter((entry) => entry.writable).map((entry) => entry.name);
    const advice = writable.length
      ? `: set the printer’s storage to “${writable[0]}” on the printers page`
      : '';
    return configured
      ? `${VENDOR}: the storage “${connection.storage}” on this printer is read-only${advice}`
      : `${VENDOR}: this printer keeps print files in “${storages.map((entry) => entry.name).join('”, “')}”, not “${connection.storage}”${advice}`;
  };

  const jobCommand = async (
    method: 'PUT' | 'DELETE',
    action: '/pause' | '/resume' | '',
    operation: string,
  ): Promise<PrinterResult<void>> => {
    const status = await readStatus();
    if (!status.ok) return status;
    const id = status.value.job?.id;
    if (id === undefined) return failed('rejected', `${VENDOR} ${operation}: no print job is active`);
    const result = await send({
      method,
      path: `/api/v1/job/${id}${action}`,
      operation,
      kind: 'command',
      acceptStatuses: [404, 409],
    });
    if (!result.ok) return result;
    if (result.value.status === 404)
      return failed('rejected', `${VENDOR} ${operation}: the printer’s job changed meanwhile (404)`, 404);
    if (result.value.status === 409)
      return failed('rejected', `${VENDOR} ${operation}: the job cannot do that in its current state`, 409);
    return succeeded(undefined);
  };

  return {
    kind: 'prusalink',

    async probe() {
      const started = now();
      const result = await send({ method: 'GET', path: '/api/version', operation: 'version', kind: 'read' });
      if (!result.ok) return result;
      const version = parseAnswer(versionSchema, result.value.body, VENDOR, 'version');
      if (!version.ok) return version;
      const latencyMs = now() - started;
      const problem = await storageProblem();
      if (problem) return failed('rejected', problem);
      const { text, original, firmware } = version.value;
      // Buddy's text is exactly "PrusaLink" and carries no firmware; Prusa-Link's names its version.
      const buddy = text === 'PrusaLink' && firmware === undefined;
      const model =
        original && original !== 'Unknown printer type' ? original.replace(/^PrusaLink\s+/, '') : null;
      return succeeded({
        kind: 'prusalink' as const,
        software: buddy ? 'PrusaLink (Buddy firmware)' : model ? `${text}, ${model}` : text,
        firmware: firmware ?? null,
        latencyMs,
      });
    },

    async upload(file, { startPrint }) {
      const problem = printFileNameProblem(file.fileName);
      if (problem) return failed('rejected', problem);
      const result = await send({
        method: 'PUT',
        path: filePath(file.fileName),
        headers: {
          'content-type': 'application/octet-stream',
          'print-after-upload': startPrint ? '?1' : '?0',
          overwrite: '?1',
        },
        body: file.bytes,
        operation: 'upload',
        kind: 'upload',
        acceptStatuses: [404, 409],
      });
      if (!result.ok) return result;
      const { status, body } = result.value;
      if (status === 404 || status === 409) {
        const storage = await storageProblem();
        if (storage) return failed('rejected', storage, status);
        if (status === 404)
          return failed(
            'rejected',
            `${VENDOR} upload: the printer has no storage “${connection.storage}” (404)`,
            404,
          );
        // "Can't print right now" (the file is kept), "File is busy", "Another transfer in progress".
        return failed('busy', `${VENDOR} did not take the print now (409${wordsOf(body)}): it is busy`, 409);
      }
      return succeeded({ fileName: file.fileName, printStarted: startPrint });
    },

    async start(fileName) {
      const problem = printFileNameProblem(fileName);
      if (problem) return failed('rejected', problem);
      const result = await send({
        method: 'POST',
        path: filePath(fileName),
        operation: 'start',
        kind: 'command',
        acceptStatuses: [404, 409],
      });
      if (!result.ok) return result;
      if (result.value.status === 409)
        return failed('busy', `${VENDOR} cannot print right now (409${wordsOf(result.value.body)})`, 409);
      if (result.value.status === 404)
        return failed(
          'rejected',
          (await storageProblem()) ??
            `${VENDOR} start: ${fileName} is not on the printer’s “${connection.storage}”`,
          404,
        );
      return succeeded(undefined);
    },

    pause: () => jobCommand('PUT', '/pause', 'pause'),
    resume: () => jobCommand('PUT', '/resume', 'resume'),
    cancel: () => jobCommand('DELETE', '', 'cancel'),
    // PrusaLink keeps no record of past prints (notes section 7).
    lastOutcome: async () => succeeded(outcomeUnknown),

    async status() {
      const status = await readStatus();
      if (!status.ok) {
        if (status.failure.status !== STARTING) return status;
        return succeeded({ ...blankStatus('offline'), errorText: `${VENDOR} is starting` });
      }
      let fileName: string | null = null;
      if (status.value.job?.id !== undefined) {
        // 204 once the job is over (finished, stopped, error): the file is no longer named.
        const job = await send({ method: 'GET', path: '/api/v1/job', operation: 'job', kind: 'read' });
        if (!job.ok) return job;
        if (job.value.status === 200) {
          const parsed = parseAnswer(jobSchema, job.value.body, VENDOR, 'job');
          if (!parsed.ok) return parsed;
          fileName = parsed.value.file?.display_name ?? parsed.value.file?.name ?? null;
        }
      }
      return succeeded(prusalinkStatus(status.value, fileName));
    },
  };
};
