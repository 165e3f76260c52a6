import { sql } from 'drizzle-orm';
import {
  bigint,
  doublePrecision,
  bigserial,
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

/*
 * The whole database schema. The first five tables are the ones better-auth reads and writes
 * (their JS property names are the field names better-auth expects); the rest are Layerline's.
 * Migrations are generated from this file by drizzle-kit into ../../drizzle.
 */

export interface AddressJson {
  name: string;
  company: string;
  line1: string;
  line2: string;
  city: string;
  region: string;
  postalCode: string;
  country: string;
  phone: string;
}

export const user = pgTable(
  'user',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    email: text('email').notNull().unique(),
    emailVerified: boolean('email_verified').notNull().default(false),
    image: text('image'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    // Layerline (better-auth additional fields; see modules/accounts/auth.ts)
    role: text('role').notNull().default('seller'),
    businessName: text('business_name').notNull().default(''),
    isBetaTester: boolean('is_beta_tester').notNull().default(false),
    isInternal: boolean('is_internal').notNull().default(false),
    affiliateRef: text('affiliate_ref'),
    returnAddress: jsonb('return_address').$type<AddressJson>(),
  },
  // The admin users list: newest first, keyset on (created_at, id); its substring search by trigrams.
  (table) => [
    index('user_created_id_idx').on(table.createdAt, table.id),
    index('user_email_trgm_idx').using('gin', table.email.op('gin_trgm_ops')),
    index('user_name_trgm_idx').using('gin', table.name.op('gin_trgm_ops')),
    index('user_business_name_trgm_idx').using('gin', table.businessName.op('gin_trgm_ops')),
  ],
);

export const session = pgTable(
  'session',
  {
    id: text('id').primaryKey(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    token: text('token').notNull().unique(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    ipAddress: text('ip_address'),
    userAgent: text('user_agent'),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
  },
  (table) => [index('session_user_id_idx').on(table.userId)],
);

export const account = pgTable(
  'account',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id').notNull(),
    providerId: text('provider_id').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    accessToken: text('access_token'),
    refreshToken: text('refresh_token'),
    idToken: text('id_token'),
    accessTokenExpiresAt: timestamp('access_token_expires_at', { withTimezone: true }),
    refreshTokenExpiresAt: timestamp('refresh_token_expires_at', { withTimezone: true }),
    scope: text('scope'),
    password: text('password'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('account_user_id_idx').on(table.userId)],
);

export const verification = pgTable('verification', {
  id: text('id').primaryKey(),
  identifier: text('identifier').notNull(),
  value: text('value').notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const rateLimit = pgTable('rate_limit', {
  id: text('id').primaryKey(),
  key: text('key').notNull().unique(),
  count: integer('count').notNull(),
  lastRequest: bigint('last_request', { mode: 'number' }).notNull(),
});

/** Failed sign-ins per account in the current window (AUTH-4): survives restarts, shared by processes. */
export const loginFailure = pgTable('login_failure', {
  email: text('email').primaryKey(),
  failures: integer('failures').notNull(),
  windowStartedAt: timestamp('window_started_at', { withTimezone: true }).notNull(),
});

export const auditLog = pgTable(
  'audit_log',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    actorId: text('actor_id').references(() => user.id, { onDelete: 'set null' }),
    targetUserId: text('target_user_id').references(() => user.id, { onDelete: 'set null' }),
    action: text('action').notNull(),
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
    requestId: text('request_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  // The audit log, newest first: keyset on (created_at, id).
  (table) => [index('audit_log_created_id_idx').on(table.createdAt, table.id)],
);

export const contactMessage = pgTable(
  'contact_message',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    userId: text('user_id').references(() => user.id, { onDelete: 'set null' }),
    name: text('name').notNull(),
    email: text('email').notNull(),
    subject: text('subject').notNull(),
    message: text('message').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  // The admin's contact messages, newest first: keyset on (created_at, id).
  (table) => [index('contact_message_created_id_idx').on(table.createdAt, table.id)],
);

/** Content the operator edits for the public site (e.g. 'landing.testimonial'), one JSON value per key. */
export const siteSetting = pgTable('site_setting', {
  key: text('key').primaryKey(),
  value: jsonb('value').$type<unknown>().notNull(),
  updatedBy: text('updated_by').references(() => user.id, { onDelete: 'set null' }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const pageView = pgTable(
  'page_view',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    path: text('path').notNull(),
    title: text('title').notNull(),
    userId: text('user_id').references(() => user.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('page_view_created_at_idx').on(table.createdAt)],
);

/** Problems found in a model, with the triangles that show them (capped) for the viewer. */
export interface ProblemJson {
  code: string;
  severity: 'error' | 'warning' | 'info';
  message: string;
  count: number;
  triangles: number[];
}

/** An uploaded 3D model and what the analysis found in it. */
export const design = pgTable(
  'design',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    fileName: text('file_name').notNull(),
    format: text('format').notNull(),
    contentType: text('content_type').notNull(),
    storageKey: text('storage_key').notNull().unique(),
    thumbnailKey: text('thumbnail_key'),
    sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull(),
    md5Base64: text('md5_base64').notNull(),
    triangles: integer('triangles').notNull(),
    volumeMm3: doublePrecision('volume_mm3').notNull(),
    surfaceAreaMm2: doublePrecision('surface_area_mm2').notNull(),
    bboxMm: jsonb('bbox_mm').$type<[number, number, number]>().notNull(),
    shells: integer('shells').notNull(),
    objectCount: integer('object_count').notNull(),
    /** Volume of each printable object, so a multi-part quote can price each part's filament. */
    partVolumesMm3: jsonb('part_volumes_mm3').$type<number[]>().notNull(),
    fitsBuildVolume: boolean('fits_build_volume').notNull(),
    watertight: boolean('watertight').notNull(),
    problems: jsonb('problems').$type<ProblemJson[]>().notNull(),
    customMetadata: jsonb('custom_metadata').$type<Record<string, string>>().notNull().default({}),
    metageneration: integer('metageneration').notNull().default(1),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  // My Designs (a seller's, newest first) and the admin's Design Files (everyone's): keyset on (created_at, id).
  (table) => [
    index('design_owner_created_id_idx').on(table.ownerId, table.createdAt, table.id),
    index('design_created_id_idx').on(table.createdAt, table.id),
    // The admin's search of everyone's designs (by name, file name or the owner's email).
    index('design_name_trgm_idx').using('gin', table.name.op('gin_trgm_ops')),
    index('design_file_name_trgm_idx').using('gin', table.fileName.op('gin_trgm_ops')),
  ],
);

/**
 * Room held in a seller's storage quota by an upload in progress (its id is the future design's).
 * A seller's usage is the sum of their designs' sizes plus the live reservations, computed and
 * checked under one per-seller lock (docs/storage.md); a reservation left by a process that died
 * mid-upload stops counting when it expires.
 */
export const storageReservation = pgTable(
  'storage_reservation',
  {
    id: uuid('id').primaryKey(),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    bytes: bigint('bytes', { mode: 'number' }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (table) => [index('storage_reservation_owner_idx').on(table.ownerId)],
);

export interface PartConfigJson {
  name: string;
  filament: string;
  colour: string;
}

/** A quote as stored: what it rests on, the figures and the priced breakdown. */
export interface QuoteJson {
  basis: 'estimate' | 'slicer' | 'admin';
  basisNote: string;
  grams: number;
  printSeconds: number;
  costUsd: number;
  breakdown: { label: string; amountUsd: number }[];
  computedAt: string;
}

/** How a design is printed: material, colour, layers, infill, parts and add-on services. */
export const printConfiguration = pgTable(
  'print_configuration',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    designId: uuid('design_id')
      .notNull()
      .references(() => design.id, { onDelete: 'cascade' }),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    filament: text('filament').notNull(),
    colour: text('colour').notNull(),
    layerHeightMm: doublePrecision('layer_height_mm').notNull(),
    infillPercent: integer('infill_percent').notNull(),
    isMultipart: boolean('is_multipart').notNull().default(false),
    parts: jsonb('parts').$type<PartConfigJson[]>().notNull().default([]),
    multicolour: boolean('multicolour').notNull().default(false),
    addOns: jsonb('add_ons').$type<Record<string, number>>().notNull(),
    /** The geometry estimate; always present once computed. */
    estimate: jsonb('estimate').$type<{ grams: number; printSeconds: number; computedAt: string }>(),
    /** Exact figures from PrusaSlicer, when it ran for these settings. */
    sliced: jsonb('sliced').$type<{ grams: number; printSeconds: number; gcodeKey: string; slicerVersion: string; computedAt: string }>(),
    /** Figures an admin set by hand (the spec's createCostData); they win over the others. */
    adminCost: jsonb('admin_cost').$type<{ grams: number; printSeconds: number; costUsd: number | null; note: string; setBy: string; computedAt: string }>(),
    slicingStatus: text('slicing_status').notNull().default('unavailable'),
    slicingError: text('slicing_error'),
    /** Bumped whenever the settings change, so a slicing job for old settings cannot overwrite new ones. */
    settingsVersion: integer('settings_version').notNull().default(1),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('print_configuration_design_idx').on(table.designId)],
);

/**
 * Whose turn it is to slice (exact quotes, docs/jobs.md "Fair slicing"): per seller, the turn tag
 * its latest slicing request got; the row with owner_key '' holds the tag of the request most
 * recently started. A request's tag is its pg-boss priority (negated), so the queue serves sellers
 * in turn. No foreign key: the '' row is no user, and a deleted seller's row is one number.
 */
export const slicingTurn = pgTable('slicing_turn', {
  ownerKey: text('owner_key').primaryKey(),
  lastTag: bigint('last_tag', { mode: 'number' }).notNull(),
});

/** The admin price table; one row (id = 'current'). */
export const priceTable = pgTable('price_table', {
  id: text('id').primaryKey(),
  table: jsonb('table').$type<Record<string, unknown>>().notNull(),
  updatedBy: text('updated_by').references(() => user.id, { onDelete: 'set null' }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/* ---------- Shops, products and orders ---------- */

/** Something a buyer orders: a group of designs, sold in variants. */
export const product = pgTable(
  'product',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  // A seller's products, newest first: keyset on (created_at, id).
  (table) => [index('product_owner_created_id_idx').on(table.ownerId, table.createdAt, table.id)],
);

/** A sellable version of a product, identified on marketplaces by its SKU (unique per seller). */
export const productVariant = pgTable(
  'product_variant',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    productId: uuid('product_id')
      .notNull()
      .references(() => product.id, { onDelete: 'cascade' }),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    sku: text('sku').notNull(),
    /** How a unit is packed (e.g. 'standard', 'gift box', 'kit'): free text the farm reads. */
    packaging: text('packaging').notNull().default('standard'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('product_variant_owner_sku_idx').on(table.ownerId, table.sku),
    // A product's variants (its page, and the products search's EXISTS).
    index('product_variant_product_idx').on(table.productId),
  ],
);

/** The printed parts of one unit of a variant: which configuration, how many. */
export const variantPart = pgTable(
  'variant_part',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    variantId: uuid('variant_id')
      .notNull()
      .references(() => productVariant.id, { onDelete: 'cascade' }),
    printConfigId: uuid('print_config_id')
      .notNull()
      .references(() => printConfiguration.id, { onDelete: 'restrict' }),
    quantity: integer('quantity').notNull(),
  },
  (table) => [index('variant_part_variant_idx').on(table.variantId)],
);

/**
 * A seller's connected shop on one marketplace (or the built-in sandbox, or the order API).
 * Tokens are stored encrypted (AES-256-GCM, see platform/secret-box.ts), never in plain text.
 */
export const shopConnection = pgTable(
  'shop_connection',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
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
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
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
    uniqueIndex('listing_shop_external_idx').on(table.shopId, table.externalListingId, table.externalVariantId),
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
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
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
  ],
);

export const orderItem = pgTable(
  'order_item',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
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
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
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
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    orderId: uuid('order_id')
      .notNull()
      .references(() => order.id, { onDelete: 'cascade' }),
    fromStatus: text('from_status'),
    toStatus: text('to_status').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    announcedAt: timestamp('announced_at', { withTimezone: true }),
  },
  (table) => [
    index('order_outbox_unannounced_idx').on(table.createdAt).where(sql`${table.announcedAt} IS NULL`),
    index('order_outbox_announced_idx').on(table.announcedAt),
  ],
);

/** A seller's key for the order API. Only a SHA-256 of the key is stored; the key is shown once. */
export const apiKey = pgTable(
  'api_key',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
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
  id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
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
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
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

/**
 * A printer of the print farm (issue 11; docs/printers.md). Never deleted while a print job could
 * name it: an admin retires it instead (status 'retired'), and it stays for history. The connection
 * (kind-specific: address, API key or password, or the simulated printer's settings) is sealed as one
 * JSON value with the secret box, bound to this table, the row and the purpose; only its kind is in
 * clear. Spools are a small JSON list (PrinterSpool, at most 16) replaced as a whole.
 */
export const printer = pgTable(
  'printer',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    name: text('name').notNull(),
    model: text('model').notNull().default(''),
    buildXMm: doublePrecision('build_x_mm').notNull(),
    buildYMm: doublePrecision('build_y_mm').notNull(),
    buildZMm: doublePrecision('build_z_mm').notNull(),
    nozzleMm: doublePrecision('nozzle_mm').notNull(),
    /** active | paused | retired */
    status: text('status').notNull().default('active'),
    tags: jsonb('tags').$type<string[]>().notNull().default([]),
    connectionKind: text('connection_kind').notNull(),
    connectionEnc: text('connection_enc').notNull(),
    spools: jsonb('spools')
      .$type<{ material: string; colourName: string; colourHex: string; gramsLeft: number; loaded: boolean }[]>()
      .notNull()
      .default([]),
    /** The printer's last reported status (PrinterStatus) and when; the poller keeps it fresh. */
    lastState: jsonb('last_state').$type<unknown>(),
    lastStateAt: timestamp('last_state_at', { withTimezone: true }),
    lastError: text('last_error'),
    bedConfirmedClear: boolean('bed_confirmed_clear').notNull().default(false),
    bedConfirmedBy: text('bed_confirmed_by').references(() => user.id, { onDelete: 'set null' }),
    bedConfirmedAt: timestamp('bed_confirmed_at', { withTimezone: true }),
    /** When it last started a print (the dispatcher staggers starts within the printer's group). */
    lastStartedAt: timestamp('last_started_at', { withTimezone: true }),
    /** The filament materials it may print (issue 20): a material not listed never goes to it. */
    materials: jsonb('materials')
      .$type<string[]>()
      .notNull()
      .default(['PLA', 'PETG', 'ABS', 'ASA', 'TPU', 'Nylon']),
    /** An enclosure: ABS, ASA and Nylon go only to enclosed printers. */
    enclosed: boolean('enclosed').notNull().default(false),
    /** The power circuit it shares with others: starts are staggered per group (null: on its own). */
    groupId: uuid('group_id').references(() => printerGroup.id, { onDelete: 'set null' }),
    /** How it is sliced for: a bundled PrusaSlicer printer preset, or the operator's start and end G-code (PrinterSlicerProfile). */
    slicerProfile: jsonb('slicer_profile').$type<unknown>(),
    /**
     * Set by the farm when the printer needs a person (an answer the farm does not know, a key
     * that may not print): in words, with when. No job goes to it until a person clears it.
     */
    attention: text('attention'),
    attentionAt: timestamp('attention_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('printer_status_idx').on(table.status, table.name)],
);

/**
 * Printers that share a power circuit (issue 20): at most `maxStarts` of them start a print (and
 * heat their beds) within any `perSeconds`. A printer in no group is not staggered.
 */
export const printerGroup = pgTable('printer_group', {
  id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
  name: text('name').notNull().unique(),
  maxStarts: integer('max_starts').notNull(),
  perSeconds: integer('per_seconds').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * One part printed once on one printer (docs/print-farm.md): an accepted order becomes one job per
 * part × quantity; a failed or QC-failed job is reprinted as a NEW job (attempt + 1, reprint_of).
 * What the job prints is copied from the print configuration when it is made (name, material,
 * colour, size, figures), so a later edit of the configuration or a deleted design does not change
 * a job already queued. Status changes go through the print-job transitions table with
 * compare-and-set.
 */
export const printJob = pgTable(
  'print_job',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    /** First-in-first-out among equals (the planner's tie-breaker). */
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    orderId: uuid('order_id')
      .notNull()
      .references(() => order.id, { onDelete: 'cascade' }),
    orderItemId: uuid('order_item_id')
      .notNull()
      .references(() => orderItem.id, { onDelete: 'cascade' }),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    /** Which part of the item's variant (its index among the variant's parts) and which copy of it. */
    partIndex: integer('part_index').notNull(),
    copy: integer('copy').notNull(),
    attempt: integer('attempt').notNull().default(1),
    reprintOf: uuid('reprint_of'),
    partName: text('part_name').notNull(),
    designId: uuid('design_id').notNull(),
    printConfigId: uuid('print_config_id').notNull(),
    /** The model file in storage (the design's), for slicing and the simulated printer. */
    modelKey: text('model_key').notNull(),
    material: text('material').notNull(),
    /** Lower-case hex, like the print configuration's, or 'any'. */
    colour: text('colour').notNull(),
    nozzleMm: doublePrecision('nozzle_mm').notNull(),
    sizeXMm: doublePrecision('size_x_mm').notNull(),
    sizeYMm: doublePrecision('size_y_mm').notNull(),
    sizeZMm: doublePrecision('size_z_mm').notNull(),
    grams: doublePrecision('grams').notNull(),
    printSeconds: doublePrecision('print_seconds').notNull(),
    layerCount: integer('layer_count'),
    /** The sliced file in storage, or null while it is being made; 'simulation' files print only on simulated printers. */
    fileKey: text('file_key'),
    fileKind: text('file_kind'),
    status: text('status').notNull().default('queued'),
    printerId: uuid('printer_id').references(() => printer.id, { onDelete: 'set null' }),
    pinnedPrinterId: uuid('pinned_printer_id').references(() => printer.id, { onDelete: 'set null' }),
    /** A person's place in the queue (a priority key in ms, lower first), set by dragging; null: by the rules. */
    manualKey: doublePrecision('manual_key'),
    rush: boolean('rush').notNull().default(false),
    placedAt: timestamp('placed_at', { withTimezone: true }).notNull(),
    dueAt: timestamp('due_at', { withTimezone: true }),
    spoolChange: jsonb('spool_change').$type<{ material: string; colour: string }>(),
    progress: doublePrecision('progress'),
    secondsLeft: doublePrecision('seconds_left'),
    failureReason: text('failure_reason'),
    /** Who passed or failed it: a user id, or 'autopilot'. */
    qcBy: text('qc_by'),
    /** What QC should look at closely (the printer could not tell how the print ended), or null. */
    qcNote: text('qc_note'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    assignedAt: timestamp('assigned_at', { withTimezone: true }),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    // Making an order's jobs twice (the announcement and a sweep) makes them once.
    uniqueIndex('print_job_part_copy_attempt_idx').on(
      table.orderItemId,
      table.partIndex,
      table.copy,
      table.attempt,
    ),
    // No printer ever holds two jobs: the dispatcher's compare-and-set relies on it.
    uniqueIndex('print_job_one_per_printer_idx')
      .on(table.printerId)
      .where(sql`${table.status} IN ('assigned', 'uploading', 'printing')`),
    index('print_job_order_idx').on(table.orderId),
    index('print_job_status_seq_idx').on(table.status, table.seq),
    // The dispatcher's kept queue reads the jobs changed since its last decision.
    index('print_job_updated_idx').on(table.updatedAt),
  ],
);

/**
 * What happened on the farm, and who did it: job status changes, beds confirmed clear, spools
 * loaded, QC results, packing. actor_kind 'autopilot' marks the steps FARM_AUTOPILOT took.
 */
export const productionEvent = pgTable(
  'production_event',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    kind: text('kind').notNull(),
    jobId: uuid('job_id').references(() => printJob.id, { onDelete: 'cascade' }),
    printerId: uuid('printer_id').references(() => printer.id, { onDelete: 'set null' }),
    orderId: uuid('order_id').references(() => order.id, { onDelete: 'cascade' }),
    /** 'admin', 'system', 'autopilot' or 'printer'. */
    actorKind: text('actor_kind').notNull(),
    actorId: text('actor_id').references(() => user.id, { onDelete: 'set null' }),
    detail: text('detail').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('production_event_job_idx').on(table.jobId, table.createdAt),
    index('production_event_order_idx').on(table.orderId, table.createdAt),
  ],
);

/**
 * A print configuration sliced for one printer profile (nozzle and bed): G-code is made for the bed
 * it runs on, so each profile of the farm gets its own file, once per configuration and settings
 * version, when a job is first assigned to a printer of that profile (docs/print-farm.md).
 */
export const printFile = pgTable(
  'print_file',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    printConfigId: uuid('print_config_id')
      .notNull()
      .references(() => printConfiguration.id, { onDelete: 'cascade' }),
    settingsVersion: integer('settings_version').notNull(),
    /** `n<nozzle>-<x>x<y>x<z>-<generic|b<hash>|c<hash>>` (the printer profile: docs/slicing-profiles.md), e.g. n0.4-250x210x220-generic. */
    profileKey: text('profile_key').notNull(),
    /** queued | done | failed */
    status: text('status').notNull().default('queued'),
    gcodeKey: text('gcode_key'),
    grams: doublePrecision('grams'),
    printSeconds: doublePrecision('print_seconds'),
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('print_file_config_profile_idx').on(table.printConfigId, table.settingsVersion, table.profileKey)],
);

/* ---------- Shipping and fulfilment history (issue 12; docs/shipping.md) ---------- */

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
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    name: text('name').notNull(),
    isDefault: boolean('is_default').notNull().default(false),
    handlingDays: integer('handling_days').notNull(),
    promiseLabel: text('promise_label').notNull(),
    promiseDays: integer('promise_days').notNull(),
    origin: jsonb('origin').$type<ShippingAddressJson>().notNull(),
    parcels: jsonb('parcels').$type<ParcelSizeJson[]>().notNull(),
    zoneServices: jsonb('zone_services').$type<{ zone: string; carrier: string; service: string }[]>().notNull().default([]),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('shipping_profile_one_default_idx').on(table.isDefault).where(sql`${table.isDefault}`)],
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
  shipstationHint: jsonb('shipstation_hint').$type<{ apiVersion: 'v1' | 'v2'; apiKeyLast4: string; apiSecretLast4: string | null }>(),
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
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
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
      .$type<{ parcelId: string; name: string; lengthMm: number; widthMm: number; heightMm: number; weightGrams: number; partCount: number; costCents: number }>()
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

/**
 * The fulfilment history: one record per shipment (made with the label, in the same transaction),
 * or entered by an admin (createFulfillmentHistoryRecord). What was charged is copied in, so the
 * record stays true when products or prices change later.
 */
export const fulfillmentRecord = pgTable(
  'fulfillment_record',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
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
    index('fulfillment_record_owner_search_trgm_idx').using('gin', table.ownerId, table.searchText.op('gin_trgm_ops')),
  ],
);

// ── payments (issue 13; docs/payments.md) ──────────────────────────────────────────────────────

/** A seller's customer at the payment provider and the default card (brand, last 4, expiry: never the number). */
export const paymentCustomer = pgTable('payment_customer', {
  ownerId: text('owner_id')
    .primaryKey()
    .references(() => user.id, { onDelete: 'cascade' }),
  /** stripe | sandbox: a customer made in one provider means nothing to the other. */
  provider: text('provider').notNull(),
  customerId: text('customer_id').notNull(),
  paymentMethodId: text('payment_method_id'),
  cardBrand: text('card_brand'),
  cardLast4: text('card_last4'),
  cardExpMonth: integer('card_exp_month'),
  cardExpYear: integer('card_exp_year'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * One off-session charge attempt. The row (with its idempotency key) is written before the provider is
 * asked, and the provider's answer recorded on it; a row still `pending` after a crash is looked up at
 * the provider before anything is charged again.
 */
export const charge = pgTable(
  'charge',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    orderId: uuid('order_id').references(() => order.id, { onDelete: 'set null' }),
    /** order (when the order is released to production) | manual (an admin's chargeStoredCard) */
    kind: text('kind').notNull(),
    attempt: integer('attempt').notNull().default(1),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull().default('USD'),
    /** How the amount was made: items, packaging, shipping (cents). */
    breakdown: jsonb('breakdown').$type<{ itemsCents: number; packagingCents: number; shippingCents: number }>(),
    provider: text('provider').notNull(),
    /** The customer and card charged: a charge replayed after a crash is asked with the same parameters. */
    customerId: text('customer_id'),
    paymentMethodId: text('payment_method_id'),
    /** `order:<id>:charge:<attempt>` or `manual:<uuid>`: what the provider is given to recognise a repeat. */
    idempotencyKey: text('idempotency_key').notNull(),
    paymentIntentId: text('payment_intent_id'),
    /** pending | processing | requires_action | succeeded | failed | refunded */
    status: text('status').notNull(),
    failureReason: text('failure_reason'),
    actionUrl: text('action_url'),
    refundedCents: integer('refunded_cents').notNull().default(0),
    /** The admin who charged by hand. */
    createdBy: text('created_by').references(() => user.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('charge_idempotency_key_idx').on(table.idempotencyKey),
    uniqueIndex('charge_payment_intent_idx').on(table.paymentIntentId),
    // One live charge per order: two releases of the same order can never both charge it.
    uniqueIndex('charge_live_per_order_idx')
      .on(table.orderId)
      .where(sql`kind = 'order' AND status IN ('pending', 'processing', 'requires_action', 'succeeded', 'refunded')`),
    index('charge_owner_created_idx').on(table.ownerId, table.createdAt, table.id),
    // An order's charges (the fulfilment history shows what each order was charged).
    index('charge_order_idx').on(table.orderId),
    index('charge_created_idx').on(table.createdAt, table.id),
    index('charge_pending_idx').on(table.updatedAt).where(sql`status = 'pending'`),
  ],
);

/**
 * What an order costs the seller, made once (docs/payments.md, "One price per order"): the charge's
 * amount, the fulfilment record's costs and the Billing page all read this row, so they cannot price
 * the same parts twice. When the exact slice of a part that was only estimated lands after the price
 * was made, the new print cost is decided once (`adjusted_items_cents`, with its reason) and the
 * difference charged or refunded as an explicit adjustment.
 */
export const orderPrice = pgTable('order_price', {
  orderId: uuid('order_id')
    .primaryKey()
    .references(() => order.id, { onDelete: 'cascade' }),
  ownerId: text('owner_id')
    .notNull()
    .references(() => user.id, { onDelete: 'cascade' }),
  /** Each item as priced: its SKU, quantity, unit cost and whether every part's quote was exact. */
  lines: jsonb('lines').$type<{ sku: string; quantity: number; unitCents: number; exact: boolean }[]>().notNull(),
  itemsCents: integer('items_cents').notNull(),
  packagingCents: integer('packaging_cents').notNull(),
  shippingCents: integer('shipping_cents').notNull(),
  currency: text('currency').notNull().default('USD'),
  /** The items' cost once every part's exact slice was in, when it differs from itemsCents; null: unchanged or not decided. */
  adjustedItemsCents: integer('adjusted_items_cents'),
  adjustmentReason: text('adjustment_reason'),
  /** When the price was checked against the exact slices (at most once; null: not yet). */
  settledAt: timestamp('settled_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** A refund of a charge; one per idempotency key (a refund asked twice is one refund). */
export const refund = pgTable(
  'refund',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    chargeId: uuid('charge_id')
      .notNull()
      .references(() => charge.id, { onDelete: 'cascade' }),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    amountCents: integer('amount_cents').notNull(),
    reason: text('reason').notNull().default(''),
    idempotencyKey: text('idempotency_key').notNull(),
    providerRefundId: text('provider_refund_id'),
    /** pending | succeeded | failed */
    status: text('status').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('refund_idempotency_key_idx').on(table.idempotencyKey),
    index('refund_charge_idx').on(table.chargeId),
    index('refund_owner_created_idx').on(table.ownerId, table.createdAt, table.id),
  ],
);

/** Payment provider webhooks: stored once per event id, then processed (WH-2/3). */
export const paymentEvent = pgTable(
  'payment_event',
  {
    id: text('id').primaryKey(),
    provider: text('provider').notNull(),
    type: text('type').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    processedAt: timestamp('processed_at', { withTimezone: true }),
    error: text('error'),
  },
  (table) => [index('payment_event_unprocessed_idx').on(table.receivedAt).where(sql`processed_at IS NULL`)],
);

// ── affiliates (issue 13; docs/affiliates.md) ──────────────────────────────────────────────────

/** A seller who brings others: their code, their Stripe Connect account for payouts. */
export const affiliate = pgTable(
  'affiliate',
  {
    userId: text('user_id')
      .primaryKey()
      .references(() => user.id, { onDelete: 'cascade' }),
    /** As the seller typed it; unique without regard to case. */
    code: text('code').notNull(),
    connectAccountId: text('connect_account_id'),
    /** none | pending | active | restricted */
    connectStatus: text('connect_status').notNull().default('none'),
    /** An admin stopped payouts (the earnings still accrue). */
    payoutsHeld: boolean('payouts_held').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('affiliate_code_lower_idx').on(sql`lower(${table.code})`)],
);

/** Who brought whom: set once at sign-up from `?ref=CODE`; earnings run until `endsAt`. */
export const referral = pgTable(
  'referral',
  {
    referredUserId: text('referred_user_id')
      .primaryKey()
      .references(() => user.id, { onDelete: 'cascade' }),
    affiliateId: text('affiliate_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    code: text('code').notNull(),
    /** The share of fulfilment revenue, in basis points, fixed at sign-up (1000 = 10 %). */
    shareBps: integer('share_bps').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    endsAt: timestamp('ends_at', { withTimezone: true }).notNull(),
  },
  (table) => [index('referral_affiliate_idx').on(table.affiliateId, table.createdAt)],
);

/** The affiliate ledger: an earning per charged order, a reversal per refund (negative). */
export const affiliateEarning = pgTable(
  'affiliate_earning',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    affiliateId: text('affiliate_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    referredUserId: text('referred_user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    orderId: uuid('order_id').references(() => order.id, { onDelete: 'set null' }),
    chargeId: uuid('charge_id').references(() => charge.id, { onDelete: 'set null' }),
    refundId: uuid('refund_id').references(() => refund.id, { onDelete: 'set null' }),
    /** earning | reversal */
    kind: text('kind').notNull(),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull().default('USD'),
    /** When it may be paid out: the order delivered + the holding period; null until delivered. */
    payableAt: timestamp('payable_at', { withTimezone: true }),
    payoutId: uuid('payout_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('affiliate_earning_charge_idx').on(table.chargeId).where(sql`kind = 'earning'`),
    uniqueIndex('affiliate_earning_refund_idx').on(table.refundId).where(sql`kind = 'reversal'`),
    index('affiliate_earning_affiliate_idx').on(table.affiliateId, table.createdAt, table.id),
    index('affiliate_earning_order_idx').on(table.orderId),
  ],
);

/** A monthly payout to an affiliate's connected account: proposed, approved by an admin, then transferred once. */
export const affiliatePayout = pgTable(
  'affiliate_payout',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    affiliateId: text('affiliate_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    /** YYYY-MM: the month the run covers. */
    period: text('period').notNull(),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull().default('USD'),
    /** proposed | approved | paid | failed | held */
    status: text('status').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    transferId: text('transfer_id'),
    error: text('error'),
    approvedBy: text('approved_by').references(() => user.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    paidAt: timestamp('paid_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('affiliate_payout_period_idx').on(table.affiliateId, table.period),
    uniqueIndex('affiliate_payout_key_idx').on(table.idempotencyKey),
  ],
);

// ── notifications (issue 13; docs/notifications.md) ────────────────────────────────────────────

/**
 * Every email the product sends: queued here in the transaction of what caused it, sent by a job
 * (SMTP) with retries, or kept as the outbox that admins read when no SMTP server is configured.
 */
export const emailMessage = pgTable(
  'email_message',
  {
    id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
    userId: text('user_id').references(() => user.id, { onDelete: 'set null' }),
    toAddress: text('to_address').notNull(),
    templateType: text('template_type').notNull(),
    subject: text('subject').notNull(),
    html: text('html').notNull(),
    text: text('text').notNull(),
    /** The List-Unsubscribe URL (null for mail a seller cannot turn off, e.g. sign-in links). */
    unsubscribeUrl: text('unsubscribe_url'),
    /** queued | sent | failed | outbox (kept, no SMTP server) */
    status: text('status').notNull(),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    /** What made it (e.g. `payment_failed:<charge id>`): the same event never mails twice. */
    dedupeKey: text('dedupe_key'),
    createdBy: text('created_by').references(() => user.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('email_message_dedupe_idx').on(table.dedupeKey),
    index('email_message_created_idx').on(table.createdAt, table.id),
    index('email_message_user_created_idx').on(table.userId, table.createdAt, table.id),
  ],
);

/** The emails a seller turned off (template types); absent = all on. */
export const notificationPreference = pgTable('notification_preference', {
  userId: text('user_id')
    .primaryKey()
    .references(() => user.id, { onDelete: 'cascade' }),
  disabled: jsonb('disabled').$type<string[]>().notNull().default([]),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
