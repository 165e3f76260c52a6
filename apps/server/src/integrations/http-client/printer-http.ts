import type { z } from 'zod';
import { failed, succeeded, type PrinterResult } from '../../modules/production/printer-driver.ts';
import { MarketplaceRejectedError } from '../../modules/shops/connector.ts';
import {
  createHttpClient,
  OutboundHostNotAllowedError,
  OutboundUnavailableError,
  type HttpMethod,
  type HttpResponse,
} from './http-client.ts';
import { checkPrinterHost, type HostLookup, type PrinterHostPolicy } from './printer-host-policy.ts';

/**
 * The printer adapters' use of the one outbound HTTP client: the only origin allowed is the
 * printer's own base URL, checked against the printer host policy (resolved addresses included)
 * before every call; a timeout on every call; reads retried once, commands and uploads never
 * (they may have reached the printer); every failure turned into a typed PrinterResult.
 */
export interface PrinterHttpOptions {
  readonly vendor: string;
  readonly baseUrl: string;
  readonly policy: PrinterHostPolicy;
  /** Per call, for reads and commands. Default 10 s. */
  readonly timeoutMs?: number;
  /** For uploads (a large G-code over Wi-Fi). Default 5 min. */
  readonly uploadTimeoutMs?: number;
  readonly fetch?: typeof fetch;
  readonly lookup?: HostLookup;
  /** Injectable for tests (the read retry's backoff). */
  readonly sleep?: (ms: number) => Promise<void>;
}

export type PrinterCallKind = 'read' | 'command' | 'upload';

export interface PrinterCall {
  readonly method: HttpMethod;
  /** Below the base URL, starting with '/'. */
  readonly path: string;
  readonly query?: Readonly<Record<string, string>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly json?: unknown;
  readonly body?: Uint8Array | FormData;
  readonly operation: string;
  readonly kind: PrinterCallKind;
  /** Statuses returned as a response rather than mapped to a failure. */
  readonly acceptStatuses?: readonly number[];
}

export interface PrinterHttp {
  call(call: PrinterCall): Promise<PrinterResult<HttpResponse>>;
}

export const createPrinterHttp = (options: PrinterHttpOptions): PrinterHttp => {
  const base = new URL(options.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 10_000;
  const uploadTimeoutMs = options.uploadTimeoutMs ?? 300_000;
  const client = createHttpClient({
    vendor: options.vendor,
    allowedOrigins: [base.origin],
    timeoutMs,
    maxAttempts: 2,
    baseDelayMs: 250,
    maxDelayMs: 1_000,
    maxRetryAfterSeconds: 5,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
  });

  const call = async (request: PrinterCall): Promise<PrinterResult<HttpResponse>> => {
    const url = new URL(`${prefix}${request.path}`, base.origin);
    for (const [key, value] of Object.entries(request.query ?? {})) url.searchParams.set(key, value);
    const refused = await checkPrinterHost(url, options.policy, options.lookup);
    if (refused) return failed('not_allowed', `${options.vendor}: ${refused}`);
    try {
      const response = await client.request({
        method: request.method,
        url,
        operation: request.operation,
        ...(request.headers ? { headers: request.headers } : {}),
        ...(request.json !== undefined ? { json: request.json } : {}),
        ...(request.body !== undefined ? { body: request.body } : {}),
        ...(request.acceptStatuses ? { acceptStatuses: request.acceptStatuses } : {}),
        maxAttempts: request.kind === 'read' ? 2 : 1,
        timeoutMs: request.kind === 'upload' ? uploadTimeoutMs : timeoutMs,
      });
      return succeeded(response);
    } catch (error) {
      return failureOf(error, options.vendor);
    }
  };

  return { call };
};

const failureOf = (error: unknown, vendor: string): PrinterResult<never> => {
  if (error instanceof OutboundHostNotAllowedError) return failed('not_allowed', error.message);
  if (error instanceof OutboundUnavailableError) {
    if (error.reason === 'timeout') return failed('timeout', error.message);
    return failed('unreachable', error.message, error.status ?? undefined);
  }
  if (error instanceof MarketplaceRejectedError) {
    if (error.status === 401 || error.status === 403) {
      return failed(
        'auth_refused',
        `${vendor} refused our credentials (${error.status}): check the API key or password`,
        error.status,
      );
    }
    if (error.status === 409) return failed('busy', error.message, 409);
    return failed('rejected', error.message, error.status);
  }
  throw error;
};

/**
 * Validates a printer's answer: anything that is not the documented shape (an HTML login page, a
 * proxy's error page, the wrong JSON) is a `bad_answer`, with a short description of what came.
 */
export const parseAnswer = <T>(
  schema: z.ZodType<T>,
  body: unknown,
  vendor: string,
  operation: string,
): PrinterResult<T> => {
  const parsed = schema.safeParse(body);
  if (parsed.success) return succeeded(parsed.data);
  const what =
    typeof body === 'string'
      ? /<html|<!doctype/i.test(body)
        ? 'an HTML page'
        : `text (${JSON.stringify(body.slice(0, 60))})`
      : body === null
        ? 'an empty body'
        : `JSON of the wrong shape (${parsed.error.issues[0]?.path.join('.') || 'top level'}: ${parsed.error.issues[0]?.message ?? ''})`;
  return failed('bad_answer', `${vendor} ${operation} answered ${what}, not what its API documents`);
};
