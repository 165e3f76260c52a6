import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { user } from '../../db/auth-schema.ts';
import { order } from '../orders/orders-schema.ts';
import { shipment } from '../shipping/shipping-schema.ts';

/*
 * The fulfillment module's table: the fulfilment history (docs/shipping.md).
 * Re-exported by db/schema.ts, the one entry point of the ORM and drizzle-kit.
 */

/**
 * The fulfilment history: one record per shipment (made with the label, in the same transaction),
 * or entered by an admin (createFulfillmentHistoryRecord). What was charged is copied in, so the
 * record stays true when products or prices change later.
 */
export const fulfillmentRecord = pgTable(
  'fulfillment_record',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    orderId: uuid('order_id').references(() => order.id, { onDelete: 'set null' }),
    shipmentId: uuid('shipment_id').references(() => shipment.id, { onDelete: 'set null' }),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    channel: text('channel').notNull(),
    orderNumber: text('order_number').notNull(),
    buyerName: text('buyer_name').notNull().default(''),
    items: jsonb('items').$type<{ sku: string; title: string; quantity: number }[]>().notNull().default([]),
    printCostCents: integer('print_cost_cents').notNull().default(0),
    packagingCents: integer('packaging_cents').notNull().default(0),
    shippingCents: integer('shipping_cents').notNull().default(0),
    totalCents: integer('total_cents').notNull().default(0),
    currency: text('currency').notNull().default('USD'),
    carrier: text('carrier').notNull().default(''),
    service: text('service').notNull().default(''),
    trackingNumber: text('tracking_number').notNull().default(''),
    trackingUrl: text('tracking_url').notNull().default(''),
    shippedAt: timestamp('shipped_at', { withTimezone: true }),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** Lower-case, one field a line: order number, buyer, each SKU, tracking number (the searchTerm). */
    searchText: text('search_text').notNull().default(''),
  },
  (table) => [
    uniqueIndex('fulfillment_record_shipment_idx').on(table.shipmentId),
    index('fulfillment_record_created_idx').on(table.createdAt, table.id),
    index('fulfillment_record_owner_created_idx').on(table.ownerId, table.createdAt, table.id),
    index('fulfillment_record_order_idx').on(table.orderId),
    index('fulfillment_record_search_trgm_idx').using('gin', table.searchText.op('gin_trgm_ops')),
    // A seller's search for a term many of everyone's records share (a common SKU prefix): the seller and
    // the term in one index (owner_id through btree_gin), so only their matches are read.
    index('fulfillment_record_owner_search_trgm_idx').using(
      'gin',
      table.ownerId,
      table.searchText.op('gin_trgm_ops'),
    ),
  ],
);
