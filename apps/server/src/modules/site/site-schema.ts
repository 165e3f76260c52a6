import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { user } from '../../db/auth-schema.ts';

/*
 * The public site's tables: contact messages and the content the operator edits.
 * Re-exported by db/schema.ts, the one entry point of the ORM and drizzle-kit.
 */

export const contactMessage = pgTable(
  'contact_message',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
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
