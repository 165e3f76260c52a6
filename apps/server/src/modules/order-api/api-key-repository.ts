import { and, count, desc, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { apiKey, user } from '../../db/schema.ts';

export interface ApiKeyRow {
  readonly id: string;
  readonly ownerId: string;
  readonly name: string;
  readonly prefix: string;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
  readonly createdAt: Date;
}

const columns = {
  id: apiKey.id,
  ownerId: apiKey.ownerId,
  name: apiKey.name,
  prefix: apiKey.prefix,
  lastUsedAt: apiKey.lastUsedAt,
  revokedAt: apiKey.revokedAt,
  createdAt: apiKey.createdAt,
};

/** Order API keys. Only the SHA-256 of a key is stored; the key itself is never written. */
export function createApiKeyRepository(db: Database) {
  return {
    async insert(row: { ownerId: string; name: string; prefix: string; keyHash: string }): Promise<ApiKeyRow> {
      const [inserted] = await db.insert(apiKey).values(row).returning(columns);
      if (!inserted) throw new Error('insert returned no row');
      return inserted;
    },

    /**
     * The owner's keys for their list: every active key (at most MAX_ACTIVE_KEYS) and the
     * `revokedShown` most recently revoked ones, newest first. Older revoked keys open nothing and
     * are left out, so the list stays short however many keys were made and revoked.
     */
    async listForOwner(ownerId: string, revokedShown: number): Promise<ApiKeyRow[]> {
      const [active, revoked] = await Promise.all([
        db.select(columns).from(apiKey).where(and(eq(apiKey.ownerId, ownerId), isNull(apiKey.revokedAt))),
        db
          .select(columns)
          .from(apiKey)
          .where(and(eq(apiKey.ownerId, ownerId), isNotNull(apiKey.revokedAt)))
          .orderBy(desc(apiKey.revokedAt), desc(apiKey.id))
          .limit(revokedShown),
      ]);
      return [...active, ...revoked].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },

    async countActive(ownerId: string): Promise<number> {
      const [row] = await db
        .select({ n: count() })
        .from(apiKey)
        .where(and(eq(apiKey.ownerId, ownerId), isNull(apiKey.revokedAt)));
      return row?.n ?? 0;
    },

    /** Marks the owner's key revoked; false when the owner has no such key. */
    async revoke(ownerId: string, id: string): Promise<boolean> {
      const rows = await db
        .update(apiKey)
        .set({ revokedAt: sql`COALESCE(${apiKey.revokedAt}, now())` })
        .where(and(eq(apiKey.id, id), eq(apiKey.ownerId, ownerId)))
        .returning({ id: apiKey.id });
      return rows.length > 0;
    },

    /**
     * The key with what its owner may do today (one indexed join, per request): the order API is
     * for beta testers and admins, so a key whose owner left the beta is refused at once.
     */
    async findByHash(keyHash: string): Promise<(ApiKeyRow & { ownerMayUseApi: boolean }) | undefined> {
      const [row] = await db
        .select({ ...columns, ownerMayUseApi: sql<boolean>`(${user.isBetaTester} OR ${user.role} = 'admin')` })
        .from(apiKey)
        .innerJoin(user, eq(user.id, apiKey.ownerId))
        .where(eq(apiKey.keyHash, keyHash));
      return row ? { ...row, ownerMayUseApi: row.ownerMayUseApi === true } : undefined;
    },

    /** Records use, at most once a minute per key (the condition makes concurrent calls cheap no-ops). */
    async touch(id: string, now: Date): Promise<void> {
      const aMinuteAgo = new Date(now.getTime() - 60_000);
      await db
        .update(apiKey)
        .set({ lastUsedAt: now })
        .where(and(eq(apiKey.id, id), or(isNull(apiKey.lastUsedAt), lt(apiKey.lastUsedAt, aMinuteAgo))));
    },
  };
}

export type ApiKeyRepository = ReturnType<typeof createApiKeyRepository>;
