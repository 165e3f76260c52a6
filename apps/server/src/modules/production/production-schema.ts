import { sql } from 'drizzle-orm';
import {
  bigserial,
  boolean,
  doublePrecision,
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
import { printConfiguration } from '../designs/designs-schema.ts';
import { order, orderItem } from '../orders/orders-schema.ts';

/*
 * The print farm's tables (docs/print-farm.md): printers, their power groups, print jobs, what
 * happened on the farm and the files sliced per printer profile.
 * Re-exported by db/schema.ts, the one entry point of the ORM and drizzle-kit.
 */

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
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
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
      .$type<
        { material: string; colourName: string; colourHex: string; gramsLeft: number; loaded: boolean }[]
      >()
      .notNull()
      .default([]),
    /** The printer's last reported status (PrinterStatus) and when; the poller keeps it fresh. */
    lastState: jsonb('last_state').$type<unknown>(),
    lastStateAt: timestamp('last_state_at', { withTimezone: true }),
    lastError: text('last_error'),
    /** SHA-256 of the TLS certificate pinned on first contact (Bambu Lab printers); null before, or after an admin re-trusts. */
    certificateSha256: text('certificate_sha256'),
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
    /** How its bed is cleared between prints (PrinterClearing: person, eject_gcode, plate_changer). */
    clearing: jsonb('clearing').$type<unknown>().notNull().default({ kind: 'person' }),
    /** Plates it cleared by itself since a person last confirmed its bed clear (capped by its clearing). */
    unattendedPlates: integer('unattended_plates').notNull().default(0),
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
  id: uuid('id')
    .primaryKey()
    .default(sql`gen_random_uuid()`),
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
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
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
    /**
     * On a plate of several parts (issue 22): the plate's lead job (the one uploaded and started)
     * for the others on it, null for the lead and for a part printed alone; and the part's index on
     * the plate (0 for the lead), which is also its object id and label in the plate's G-code.
     */
    plateLeadId: uuid('plate_lead_id'),
    plateIndex: integer('plate_index'),
    /** A plate it was on could not be sliced (docs/print-farm.md, "Plates"): it is never put on a plate again. */
    printsAlone: boolean('prints_alone').notNull().default(false),
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
    // No printer ever holds two jobs, or two plates: the dispatcher's compare-and-set relies on it.
    // The other parts of a plate ride on its lead and do not count.
    uniqueIndex('print_job_one_per_printer_idx')
      .on(table.printerId)
      .where(sql`${table.status} IN ('assigned', 'uploading', 'printing') AND ${table.plateLeadId} IS NULL`),
    index('print_job_plate_lead_idx').on(table.plateLeadId),
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
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
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
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
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
  (table) => [
    uniqueIndex('print_file_config_profile_idx').on(
      table.printConfigId,
      table.settingsVersion,
      table.profileKey,
    ),
  ],
);

/**
 * A plate of several parts sliced for the printer it was assigned to (issue 22; the 'slice-plate'
 * job). `id` names the plate exactly: its lead, its parts in plate order, the settings version and
 * the printer profile, so a plate formed anew (other parts, another printer) is sliced anew.
 */
export const plateFile = pgTable(
  'plate_file',
  {
    id: text('id').primaryKey(),
    leadJobId: uuid('lead_job_id')
      .notNull()
      .references(() => printJob.id, { onDelete: 'cascade' }),
    /** queued | done | failed */
    status: text('status').notNull().default('queued'),
    gcodeKey: text('gcode_key'),
    /** The parts as the printer knows them (PlateObject: index and label), in plate order. */
    objects: jsonb('objects').$type<{ index: number; label: string }[]>(),
    grams: doublePrecision('grams'),
    printSeconds: doublePrecision('print_seconds'),
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('plate_file_lead_idx').on(table.leadJobId)],
);
