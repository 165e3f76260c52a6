import { eq } from 'drizzle-orm';
import { priceTableSchema, type PriceTable } from '@layerline/contracts';
import type { Database } from '../../db/client.ts';
import { auditLog, priceTable } from '../../db/schema.ts';
import { DEFAULT_PRICE_TABLE } from './pricing.ts';

const CURRENT = 'current';

export function createPriceTableRepository(db: Database) {
  return {
    async get(): Promise<PriceTable> {
      const [row] = await db.select({ table: priceTable.table }).from(priceTable).where(eq(priceTable.id, CURRENT));
      if (!row) return DEFAULT_PRICE_TABLE;
      // A table saved by an older version may lack newer keys: fill them from the defaults.
      const parsed = priceTableSchema.safeParse({ ...DEFAULT_PRICE_TABLE, ...row.table });
      return parsed.success ? parsed.data : DEFAULT_PRICE_TABLE;
    },

    /** Replaces the table and records who changed what, in one transaction. */
    async set(table: PriceTable, context: { actorId: string; requestId: string }): Promise<PriceTable> {
      await db.transaction(async (tx) => {
        const [before] = await tx.select({ table: priceTable.table }).from(priceTable).where(eq(priceTable.id, CURRENT));
        await tx
          .insert(priceTable)
          .values({ id: CURRENT, table, updatedBy: context.actorId })
          .onConflictDoUpdate({ target: priceTable.id, set: { table, updatedBy: context.actorId, updatedAt: new Date() } });
        await tx.insert(auditLog).values({
          actorId: context.actorId,
          action: 'price-table.updated',
          detail: { before: before?.table ?? DEFAULT_PRICE_TABLE, after: table },
          requestId: context.requestId,
        });
      });
      return table;
    },
  };
}

export type PriceTableRepository = ReturnType<typeof createPriceTableRepository>;
