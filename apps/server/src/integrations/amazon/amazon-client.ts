import type { z } from 'zod';
import {
  MarketplaceRejectedError,
  MarketplaceUnavailableError,
  type RefreshedTokens,
} from '../../modules/shops/connector.ts';
import {
  createHttpClient,
  OutboundUnavailableError,
  type HttpClientOptions,
  type HttpMethod,
} from '../http-client/http-client.ts';
import type { RateLimiter } from '../http-client/rate-limiter.ts';
import {
  amazonErrorList,
  amazonLwaErrorResponse,
  amazonLwaTokenResponse,
  amazonRestrictedDataTokenResponse,
} from './amazon-mapping.ts';

/**
 * The only module that calls Amazon: Login with Amazon (LWA) tokens, Restricted Data Tokens and
 * Selling Partner API requests (`x-amz-access-token`; no AWS SigV4 signing since 2023-10-02).
 * Rate limits follow SP-API's usage plans: a token bucket per seller and operation, starting from
 * the operation's documented default and re-rated from each answer's `x-amzn-RateLimit-Limit`.
 */

export type AmazonRegion = 'na' | 'eu' | 'fe';

export const AMAZON_API_ORIGINS: Readonly<Record<AmazonRegion, string>> = {
  na: 'https://sellingpartnerapi-na.amazon.com',
  eu: 'https://sellingpartnerapi-eu.amazon.com',
  fe: 'https://sellingpartnerapi-fe.amazon.com',
};

/** LWA serves every region from this endpoint for SP-API. */
export const AMAZON_LWA_TOKEN_URL = 'https://api.amazon.com/auth/o2/token';

/**
 * Default usage plans (requests per second, burst) of the operations we call, copied from each
 * operation's description in the contract files (Tokens API: its model's description). Amazon may
 * grant a seller more; the `x-amzn-RateLimit-Limit` header then tells the current rate.
 */
export const AMAZON_USAGE_PLANS = {
  getOrders: { rate: 0.0167, burst: 20 },
  getOrder: { rate: 0.5, burst: 30 },
  getOrderItems: { rate: 0.5, burst: 30 },
  confirmShipment: { rate: 2, burst: 10 },
  searchListingsItems: { rate: 5, burst: 5 },
  createRestrictedDataToken: { rate: 1, burst: 10 },
} as const;
export type AmazonOperation = keyof typeof AMAZON_USAGE_PLANS;

/** Amazon refused the access token itself (expired, revoked, malformed): a refresh may fix it. */
export class AmazonTokenRejectedError extends MarketplaceRejectedError {
  constructor(operation: string, detail: string) {
    super(
      `Amazon refused the access token for ${operation}${detail ? ` (${detail})` : ''}; reconnect the shop`,
      401,
    );
    this.name = 'AmazonTokenRejectedError';
  }
}

interface Bucket {
  tokens: number;
  rate: number;
  burst: number;
  updatedMs: number;
}

/**
 * SP-API's own algorithm on our side: a bucket of `burst` tokens refilled at `rate` per second.
 * A request that would wait longer than `maxWaitMs` is not held in-process: it fails at once with
 * MarketplaceUnavailableError and the delay, so the job is rescheduled instead of blocking a worker.
 */
export interface AmazonRateLimiter extends RateLimiter {
  /** The rate Amazon reported for this key (`x-amzn-RateLimit-Limit`). */
  setRate(key: string, ratePerSecond: number): void;
  /** After a 429: no tokens left, the next request waits a full interval. */
  drain(key: string): void;
}

export const amazonRateLimitKey = (sellerId: string, operation: AmazonOperation): string =>
  `${sellerId}|${operation}`;

export const createAmazonRateLimiter = (options: {
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  maxWaitMs?: number;
}): AmazonRateLimiter => {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  const buckets = new Map<string, Bucket>();

  const bucketOf = (key: string): Bucket => {
    let bucket = buckets.get(key);
    if (!bucket) {
      const operation = key.slice(key.lastIndexOf('|') + 1) as AmazonOperation;
      const plan = AMAZON_USAGE_PLANS[operation] ?? { rate: 1, burst: 1 };
      bucket = { tokens: plan.burst, rate: plan.rate, burst: plan.burst, updatedMs: now() };
      buckets.set(key, bucket);
    }
    const current = now();
    bucket.tokens = Math.min(
      bucket.burst,
      bucket.tokens + ((current - bucket.updatedMs) / 1000) * bucket.rate,
    );
    bucket.updatedMs = current;
    return bucket;
  };

  return {
    async acquire(key) {
      const bucket = bucketOf(key);
      bucket.tokens -= 1;
      if (bucket.tokens >= 0) return;
      const waitMs = Math.ceil((-bucket.tokens / bucket.rate) * 1000);
      if (waitMs > maxWaitMs) {
        bucket.tokens += 1;
        throw new MarketplaceUnavailableError(
          'Amazon rate limit for this operation is used up; try again later',
          Math.ceil(waitMs / 1000),
        );
      }
      await sleep(waitMs);
    },
    setRate(key, ratePerSecond) {
      if (!(ratePerSecond > 0) || !Number.isFinite(ratePerSecond)) return;
      bucketOf(key).rate = ratePerSecond;
    },
    drain(key) {
      bucketOf(key).tokens = 0;
    },
  };
};

export interface AmazonClientOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly region: AmazonRegion;
  readonly fetch?: typeof fetch;
  /** Overrides the region's SP-API origin (tests: Prism). */
  readonly apiBaseUrl?: string;
  readonly tokenUrl?: string;
  readonly now?: () => Date;
  /** Waits longer than this for a rate-limit token fail with MarketplaceUnavailableError (default 60 s). */
  readonly maxRateLimitWaitMs?: number;
  readonly http?: Pick<
    HttpClientOptions,
    'timeoutMs' | 'maxAttempts' | 'baseDelayMs' | 'maxDelayMs' | 'maxRetryAfterSeconds' | 'sleep' | 'random'
  >;
}

export interface AmazonClient {
  /** The authorisation-code grant (`spapi_oauth_code`). */
  exchangeCode(code: string, redirectUri: string): Promise<RefreshedTokens>;
  refresh(refreshToken: string): Promise<RefreshedTokens>;
  /** A Restricted Data Token for one restricted GET path with the PII elements we need. */
  restrictedDataToken(accessToken: string, sellerId: string, path: string): Promise<string>;
  call<T>(
    schema: z.ZodType<T>,
    input: {
      operation: AmazonOperation;
      method: HttpMethod;
      path: string;
      query?: Record<string, string | number | undefined>;
      json?: unknown;
      accessToken: string;
      sellerId: string;
    },
  ): Promise<T>;
}

const ERROR_DETAIL_LIMIT = 200;

const describeErrors = (body: unknown): string => {
  const parsed = amazonErrorList.safeParse(body);
  const first = parsed.success ? parsed.data.errors?.[0] : undefined;
  const text = [first?.code, first?.message, first?.details].filter(Boolean).join(': ');
  return text.length > ERROR_DETAIL_LIMIT ? `${text.slice(0, ERROR_DETAIL_LIMIT)}…` : text;
};

/**
 * A 403 that is about the token rather than the app's roles. Amazon answers an expired, revoked or
 * malformed access token with 403 `Unauthorized` and a detail naming the token (never 401).
 */
const isTokenProblem = (status: number, body: unknown): boolean => {
  if (status === 401) return true;
  const parsed = amazonErrorList.safeParse(body);
  const errors = parsed.success ? (parsed.data.errors ?? []) : [];
  return errors.some(
    (e) => /token/i.test(`${e.details ?? ''} ${e.message ?? ''}`) || e.code === 'MissingAuthenticationToken',
  );
};

export const createAmazonClient = (options: AmazonClientOptions): AmazonClient => {
  const apiBase = (options.apiBaseUrl ?? AMAZON_API_ORIGINS[options.region]).replace(/\/+$/, '');
  const tokenUrl = options.tokenUrl ?? AMAZON_LWA_TOKEN_URL;
  const now = options.now ?? (() => new Date());
  const limiter = createAmazonRateLimiter({
    now: () => now().getTime(),
    sleep: options.http?.sleep,
    maxWaitMs: options.maxRateLimitWaitMs,
  });
  const http = createHttpClient({
    vendor: 'Amazon',
    allowedOrigins: [...new Set([new URL(apiBase).origin, new URL(tokenUrl).origin])],
    fetch: options.fetch,
    rateLimiter: limiter,
    ...options.http,
  });

  const tokenRequest = async (
    form: URLSearchParams,
    operation: 'exchangeCode' | 'refreshToken',
  ): Promise<RefreshedTokens> => {
    const response = await http.request({
      method: 'POST',
      url: tokenUrl,
      form,
      operation,
      acceptStatuses: [400, 401],
    });
    if (response.status !== 200) {
      const error = amazonLwaErrorResponse.safeParse(response.body);
      const code = error.success ? error.data.error : 'unknown_error';
      if (code === 'invalid_grant' && operation === 'refreshToken')
        throw new MarketplaceRejectedError('Amazon access was revoked; reconnect the shop', 401);
      if (code === 'invalid_grant')
        throw new MarketplaceRejectedError(
          'Amazon did not accept the authorisation code; connect again',
          400,
        );
      if (code === 'invalid_client' || code === 'unauthorized_client')
        throw new MarketplaceRejectedError(
          `Amazon refused this server's app credentials (${code}); the operator must check the LWA client id and secret`,
          401,
        );
      throw new MarketplaceRejectedError(
        `Amazon LWA ${operation} refused (${response.status}: ${code})`,
        response.status,
      );
    }
    const parsed = amazonLwaTokenResponse.safeParse(response.body);
    if (!parsed.success)
      throw new MarketplaceRejectedError(`Amazon LWA ${operation} returned an unexpected response`, 502);
    return {
      accessToken: parsed.data.access_token,
      refreshToken: parsed.data.refresh_token ?? null,
      tokenExpiresAt:
        typeof parsed.data.expires_in === 'number'
          ? new Date(now().getTime() + parsed.data.expires_in * 1000)
          : null,
    };
  };

  const request = async (input: {
    operation: AmazonOperation;
    method: HttpMethod;
    path: string;
    query?: Record<string, string | number | undefined>;
    json?: unknown;
    accessToken: string;
    sellerId: string;
  }): Promise<unknown> => {
    const url = new URL(`${apiBase}${input.path}`);
    for (const [key, value] of Object.entries(input.query ?? {}))
      if (value !== undefined) url.searchParams.set(key, String(value));
    const key = amazonRateLimitKey(input.sellerId, input.operation);
    let response;
    try {
      response = await http.request({
        method: input.method,
        url,
        operation: input.operation,
        headers: { 'x-amz-access-token': input.accessToken },
        json: input.json,
        rateLimitKey: key,
        acceptStatuses: [401, 403],
      });
    } catch (error) {
      if (error instanceof OutboundUnavailableError && error.status === 429) limiter.drain(key);
      throw error;
    }
    const reported = Number.parseFloat(response.headers.get('x-amzn-ratelimit-limit') ?? '');
    if (Number.isFinite(reported)) limiter.setRate(key, reported);
    if (response.status === 401 || response.status === 403) {
      const detail = describeErrors(response.body);
      if (isTokenProblem(response.status, response.body))
        throw new AmazonTokenRejectedError(input.operation, detail);
      throw new MarketplaceRejectedError(
        `Amazon denied ${input.operation}${detail ? ` (${detail})` : ''}: the app may lack the role this needs`,
        403,
      );
    }
    return response.body;
  };

  return {
    exchangeCode: (code, redirectUri) =>
      tokenRequest(
        new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          client_id: options.clientId,
          client_secret: options.clientSecret,
        }),
        'exchangeCode',
      ),
    refresh: (refreshToken) =>
      tokenRequest(
        new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: options.clientId,
          client_secret: options.clientSecret,
        }),
        'refreshToken',
      ),
    async restrictedDataToken(accessToken, sellerId, path) {
      let body: unknown;
      try {
        body = await request({
          operation: 'createRestrictedDataToken',
          method: 'POST',
          path: '/tokens/2021-03-01/restrictedDataToken',
          json: {
            restrictedResources: [{ method: 'GET', path, dataElements: ['buyerInfo', 'shippingAddress'] }],
          },
          accessToken,
          sellerId,
        });
      } catch (error) {
        if (error instanceof MarketplaceRejectedError && !(error instanceof AmazonTokenRejectedError))
          throw new MarketplaceRejectedError(
            `Amazon refused the buyers' addresses (Restricted Data Token: ${error.message}); the app needs the Direct-to-Consumer Shipping role`,
            error.status,
          );
        throw error;
      }
      const parsed = amazonRestrictedDataTokenResponse.safeParse(body);
      if (!parsed.success)
        throw new MarketplaceRejectedError(
          'Amazon createRestrictedDataToken returned an unexpected response',
          502,
        );
      return parsed.data.restrictedDataToken;
    },
    async call(schema, input) {
      const body = await request(input);
      const parsed = schema.safeParse(body);
      if (!parsed.success)
        throw new MarketplaceRejectedError(`Amazon ${input.operation} returned an unexpected response`, 502);
      return parsed.data;
    },
  };
};
