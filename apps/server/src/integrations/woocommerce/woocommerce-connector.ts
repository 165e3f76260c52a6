import type { z } from 'zod';
import {
  MarketplaceRejectedError,
  type ConnectField,
  type ConnectionGrant,
  type CredentialConnector,
  type MarketplaceListing,
  type MarketplaceOrder,
  type OAuthConnector,
  type ShopConnector,
  type ShopCredentials,
  type TrackingUpdate,
  pollSinceMs,
} from '../../modules/shops/connector.ts';
import {
  createHttpClient,
  type HttpClient,
  type HttpClientOptions,
  type HttpMethod,
  type HttpResponse,
} from '../http-client/http-client.ts';
import { createRateLimiter, type RateLimiter } from '../http-client/rate-limiter.ts';
import {
  checkWooStoreHost,
  createWooFetch,
  parseWooStoreUrl,
  systemResolver,
  type WooResolver,
  type WooStore,
} from './woocommerce-http.ts';
import {
  isVariableProduct,
  mapWooSimpleProduct,
  mapWooVariation,
  parseWooOrder,
  wooCurrentCurrency,
  wooOrderNotes,
  wooOrdersPage,
  wooOrderStatus,
  wooProductsPage,
  wooVariationsPage,
  wooWebhook,
  wooWebhooks,
} from './woocommerce-mapping.ts';
import { wooWebhookSecret } from './woocommerce-webhook-receiver.ts';

/**
 * WooCommerce REST API v3 on the seller's own WordPress site (contract: the community file
 * /work/shared/contracts/woocommerce/woocommerce-openapi-3.0.x.yml; docs/marketplaces/woocommerce.md).
 * Connected with REST keys (pasted, or delivered by /wc-auth/v1/authorize), sent as HTTP Basic over
 * https as WooCommerce documents. Orders by webhook (order.created/updated, signed per shop) plus
 * this reconciliation poll. The store address is the seller's: see woocommerce-http.ts.
 */

export const WOO_CURSOR_OVERLAP_MS = 10 * 60 * 1000;
export const WOO_FIRST_SYNC_LOOKBACK_MS = 30 * 24 * 60 * 60 * 1000;
export const WOO_WEBHOOK_TOPICS = ['order.created', 'order.updated'] as const;
/** The path of our webhook route: webhooks whose delivery URL ends so are ours (deleted on disconnect). */
const WEBHOOK_PATH = '/api/webhooks/woocommerce';
const PAGE_SIZE = 100;
const MAX_PAGES = 200;
const API_PREFIX = '/wp-json/wc/v3';

export interface WooCommerceConnectorOptions {
  /** Names the webhooks we create ("Layerline order.created"). Default "Layerline". */
  readonly appName?: string;
  /** Server secret the per-shop webhook secrets are derived from (wooWebhookSecret). */
  readonly appSecret: string;
  /** Tests only: http:// and 127.0.0.1 allowed (a mock on this machine). Never in production. */
  readonly allowInternal?: boolean;
  /** DNS for the host checks (tests: a fake that answers 127.0.0.1). Default the system resolver. */
  readonly resolve?: WooResolver;
  /**
   * Tests only: replaces the guarded transport (createWooFetch). The URL and DNS checks before each
   * operation still apply.
   */
  readonly fetch?: typeof fetch;
  readonly now?: () => Date;
  /** ≤ this many requests per second per store (default 4: many stores are on shared hosting). */
  readonly requestsPerSecond?: number;
  readonly http?: Pick<
    HttpClientOptions,
    'timeoutMs' | 'maxAttempts' | 'baseDelayMs' | 'maxDelayMs' | 'maxRetryAfterSeconds' | 'sleep' | 'random'
  >;
}

export type WooCommerceConnector = ShopConnector &
  CredentialConnector &
  OAuthConnector & {
    readonly platform: 'woocommerce';
    fetchOrder(credentials: ShopCredentials, externalOrderId: string): Promise<MarketplaceOrder | null>;
    subscribeWebhooks(credentials: ShopCredentials, callbackUrl: string): Promise<void>;
    revoke(credentials: ShopCredentials): Promise<void>;
  };

export const WOO_CONNECT_FIELDS: readonly ConnectField[] = [
  {
    name: 'storeUrl',
    label: 'Store address',
    secret: false,
    placeholder: 'https://shop.example.com',
    help: 'Your WordPress Site Address (Settings → General), starting with https://',
  },
  {
    name: 'consumerKey',
    label: 'Consumer key',
    secret: false,
    placeholder: 'ck_…',
    help: 'WooCommerce → Settings → Advanced → REST API → Add key, with Read/Write permissions',
  },
  { name: 'consumerSecret', label: 'Consumer secret', secret: true, placeholder: 'cs_…' },
];

/**
 * Where to send the seller to create keys for us in one click (WooCommerce's application
 * authentication endpoint). `state` travels as `user_id` and comes back both in the key delivery
 * POSTed to `callbackUrl` (parseWooKeyDelivery) and on the redirect to `returnUrl`.
 */
export const wooAuthorizeUrl = (input: {
  storeUrl: string;
  appName: string;
  state: string;
  returnUrl: string;
  callbackUrl: string;
}): string => {
  const store = parseWooStoreUrl(input.storeUrl, { allowInternal: false });
  const query = new URLSearchParams({
    app_name: input.appName,
    scope: 'read_write',
    user_id: input.state,
    return_url: input.returnUrl,
    callback_url: input.callbackUrl,
  });
  return `${store.baseUrl}/wc-auth/v1/authorize?${query.toString()}`;
};

export { parseWooKeyDelivery } from './woocommerce-mapping.ts';

const numericId = (value: string, what: string): string => {
  if (!/^[1-9]\d{0,19}$/.test(value))
    throw new MarketplaceRejectedError(`A WooCommerce ${what} must be a positive number`, 400);
  return value;
};

/** Our carrier names → how the note names them, and a public tracking page where there is a stable one. */
const CARRIERS: Readonly<Record<string, { name: string; url?: (n: string) => string }>> = {
  usps: { name: 'USPS', url: (n) => `https://tools.usps.com/go/TrackConfirmAction?tLabels=${n}` },
  ups: { name: 'UPS', url: (n) => `https://www.ups.com/track?tracknum=${n}` },
  fedex: { name: 'FedEx', url: (n) => `https://www.fedex.com/fedextrack/?trknbr=${n}` },
  dhl: {
    name: 'DHL',
    url: (n) => `https://www.dhl.com/global-en/home/tracking/tracking-express.html?tracking-id=${n}`,
  },
  sandbox: { name: 'Sandbox carrier' },
};

export const wooTrackingNote = (tracking: TrackingUpdate): string => {
  const number = tracking.trackingNumber.trim();
  const key = tracking.carrierName.trim().toLowerCase();
  const carrier = CARRIERS[key];
  const name = carrier?.name ?? (tracking.carrierName.trim() || 'the carrier');
  const url = carrier?.url?.(encodeURIComponent(number));
  return `Shipped with ${name}: ${number}${url ? ` ${url}` : ''}`;
};

/** Order statuses that take no tracking: the store closed the order. */
const CLOSED_STATUSES = new Set(['cancelled', 'refunded', 'failed', 'trash']);

export const createWooCommerceConnector = (options: WooCommerceConnectorOptions): WooCommerceConnector => {
  const allowInternal = options.allowInternal ?? false;
  const resolve = options.resolve ?? systemResolver;
  const appName = options.appName ?? 'Layerline';
  const now = options.now ?? (() => new Date());
  const transport = options.fetch ?? createWooFetch({ allowInternal, resolve });
  const rateLimiter: RateLimiter = createRateLimiter({ ratePerSecond: options.requestsPerSecond ?? 4 });
  const clients = new Map<string, HttpClient>();

  /** One client per store origin: the shared client only calls the origins it was made for. */
  const clientFor = (baseUrl: string): HttpClient => {
    const origin = new URL(baseUrl).origin;
    let client = clients.get(origin);
    if (!client) {
      client = createHttpClient({
        vendor: 'WooCommerce',
        allowedOrigins: [origin],
        fetch: transport,
        rateLimiter,
        ...options.http,
      });
      if (clients.size > 500) clients.clear();
      clients.set(origin, client);
    }
    return client;
  };

  interface Keys {
    readonly store: WooStore;
    readonly authorization: string;
  }

  const basic = (consumerKey: string, consumerSecret: string): string =>
    `Basic ${Buffer.from(`${consumerKey}:${consumerSecret}`, 'utf8').toString('base64')}`;

  /** The store and its keys from stored credentials, checked again (the address, and its DNS now). */
  const keysOf = async (credentials: ShopCredentials): Promise<Keys> => {
    const storeUrl =
      typeof credentials.settings.storeUrl === 'string'
        ? credentials.settings.storeUrl
        : `https://${credentials.externalShopId}`;
    const store = parseWooStoreUrl(storeUrl, { allowInternal });
    if (!credentials.accessToken || !credentials.refreshToken)
      throw new MarketplaceRejectedError(
        'The WooCommerce connection has no API keys; reconnect the shop',
        401,
      );
    await checkWooStoreHost(store.baseUrl, { allowInternal, resolve });
    return { store, authorization: basic(credentials.accessToken, credentials.refreshToken) };
  };

  const request = async (
    keys: Keys,
    input: {
      operation: string;
      method: HttpMethod;
      path: string;
      query?: Record<string, string | number | boolean>;
      json?: unknown;
      maxAttempts?: number;
    },
  ): Promise<HttpResponse> => {
    const url = new URL(`${keys.store.baseUrl}${API_PREFIX}${input.path}`);
    for (const [key, value] of Object.entries(input.query ?? {})) url.searchParams.set(key, String(value));
    try {
      return await clientFor(keys.store.baseUrl).request({
        method: input.method,
        url,
        operation: input.operation,
        headers: { authorization: keys.authorization },
        json: input.json,
        rateLimitKey: keys.store.externalShopId,
        ...(input.maxAttempts ? { maxAttempts: input.maxAttempts } : {}),
      });
    } catch (error) {
      // 401: the key was revoked or deleted, or lacks the permission (WooCommerce answers 401 for both).
      if (error instanceof MarketplaceRejectedError && error.status === 401)
        throw new MarketplaceRejectedError(
          'WooCommerce refused the API keys (revoked, deleted or not Read/Write); reconnect the shop',
          401,
        );
      throw error;
    }
  };

  const parse = <T>(schema: z.ZodType<T>, body: unknown, operation: string): T => {
    const result = schema.safeParse(body);
    if (!result.success)
      throw new MarketplaceRejectedError(`WooCommerce ${operation} returned an unexpected response`, 502);
    return result.data;
  };

  /**
   * Every page of a list: X-WP-TotalPages when the store sends it (core does), else until a short
   * page (the header is not in the contract file, and caching proxies drop it).
   */
  const pages = async <T>(
    keys: Keys,
    schema: z.ZodType<T[]>,
    input: { operation: string; path: string; query: Record<string, string | number | boolean> },
  ): Promise<T[]> => {
    const all: T[] = [];
    for (let page = 1; page <= MAX_PAGES; page += 1) {
      const response = await request(keys, {
        ...input,
        method: 'GET',
        query: { ...input.query, per_page: PAGE_SIZE, page },
      });
      const items = parse(schema, response.body, input.operation);
      all.push(...items);
      const totalPages = Number(response.headers.get('x-wp-totalpages'));
      if (Number.isInteger(totalPages) && totalPages > 0 ? page >= totalPages : items.length < PAGE_SIZE)
        break;
      if (items.length === 0) break;
    }
    return all;
  };

  const currencyOf = (credentials: ShopCredentials): string | null =>
    typeof credentials.settings.currency === 'string' ? credentials.settings.currency : null;

  const listListings = async (credentials: ShopCredentials): Promise<MarketplaceListing[]> => {
    const keys = await keysOf(credentials);
    const currency = currencyOf(credentials);
    const products = await pages(keys, wooProductsPage, {
      operation: 'listProducts',
      path: '/products',
      query: { status: 'publish' },
    });
    const listings: MarketplaceListing[] = [];
    for (const product of products) {
      if (!isVariableProduct(product)) {
        const listing = mapWooSimpleProduct(product, currency);
        if (listing) listings.push(listing);
        continue;
      }
      const variations = await pages(keys, wooVariationsPage, {
        operation: 'listVariations',
        path: `/products/${product.id}/variations`,
        query: { status: 'publish' },
      });
      listings.push(...variations.map((variation) => mapWooVariation(product, variation, currency)));
    }
    return listings;
  };

  /**
   * Orders modified since the cursor, ordered by id: unlike `modified` or `date` ordering, an order
   * changing while we page neither moves nor shifts the pages (it enters the window, at worst read
   * twice). Statuses are filtered here, not with `status=`, for the same reason: an order leaving a
   * status filter mid-poll would shift a page and hide another. An order that does not map (a bad
   * payload) is reported in `failed`, not thrown, so one bad order does not stall the shop.
   */
  const fetchOrders = async (
    credentials: ShopCredentials,
    cursor: string | null,
  ): Promise<{
    orders: MarketplaceOrder[];
    nextCursor: string;
    failed: { externalId: string; reason: string }[];
  }> => {
    const keys = await keysOf(credentials);
    const startedAt = now();
    const sinceMs = pollSinceMs(
      cursor,
      startedAt.getTime(),
      WOO_FIRST_SYNC_LOOKBACK_MS,
      WOO_CURSOR_OVERLAP_MS,
    );
    const raw = await pages(keys, wooOrdersPage, {
      operation: 'listOrders',
      path: '/orders',
      query: {
        modified_after: new Date(sinceMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        dates_are_gmt: true,
        orderby: 'id',
        order: 'asc',
      },
    });
    const byId = new Map<string, MarketplaceOrder>();
    const failed: { externalId: string; reason: string }[] = [];
    for (const payload of raw) {
      try {
        const order = parseWooOrder(payload);
        if (order) byId.set(order.externalId, order);
      } catch (error) {
        const id = (payload as { id?: unknown } | null)?.id;
        failed.push({
          externalId: String(id ?? '?'),
          reason: error instanceof Error ? error.message : String(error),
        });
      }
    }
    return { orders: [...byId.values()], nextCursor: startedAt.toISOString(), failed };
  };

  /** One order (a webhook's, or a check before shipping); null when the store does not know it or we do not take it in. */
  const fetchOrder = async (
    credentials: ShopCredentials,
    externalOrderId: string,
  ): Promise<MarketplaceOrder | null> => {
    const keys = await keysOf(credentials);
    const orderId = numericId(externalOrderId, 'order id');
    try {
      const response = await request(keys, {
        operation: 'getOrder',
        method: 'GET',
        path: `/orders/${orderId}`,
      });
      return parseWooOrder(response.body);
    } catch (error) {
      if (error instanceof MarketplaceRejectedError && error.status === 404) return null;
      throw error;
    }
  };

  /**
   * The tracking as a customer note ("Shipped with UPS: 1Z… <tracking page>"; the buyer gets it by
   * email), then status completed. Safe to retry: no second note when one already carries the
   * number; a cancelled or refunded order is refused, not completed.
   */
  const pushTracking = async (
    credentials: ShopCredentials,
    externalOrderId: string,
    tracking: TrackingUpdate,
  ): Promise<void> => {
    const keys = await keysOf(credentials);
    const orderId = numericId(externalOrderId, 'order id');
    const number = tracking.trackingNumber.trim();
    if (!number)
      throw new MarketplaceRejectedError(
        'A tracking number is required to mark a WooCommerce order shipped',
        400,
      );
    const order = parse(
      wooOrderStatus,
      (await request(keys, { operation: 'getOrder', method: 'GET', path: `/orders/${orderId}` })).body,
      'getOrder',
    );
    const status = (order.status ?? '').toLowerCase();
    if (CLOSED_STATUSES.has(status))
      throw new MarketplaceRejectedError(`The WooCommerce order is ${status}; it takes no tracking`, 409);
    const notes = parse(
      wooOrderNotes,
      (
        await request(keys, {
          operation: 'listOrderNotes',
          method: 'GET',
          path: `/orders/${orderId}/notes`,
          query: { type: 'customer' },
        })
      ).body,
      'listOrderNotes',
    );
    if (!notes.some((note) => (note.note ?? '').includes(number))) {
      await request(keys, {
        operation: 'createOrderNote',
        method: 'POST',
        path: `/orders/${orderId}/notes`,
        json: { note: wooTrackingNote(tracking), customer_note: true },
      });
    }
    if (status !== 'completed') {
      await request(keys, {
        operation: 'updateOrder',
        method: 'PUT',
        path: `/orders/${orderId}`,
        json: { status: 'completed' },
      });
    }
  };

  const ourWebhooks = async (keys: Keys) =>
    (
      await pages(keys, wooWebhooks, {
        operation: 'listWebhooks',
        path: '/webhooks',
        query: { status: 'all' },
      })
    ).filter((hook) => {
      try {
        return new URL(hook.delivery_url ?? '').pathname.replace(/\/+$/, '') === WEBHOOK_PATH;
      } catch {
        return false;
      }
    });

  /**
   * order.created and order.updated to `callbackUrl`, signed with the shop's derived secret.
   * A webhook we made before (same topic and URL) is updated instead of duplicated: active again
   * (WooCommerce disables one after repeated failed deliveries) and with the current secret.
   */
  const subscribeWebhooks = async (credentials: ShopCredentials, callbackUrl: string): Promise<void> => {
    const keys = await keysOf(credentials);
    if (!allowInternal && !/^https:\/\//.test(callbackUrl))
      throw new MarketplaceRejectedError('WooCommerce webhooks need an https address (PUBLIC_URL)', 400);
    const secret = wooWebhookSecret(options.appSecret, keys.store.externalShopId);
    const existing = await ourWebhooks(keys);
    for (const topic of WOO_WEBHOOK_TOPICS) {
      const body = {
        name: `${appName} ${topic}`,
        status: 'active',
        topic,
        delivery_url: callbackUrl,
        secret,
      };
      const same = existing.find((hook) => hook.topic === topic && hook.delivery_url === callbackUrl);
      const response = same
        ? await request(keys, {
            operation: 'updateWebhook',
            method: 'PUT',
            path: `/webhooks/${same.id}`,
            json: body,
          })
        : await request(keys, { operation: 'createWebhook', method: 'POST', path: '/webhooks', json: body });
      parse(wooWebhook, response.body, same ? 'updateWebhook' : 'createWebhook');
    }
  };

  /**
   * WooCommerce has no API to revoke a REST key (the seller deletes it under WooCommerce → Settings
   * → Advanced → REST API). We delete the webhooks we created, once each and best effort: the shop
   * is disconnected whatever the store answers.
   */
  const revoke = async (credentials: ShopCredentials): Promise<void> => {
    const keys = await keysOf(credentials);
    const hooks = await ourWebhooks(keys);
    const failures: string[] = [];
    for (const hook of hooks) {
      try {
        await request(keys, {
          operation: 'deleteWebhook',
          method: 'DELETE',
          path: `/webhooks/${hook.id}`,
          query: { force: true },
          maxAttempts: 1,
        });
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error));
      }
    }
    if (failures.length > 0)
      throw new MarketplaceRejectedError(`Some WooCommerce webhooks were not deleted (${failures[0]})`, 502);
  };

  /**
   * Checks the pasted (or delivered) keys with one authenticated read, GET /data/currencies/current,
   * which also gives the currency of the store's prices for the listings.
   */
  const connectWithCredentials = async (
    values: Readonly<Record<string, string>>,
  ): Promise<ConnectionGrant> => {
    const store = parseWooStoreUrl(values.storeUrl ?? '', { allowInternal });
    const consumerKey = (values.consumerKey ?? '').trim();
    const consumerSecret = (values.consumerSecret ?? '').trim();
    if (!/^ck_[A-Za-z0-9]+$/.test(consumerKey))
      throw new MarketplaceRejectedError(
        'The consumer key starts with ck_ (WooCommerce → Settings → Advanced → REST API)',
        400,
      );
    if (!/^cs_[A-Za-z0-9]+$/.test(consumerSecret))
      throw new MarketplaceRejectedError('The consumer secret starts with cs_', 400);
    await checkWooStoreHost(store.baseUrl, { allowInternal, resolve });
    const keys: Keys = { store, authorization: basic(consumerKey, consumerSecret) };
    let currency: string | null;
    try {
      const response = await request(keys, {
        operation: 'getCurrentCurrency',
        method: 'GET',
        path: '/data/currencies/current',
        maxAttempts: 2,
      });
      const code = parse(wooCurrentCurrency, response.body, 'getCurrentCurrency').code.trim().toUpperCase();
      currency = /^[A-Z]{3}$/.test(code) ? code : null;
    } catch (error) {
      if (error instanceof MarketplaceRejectedError && error.status === 401)
        throw new MarketplaceRejectedError(
          'WooCommerce refused these keys: check the consumer key and secret (Read/Write)',
          401,
        );
      if (error instanceof MarketplaceRejectedError && error.status === 404)
        throw new MarketplaceRejectedError(
          'No WooCommerce REST API at this address: check the address, that WooCommerce is active and that permalinks are not "Plain"',
          404,
        );
      if (error instanceof MarketplaceRejectedError && error.status >= 300 && error.status < 400)
        throw new MarketplaceRejectedError(
          'The store redirected: enter its address exactly as WordPress shows it (Settings → General → Site Address)',
          error.status,
        );
      throw error;
    }
    return {
      externalShopId: store.externalShopId,
      shopName: store.externalShopId,
      tokens: { accessToken: consumerKey, refreshToken: consumerSecret, tokenExpiresAt: null },
      scopes: 'read_write',
      settings: { storeUrl: store.baseUrl, currency },
    };
  };

  /**
   * The one-click way: the seller approves our app on the store and WooCommerce POSTs the keys to
   * `keyDeliveryUri` (parseWooKeyDelivery, then connectWithCredentials), then sends the seller back
   * to `redirectUri`. No code to exchange: completeAuthorization is never the way in.
   */
  const authorizeUrl: OAuthConnector['authorizeUrl'] = ({ state, redirectUri, shopHost, keyDeliveryUri }) => {
    if (!shopHost)
      throw new MarketplaceRejectedError('Enter your store address, like https://shop.example.com', 400);
    if (!keyDeliveryUri)
      throw new MarketplaceRejectedError('WooCommerce needs an address to deliver the keys to', 400);
    return wooAuthorizeUrl({
      storeUrl: shopHost,
      appName,
      state,
      returnUrl: redirectUri,
      callbackUrl: keyDeliveryUri,
    });
  };

  const completeAuthorization: OAuthConnector['completeAuthorization'] = () =>
    Promise.reject(
      new MarketplaceRejectedError(
        'WooCommerce delivers API keys to the key delivery address; there is no code to exchange',
        400,
      ),
    );

  return {
    platform: 'woocommerce',
    deliversKeys: true,
    authorizeUrl,
    completeAuthorization,
    connectFields: WOO_CONNECT_FIELDS,
    connectWithCredentials,
    listListings,
    fetchOrders,
    fetchOrder,
    pushTracking,
    subscribeWebhooks,
    revoke,
  };
};
