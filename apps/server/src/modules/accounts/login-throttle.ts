import { eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { loginFailure } from '../../db/schema.ts';

/**
 * Failed sign-ins counted per account (AUTH-4: at most 100 evaluated per hour). Per-IP limits alone
 * let a botnet guess one account's password; this caps guesses per account without a hard lockout:
 * the window rolls over and the owner can sign in again.
 *
 * It slows the attacker, not the owner (issue 10, finding 4): the account limit counts failures
 * from clients without a device cookie for the account only. A client with a valid device cookie
 * (device-cookie.ts) is still evaluated while the account is throttled, against its own budget
 * (DEVICE_FAILURE_LIMIT per hour per device), and an emailed sign-in link is never throttled here.
 * The owner is alerted once per throttling episode: when the count reaches the limit.
 *
 * Counters live in `login_failure`, keyed by the lower-cased email, `device:<id>` for a device
 * cookie, or `link:<email>` for sign-in links sent (LINK_SEND_LIMIT per hour).
 */
export const LOGIN_FAILURE_LIMIT = 100;
export const DEVICE_FAILURE_LIMIT = 10;
export const LINK_SEND_LIMIT = 5;
export const LOGIN_FAILURE_WINDOW_MS = 60 * 60 * 1000;

export interface LoginThrottleOptions {
  /** Called once when an account reaches the limit (the start of a throttling episode). */
  readonly onAccountThrottled?: (email: string) => Promise<void>;
  readonly now?: () => Date;
}

export function createLoginThrottle(db: Database, options: LoginThrottleOptions = {}) {
  const now = options.now ?? (() => new Date());

  async function retryAfter(key: string, limit: number): Promise<number> {
    const [row] = await db
      .select({ failures: loginFailure.failures, windowStartedAt: loginFailure.windowStartedAt })
      .from(loginFailure)
      .where(eq(loginFailure.email, key));
    if (!row || row.failures < limit) return 0;
    const remainingMs = row.windowStartedAt.getTime() + LOGIN_FAILURE_WINDOW_MS - now().getTime();
    return remainingMs > 0 ? Math.ceil(remainingMs / 1000) : 0;
  }

  /** Counts one more in the key's rolling window and returns the count in the window. */
  async function count(key: string): Promise<number> {
    const at = now();
    const atSql = sql`${at.toISOString()}::timestamptz`;
    const windowStart = sql`${new Date(at.getTime() - LOGIN_FAILURE_WINDOW_MS).toISOString()}::timestamptz`;
    const [row] = await db
      .insert(loginFailure)
      .values({ email: key, failures: 1, windowStartedAt: at })
      .onConflictDoUpdate({
        target: loginFailure.email,
        set: {
          failures: sql`CASE WHEN ${loginFailure.windowStartedAt} < ${windowStart} THEN 1 ELSE ${loginFailure.failures} + 1 END`,
          windowStartedAt: sql`CASE WHEN ${loginFailure.windowStartedAt} < ${windowStart} THEN ${atSql} ELSE ${loginFailure.windowStartedAt} END`,
        },
      })
      .returning({ failures: loginFailure.failures });
    return row?.failures ?? 1;
  }

  const accountKey = (email: string) => email.trim().toLowerCase();
  const deviceKey = (deviceId: string) => `device:${deviceId}`;
  const linkKey = (email: string) => `link:${accountKey(email)}`;

  return {
    /** Seconds until the account may be tried again from an unknown client, or 0 if it may be tried now. */
    retryAfterSeconds: (email: string): Promise<number> => retryAfter(accountKey(email), LOGIN_FAILURE_LIMIT),

    /** Seconds until a device cookie may be tried again, or 0. */
    deviceRetryAfterSeconds: (deviceId: string): Promise<number> => retryAfter(deviceKey(deviceId), DEVICE_FAILURE_LIMIT),

    /** A failure from a client without a valid device cookie; alerts the owner as the limit is reached. */
    async recordFailure(email: string): Promise<void> {
      const failures = await count(accountKey(email));
      // Exactly one failure makes the count equal the limit in a window: one alert per episode.
      if (failures === LOGIN_FAILURE_LIMIT) await options.onAccountThrottled?.(accountKey(email));
    },

    async recordDeviceFailure(deviceId: string): Promise<void> {
      await count(deviceKey(deviceId));
    },

    /** Whether one more sign-in link may be sent to this address now (and counts it if so). */
    async takeLinkSend(email: string): Promise<boolean> {
      if ((await retryAfter(linkKey(email), LINK_SEND_LIMIT)) > 0) return false;
      return (await count(linkKey(email))) <= LINK_SEND_LIMIT;
    },

    async clear(email: string): Promise<void> {
      await db.delete(loginFailure).where(eq(loginFailure.email, accountKey(email)));
    },

    async clearDevice(deviceId: string): Promise<void> {
      await db.delete(loginFailure).where(eq(loginFailure.email, deviceKey(deviceId)));
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
