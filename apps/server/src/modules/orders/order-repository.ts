import { and, asc, count, desc, eq, gte, ilike, inArray, isNull, lt, lte, or, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { OrderStatus } from '@layerline/contracts';
import type { Database } from '../../db/client.ts';
import { namedStatement } from '../../db/named-statement.ts';
import {
  listing,
  order,
  orderEvent,
  orderItem,
  orderOutbox,
  sellerOrderSettings,
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
  /** The end of the seller's change window, or null (released on arrival when accepted). */
  releaseAt: Date | null;
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

type ItemJson = OrderItemRow & { productName: string | null; variantName: string | null };
interface EventJson {
  id: string;
  fromStatus: string | null;
  toStatus: string;
  actorKind: string;
  actorEmail: string | null;
  reason: string;
  createdAt: string;
}

/** How many of a list's newest orders a search walks before it asks the trigram index (see list). */
const SEARCH_WINDOW = 4000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `OFFSET 0` as drizzle sends it (a number 0 is dropped from the statement): a subquery the planner keeps whole. */
const OPTIMIZATION_FENCE = sql`0` as unknown as number;

const escapeLike = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** What the lists search (order.search_text): order number, buyer, each item's SKU and title, one a line. */
export function searchTextOf(newOrder: Pick<NewOrder, 'externalId' | 'customerName'>, items: readonly Pick<NewOrderItem, 'sku' | 'title'>[]): string {
  return [newOrder.externalId, newOrder.customerName, ...items.flatMap((item) => [item.sku, item.title])].join('\n').toLowerCase();
}

/** What the insert statements answer: `orderId` and the rest only when the order was created. */
interface InsertedRow {
  everyVariantMatched: boolean;
  variants: VariantOfSku[];
  orderId: string | null;
  announcementId: string | null;
  createdAt: string | null;
}

/** A seller's product variant found by its SKU while storing an order. */
export interface VariantOfSku {
  readonly sku: string;
  readonly variantId: string;
  readonly productName: string;
  readonly variantName: string;
}

/** What storing a new order answers (see insertIfNew). */
export interface InsertResult {
  orderId: string;
  status: OrderStatus;
  created: boolean;
  announcementId: string | null;
  /** When created: the order's created_at and each event's time (in the order given). */
  createdAt?: Date;
  eventTimes?: Date[];
}

/** The order's row, inserted when `condition` holds and (channel, external_id) is new. */
const INSERT_ORDER_SQL = (condition: string) => `
       INSERT INTO "order" (owner_id, shop_id, channel, platform, external_id, status, hold_reason, customer_name, note,
                            shipping_address, currency, total_cents, placed_at, search_text, release_at, released_at)
       SELECT $1::text, $2::uuid, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text,
              $10::jsonb, $11::text, $12::int, $13::timestamptz, $14::text, $17::timestamptz,
              CASE WHEN $6::text = 'accepted' THEN now() END
       WHERE ${condition}
       ON CONFLICT (channel, external_id) DO NOTHING
       RETURNING id`;

/** An inserted order's first events ($16) and its announcement, as one change from nothing to the status it settled on. */
const INSERT_EVENTS_AND_ANNOUNCEMENT_SQL = `events AS (
       INSERT INTO order_event (order_id, from_status, to_status, actor_kind, actor_id, reason, created_at)
       SELECT inserted.id, e.from_status, e.to_status, e.actor_kind, e.actor_id, e.reason, e.created_at
       FROM inserted, jsonb_to_recordset($16::jsonb)
         AS e(from_status text, to_status text, actor_kind text, actor_id text, reason text, created_at timestamptz)
     ), announced AS (
       INSERT INTO order_outbox (order_id, from_status, to_status)
       SELECT inserted.id, NULL, $6::text FROM inserted
       RETURNING id, order_id
     )`;

/** Orders, their items and their status history. Only this file touches those tables. */
export function createOrderRepository(db: Database, options: { searchWindow?: number } = {}) {
  const searchWindow = options.searchWindow ?? SEARCH_WINDOW;
  const placedKey = sql<string>`to_char(${order.placedAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
  const itemCount = sql<number>`(select count(*)::int from "order_item" where "order_item"."order_id" = "order"."id")`;

  /**
   * An order with its items, its first events and its announcement: one statement, so one round
   * trip and its own transaction (all or nothing). On a conflict the order's INSERT returns
   * nothing, so nothing else is written. Prepared once per connection: it runs for every order.
   * `$1`–`$14` are the order's columns, `$15` its items, `$16` its events and `$17` the end of its
   * change window (insertParams).
   */
  const insertOrder = namedStatement<InsertedRow>(
    db,
    'order_insert_if_new',
    `WITH x AS (
       SELECT * FROM jsonb_to_recordset($15::jsonb)
         AS x(external_item_id text, sku text, title text, quantity int, unit_price_cents int, variant_id uuid)
     ), inserted AS (${INSERT_ORDER_SQL('TRUE')}
     ), items AS (
       INSERT INTO order_item (order_id, external_item_id, sku, title, quantity, unit_price_cents, variant_id)
       SELECT inserted.id, x.external_item_id, x.sku, x.title, x.quantity, x.unit_price_cents, x.variant_id
       FROM inserted, x
     ), ${INSERT_EVENTS_AND_ANNOUNCEMENT_SQL}
     SELECT TRUE AS "everyVariantMatched", '[]'::json AS variants, announced.order_id::text AS "orderId",
            announced.id::text AS "announcementId",
            to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt"
     FROM announced`,
  );

  /**
   * The same, but the items' variants are found here, by SKU among the seller's variants (as the
   * products module's findVariantsBySkus does: an exact SKU, unique per seller), and the order is
   * stored only if every item's SKU is one: the order's status and events are then those of an
   * order whose every SKU matched. Otherwise nothing is written. Most orders take this path, so
   * matching their SKUs costs no statement of its own. Always answers one row.
   */
  const insertOrderIfEveryVariantMatches = namedStatement<InsertedRow>(
    db,
    'order_insert_if_every_variant_matches',
    `WITH x AS (
       SELECT * FROM jsonb_to_recordset($15::jsonb)
         AS x(external_item_id text, sku text, title text, quantity int, unit_price_cents int)
     ), m AS (
       SELECT v.sku, v.id AS variant_id, v.name AS variant_name, p.name AS product_name
       FROM product_variant v JOIN product p ON p.id = v.product_id
       WHERE v.owner_id = $1::text AND v.sku IN (SELECT x.sku FROM x)
     ), ok AS (
       SELECT NOT EXISTS (SELECT 1 FROM x WHERE NOT EXISTS (SELECT 1 FROM m WHERE m.sku = x.sku)) AS every
     ), inserted AS (${INSERT_ORDER_SQL('(SELECT every FROM ok)')}
     ), items AS (
       INSERT INTO order_item (order_id, external_item_id, sku, title, quantity, unit_price_cents, variant_id)
       SELECT inserted.id, x.external_item_id, x.sku, x.title, x.quantity, x.unit_price_cents, m.variant_id
       FROM inserted, x JOIN m ON m.sku = x.sku
     ), ${INSERT_EVENTS_AND_ANNOUNCEMENT_SQL}
     SELECT ok.every AS "everyVariantMatched",
            (SELECT coalesce(json_agg(json_build_object('sku', m.sku, 'variantId', m.variant_id, 'variantName', m.variant_name,
               'productName', m.product_name)), '[]'::json) FROM m) AS variants,
            announced.order_id::text AS "orderId", announced.id::text AS "announcementId",
            to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt"
     FROM ok LEFT JOIN announced ON true`,
  );

  /** The statements' parameters: the order's columns, its items and its events (with distinct, increasing times). */
  function insertParams(o: NewOrder, items: readonly Omit<NewOrderItem, 'variantId'>[] | readonly NewOrderItem[], events: readonly NewOrderEvent[], base: number) {
    const itemsJson = JSON.stringify(
      items.map((item) => ({
        external_item_id: item.externalItemId,
        sku: item.sku,
        title: item.title,
        quantity: item.quantity,
        unit_price_cents: item.unitPriceCents,
        variant_id: 'variantId' in item ? item.variantId : null,
      })),
    );
    // Distinct, increasing times keep the timeline in order even within one statement.
    const eventsJson = JSON.stringify(
      events.map((event, index) => ({
        from_status: event.fromStatus,
        to_status: event.toStatus,
        actor_kind: event.actor.kind,
        actor_id: event.actor.id,
        reason: event.reason,
        created_at: new Date(base + index).toISOString(),
      })),
    );
    return [
      o.ownerId,
      o.shopId,
      o.channel,
      o.platform,
      o.externalId,
      o.status,
      o.holdReason,
      o.customerName,
      o.note,
      JSON.stringify(o.shippingAddress),
      o.currency,
      o.totalCents,
      o.placedAt.toISOString(),
      searchTextOf(o, items),
      itemsJson,
      eventsJson,
      o.releaseAt?.toISOString() ?? null,
    ];
  }

  /** What either insert answers: created (with its times), or the order that was already there. */
  async function settle(o: NewOrder, events: readonly NewOrderEvent[], base: number, created: InsertedRow | undefined): Promise<InsertResult> {
    if (created?.orderId && created.announcementId && created.createdAt) {
      return {
        orderId: created.orderId,
        status: o.status,
        created: true,
        announcementId: created.announcementId,
        // created_at and updated_at default to now(): the statement's own time.
        createdAt: new Date(created.createdAt),
        eventTimes: events.map((_, index) => new Date(base + index)),
      };
    }
    const [existing] = await db
      .select({ id: order.id, status: order.status })
      .from(order)
      .where(and(eq(order.channel, o.channel), eq(order.externalId, o.externalId)));
    if (!existing) throw new Error('order conflict without an existing row');
    return { orderId: existing.id, status: existing.status as OrderStatus, created: false, announcementId: null };
  }

  /** Sellers whose email matches an admin's search (a small table; at most 100 of them). */
  async function ownersMatching(pattern: string): Promise<string[]> {
    const rows = await db.select({ id: user.id }).from(user).where(ilike(user.email, pattern)).limit(100);
    return rows.map((row) => row.id);
  }

  /** Orders with their items (and their product) and timelines (with each actor's email): one statement. */
  async function detailMany(ids: readonly string[]): Promise<OrderDetailRow[]> {
    if (ids.length === 0) return [];
    const items = sql<ItemJson[]>`(
      SELECT coalesce(json_agg(json_build_object(
        'id', i.id, 'orderId', i.order_id, 'externalItemId', i.external_item_id, 'sku', i.sku, 'title', i.title,
        'quantity', i.quantity, 'unitPriceCents', i.unit_price_cents, 'variantId', i.variant_id,
        'productName', p.name, 'variantName', v.name) ORDER BY i.sku COLLATE "C", i.id), '[]'::json)
      FROM order_item i
      LEFT JOIN product_variant v ON v.id = i.variant_id
      LEFT JOIN product p ON p.id = v.product_id
      WHERE i.order_id = ${order.id})`;
    const events = sql<EventJson[]>`(
      SELECT coalesce(json_agg(json_build_object(
        'id', e.id, 'fromStatus', e.from_status, 'toStatus', e.to_status, 'actorKind', e.actor_kind,
        'actorEmail', (SELECT a.email FROM "user" a WHERE a.id = e.actor_id), 'reason', e.reason,
        'createdAt', to_char(e.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) ORDER BY e.created_at, e.id), '[]'::json)
      FROM order_event e
      WHERE e.order_id = ${order.id})`;
    const rows = await db
      .select({ order, ownerEmail: user.email, shopName: shopConnection.name, items, events })
      .from(order)
      .innerJoin(user, eq(user.id, order.ownerId))
      .leftJoin(shopConnection, eq(shopConnection.id, order.shopId))
      .where(ids.length === 1 ? eq(order.id, ids[0]!) : inArray(order.id, [...ids]));
    return rows.map((row) => ({
      order: row.order,
      ownerEmail: row.ownerEmail,
      shopName: row.shopName,
      itemCount: row.items.length,
      items: row.items,
      events: row.events.map((event) => ({ ...event, createdAt: new Date(event.createdAt) })),
    }));
  }

  return {
    /**
     * Stores a new order with its items and first events, all or nothing. Idempotent on
     * (channel, externalId): when the order is already there (or another delivery of it is being
     * stored right now) nothing is written and the existing order is returned.
     */
    async insertIfNew(newOrder: NewOrder, items: readonly NewOrderItem[], events: readonly NewOrderEvent[]): Promise<InsertResult> {
      // One statement (insertOrder); on a conflict the stored order is read back.
      const base = Date.now();
      const [created] = await insertOrder(insertParams(newOrder, items, events, base));
      return settle(newOrder, events, base, created);
    },

    /**
     * insertIfNew for an order whose items' variants are not looked up yet: in one statement, stores
     * it (as given: the status and events of an order whose every SKU matched) only if every item's
     * SKU is one of the seller's product variants, with those variants. `everyVariantMatched: false`
     * when one is not: nothing was written, and the caller matches the SKUs its own way (listings
     * too) and calls insertIfNew. Idempotent like insertIfNew.
     */
    async insertIfEveryVariantMatches(
      newOrder: NewOrder,
      items: readonly Omit<NewOrderItem, 'variantId'>[],
      events: readonly NewOrderEvent[],
    ): Promise<{ everyVariantMatched: false } | (InsertResult & { everyVariantMatched: true; variants: VariantOfSku[] })> {
      const base = Date.now();
      const [row] = await insertOrderIfEveryVariantMatches(insertParams(newOrder, items, events, base));
      if (!row?.everyVariantMatched) return { everyVariantMatched: false };
      return { everyVariantMatched: true, variants: row.variants, ...(await settle(newOrder, events, base, row)) };
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

    detailMany,

    async detail(id: string): Promise<OrderDetailRow | undefined> {
      const [row] = await detailMany([id]);
      return row;
    },

    /**
     * One page of orders, newest placed first, after `filter.after` (keyset: every page costs what
     * the first costs). Each filter has its index: (owner, placed, id), (owner, status, placed, id),
     * (placed, id), (status, placed, id); the search a trigram index on search_text, plus (for
     * admins) the sellers whose email matches and an exact order id.
     */
    async list(filter: OrderListFilter): Promise<OrderSummaryRow[]> {
      const scope = and(
        filter.ownerId ? eq(order.ownerId, filter.ownerId) : undefined,
        filter.status ? eq(order.status, filter.status) : undefined,
        filter.from ? gte(order.placedAt, filter.from) : undefined,
        filter.to ? lt(order.placedAt, filter.to) : undefined,
        filter.after ? sql`(${order.placedAt}, ${order.id}) < (${filter.after[0]}::timestamptz, ${filter.after[1]}::uuid)` : undefined,
      );
      const page = async (where: SQL | undefined): Promise<OrderSummaryRow[]> => {
        const rows = await db
          .select({ order, ownerEmail: user.email, shopName: shopConnection.name, itemCount, placedKey })
          .from(order)
          .innerJoin(user, eq(user.id, order.ownerId))
          .leftJoin(shopConnection, eq(shopConnection.id, order.shopId))
          .where(where)
          .orderBy(desc(order.placedAt), desc(order.id))
          .limit(filter.limit);
        return rows.map((row) => ({ ...row, itemCount: Number(row.itemCount) }));
      };
      const search = filter.search.trim();
      if (!search) return page(scope);

      const pattern = escapeLike(search);
      const owners = filter.ownerId ? [] : await ownersMatching(pattern);
      const matches = (columns: { id: AnyColumn | SQL.Aliased; ownerId: AnyColumn | SQL.Aliased; searchText: AnyColumn | SQL.Aliased }): SQL =>
        or(
          sql`${columns.searchText} ILIKE ${pattern}`,
          UUID.test(search) ? sql`${columns.id} = ${search.toLowerCase()}::uuid` : undefined,
          owners.length > 0 ? sql`${columns.ownerId} IN (${sql.join(owners.map((owner) => sql`${owner}`), sql`, `)})` : undefined,
        )!;
      // A term that many orders contain is found fastest by walking the newest orders of the list
      // in order; a rare one by the trigram index. First the walk, bounded: when the newest
      // SEARCH_WINDOW orders hold a whole page of matches, that is the page; otherwise the index.
      const window = db
        .select({ id: order.id, ownerId: order.ownerId, placedAt: order.placedAt, searchText: order.searchText })
        .from(order)
        .where(scope)
        .orderBy(desc(order.placedAt), desc(order.id))
        .limit(searchWindow)
        .as('newest');
      const hits = await db
        .select({ id: window.id })
        .from(window)
        .where(matches(window))
        .orderBy(desc(window.placedAt), desc(window.id))
        .limit(filter.limit);
      if (hits.length === filter.limit) return page(inArray(order.id, hits.map((hit) => hit.id)));
      // A rare term: its matches from the trigram index, then the newest of them. OFFSET 0 keeps the
      // planner from folding the page's order and limit into the match (it would walk the placed-at
      // index instead whenever ANALYZE's sample makes the term look common: 200 ms instead of 25).
      // Written as SQL: drizzle leaves a numeric `.offset(0)` out of the statement.
      const matching = db
        .select({ id: order.id, placedAt: order.placedAt })
        .from(order)
        .where(and(scope, matches(order)))
        .offset(OPTIMIZATION_FENCE)
        .as('matching');
      const newest = await db
        .select({ id: matching.id })
        .from(matching)
        .orderBy(desc(matching.placedAt), desc(matching.id))
        .limit(filter.limit);
      return newest.length === 0 ? [] : page(inArray(order.id, newest.map((hit) => hit.id)));
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
          .set({
            status: to,
            holdReason,
            updatedAt: new Date(),
            // The first acceptance is the release to production; the change window closes with it.
            ...(to === 'accepted' ? { releasedAt: sql`coalesce(${order.releasedAt}, now())` } : {}),
          })
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

    /**
     * A step on the order's timeline that is not a status change (a claim filed or decided, docs/claims.md):
     * an event from its current status to the same, announced to no one (the step tells its own listeners).
     */
    async addTimelineEvent(orderId: string, event: { actor: EventActor; reason: string }): Promise<void> {
      const [current] = await db.select({ status: order.status }).from(order).where(eq(order.id, orderId));
      if (!current) return;
      await db.insert(orderEvent).values({
        orderId,
        fromStatus: current.status,
        toStatus: current.status,
        actorKind: event.actor.kind,
        actorId: event.actor.id,
        reason: event.reason,
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

    /** Marks a batch of announcements made, in one statement. */
    async markAnnouncedMany(announcementIds: readonly string[]): Promise<void> {
      if (announcementIds.length === 0) return;
      await db.update(orderOutbox).set({ announcedAt: new Date() }).where(inArray(orderOutbox.id, [...announcementIds]));
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

    /**
     * Replaces the shipping address of an order still in its change window (compare-and-set on
     * its status and on not being released), with an event in its timeline, in one transaction.
     * The event's id, or null when the window closed meanwhile.
     */
    async changeAddressBeforeRelease(
      orderId: string,
      status: OrderStatus,
      address: ShippingAddressJson,
      event: { actor: EventActor; reason: string },
    ): Promise<string | null> {
      return db.transaction(async (tx) => {
        const updated = await tx
          .update(order)
          .set({ shippingAddress: address, updatedAt: new Date() })
          .where(and(eq(order.id, orderId), eq(order.status, status), isNull(order.releasedAt)))
          .returning({ id: order.id });
        if (updated.length === 0) return null;
        const [written] = await tx
          .insert(orderEvent)
          .values({ orderId, fromStatus: status, toStatus: status, actorKind: event.actor.kind, actorId: event.actor.id, reason: event.reason })
          .returning({ id: orderEvent.id });
        return written!.id;
      });
    },

    /** Orders whose change window has ended by `now` and that still wait `received`, soonest first. */
    async dueForRelease(now: Date, limit: number): Promise<OrderRow[]> {
      return db
        .select()
        .from(order)
        .where(and(eq(order.status, 'received'), sql`${order.releaseAt} IS NOT NULL`, lte(order.releaseAt, now)))
        .orderBy(asc(order.releaseAt))
        .limit(limit);
    },

    /** The seller's change window in hours (0 when never set). */
    async changeWindowHours(ownerId: string): Promise<number> {
      const [row] = await db
        .select({ hours: sellerOrderSettings.changeWindowHours })
        .from(sellerOrderSettings)
        .where(eq(sellerOrderSettings.ownerId, ownerId));
      return row?.hours ?? 0;
    },

    /** False when no such seller exists (an admin's mistyped targetUserId). */
    async setChangeWindowHours(ownerId: string, hours: number): Promise<boolean> {
      const [exists] = await db.select({ id: user.id }).from(user).where(eq(user.id, ownerId));
      if (!exists) return false;
      await db
        .insert(sellerOrderSettings)
        .values({ ownerId, changeWindowHours: hours })
        .onConflictDoUpdate({ target: sellerOrderSettings.ownerId, set: { changeWindowHours: hours, updatedAt: new Date() } });
      return true;
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
