import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { user } from '../../db/auth-schema.ts';
import { productVariant } from '../products/products-schema.ts';

/*
 * The shops module's tables: connected shops, OAuth in progress, marketplace listings and the
 * marketplaces' webhooks as received.
 * Re-exported by db/schema.ts, the one entry point of the ORM and drizzle-kit.
 */

/**
 * A seller's connected shop on one marketplace (or the built-in sandbox, or the order API).
 * Tokens are stored encrypted (AES-256-GCM, see platform/secret-box.ts), never in plain text.
 */
export const shopConnection = pgTable(
  'shop_connection',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    platform: text('platform').notNull(),
    externalShopId: text('external_shop_id').notNull(),
    name: text('name').notNull(),
    status: text('status').notNull().default('connected'),
    statusMessage: text('status_message'),
    accessTokenEnc: text('access_token_enc'),
    refreshTokenEnc: text('refresh_token_enc'),
    tokenExpiresAt: timestamp('token_expires_at', { withTimezone: true }),
    scopes: text('scopes').notNull().default(''),
    settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
    /** Where the last order poll stopped (a timestamp or a marketplace cursor). */
    syncCursor: text('sync_cursor'),
    lastSyncedAt: timestamp('last_synced_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    // A marketplace shop belongs to one Layerline seller at a time.
    uniqueIndex('shop_connection_platform_shop_idx').on(table.platform, table.externalShopId),
    index('shop_connection_owner_idx').on(table.ownerId),
  ],
);

/** OAuth authorisation in progress: state and PKCE verifier, bound to the seller, used once. */
export const oauthState = pgTable('oauth_state', {
  state: text('state').primaryKey(),
  ownerId: text('owner_id')
    .notNull()
    .references(() => user.id, { onDelete: 'cascade' }),
  platform: text('platform').notNull(),
  codeVerifierEnc: text('code_verifier_enc'),
  shopHost: text('shop_host'),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** A marketplace listing (or one of its variations), and the product variant it is linked to. */
export const listing = pgTable(
  'listing',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    shopId: uuid('shop_id')
      .notNull()
      .references(() => shopConnection.id, { onDelete: 'cascade' }),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    externalListingId: text('external_listing_id').notNull(),
    /** The marketplace's variation id, or '' for a listing without variations. */
    externalVariantId: text('external_variant_id').notNull().default(''),
    title: text('title').notNull(),
    sku: text('sku').notNull().default(''),
    priceCents: integer('price_cents'),
    currency: text('currency'),
    url: text('url'),
    imageUrl: text('image_url'),
    linkedVariantId: uuid('linked_variant_id').references(() => productVariant.id, { onDelete: 'set null' }),
    /** 'sku' when linked automatically by SKU, 'manual' when the seller chose. */
    linkSource: text('link_source'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('listing_shop_external_idx').on(
      table.shopId,
      table.externalListingId,
      table.externalVariantId,
    ),
    // The listings list: a seller's by title, keyset on (title, id); by shop; the unmatched inbox.
    index('listing_owner_title_id_idx').on(table.ownerId, table.title, table.id),
    index('listing_owner_shop_title_id_idx').on(table.ownerId, table.shopId, table.title, table.id),
    index('listing_owner_unmatched_title_id_idx')
      .on(table.ownerId, table.title, table.id)
      .where(sql`${table.linkedVariantId} IS NULL`),
    // A variant's linked listings (counted on every products page).
    index('listing_linked_variant_idx').on(table.linkedVariantId),
  ],
);

/** Webhooks received, verified, then stored before processing; the id deduplicates deliveries. */
export const inboundWebhook = pgTable(
  'inbound_webhook',
  {
    /** '<platform>:<delivery id>'. */
    id: text('id').primaryKey(),
    platform: text('platform').notNull(),
    shopId: uuid('shop_id').references(() => shopConnection.id, { onDelete: 'cascade' }),
    topic: text('topic').notNull(),
    payload: jsonb('payload').$type<unknown>().notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    processedAt: timestamp('processed_at', { withTimezone: true }),
    /** Set when the delivery could not be read as what its topic says (a malformed order): why. */
    failedReason: text('failed_reason'),
  },
  (table) => [index('inbound_webhook_received_idx').on(table.receivedAt)],
);
