import { and, asc, count, desc, eq, gte, ilike, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { OrderStatus } from '@layerline/contracts';
import type { Database } from '../../db/client.ts';
import {
  listing,
  order,
  orderEvent,
  orderItem,
  orderOutbox,
  product,
  productVariant,
  shopConnection,
  user,
  type ShippingAddressJson,
} from '../../db/schema.ts';

export type OrderRow = typeof order.$inferSelect;
export type OrderItemRow = typeof orderItem.$inferSelect;

export type ActorKind = 'user' | 'admin' | 'system' | 'marketplace';

export interface EventActor {
  readonly kind: ActorKind;
  readonly id: string | null;
}

export interface NewOrder {
  ownerId: string;
  shopId: string | null;
  channel: string;
  platform: string;
  externalId: string;
  status: OrderStatus;
  holdReason: string | null;
  customerName: string;
  note: string;
  shippingAddress: ShippingAddressJson;
  currency: string;
  totalCents: number | null;
  placedAt: Date;
}

export interface NewOrderItem {
  externalItemId: string;
  sku: string;
  title: string;
  quantity: number;
  unitPriceCents: number | null;
  variantId: string | null;
}

export interface NewOrderEvent {
  fromStatus: OrderStatus | null;
  toStatus: OrderStatus;
  actor: EventActor;
  reason: string;
}

/** An outbox row with what subscribers need to hear of it. */
export interface AnnouncementRow {
  id: string;
  orderId: string;
  ownerId: string;
  channel: string;
  fromStatus: string | null;
  toStatus: string;
}

export interface OrderListFilter {
  ownerId: string | null;
  status: OrderStatus | null;
  search: string;
  from: Date | null;
  to: Date | null;
  /** The sort key of the previous page's last row: placed_at (ISO, microseconds) and id. */
  after: readonly [placedAt: string, id: string] | null;
  /** Rows to read (the service asks one more than it shows, to know whether a next page exists). */
  limit: number;
}

export interface OrderSummaryRow {
  order: OrderRow;
  ownerEmail: string;
  shopName: string | null;
  itemCount: number;
  /** placed_at at the database's full (microsecond) precision, UTC ISO: the cursor's key. */
  placedKey: string;
}

export interface OrderDetailRow extends Omit<OrderSummaryRow, 'placedKey'> {
  items: (OrderItemRow & { productName: string | null; variantName: string | null })[];
  events: {
    id: string;
    fromStatus: string | null;
    toStatus: string;
    actorKind: string;
    actorEmail: string | null;
    reason: string;
    createdAt: Date;
  }[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const escapeLike = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** What the lists search (order.search_text): order number, buyer, each item's SKU and title, one a line. */
export function searchTextOf(newOrder: Pick<NewOrder, 'externalId' | 'customerName'>, items: readonly Pick<NewOrderItem, 'sku' | 'title'>[]): string {
  return [newOrder.externalId, newOrder.customerName, ...items.flatMap((item) => [item.sku, item.title])].join('\n').toLowerCase();
}

/** Orders, their items and their status history. Only this file touches those tables. */
export function createOrderRepository(db: Database) {
  const placedKey = sql<string>`to_char(${order.placedAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
  const itemCount = sql<number>`(select count(*)::int from "order_item" where "order_item"."order_id" = "order"."id")`;

  /** Sellers whose email matches an admin's search (a small table; at most 100 of them). */
  async function ownersMatching(pattern: string): Promise<string[]> {
    const rows = await db.select({ id: user.id }).from(user).where(ilike(user.email, pattern)).limit(100);
    return rows.map((row) => row.id);
  }

  return {
    /**
     * Stores a new order with its items and first events, all or nothing. Idempotent on
     * (channel, externalId): when the order is already there (or another delivery of it is being
     * stored right now) nothing is written and the existing order is returned.
     */
    async insertIfNew(
      newOrder: NewOrder,
      items: readonly NewOrderItem[],
      events: readonly NewOrderEvent[],
    ): Promise<{ orderId: string; status: OrderStatus; created: boolean; announcementId: string | null }> {
      return db.transaction(async (tx) => {
        const [inserted] = await tx
          .insert(order)
          .values({ ...newOrder, searchText: searchTextOf(newOrder, items) })
          .onConflictDoNothing({ target: [order.channel, order.externalId] })
          .returning({ id: order.id });
        if (inserted) {
          if (items.length > 0)
            await tx.insert(orderItem).values(items.map((item) => ({ ...item, orderId: inserted.id })));
          if (events.length > 0) {
            // Distinct, increasing times keep the timeline in order even within one transaction.
            const base = Date.now();
            await tx.insert(orderEvent).values(
              events.map((event, index) => ({
                orderId: inserted.id,
                fromStatus: event.fromStatus,
                toStatus: event.toStatus,
                actorKind: event.actor.kind,
                actorId: event.actor.id,
                reason: event.reason,
                createdAt: new Date(base + index),
              })),
            );
          }
          // Announced as one change, from nothing to the status it settled on.
          const [announcement] = await tx
            .insert(orderOutbox)
            .values({ orderId: inserted.id, fromStatus: null, toStatus: newOrder.status })
            .returning({ id: orderOutbox.id });
          return { orderId: inserted.id, status: newOrder.status, created: true, announcementId: announcement!.id };
        }
        const [existing] = await tx
          .select({ id: order.id, status: order.status })
          .from(order)
          .where(and(eq(order.channel, newOrder.channel), eq(order.externalId, newOrder.externalId)));
        if (!existing) throw new Error('order conflict without an existing row');
        return { orderId: existing.id, status: existing.status as OrderStatus, created: false, announcementId: null };
      });
    },

    async findByChannel(channel: string, externalId: string): Promise<OrderRow | undefined> {
      const [row] = await db
        .select()
        .from(order)
        .where(and(eq(order.channel, channel), eq(order.externalId, externalId)));
      return row;
    },

    async find(id: string): Promise<OrderRow | undefined> {
      const [row] = await db.select().from(order).where(eq(order.id, id));
      return row;
    },

    /** An Etsy order of the seller by its receipt id (any of their Etsy shops). */
    async findByPlatformExternalId(
      ownerId: string,
      platform: string,
      externalId: string,
    ): Promise<OrderRow | undefined> {
      const [row] = await db
        .select()
        .from(order)
        .where(
          and(eq(order.ownerId, ownerId), eq(order.platform, platform), eq(order.externalId, externalId)),
        )
        .orderBy(desc(order.createdAt))
        .limit(1);
      return row;
    },

    async detail(id: string): Promise<OrderDetailRow | undefined> {
      const [row] = await db
        .select({ order, ownerEmail: user.email, shopName: shopConnection.name })
        .from(order)
        .innerJoin(user, eq(user.id, order.ownerId))
        .leftJoin(shopConnection, eq(shopConnection.id, order.shopId))
        .where(eq(order.id, id));
      if (!row) return undefined;
      const items = await db
        .select({ item: orderItem, productName: product.name, variantName: productVariant.name })
        .from(orderItem)
        .leftJoin(productVariant, eq(productVariant.id, orderItem.variantId))
        .leftJoin(product, eq(product.id, productVariant.productId))
        .where(eq(orderItem.orderId, id))
        .orderBy(asc(orderItem.sku), asc(orderItem.id));
      const events = await db
        .select({
          id: orderEvent.id,
          fromStatus: orderEvent.fromStatus,
          toStatus: orderEvent.toStatus,
          actorKind: orderEvent.actorKind,
          actorEmail: user.email,
          reason: orderEvent.reason,
          createdAt: orderEvent.createdAt,
        })
        .from(orderEvent)
        .leftJoin(user, eq(user.id, orderEvent.actorId))
        .where(eq(orderEvent.orderId, id))
        .orderBy(asc(orderEvent.createdAt), asc(orderEvent.id));
      return {
        ...row,
        itemCount: items.length,
        items: items.map((i) => ({ ...i.item, productName: i.productName, variantName: i.variantName })),
        events,
      };
    },

    /**
     * One page of orders, newest placed first, after `filter.after` (keyset: every page costs what
     * the first costs). Each filter has its index: (owner, placed, id), (owner, status, placed, id),
     * (placed, id), (status, placed, id); the search a trigram index on search_text, plus (for
     * admins) the sellers whose email matches and an exact order id.
     */
    async list(filter: OrderListFilter): Promise<OrderSummaryRow[]> {
      const search = filter.search.trim();
      const pattern = search ? escapeLike(search) : null;
      let searchCondition: SQL | undefined;
      if (pattern) {
        const arms: SQL[] = [ilike(order.searchText, pattern)];
        if (UUID.test(search)) arms.push(eq(order.id, search.toLowerCase()));
        if (!filter.ownerId) {
          const owners = await ownersMatching(pattern);
          if (owners.length > 0) arms.push(inArray(order.ownerId, owners));
        }
        searchCondition = or(...arms);
      }
      const rows = await db
        .select({ order, ownerEmail: user.email, shopName: shopConnection.name, itemCount, placedKey })
        .from(order)
        .innerJoin(user, eq(user.id, order.ownerId))
        .leftJoin(shopConnection, eq(shopConnection.id, order.shopId))
        .where(
          and(
            filter.ownerId ? eq(order.ownerId, filter.ownerId) : undefined,
            filter.status ? eq(order.status, filter.status) : undefined,
            filter.from ? gte(order.placedAt, filter.from) : undefined,
            filter.to ? lt(order.placedAt, filter.to) : undefined,
            filter.after
              ? sql`(${order.placedAt}, ${order.id}) < (${filter.after[0]}::timestamptz, ${filter.after[1]}::uuid)`
              : undefined,
            searchCondition,
          ),
        )
        .orderBy(desc(order.placedAt), desc(order.id))
        .limit(filter.limit);
      return rows.map((row) => ({ ...row, itemCount: Number(row.itemCount) }));
    },

    /**
     * Compare-and-set status change with its event, in one transaction: it only happens when the
     * order is still `from`, so two concurrent changes cannot both apply.
     */
    /** Compare-and-set from `from` to `to`, with its event and announcement; the announcement id, or null when the order moved on. */
    async transition(
      orderId: string,
      from: OrderStatus,
      to: OrderStatus,
      event: { actor: EventActor; reason: string },
      holdReason: string | null,
    ): Promise<string | null> {
      return db.transaction(async (tx) => {
        const updated = await tx
          .update(order)
          .set({ status: to, holdReason, updatedAt: new Date() })
          .where(and(eq(order.id, orderId), eq(order.status, from)))
          .returning({ id: order.id });
        if (updated.length === 0) return null;
        await tx.insert(orderEvent).values({
          orderId,
          fromStatus: from,
          toStatus: to,
          actorKind: event.actor.kind,
          actorId: event.actor.id,
          reason: event.reason,
        });
        const [announcement] = await tx
          .insert(orderOutbox)
          .values({ orderId, fromStatus: from, toStatus: to })
          .returning({ id: orderOutbox.id });
        return announcement!.id;
      });
    },

    /** Announcements still unannounced `olderThanMs` after their change, oldest first, with their order's owner and channel. */
    async unannounced(olderThanMs: number, limit: number): Promise<AnnouncementRow[]> {
      return db
        .select({
          id: orderOutbox.id,
          orderId: orderOutbox.orderId,
          ownerId: order.ownerId,
          channel: order.channel,
          fromStatus: orderOutbox.fromStatus,
          toStatus: orderOutbox.toStatus,
        })
        .from(orderOutbox)
        .innerJoin(order, eq(order.id, orderOutbox.orderId))
        .where(and(isNull(orderOutbox.announcedAt), lt(orderOutbox.createdAt, new Date(Date.now() - olderThanMs))))
        .orderBy(asc(orderOutbox.createdAt))
        .limit(limit);
    },

    async markAnnounced(announcementId: string): Promise<void> {
      await db.update(orderOutbox).set({ announcedAt: new Date() }).where(eq(orderOutbox.id, announcementId));
    },

    /** Forgets announcements made before `before` (their subscribers have long acted on them); returns how many. */
    async pruneAnnounced(before: Date): Promise<number> {
      const removed = await db.delete(orderOutbox).where(lt(orderOutbox.announcedAt, before)).returning({ id: orderOutbox.id });
      return removed.length;
    },

    /** On-hold orders of a seller that still have items without a variant, with those items. */
    async onHoldWithUnmatched(ownerId: string): Promise<{ order: OrderRow; unmatched: OrderItemRow[] }[]> {
      const rows = await db
        .select({ order, item: orderItem })
        .from(order)
        .innerJoin(orderItem, eq(orderItem.orderId, order.id))
        .where(and(eq(order.ownerId, ownerId), eq(order.status, 'on_hold'), isNull(orderItem.variantId)));
      const byOrder = new Map<string, { order: OrderRow; unmatched: OrderItemRow[] }>();
      for (const row of rows) {
        const entry = byOrder.get(row.order.id) ?? { order: row.order, unmatched: [] };
        entry.unmatched.push(row.item);
        byOrder.set(row.order.id, entry);
      }
      return [...byOrder.values()];
    },

    async setItemVariants(matches: readonly { itemId: string; variantId: string }[]): Promise<void> {
      if (matches.length === 0) return;
      await db.transaction(async (tx) => {
        for (const match of matches) {
          await tx
            .update(orderItem)
            .set({ variantId: match.variantId })
            .where(and(eq(orderItem.id, match.itemId), isNull(orderItem.variantId)));
        }
      });
    },

    async setHoldReason(orderId: string, holdReason: string): Promise<void> {
      await db
        .update(order)
        .set({ holdReason, updatedAt: new Date() })
        .where(and(eq(order.id, orderId), eq(order.status, 'on_hold')));
    },

    /**
     * Variants chosen for a SKU through a linked listing of the seller (a manual link can join a
     * listing SKU to a variant with another SKU). Listings of `shopId` win over other shops'.
     */
    async linkedVariantsBySkus(
      ownerId: string,
      shopId: string | null,
      skus: readonly string[],
    ): Promise<Map<string, string>> {
      const result = new Map<string, string>();
      const wanted = [...new Set(skus)].filter((s) => s !== '');
      if (wanted.length === 0) return result;
      const rows = await db
        .select({ sku: listing.sku, shopId: listing.shopId, variantId: listing.linkedVariantId })
        .from(listing)
        .where(
          and(
            eq(listing.ownerId, ownerId),
            inArray(listing.sku, wanted),
            sql`${listing.linkedVariantId} is not null`,
          ),
        );
      for (const row of rows) {
        if (!row.variantId) continue;
        if (!result.has(row.sku) || row.shopId === shopId) result.set(row.sku, row.variantId);
      }
      return result;
    },

    async countOpenForOwner(ownerId: string): Promise<number> {
      const [row] = await db
        .select({ total: count() })
        .from(order)
        .where(
          and(
            eq(order.ownerId, ownerId),
            inArray(order.status, ['received', 'on_hold', 'accepted', 'in_production', 'printed', 'packed']),
          ),
        );
      return row?.total ?? 0;
    },

    async countForChannel(channel: string): Promise<number> {
      const [row] = await db.select({ total: count() }).from(order).where(eq(order.channel, channel));
      return row?.total ?? 0;
    },
  };
}

export type OrderRepository = ReturnType<typeof createOrderRepository>;
