import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { user } from '../../db/auth-schema.ts';

/*
 * The notifications module's tables (issue 13; docs/notifications.md).
 * Re-exported by db/schema.ts, the one entry point of the ORM and drizzle-kit.
 */

/**
 * Every email the product sends: queued here in the transaction of what caused it, sent by a job
 * (SMTP) with retries, or kept as the outbox that admins read when no SMTP server is configured.
 */
export const emailMessage = pgTable(
  'email_message',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
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
