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
import { createRateLimiter } from '../http-client/rate-limiter.ts';
import { ebayTokenResponse } from './ebay-mapping.ts';

/**
 * The only module that calls eBay (docs/marketplaces/ebay.md): the OAuth token endpoint (Basic
 * client_id:client_secret), the Sell Fulfillment and Inventory APIs, Commerce Identity (who
 * connected) and the Notification API's public keys (account-deletion signatures).
 */

export type EbayEnvironment = 'production' | 'sandbox';

export interface EbayEndpoints {
  /** https://api.ebay.com/sell/fulfillment/v1 */
  readonly fulfillment: string;
  /** https://api.ebay.com/sell/inventory/v1 */
  readonly inventory: string;
  /** https://apiz.ebay.com/commerce/identity/v1 */
  readonly identity: string;
  /** https://api.ebay.com/commerce/notification/v1 */
  readonly notification: string;
  /** https://api.ebay.com/identity/v1/oauth2/token */
  readonly token: string;
  /** https://auth.ebay.com/oauth2/authorize (never fetched; the seller's browser goes there). */
  readonly authorize: string;
  /** https://www.ebay.com, where a listing is /itm/<listingId>. */
  readonly site: string;
}

export const ebayEndpoints = (environment: EbayEnvironment): EbayEndpoints => {
  const sandbox = environment === 'sandbox' ? '.sandbox' : '';
  return {
    fulfillment: `https://api${sandbox}.ebay.com/sell/fulfillment/v1`,
    inventory: `https://api${sandbox}.ebay.com/sell/inventory/v1`,
    identity: `https://apiz${sandbox}.ebay.com/commerce/identity/v1`,
    notification: `https://api${sandbox}.ebay.com/commerce/notification/v1`,
    token: `https://api${sandbox}.ebay.com/identity/v1/oauth2/token`,
    authorize: `https://auth${sandbox}.ebay.com/oauth2/authorize`,
    site: environment === 'sandbox' ? 'https://sandbox.ebay.com' : 'https://www.ebay.com',
  };
};

/** The scope of an application token (client credentials), enough for getPublicKey. */
const APPLICATION_SCOPE = 'https://api.ebay.com/oauth/api_scope';
/**
 * eBay answers 429 without a Retry-After (all APIs); its limits are per day, so when backing off in
 * process did not help, the job is told to come back in a minute rather than at once.
 */
export const EBAY_DEFAULT_RETRY_AFTER_SECONDS = 60;

export interface EbayClientOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Default production. */
  readonly environment?: EbayEnvironment;
  /** Per-endpoint overrides (tests point these at Prism or a local server). */
  readonly endpoints?: Partial<EbayEndpoints>;
  readonly fetch?: typeof fetch;
  readonly now?: () => Date;
  /** ≤ this many requests per second per shop (default 5). */
  readonly requestsPerSecond?: number;
  readonly http?: Pick<
    HttpClientOptions,
    'timeoutMs' | 'maxAttempts' | 'baseDelayMs' | 'maxDelayMs' | 'maxRetryAfterSeconds' | 'sleep' | 'random'
  >;
}

export type EbayApi = 'fulfillment' | 'inventory' | 'identity' | 'notification';

export interface EbayCall {
  readonly api: EbayApi;
  readonly operation: string;
  readonly method: HttpMethod;
  /** Below the API's base, starting with '/'. Path segments from data must be encoded by the caller. */
  readonly path: string;
  /** Appended verbatim (already encoded), for eBay's filter syntax. */
  readonly rawQuery?: string;
  readonly query?: Readonly<Record<string, string | number>>;
  readonly json?: unknown;
  readonly accessToken: string | null;
  readonly rateLimitKey: string;
  readonly acceptStatuses?: readonly number[];
}

export interface EbayClient {
  readonly endpoints: EbayEndpoints;
  /** An authenticated call; `body` parsed with the schema (a 2xx or an accepted status). */
  call<T>(schema: z.ZodType<T>, input: EbayCall): Promise<{ status: number; body: T }>;
  /**
   * POSTs a grant to the token endpoint. `keepRefreshToken`: returned when eBay sends none back (a
   * refresh); `refused`: the message when eBay refuses the grant (invalid_grant), which no retry fixes.
   */
  token(
    form: URLSearchParams,
    operation: string,
    options: { keepRefreshToken?: string | null; refused: string },
  ): Promise<RefreshedTokens>;
  /** An application access token (client credentials), cached until shortly before it expires. */
  applicationToken(): Promise<string>;
}

export const createEbayClient = (options: EbayClientOptions): EbayClient => {
  const endpoints: EbayEndpoints = {
    ...ebayEndpoints(options.environment ?? 'production'),
    ...options.endpoints,
  };
  const now = options.now ?? (() => new Date());
  const basic = Buffer.from(`${options.clientId}:${options.clientSecret}`).toString('base64');
  const origins = [
    endpoints.fulfillment,
    endpoints.inventory,
    endpoints.identity,
    endpoints.notification,
    endpoints.token,
  ].map((url) => new URL(url).origin);
  const http = createHttpClient({
    vendor: 'eBay',
    allowedOrigins: [...new Set(origins)],
    fetch: options.fetch,
    rateLimiter: createRateLimiter({ ratePerSecond: options.requestsPerSecond ?? 5 }),
    ...options.http,
  });

  const parse = <T>(schema: z.ZodType<T>, body: unknown, operation: string): T => {
    const result = schema.safeParse(body);
    if (!result.success)
      throw new MarketplaceRejectedError(`eBay ${operation} returned an unexpected response`, 502);
    return result.data;
  };

  /** eBay-specific readings of the shared client's errors. */
  const translate = (error: unknown, operation: string): unknown => {
    if (error instanceof OutboundUnavailableError && error.status === 429 && error.retryAfterSeconds === null)
      return new MarketplaceUnavailableError(
        `eBay ${operation} is rate limited (429); try again later`,
        EBAY_DEFAULT_RETRY_AFTER_SECONDS,
      );
    if (error instanceof MarketplaceRejectedError && error.status === 401)
      return new MarketplaceRejectedError(
        `eBay refused the access token for ${operation}; reconnect the shop`,
        401,
      );
    return error;
  };

  const call: EbayClient['call'] = async (schema, input) => {
    if (!input.accessToken)
      throw new MarketplaceRejectedError('The eBay connection has no access token; reconnect the shop', 401);
    const url = new URL(`${endpoints[input.api].replace(/\/+$/, '')}${input.path}`);
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(input.query ?? {})) params.set(key, String(value));
    url.search = [input.rawQuery, params.toString()].filter(Boolean).join('&');
    try {
      const response = await http.request({
        method: input.method,
        url,
        operation: input.operation,
        headers: { authorization: `Bearer ${input.accessToken}` },
        json: input.json,
        rateLimitKey: input.rateLimitKey,
        acceptStatuses: input.acceptStatuses,
      });
      return { status: response.status, body: parse(schema, response.body, input.operation) };
    } catch (error) {
      throw translate(error, input.operation);
    }
  };

  const token: EbayClient['token'] = async (form, operation, { keepRefreshToken = null, refused }) => {
    let body: unknown;
    try {
      const response = await http.request({
        method: 'POST',
        url: endpoints.token,
        form,
        operation,
        headers: { authorization: `Basic ${basic}` },
        rateLimitKey: 'oauth',
      });
      body = response.body;
    } catch (error) {
      if (error instanceof MarketplaceRejectedError && (error.status === 400 || error.status === 401))
        throw new MarketplaceRejectedError(`${refused} (${error.message})`, error.status);
      throw translate(error, operation);
    }
    const parsed = parse(ebayTokenResponse, body, operation);
    return {
      accessToken: parsed.access_token,
      refreshToken: parsed.refresh_token ?? keepRefreshToken,
      tokenExpiresAt:
        typeof parsed.expires_in === 'number' ? new Date(now().getTime() + parsed.expires_in * 1000) : null,
    };
  };

  let appToken: { value: string; expiresAtMs: number } | null = null;
  const applicationToken: EbayClient['applicationToken'] = async () => {
    if (appToken && appToken.expiresAtMs - now().getTime() > 60_000) return appToken.value;
    const tokens = await token(
      new URLSearchParams({ grant_type: 'client_credentials', scope: APPLICATION_SCOPE }),
      'applicationToken',
      { refused: 'eBay refused the application credentials; check EBAY_CLIENT_ID and EBAY_CLIENT_SECRET' },
    );
    appToken = {
      value: tokens.accessToken,
      expiresAtMs: tokens.tokenExpiresAt?.getTime() ?? now().getTime() + 60 * 60 * 1000,
    };
    return appToken.value;
  };

  return { endpoints, call, token, applicationToken };
};
