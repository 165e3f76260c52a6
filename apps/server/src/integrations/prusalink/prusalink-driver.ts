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
 * with X-Api-Key or HTTP Digest. Calls:
 * - probe: GET /api/version
 * - upload: PUT /api/v1/files/{storage}/{name}, the raw bytes, `Print-After-Upload: ?1|?0`,
 *   `Overwrite: ?1` (a re-run job replaces its own file)
 * - start: POST /api/v1/files/{storage}/{name}
 * - pause / resume / cancel: PUT /api/v1/job/{id}/pause | resume, DELETE /api/v1/job/{id},
 *   with the id read from GET /api/v1/status
 * - status: GET /api/v1/status, and GET /api/v1/job for the file name when a job is on
 */
const VENDOR = 'PrusaLink';

const versionSchema = z.object({
  api: z.string(),
  version: z.string(),
  printer: z.string(),
  text: z.string(),
  firmware: z.string().optional(),
});

const statusSchema = z.object({
  job: z
    .object({
      id: z.number().int().optional(),
      progress: z.number().optional(),
      time_remaining: z.number().optional(),
    })
    .optional(),
  printer: z.object({
    state: z.enum([
      'IDLE',
      'BUSY',
      'PRINTING',
      'PAUSED',
      'FINISHED',
      'STOPPED',
      'ERROR',
      'ATTENTION',
      'READY',
    ]),
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

/** PrusaLink's printer.state → ours (table in docs/printers.md). */
export const prusalinkStatus = (answer: PrusalinkStatusAnswer, fileName: string | null): PrinterStatus => {
  const printer = answer.printer;
  const byState: Record<PrusalinkStatusAnswer['printer']['state'], PrinterStatus['state']> = {
    IDLE: 'idle',
    READY: 'idle',
    BUSY: 'busy',
    PRINTING: 'printing',
    PAUSED: 'paused',
    ATTENTION: 'paused',
    FINISHED: 'finished',
    STOPPED: 'idle',
    ERROR: 'error',
  };
  const state = byState[printer.state];
  const percent = answer.job?.progress;
  const active = state === 'printing' || state === 'paused';
  const message = printer.status_printer?.ok === false ? (printer.status_printer.message ?? null) : null;
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
    errorText:
      printer.state === 'ERROR'
        ? (message ?? 'The printer reports an error')
        : printer.state === 'ATTENTION'
          ? `The printer needs attention${message ? `: ${message}` : ' (see its screen)'}`
          : null,
  };
};

export const createPrusalinkDriver = (
  connection: PrusalinkConnection,
  options: PrinterTransportOptions,
): PrinterDriver => {
  const http = createPrinterHttp({ vendor: VENDOR, baseUrl: connection.baseUrl, ...options });
  const prefix = new URL(connection.baseUrl).pathname.replace(/\/+$/, '');
  const now = options.now ?? Date.now;
  const auth = connection.auth;
  let challenge: DigestChallenge | null = null;
  let nonceCount = 0;

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

  /**
   * One call with the connection's credentials. Digest: a 401 carrying a fresh challenge is
   * answered once (first contact, or the printer's nonce expired); a second 401 is a refusal. An
   * upload with no challenge yet first fetches one with a cheap GET, so the file is sent once.
   */
  const send = async (call: PrinterCall): Promise<PrinterResult<HttpResponse>> => {
    const accept = [...(call.acceptStatuses ?? []), 401, 403];
    if (auth.kind === 'digest' && !challenge && call.kind === 'upload') {
      const primed = await send({ method: 'GET', path: '/api/version', operation: 'version', kind: 'read' });
      if (!primed.ok) return primed;
      if (primed.value.status === 401 || primed.value.status === 403) return refused(primed.value);
    }
    const first = await http.call({ ...authorise(call), acceptStatuses: accept });
    if (!first.ok) return first;
    if (first.value.status === 403) return refused(first.value);
    if (first.value.status !== 401) return first;
    if (auth.kind !== 'digest') return refused(first.value);
    const offered = parseDigestChallenge(first.value.headers.get('www-authenticate'));
    const hadChallenge = challenge !== null;
    if (!offered || (hadChallenge && !offered.stale && offered.nonce === challenge?.nonce))
      return refused(first.value);
    challenge = offered;
    nonceCount = 0;
    const second = await http.call({ ...authorise(call), acceptStatuses: accept });
    if (!second.ok) return second;
    if (second.value.status === 401 || second.value.status === 403) return refused(second.value);
    return second;
  };

  const filePath = (fileName: string): string =>
    `/api/v1/files/${encodeURIComponent(connection.storage)}/${encodeURIComponent(fileName)}`;

  const readStatus = async (): Promise<PrinterResult<PrusalinkStatusAnswer>> => {
    const result = await send({ method: 'GET', path: '/api/v1/status', operation: 'status', kind: 'read' });
    if (!result.ok) return result;
    return parseAnswer(statusSchema, result.value.body, VENDOR, 'status');
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
      acceptStatuses: [409],
    });
    if (!result.ok) return result;
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
      return succeeded({
        kind: 'prusalink' as const,
        software: version.value.text,
        firmware: version.value.firmware ?? null,
        latencyMs: now() - started,
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
      });
      if (!result.ok) return result;
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
      });
      return result.ok ? succeeded(undefined) : result;
    },

    pause: () => jobCommand('PUT', '/pause', 'pause'),
    resume: () => jobCommand('PUT', '/resume', 'resume'),
    cancel: () => jobCommand('DELETE', '', 'cancel'),
    lastOutcome: async () => succeeded(outcomeUnknown),

    async status() {
      const status = await readStatus();
      if (!status.ok) return status;
      let fileName: string | null = null;
      if (status.value.job?.id !== undefined) {
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
