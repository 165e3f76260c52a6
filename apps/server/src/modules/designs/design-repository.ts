import { and, count, desc, eq, ilike, inArray, or, sql, sum } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { design, printConfiguration, printFile, storageReservation, user, type ProblemJson } from '../../db/schema.ts';
import { pageFrom } from '../../platform/keyset-cursor.ts';
import { beforeTimeId, decodeTimeIdCursor, microsOf, timeIdKey } from '../../platform/time-id-keyset.ts';

export type DesignRow = typeof design.$inferSelect;
export type NewDesignRow = typeof design.$inferInsert;
export type PrintConfigRow = typeof printConfiguration.$inferSelect;
export type NewPrintConfigRow = typeof printConfiguration.$inferInsert;

export interface DesignWithConfigs {
  design: DesignRow;
  ownerEmail: string;
  configs: PrintConfigRow[];
}

type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];

/** First key of the per-seller storage lock (pg_advisory_xact_lock(class, hashtext(owner id))). */
const STORAGE_LOCK_CLASS = 7412;

/**
 * Takes the owner's storage lock for the rest of the transaction, forgets their expired
 * reservations, and returns what their designs take and what their live reservations hold
 * (less `exceptId`'s). Every quota check computes its figures here, under the lock.
 */
async function lockedStorageUsage(tx: Transaction, ownerId: string, exceptId: string | null): Promise<{ usedBytes: number; heldBytes: number }> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${sql.raw(String(STORAGE_LOCK_CLASS))}, hashtext(${ownerId}))`);
  await tx.delete(storageReservation).where(and(eq(storageReservation.ownerId, ownerId), sql`${storageReservation.expiresAt} <= now()`));
  const [used] = await tx.select({ bytes: sum(design.sizeBytes) }).from(design).where(eq(design.ownerId, ownerId));
  const [held] = await tx
    .select({ bytes: sum(storageReservation.bytes) })
    .from(storageReservation)
    .where(and(eq(storageReservation.ownerId, ownerId), exceptId ? sql`${storageReservation.id} <> ${exceptId}` : undefined));
  return { usedBytes: Number(used?.bytes ?? 0), heldBytes: Number(held?.bytes ?? 0) };
}

/** Designs and their print configurations. Every read is scoped by owner unless it says otherwise. */
/** Every G-code stored for these configurations: the quotes' own and the ones sliced for the farm's printers. */
async function gcodeKeysOf(db: Pick<Database, 'select'>, configIds: readonly string[]): Promise<string[]> {
  if (configIds.length === 0) return [];
  const [quotes, printers] = await Promise.all([
    db.select({ sliced: printConfiguration.sliced }).from(printConfiguration).where(inArray(printConfiguration.id, [...configIds])),
    db.select({ key: printFile.gcodeKey }).from(printFile).where(inArray(printFile.printConfigId, [...configIds])),
  ]);
  return [...quotes.flatMap((c) => (c.sliced ? [c.sliced.gcodeKey] : [])), ...printers.flatMap((f) => (f.key ? [f.key] : []))];
}

export function createDesignRepository(db: Database) {
  async function withConfigs(rows: { design: DesignRow; ownerEmail: string }[]): Promise<DesignWithConfigs[]> {
    if (rows.length === 0) return [];
    const configs = await db
      .select()
      .from(printConfiguration)
      .where(inArray(printConfiguration.designId, rows.map((row) => row.design.id)))
      .orderBy(printConfiguration.createdAt, printConfiguration.id);
    return rows.map((row) => ({ ...row, configs: configs.filter((c) => c.designId === row.design.id) }));
  }

  function searchFilter(search: string) {
    if (!search) return undefined;
    const pattern = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return or(ilike(design.name, pattern), ilike(design.fileName, pattern), ilike(user.email, pattern));
  }

  return {
    /** Inserts a design with its first configuration, both or neither. */
    async insertWithConfig(newDesign: NewDesignRow, newConfig: Omit<NewPrintConfigRow, 'designId'>): Promise<string> {
      return db.transaction(async (tx) => {
        const [row] = await tx.insert(design).values(newDesign).returning({ id: design.id });
        if (!row) throw new Error('insert returned no row');
        await tx.insert(printConfiguration).values({ ...newConfig, designId: row.id });
        return row.id;
      });
    },

    async find(id: string): Promise<DesignWithConfigs | undefined> {
      const rows = await db
        .select({ design, ownerEmail: user.email })
        .from(design)
        .innerJoin(user, eq(user.id, design.ownerId))
        .where(eq(design.id, id));
      return (await withConfigs(rows))[0];
    },

    /**
     * Newest first, keyset-paged on (created_at, id): a seller's from design_owner_created_id_idx,
     * everyone's (ownerId null) from design_created_id_idx. `total` (the seller's matching designs)
     * only for a seller's list.
     */
    async list(options: {
      ownerId: string | null;
      search: string;
      cursor?: string | undefined;
      limit: number;
    }): Promise<{ items: DesignWithConfigs[]; nextCursor: string | null; total: number | null }> {
      const after = decodeTimeIdCursor(options.cursor, 'uuid');
      const where = and(options.ownerId ? eq(design.ownerId, options.ownerId) : undefined, searchFilter(options.search));
      const [rows, total] = await Promise.all([
        db
          .select({ design, ownerEmail: user.email, micros: microsOf(design.createdAt) })
          .from(design)
          .innerJoin(user, eq(user.id, design.ownerId))
          .where(and(where, after ? beforeTimeId(design.createdAt, design.id, after) : undefined))
          .orderBy(desc(design.createdAt), desc(design.id))
          .limit(options.limit + 1),
        options.ownerId
          ? db.select({ n: count() }).from(design).innerJoin(user, eq(user.id, design.ownerId)).where(where)
          : Promise.resolve(null),
      ]);
      const page = pageFrom(rows, options.limit, (row) => timeIdKey(row.micros, row.design.id), (row) => row);
      return {
        items: await withConfigs(page.items.map((row) => ({ design: row.design, ownerEmail: row.ownerEmail }))),
        nextCursor: page.nextCursor,
        total: total ? (total[0]?.n ?? 0) : null,
      };
    },

    async storageUsedBytes(ownerId: string): Promise<number> {
      const [row] = await db.select({ bytes: sum(design.sizeBytes) }).from(design).where(eq(design.ownerId, ownerId));
      return Number(row?.bytes ?? 0);
    },

    /**
     * Holds `bytes` more of the owner's quota for upload `id` (docs/storage.md), if their designs,
     * their live reservations (this one's included) and `bytes` stay within `quotaBytes`. Checked
     * and written under the owner's storage lock, so concurrent uploads never pass it together.
     */
    async reserveStorage(r: { id: string; ownerId: string; bytes: number; quotaBytes: number; ttlSeconds: number }): Promise<{ granted: boolean; usedBytes: number }> {
      return db.transaction(async (tx) => {
        const { usedBytes, heldBytes } = await lockedStorageUsage(tx, r.ownerId, null);
        if (usedBytes + heldBytes + r.bytes > r.quotaBytes) return { granted: false, usedBytes };
        const expiresAt = sql`now() + make_interval(secs => ${r.ttlSeconds})`;
        await tx
          .insert(storageReservation)
          .values({ id: r.id, ownerId: r.ownerId, bytes: r.bytes, expiresAt })
          .onConflictDoUpdate({ target: storageReservation.id, set: { bytes: sql`${storageReservation.bytes} + ${r.bytes}`, expiresAt } });
        return { granted: true, usedBytes };
      });
    },

    /** Gives back what upload `id` held (it failed); nothing if it held nothing. */
    async releaseStorage(id: string): Promise<void> {
      await db.delete(storageReservation).where(eq(storageReservation.id, id));
    },

    /**
     * Inserts an uploaded design (its id is its reservation's) with its first configuration, turning
     * the reservation into the design's real size — or inserts nothing and answers false when that
     * size does not fit the quota (only possible if the reservation expired meanwhile).
     */
    async insertUploaded(newDesign: NewDesignRow & { id: string }, newConfig: Omit<NewPrintConfigRow, 'designId'>, quotaBytes: number): Promise<boolean> {
      return db.transaction(async (tx) => {
        const { usedBytes, heldBytes } = await lockedStorageUsage(tx, newDesign.ownerId, newDesign.id);
        if (usedBytes + heldBytes + newDesign.sizeBytes > quotaBytes) return false;
        await tx.delete(storageReservation).where(eq(storageReservation.id, newDesign.id));
        await tx.insert(design).values(newDesign);
        await tx.insert(printConfiguration).values({ ...newConfig, designId: newDesign.id });
        return true;
      });
    },

    async countForOwner(ownerId: string): Promise<number> {
      const [row] = await db.select({ n: count() }).from(design).where(eq(design.ownerId, ownerId));
      return row?.n ?? 0;
    },

    async rename(id: string, name: string): Promise<void> {
      await db
        .update(design)
        .set({ name, updatedAt: new Date(), metageneration: sql`${design.metageneration} + 1` })
        .where(eq(design.id, id));
    },

    async setThumbnailKey(id: string, key: string): Promise<void> {
      await db.update(design).set({ thumbnailKey: key }).where(eq(design.id, id));
    },

    /** Deletes the row (its configurations and their print files cascade) and returns the storage keys to remove. */
    async delete(id: string): Promise<{ storageKey: string; thumbnailKey: string | null; gcodeKeys: string[] } | undefined> {
      return db.transaction(async (tx) => {
        const configs = await tx.select({ id: printConfiguration.id }).from(printConfiguration).where(eq(printConfiguration.designId, id));
        const gcodeKeys = await gcodeKeysOf(tx, configs.map((c) => c.id));
        const [row] = await tx.delete(design).where(eq(design.id, id)).returning({ storageKey: design.storageKey, thumbnailKey: design.thumbnailKey });
        if (!row) return undefined;
        return { ...row, gcodeKeys };
      });
    },

    async findConfig(id: string): Promise<PrintConfigRow | undefined> {
      const [row] = await db.select().from(printConfiguration).where(eq(printConfiguration.id, id));
      return row;
    },

    async insertConfig(config: NewPrintConfigRow): Promise<string> {
      const [row] = await db.insert(printConfiguration).values(config).returning({ id: printConfiguration.id });
      if (!row) throw new Error('insert returned no row');
      return row.id;
    },

    async updateConfig(id: string, changes: Partial<NewPrintConfigRow>): Promise<void> {
      await db
        .update(printConfiguration)
        .set({ ...changes, updatedAt: new Date() })
        .where(eq(printConfiguration.id, id));
    },

    /** Settings changed: new estimate, slicing to be redone, and older slicing results no longer apply. */
    async replaceConfigSettings(id: string, changes: Partial<NewPrintConfigRow>): Promise<number> {
      const [row] = await db
        .update(printConfiguration)
        .set({ ...changes, sliced: null, updatedAt: new Date(), settingsVersion: sql`${printConfiguration.settingsVersion} + 1` })
        .where(eq(printConfiguration.id, id))
        .returning({ version: printConfiguration.settingsVersion });
      return row?.version ?? 0;
    },

    /** Stores a slicing result only if the settings it was computed for are still current. */
    async recordSlicing(
      id: string,
      settingsVersion: number,
      result: { status: string; error: string | null; sliced?: PrintConfigRow['sliced'] },
    ): Promise<boolean> {
      const rows = await db
        .update(printConfiguration)
        .set({ slicingStatus: result.status, slicingError: result.error, ...(result.sliced ? { sliced: result.sliced } : {}) })
        .where(and(eq(printConfiguration.id, id), eq(printConfiguration.settingsVersion, settingsVersion)))
        .returning({ id: printConfiguration.id });
      return rows.length > 0;
    },

    /** Deletes a configuration (its print files cascade) and returns the G-code keys to remove. */
    async deleteConfig(id: string): Promise<string[]> {
      return db.transaction(async (tx) => {
        const gcodeKeys = await gcodeKeysOf(tx, [id]);
        await tx.delete(printConfiguration).where(eq(printConfiguration.id, id));
        return gcodeKeys;
      });
    },

    async countConfigs(designId: string): Promise<number> {
      const [row] = await db.select({ n: count() }).from(printConfiguration).where(eq(printConfiguration.designId, designId));
      return row?.n ?? 0;
    },
  };
}

export type DesignRepository = ReturnType<typeof createDesignRepository>;
export type { ProblemJson };
