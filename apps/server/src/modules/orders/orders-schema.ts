import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { user } from '../../db/auth-schema.ts';
import { productVariant } from '../products/products-schema.ts';
import { shopConnection } from '../shops/shops-schema.ts';

/*
 * The orders module's tables: orders, their items, their status history and their outbox.
 * Re-exported by db/schema.ts, the one entry point of the ORM and drizzle-kit.
 */

export interface ShippingAddressJson {
  name: string;
  company: string;
  line1: string;
  line2: string;
  city: string;
  region: string;
  postalCode: string;
  country: string;
  phone: string;
  email: string;
}

/**
 * An order, from a marketplace, the order API, the sandbox or entered by hand. `channel` + `externalId`
 * is its natural key: however often a marketplace delivers it, it is stored once.
 */
export const order = pgTable(
  'order',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    shopId: uuid('shop_id').references(() => shopConnection.id, { onDelete: 'set null' }),
    /** Where it came from: a shop connection id, 'manual:<ownerId>' or 'api:<ownerId>'. */
    channel: text('channel').notNull(),
    platform: text('platform').notNull(),
    externalId: text('external_id').notNull(),
    status: text('status').notNull(),
    holdReason: text('hold_reason'),
    customerName: text('customer_name').notNull().default(''),
    /** The seller's (or buyer's) note for the print farm, e.g. from a manual order. */
    note: text('note').notNull().default(''),
    shippingAddress: jsonb('shipping_address').$type<ShippingAddressJson>().notNull(),
    currency: text('currency').notNull().default('USD'),
    totalCents: integer('total_cents'),
    placedAt: timestamp('placed_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * What the order lists search, lower-cased, one field a line: the order number, the buyer's
     * name, then each item's SKU and title. Written with the order (none of these change after).
     */
    searchText: text('search_text').notNull().default(''),
    /**
     * The end of the seller's change window (docs/change-window.md): a new order waits `received`
     * until then, and the release sweep moves it on. Null when the seller holds no orders.
     */
    releaseAt: timestamp('release_at', { withTimezone: true }),
    /** When it was first accepted (released to production: print jobs made, charged). Null before. */
    releasedAt: timestamp('released_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('order_channel_external_idx').on(table.channel, table.externalId),
    index('order_owner_created_idx').on(table.ownerId, table.createdAt),
    // The order lists (newest placed first, keyset on (placed_at, id)): a seller's, by status, and everyone's.
    index('order_owner_placed_idx').on(table.ownerId, table.placedAt, table.id),
    index('order_owner_status_placed_idx').on(table.ownerId, table.status, table.placedAt, table.id),
    index('order_placed_idx').on(table.placedAt, table.id),
    index('order_status_placed_idx').on(table.status, table.placedAt, table.id),
    // Substring search (buyer, order number, SKU) with pg_trgm, in PostgreSQL and PGlite alike.
    index('order_search_trgm_idx').using('gin', table.searchText.op('gin_trgm_ops')),
    // The release sweep: orders still waiting in their change window, by when it ends.
    index('order_release_due_idx')
      .on(table.releaseAt)
      .where(sql`${table.status} = 'received' AND ${table.releaseAt} IS NOT NULL`),
  ],
);

export const orderItem = pgTable(
  'order_item',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    orderId: uuid('order_id')
      .notNull()
      .references(() => order.id, { onDelete: 'cascade' }),
    externalItemId: text('external_item_id').notNull().default(''),
    sku: text('sku').notNull(),
    title: text('title').notNull().default(''),
    quantity: integer('quantity').notNull(),
    unitPriceCents: integer('unit_price_cents'),
    variantId: uuid('variant_id').references(() => productVariant.id, { onDelete: 'set null' }),
  },
  (table) => [index('order_item_order_idx').on(table.orderId)],
);

/** Every change of an order's status: when, who (the real actor), and why. */
export const orderEvent = pgTable(
  'order_event',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    orderId: uuid('order_id')
      .notNull()
      .references(() => order.id, { onDelete: 'cascade' }),
    fromStatus: text('from_status'),
    toStatus: text('to_status').notNull(),
    actorId: text('actor_id').references(() => user.id, { onDelete: 'set null' }),
    /** 'user', 'admin', 'system' or 'marketplace'. */
    actorKind: text('actor_kind').notNull(),
    reason: text('reason').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('order_event_order_idx').on(table.orderId, table.createdAt)],
);

/**
 * The orders' transactional outbox: one row per announced status change (creation included, from
 * null), written in the transaction that makes the change. Subscribers (the order API's webhooks)
 * hear of it right after the commit; the sweep announces again whatever a crash or a failed
 * subscriber left unannounced, so no committed change goes unannounced.
 */
export const orderOutbox = pgTable(
  'order_outbox',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    orderId: uuid('order_id')
      .notNull()
      .references(() => order.id, { onDelete: 'cascade' }),
    fromStatus: text('from_status'),
    toStatus: text('to_status').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    announcedAt: timestamp('announced_at', { withTimezone: true }),
  },
  (table) => [
    index('order_outbox_unannounced_idx')
      .on(table.createdAt)
      .where(sql`${table.announcedAt} IS NULL`),
    index('order_outbox_announced_idx').on(table.announcedAt),
  ],
);

/**
 * A seller's order settings: how many hours (0–24) new orders are held before release, so the
 * seller can change the address or cancel at no cost (docs/change-window.md). No row: 0.
 */
export const sellerOrderSettings = pgTable('seller_order_settings', {
  ownerId: text('owner_id')
    .primaryKey()
    .references(() => user.id, { onDelete: 'cascade' }),
  changeWindowHours: integer('change_window_hours').notNull().default(0),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
