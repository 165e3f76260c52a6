import { bigserial, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { user } from '../../db/auth-schema.ts';

/*
 * The analytics module's table: page views.
 * Re-exported by db/schema.ts, the one entry point of the ORM and drizzle-kit.
 */

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
