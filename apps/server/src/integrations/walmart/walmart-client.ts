import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  MarketplaceRejectedError,
  MarketplaceUnavailableError,
  type RefreshedTokens,
} from '../../modules/shops/connector.ts';
import {
  createHttpClient,
  type HttpClientOptions,
  type HttpMethod,
  type HttpResponse,
} from '../http-client/http-client.ts';
import { createRateLimiter } from '../http-client/rate-limiter.ts';
import { walmartTokenResponse } from './walmart-mapping.ts';

/**
 * The only module that calls Walmart: the client-credentials token, the WM_* headers every call
 * carries, one new token on a 401, and Walmart's own rate-limit headers.
 *
 * Walmart limits each API per seller with a token bucket and reports it on every response
 * (`x-current-token-count`, `x-next-replenish-time`; Walmart's pages spell the second one
 * `x-next-replenishment-time` too). When a bucket is empty we wait for the replenish time before
 * calling that API again for that seller (or give up with its delay when it is too far off), and a
 * 429 without Retry-After gets one derived from the replenish time so the shared http client's
 * back-off honours it.
 */

export const WALMART_SERVICE_NAME = 'Walmart Marketplace';
export const WALMART_DEFAULT_API_URL = 'https://marketplace.walmartapis.com';

export interface WalmartClientOptions {
  /** Default https://marketplace.walmartapis.com (https://sandbox.walmartapis.com for Walmart's sandbox). */
  readonly baseUrl?: string;
  /** WM_CONSUMER.CHANNEL.TYPE, given to solution providers at onboarding; omitted when unset. */
  readonly channelType?: string;
  readonly fetch?: typeof fetch;
  readonly now?: () => Date;
  /** ≤ this many requests per second per seller (default 5; Walmart's own buckets are the real limit). */
  readonly requestsPerSecond?: number;
  /** Waits for an empty bucket up to this long in-process (default 60 s); longer: the job reschedules. */
  readonly maxReplenishWaitSeconds?: number;
  readonly http?: Pick<
    HttpClientOptions,
    'timeoutMs' | 'maxAttempts' | 'baseDelayMs' | 'maxDelayMs' | 'maxRetryAfterSeconds' | 'sleep' | 'random'
  >;
}

export interface WalmartClientCredentials {
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface WalmartSession {
  /** Rate-limit and token-cache key: the shop's externalShopId. */
  readonly key: string;
  readonly credentials: WalmartClientCredentials;
  readonly accessToken: string | null;
  readonly tokenExpiresAt: Date | null;
}

export interface WalmartCall {
  readonly operation: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly query?: URLSearchParams;
  readonly json?: unknown;
}

export const REVOKED_MESSAGE = 'Walmart access was revoked; reconnect the shop';

/** An epoch (s or ms) or HTTP-date replenish time → ms, or null. */
export const parseReplenishTime = (value: string | null): number | null => {
  const text = value?.trim() ?? '';
  if (!text) return null;
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    return n > 1e12 ? n : n * 1000;
  }
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : date;
};

const replenishHeader = (headers: Headers): string | null =>
  headers.get('x-next-replenish-time') ?? headers.get('x-next-replenishment-time');

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export const createWalmartClient = (options: WalmartClientOptions) => {
  const baseUrl = (options.baseUrl ?? WALMART_DEFAULT_API_URL).replace(/\/+$/, '');
  const now = options.now ?? (() => new Date());
  const sleep = options.http?.sleep ?? defaultSleep;
  const maxReplenishWaitMs = (options.maxReplenishWaitSeconds ?? 60) * 1000;
  const baseFetch = options.fetch ?? globalThis.fetch;

  /** Adds Retry-After to a 429 that only carries Walmart's replenish time. */
  const rateAwareFetch: typeof fetch = async (input, init) => {
    const response = await baseFetch(input, init);
    if (response.status !== 429 || response.headers.has('retry-after')) return response;
    const replenishMs = parseReplenishTime(replenishHeader(response.headers));
    if (replenishMs === null) return response;
    const headers = new Headers(response.headers);
    headers.set('retry-after', String(Math.max(1, Math.ceil((replenishMs - now().getTime()) / 1000))));
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };

  const http = createHttpClient({
    vendor: 'Walmart',
    allowedOrigins: [new URL(baseUrl).origin],
    fetch: rateAwareFetch,
    rateLimiter: createRateLimiter({ ratePerSecond: options.requestsPerSecond ?? 5 }),
    ...options.http,
  });

  /** Per (seller, operation): no calls before this time (the bucket was reported empty). */
  const emptyUntil = new Map<string, number>();
  /** Tokens fetched here after a 401, newer than the stored one (the shops module stores only refreshes). */
  const tokenCache = new Map<string, { accessToken: string; expiresAtMs: number }>();

  const commonHeaders = (): Record<string, string> => ({
    'WM_QOS.CORRELATION_ID': randomUUID(),
    'WM_SVC.NAME': WALMART_SERVICE_NAME,
    ...(options.channelType ? { 'WM_CONSUMER.CHANNEL.TYPE': options.channelType } : {}),
    accept: 'application/json',
  });

  const parse = <T>(schema: z.ZodType<T>, body: unknown, operation: string): T => {
    const result = schema.safeParse(body);
    if (!result.success)
      throw new MarketplaceRejectedError(`Walmart ${operation} returned an unexpected response`, 502);
    return result.data;
  };

  /**
   * POST /v3/token, grant_type=client_credentials with HTTP Basic client id:secret. Any refusal is
   * final (bad or revoked credentials): MarketplaceRejectedError with `refusedMessage`.
   */
  const requestToken = async (
    credentials: WalmartClientCredentials,
    refusedMessage: string,
  ): Promise<RefreshedTokens> => {
    const basic = Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`, 'utf8').toString(
      'base64',
    );
    let response: HttpResponse;
    try {
      response = await http.request({
        method: 'POST',
        url: `${baseUrl}/v3/token`,
        operation: 'getToken',
        headers: { ...commonHeaders(), authorization: `Basic ${basic}` },
        form: new URLSearchParams({ grant_type: 'client_credentials' }),
        rateLimitKey: `token:${credentials.clientId}`,
      });
    } catch (error) {
      if (error instanceof MarketplaceRejectedError)
        throw new MarketplaceRejectedError(refusedMessage, error.status);
      throw error;
    }
    const body = parse(walmartTokenResponse, response.body, 'getToken');
    const expiresIn = body.expires_in ?? 900;
    return {
      accessToken: body.access_token,
      refreshToken: `${credentials.clientId}:${credentials.clientSecret}`,
      tokenExpiresAt: new Date(now().getTime() + expiresIn * 1000),
    };
  };

  const waitForBucket = async (bucket: string): Promise<void> => {
    const until = emptyUntil.get(bucket);
    if (until === undefined) return;
    const waitMs = until - now().getTime();
    if (waitMs <= 0) {
      emptyUntil.delete(bucket);
      return;
    }
    if (waitMs > maxReplenishWaitMs)
      throw new MarketplaceUnavailableError(
        'Walmart rate limit reached for this seller; try again later',
        Math.ceil(waitMs / 1000),
      );
    await sleep(waitMs);
    emptyUntil.delete(bucket);
  };

  const noteBucket = (bucket: string, headers: Headers): void => {
    const count = headers.get('x-current-token-count');
    if (count === null || Number(count) > 0) return;
    const replenishMs = parseReplenishTime(replenishHeader(headers));
    if (replenishMs !== null) emptyUntil.set(bucket, replenishMs);
  };

  const usableToken = (session: WalmartSession): string | null => {
    const nowMs = now().getTime();
    const cached = tokenCache.get(session.key);
    if (cached && cached.expiresAtMs > nowMs + 30_000) return cached.accessToken;
    if (session.accessToken && (!session.tokenExpiresAt || session.tokenExpiresAt.getTime() > nowMs))
      return session.accessToken;
    return null;
  };

  const freshToken = async (session: WalmartSession): Promise<string> => {
    const tokens = await requestToken(session.credentials, REVOKED_MESSAGE);
    tokenCache.set(session.key, {
      accessToken: tokens.accessToken,
      expiresAtMs: tokens.tokenExpiresAt?.getTime() ?? now().getTime(),
    });
    return tokens.accessToken;
  };

  /**
   * One API call with the WM_* headers. An expired (or missing) token is replaced before the call;
   * a 401 gets one new token and one retry; a 401 with that new token means the credentials no
   * longer grant access: MarketplaceRejectedError(401, "reconnect").
   */
  const call = async <T>(session: WalmartSession, schema: z.ZodType<T>, input: WalmartCall): Promise<T> => {
    const bucket = `${session.key}:${input.operation}`;
    const url = new URL(`${baseUrl}${input.path}`);
    if (input.query) url.search = input.query.toString();

    let token = usableToken(session) ?? (await freshToken(session));
    for (let attempt = 0; ; attempt += 1) {
      await waitForBucket(bucket);
      const response = await http.request({
        method: input.method,
        url,
        operation: input.operation,
        headers: { ...commonHeaders(), 'WM_SEC.ACCESS_TOKEN': token },
        json: input.json,
        acceptStatuses: [401],
        rateLimitKey: session.key,
      });
      noteBucket(bucket, response.headers);
      if (response.status !== 401) return parse(schema, response.body, input.operation);
      if (attempt > 0) throw new MarketplaceRejectedError(REVOKED_MESSAGE, 401);
      tokenCache.delete(session.key);
      token = await freshToken(session);
    }
  };

  return { requestToken, call, baseUrl };
};

export type WalmartClient = ReturnType<typeof createWalmartClient>;
