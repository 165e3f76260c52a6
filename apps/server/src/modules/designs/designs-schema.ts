import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { user } from '../../db/auth-schema.ts';

/*
 * The designs module's tables: uploaded models, the storage they reserve, how each is printed (its
 * print configurations and their quotes) and whose turn it is to slice.
 * Re-exported by db/schema.ts, the one entry point of the ORM and drizzle-kit.
 */

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
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
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
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
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
    sliced: jsonb('sliced').$type<{
      grams: number;
      printSeconds: number;
      gcodeKey: string;
      slicerVersion: string;
      computedAt: string;
    }>(),
    /** Figures an admin set by hand (the spec's createCostData); they win over the others. */
    adminCost: jsonb('admin_cost').$type<{
      grams: number;
      printSeconds: number;
      costUsd: number | null;
      note: string;
      setBy: string;
      computedAt: string;
    }>(),
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
