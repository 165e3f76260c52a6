import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { user } from '../../db/auth-schema.ts';
import { order } from '../orders/orders-schema.ts';

/*
 * The order API's tables: sellers' API keys and their rate windows, webhook endpoints, deliveries and
 * each order's event sequence.
 * Re-exported by db/schema.ts, the one entry point of the ORM and drizzle-kit.
 */

/** A seller's key for the order API. Only a SHA-256 of the key is stored; the key is shown once. */
export const apiKey = pgTable(
  'api_key',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The first characters, to recognise a key in lists. */
    prefix: text('prefix').notNull(),
    keyHash: text('key_hash').notNull().unique(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('api_key_owner_idx').on(table.ownerId)],
);

/**
 * The order API's per-key rate limit, shared by every process: one row per key, its current
 * one-minute window and the requests counted in it, moved by one upsert per request. The
 * migration makes it UNLOGGED (counters need no crash safety, and no commit waits on the WAL).
 */
export const apiKeyRateWindow = pgTable('api_key_rate_window', {
  keyId: uuid('key_id')
    .primaryKey()
    .references(() => apiKey.id, { onDelete: 'cascade' }),
  windowStart: timestamp('window_start', { withTimezone: true }).notNull(),
  count: integer('count').notNull(),
});

/** Where to tell a seller's own system about their orders (the order API's webhooks). */
export const webhookEndpoint = pgTable('webhook_endpoint', {
  id: uuid('id')
    .primaryKey()
    .default(sql`gen_random_uuid()`),
  ownerId: text('owner_id')
    .notNull()
    .references(() => user.id, { onDelete: 'cascade' })
    .unique(),
  url: text('url').notNull(),
  secretEnc: text('secret_enc').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * One order event for a seller's webhook endpoint and what became of it: the event as sent (every
 * attempt and a resend carry the same body and id), the attempts, the receiver's last answer.
 */
export const webhookDelivery = pgTable(
  'webhook_delivery',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    /** The announcement it answers (order_outbox.id): announcing twice never makes two deliveries. */
    outboxId: uuid('outbox_id').notNull().unique(),
    eventId: text('event_id').notNull().unique(),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    orderId: uuid('order_id')
      .notNull()
      .references(() => order.id, { onDelete: 'cascade' }),
    fromStatus: text('from_status'),
    toStatus: text('to_status').notNull(),
    /**
     * The event's number among its order's events: 1 for the creation, then one more per event in the
     * order they were recorded (webhook_order_sequence). The worker sends an order's events in this order.
     */
    sequence: integer('sequence').notNull().default(0),
    event: jsonb('event').$type<unknown>().notNull(),
    /** 'pending' (queued or retrying), 'delivered', 'refused' (a final 4xx) or 'failed' (out of attempts). */
    state: text('state').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
  },
  (table) => [
    index('webhook_delivery_owner_idx').on(table.ownerId, table.createdAt),
    index('webhook_delivery_order_sequence_idx').on(table.orderId, table.sequence),
  ],
);

/**
 * The last webhook sequence number given to an order's events (1 is kept for its creation event,
 * whenever that is recorded). Moved by one upsert in the transaction that records the events, so
 * two processes recording events of one order number them one after the other, without gaps.
 */
export const webhookOrderSequence = pgTable('webhook_order_sequence', {
  orderId: uuid('order_id')
    .primaryKey()
    .references(() => order.id, { onDelete: 'cascade' }),
  last: integer('last').notNull(),
});
