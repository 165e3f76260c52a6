import {
  SELLER_CANCELLABLE_STATUSES,
  shippingAddressSchema,
  type Order,
  type OrderList,
  type OrderProduction,
  type OrderStatus,
  type OrderSummary,
  type Shipment,
} from '@layerline/contracts';
import { AppError, forbidden, notFound } from '../../errors.ts';
import { decodeCursor, pageFrom } from '../../platform/keyset-cursor.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import { canTransition, TransitionError } from './order-lifecycle.ts';
import type {
  EventActor,
  OrderDetailRow,
  OrderRepository,
  OrderRow,
  OrderSummaryRow,
} from './order-repository.ts';

/** Finds the seller's product variants by SKU (the products module's findVariantsBySkus). */
export type VariantLookup = (
  ownerId: string,
  skus: string[],
) => Promise<Map<string, { variantId: string; productName: string; variantName: string }>>;

/**
 * After a status change has been committed: who subscribes (the order API's webhooks) hears of it,
 * at least once (see announce). Subscribers deduplicate on `announcementId`.
 */
export interface OrderStatusChangeEvent {
  /** The change's outbox row: the same on every announcement of this change. */
  readonly announcementId: string;
  readonly orderId: string;
  readonly ownerId: string;
  readonly channel: string;
  /** null when the order has just been created (then `to` is its first settled status). */
  readonly from: OrderStatus | null;
  readonly to: OrderStatus;
  /**
   * A new order as ingestion stored it, when ingestion knows all of it (not when an item matched
   * through a listing or a SKU is repeated): what reading it back now would give, so a subscriber
   * that describes the order (the webhooks) need not read it. Absent on every other announcement,
   * the sweep's included: read the order then.
   */
  readonly created?: CreatedOrder;
}

/** A new order as stored, with the values an order read gives (the address with its empty fields). */
export interface CreatedOrder {
  readonly externalId: string;
  readonly platform: string;
  readonly customerName: string;
  readonly shippingAddress: Order['shippingAddress'];
  readonly placedAt: Date;
  readonly status: OrderStatus;
  readonly holdReason: string | null;
  readonly createdAt: Date;
  /** In the order a read lists them (by SKU, byte order); `productName` is the product label. */
  readonly items: readonly { sku: string; quantity: number; variantId: string | null; productName: string | null }[];
  readonly events: readonly { fromStatus: OrderStatus | null; toStatus: OrderStatus; reason: string; createdAt: Date }[];
}
export type OrderStatusListener = (event: OrderStatusChangeEvent) => Promise<void>;
/**
 * Hears committed changes many at a time (new orders are announced in batches): the same at-least-once
 * contract; when it throws, none of the batch counts as heard and the sweep announces them again.
 */
export type OrderStatusBatchListener = (events: readonly OrderStatusChangeEvent[]) => Promise<void>;

/** New orders announced per batch of the drain, and how far it may fall behind before ingestion waits. */
const ANNOUNCE_BATCH = 50;
const ANNOUNCE_BACKLOG = 500;

/** Who is asking, as the routes resolve it. */
export interface OrderViewer {
  readonly id: string;
  readonly isAdmin: boolean;
  readonly requestId?: string;
}

export interface OrderListOptions {
  status: OrderStatus | null;
  search: string;
  from: Date | null;
  to: Date | null;
  /** The previous page's `nextCursor` (absent: the first page). */
  cursor: string | undefined;
  limit: number;
}

const PLACED_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The order lists' cursor: [placed_at with microseconds, id]; anything else is a 400, never a 500. */
function afterOf(cursor: string | undefined): readonly [string, string] | null {
  const key = decodeCursor(cursor, ['string', 'string']);
  if (!key) return null;
  const [placed, id] = key as [string, string];
  if (!PLACED_KEY.test(placed) || Number.isNaN(Date.parse(placed)) || !UUID.test(id)) {
    throw new AppError('bad-request', 'cursor: this page link is not valid; start from the first page');
  }
  return [placed, id];
}

/** How an order page names a matched item's product: "Product — Variant". */
export const productLabel = (productName: string | null, variantName: string | null): string | null =>
  productName ? (variantName ? `${productName} — ${variantName}` : productName) : null;

/**
 * Which variant each SKU maps to: the seller's variant with that SKU, else a listing linked by
 * hand; with the product label when known (a match through a listing has none here: null).
 */
export function createLabelledSkuMatcher(lookup: VariantLookup, repository: OrderRepository) {
  return async (
    ownerId: string,
    shopId: string | null,
    skus: readonly string[],
  ): Promise<Map<string, { variantId: string; label: string | null }>> => {
    const unique = [...new Set(skus)];
    const result = new Map<string, { variantId: string; label: string | null }>();
    if (unique.length === 0) return result;
    const variants = await lookup(ownerId, unique);
    for (const [sku, variant] of variants) result.set(sku, { variantId: variant.variantId, label: productLabel(variant.productName, variant.variantName) });
    const missing = unique.filter((sku) => !result.has(sku));
    if (missing.length > 0) {
      for (const [sku, variantId] of await repository.linkedVariantsBySkus(ownerId, shopId, missing))
        result.set(sku, { variantId, label: null });
    }
    return result;
  };
}

/** Which variant each SKU maps to (see createLabelledSkuMatcher). */
export function createSkuMatcher(lookup: VariantLookup, repository: OrderRepository) {
  const labelled = createLabelledSkuMatcher(lookup, repository);
  return async (ownerId: string, shopId: string | null, skus: readonly string[]): Promise<Map<string, string>> =>
    new Map([...(await labelled(ownerId, shopId, skus))].map(([sku, match]) => [sku, match.variantId]));
}
export type SkuMatcher = ReturnType<typeof createSkuMatcher>;

const iso = (date: Date): string => date.toISOString();

function summaryDto(row: Omit<OrderSummaryRow, 'placedKey'>): OrderSummary {
  const o = row.order;
  return {
    id: o.id,
    ownerId: o.ownerId,
    ownerEmail: row.ownerEmail,
    platform: o.platform,
    shopId: o.shopId,
    shopName: row.shopName,
    externalId: o.externalId,
    status: o.status as OrderStatus,
    holdReason: o.holdReason,
    customerName: o.customerName,
    note: o.note,
    shippingAddress: orderAddress(o.shippingAddress),
    currency: o.currency,
    totalCents: o.totalCents,
    placedAt: iso(o.placedAt),
    createdAt: iso(o.createdAt),
    updatedAt: iso(o.updatedAt),
    releaseAt: o.releaseAt ? iso(o.releaseAt) : null,
    releasedAt: o.releasedAt ? iso(o.releasedAt) : null,
    changeWindowClosedReason: changeWindowClosedReason(o),
    itemCount: row.itemCount,
  };
}

/**
 * Why the seller can no longer change the address or cancel at no cost (docs/change-window.md),
 * or null while they can: an order is in its change window until it is released to production
 * (first accepted), which makes its print jobs and charges it.
 */
export function changeWindowClosedReason(o: Pick<OrderRow, 'status' | 'releasedAt'>): string | null {
  const status = o.status as OrderStatus;
  if (status === 'cancelled') return 'This order is already cancelled.';
  if ((status === 'received' || status === 'on_hold') && o.releasedAt === null) return null;
  if (status === 'shipped' || status === 'delivered') return 'This order has already shipped, so it can no longer be changed or cancelled.';
  const when = o.releasedAt ? ` on ${o.releasedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC` : '';
  return `This order was released to production${when} and the print farm is making it, so its address can no longer be changed and it can no longer be cancelled at no cost. Contact the print farm if something is wrong.`;
}

/** A shipping address changed in the change window, told to subscribers (the order API's webhooks). */
export interface OrderAddressChangeEvent {
  /** The timeline event the change wrote: the same however often it is told. */
  readonly eventId: string;
  readonly orderId: string;
  readonly ownerId: string;
  readonly previousAddress: Order['shippingAddress'];
}
export type OrderAddressListener = (event: OrderAddressChangeEvent) => Promise<void>;

/** How long a seller's change window setting is remembered by ingestion (a change takes this long at most). */
const CHANGE_WINDOW_CACHE_MS = 30_000;
/** Orders released per sweep (the next sweep takes the rest). */
const RELEASE_BATCH = 200;

const emptyAddress = { company: '', line2: '', region: '', phone: '', email: '' };

/** A stored shipping address as an order read gives it (optional fields empty, not missing). */
export const orderAddress = (stored: object): Order['shippingAddress'] => shippingAddressSchema.parse({ ...emptyAddress, ...stored });

function detailDto(row: OrderDetailRow, production: OrderProduction | null, shipments: Shipment[]): Order {
  const { itemCount: _count, ...summary } = summaryDto(row);
  return {
    ...summary,
    items: row.items.map((item) => ({
      id: item.id,
      sku: item.sku,
      title: item.title,
      quantity: item.quantity,
      unitPriceCents: item.unitPriceCents,
      variantId: item.variantId,
      productName: productLabel(item.productName, item.variantName),
    })),
    events: row.events.map((event) => ({
      id: event.id,
      fromStatus: event.fromStatus as OrderStatus | null,
      toStatus: event.toStatus as OrderStatus,
      actorKind: event.actorKind as 'user' | 'admin' | 'system' | 'marketplace',
      actorEmail: event.actorEmail,
      reason: event.reason,
      createdAt: iso(event.createdAt),
    })),
    production,
    shipments,
  };
}

export function holdReasonFor(unmatchedSkus: readonly string[]): string {
  return `No product variant has the SKU ${unmatchedSkus.map((s) => `“${s}”`).join(', ')}. Link the listing or add the SKU to a product.`;
}

/** Orders: lists, the order page, status changes through the lifecycle, and releasing holds. */
export function createOrderService(deps: {
  repository: OrderRepository;
  audit: AuditRepository;
  lookupVariants: VariantLookup;
  /** The print farm's progress on these orders (those with print jobs). */
  productionOf?: (orderIds: readonly string[]) => Promise<Map<string, OrderProduction>>;
  /** The orders' labels (the shipping module). */
  shipmentsOf?: (orderIds: readonly string[]) => Promise<Map<string, Shipment[]>>;
  log?: { error(obj: unknown, msg?: string): void };
}) {
  const { repository, audit } = deps;
  const productionOf = async (orderIds: readonly string[]) =>
    deps.productionOf ? deps.productionOf(orderIds) : new Map<string, OrderProduction>();
  const shipmentsOf = async (orderIds: readonly string[]) =>
    deps.shipmentsOf ? deps.shipmentsOf(orderIds) : new Map<string, Shipment[]>();
  const listeners: OrderStatusListener[] = [];
  const addressListeners: OrderAddressListener[] = [];
  const windowHours = new Map<string, { hours: number; until: number }>();
  const batchListeners: OrderStatusBatchListener[] = [];
  const matchSkusLabelled = createLabelledSkuMatcher(deps.lookupVariants, repository);
  const matchSkus = createSkuMatcher(deps.lookupVariants, repository);

  /**
   * Tells every subscriber of a committed change, then marks it announced. A subscriber that fails
   * leaves it unannounced (logged; the change itself stands), so the sweep announces it again.
   */
  async function announce(event: OrderStatusChangeEvent): Promise<void> {
    if (!(await tell(event))) return;
    try {
      await repository.markAnnounced(event.announcementId);
    } catch (error) {
      // Announced but not marked: the sweep announces it again, and subscribers deduplicate.
      deps.log?.error({ err: error, announcementId: event.announcementId }, 'could not mark an order change announced');
    }
  }

  /**
   * New orders are announced right after the request that stored them, not within it: the order
   * API answers as soon as the order (and its outbox row) is committed, and a background drain
   * tells the subscribers, many orders at a time, and marks the batch announced in one statement.
   * Nothing is lost by a crash meanwhile: the outbox row stays unannounced and the sweep announces
   * it. When the drain falls behind by `ANNOUNCE_BACKLOG` orders, ingestion waits for it, so memory
   * stays bounded and a burst slows its senders rather than piling up.
   */
  const queued: OrderStatusChangeEvent[] = [];
  let draining: Promise<void> | null = null;

  /** Tells the batch listeners; false when one failed (then none of the batch counts as heard). */
  async function tellBatch(events: readonly OrderStatusChangeEvent[]): Promise<boolean> {
    let heard = true;
    for (const listener of batchListeners) {
      try {
        await listener(events);
      } catch (error) {
        heard = false;
        deps.log?.error({ err: error, count: events.length }, 'order status listener failed on a batch; the sweep retries');
      }
    }
    return heard;
  }

  async function tell(event: OrderStatusChangeEvent): Promise<boolean> {
    let heard = await tellBatch([event]);
    for (const listener of listeners) {
      try {
        await listener(event);
      } catch (error) {
        heard = false;
        deps.log?.error({ err: error, orderId: event.orderId, announcementId: event.announcementId }, 'order status listener failed; the sweep retries');
      }
    }
    return heard;
  }

  async function drain(): Promise<void> {
    // One turn of the event loop gathers the orders committed meanwhile into the batch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (queued.length > 0) {
      const batch = queued.splice(0, ANNOUNCE_BATCH);
      const heard: string[] = [];
      const [batchHeard] = await Promise.all([
        tellBatch(batch),
        ...batch.map(async (event) => {
          let ok = true;
          for (const listener of listeners) {
            try {
              await listener(event);
            } catch (error) {
              ok = false;
              deps.log?.error({ err: error, orderId: event.orderId, announcementId: event.announcementId }, 'order status listener failed; the sweep retries');
            }
          }
          if (ok) heard.push(event.announcementId);
          return ok;
        }),
      ]);
      if (!batchHeard) heard.length = 0;
      try {
        await repository.markAnnouncedMany(heard);
      } catch (error) {
        // Announced but not marked: the sweep announces them again, and subscribers deduplicate.
        deps.log?.error({ err: error, count: heard.length }, 'could not mark order changes announced');
      }
    }
  }

  async function announceSoon(event: OrderStatusChangeEvent): Promise<void> {
    queued.push(event);
    draining ??= drain().finally(() => {
      draining = null;
    });
    if (queued.length >= ANNOUNCE_BACKLOG) await announcementsSettled();
  }

  /** Resolves once every change queued so far has been announced (or left to the sweep). */
  async function announcementsSettled(): Promise<void> {
    while (draining) await draining;
  }

  /**
   * Announces the changes a crash (between commit and announcement) or a failing subscriber left
   * unannounced for `olderThanMs`, oldest first, up to `limit`; returns how many were tried.
   */
  async function announcePending(olderThanMs: number, limit: number): Promise<number> {
    const pending = await repository.unannounced(olderThanMs, limit);
    for (const row of pending) {
      await announce({
        announcementId: row.id,
        orderId: row.orderId,
        ownerId: row.ownerId,
        channel: row.channel,
        from: row.fromStatus as OrderStatus | null,
        to: row.toStatus as OrderStatus,
      });
    }
    return pending.length;
  }

  /**
   * The one way a status changes after creation: checked against the lifecycle, compare-and-set on
   * the current status, recorded as an event and an announcement in the same transaction, then announced.
   * Returns false when the order moved on meanwhile (the caller decides whether that is an error).
   */
  async function tryTransition(
    current: OrderRow,
    to: OrderStatus,
    reason: string,
    actor: EventActor,
  ): Promise<boolean> {
    const from = current.status as OrderStatus;
    if (!canTransition(from, to)) throw new TransitionError(from, to);
    const holdReason = to === 'on_hold' ? reason || current.holdReason || 'Put on hold' : null;
    const announcementId = await repository.transition(current.id, from, to, { actor, reason }, holdReason);
    if (announcementId)
      await announce({ announcementId, orderId: current.id, ownerId: current.ownerId, channel: current.channel, from, to });
    return announcementId !== null;
  }

  async function transitionOrFail(
    current: OrderRow,
    to: OrderStatus,
    reason: string,
    actor: EventActor,
  ): Promise<void> {
    try {
      if (!(await tryTransition(current, to, reason, actor))) {
        throw new AppError('conflict', 'The order changed meanwhile; reload it and try again');
      }
    } catch (error) {
      if (error instanceof TransitionError) throw new AppError('conflict', error.message);
      throw error;
    }
  }

  async function visible(viewer: OrderViewer, orderId: string): Promise<OrderRow> {
    const found = await repository.find(orderId);
    // Another seller's order answers exactly like a missing one.
    if (!found || (found.ownerId !== viewer.id && !viewer.isAdmin)) throw notFound('Order');
    return found;
  }

  async function get(viewer: OrderViewer, orderId: string): Promise<Order> {
    const row = await repository.detail(orderId);
    // Another seller's order answers exactly like a missing one.
    if (!row || (row.order.ownerId !== viewer.id && !viewer.isAdmin)) throw notFound('Order');
    const [production, shipments] = await Promise.all([productionOf([orderId]), shipmentsOf([orderId])]);
    return detailDto(row, production.get(orderId) ?? null, shipments.get(orderId) ?? []);
  }

  async function changeStatus(
    viewer: OrderViewer,
    orderId: string,
    to: OrderStatus,
    reason: string,
  ): Promise<Order> {
    const current = await visible(viewer, orderId);
    if (!viewer.isAdmin) {
      if (to !== 'cancelled')
        throw forbidden('Only Layerline can move an order through production; you may cancel it');
      if (!SELLER_CANCELLABLE_STATUSES.includes(current.status as OrderStatus)) {
        throw new AppError('conflict', 'This order is already in production and can no longer be cancelled');
      }
    }
    await transitionOrFail(current, to, reason, { kind: viewer.isAdmin ? 'admin' : 'user', id: viewer.id });
    if (viewer.isAdmin && current.ownerId !== viewer.id) {
      await audit.record({
        actorId: viewer.id,
        targetUserId: current.ownerId,
        action: 'order.status',
        detail: { orderId, from: current.status, to, reason },
        requestId: viewer.requestId,
      });
    }
    return get(viewer, orderId);
  }

  /** The change window's refusal, in words (409), when the order is past it. */
  function assertInChangeWindow(current: OrderRow): void {
    const closed = changeWindowClosedReason(current);
    if (closed) throw new AppError('conflict', closed);
  }

  async function auditForOther(viewer: OrderViewer, current: OrderRow, action: string, detail: Record<string, unknown>): Promise<void> {
    if (!viewer.isAdmin || current.ownerId === viewer.id) return;
    await audit.record({ actorId: viewer.id, targetUserId: current.ownerId, action, detail: { orderId: current.id, ...detail }, requestId: viewer.requestId });
  }

  /** A new shipping address for an order not yet released (its owner, or an admin for them). */
  async function changeAddress(viewer: OrderViewer, orderId: string, address: Order['shippingAddress']): Promise<Order> {
    const current = await visible(viewer, orderId);
    assertInChangeWindow(current);
    const previousAddress = orderAddress(current.shippingAddress);
    const eventId = await repository.changeAddressBeforeRelease(current.id, current.status as OrderStatus, address, {
      actor: { kind: viewer.isAdmin ? 'admin' : 'user', id: viewer.id },
      reason: `Shipping address changed (was ${[previousAddress.line1, previousAddress.city, previousAddress.postalCode, previousAddress.country].join(', ')})`,
    });
    if (!eventId) {
      // Released (or cancelled) between the read and the write: say why, as it is now.
      const now = await visible(viewer, orderId);
      throw new AppError('conflict', changeWindowClosedReason(now) ?? 'The order changed meanwhile; reload it and try again');
    }
    await auditForOther(viewer, current, 'order.address', { previousAddress, address });
    for (const listener of addressListeners) {
      try {
        await listener({ eventId, orderId: current.id, ownerId: current.ownerId, previousAddress });
      } catch (error) {
        deps.log?.error({ err: error, orderId }, 'an address change listener failed');
      }
    }
    return get(viewer, orderId);
  }

  /**
   * Cancels an order not yet released: no print job was made and nothing was charged (payments
   * charges at release; a charge taken anyway is refunded on the cancellation's announcement).
   */
  async function cancelBeforeRelease(viewer: OrderViewer, orderId: string, reason: string): Promise<Order> {
    const current = await visible(viewer, orderId);
    assertInChangeWindow(current);
    try {
      const moved = await tryTransition(current, 'cancelled', reason || 'Cancelled in the change window, before release', {
        kind: viewer.isAdmin ? 'admin' : 'user',
        id: viewer.id,
      });
      if (!moved) {
        const now = await visible(viewer, orderId);
        throw new AppError('conflict', changeWindowClosedReason(now) ?? 'The order changed meanwhile; reload it and try again');
      }
    } catch (error) {
      if (error instanceof TransitionError) throw new AppError('conflict', error.message);
      throw error;
    }
    await auditForOther(viewer, current, 'order.cancel', { reason });
    return get(viewer, orderId);
  }

  /** The seller's change window, as ingestion needs it for every order (remembered briefly). */
  async function changeWindowHoursOf(ownerId: string): Promise<number> {
    const cached = windowHours.get(ownerId);
    if (cached && cached.until > Date.now()) return cached.hours;
    const hours = await repository.changeWindowHours(ownerId);
    windowHours.set(ownerId, { hours, until: Date.now() + CHANGE_WINDOW_CACHE_MS });
    return hours;
  }

  async function list(ownerId: string | null, options: OrderListOptions): Promise<OrderList> {
    const { cursor, limit, ...filters } = options;
    const rows = await repository.list({ ownerId, ...filters, after: afterOf(cursor), limit: limit + 1 });
    return pageFrom(rows, limit, (row) => [row.placedKey, row.order.id], summaryDto);
  }

  return {
    /** Subscribes to every committed status change (creation included, with `from: null`), at least once. */
    onStatusChange(listener: OrderStatusListener): void {
      listeners.push(listener);
    },
    /** Subscribes to shipping addresses changed in the change window (told once, after the commit). */
    onAddressChange(listener: OrderAddressListener): void {
      addressListeners.push(listener);
    },
    /** Subscribes to committed status changes in batches (see OrderStatusBatchListener). */
    onStatusChanges(listener: OrderStatusBatchListener): void {
      batchListeners.push(listener);
    },
    /** Announces a committed change now (status changes: the caller waits for its subscribers). */
    announce,
    /** For order ingestion: announces a committed new order from the background drain (see drain). */
    announceSoon,
    announcementsSettled,
    announcePending,
    /** Drops announcements older than `before` that were made (the sweep's housekeeping). */
    pruneAnnounced: (before: Date) => repository.pruneAnnounced(before),
    tryTransition,
    /** Puts a step that changes no status on the order's timeline (claims: docs/claims.md). */
    addTimelineEvent: (orderId: string, actor: EventActor, reason: string) => repository.addTimelineEvent(orderId, { actor, reason }),
    matchSkus,
    matchSkusLabelled,

    get,
    /** Orders by id in one read, whoever owns them (for subscribers that check the owner themselves). */
    async getMany(orderIds: readonly string[]): Promise<Map<string, Order>> {
      const rows = await repository.detailMany(orderIds);
      const ids = rows.map((row) => row.order.id);
      const [production, shipments] = await Promise.all([productionOf(ids), shipmentsOf(ids)]);
      return new Map(rows.map((row) => [row.order.id, detailDto(row, production.get(row.order.id) ?? null, shipments.get(row.order.id) ?? [])]));
    },
    changeStatus,

    /** A page of the seller's orders, newest placed first. */
    async listForOwner(ownerId: string, options: OrderListOptions): Promise<OrderList> {
      return list(ownerId, options);
    },

    /** A page of every seller's orders (admins), newest placed first. */
    async listAll(options: OrderListOptions): Promise<OrderList> {
      return list(null, options);
    },

    /**
     * The spec's updateEtsyMetaStatus(targetUserId, receiptId, newStatus): the seller's Etsy order
     * by its receipt id, moved to the new status (by the rules of changeStatus).
     */
    async updateEtsyMetaStatus(
      viewer: OrderViewer,
      ownerId: string,
      receiptId: string,
      newStatus: OrderStatus,
      reason: string,
    ): Promise<Order> {
      const found = await repository.findByPlatformExternalId(ownerId, 'etsy', receiptId);
      if (!found) throw notFound('Etsy order');
      return changeStatus(viewer, found.id, newStatus, reason);
    },

    /**
     * After a listing or a product variant was linked: items of the seller's on-hold orders whose
     * SKU now matches get their variant; an order with every item matched is released to accepted.
     * Returns how many orders were released.
     */
    async rematchOnHold(ownerId: string): Promise<number> {
      let released = 0;
      for (const entry of await repository.onHoldWithUnmatched(ownerId)) {
        const matches = await matchSkus(
          ownerId,
          entry.order.shopId,
          entry.unmatched.map((item) => item.sku),
        );
        const assigned = entry.unmatched.flatMap((item) => {
          const variantId = matches.get(item.sku);
          return variantId ? [{ itemId: item.id, variantId }] : [];
        });
        if (assigned.length === 0) continue;
        await repository.setItemVariants(assigned);
        const stillUnmatched = [
          ...new Set(entry.unmatched.filter((item) => !matches.has(item.sku)).map((item) => item.sku)),
        ];
        if (stillUnmatched.length > 0) {
          await repository.setHoldReason(entry.order.id, holdReasonFor(stillUnmatched));
          continue;
        }
        try {
          // Still in the seller's change window: it waits received, and the release sweep moves it on.
          const waiting = entry.order.releaseAt !== null && entry.order.releaseAt.getTime() > Date.now();
          const moved = await tryTransition(entry.order, waiting ? 'received' : 'accepted', 'Every SKU now matches a product variant', {
            kind: 'system',
            id: null,
          });
          if (moved && !waiting)
            released += 1;
        } catch (error) {
          if (!(error instanceof TransitionError)) throw error;
        }
      }
      return released;
    },

    countOpen: (ownerId: string) => repository.countOpenForOwner(ownerId),

    changeAddress,
    cancelBeforeRelease,
    changeWindowHoursOf,

    async orderSettings(ownerId: string): Promise<{ changeWindowHours: number }> {
      return { changeWindowHours: await repository.changeWindowHours(ownerId) };
    },

    async setOrderSettings(viewer: OrderViewer, ownerId: string, settings: { changeWindowHours: number }): Promise<{ changeWindowHours: number }> {
      if (!(await repository.setChangeWindowHours(ownerId, settings.changeWindowHours))) throw notFound('Seller');
      windowHours.delete(ownerId);
      if (viewer.id !== ownerId)
        await audit.record({ actorId: viewer.id, targetUserId: ownerId, action: 'order.settings', detail: settings, requestId: viewer.requestId });
      return { changeWindowHours: settings.changeWindowHours };
    },

    /**
     * Releases the orders whose change window has ended (received → accepted, by the system): the
     * farm then makes their jobs and payments charges them, as for any accepted order. Returns how many.
     * `now` is the sweep's clock (tests pass a later one rather than wait hours).
     */
    async releaseDue(now: Date = new Date()): Promise<number> {
      let released = 0;
      for (const row of await repository.dueForRelease(now, RELEASE_BATCH)) {
        try {
          if (await tryTransition(row, 'accepted', 'The change window ended: released to production', { kind: 'system', id: null })) released += 1;
        } catch (error) {
          if (!(error instanceof TransitionError)) throw error;
        }
      }
      return released;
    },
  };
}

export type OrderService = ReturnType<typeof createOrderService>;
