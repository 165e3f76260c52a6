import type { z } from 'zod';
import {
  MarketplaceRejectedError,
  type MarketplaceListing,
  type MarketplaceOrder,
  type OAuthConnector,
  type RefreshedTokens,
  type ShopConnector,
  type ShopCredentials,
  type TrackingUpdate,
  pollSinceMs,
} from '../../modules/shops/connector.ts';
import { createHttpClient, type HttpClientOptions, type HttpMethod } from '../http-client/http-client.ts';
import { createRateLimiter } from '../http-client/rate-limiter.ts';
import {
  etsyInventory,
  etsyListingsPage,
  etsyMe,
  etsyReceiptShipmentResponse,
  etsyReceiptsPage,
  etsyShop,
  etsyTokenResponse,
  mapEtsyListing,
  mapEtsyReceipt,
} from './etsy-mapping.ts';

/**
 * Etsy Open API v3 (contract: /work/shared/contracts/etsy/3.0.0.json; docs/connectors.md).
 * OAuth 2 with PKCE S256; receipts are polled (Etsy webhooks are for commercial apps only).
 */

export const ETSY_DEFAULT_SCOPES = 'transactions_r transactions_w listings_r shops_r';
/** How far each poll reaches back before the previous cursor (receipts edited while we paged). */
export const ETSY_CURSOR_OVERLAP_MS = 10 * 60 * 1000;
/** The first sync reads this far back. */
export const ETSY_FIRST_SYNC_LOOKBACK_MS = 30 * 24 * 60 * 60 * 1000;
const PAGE_SIZE = 100;
const MAX_PAGES = 500;
const ETSY_EPOCH_MIN = 946_684_800; // the spec's minimum for timestamps (2000-01-01)

export interface EtsyConnectorOptions {
  /** The app's keystring (OAuth client id). */
  readonly clientId: string;
  /**
   * The app's shared secret. Etsy now expects `x-api-key: <keystring>:<shared secret>`; without it
   * the keystring alone is sent (what the published spec describes).
   */
  readonly sharedSecret?: string;
  readonly fetch?: typeof fetch;
  /** Default https://openapi.etsy.com. */
  readonly baseUrl?: string;
  /** Default https://api.etsy.com/v3/public/oauth/token (not described by the OpenAPI file). */
  readonly tokenUrl?: string;
  /** Default https://www.etsy.com/oauth/connect (never fetched; the seller's browser goes there). */
  readonly authorizeEndpoint?: string;
  readonly scopes?: string;
  readonly now?: () => Date;
  /** ≤ this many requests per second per shop (default 5). */
  readonly requestsPerSecond?: number;
  /** Retry/timeout tuning and test hooks for the shared http client. */
  readonly http?: Pick<
    HttpClientOptions,
    'timeoutMs' | 'maxAttempts' | 'baseDelayMs' | 'maxDelayMs' | 'maxRetryAfterSeconds' | 'sleep' | 'random'
  >;
}

export type EtsyConnector = ShopConnector & OAuthConnector & { readonly platform: 'etsy' };

const numericId = (value: string, what: string): string => {
  if (!/^[1-9]\d{0,19}$/.test(value))
    throw new MarketplaceRejectedError(`Etsy ${what} must be a positive number`, 400);
  return value;
};

export const createEtsyConnector = (options: EtsyConnectorOptions): EtsyConnector => {
  const baseUrl = (options.baseUrl ?? 'https://openapi.etsy.com').replace(/\/+$/, '');
  const tokenUrl = options.tokenUrl ?? 'https://api.etsy.com/v3/public/oauth/token';
  const authorizeEndpoint = options.authorizeEndpoint ?? 'https://www.etsy.com/oauth/connect';
  const scopes = options.scopes ?? ETSY_DEFAULT_SCOPES;
  const now = options.now ?? (() => new Date());
  const apiKey = options.sharedSecret ? `${options.clientId}:${options.sharedSecret}` : options.clientId;

  const http = createHttpClient({
    vendor: 'Etsy',
    allowedOrigins: [...new Set([new URL(baseUrl).origin, new URL(tokenUrl).origin])],
    fetch: options.fetch,
    rateLimiter: createRateLimiter({ ratePerSecond: options.requestsPerSecond ?? 5 }),
    ...options.http,
  });

  const parse = <T>(schema: z.ZodType<T>, body: unknown, operation: string): T => {
    const result = schema.safeParse(body);
    if (!result.success)
      throw new MarketplaceRejectedError(`Etsy ${operation} returned an unexpected response`, 502);
    return result.data;
  };

  const call = async <T>(
    schema: z.ZodType<T>,
    input: {
      operation: string;
      method: HttpMethod;
      path: string;
      query?: Record<string, string | number | boolean>;
      form?: URLSearchParams;
      accessToken: string | null;
      rateLimitKey: string;
    },
  ): Promise<T> => {
    if (!input.accessToken)
      throw new MarketplaceRejectedError('The Etsy connection has no access token; reconnect the shop', 401);
    const url = new URL(`${baseUrl}${input.path}`);
    for (const [key, value] of Object.entries(input.query ?? {})) url.searchParams.set(key, String(value));
    const response = await http.request({
      method: input.method,
      url,
      operation: input.operation,
      headers: { 'x-api-key': apiKey, authorization: `Bearer ${input.accessToken}` },
      form: input.form,
      rateLimitKey: input.rateLimitKey,
    });
    return parse(schema, response.body, input.operation);
  };

  const tokenRequest = async (form: URLSearchParams, operation: string): Promise<RefreshedTokens> => {
    const response = await http.request({
      method: 'POST',
      url: tokenUrl,
      form,
      operation,
      rateLimitKey: 'oauth',
    });
    const body = parse(etsyTokenResponse, response.body, operation);
    return {
      accessToken: body.access_token,
      refreshToken: body.refresh_token ?? null,
      tokenExpiresAt:
        body.expires_in !== undefined ? new Date(now().getTime() + body.expires_in * 1000) : null,
    };
  };

  const shopIdOf = (credentials: ShopCredentials): string => numericId(credentials.externalShopId, 'shop id');

  const listListings = async (credentials: ShopCredentials): Promise<MarketplaceListing[]> => {
    const shopId = shopIdOf(credentials);
    const listings: MarketplaceListing[] = [];
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const result = await call(etsyListingsPage, {
        operation: 'getListingsByShop',
        method: 'GET',
        path: `/v3/application/shops/${shopId}/listings`,
        query: { state: 'active', limit: PAGE_SIZE, offset: page * PAGE_SIZE, includes: 'Images' },
        accessToken: credentials.accessToken,
        rateLimitKey: shopId,
      });
      for (const listing of result.results) {
        const inventory = await call(etsyInventory, {
          operation: 'getListingInventory',
          method: 'GET',
          path: `/v3/application/listings/${listing.listing_id}/inventory`,
          accessToken: credentials.accessToken,
          rateLimitKey: shopId,
        });
        listings.push(...mapEtsyListing(listing, inventory));
      }
      // `count` is the total; stop on a short page too (never trust one signal alone).
      const seen = page * PAGE_SIZE + result.results.length;
      if (result.results.length < PAGE_SIZE || (typeof result.count === 'number' && seen >= result.count))
        break;
    }
    return listings;
  };

  const fetchOrders = async (
    credentials: ShopCredentials,
    cursor: string | null,
  ): Promise<{ orders: MarketplaceOrder[]; nextCursor: string }> => {
    const shopId = shopIdOf(credentials);
    // Taken before the first request: anything changed while we page is caught by the next poll.
    const startedAt = now();
    const sinceMs = pollSinceMs(cursor, startedAt.getTime(), ETSY_FIRST_SYNC_LOOKBACK_MS, ETSY_CURSOR_OVERLAP_MS);
    const minLastModified = Math.max(ETSY_EPOCH_MIN, Math.floor(sinceMs / 1000));
    const settingsCurrency =
      typeof credentials.settings.currency === 'string' ? credentials.settings.currency : null;

    const byId = new Map<string, MarketplaceOrder>();
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const result = await call(etsyReceiptsPage, {
        operation: 'getShopReceipts',
        method: 'GET',
        path: `/v3/application/shops/${shopId}/receipts`,
        query: {
          min_last_modified: minLastModified,
          limit: PAGE_SIZE,
          offset: page * PAGE_SIZE,
          was_paid: true,
          sort_on: 'created',
          sort_order: 'asc',
        },
        accessToken: credentials.accessToken,
        rateLimitKey: shopId,
      });
      for (const receipt of result.results) {
        const order = mapEtsyReceipt(receipt, settingsCurrency);
        if (order) byId.set(order.externalId, order);
      }
      const seen = page * PAGE_SIZE + result.results.length;
      if (result.results.length < PAGE_SIZE || (typeof result.count === 'number' && seen >= result.count))
        break;
    }
    return { orders: [...byId.values()], nextCursor: startedAt.toISOString() };
  };

  const pushTracking = async (
    credentials: ShopCredentials,
    externalOrderId: string,
    tracking: TrackingUpdate,
  ): Promise<void> => {
    const shopId = shopIdOf(credentials);
    const receiptId = numericId(externalOrderId, 'receipt id');
    const trackingCode = tracking.trackingNumber.trim();
    if (!trackingCode)
      throw new MarketplaceRejectedError('A tracking number is required to mark an Etsy order shipped', 400);
    const carrier = tracking.carrierName.trim().toLowerCase() || 'usps';
    await call(etsyReceiptShipmentResponse, {
      operation: 'createReceiptShipment',
      method: 'POST',
      path: `/v3/application/shops/${shopId}/receipts/${receiptId}/tracking`,
      form: new URLSearchParams({ tracking_code: trackingCode, carrier_name: carrier, send_bcc: 'false' }),
      accessToken: credentials.accessToken,
      rateLimitKey: shopId,
    });
  };

  const refreshTokens = async (credentials: ShopCredentials): Promise<RefreshedTokens> => {
    if (!credentials.refreshToken)
      throw new MarketplaceRejectedError('The Etsy connection has no refresh token; reconnect the shop', 401);
    return tokenRequest(
      new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: options.clientId,
        refresh_token: credentials.refreshToken,
      }),
      'refreshToken',
    );
  };

  const authorizeUrl: OAuthConnector['authorizeUrl'] = ({ state, codeChallenge, redirectUri }) => {
    const url = new URL(authorizeEndpoint);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: options.clientId,
      redirect_uri: redirectUri,
      scope: scopes,
      state,
      code_challenge: codeChallenge,
      code_challenge_method: 'S256',
    }).toString();
    return url.toString();
  };

  const completeAuthorization: OAuthConnector['completeAuthorization'] = async ({
    query,
    codeVerifier,
    redirectUri,
  }) => {
    if (query.error) {
      throw new MarketplaceRejectedError(
        `Etsy did not grant access (${query.error_description ?? query.error})`,
        400,
      );
    }
    const code = query.code;
    if (!code) throw new MarketplaceRejectedError('The Etsy callback has no authorization code', 400);
    const tokens = await tokenRequest(
      new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: options.clientId,
        redirect_uri: redirectUri,
        code,
        code_verifier: codeVerifier,
      }),
      'exchangeCode',
    );
    const me = await call(etsyMe, {
      operation: 'getMe',
      method: 'GET',
      path: '/v3/application/users/me',
      accessToken: tokens.accessToken,
      rateLimitKey: 'oauth',
    });
    if (!me.shop_id) throw new MarketplaceRejectedError('This Etsy account has no shop to connect', 422);
    const shopId = String(me.shop_id);
    const shop = await call(etsyShop, {
      operation: 'getShop',
      method: 'GET',
      path: `/v3/application/shops/${shopId}`,
      accessToken: tokens.accessToken,
      rateLimitKey: shopId,
    });
    const currency = (shop.currency_code ?? '').toUpperCase();
    return {
      externalShopId: shopId,
      shopName: shop.shop_name,
      tokens,
      scopes,
      settings: {
        userId: me.user_id,
        currency: /^[A-Z]{3}$/.test(currency) ? currency : null,
        url: shop.url ?? null,
      },
    };
  };

  return {
    platform: 'etsy',
    listListings,
    fetchOrders,
    pushTracking,
    refreshTokens,
    authorizeUrl,
    completeAuthorization,
  };
};
