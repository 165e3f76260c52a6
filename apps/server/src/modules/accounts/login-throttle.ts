import { eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { loginFailure } from '../../db/schema.ts';

/**
 * Failed sign-ins counted per account (AUTH-4: at most 100 evaluated per hour). Per-IP limits alone
 * let a botnet guess one account's password; this caps guesses per account without a hard lockout:
 * the window rolls over and the owner can sign in again.
 */
export const LOGIN_FAILURE_LIMIT = 100;
export const LOGIN_FAILURE_WINDOW_MS = 60 * 60 * 1000;

export function createLoginThrottle(db: Database, now: () => Date = () => new Date()) {
  return {
    /** Seconds until the account may be tried again, or 0 if it may be tried now. */
    async retryAfterSeconds(email: string): Promise<number> {
      const [row] = await db
        .select({ failures: loginFailure.failures, windowStartedAt: loginFailure.windowStartedAt })
        .from(loginFailure)
        .where(eq(loginFailure.email, email.toLowerCase()));
      if (!row || row.failures < LOGIN_FAILURE_LIMIT) return 0;
      const remainingMs = row.windowStartedAt.getTime() + LOGIN_FAILURE_WINDOW_MS - now().getTime();
      return remainingMs > 0 ? Math.ceil(remainingMs / 1000) : 0;
    },

    async recordFailure(email: string): Promise<void> {
      const at = now();
      const atSql = sql`${at.toISOString()}::timestamptz`;
      const windowStart = sql`${new Date(at.getTime() - LOGIN_FAILURE_WINDOW_MS).toISOString()}::timestamptz`;
      await db
        .insert(loginFailure)
        .values({ email: email.toLowerCase(), failures: 1, windowStartedAt: at })
        .onConflictDoUpdate({
          target: loginFailure.email,
          set: {
            failures: sql`CASE WHEN ${loginFailure.windowStartedAt} < ${windowStart} THEN 1 ELSE ${loginFailure.failures} + 1 END`,
            windowStartedAt: sql`CASE WHEN ${loginFailure.windowStartedAt} < ${windowStart} THEN ${atSql} ELSE ${loginFailure.windowStartedAt} END`,
          },
        });
    },

    async clear(email: string): Promise<void> {
      await db.delete(loginFailure).where(eq(loginFailure.email, email.toLowerCase()));
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
