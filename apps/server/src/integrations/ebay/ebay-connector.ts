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
import { createEbayClient, type EbayClientOptions } from './ebay-client.ts';
import {
  ebayCarrierCode,
  ebayIdentityUser,
  ebayInventoryPage,
  ebayOffersPage,
  ebayOrder,
  ebayOrdersPage,
  mapEbayListing,
  mapEbayOrder,
} from './ebay-mapping.ts';

/**
 * eBay Sell APIs (contracts: /work/shared/contracts/ebay/; docs/marketplaces/ebay.md). OAuth
 * authorization-code grant (no PKCE; the redirect is the app's RuName), orders polled with
 * getOrders by lastmodifieddate (eBay has no order webhooks an app can subscribe to for this),
 * listings from the Inventory API, tracking with createShippingFulfillment.
 */

export const EBAY_DEFAULT_SCOPES = [
  'https://api.ebay.com/oauth/api_scope',
  'https://api.ebay.com/oauth/api_scope/sell.fulfillment',
  'https://api.ebay.com/oauth/api_scope/sell.inventory.readonly',
  'https://api.ebay.com/oauth/api_scope/commerce.identity.readonly',
].join(' ');
/** How far each poll reaches back before the previous cursor (orders changed while we paged). */
export const EBAY_CURSOR_OVERLAP_MS = 10 * 60 * 1000;
/** The first sync reads this far back (getOrders goes back two years at most). */
export const EBAY_FIRST_SYNC_LOOKBACK_MS = 30 * 24 * 60 * 60 * 1000;
const ORDER_PAGE_SIZE = 200; // getOrders' maximum
const INVENTORY_PAGE_SIZE = 100; // getInventoryItems allows 1-200
const MAX_PAGES = 500;

export interface EbayConnectorOptions extends EbayClientOptions {
  /** The app's RuName (eBay redirect URL name): eBay's redirect_uri, standing for our callback URL. */
  readonly ruName: string;
  /** Space-separated OAuth scopes (default EBAY_DEFAULT_SCOPES). */
  readonly scopes?: string;
}

export type EbayConnector = ShopConnector &
  OAuthConnector & {
    readonly platform: 'ebay';
    fetchOrder(credentials: ShopCredentials, externalOrderId: string): Promise<MarketplaceOrder | null>;
    refreshTokens(credentials: ShopCredentials): Promise<RefreshedTokens>;
  };

/** eBay order ids look like 01-03955-36441 (legacy ones are digits): refuse anything else before a request. */
const orderIdOf = (value: string): string => {
  const id = value.trim();
  if (!/^[0-9A-Za-z-]{1,64}$/.test(id)) throw new MarketplaceRejectedError('eBay order id is not valid', 400);
  return id;
};

/** The paging parameters of eBay's `next` link, read but never followed (its host is not trusted). */
const nextPage = (next: string | null | undefined): { offset: string; limit: string } | null => {
  if (!next) return null;
  let url: URL;
  try {
    url = new URL(next, 'https://api.ebay.com');
  } catch {
    return null;
  }
  const offset = url.searchParams.get('offset');
  const limit = url.searchParams.get('limit');
  return offset && /^\d+$/.test(offset)
    ? { offset, limit: limit && /^\d+$/.test(limit) ? limit : String(INVENTORY_PAGE_SIZE) }
    : null;
};

export const createEbayConnector = (options: EbayConnectorOptions): EbayConnector => {
  const client = createEbayClient(options);
  const scopes = options.scopes ?? EBAY_DEFAULT_SCOPES;
  const now = options.now ?? (() => new Date());
  const shopKey = (credentials: ShopCredentials): string => `ebay:${credentials.externalShopId}`;

  const listListings = async (credentials: ShopCredentials): Promise<MarketplaceListing[]> => {
    const listings: MarketplaceListing[] = [];
    let page: { offset: string; limit: string } | null = { offset: '0', limit: String(INVENTORY_PAGE_SIZE) };
    for (let n = 0; page && n < MAX_PAGES; n += 1) {
      const { body } = await client.call(ebayInventoryPage, {
        api: 'inventory',
        operation: 'getInventoryItems',
        method: 'GET',
        path: '/inventory_item',
        query: page,
        accessToken: credentials.accessToken,
        rateLimitKey: shopKey(credentials),
      });
      for (const item of body.inventoryItems ?? []) {
        const sku = item.sku?.trim();
        if (!sku) continue;
        const offers = await client.call(ebayOffersPage, {
          api: 'inventory',
          operation: 'getOffers',
          method: 'GET',
          path: '/offer',
          query: { sku },
          accessToken: credentials.accessToken,
          rateLimitKey: shopKey(credentials),
          // getOffers answers 404 for a SKU that has no offer yet: nothing listed, not an error.
          acceptStatuses: [404],
        });
        if (offers.status === 404) continue;
        listings.push(...mapEbayListing(item, offers.body.offers ?? [], client.endpoints.site));
      }
      const following = nextPage(body.next);
      page = following && following.offset !== page.offset ? following : null;
    }
    return listings;
  };

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
    const since = new Date(
      pollSinceMs(cursor, startedAt.getTime(), EBAY_FIRST_SYNC_LOOKBACK_MS, EBAY_CURSOR_OVERLAP_MS),
    );
    // eBay's documented form: brackets percent-encoded, the colon and the ISO time as they are.
    const rawQuery = `filter=lastmodifieddate:%5B${since.toISOString()}..%5D`;
    const byId = new Map<string, MarketplaceOrder>();
    const failed = new Map<string, string>();
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const offset = page * ORDER_PAGE_SIZE;
      const { body } = await client.call(ebayOrdersPage, {
        api: 'fulfillment',
        operation: 'getOrders',
        method: 'GET',
        path: '/order',
        rawQuery,
        query: { limit: ORDER_PAGE_SIZE, offset },
        accessToken: credentials.accessToken,
        rateLimitKey: shopKey(credentials),
      });
      const orders = body.orders ?? [];
      for (const raw of orders) {
        try {
          const order = mapEbayOrder(raw);
          byId.set(order.externalId, order);
        } catch (error) {
          // An unreadable order is skipped and reported (the shop shows it); the rest are ingested.
          if (!(error instanceof MalformedOrderError)) throw error;
          const id = (raw as { orderId?: unknown } | null)?.orderId;
          failed.set(typeof id === 'string' ? id : '', error.message);
        }
      }
      const seen = offset + orders.length;
      if (orders.length < ORDER_PAGE_SIZE || (typeof body.total === 'number' && seen >= body.total)) break;
    }
    return {
      orders: [...byId.values()],
      nextCursor: startedAt.toISOString(),
      failed: [...failed]
        .filter(([id]) => !byId.has(id))
        .map(([externalId, reason]) => ({ externalId, reason })),
    };
  };

  const getOrder = async (credentials: ShopCredentials, orderId: string) =>
    client.call(z.unknown(), {
      api: 'fulfillment',
      operation: 'getOrder',
      method: 'GET',
      path: `/order/${encodeURIComponent(orderId)}`,
      accessToken: credentials.accessToken,
      rateLimitKey: shopKey(credentials),
      acceptStatuses: [404],
    });

  const fetchOrder = async (
    credentials: ShopCredentials,
    externalOrderId: string,
  ): Promise<MarketplaceOrder | null> => {
    const { status, body } = await getOrder(credentials, orderIdOf(externalOrderId));
    return status === 404 ? null : mapEbayOrder(body);
  };

  const pushTracking = async (
    credentials: ShopCredentials,
    externalOrderId: string,
    tracking: TrackingUpdate,
  ): Promise<void> => {
    const orderId = orderIdOf(externalOrderId);
    const trackingNumber = tracking.trackingNumber.trim();
    if (!trackingNumber)
      throw new MarketplaceRejectedError('A tracking number is required to mark an eBay order shipped', 400);
    const { status, body } = await getOrder(credentials, orderId);
    if (status === 404) throw new MarketplaceRejectedError(`eBay does not know order ${orderId}`, 404);
    const order = ebayOrder.safeParse(body);
    if (!order.success)
      throw new MarketplaceRejectedError('eBay getOrder returned an unexpected response', 502);
    const lines = (order.data.lineItems ?? []).filter(
      (line) => line.lineItemId && (line.lineItemFulfillmentStatus ?? '').toUpperCase() !== 'FULFILLED',
    );
    // Every line already shipped (by us before a crash, or by the seller on eBay): nothing to do.
    if (lines.length === 0) return;
    await client.call(z.unknown(), {
      api: 'fulfillment',
      operation: 'createShippingFulfillment',
      method: 'POST',
      path: `/order/${encodeURIComponent(orderId)}/shipping_fulfillment`,
      json: {
        lineItems: lines.map((line) => ({
          lineItemId: line.lineItemId,
          quantity: Number.isInteger(line.quantity) && (line.quantity ?? 0) >= 1 ? line.quantity : 1,
        })),
        shippedDate: now().toISOString(),
        shippingCarrierCode: ebayCarrierCode(tracking.carrierName),
        trackingNumber,
      },
      accessToken: credentials.accessToken,
      rateLimitKey: shopKey(credentials),
      // 409 Conflict: this fulfillment exists already (a retried push); the order is shipped.
      acceptStatuses: [409],
    });
  };

  const refreshTokens = async (credentials: ShopCredentials): Promise<RefreshedTokens> => {
    if (!credentials.refreshToken)
      throw new MarketplaceRejectedError('The eBay connection has no refresh token; reconnect the shop', 401);
    // eBay's refresh grant repeats the scopes (all or a subset of those consented to).
    return client.token(
      new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: credentials.refreshToken,
        scope: scopes,
      }),
      'refreshToken',
      {
        keepRefreshToken: credentials.refreshToken,
        refused: 'eBay access was revoked or has expired; reconnect the shop',
      },
    );
  };

  /** eBay does not support PKCE: the code challenge is not sent. The redirect is the RuName, not a URL. */
  const authorizeUrl: OAuthConnector['authorizeUrl'] = ({ state }) => {
    const url = new URL(client.endpoints.authorize);
    url.search = new URLSearchParams({
      client_id: options.clientId,
      redirect_uri: options.ruName,
      response_type: 'code',
      scope: scopes,
      state,
    }).toString();
    return url.toString();
  };

  const completeAuthorization: OAuthConnector['completeAuthorization'] = async ({ query }) => {
    if (query.error)
      throw new MarketplaceRejectedError(
        `eBay did not grant access (${query.error_description ?? query.error})`,
        400,
      );
    const code = query.code;
    if (!code) throw new MarketplaceRejectedError('The eBay callback has no authorization code', 400);
    const tokens = await client.token(
      new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: options.ruName }),
      'exchangeCode',
      { refused: 'eBay refused the authorization code; connect the shop again' },
    );
    const { body: user } = await client.call(ebayIdentityUser, {
      api: 'identity',
      operation: 'getUser',
      method: 'GET',
      path: '/user/',
      accessToken: tokens.accessToken,
      rateLimitKey: 'oauth',
    });
    return {
      externalShopId: user.userId,
      shopName: user.username?.trim() || user.userId,
      tokens,
      scopes,
      settings: { environment: options.environment ?? 'production' },
    };
  };

  return {
    platform: 'ebay',
    listListings,
    fetchOrders,
    fetchOrder,
    pushTracking,
    refreshTokens,
    authorizeUrl,
    completeAuthorization,
  };
};
