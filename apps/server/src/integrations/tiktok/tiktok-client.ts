import type { z } from 'zod';
import {
  MarketplaceRejectedError,
  MarketplaceUnavailableError,
  type RefreshedTokens,
} from '../../modules/shops/connector.ts';
import { createHttpClient, type HttpClientOptions, type HttpMethod } from '../http-client/http-client.ts';
import { createRateLimiter } from '../http-client/rate-limiter.ts';
import { tiktokEnvelope, tiktokTokenData } from './tiktok-mapping.ts';
import { signTikTokRequest } from './tiktok-signing.ts';

/**
 * The only module that calls TikTok Shop: the Open API (signed, `x-tts-access-token`, the
 * {code, message, data} envelope) and the token endpoints (auth.tiktok-shops.com, unsigned, the
 * app secret in the query as TikTok's guide specifies).
 */

export const TIKTOK_API_BASE = 'https://open-api.tiktokglobalshop.com';
export const TIKTOK_AUTH_BASE = 'https://auth.tiktok-shops.com';

/** Common error codes (Partner Center "Common errors"). */
const EXPIRED_TOKEN = 105002;
const INVALID_CREDENTIALS = new Set([36009004, 101000]);
const SCOPE_MISSING = 105005;
const INVALID_SIGN = 106001;
const TOO_MANY_REQUESTS = 36009002;
/** Internal error and request timeout: a retry may succeed. */
const TRANSIENT = new Set([36009003, 36009007]);

/** An envelope with a non-zero code that the caller may want to treat as success (already shipped). */
export class TikTokApiError extends MarketplaceRejectedError {
  readonly code: number;
  constructor(message: string, status: number, code: number) {
    super(message, status);
    this.name = 'TikTokApiError';
    this.code = code;
  }
}

export interface TikTokClientOptions {
  readonly appKey: string;
  readonly appSecret: string;
  readonly fetch?: typeof fetch;
  readonly apiBaseUrl?: string;
  readonly authBaseUrl?: string;
  readonly now?: () => Date;
  /** ≤ this many requests per second per shop (TikTok allows 50 QPS per app, shop and API; default 10). */
  readonly requestsPerSecond?: number;
  readonly http?: Pick<
    HttpClientOptions,
    'timeoutMs' | 'maxAttempts' | 'baseDelayMs' | 'maxDelayMs' | 'maxRetryAfterSeconds' | 'sleep' | 'random'
  >;
}

export interface TikTokCall {
  /** A short name for messages ("searchOrders"); never the URL. */
  readonly operation: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number>>;
  readonly body?: unknown;
  readonly accessToken: string | null;
  /** Every shop-scoped call names the shop's cipher (from Get Authorized Shops). */
  readonly shopCipher?: string;
  readonly rateLimitKey: string;
}

/** 4xx answers are read for their envelope (its code says more than the status); 408/429 retry. */
const READ_STATUSES = [400, 401, 403, 404, 405, 409, 410, 412, 413, 415, 422];

export const createTikTokClient = (options: TikTokClientOptions) => {
  const apiBase = (options.apiBaseUrl ?? TIKTOK_API_BASE).replace(/\/+$/, '');
  const authBase = (options.authBaseUrl ?? TIKTOK_AUTH_BASE).replace(/\/+$/, '');
  const now = options.now ?? (() => new Date());
  const http = createHttpClient({
    vendor: 'TikTok Shop',
    allowedOrigins: [...new Set([new URL(apiBase).origin, new URL(authBase).origin])],
    fetch: options.fetch,
    rateLimiter: createRateLimiter({ ratePerSecond: options.requestsPerSecond ?? 10 }),
    ...options.http,
  });

  const envelopeError = (operation: string, status: number, code: number, message: string): Error => {
    const what = `TikTok Shop ${operation} failed (${code}${message ? `: ${message.slice(0, 200)}` : ''})`;
    if (code === TOO_MANY_REQUESTS) return new MarketplaceUnavailableError(`${what}; try again later`, 1);
    if (TRANSIENT.has(code)) return new MarketplaceUnavailableError(`${what}; try again later`, null);
    if (code === EXPIRED_TOKEN || INVALID_CREDENTIALS.has(code))
      return new TikTokApiError(`${what}; reconnect the shop`, 401, code);
    if (code === SCOPE_MISSING)
      return new TikTokApiError(`${what}; reconnect the shop to grant access`, 403, code);
    // A bad signature is our fault, not the seller's: never shown as "reconnect".
    if (code === INVALID_SIGN) return new TikTokApiError(what, 500, code);
    return new TikTokApiError(what, status >= 400 && status < 500 ? status : 422, code);
  };

  const unwrap = <T>(schema: z.ZodType<T>, status: number, body: unknown, operation: string): T => {
    const envelope = tiktokEnvelope.safeParse(body);
    if (!envelope.success) {
      if (status >= 400)
        throw new MarketplaceRejectedError(`TikTok Shop ${operation} refused (${status})`, status);
      throw new MarketplaceRejectedError(`TikTok Shop ${operation} returned an unexpected response`, 502);
    }
    if (envelope.data.code !== 0)
      throw envelopeError(operation, status, envelope.data.code, envelope.data.message ?? '');
    if (status >= 400)
      throw new MarketplaceRejectedError(`TikTok Shop ${operation} refused (${status})`, status);
    const data = schema.safeParse(envelope.data.data ?? {});
    if (!data.success)
      throw new MarketplaceRejectedError(`TikTok Shop ${operation} returned an unexpected response`, 502);
    return data.data;
  };

  /** A signed Open API call; the answer's `data` parsed with the schema. */
  const call = async <T>(schema: z.ZodType<T>, input: TikTokCall): Promise<T> => {
    if (!input.accessToken)
      throw new MarketplaceRejectedError(
        'The TikTok Shop connection has no access token; reconnect the shop',
        401,
      );
    const query: Record<string, string> = {
      app_key: options.appKey,
      timestamp: String(Math.floor(now().getTime() / 1000)),
    };
    if (input.shopCipher !== undefined) query.shop_cipher = input.shopCipher;
    for (const [key, value] of Object.entries(input.query ?? {})) query[key] = String(value);
    // Signed over exactly the bytes sent, so the body is serialised once, here.
    const bodyText = input.body === undefined ? '' : JSON.stringify(input.body);
    query.sign = signTikTokRequest({ path: input.path, query, body: bodyText, appSecret: options.appSecret });
    const url = new URL(`${apiBase}${input.path}`);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    const response = await http.request({
      method: input.method,
      url,
      operation: input.operation,
      headers: { 'content-type': 'application/json', 'x-tts-access-token': input.accessToken },
      ...(bodyText ? { body: new TextEncoder().encode(bodyText) } : {}),
      acceptStatuses: READ_STATUSES,
      rateLimitKey: input.rateLimitKey,
    });
    return unwrap(schema, response.status, response.body, input.operation);
  };

  const tokens = (data: z.infer<typeof tiktokTokenData>): RefreshedTokens => {
    const expiry = data.access_token_expire_in;
    // Documented as a Unix time; a small number would be a duration, so both read right.
    const expiresAt =
      typeof expiry === 'number' && expiry > 0
        ? new Date(expiry > 1_000_000_000 ? expiry * 1000 : now().getTime() + expiry * 1000)
        : null;
    return {
      accessToken: data.access_token,
      refreshToken: data.refresh_token ?? null,
      tokenExpiresAt: expiresAt,
    };
  };

  const tokenRequest = async (
    path: '/api/v2/token/get' | '/api/v2/token/refresh',
    params: Record<string, string>,
    operation: string,
  ) => {
    const url = new URL(`${authBase}${path}`);
    url.search = new URLSearchParams({
      app_key: options.appKey,
      app_secret: options.appSecret,
      ...params,
    }).toString();
    const response = await http.request({
      method: 'GET',
      url,
      operation,
      acceptStatuses: READ_STATUSES,
      rateLimitKey: 'oauth',
    });
    const data = unwrap(tiktokTokenData, response.status, response.body, operation);
    return { data, tokens: tokens(data) };
  };

  return {
    call,
    /** token/get with the `code` TikTok put on the redirect. */
    exchangeCode: (authCode: string) =>
      tokenRequest(
        '/api/v2/token/get',
        { auth_code: authCode, grant_type: 'authorized_code' },
        'getAccessToken',
      ),
    /**
     * token/refresh. Any refusal other than "busy" means the grant is gone (refresh token expired or
     * the seller deauthorised the app): the shop must be reconnected.
     */
    refresh: async (refreshToken: string): Promise<RefreshedTokens> => {
      try {
        const result = await tokenRequest(
          '/api/v2/token/refresh',
          { refresh_token: refreshToken, grant_type: 'refresh_token' },
          'refreshAccessToken',
        );
        return result.tokens;
      } catch (error) {
        if (error instanceof MarketplaceRejectedError && error.status !== 500 && error.status !== 502)
          throw new MarketplaceRejectedError('TikTok Shop access was revoked; reconnect the shop', 401);
        throw error;
      }
    },
  };
};

export type TikTokClient = ReturnType<typeof createTikTokClient>;
