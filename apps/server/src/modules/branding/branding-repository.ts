import { eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { sellerBranding } from '../../db/schema.ts';

export type BrandingRow = typeof sellerBranding.$inferSelect;

export interface LogoRecord {
  key: string;
  format: 'png' | 'svg';
  widthPx: number;
  heightPx: number;
}

export function createBrandingRepository(db: Database) {
  return {
    async find(ownerId: string): Promise<BrandingRow | undefined> {
      const [row] = await db.select().from(sellerBranding).where(eq(sellerBranding.ownerId, ownerId));
      return row;
    },

    async saveInsert(ownerId: string, insert: { insertMessage: string; thankYouCard: boolean }): Promise<void> {
      await db
        .insert(sellerBranding)
        .values({ ownerId, ...insert })
        .onConflictDoUpdate({ target: sellerBranding.ownerId, set: { ...insert, updatedAt: sql`now()` } });
    },

    /**
     * Points the seller's branding at a new logo (or none) in one statement and returns the key it
     * replaced, which the caller deletes once this has committed.
     */
    async swapLogo(ownerId: string, logo: LogoRecord | null): Promise<string | null> {
      const values = {
        logoKey: logo?.key ?? null,
        logoFormat: logo?.format ?? null,
        logoWidthPx: logo?.widthPx ?? null,
        logoHeightPx: logo?.heightPx ?? null,
        logoUpdatedAt: logo ? new Date() : null,
      };
      return db.transaction(async (tx) => {
        const [previous] = await tx
          .select({ logoKey: sellerBranding.logoKey })
          .from(sellerBranding)
          .where(eq(sellerBranding.ownerId, ownerId))
          .for('update');
        await tx
          .insert(sellerBranding)
          .values({ ownerId, ...values })
          .onConflictDoUpdate({ target: sellerBranding.ownerId, set: { ...values, updatedAt: sql`now()` } });
        return previous?.logoKey ?? null;
      });
    },
  };
}

export type BrandingRepository = ReturnType<typeof createBrandingRepository>;
