import { z } from 'zod';
import {
  MalformedOrderError,
  MarketplaceRejectedError,
  pollSinceMs,
  type MarketplaceListing,
  type MarketplaceOrder,
  type OAuthConnector,
  type RefreshedTokens,
  type ShopConnector,
  type ShopCredentials,
  type TrackingUpdate,
} from '../../modules/shops/connector.ts';
import { createTikTokClient, TikTokApiError, type TikTokClientOptions } from './tiktok-client.ts';
import {
  isTikTokOrderPending,
  mapTikTokOrder,
  parseTikTokOrder,
  tiktokAuthorizedShops,
  tiktokOrdersPage,
  tiktokProductsPage,
  tiktokShippingProviders,
  mapTikTokProduct,
} from './tiktok-mapping.ts';

/**
 * TikTok Shop Partner API (docs/marketplaces/tiktok.md; field lists in
 * /work/shared/contracts/tiktok-shop/). Seller authorisation through services.tiktokshop.com, the
 * shop's cipher from Get Authorized Shops, orders polled by update time and fetched by id when the
 * ORDER_STATUS_CHANGE webhook names one, tracking uploaded per package.
 */

/** How far each poll reaches back before the previous cursor (orders changed while we paged). */
export const TIKTOK_CURSOR_OVERLAP_MS = 10 * 60 * 1000;
/** The first sync reads this far back. */
export const TIKTOK_FIRST_SYNC_LOOKBACK_MS = 30 * 24 * 60 * 60 * 1000;
/** Get Order Detail takes at most 50 ids (its `ids` field: "Max count: 50"). */
export const TIKTOK_ORDER_DETAIL_MAX_IDS = 50;
const PAGE_SIZE = 100; // both searches: "Valid range: [1-100]"
const MAX_PAGES = 500;
const PROVIDER_CACHE_MS = 6 * 60 * 60 * 1000;
/** Ship answers meaning the package already carries a shipment: pushing again changes nothing. */
const ALREADY_SHIPPED = new Set([11006021, 21008099, 21011006, 21011020, 21011040, 21042056]);

export interface TikTokConnectorOptions extends TikTokClientOptions {
  /** The app's service id (Partner Center), for the authorisation link. */
  readonly serviceId: string;
  /**
   * Default https://services.tiktokshop.com/open/authorize (rest of the world); US apps use
   * https://services.tiktokshops.us/open/authorize. Never fetched: the seller's browser goes there.
   */
  readonly authorizeEndpoint?: string;
}

export type TikTokConnector = ShopConnector &
  OAuthConnector & {
    readonly platform: 'tiktok';
    fetchOrder(credentials: ShopCredentials, externalOrderId: string): Promise<MarketplaceOrder | null>;
    subscribeWebhooks(credentials: ShopCredentials, callbackUrl: string): Promise<void>;
  };

const shopCipherOf = (credentials: ShopCredentials): string => {
  const cipher = credentials.settings.shopCipher;
  if (typeof cipher !== 'string' || cipher === '')
    throw new MarketplaceRejectedError(
      'The TikTok Shop connection has no shop cipher; reconnect the shop',
      401,
    );
  return cipher;
};

const tiktokId = (value: string, what: string): string => {
  if (!/^\d{1,30}$/.test(value))
    throw new MarketplaceRejectedError(`TikTok Shop ${what} must be a number`, 400);
  return value;
};

/** Carrier names compared without case, spaces or punctuation ("FedEx" = "fedex"). */
const normalise = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

export const createTikTokConnector = (options: TikTokConnectorOptions): TikTokConnector => {
  const client = createTikTokClient(options);
  const now = options.now ?? (() => new Date());
  const authorizeEndpoint = options.authorizeEndpoint ?? 'https://services.tiktokshop.com/open/authorize';
  const providerCache = new Map<string, { at: number; providers: { id: string; name: string }[] }>();

  const scoped = (credentials: ShopCredentials) => ({
    accessToken: credentials.accessToken,
    shopCipher: shopCipherOf(credentials),
    rateLimitKey: credentials.externalShopId,
  });

  const listListings = async (credentials: ShopCredentials): Promise<MarketplaceListing[]> => {
    const listings: MarketplaceListing[] = [];
    let pageToken = '';
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const result = await client.call(tiktokProductsPage, {
        operation: 'searchProducts',
        method: 'POST',
        path: '/product/202502/products/search',
        query: { page_size: PAGE_SIZE, ...(pageToken ? { page_token: pageToken } : {}) },
        body: { status: 'ACTIVATE' },
        ...scoped(credentials),
      });
      for (const product of result.products ?? []) listings.push(...mapTikTokProduct(product));
      pageToken = result.next_page_token ?? '';
      if (!pageToken || (result.products ?? []).length === 0) break;
    }
    return listings;
  };

  /** Readable orders only: a pending one is left for a later poll, a broken one reported and skipped. */
  const takeOrders = (
    raw: readonly unknown[],
    into: Map<string, MarketplaceOrder>,
    failed: { externalId: string; reason: string }[],
  ): void => {
    for (const payload of raw) {
      if (isTikTokOrderPending(payload)) continue;
      try {
        const order = mapTikTokOrder(payload);
        into.set(order.externalId, order);
      } catch (error) {
        if (!(error instanceof MalformedOrderError)) throw error;
        const id = (payload as { id?: unknown } | null)?.id;
        failed.push({ externalId: typeof id === 'string' ? id : '', reason: error.message });
      }
    }
  };

  /**
   * Get Order List already returns whole orders (the same field list as Get Order Detail), so a
   * poll is one request per 100 orders; Get Order Detail serves fetchOrder and pushTracking.
   */
  const fetchOrders = async (
    credentials: ShopCredentials,
    cursor: string | null,
  ): Promise<{
    orders: MarketplaceOrder[];
    nextCursor: string;
    failed: { externalId: string; reason: string }[];
  }> => {
    // Taken before the first request: anything changed while we page is caught by the next poll.
    const startedAt = now();
    const sinceMs = pollSinceMs(
      cursor,
      startedAt.getTime(),
      TIKTOK_FIRST_SYNC_LOOKBACK_MS,
      TIKTOK_CURSOR_OVERLAP_MS,
    );
    const byId = new Map<string, MarketplaceOrder>();
    const failed: { externalId: string; reason: string }[] = [];
    let pageToken = '';
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const result = await client.call(tiktokOrdersPage, {
        operation: 'searchOrders',
        method: 'POST',
        path: '/order/202309/orders/search',
        query: {
          page_size: PAGE_SIZE,
          sort_field: 'update_time',
          sort_order: 'ASC',
          ...(pageToken ? { page_token: pageToken } : {}),
        },
        body: { update_time_ge: Math.max(0, Math.floor(sinceMs / 1000)) },
        ...scoped(credentials),
      });
      takeOrders(result.orders ?? [], byId, failed);
      pageToken = result.next_page_token ?? '';
      if (!pageToken || (result.orders ?? []).length === 0) break;
    }
    return { orders: [...byId.values()], nextCursor: startedAt.toISOString(), failed };
  };

  /** Raw orders by id (Get Order Detail 202507), in batches of TikTok's maximum. */
  const orderDetails = async (credentials: ShopCredentials, ids: readonly string[]): Promise<unknown[]> => {
    const orders: unknown[] = [];
    for (let start = 0; start < ids.length; start += TIKTOK_ORDER_DETAIL_MAX_IDS) {
      const batch = ids.slice(start, start + TIKTOK_ORDER_DETAIL_MAX_IDS);
      const result = await client.call(tiktokOrdersPage, {
        operation: 'getOrderDetail',
        method: 'GET',
        path: '/order/202507/orders',
        query: { ids: batch.join(',') },
        ...scoped(credentials),
      });
      orders.push(...(result.orders ?? []));
    }
    return orders;
  };

  const rawOrder = async (credentials: ShopCredentials, externalOrderId: string): Promise<unknown> => {
    const id = tiktokId(externalOrderId, 'order id');
    const orders = await orderDetails(credentials, [id]);
    return orders.find((order) => (order as { id?: unknown } | null)?.id === id) ?? null;
  };

  /** Null for an order TikTok does not know, and for one not to be made yet (UNPAID, ON_HOLD). */
  const fetchOrder = async (
    credentials: ShopCredentials,
    externalOrderId: string,
  ): Promise<MarketplaceOrder | null> => {
    const payload = await rawOrder(credentials, externalOrderId);
    if (payload === null || isTikTokOrderPending(payload)) return null;
    return mapTikTokOrder(payload);
  };

  const shippingProviders = async (
    credentials: ShopCredentials,
    deliveryOptionId: string,
  ): Promise<{ id: string; name: string }[]> => {
    const key = `${credentials.externalShopId}:${deliveryOptionId}`;
    const cached = providerCache.get(key);
    if (cached && now().getTime() - cached.at < PROVIDER_CACHE_MS) return cached.providers;
    const result = await client.call(tiktokShippingProviders, {
      operation: 'getShippingProviders',
      method: 'GET',
      path: `/logistics/202309/delivery_options/${tiktokId(deliveryOptionId, 'delivery option id')}/shipping_providers`,
      ...scoped(credentials),
    });
    const providers = (result.shipping_providers ?? []).map((p) => ({ id: p.id, name: p.name ?? '' }));
    providerCache.set(key, { at: now().getTime(), providers });
    return providers;
  };

  /** Our carrier name → TikTok's provider: the same name, else the one provider whose name starts with it. */
  const matchProvider = (providers: { id: string; name: string }[], carrierName: string) => {
    const wanted = normalise(carrierName);
    if (!wanted) return null;
    const exact = providers.find((p) => normalise(p.name) === wanted);
    if (exact) return exact;
    const prefixed = providers.filter((p) => normalise(p.name).startsWith(wanted));
    return prefixed.length === 1 ? prefixed[0] : null;
  };

  const pushTracking = async (
    credentials: ShopCredentials,
    externalOrderId: string,
    tracking: TrackingUpdate,
  ): Promise<void> => {
    const trackingNumber = tracking.trackingNumber.trim();
    if (!trackingNumber)
      throw new MarketplaceRejectedError(
        'A tracking number is required to mark a TikTok Shop order shipped',
        400,
      );
    const payload = await rawOrder(credentials, externalOrderId);
    if (payload === null)
      throw new MarketplaceRejectedError(`TikTok Shop does not know order ${externalOrderId}`, 404);
    const order = parseTikTokOrder(payload);
    if (!order.delivery_option_id)
      throw new MarketplaceRejectedError(
        `TikTok Shop order ${order.id} has no delivery option to ship with`,
        422,
      );
    const providers = await shippingProviders(credentials, order.delivery_option_id);
    const provider = matchProvider(providers, tracking.carrierName);
    if (!provider) {
      const names =
        providers
          .map((p) => p.name)
          .filter(Boolean)
          .join(', ') || 'none';
      throw new MarketplaceRejectedError(
        `TikTok Shop has no shipping provider matching "${tracking.carrierName}" for order ${order.id} (available: ${names})`,
        422,
      );
    }

    const ship = async (run: () => Promise<unknown>): Promise<void> => {
      try {
        await run();
      } catch (error) {
        if (!(error instanceof TikTokApiError && ALREADY_SHIPPED.has(error.code))) throw error;
      }
    };
    const packageIds = [...new Set((order.packages ?? []).map((p) => p.id ?? '').filter(Boolean))];
    if (packageIds.length === 0) {
      // No package yet (US/UK local sellers before shipping): Mark Package As Shipped creates it.
      await ship(() =>
        client.call(z.unknown(), {
          operation: 'markPackageAsShipped',
          method: 'POST',
          path: `/fulfillment/202309/orders/${order.id}/packages`,
          body: { tracking_number: trackingNumber, shipping_provider_id: provider.id },
          ...scoped(credentials),
        }),
      );
      return;
    }
    for (const packageId of packageIds) {
      await ship(() =>
        client.call(z.unknown(), {
          operation: 'shipPackage',
          method: 'POST',
          path: `/fulfillment/202309/packages/${tiktokId(packageId, 'package id')}/ship`,
          body: { self_shipment: { tracking_number: trackingNumber, shipping_provider_id: provider.id } },
          ...scoped(credentials),
        }),
      );
    }
  };

  const refreshTokens = async (credentials: ShopCredentials): Promise<RefreshedTokens> => {
    if (!credentials.refreshToken)
      throw new MarketplaceRejectedError(
        'The TikTok Shop connection has no refresh token; reconnect the shop',
        401,
      );
    return client.refresh(credentials.refreshToken);
  };

  const subscribeWebhooks = async (credentials: ShopCredentials, callbackUrl: string): Promise<void> => {
    const address = new URL(callbackUrl);
    // TikTok's rules for the address: https, a domain name (no IP, no port), at most 255 characters.
    if (address.protocol !== 'https:' || address.port !== '' || callbackUrl.length > 255)
      throw new MarketplaceRejectedError('TikTok Shop webhooks need an https address without a port', 400);
    await client.call(z.unknown(), {
      operation: 'updateShopWebhook',
      method: 'PUT',
      path: '/event/202309/webhooks',
      body: { address: callbackUrl, event_type: 'ORDER_STATUS_CHANGE' },
      ...scoped(credentials),
    });
  };

  /** The authorisation link; TikTok uses no PKCE and sends the seller to the app's registered redirect URL. */
  const authorizeUrl: OAuthConnector['authorizeUrl'] = ({ state }) => {
    const url = new URL(authorizeEndpoint);
    url.search = new URLSearchParams({ service_id: options.serviceId, state }).toString();
    return url.toString();
  };

  const completeAuthorization: OAuthConnector['completeAuthorization'] = async ({ query }) => {
    if (query.error)
      throw new MarketplaceRejectedError(`TikTok Shop did not grant access (${query.error})`, 400);
    const code = query.code;
    if (!code || code === 'null')
      throw new MarketplaceRejectedError('The TikTok Shop callback has no authorization code', 400);
    const { data, tokens } = await client.exchangeCode(code);
    const result = await client.call(tiktokAuthorizedShops, {
      operation: 'getAuthorizedShops',
      method: 'GET',
      path: '/authorization/202309/shops',
      accessToken: tokens.accessToken,
      rateLimitKey: 'oauth',
    });
    const shops = result.shops ?? [];
    // A cross-border seller authorises several shops at once; the one in the seller's base region first.
    const shop = shops.find((s) => s.region && s.region === data.seller_base_region) ?? shops[0];
    if (!shop) throw new MarketplaceRejectedError('This TikTok Shop account has no shop to connect', 422);
    return {
      externalShopId: shop.id,
      shopName: shop.name ?? data.seller_name ?? `TikTok Shop ${shop.id}`,
      tokens,
      scopes: (data.granted_scopes ?? []).join(' '),
      settings: {
        shopCipher: shop.cipher,
        region: shop.region ?? null,
        shopCode: shop.code ?? null,
        sellerType: shop.seller_type ?? null,
        otherShopIds: shops.filter((s) => s.id !== shop.id).map((s) => s.id),
        refreshTokenExpiresAt:
          typeof data.refresh_token_expire_in === 'number' && data.refresh_token_expire_in > 1_000_000_000
            ? new Date(data.refresh_token_expire_in * 1000).toISOString()
            : null,
      },
    };
  };

  return {
    platform: 'tiktok',
    listListings,
    fetchOrders,
    fetchOrder,
    pushTracking,
    refreshTokens,
    subscribeWebhooks,
    authorizeUrl,
    completeAuthorization,
  };
};
