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

export const user = pgTable('user', {
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
});

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
  (table) => [index('audit_log_created_at_idx').on(table.createdAt)],
);

export const contactMessage = pgTable('contact_message', {
  id: uuid('id').primaryKey().default(sql`gen_random_uuid()`),
  userId: text('user_id').references(() => user.id, { onDelete: 'set null' }),
  name: text('name').notNull(),
  email: text('email').notNull(),
  subject: text('subject').notNull(),
  message: text('message').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
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
  (table) => [index('design_owner_idx').on(table.ownerId, table.createdAt)],
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

/** The admin price table; one row (id = 'current'). */
export const priceTable = pgTable('price_table', {
  id: text('id').primaryKey(),
  table: jsonb('table').$type<Record<string, unknown>>().notNull(),
  updatedBy: text('updated_by').references(() => user.id, { onDelete: 'set null' }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
