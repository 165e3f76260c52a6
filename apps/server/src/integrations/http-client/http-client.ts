import { MarketplaceRejectedError, MarketplaceUnavailableError } from '../../modules/shops/connector.ts';
import type { RateLimiter } from './rate-limiter.ts';

/**
 * The one way marketplace modules call out (SSRF-1, RETRY-1):
 * - only origins on the allowlist are called, checked before anything leaves the process;
 * - redirects are never followed (a 3xx is a refusal);
 * - every attempt has a timeout;
 * - network errors, 408, 429 and 5xx are retried with capped exponential backoff and full jitter,
 *   honouring Retry-After; any other 4xx is never retried;
 * - after the last attempt: MarketplaceUnavailableError (429/5xx/408/network, with the vendor's
 *   Retry-After when it gave one; an OutboundUnavailableError saying why) or
 *   MarketplaceRejectedError (other 4xx/3xx, with the status).
 * Printers use it too, through printer-http.ts (their own host policy: docs/printers.md).
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpRequest {
  readonly method: HttpMethod;
  readonly url: string | URL;
  readonly headers?: Readonly<Record<string, string>>;
  /** A JSON body (serialised here) or a form body. */
  readonly json?: unknown;
  readonly form?: URLSearchParams;
  /** A raw body (a file for PUT) or multipart form data (the runtime sets its boundary). */
  readonly body?: Uint8Array | FormData;
  /** Per-request overrides of the client's timeout and attempts (e.g. one attempt for a command). */
  readonly timeoutMs?: number;
  readonly maxAttempts?: number;
  /**
   * Statuses answered to the caller as a response instead of being thrown (e.g. 401 for a digest
   * challenge, 409 for a busy printer), so the caller can read their headers and body.
   */
  readonly acceptStatuses?: readonly number[];
  /** Requests sharing a key are spaced by the client's rate limiter (e.g. one key per shop). */
  readonly rateLimitKey?: string;
  /** A short name for messages and logs ("getShopReceipts"); never the URL (it may carry ids). */
  readonly operation: string;
}

export interface HttpResponse {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON, or null for an empty body. */
  readonly body: unknown;
}

export interface HttpClientOptions {
  /** Who we are calling, for messages ("Etsy"). */
  readonly vendor: string;
  /**
   * Allowed origins: 'https://openapi.etsy.com', or a wildcard subdomain 'https://*.myshopify.com'.
   * Scheme and port are part of the match, so http:// is refused unless an http origin is listed.
   */
  readonly allowedOrigins: readonly string[];
  readonly fetch?: typeof fetch;
  /** Per attempt. Default 20 s. */
  readonly timeoutMs?: number;
  /** Total attempts including the first. Default 4. */
  readonly maxAttempts?: number;
  /** Backoff base and cap (full jitter: random(0, min(cap, base * 2^n))). Defaults 500 ms / 20 s. */
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  /**
   * A Retry-After longer than this is not waited for in-process: the client throws at once with the
   * delay, so the job queue reschedules instead of holding a worker. Default 60 s.
   */
  readonly maxRetryAfterSeconds?: number;
  readonly rateLimiter?: RateLimiter;
  /** Injectable for tests. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
  readonly now?: () => number;
}

export class OutboundHostNotAllowedError extends Error {
  readonly url: string;
  constructor(vendor: string, url: URL) {
    super(`Refused to call ${url.origin}: not an allowed ${vendor} host`);
    this.name = 'OutboundHostNotAllowedError';
    this.url = url.origin;
  }
}

/**
 * Why the last attempt failed: a timeout, a network error (refused, reset, DNS, or a refused
 * address), or a retryable status. Still a MarketplaceUnavailableError for existing callers.
 */
export class OutboundUnavailableError extends MarketplaceUnavailableError {
  readonly reason: 'timeout' | 'network' | 'status';
  readonly status: number | null;
  constructor(message: string, retryAfterSeconds: number | null, reason: 'timeout' | 'network' | 'status', status: number | null) {
    super(message, retryAfterSeconds);
    this.name = 'OutboundUnavailableError';
    this.reason = reason;
    this.status = status;
  }
}

export interface HttpClient {
  request(request: HttpRequest): Promise<HttpResponse>;
  /** True when the URL may be called (for callers that build URLs from data, e.g. a shop domain). */
  isAllowed(url: string | URL): boolean;
}

const RETRYABLE_STATUS = (status: number): boolean => status === 408 || status === 429 || status >= 500;

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface OriginRule {
  readonly protocol: string;
  readonly hostname: string;
  readonly wildcard: boolean;
  readonly port: string;
}

const parseOriginRule = (origin: string): OriginRule => {
  const wildcard = origin.includes('://*.');
  const url = new URL(wildcard ? origin.replace('://*.', '://') : origin);
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    throw new Error(`An allowed origin must be scheme://host[:port] only: ${origin}`);
  }
  return { protocol: url.protocol, hostname: url.hostname.toLowerCase(), wildcard, port: url.port };
};

const matches = (rule: OriginRule, url: URL): boolean => {
  if (url.protocol !== rule.protocol || url.port !== rule.port || url.username || url.password) return false;
  const host = url.hostname.toLowerCase();
  if (!rule.wildcard) return host === rule.hostname;
  // '*.myshopify.com' matches exactly one label in front of the suffix: 'shop.myshopify.com' only.
  if (!host.endsWith(`.${rule.hostname}`)) return false;
  const label = host.slice(0, -(rule.hostname.length + 1));
  return /^[a-z0-9][a-z0-9-]*$/.test(label);
};

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), or null. */
export const parseRetryAfter = (value: string | null, nowMs: number): number | null => {
  if (value === null || value.trim() === '') return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.ceil(Number(trimmed));
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.ceil((date - nowMs) / 1000));
};

/** Full jitter (AWS "Exponential Backoff and Jitter"): uniform in [0, min(cap, base·2^attempt)]. */
export const backoffDelayMs = (
  attempt: number,
  baseMs: number,
  capMs: number,
  random: () => number,
): number => Math.floor(random() * Math.min(capMs, baseMs * 2 ** attempt));

const readBody = async (response: Response): Promise<unknown> => {
  const text = await response.text();
  if (text === '') return null;
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('json') || /^[[{]/.test(text.trimStart())) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
};

/** A short, log-safe description of the vendor's error body (Etsy {error}, Shopify {errors}). */
const describeErrorBody = (body: unknown): string => {
  if (body === null || body === undefined) return '';
  let text: string;
  if (typeof body === 'string') text = body;
  else if (typeof body === 'object') {
    const record = body as Record<string, unknown>;
    const detail = record.error_description ?? record.error ?? record.errors ?? record.message;
    text = typeof detail === 'string' ? detail : JSON.stringify(detail ?? body);
  } else text = String(body);
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
};

export const createHttpClient = (options: HttpClientOptions): HttpClient => {
  const rules = options.allowedOrigins.map(parseOriginRule);
  const doFetch = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? 20_000;
  const maxAttempts = Math.max(1, options.maxAttempts ?? 4);
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 20_000;
  const maxRetryAfterSeconds = options.maxRetryAfterSeconds ?? 60;
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const vendor = options.vendor;

  const isAllowed = (input: string | URL): boolean => {
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      return false;
    }
    return rules.some((rule) => matches(rule, url));
  };

  const request = async (req: HttpRequest): Promise<HttpResponse> => {
    const url = new URL(req.url);
    if (!isAllowed(url)) throw new OutboundHostNotAllowedError(vendor, url);

    const headers = new Headers(req.headers);
    if (!headers.has('accept')) headers.set('accept', 'application/json');
    let body: string | Uint8Array | FormData | undefined;
    if (req.body !== undefined) {
      body = req.body;
    } else if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      headers.set('content-type', 'application/json');
    } else if (req.form) {
      body = req.form.toString();
      headers.set('content-type', 'application/x-www-form-urlencoded; charset=utf-8');
    }

    const attempts = Math.max(1, req.maxAttempts ?? maxAttempts);
    const timeout = req.timeoutMs ?? timeoutMs;
    let lastRetryAfter: number | null = null;
    let lastProblem = '';
    let lastReason: 'timeout' | 'network' | 'status' = 'network';
    let lastStatus: number | null = null;
    for (let attempt = 0; attempt < attempts; attempt += 1) {
      if (req.rateLimitKey !== undefined && options.rateLimiter)
        await options.rateLimiter.acquire(req.rateLimitKey);

      let response: Response;
      try {
        response = await doFetch(url, {
          method: req.method,
          headers,
          // A Uint8Array over any buffer is a valid body at run time; DOM's lib types want ArrayBuffer.
          body: body as RequestInit['body'],
          redirect: 'manual',
          signal: AbortSignal.timeout(timeout),
        });
      } catch (error) {
        const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
        lastProblem = timedOut ? `timed out after ${timeout} ms` : 'could not be reached';
        lastReason = timedOut ? 'timeout' : 'network';
        lastStatus = null;
        lastRetryAfter = null;
        if (attempt + 1 < attempts) await sleep(backoffDelayMs(attempt, baseDelayMs, maxDelayMs, random));
        continue;
      }

      if ((response.status >= 200 && response.status < 300) || req.acceptStatuses?.includes(response.status)) {
        return { status: response.status, headers: response.headers, body: await readBody(response) };
      }

      const errorBody = await readBody(response).catch(() => null);
      const detail = describeErrorBody(errorBody);
      if (!RETRYABLE_STATUS(response.status)) {
        const what =
          response.status >= 300 && response.status < 400
            ? 'redirected (not followed)'
            : `refused (${response.status})`;
        throw new MarketplaceRejectedError(
          `${vendor} ${req.operation} ${what}${detail ? `: ${detail}` : ''}`,
          response.status,
        );
      }

      lastRetryAfter = parseRetryAfter(response.headers.get('retry-after'), now());
      lastProblem = `answered ${response.status}${detail ? `: ${detail}` : ''}`;
      lastReason = 'status';
      lastStatus = response.status;
      if (lastRetryAfter !== null && lastRetryAfter > maxRetryAfterSeconds) break;
      if (attempt + 1 < attempts) {
        const delay =
          lastRetryAfter !== null
            ? lastRetryAfter * 1000 + backoffDelayMs(0, Math.min(baseDelayMs, 250), maxDelayMs, random)
            : backoffDelayMs(attempt, baseDelayMs, maxDelayMs, random);
        await sleep(delay);
      }
    }
    throw new OutboundUnavailableError(
      `${vendor} ${req.operation} ${lastProblem}; try again later`,
      lastRetryAfter,
      lastReason,
      lastStatus,
    );
  };

  return { request, isAllowed };
};
