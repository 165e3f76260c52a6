import { jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { user } from '../../db/auth-schema.ts';

/*
 * The quotes module's table: the admin price table.
 * Re-exported by db/schema.ts, the one entry point of the ORM and drizzle-kit.
 */

/** The admin price table; one row (id = 'current'). */
export const priceTable = pgTable('price_table', {
  id: text('id').primaryKey(),
  table: jsonb('table').$type<Record<string, unknown>>().notNull(),
  updatedBy: text('updated_by').references(() => user.id, { onDelete: 'set null' }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
