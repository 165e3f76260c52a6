import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/*
 * The accounts module's table (better-auth's own tables are in db/auth-schema.ts).
 * Re-exported by db/schema.ts, the one entry point of the ORM and drizzle-kit.
 */

/** Failed sign-ins per account in the current window (AUTH-4): survives restarts, shared by processes. */
export const loginFailure = pgTable('login_failure', {
  email: text('email').primaryKey(),
  failures: integer('failures').notNull(),
  windowStartedAt: timestamp('window_started_at', { withTimezone: true }).notNull(),
});
