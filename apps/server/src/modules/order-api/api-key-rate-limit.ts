import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { namedStatement } from '../../db/named-statement.ts';
import { apiKeyRateWindow } from '../../db/schema.ts';

export const WINDOW_MS = 60_000;

/** One request counted: how many the key has made in its current window, and when that window ends. */
export interface RateCount {
  readonly count: number;
  readonly windowStart: Date;
}

/**
 * The order API's per-key request counter, in the database so that every process shares it (two
 * web processes do not each allow the limit). One row per key holds its current one-minute window
 * (starting at the first request after the previous one ended) and the requests counted in it;
 * each request moves it with one atomic upsert on the key's primary key, timed by the database's
 * clock, so there is nothing to prune: a key has one row at most, deleted with the key.
 */
export function createApiKeyRateRepository(db: Database) {
  const t = apiKeyRateWindow;
  const secs = WINDOW_MS / 1000;
  const expired = sql`${t.windowStart} <= now() - make_interval(secs => ${secs})`;
  // Prepared once per connection (db/named-statement.ts): it runs on every order API request.
  const keyAndCount = namedStatement<{
    key_id: string;
    owner_id: string;
    revoked: boolean;
    may: boolean | null;
    count: number | null;
    window_start_ms: number | null;
  }>(
    db,
    'order_api_key_and_count',
    `WITH k AS (
       SELECT a.id, a.owner_id, a.revoked_at IS NOT NULL AS revoked, (u.is_beta_tester OR u.role = 'admin') AS may
       FROM api_key a JOIN "user" u ON u.id = a.owner_id
       WHERE a.key_hash = $1
     ), counted AS (
       INSERT INTO api_key_rate_window AS w (key_id, window_start, count)
       SELECT k.id, now(), 1 FROM k WHERE NOT k.revoked AND k.may
       ON CONFLICT (key_id) DO UPDATE SET
         count = CASE WHEN w.window_start <= now() - make_interval(secs => ${secs}) THEN 1 ELSE w.count + 1 END,
         window_start = CASE WHEN w.window_start <= now() - make_interval(secs => ${secs}) THEN now() ELSE w.window_start END
       RETURNING w.count, (extract(epoch FROM w.window_start) * 1000)::float8 AS window_start_ms
     )
     SELECT k.id::text AS key_id, k.owner_id, k.revoked, k.may, counted.count, counted.window_start_ms
     FROM k LEFT JOIN counted ON true`,
  );
  return {
    /**
     * One order API request in one statement (the hot path): the key by its hash with what its
     * owner may do, and — only for a live key whose owner may use the API — the request counted
     * as `count` does. Undefined when no key has this hash; `counted` null when nothing was counted.
     */
    async findKeyAndCount(keyHash: string): Promise<
      { keyId: string; ownerId: string; revoked: boolean; ownerMayUseApi: boolean; counted: RateCount | null } | undefined
    > {
      const row = (await keyAndCount([keyHash]))[0];
      if (!row) return undefined;
      return {
        keyId: row.key_id,
        ownerId: row.owner_id,
        revoked: row.revoked,
        ownerMayUseApi: row.may === true,
        counted: row.count === null || row.window_start_ms === null ? null : { count: Number(row.count), windowStart: new Date(Number(row.window_start_ms)) },
      };
    },

    async count(keyId: string): Promise<RateCount> {
      const [row] = await db
        .insert(t)
        .values({ keyId, windowStart: sql`now()`, count: 1 })
        .onConflictDoUpdate({
          target: t.keyId,
          set: {
            count: sql`CASE WHEN ${expired} THEN 1 ELSE ${t.count} + 1 END`,
            windowStart: sql`CASE WHEN ${expired} THEN now() ELSE ${t.windowStart} END`,
          },
        })
        .returning({ count: t.count, windowStart: t.windowStart });
      if (!row) throw new Error('the rate-limit upsert returned no row');
      return row;
    },
  };
}

export type ApiKeyRateRepository = ReturnType<typeof createApiKeyRateRepository>;
