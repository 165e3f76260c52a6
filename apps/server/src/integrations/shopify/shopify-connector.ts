import type { z } from 'zod';
import {
  MarketplaceRejectedError,
  MarketplaceUnavailableError,
  type MarketplaceListing,
  type MarketplaceOrder,
  type OAuthConnector,
  type ShopConnector,
  type ShopCredentials,
  type TrackingUpdate,
  pollSinceMs,
} from '../../modules/shops/connector.ts';
import { createHttpClient, type HttpClientOptions } from '../http-client/http-client.ts';
import { createRateLimiter } from '../http-client/rate-limiter.ts';
import {
  CARRIER_SERVICE_CREATE_MUTATION,
  CARRIER_SERVICE_DELETE_MUTATION,
  FULFILLMENT_CREATE_MUTATION,
  FULFILLMENT_ORDERS_QUERY,
  ORDERS_QUERY,
  PRODUCT_VARIANTS_QUERY,
  SHOP_QUERY,
  SHOPIFY_WEBHOOK_TOPICS,
  WEBHOOK_SUBSCRIPTION_CREATE_MUTATION,
} from './shopify-graphql.ts';
import {
  mapShopifyOrderNode,
  mapShopifyVariant,
  shopifyCarrierServiceCreateResponse,
  shopifyCarrierServiceDeleteResponse,
  shopifyFulfillmentCreateResponse,
  shopifyFulfillmentOrdersResponse,
  shopifyOrderGid,
  shopifyOrdersResponse,
  shopifyShopResponse,
  shopifyTokenResponse,
  shopifyVariantsResponse,
  shopifyWebhookSubscriptionCreateResponse,
} from './shopify-mapping.ts';
import { checkShopifyCallback, isShopifyShopHost } from './shopify-signatures.ts';

/**
 * Shopify Admin GraphQL API (contract: /work/shared/contracts/shopify/admin_schema_2026-01_public.graphql).
 * OAuth authorization code grant (no PKCE; the callback's HMAC and shop host are checked); orders by
 * webhook (verifyShopifyWebhook + parseShopifyOrderWebhook) plus this reconciliation poll.
 */

export const SHOPIFY_CURSOR_OVERLAP_MS = 10 * 60 * 1000;
export const SHOPIFY_FIRST_SYNC_LOOKBACK_MS = 30 * 24 * 60 * 60 * 1000;
const MAX_PAGES = 200;
/** Fulfillment order statuses that can still be fulfilled. */
const FULFILLABLE = new Set(['OPEN', 'IN_PROGRESS']);
const THROTTLE_RETRIES = 3;

export interface ShopifyConnectorOptions {
  readonly apiKey: string;
  readonly apiSecret: string;
  /** Comma-separated, e.g. 'read_products,read_orders,read_merchant_managed_fulfillment_orders,write_merchant_managed_fulfillment_orders'. */
  readonly scopes: string;
  readonly apiVersion: '2026-01';
  readonly fetch?: typeof fetch;
  readonly now?: () => Date;
  /**
   * Tests only: where a shop host's API lives (default `https://${shopHost}`), and the origins the
   * client may call (default https://*.myshopify.com). The shop host checks are unchanged.
   */
  readonly shopOrigin?: (shopHost: string) => string;
  readonly allowedOrigins?: readonly string[];
  /** ≤ this many requests per second per shop (default 2, Shopify's standard REST rate). */
  readonly requestsPerSecond?: number;
  readonly http?: Pick<
    HttpClientOptions,
    'timeoutMs' | 'maxAttempts' | 'baseDelayMs' | 'maxDelayMs' | 'maxRetryAfterSeconds' | 'sleep' | 'random'
  >;
}

export type ShopifyConnector = ShopConnector & OAuthConnector & { readonly platform: 'shopify' };

interface GraphqlError {
  message?: string;
  extensions?: {
    code?: string;
    cost?: {
      requestedQueryCost?: number;
      throttleStatus?: { currentlyAvailable?: number; restoreRate?: number };
    };
  };
}

/** CARRIER names as Shopify knows them (its supported tracking companies); others pass through. */
const SHOPIFY_CARRIERS: Readonly<Record<string, string>> = {
  usps: 'USPS',
  ups: 'UPS',
  fedex: 'FedEx',
  dhl: 'DHL Express',
  'dhl express': 'DHL Express',
  canada_post: 'Canada Post',
  'canada post': 'Canada Post',
  royal_mail: 'Royal Mail',
  'royal mail': 'Royal Mail',
  dpd: 'DPD',
  australia_post: 'Australia Post',
};

export const shopifyCarrierName = (carrier: string): string => {
  const key = carrier.trim().toLowerCase();
  return SHOPIFY_CARRIERS[key] ?? carrier.trim();
};

export const createShopifyConnector = (options: ShopifyConnectorOptions): ShopifyConnector => {
  const now = options.now ?? (() => new Date());
  const shopOrigin = options.shopOrigin ?? ((host: string) => `https://${host}`);
  const sleep =
    options.http?.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const http = createHttpClient({
    vendor: 'Shopify',
    allowedOrigins: options.allowedOrigins ?? ['https://*.myshopify.com'],
    fetch: options.fetch,
    rateLimiter: createRateLimiter({ ratePerSecond: options.requestsPerSecond ?? 2 }),
    ...options.http,
  });

  const shopHostOf = (credentials: ShopCredentials): string => {
    const host = credentials.settings.shopHost ?? credentials.externalShopId;
    if (!isShopifyShopHost(host))
      throw new MarketplaceRejectedError('The Shopify connection has no valid shop domain', 400);
    return host.toLowerCase();
  };

  const graphql = async <T>(
    schema: z.ZodType<T>,
    input: {
      shopHost: string;
      accessToken: string | null;
      query: string;
      variables?: Record<string, unknown>;
      operation: string;
    },
  ): Promise<T> => {
    if (!input.accessToken)
      throw new MarketplaceRejectedError(
        'The Shopify connection has no access token; reconnect the store',
        401,
      );
    const url = `${shopOrigin(input.shopHost)}/admin/api/${options.apiVersion}/graphql.json`;
    for (let attempt = 0; ; attempt += 1) {
      const response = await http.request({
        method: 'POST',
        url,
        operation: input.operation,
        headers: { 'x-shopify-access-token': input.accessToken },
        json: { query: input.query, variables: input.variables ?? {} },
        rateLimitKey: input.shopHost,
      });
      const body = (response.body ?? {}) as { data?: unknown; errors?: GraphqlError[] };
      const errors = Array.isArray(body.errors) ? body.errors : [];
      const throttled = errors.find((e) => e.extensions?.code === 'THROTTLED');
      if (throttled) {
        // GraphQL cost limit: 200 with errors[THROTTLED]; wait until enough points have restored.
        const cost = throttled.extensions?.cost;
        const missing = (cost?.requestedQueryCost ?? 100) - (cost?.throttleStatus?.currentlyAvailable ?? 0);
        const seconds = Math.min(
          30,
          Math.max(1, Math.ceil(missing / (cost?.throttleStatus?.restoreRate ?? 50))),
        );
        if (attempt >= THROTTLE_RETRIES)
          throw new MarketplaceUnavailableError(`Shopify ${input.operation} throttled`, seconds);
        await sleep(seconds * 1000);
        continue;
      }
      if (errors.length > 0) {
        const denied = errors.some((e) => e.extensions?.code === 'ACCESS_DENIED');
        const message = errors
          .map((e) => e.message ?? 'error')
          .join('; ')
          .slice(0, 300);
        throw new MarketplaceRejectedError(
          `Shopify ${input.operation} failed: ${message}`,
          denied ? 403 : 422,
        );
      }
      const parsed = schema.safeParse(body.data);
      if (!parsed.success)
        throw new MarketplaceRejectedError(`Shopify ${input.operation} returned an unexpected response`, 502);
      return parsed.data;
    }
  };

  const shopCurrency = async (
    shopHost: string,
    accessToken: string | null,
    settings: ShopCredentials['settings'],
  ): Promise<string> => {
    if (typeof settings.currency === 'string' && /^[A-Z]{3}$/.test(settings.currency))
      return settings.currency;
    const { shop } = await graphql(shopifyShopResponse, {
      shopHost,
      accessToken,
      query: SHOP_QUERY,
      operation: 'shop',
    });
    return shop.currencyCode;
  };

  const listListings = async (credentials: ShopCredentials): Promise<MarketplaceListing[]> => {
    const shopHost = shopHostOf(credentials);
    const currency = await shopCurrency(shopHost, credentials.accessToken, credentials.settings);
    const listings: MarketplaceListing[] = [];
    let after: string | null = null;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const data: z.infer<typeof shopifyVariantsResponse> = await graphql(shopifyVariantsResponse, {
        shopHost,
        accessToken: credentials.accessToken,
        query: PRODUCT_VARIANTS_QUERY,
        variables: { after },
        operation: 'productVariants',
      });
      for (const variant of data.productVariants.nodes) {
        if (variant.product.status === 'ACTIVE') listings.push(mapShopifyVariant(variant, currency));
      }
      if (!data.productVariants.pageInfo.hasNextPage || !data.productVariants.pageInfo.endCursor) break;
      after = data.productVariants.pageInfo.endCursor;
    }
    return listings;
  };

  const fetchOrders = async (
    credentials: ShopCredentials,
    cursor: string | null,
  ): Promise<{ orders: MarketplaceOrder[]; nextCursor: string }> => {
    const shopHost = shopHostOf(credentials);
    const startedAt = now();
    const sinceMs = pollSinceMs(cursor, startedAt.getTime(), SHOPIFY_FIRST_SYNC_LOOKBACK_MS, SHOPIFY_CURSOR_OVERLAP_MS);
    const query = `updated_at:>='${new Date(sinceMs).toISOString()}'`;
    const byId = new Map<string, MarketplaceOrder>();
    let after: string | null = null;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const data: z.infer<typeof shopifyOrdersResponse> = await graphql(shopifyOrdersResponse, {
        shopHost,
        accessToken: credentials.accessToken,
        query: ORDERS_QUERY,
        variables: { query, after },
        operation: 'orders',
      });
      for (const node of data.orders.nodes) {
        const order = mapShopifyOrderNode(node);
        if (order.items.length > 0) byId.set(order.externalId, order);
      }
      if (!data.orders.pageInfo.hasNextPage || !data.orders.pageInfo.endCursor) break;
      after = data.orders.pageInfo.endCursor;
    }
    return { orders: [...byId.values()], nextCursor: startedAt.toISOString() };
  };

  const pushTracking = async (
    credentials: ShopCredentials,
    externalOrderId: string,
    tracking: TrackingUpdate,
  ): Promise<void> => {
    const shopHost = shopHostOf(credentials);
    const orderGid = shopifyOrderGid(externalOrderId);
    const number = tracking.trackingNumber.trim();
    if (!number)
      throw new MarketplaceRejectedError(
        'A tracking number is required to mark a Shopify order fulfilled',
        400,
      );
    const { order } = await graphql(shopifyFulfillmentOrdersResponse, {
      shopHost,
      accessToken: credentials.accessToken,
      query: FULFILLMENT_ORDERS_QUERY,
      variables: { id: orderGid },
      operation: 'fulfillmentOrders',
    });
    if (!order) throw new MarketplaceRejectedError('Shopify does not know this order', 404);
    const open = order.fulfillmentOrders.nodes.filter((fo) => FULFILLABLE.has(fo.status));
    if (open.length === 0) {
      // Already fulfilled (e.g. a retried job whose first attempt succeeded): nothing left to do.
      if (order.fulfillmentOrders.nodes.some((fo) => fo.status === 'CLOSED')) return;
      throw new MarketplaceRejectedError(
        'The Shopify order has nothing left to fulfil (cancelled or on hold)',
        409,
      );
    }
    const result = await graphql(shopifyFulfillmentCreateResponse, {
      shopHost,
      accessToken: credentials.accessToken,
      query: FULFILLMENT_CREATE_MUTATION,
      variables: {
        fulfillment: {
          lineItemsByFulfillmentOrder: open.map((fo) => ({ fulfillmentOrderId: fo.id })),
          trackingInfo: { number, company: shopifyCarrierName(tracking.carrierName || 'usps') },
          notifyCustomer: true,
        },
      },
      operation: 'fulfillmentCreate',
    });
    const errors = result.fulfillmentCreate?.userErrors ?? [];
    if (errors.length > 0 || !result.fulfillmentCreate?.fulfillment) {
      throw new MarketplaceRejectedError(
        `Shopify refused the fulfilment: ${errors.map((e) => e.message).join('; ') || 'no fulfilment created'}`,
        422,
      );
    }
  };

  /**
   * Subscribes orders/create, orders/updated, orders/cancelled and app/uninstalled to the callback
   * URL (https only). A topic already subscribed to that address ("has already been taken") is fine;
   * any other userError is a MarketplaceRejectedError naming the topics that failed.
   */
  const subscribeWebhooks = async (credentials: ShopCredentials, callbackUrl: string): Promise<void> => {
    const shopHost = shopHostOf(credentials);
    if (!/^https:\/\//.test(callbackUrl))
      throw new MarketplaceRejectedError('Shopify webhooks need an https address (PUBLIC_URL)', 400);
    const failed: string[] = [];
    for (const topic of SHOPIFY_WEBHOOK_TOPICS) {
      const result = await graphql(shopifyWebhookSubscriptionCreateResponse, {
        shopHost,
        accessToken: credentials.accessToken,
        query: WEBHOOK_SUBSCRIPTION_CREATE_MUTATION,
        variables: { topic, uri: callbackUrl },
        operation: 'webhookSubscriptionCreate',
      });
      const errors = (result.webhookSubscriptionCreate?.userErrors ?? []).filter(
        (e) => !/already (been )?taken/i.test(e.message),
      );
      if (errors.length > 0) failed.push(`${topic}: ${errors.map((e) => e.message).join('; ')}`);
    }
    if (failed.length > 0)
      throw new MarketplaceRejectedError(
        `Shopify refused the webhook subscriptions (${failed.join(' | ').slice(0, 300)})`,
        422,
      );
  };

  /** carrierServiceCreate (needs write_shipping, and a plan with carrier-calculated shipping). */
  const registerCarrierService = async (credentials: ShopCredentials, service: { name: string; callbackUrl: string }): Promise<string> => {
    if (!/^https:\/\//.test(service.callbackUrl))
      throw new MarketplaceRejectedError('Shopify calls checkout rates only at an https address (PUBLIC_URL)', 400);
    const result = await graphql(shopifyCarrierServiceCreateResponse, {
      shopHost: shopHostOf(credentials),
      accessToken: credentials.accessToken,
      query: CARRIER_SERVICE_CREATE_MUTATION,
      variables: { input: { name: service.name, callbackUrl: service.callbackUrl, active: true, supportsServiceDiscovery: true } },
      operation: 'carrierServiceCreate',
    });
    const created = result.carrierServiceCreate?.carrierService;
    const errors = result.carrierServiceCreate?.userErrors ?? [];
    if (!created || errors.length > 0)
      throw new MarketplaceRejectedError(
        `Shopify refused the carrier service (${errors.map((e) => e.message).join('; ').slice(0, 300) || 'no carrier service returned'})`,
        422,
      );
    return created.id;
  };

  const removeCarrierService = async (credentials: ShopCredentials, carrierServiceId: string): Promise<void> => {
    const result = await graphql(shopifyCarrierServiceDeleteResponse, {
      shopHost: shopHostOf(credentials),
      accessToken: credentials.accessToken,
      query: CARRIER_SERVICE_DELETE_MUTATION,
      variables: { id: carrierServiceId },
      operation: 'carrierServiceDelete',
    });
    // Deleted already (by the merchant, or an earlier attempt): nothing left to remove.
    const errors = (result.carrierServiceDelete?.userErrors ?? []).filter((e) => !/not (be )?found|does not exist/i.test(e.message));
    if (errors.length > 0)
      throw new MarketplaceRejectedError(`Shopify refused to remove the carrier service (${errors.map((e) => e.message).join('; ').slice(0, 300)})`, 422);
  };

  const authorizeUrl: OAuthConnector['authorizeUrl'] = ({ state, redirectUri, shopHost }) => {
    if (!isShopifyShopHost(shopHost)) {
      throw new MarketplaceRejectedError('Enter your store address as your-store.myshopify.com', 400);
    }
    const url = new URL(`https://${shopHost.toLowerCase()}/admin/oauth/authorize`);
    url.search = new URLSearchParams({
      client_id: options.apiKey,
      scope: options.scopes,
      redirect_uri: redirectUri,
      state,
    }).toString();
    return url.toString();
  };

  const completeAuthorization: OAuthConnector['completeAuthorization'] = async ({ query, shopHost }) => {
    // Every check happens before any request leaves (OAUTH-1).
    const { shop, code } = checkShopifyCallback(query, options.apiSecret, shopHost);
    const response = await http.request({
      method: 'POST',
      url: `${shopOrigin(shop)}/admin/oauth/access_token`,
      operation: 'accessToken',
      json: { client_id: options.apiKey, client_secret: options.apiSecret, code },
      rateLimitKey: shop,
    });
    const token = shopifyTokenResponse.safeParse(response.body);
    if (!token.success)
      throw new MarketplaceRejectedError('Shopify returned an unexpected access token response', 502);
    const { shop: info } = await graphql(shopifyShopResponse, {
      shopHost: shop,
      accessToken: token.data.access_token,
      query: SHOP_QUERY,
      operation: 'shop',
    });
    return {
      externalShopId: shop,
      shopName: info.name,
      tokens: { accessToken: token.data.access_token, refreshToken: null, tokenExpiresAt: null },
      scopes: token.data.scope ?? options.scopes,
      settings: { shopHost: shop, shopGid: info.id, currency: info.currencyCode },
    };
  };

  return {
    platform: 'shopify',
    listListings,
    fetchOrders,
    pushTracking,
    subscribeWebhooks,
    registerCarrierService,
    removeCarrierService,
    authorizeUrl,
    completeAuthorization,
  };
};

export { verifyShopifyWebhook, ShopifyCallbackError } from './shopify-signatures.ts';
export { parseShopifyOrderWebhook } from './shopify-mapping.ts';
export { createShopifyWebhookReceiver } from './shopify-webhook-receiver.ts';
