import type { z } from 'zod';
import {
  ShippingAddressError,
  ShippingAuthError,
  ShippingRejectedError,
  ShippingUnavailableError,
} from '../../modules/shipping/shipping-provider.ts';
import { MarketplaceRejectedError, MarketplaceUnavailableError } from '../../modules/shops/connector.ts';
import {
  createHttpClient,
  OutboundHostNotAllowedError,
  parseRetryAfter,
  type HttpClientOptions,
  type HttpMethod,
  type HttpResponse,
} from '../http-client/http-client.ts';

/**
 * How both ShipStation clients (classic v1 and v2) call ShipStation: through the shared http client
 * (only the API's own origin, a timeout per attempt, backoff on network errors and 5xx), with
 * ShipStation's answers turned into the shipping port's errors:
 * - 401/403: ShippingAuthError; 429: ShippingUnavailableError with ShipStation's delay (v2 sends
 *   Retry-After, v1 sends X-Rate-Limit-Reset, both in seconds), thrown at once: the job queue waits,
 *   not a worker;
 * - another 4xx about an address: ShippingAddressError in ShipStation's words; any other 4xx:
 *   ShippingRejectedError with ShipStation's status;
 * - a timeout, a network error or a 5xx after the retries: ShippingUnavailableError.
 * Purchases are sent once (a retry could buy a second label): the caller looks the label up instead.
 */

export type ShipStationHttpTuning = Pick<
  HttpClientOptions,
  'timeoutMs' | 'maxAttempts' | 'baseDelayMs' | 'maxDelayMs' | 'maxRetryAfterSeconds' | 'sleep' | 'random'
>;

/** What a ShipStation error body says, and whether it is about an address. */
export interface ShipStationErrorDetail {
  readonly message: string;
  readonly addressProblem: boolean;
}

export interface ShipStationRequest<T> {
  /** A short name for messages ("createlabel"); never the URL. */
  readonly operation: string;
  readonly method: HttpMethod;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly json?: unknown;
  readonly schema: z.ZodType<T>;
  /**
   * A label purchase: sent once, and an answer we cannot read counts as "maybe bought"
   * (ShippingUnavailableError, so the caller looks the label up before buying again).
   */
  readonly purchase?: boolean;
}

export interface ShipStationApi {
  /** A URL on the API origin, with the query's defined values. */
  url(path: string, query?: Readonly<Record<string, string | number | boolean | undefined>>): URL;
  /** Whether a URL given to us (a webhook's resource, a label link) is on the API origin. */
  isApiUrl(url: URL): boolean;
  call<T>(request: ShipStationRequest<T>): Promise<T>;
  /** A label file's bytes (a PDF) from a link on the API origin. */
  downloadPdf(url: URL, headers: Readonly<Record<string, string>>): Promise<Buffer>;
}

export interface ShipStationApiConfig {
  /** "ShipStation" or "ShipStation v2", for messages. */
  readonly vendor: string;
  readonly baseUrl: string;
  readonly describeError: (body: unknown) => ShipStationErrorDetail;
  readonly fetch?: typeof fetch;
  readonly http?: ShipStationHttpTuning;
}

/** Every 4xx is answered to us to be read here, except 408 (a timeout: the client retries it). */
const CLIENT_ERRORS = Array.from({ length: 100 }, (_, i) => 400 + i).filter((status) => status !== 408);

/** Labels are a few hundred KB; anything far larger is not a label. */
const MAX_LABEL_BYTES = 20 * 1024 * 1024;

const PDF_MAGIC = Buffer.from('%PDF-');

export const isPdf = (bytes: Buffer): boolean => bytes.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC);

const secondsHeader = (value: string | null): number | null =>
  value !== null && /^\s*\d+\s*$/.test(value) ? Number(value) : null;

/** ShipStation's delay before the next request: Retry-After (v2), else X-Rate-Limit-Reset (v1). */
const rateLimitDelay = (headers: Headers): number | null =>
  parseRetryAfter(headers.get('retry-after'), Date.now()) ?? secondsHeader(headers.get('x-rate-limit-reset'));

const parseBodyText = (text: string): unknown => {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

export const createShipStationApi = (config: ShipStationApiConfig): ShipStationApi => {
  const baseUrl = config.baseUrl.replace(/\/+$/, '');
  const origin = new URL(baseUrl).origin;
  const { vendor } = config;
  const doFetch = config.fetch ?? globalThis.fetch;
  const timeoutMs = config.http?.timeoutMs ?? 20_000;
  const http = createHttpClient({ vendor, allowedOrigins: [origin], fetch: config.fetch, ...config.http });

  const refusal = (operation: string, status: number, headers: Headers, body: unknown): Error => {
    const detail = config.describeError(body);
    const words = detail.message ? `: ${detail.message}` : '';
    if (status === 401 || status === 403)
      return new ShippingAuthError(`${vendor} refused these API keys (${status})${words}`);
    if (status === 429)
      return new ShippingUnavailableError(
        `${vendor} asked us to slow down (${operation}); try again later`,
        rateLimitDelay(headers),
      );
    if (detail.addressProblem && detail.message) return new ShippingAddressError(detail.message);
    return new ShippingRejectedError(`${vendor} ${operation} refused (${status})${words}`, status);
  };

  /** The http client's own errors, in the port's terms. */
  const transportError = (error: unknown): unknown => {
    if (error instanceof MarketplaceUnavailableError)
      return new ShippingUnavailableError(error.message, error.retryAfterSeconds);
    if (error instanceof OutboundHostNotAllowedError) return new ShippingRejectedError(error.message, 400);
    // A redirect (the client never follows one): not an answer we can use.
    if (error instanceof MarketplaceRejectedError) return new ShippingRejectedError(error.message, 502);
    return error;
  };

  const call = async <T>(request: ShipStationRequest<T>): Promise<T> => {
    let response: HttpResponse;
    try {
      response = await http.request({
        method: request.method,
        url: request.url,
        headers: request.headers,
        json: request.json,
        operation: request.operation,
        acceptStatuses: CLIENT_ERRORS,
        ...(request.purchase ? { maxAttempts: 1 } : {}),
      });
    } catch (error) {
      throw transportError(error);
    }
    if (response.status >= 400)
      throw refusal(request.operation, response.status, response.headers, response.body);
    const parsed = request.schema.safeParse(response.body);
    if (parsed.success) return parsed.data;
    if (request.purchase)
      throw new ShippingUnavailableError(
        `${vendor} ${request.operation} answered something we cannot read; the label may be bought: look it up before buying again`,
      );
    throw new ShippingRejectedError(`${vendor} ${request.operation} returned an unexpected response`, 502);
  };

  /**
   * The http client reads bodies as text, which would corrupt a PDF, so this one GET is sent with the
   * same rules by hand: the origin is checked first, redirects are refused, the attempt has a timeout.
   */
  const downloadPdf = async (url: URL, headers: Readonly<Record<string, string>>): Promise<Buffer> => {
    if (!http.isAllowed(url))
      throw new ShippingRejectedError(
        `Refused to fetch a label from ${url.origin}: not ${vendor}'s API host`,
        400,
      );
    let response: Response;
    try {
      response = await doFetch(url, {
        headers: { ...headers, accept: 'application/pdf' },
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
      throw new ShippingUnavailableError(
        `${vendor} label download ${timedOut ? `timed out after ${timeoutMs} ms` : 'could not connect'}; try again later`,
      );
    }
    if (response.status === 408 || response.status >= 500)
      throw new ShippingUnavailableError(
        `${vendor} label download answered ${response.status}; try again later`,
      );
    if (response.status >= 400)
      throw refusal(
        'label download',
        response.status,
        response.headers,
        parseBodyText(await response.text()),
      );
    if (response.status !== 200)
      throw new ShippingRejectedError(`${vendor} label download answered ${response.status}`, 502);
    if (Number(response.headers.get('content-length') ?? 0) > MAX_LABEL_BYTES)
      throw new ShippingRejectedError('The label file is too large', 502);
    const bytes = Buffer.from(await response.arrayBuffer());
    if (bytes.length > MAX_LABEL_BYTES) throw new ShippingRejectedError('The label file is too large', 502);
    // We buy PDF labels; anything else is not what we asked for.
    if (!isPdf(bytes)) throw new ShippingRejectedError(`${vendor} label download is not a PDF`, 502);
    return bytes;
  };

  return {
    url(path, query = {}) {
      const url = new URL(`${baseUrl}${path}`);
      for (const [key, value] of Object.entries(query))
        if (value !== undefined) url.searchParams.set(key, String(value));
      return url;
    },
    isApiUrl: (url) => http.isAllowed(url),
    call,
    downloadPdf,
  };
};
