import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { user } from '../../db/auth-schema.ts';
import { order, type ShippingAddressJson } from '../orders/orders-schema.ts';

/*
 * The shipping module's tables (issue 12; docs/shipping.md): profiles, sellers' settings, labels and
 * their tracking events.
 * Re-exported by db/schema.ts, the one entry point of the ORM and drizzle-kit.
 */

export interface ParcelSizeJson {
  id: string;
  name: string;
  lengthMm: number;
  widthMm: number;
  heightMm: number;
  tareGrams: number;
  maxGrams: number;
  costCents: number;
}

/**
 * How the farm ships a seller's orders: parcel sizes, carriers and services per zone, handling
 * time and the delivery promise. One is the default; an admin can give a seller another.
 */
export const shippingProfile = pgTable(
  'shipping_profile',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    name: text('name').notNull(),
    isDefault: boolean('is_default').notNull().default(false),
    handlingDays: integer('handling_days').notNull(),
    promiseLabel: text('promise_label').notNull(),
    promiseDays: integer('promise_days').notNull(),
    origin: jsonb('origin').$type<ShippingAddressJson>().notNull(),
    parcels: jsonb('parcels').$type<ParcelSizeJson[]>().notNull(),
    zoneServices: jsonb('zone_services')
      .$type<{ zone: string; carrier: string; service: string }[]>()
      .notNull()
      .default([]),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('shipping_profile_one_default_idx')
      .on(table.isDefault)
      .where(sql`${table.isDefault}`),
  ],
);

/**
 * A seller's shipping settings: which integration buys their labels, their ShipStation keys and
 * Shippo token (each sealed with the secret box, bound to this table, the seller and the purpose;
 * only the last 4 characters are kept in clear, to show), and their shipping profile.
 */
export const sellerShipping = pgTable('seller_shipping', {
  ownerId: text('owner_id')
    .primaryKey()
    .references(() => user.id, { onDelete: 'cascade' }),
  integration: text('integration').notNull().default('sandbox'),
  profileId: uuid('profile_id').references(() => shippingProfile.id, { onDelete: 'set null' }),
  shipstationEnc: text('shipstation_enc'),
  shipstationHint: jsonb('shipstation_hint').$type<{
    apiVersion: 'v1' | 'v2';
    apiKeyLast4: string;
    apiSecretLast4: string | null;
  }>(),
  shipstationUpdatedAt: timestamp('shipstation_updated_at', { withTimezone: true }),
  shippoEnc: text('shippo_enc'),
  shippoConnectedAt: timestamp('shippo_connected_at', { withTimezone: true }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * One parcel's label for an order. The row is written (status 'purchasing', with its idempotency key)
 * BEFORE the provider is asked, so a retry or a double click finds it instead of buying again, and a
 * purchase that timed out is looked up before a new one. A void keeps the row (status 'voided') and a
 * new label is a new row with attempt + 1.
 */
export const shipment = pgTable(
  'shipment',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    orderId: uuid('order_id')
      .notNull()
      .references(() => order.id, { onDelete: 'cascade' }),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    provider: text('provider').notNull(),
    attempt: integer('attempt').notNull().default(1),
    parcelIndex: integer('parcel_index').notNull(),
    parcelCount: integer('parcel_count').notNull(),
    parcel: jsonb('parcel')
      .$type<{
        parcelId: string;
        name: string;
        lengthMm: number;
        widthMm: number;
        heightMm: number;
        weightGrams: number;
        partCount: number;
        costCents: number;
      }>()
      .notNull(),
    /** `<order id>:<parcel index>:<attempt>`: what the provider is given to recognise a repeat. */
    idempotencyKey: text('idempotency_key').notNull(),
    /** purchasing | purchased | in_transit | delivered | voided | failed */
    status: text('status').notNull(),
    /**
     * While 'purchasing': until when the request that claimed it is at work (null once it gave up, e.g.
     * the provider did not answer). Another request takes a purchase over only after that.
     */
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    /** The rate bought (the provider's answer, as ProviderRate). */
    rate: jsonb('rate').$type<Record<string, unknown>>(),
    carrier: text('carrier'),
    carrierCode: text('carrier_code'),
    service: text('service'),
    trackingNumber: text('tracking_number'),
    trackingUrl: text('tracking_url'),
    providerLabelId: text('provider_label_id'),
    /** The label PDF in storage, and where the provider serves it (to fetch it again if storing failed). */
    labelKey: text('label_key'),
    labelSourceUrl: text('label_source_url'),
    costCents: integer('cost_cents'),
    currency: text('currency').notNull().default('USD'),
    trackingStatus: text('tracking_status'),
    trackingCode: text('tracking_code'),
    error: text('error'),
    /** Whether the channel has the tracking: none (no channel) | pending | sent | failed. */
    writeback: text('writeback').notNull().default('none'),
    writebackError: text('writeback_error'),
    writebackAttempts: integer('writeback_attempts').notNull().default(0),
    shippedAt: timestamp('shipped_at', { withTimezone: true }),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
    lastTrackedAt: timestamp('last_tracked_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('shipment_idempotency_idx').on(table.idempotencyKey),
    // One live label per parcel of an order: two concurrent purchases cannot both be written.
    uniqueIndex('shipment_live_parcel_idx')
      .on(table.orderId, table.parcelIndex)
      .where(sql`${table.status} IN ('purchasing', 'purchased', 'in_transit', 'delivered')`),
    index('shipment_order_idx').on(table.orderId),
    // Tracking webhooks name a tracking number.
    index('shipment_tracking_idx').on(table.trackingNumber),
    // The tracking poll: labels not yet delivered.
    index('shipment_in_flight_idx')
      .on(table.lastTrackedAt)
      .where(sql`${table.status} IN ('purchased', 'in_transit')`),
    // Write-backs refused (the admins' list) and pending ones whose job may be lost (the sweep).
    index('shipment_writeback_open_idx')
      .on(table.writeback, table.updatedAt)
      .where(sql`${table.writeback} IN ('pending', 'failed')`),
  ],
);

/** Tracking events as the carrier reported them; unique per shipment and event, so replays change nothing. */
export const trackingEvent = pgTable(
  'tracking_event',
  {
    shipmentId: uuid('shipment_id')
      .notNull()
      .references(() => shipment.id, { onDelete: 'cascade' }),
    eventId: text('event_id').notNull(),
    status: text('status').notNull(),
    description: text('description').notNull().default(''),
    location: text('location').notNull().default(''),
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('tracking_event_shipment_event_idx').on(table.shipmentId, table.eventId)],
);
