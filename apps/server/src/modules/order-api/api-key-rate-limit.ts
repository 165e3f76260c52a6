import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
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
  const expired = sql`${t.windowStart} <= now() - make_interval(secs => ${WINDOW_MS / 1000})`;
  return {
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
