import { and, eq, gt, gte, inArray, or, sql } from 'drizzle-orm';
import { isIPv6 } from 'node:net';
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
 * One address cannot keep an account throttled (issue 21: without SMTP_URL there is no emailed
 * link, so one address sending wrong passwords kept the owner out of every new browser, an hour at
 * a time): failures from one address (IPv4, or an IPv6 /64) count toward the account's limit at
 * most ADDRESS_FAILURE_LIMIT times an hour; past that the address itself is refused for the
 * account, and everybody else is not. Throttling the account takes LOGIN_FAILURE_LIMIT /
 * ADDRESS_FAILURE_LIMIT = 10 addresses; an admin can end a throttling episode at once (`unlock`).
 *
 * The emailed sign-in link follows the same rule: one address may have LINK_SEND_LIMIT links an
 * hour mailed for an account, all addresses together LINK_ACCOUNT_SEND_LIMIT (the owner's mailbox
 * is not flooded), so one address asking for links cannot use up the owner's.
 *
 * Counters live in `login_failure`, keyed by the lower-cased email, `from:<email> <address>` for
 * one address's failures on the account, `device:<id>` for a device cookie, `link:<email>` and
 * `link-from:<email> <address>` for sign-in links sent.
 */
export const LOGIN_FAILURE_LIMIT = 100;
export const ADDRESS_FAILURE_LIMIT = 10;
export const DEVICE_FAILURE_LIMIT = 10;
export const LINK_SEND_LIMIT = 5;
export const LINK_ACCOUNT_SEND_LIMIT = 20;
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
  const addressKeyPrefix = (email: string) => `from:${accountKey(email)} `;
  const addressKey = (email: string, address: string) => addressKeyPrefix(email) + addressGroup(address);
  const deviceKey = (deviceId: string) => `device:${deviceId}`;
  const linkKey = (email: string) => `link:${accountKey(email)}`;
  const linkAddressKeyPrefix = (email: string) => `link-from:${accountKey(email)} `;
  const linkAddressKey = (email: string, address: string) => linkAddressKeyPrefix(email) + addressGroup(address);

  return {
    /** Seconds until the account may be tried again from an unknown client, or 0 if it may be tried now. */
    retryAfterSeconds: (email: string): Promise<number> => retryAfter(accountKey(email), LOGIN_FAILURE_LIMIT),

    /** Seconds until this address may try the account again (it spent its share of the account's limit), or 0. */
    addressRetryAfterSeconds: (email: string, address: string): Promise<number> =>
      retryAfter(addressKey(email, address), ADDRESS_FAILURE_LIMIT),

    /** Seconds until a device cookie may be tried again, or 0. */
    deviceRetryAfterSeconds: (deviceId: string): Promise<number> => retryAfter(deviceKey(deviceId), DEVICE_FAILURE_LIMIT),

    /**
     * A failure from a client without a valid device cookie, from `address`: counted against the
     * account only within the address's share; alerts the owner as the account's limit is reached.
     */
    async recordFailure(email: string, address: string): Promise<void> {
      if ((await count(addressKey(email, address))) > ADDRESS_FAILURE_LIMIT) return;
      const failures = await count(accountKey(email));
      // Exactly one failure makes the count equal the limit in a window: one alert per episode.
      if (failures === LOGIN_FAILURE_LIMIT) await options.onAccountThrottled?.(accountKey(email));
    },

    async recordDeviceFailure(deviceId: string): Promise<void> {
      await count(deviceKey(deviceId));
    },

    /** Whether one more sign-in link may be mailed for this account, asked from `address` (and counts it if so). */
    async takeLinkSend(email: string, address: string): Promise<boolean> {
      if ((await retryAfter(linkAddressKey(email, address), LINK_SEND_LIMIT)) > 0) return false;
      if ((await retryAfter(linkKey(email), LINK_ACCOUNT_SEND_LIMIT)) > 0) return false;
      if ((await count(linkAddressKey(email, address))) > LINK_SEND_LIMIT) return false;
      return (await count(linkKey(email))) <= LINK_ACCOUNT_SEND_LIMIT;
    },

    /** A successful sign-in from an unknown client: the account's and that address's failures are forgotten. */
    async clear(email: string, address: string): Promise<void> {
      await db.delete(loginFailure).where(inArray(loginFailure.email, [accountKey(email), addressKey(email, address)]));
    },

    /**
     * An admin ends a throttling episode: the account's failures, every address's share and the
     * sign-in links counted are forgotten. Returns how many failures were counted against the account.
     */
    async unlock(email: string): Promise<number> {
      const startsWith = (prefix: string) => sql`left(${loginFailure.email}, ${prefix.length}) = ${prefix}`;
      const removed = await db
        .delete(loginFailure)
        .where(
          or(
            inArray(loginFailure.email, [accountKey(email), linkKey(email)]),
            startsWith(addressKeyPrefix(email)),
            startsWith(linkAddressKeyPrefix(email)),
          ),
        )
        .returning({ key: loginFailure.email, failures: loginFailure.failures });
      return removed.find((row) => row.key === accountKey(email))?.failures ?? 0;
    },

    /** Of these accounts, those throttled now, with when their window ends. */
    async throttledUntil(emails: readonly string[]): Promise<Map<string, Date>> {
      const keys = [...new Set(emails.map(accountKey))];
      if (keys.length === 0) return new Map();
      const rows = await db
        .select({ key: loginFailure.email, windowStartedAt: loginFailure.windowStartedAt })
        .from(loginFailure)
        .where(
          and(
            inArray(loginFailure.email, keys),
            gte(loginFailure.failures, LOGIN_FAILURE_LIMIT),
            gt(loginFailure.windowStartedAt, new Date(now().getTime() - LOGIN_FAILURE_WINDOW_MS)),
          ),
        );
      return new Map(rows.map((row) => [row.key, new Date(row.windowStartedAt.getTime() + LOGIN_FAILURE_WINDOW_MS)]));
    },

    async clearDevice(deviceId: string): Promise<void> {
      await db.delete(loginFailure).where(eq(loginFailure.email, deviceKey(deviceId)));
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;

/**
 * The part of an address that one party controls: an IPv4 address, or the /64 of an IPv6 one (a
 * single host is routinely given a whole /64, so counting whole IPv6 addresses would give an
 * attacker 2^64 shares). IPv4-mapped IPv6 is its IPv4 address.
 */
export function addressGroup(address: string): string {
  const plain = address.toLowerCase().replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  if (!isIPv6(plain)) return plain;
  const [head = '', tail = ''] = plain.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups = plain.includes('::')
    ? [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups]
    : headGroups;
  return `${groups.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
