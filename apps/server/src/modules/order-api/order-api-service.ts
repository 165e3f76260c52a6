import { randomBytes } from 'node:crypto';
import type { ApiOrderInput, ManualOrderInput, Order, OrderStatus } from '@layerline/contracts';
import { AppError } from '../../errors.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import type { MarketplaceOrder } from '../shops/connector.ts';
import type { OrderApiRepository } from './order-api-repository.ts';
import type { PublicOrder, PublicOrderList } from './order-api-schemas.ts';

/** The orders module's ingestion, as this module uses it (modules/orders/order-ingestion.ts). */
export interface OrderIngestionPort {
  ingest(input: {
    ownerId: string;
    channel: string;
    shopId: string | null;
    platform: string;
    order: MarketplaceOrder;
    actor: { kind: 'user' | 'admin' | 'system' | 'marketplace'; id: string | null };
  }): Promise<{ orderId: string; created: boolean; stored?: StoredOrder }>;
}

/** A created order as ingestion stored it (modules/orders/order-ingestion.ts IngestedOrder). */
export interface StoredOrder {
  readonly status: OrderStatus;
  readonly holdReason: string | null;
  readonly createdAt: Date;
  readonly items: readonly { sku: string; quantity: number; variantId: string | null; productName: string | null }[];
  readonly events: readonly { fromStatus: OrderStatus | null; toStatus: OrderStatus; reason: string; createdAt: Date }[];
}

/** The orders module's reader (modules/orders/order-service.ts `get`): 404 unless the viewer may see it. */
export interface OrderReaderPort {
  get(viewer: { id: string; isAdmin: boolean; requestId?: string }, orderId: string): Promise<Order>;
  /** Many orders by id in one read (any owner: the caller checks), missing ones left out. */
  getMany(orderIds: readonly string[]): Promise<Map<string, Order>>;
}

/** The change window's calls (the orders module): a new address, a free cancellation, before release. */
export interface OrderChangePort {
  changeAddress(viewer: { id: string; isAdmin: boolean }, orderId: string, address: Order['shippingAddress']): Promise<Order>;
  cancelBeforeRelease(viewer: { id: string; isAdmin: boolean }, orderId: string, reason: string): Promise<Order>;
}

export interface Actor {
  readonly id: string;
  readonly isAdmin: boolean;
  readonly requestId: string;
}

export const apiChannel = (ownerId: string): string => `api:${ownerId}`;
export const manualChannel = (ownerId: string): string => `manual:${ownerId}`;

/** Crockford base32: no I, L, O, U, so a number read over the phone is not misheard. */
const BASE32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
function shortId(): string {
  const bytes = randomBytes(10);
  return [...bytes].map((byte) => BASE32[byte % 32]).join('');
}

/**
 * A link of ours as someone outside can follow it: the sandbox carrier's tracking page is a path of
 * this site (`/tracking/SBX…`, which the app's own pages follow as is), absolute once `siteUrl`
 * (PUBLIC_URL, else this server's address) is put before it. A carrier's own link is left as it is.
 */
export function absoluteLink(url: string, siteUrl: string): string {
  return url.startsWith('/') ? `${siteUrl}${url}` : url;
}

/** The order as the API and the seller's webhooks tell it; `siteUrl` makes our own links absolute. */
export function toPublicOrder(order: Order, siteUrl: string): PublicOrder {
  return {
    id: order.id,
    externalId: order.externalId,
    platform: order.platform,
    status: order.status,
    holdReason: order.holdReason,
    customerName: order.customerName,
    shippingAddress: order.shippingAddress,
    items: order.items.map((item) => ({
      sku: item.sku,
      quantity: item.quantity,
      matched: item.variantId !== null,
      productName: item.productName,
    })),
    events: order.events.map((event) => ({
      fromStatus: event.fromStatus,
      toStatus: event.toStatus,
      reason: event.reason,
      createdAt: event.createdAt,
    })),
    shipments: order.shipments.flatMap((shipment) =>
      shipment.status === 'purchased' || shipment.status === 'in_transit' || shipment.status === 'delivered'
        ? [
            {
              carrier: shipment.carrier ?? '',
              service: shipment.service ?? '',
              trackingNumber: shipment.trackingNumber ?? '',
              trackingUrl: absoluteLink(shipment.trackingUrl ?? '', siteUrl),
              status: shipment.status,
              shippedAt: shipment.shippedAt,
              deliveredAt: shipment.deliveredAt,
            },
          ]
        : [],
    ),
    placedAt: order.placedAt,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
  };
}

/**
 * A new order as ingestion announced it (modules/orders/order-service.ts CreatedOrder): what reading
 * it back at that moment gives, the address with its empty fields included.
 */
export interface CreatedOrderSnapshot extends StoredOrder {
  readonly externalId: string;
  readonly platform: string;
  readonly customerName: string;
  readonly shippingAddress: PublicOrder['shippingAddress'];
  readonly placedAt: Date;
}

/** The public order of a new order from its announcement, as toPublicOrder gives it from a read. */
export function publicOrderFromCreated(orderId: string, created: CreatedOrderSnapshot): PublicOrder {
  const createdAt = created.createdAt.toISOString();
  return {
    id: orderId,
    externalId: created.externalId,
    platform: created.platform,
    status: created.status,
    holdReason: created.holdReason,
    customerName: created.customerName,
    shippingAddress: created.shippingAddress,
    items: created.items.map((item) => ({
      sku: item.sku,
      quantity: item.quantity,
      matched: item.variantId !== null,
      productName: item.productName,
    })),
    events: created.events.map((event) => ({
      fromStatus: event.fromStatus,
      toStatus: event.toStatus,
      reason: event.reason,
      createdAt: event.createdAt.toISOString(),
    })),
    shipments: [],
    placedAt: created.placedAt.toISOString(),
    createdAt,
    updatedAt: createdAt,
  };
}

function publicOrderOf(orderId: string, incoming: MarketplaceOrder, stored: StoredOrder): PublicOrder {
  const createdAt = stored.createdAt.toISOString();
  return {
    id: orderId,
    externalId: incoming.externalId,
    platform: 'api',
    status: stored.status,
    holdReason: stored.holdReason,
    customerName: incoming.customerName,
    shippingAddress: incoming.shippingAddress,
    items: stored.items.map((item) => ({
      sku: item.sku,
      quantity: item.quantity,
      matched: item.variantId !== null,
      productName: item.productName,
    })),
    events: stored.events.map((event) => ({
      fromStatus: event.fromStatus,
      toStatus: event.toStatus,
      reason: event.reason,
      createdAt: event.createdAt.toISOString(),
    })),
    shipments: [],
    placedAt: incoming.placedAt.toISOString(),
    createdAt,
    updatedAt: createdAt,
  };
}

function marketplaceOrder(
  externalId: string,
  input: { items: ApiOrderInput['items']; shippingAddress: ApiOrderInput['shippingAddress']; note?: string },
  now: Date,
): MarketplaceOrder {
  return {
    externalId,
    note: input.note ?? '',
    placedAt: now,
    customerName: input.shippingAddress.name,
    shippingAddress: input.shippingAddress,
    currency: 'USD',
    totalCents: null,
    cancelled: false,
    items: input.items.map((item, index) => ({
      externalItemId: String(index + 1),
      sku: item.sku,
      title: '',
      quantity: item.quantity,
      unitPriceCents: null,
    })),
  };
}

/**
 * Orders that come from the seller directly: through the order API (idempotent on the seller's
 * externalId) and entered by hand on /submit-order. Both go through the orders module's
 * ingestion, so they follow the same matching and lifecycle as marketplace orders.
 */
export function createOrderApiService(deps: {
  ingestion: OrderIngestionPort;
  orders: OrderReaderPort;
  changes: OrderChangePort;
  repository: OrderApiRepository;
  audit: AuditRepository;
  now?: () => Date;
}) {
  const { ingestion, orders, repository, audit } = deps;
  const now = deps.now ?? (() => new Date());
  const asOwner = (ownerId: string) => ({ id: ownerId, isAdmin: false });

  return {
    /**
     * Stores the order once per (seller, externalId); a repeat returns the stored order. `siteUrl`
     * here and below: where the caller reaches this server (toPublicOrder).
     */
    async submitApiOrder(ownerId: string, input: ApiOrderInput, siteUrl: string): Promise<{ order: PublicOrder; created: boolean }> {
      const incoming = marketplaceOrder(input.externalId, input, now());
      const result = await ingestion.ingest({
        ownerId,
        channel: apiChannel(ownerId),
        shopId: null,
        platform: 'api',
        order: incoming,
        actor: { kind: 'user', id: ownerId },
      });
      // A new order is answered from what was stored (GET /api/v1/orders/:id reads the same back):
      // reading it again would cost the hot path a query. A repeat answers the order stored first.
      if (result.stored) return { order: publicOrderOf(result.orderId, incoming, result.stored), created: true };
      return { order: toPublicOrder(await orders.get(asOwner(ownerId), result.orderId), siteUrl), created: result.created };
    },

    /** The seller's own order (any channel); another seller's answers 404. */
    async getOrder(ownerId: string, orderId: string, siteUrl: string): Promise<PublicOrder> {
      return toPublicOrder(await orders.get(asOwner(ownerId), orderId), siteUrl);
    },

    /** A new shipping address for the seller's order, while it is not yet released (else 409, saying why). */
    async changeAddress(ownerId: string, orderId: string, address: Order['shippingAddress'], siteUrl: string): Promise<PublicOrder> {
      return toPublicOrder(await deps.changes.changeAddress(asOwner(ownerId), orderId, address), siteUrl);
    },

    /** Cancels the seller's order at no cost while it is not yet released (else 409, saying why). */
    async cancelOrder(ownerId: string, orderId: string, reason: string, siteUrl: string): Promise<PublicOrder> {
      return toPublicOrder(await deps.changes.cancelBeforeRelease(asOwner(ownerId), orderId, reason), siteUrl);
    },

    async listOrders(ownerId: string, query: { status?: OrderStatus | undefined; limit: number; cursor?: string | undefined }): Promise<PublicOrderList> {
      const rows = await repository.listOrders({ ownerId, status: query.status, limit: query.limit + 1, afterId: query.cursor });
      const page = rows.slice(0, query.limit);
      return {
        items: page.map((row) => ({
          id: row.id,
          externalId: row.externalId,
          platform: row.platform,
          status: row.status as OrderStatus,
          holdReason: row.holdReason,
          createdAt: row.createdAt.toISOString(),
          updatedAt: row.updatedAt.toISOString(),
        })),
        nextCursor: rows.length > query.limit ? (page.at(-1)?.id ?? null) : null,
      };
    },

    /**
     * A manual order: every SKU must be one of the seller's product variants (a typo would only
     * put the order on hold); the number is `M-` + a random short id.
     */
    async submitManualOrder(actor: Actor, ownerId: string, input: ManualOrderInput): Promise<Order> {
      const skus = [...new Set(input.items.map((item) => item.sku))];
      const known = await repository.existingSkus(ownerId, skus);
      const unknown = skus.filter((sku) => !known.has(sku));
      if (unknown.length > 0) {
        const list = unknown.map((sku) => `“${sku}”`).join(', ');
        throw new AppError('bad-request', `${unknown.length === 1 ? 'SKU' : 'SKUs'} ${list} ${unknown.length === 1 ? 'is' : 'are'} not one of your product variants`);
      }
      const orderActor = { kind: actor.isAdmin ? ('admin' as const) : ('user' as const), id: actor.id };
      // 50 random bits: a repeat is practically impossible, but a repeat would read back another
      // order (ingestion is idempotent), so only a freshly created order counts.
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const externalId = `M-${shortId()}`;
        const result = await ingestion.ingest({
          ownerId,
          channel: manualChannel(ownerId),
          shopId: null,
          platform: 'manual',
          order: marketplaceOrder(externalId, input, now()),
          actor: orderActor,
        });
        if (!result.created) continue;
        // Who placed it, for the audit trail.
        await audit.record({
          actorId: actor.id,
          targetUserId: ownerId,
          action: ownerId === actor.id ? 'order.manual' : 'order.manual.for-user',
          detail: { orderId: result.orderId, externalId, items: input.items },
          requestId: actor.requestId,
        });
        return orders.get({ id: actor.id, isAdmin: actor.isAdmin }, result.orderId);
      }
      throw new AppError('unavailable', 'Could not number the order; please try again');
    },
  };
}

export type OrderApiService = ReturnType<typeof createOrderApiService>;
