import { createHash } from 'node:crypto';
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
import {
  AmazonTokenRejectedError,
  createAmazonClient,
  type AmazonClientOptions,
  type AmazonRegion,
} from './amazon-client.ts';
import {
  AMAZON_NOT_YET_PAYABLE,
  amazonListingsPage,
  amazonOrderItemsPage,
  amazonOrderResponse,
  amazonOrdersPage,
  mapAmazonListing,
  mapAmazonOrder,
  parseAmazonOrder,
  parseAmazonOrderItems,
  type AmazonOrderItem,
} from './amazon-mapping.ts';

/**
 * Amazon Selling Partner API (contracts: /work/shared/contracts/amazon-sp-api/; docs/marketplaces/amazon.md).
 * Sellers authorise the app through Seller Central's consent page (website workflow); orders are
 * polled (Amazon pushes order changes only to SQS or EventBridge, never to an HTTPS endpoint), with
 * the buyer's address read through a Restricted Data Token; tracking goes back by confirmShipment.
 */

export const AMAZON_DEFAULT_MARKETPLACE_IDS: readonly string[] = ['ATVPDKIKX0DER'];
/** How far each poll reaches back before the previous cursor (orders changed while we paged). */
export const AMAZON_CURSOR_OVERLAP_MS = 10 * 60 * 1000;
/** The first sync reads this far back. */
export const AMAZON_FIRST_SYNC_LOOKBACK_MS = 30 * 24 * 60 * 60 * 1000;
const MAX_PAGES = 200;

/** Seller Central's consent page per region (the North American one serves US, CA, MX and BR). */
export const AMAZON_SELLER_CENTRAL: Readonly<Record<AmazonRegion, string>> = {
  na: 'https://sellercentral.amazon.com',
  eu: 'https://sellercentral-europe.amazon.com',
  fe: 'https://sellercentral.amazon.co.jp',
};

/** Amazon's carrier codes for the carriers we name; anything else is sent as "Other" with its name. */
const CARRIER_CODES: Readonly<Record<string, string>> = {
  usps: 'USPS',
  ups: 'UPS',
  fedex: 'FedEx',
  dhl: 'DHL',
  dhl_express: 'DHL',
};

export interface AmazonConnectorOptions extends Pick<
  AmazonClientOptions,
  'fetch' | 'now' | 'http' | 'maxRateLimitWaitMs' | 'tokenUrl'
> {
  /** The SP-API application id (amzn1.sp.solution.… or amzn1.sellerapps.app.…). */
  readonly appId: string;
  readonly lwaClientId: string;
  readonly lwaClientSecret: string;
  /** Default 'na'. */
  readonly region?: AmazonRegion;
  /** The marketplaces polled for orders; the first is the one listings are read for. */
  readonly marketplaceIds?: readonly string[];
  /** Adds version=beta to the consent URL, which Amazon requires while the app is a draft. */
  readonly draftApp?: boolean;
  /** Overrides the region's SP-API origin (tests: Prism). */
  readonly apiBaseUrl?: string;
  /** Overrides the region's Seller Central (a seller of another marketplace's Seller Central). */
  readonly sellerCentralUrl?: string;
}

export type AmazonConnector = ShopConnector & OAuthConnector & { readonly platform: 'amazon' };

export const amazonCarrierFields = (carrierName: string): { carrierCode: string; carrierName?: string } => {
  const token = carrierName
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  const code = CARRIER_CODES[token];
  if (code) return { carrierCode: code };
  const readable = token
    .split('_')
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join(' ');
  return { carrierCode: 'Other', carrierName: readable || 'Other' };
};

/**
 * packageReferenceId must be a positive number unique within the order. Derived from the tracking
 * number, so pushing the same tracking twice names the same package, and a new label a new one.
 */
export const amazonPackageReferenceId = (trackingNumber: string): string =>
  String(Number.parseInt(createHash('sha256').update(trackingNumber).digest('hex').slice(0, 12), 16) + 1);

/** Amazon order ids are 3-7-7 digits; anything else is refused before it reaches a URL. */
const orderIdOf = (value: string): string => {
  const id = value.trim();
  if (!/^\d{3}-\d{7}-\d{7}$/.test(id))
    throw new MarketplaceRejectedError('An Amazon order id looks like 123-1234567-1234567', 400);
  return id;
};

const rawOrderId = (raw: unknown): string => {
  const id = (raw as { AmazonOrderId?: unknown } | null)?.AmazonOrderId;
  return typeof id === 'string' && id.trim() ? id.trim() : '(no AmazonOrderId)';
};

const settingsMarketplaces = (credentials: ShopCredentials, fallback: readonly string[]): string[] => {
  const stored = credentials.settings.marketplaceIds;
  if (Array.isArray(stored)) {
    const ids = stored.filter((id): id is string => typeof id === 'string' && id.length > 0);
    if (ids.length > 0) return ids;
  }
  return [...fallback];
};

export const createAmazonConnector = (options: AmazonConnectorOptions): AmazonConnector => {
  const region = options.region ?? 'na';
  const marketplaceIds = options.marketplaceIds?.length
    ? options.marketplaceIds
    : AMAZON_DEFAULT_MARKETPLACE_IDS;
  const sellerCentral = (options.sellerCentralUrl ?? AMAZON_SELLER_CENTRAL[region]).replace(/\/+$/, '');
  const now = options.now ?? (() => new Date());
  const client = createAmazonClient({
    clientId: options.lwaClientId,
    clientSecret: options.lwaClientSecret,
    region,
    fetch: options.fetch,
    apiBaseUrl: options.apiBaseUrl,
    tokenUrl: options.tokenUrl,
    now,
    http: options.http,
    maxRateLimitWaitMs: options.maxRateLimitWaitMs,
  });

  const sellerIdOf = (credentials: ShopCredentials): string => {
    const id = credentials.externalShopId.trim();
    if (!/^[A-Za-z0-9]{1,40}$/.test(id))
      throw new MarketplaceRejectedError(
        'The Amazon selling partner id is not valid; reconnect the shop',
        400,
      );
    return id;
  };

  const refreshTokens = async (credentials: ShopCredentials): Promise<RefreshedTokens> => {
    if (!credentials.refreshToken)
      throw new MarketplaceRejectedError(
        'The Amazon connection has no refresh token; reconnect the shop',
        401,
      );
    const tokens = await client.refresh(credentials.refreshToken);
    // LWA refresh tokens do not rotate; keep the one we have when the answer omits it.
    return { ...tokens, refreshToken: tokens.refreshToken ?? credentials.refreshToken };
  };

  /**
   * Runs `work` with a usable LWA access token: an expired or missing one is refreshed first, and
   * a token Amazon refuses mid-way is refreshed once and the work run again (it is idempotent). The
   * refreshed token is not handed back to the shops module; LWA refresh tokens do not rotate, so
   * the stored grant stays valid and the module refreshes by tokenExpiresAt as usual.
   */
  const withAccessToken = async <T>(
    credentials: ShopCredentials,
    work: (accessToken: string) => Promise<T>,
  ): Promise<T> => {
    const expired =
      !credentials.accessToken ||
      (credentials.tokenExpiresAt !== null && credentials.tokenExpiresAt.getTime() <= now().getTime());
    let token = expired ? (await refreshTokens(credentials)).accessToken : credentials.accessToken!;
    try {
      return await work(token);
    } catch (error) {
      if (!(error instanceof AmazonTokenRejectedError) || expired || !credentials.refreshToken) throw error;
      token = (await refreshTokens(credentials)).accessToken;
      return work(token);
    }
  };

  const orderItems = async (
    accessToken: string,
    sellerId: string,
    orderId: string,
  ): Promise<AmazonOrderItem[]> => {
    // Keyed by OrderItemId: a page repeated by Amazon must not confirm an item twice.
    const items = new Map<string, AmazonOrderItem>();
    let nextToken: string | undefined;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const result = await client.call(amazonOrderItemsPage, {
        operation: 'getOrderItems',
        method: 'GET',
        path: `/orders/v0/orders/${encodeURIComponent(orderId)}/orderItems`,
        query: { NextToken: nextToken },
        accessToken,
        sellerId,
      });
      for (const item of parseAmazonOrderItems(orderId, result.payload.OrderItems))
        items.set(item.OrderItemId, item);
      // A token that repeats would page forever; Amazon never sends the same one twice.
      const next = result.payload.NextToken ?? undefined;
      if (!next || next === nextToken) break;
      nextToken = next;
    }
    return [...items.values()];
  };

  const listListings = async (credentials: ShopCredentials): Promise<MarketplaceListing[]> => {
    const sellerId = sellerIdOf(credentials);
    const marketplaceId = settingsMarketplaces(credentials, marketplaceIds)[0]!;
    return withAccessToken(credentials, async (accessToken) => {
      const listings = new Map<string, MarketplaceListing>();
      let pageToken: string | undefined;
      for (let page = 0; page < MAX_PAGES; page += 1) {
        const result = await client.call(amazonListingsPage, {
          operation: 'searchListingsItems',
          method: 'GET',
          path: `/listings/2021-08-01/items/${encodeURIComponent(sellerId)}`,
          query: { marketplaceIds: marketplaceId, includedData: 'summaries,offers', pageSize: 20, pageToken },
          accessToken,
          sellerId,
        });
        for (const item of result.items) {
          const listing = mapAmazonListing(item, marketplaceId);
          if (listing.sku) listings.set(listing.sku, listing);
        }
        const next = result.pagination?.nextToken ?? undefined;
        if (!next || next === pageToken) break;
        pageToken = next;
      }
      return [...listings.values()];
    });
  };

  const fetchOrders = async (
    credentials: ShopCredentials,
    cursor: string | null,
  ): Promise<{
    orders: MarketplaceOrder[];
    nextCursor: string;
    failed: { externalId: string; reason: string }[];
  }> => {
    const sellerId = sellerIdOf(credentials);
    const marketplaces = settingsMarketplaces(credentials, marketplaceIds);
    // Taken before the first request: anything changed while we page is caught by the next poll.
    const startedAt = now();
    const since = new Date(
      pollSinceMs(cursor, startedAt.getTime(), AMAZON_FIRST_SYNC_LOOKBACK_MS, AMAZON_CURSOR_OVERLAP_MS),
    );
    return withAccessToken(credentials, async (accessToken) => {
      // One RDT per poll covers every page of getOrders (it lives an hour; a poll takes minutes).
      const rdt = await client.restrictedDataToken(accessToken, sellerId, '/orders/v0/orders');
      const byId = new Map<string, MarketplaceOrder>();
      const failed = new Map<string, string>();
      let nextToken: string | undefined;
      for (let page = 0; page < MAX_PAGES; page += 1) {
        const result = await client.call(amazonOrdersPage, {
          operation: 'getOrders',
          method: 'GET',
          path: '/orders/v0/orders',
          query: {
            MarketplaceIds: marketplaces.join(','),
            LastUpdatedAfter: since.toISOString(),
            // Orders Amazon fulfils (FBA) are not ours to print or ship.
            FulfillmentChannels: 'MFN',
            MaxResultsPerPage: 100,
            NextToken: nextToken,
          },
          accessToken: rdt,
          sellerId,
        });
        for (const raw of result.payload.Orders) {
          try {
            const order = parseAmazonOrder(raw);
            if (AMAZON_NOT_YET_PAYABLE.has(order.OrderStatus) || order.FulfillmentChannel === 'AFN') continue;
            const items = await orderItems(accessToken, sellerId, order.AmazonOrderId);
            byId.set(order.AmazonOrderId, mapAmazonOrder(order, items));
          } catch (error) {
            if (!(error instanceof MalformedOrderError)) throw error;
            failed.set(rawOrderId(raw), error.message);
          }
        }
        const next = result.payload.NextToken ?? undefined;
        if (!next || next === nextToken) break;
        nextToken = next;
      }
      return {
        orders: [...byId.values()],
        nextCursor: startedAt.toISOString(),
        failed: [...failed].map(([externalId, reason]) => ({ externalId, reason })),
      };
    });
  };

  const fetchOrder = async (
    credentials: ShopCredentials,
    externalOrderId: string,
  ): Promise<MarketplaceOrder | null> => {
    const sellerId = sellerIdOf(credentials);
    const orderId = orderIdOf(externalOrderId);
    const path = `/orders/v0/orders/${orderId}`;
    return withAccessToken(credentials, async (accessToken) => {
      const rdt = await client.restrictedDataToken(accessToken, sellerId, path);
      let raw: unknown;
      try {
        raw = (
          await client.call(amazonOrderResponse, {
            operation: 'getOrder',
            method: 'GET',
            path,
            accessToken: rdt,
            sellerId,
          })
        ).payload;
      } catch (error) {
        if (error instanceof MarketplaceRejectedError && error.status === 404) return null;
        throw error;
      }
      if (raw === undefined || raw === null) return null;
      const order = parseAmazonOrder(raw);
      if (AMAZON_NOT_YET_PAYABLE.has(order.OrderStatus))
        throw new MalformedOrderError(
          `Amazon order ${orderId} is ${order.OrderStatus}: not paid yet, nothing to ship`,
        );
      return mapAmazonOrder(order, await orderItems(accessToken, sellerId, orderId));
    });
  };

  const pushTracking = async (
    credentials: ShopCredentials,
    externalOrderId: string,
    tracking: TrackingUpdate,
  ): Promise<void> => {
    const sellerId = sellerIdOf(credentials);
    const orderId = orderIdOf(externalOrderId);
    const trackingNumber = tracking.trackingNumber.trim();
    if (!trackingNumber)
      throw new MarketplaceRejectedError('A tracking number is required to confirm an Amazon shipment', 400);
    await withAccessToken(credentials, async (accessToken) => {
      // The order's own marketplace (a seller may sell in several); no personal data is read here.
      const orderBody = await client.call(amazonOrderResponse, {
        operation: 'getOrder',
        method: 'GET',
        path: `/orders/v0/orders/${orderId}`,
        accessToken,
        sellerId,
      });
      const order = parseAmazonOrder(orderBody.payload);
      const marketplaceId = order.MarketplaceId ?? settingsMarketplaces(credentials, marketplaceIds)[0]!;
      const toShip = (await orderItems(accessToken, sellerId, orderId))
        .map((item) => ({
          orderItemId: item.OrderItemId,
          quantity: item.QuantityOrdered - (item.QuantityShipped ?? 0),
        }))
        .filter((item) => item.quantity > 0);
      // Everything already confirmed (an earlier push that succeeded): nothing left to tell Amazon.
      if (toShip.length === 0) return;
      await client.call(z.unknown(), {
        operation: 'confirmShipment',
        method: 'POST',
        path: `/orders/v0/orders/${orderId}/shipmentConfirmation`,
        json: {
          marketplaceId,
          packageDetail: {
            packageReferenceId: amazonPackageReferenceId(trackingNumber),
            ...amazonCarrierFields(tracking.carrierName),
            trackingNumber,
            shipDate: now().toISOString(),
            orderItems: toShip,
          },
        },
        accessToken,
        sellerId,
      });
    });
  };

  const authorizeUrl: OAuthConnector['authorizeUrl'] = ({ state, redirectUri }) => {
    const url = new URL(`${sellerCentral}/apps/authorize/consent`);
    const params = new URLSearchParams({ application_id: options.appId, state, redirect_uri: redirectUri });
    if (options.draftApp) params.set('version', 'beta');
    url.search = params.toString();
    return url.toString();
  };

  const completeAuthorization: OAuthConnector['completeAuthorization'] = async ({ query, redirectUri }) => {
    if (query.error)
      throw new MarketplaceRejectedError(
        `Amazon did not grant access (${query.error_description ?? query.error})`,
        400,
      );
    const code = query.spapi_oauth_code;
    if (!code) throw new MarketplaceRejectedError('The Amazon callback has no spapi_oauth_code', 400);
    const sellerId = (query.selling_partner_id ?? '').trim();
    if (!/^[A-Za-z0-9]{1,40}$/.test(sellerId))
      throw new MarketplaceRejectedError('The Amazon callback has no valid selling_partner_id', 400);
    const tokens = await client.exchangeCode(code, redirectUri);
    if (!tokens.refreshToken)
      throw new MarketplaceRejectedError('Amazon returned no refresh token; connect again', 502);
    return {
      externalShopId: sellerId,
      // The callback names no store; Seller Central shows the selling partner id as the merchant token.
      shopName: `Amazon seller ${sellerId}`,
      tokens,
      scopes: '',
      settings: { region, marketplaceIds: [...marketplaceIds] },
    };
  };

  return {
    platform: 'amazon',
    listListings,
    fetchOrders,
    fetchOrder,
    pushTracking,
    refreshTokens,
    authorizeUrl,
    completeAuthorization,
  };
};
