import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { user } from '../../db/auth-schema.ts';
import { order } from '../orders/orders-schema.ts';
import { printer, printJob } from '../production/production-schema.ts';
import { shipment } from '../shipping/shipping-schema.ts';

/*
 * The claims module's tables (issue 24; docs/claims.md): a seller's claim on an order, the parts it
 * names (with the printer and material they were made with, kept for the per-printer figures) and its
 * photos. Re-exported by db/schema.ts.
 */

export const claim = pgTable(
  'claim',
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
    /** damaged | lost | misprinted */
    kind: text('kind').notNull(),
    description: text('description').notNull(),
    /** open | reprint | refunded | declined */
    status: text('status').notNull().default('open'),
    decisionNote: text('decision_note').notNull().default(''),
    refundCents: integer('refund_cents'),
    replacementShipmentId: uuid('replacement_shipment_id').references(() => shipment.id, { onDelete: 'set null' }),
    decidedBy: text('decided_by').references(() => user.id, { onDelete: 'set null' }),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    // One claim waits per order at a time: a double submit cannot file two.
    uniqueIndex('claim_open_order_idx')
      .on(table.orderId)
      .where(sql`${table.status} = 'open'`),
    index('claim_owner_created_idx').on(table.ownerId, table.createdAt),
    index('claim_status_created_idx').on(table.status, table.createdAt),
  ],
);

export const claimPart = pgTable(
  'claim_part',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    claimId: uuid('claim_id')
      .notNull()
      .references(() => claim.id, { onDelete: 'cascade' }),
    printJobId: uuid('print_job_id')
      .notNull()
      .references(() => printJob.id, { onDelete: 'cascade' }),
    /** As printed (the job's own columns may change no more, but a printer may be deleted). */
    printerId: uuid('printer_id').references(() => printer.id, { onDelete: 'set null' }),
    printerName: text('printer_name').notNull().default(''),
    material: text('material').notNull(),
    reprintJobId: uuid('reprint_job_id').references(() => printJob.id, { onDelete: 'set null' }),
  },
  (table) => [
    uniqueIndex('claim_part_job_idx').on(table.claimId, table.printJobId),
    index('claim_part_printer_idx').on(table.printerId),
  ],
);

export const claimPhoto = pgTable(
  'claim_photo',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    claimId: uuid('claim_id')
      .notNull()
      .references(() => claim.id, { onDelete: 'cascade' }),
    /** The normalised JPEG (metadata stripped) in file storage. */
    storageKey: text('storage_key').notNull(),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    position: integer('position').notNull(),
  },
  (table) => [index('claim_photo_claim_idx').on(table.claimId, table.position)],
);
