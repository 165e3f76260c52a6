import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  MalformedOrderError,
  MarketplaceRejectedError,
  pollSinceMs,
  type ConnectionGrant,
  type CredentialConnector,
  type MarketplaceListing,
  type MarketplaceOrder,
  type RefreshedTokens,
  type ShopConnector,
  type ShopCredentials,
  type TrackingUpdate,
} from '../../modules/shops/connector.ts';
import {
  createWalmartClient,
  REVOKED_MESSAGE,
  type WalmartClientCredentials,
  type WalmartClientOptions,
  type WalmartSession,
} from './walmart-client.ts';
import {
  mapWalmartItem,
  mapWalmartOrder,
  unwrapWalmartOrder,
  walmartCarrierName,
  walmartItemsPage,
  walmartOrder,
  walmartOrderEnvelope,
  walmartOrderNeedsAcknowledgement,
  walmartOrdersPage,
  walmartSubscriptionResponse,
  walmartTrackingUrl,
} from './walmart-mapping.ts';
import {
  walmartWebhookSecret,
  WALMART_WEBHOOK_SHOP_HEADER,
  WALMART_WEBHOOK_TOKEN_HEADER,
} from './walmart-webhook-receiver.ts';

/**
 * Walmart Marketplace (contracts: /work/shared/contracts/walmart/; docs/marketplaces/walmart.md).
 * The seller pastes a Client ID and Client Secret from Walmart's Developer Portal; every call uses
 * a 15-minute client-credentials token. Orders are polled by last modification (PO_CREATED
 * webhooks, when subscribed, only name the order) and each new order is acknowledged.
 */

/** How far each poll reaches back before the previous cursor (orders changed while we paged). */
export const WALMART_CURSOR_OVERLAP_MS = 10 * 60 * 1000;
/** The first sync reads this far back. */
export const WALMART_FIRST_SYNC_LOOKBACK_MS = 14 * 24 * 60 * 60 * 1000;
/**
 * getAllOrders defaults createdStartDate to seven days ago, which would hide a status change on an
 * older order; orders created within this window are searched for changes.
 */
export const WALMART_CREATED_WINDOW_MS = 60 * 24 * 60 * 60 * 1000;
const ORDERS_PAGE_SIZE = 200; // the contract's maximum
const ITEMS_PAGE_SIZE = 50; // the contract's maximum
const MAX_PAGES = 500;

export interface WalmartConnectorOptions extends WalmartClientOptions {
  /**
   * Our server secret (the app's encryption/signing secret): the per-shop webhook token is derived
   * from it, so nothing is stored. Without it subscribeWebhooks is not offered.
   */
  readonly webhookSecret?: string;
}

export type WalmartConnector = ShopConnector & CredentialConnector & { readonly platform: 'walmart' };

/**
 * The shop's id: a hash of the Client ID. Walmart's token response names no seller, and the
 * partner id appears only inside paging cursors; the Client ID is stable for a seller's app
 * registration and is half of a credential, so it is not shown as is.
 */
export const walmartShopIdFor = (clientId: string): string =>
  `wm-${createHash('sha256').update(`walmart-client:${clientId}`).digest('hex').slice(0, 24)}`;

const credentialsOf = (credentials: ShopCredentials): WalmartClientCredentials => {
  const value = credentials.refreshToken ?? '';
  const colon = value.indexOf(':');
  if (colon <= 0 || colon === value.length - 1)
    throw new MarketplaceRejectedError(
      'The Walmart connection has no client credentials; reconnect the shop',
      401,
    );
  return { clientId: value.slice(0, colon), clientSecret: value.slice(colon + 1) };
};

const sessionOf = (credentials: ShopCredentials): WalmartSession => ({
  key: credentials.externalShopId,
  credentials: credentialsOf(credentials),
  accessToken: credentials.accessToken,
  tokenExpiresAt: credentials.tokenExpiresAt,
});

/** purchaseOrderId is a number in every example; refuse anything that could change the path. */
const purchaseOrderId = (value: string): string => {
  if (!/^[A-Za-z0-9-]{1,40}$/.test(value))
    throw new MarketplaceRejectedError('A Walmart purchase order id is letters and digits only', 400);
  return value;
};

/** A `nextCursor` ("?limit=…&hasMoreElements=true&…") as query parameters for the next page. */
const cursorQuery = (cursor: string): URLSearchParams => new URLSearchParams(cursor.replace(/^\?/, ''));

const anything = z.unknown();

const tokensOf = (tokens: RefreshedTokens) => ({
  accessToken: tokens.accessToken,
  tokenExpiresAt: tokens.tokenExpiresAt,
});

export const createWalmartConnector = (options: WalmartConnectorOptions): WalmartConnector => {
  const client = createWalmartClient(options);
  const now = options.now ?? (() => new Date());

  const connectWithCredentials = async (
    values: Readonly<Record<string, string>>,
  ): Promise<ConnectionGrant> => {
    const clientId = (values.clientId ?? '').trim();
    const clientSecret = (values.clientSecret ?? '').trim();
    if (!clientId || !clientSecret || clientId.includes(':'))
      throw new MarketplaceRejectedError(
        'Enter the Client ID and Client Secret from Walmart’s Developer Portal',
        400,
      );
    const tokens = await client.requestToken(
      { clientId, clientSecret },
      'Walmart did not accept this Client ID and Client Secret',
    );
    const externalShopId = walmartShopIdFor(clientId);
    // One authenticated read proves the token may read orders (the scope Layerline needs most).
    await client.call(
      { key: externalShopId, credentials: { clientId, clientSecret }, ...tokensOf(tokens) },
      walmartOrdersPage,
      {
        operation: 'getAllOrders',
        method: 'GET',
        path: '/v3/orders',
        query: new URLSearchParams({ limit: '1' }),
      },
    );
    return {
      externalShopId,
      shopName: `Walmart seller …${clientId.slice(-4)}`,
      tokens,
      scopes: '',
      settings: { clientIdHint: clientId.slice(-4) },
    };
  };

  const refreshTokens = async (credentials: ShopCredentials): Promise<RefreshedTokens> =>
    client.requestToken(credentialsOf(credentials), REVOKED_MESSAGE);

  const listListings = async (credentials: ShopCredentials): Promise<MarketplaceListing[]> => {
    const session = sessionOf(credentials);
    const listings: MarketplaceListing[] = [];
    const seenCursors = new Set<string>();
    let cursor = '*';
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const result = await client.call(session, walmartItemsPage, {
        operation: 'getAllItems',
        method: 'GET',
        path: '/v3/items',
        query: new URLSearchParams({
          nextCursor: cursor,
          limit: String(ITEMS_PAGE_SIZE),
          lifecycleStatus: 'ACTIVE',
        }),
      });
      const items = result.ItemResponse ?? [];
      for (const item of items) if (item.sku.trim()) listings.push(mapWalmartItem(item));
      const next = result.nextCursor?.trim() ?? '';
      seenCursors.add(cursor);
      // Stop on the last page, an empty one, the total reached, or a cursor we already followed.
      if (!next || items.length === 0 || seenCursors.has(next)) break;
      if (typeof result.totalItems === 'number' && listings.length >= result.totalItems) break;
      cursor = next;
    }
    return listings;
  };

  const acknowledge = async (session: WalmartSession, id: string): Promise<void> => {
    try {
      await client.call(session, anything, {
        operation: 'acknowledgeOrders',
        method: 'POST',
        path: `/v3/orders/${purchaseOrderId(id)}/acknowledge`,
      });
    } catch (error) {
      // Already acknowledged, or cancelled meanwhile: Walmart refuses and nothing is left to do.
      // Revoked credentials and rate limits propagate, so the poll's cursor is not advanced.
      if (!(error instanceof MarketplaceRejectedError) || error.status === 401) throw error;
    }
  };

  const fetchOrders = async (
    credentials: ShopCredentials,
    cursor: string | null,
  ): Promise<{
    orders: MarketplaceOrder[];
    nextCursor: string;
    failed: { externalId: string; reason: string }[];
  }> => {
    const session = sessionOf(credentials);
    // Taken before the first request: anything changed while we page is caught by the next poll.
    const startedAt = now();
    const sinceMs = pollSinceMs(
      cursor,
      startedAt.getTime(),
      WALMART_FIRST_SYNC_LOOKBACK_MS,
      WALMART_CURSOR_OVERLAP_MS,
    );
    const createdSinceMs = Math.min(sinceMs, startedAt.getTime() - WALMART_CREATED_WINDOW_MS);
    let query = new URLSearchParams({
      createdStartDate: new Date(createdSinceMs).toISOString(),
      lastModifiedStartDate: new Date(sinceMs).toISOString(),
      limit: String(ORDERS_PAGE_SIZE),
    });

    const byId = new Map<string, MarketplaceOrder>();
    const failed: { externalId: string; reason: string }[] = [];
    const toAcknowledge = new Set<string>();
    const seenCursors = new Set<string>();
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const result = await client.call(session, walmartOrdersPage, {
        operation: 'getAllOrders',
        method: 'GET',
        path: '/v3/orders',
        query,
      });
      const raw = result.list.elements?.order ?? [];
      for (const payload of raw) {
        let order: MarketplaceOrder;
        try {
          order = mapWalmartOrder(payload);
        } catch (error) {
          // One unreadable order must not hold back the others; the poll reports it (shown on the shop).
          if (!(error instanceof MalformedOrderError)) throw error;
          const id = (payload as { purchaseOrderId?: unknown } | null)?.purchaseOrderId;
          failed.push({ externalId: typeof id === 'string' ? id : '', reason: error.message });
          continue;
        }
        byId.set(order.externalId, order);
        const parsed = walmartOrder.safeParse(payload);
        if (parsed.success && !order.cancelled && walmartOrderNeedsAcknowledgement(parsed.data))
          toAcknowledge.add(order.externalId);
      }
      const next = result.list.meta?.nextCursor?.trim() ?? '';
      if (!next || raw.length === 0 || seenCursors.has(next)) break;
      seenCursors.add(next);
      query = cursorQuery(next);
    }
    for (const id of toAcknowledge) await acknowledge(session, id);
    return { orders: [...byId.values()], nextCursor: startedAt.toISOString(), failed };
  };

  const getOrder = async (session: WalmartSession, id: string): Promise<unknown | null> => {
    try {
      const body = await client.call(session, walmartOrderEnvelope, {
        operation: 'getAnOrder',
        method: 'GET',
        path: `/v3/orders/${purchaseOrderId(id)}`,
      });
      return unwrapWalmartOrder(body);
    } catch (error) {
      if (error instanceof MarketplaceRejectedError && error.status === 404) return null;
      throw error;
    }
  };

  const fetchOrder = async (
    credentials: ShopCredentials,
    externalOrderId: string,
  ): Promise<MarketplaceOrder | null> => {
    const session = sessionOf(credentials);
    const payload = await getOrder(session, externalOrderId);
    if (payload === null) return null;
    const order = mapWalmartOrder(payload);
    const parsed = walmartOrder.safeParse(payload);
    if (parsed.success && !order.cancelled && walmartOrderNeedsAcknowledgement(parsed.data))
      await acknowledge(session, order.externalId);
    return order;
  };

  /**
   * Ships every line still open (Created or Acknowledged) with its open quantity and the tracking
   * number. Walmart wants an order acknowledged before it is shipped, so a Created one is first.
   */
  const pushTracking = async (
    credentials: ShopCredentials,
    externalOrderId: string,
    tracking: TrackingUpdate,
  ): Promise<void> => {
    const session = sessionOf(credentials);
    const id = purchaseOrderId(externalOrderId);
    const trackingNumber = tracking.trackingNumber.trim();
    if (!trackingNumber)
      throw new MarketplaceRejectedError(
        'A tracking number is required to mark a Walmart order shipped',
        400,
      );
    const payload = await getOrder(session, id);
    if (payload === null) throw new MarketplaceRejectedError(`Walmart does not know order ${id}`, 404);
    const parsed = walmartOrder.safeParse(payload);
    if (!parsed.success) throw new MalformedOrderError(`Walmart order ${id} could not be read`);
    if (walmartOrderNeedsAcknowledgement(parsed.data)) await acknowledge(session, id);

    const carrierName = walmartCarrierName(tracking.carrierName);
    const shipDateTime = now().getTime();
    const lines = (parsed.data.orderLines?.orderLine ?? []).flatMap((line) => {
      const lineNumber = String(line.lineNumber ?? '').trim();
      const open = (line.orderLineStatuses?.orderLineStatus ?? [])
        .filter((s) => s.status === 'Created' || s.status === 'Acknowledged')
        .reduce((sum, s) => sum + Math.max(0, Math.floor(Number(s.statusQuantity?.amount ?? 0)) || 0), 0);
      if (!lineNumber || open === 0) return [];
      return [
        {
          lineNumber,
          sellerOrderId: id,
          orderLineStatuses: {
            orderLineStatus: [
              {
                status: 'Shipped',
                statusQuantity: { unitOfMeasurement: 'EACH', amount: String(open) },
                trackingInfo: {
                  shipDateTime,
                  carrierName,
                  methodCode: 'Standard',
                  trackingNumber,
                  trackingURL: walmartTrackingUrl(tracking.carrierName, trackingNumber),
                },
              },
            ],
          },
        },
      ];
    });
    // Everything shipped or cancelled already: a repeated push changes nothing.
    if (lines.length === 0) return;
    await client.call(session, anything, {
      operation: 'shippingUpdates',
      method: 'POST',
      path: `/v3/orders/${id}/shipping`,
      json: { orderShipment: { orderLines: { orderLine: lines } } },
    });
  };

  /**
   * PO_CREATED to our callback, with two custom headers Walmart repeats on every delivery: the shop
   * id and a per-shop token derived from our secret (createWalmartWebhookReceiver checks it).
   */
  const subscribeWebhooks = async (credentials: ShopCredentials, callbackUrl: string): Promise<void> => {
    if (!options.webhookSecret) return;
    const session = sessionOf(credentials);
    await client.call(session, walmartSubscriptionResponse, {
      operation: 'createSubscription',
      method: 'POST',
      path: '/v3/webhooks/subscriptions',
      json: {
        events: [
          {
            eventType: 'PO_CREATED',
            eventVersion: 'V1',
            resourceName: 'ORDER',
            eventUrl: callbackUrl,
            headers: {
              'content-type': 'application/json',
              [WALMART_WEBHOOK_SHOP_HEADER]: credentials.externalShopId,
              [WALMART_WEBHOOK_TOKEN_HEADER]: walmartWebhookSecret(
                options.webhookSecret,
                credentials.externalShopId,
              ),
            },
            status: 'ACTIVE',
          },
        ],
      },
    });
  };

  return {
    platform: 'walmart',
    connectFields: [
      {
        name: 'clientId',
        label: 'Client ID',
        secret: false,
        help: 'Walmart Developer Portal → My Account → API Key Management (or the keys you delegated to Layerline).',
      },
      { name: 'clientSecret', label: 'Client Secret', secret: true },
    ],
    connectWithCredentials,
    refreshTokens,
    listListings,
    fetchOrders,
    fetchOrder,
    pushTracking,
    ...(options.webhookSecret ? { subscribeWebhooks } : {}),
  };
};
