import { eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { checkoutRatesSetting } from './checkout-rates-schema.ts';

export type CheckoutRatesRow = typeof checkoutRatesSetting.$inferSelect;

/** Checkout rates settings per shop. Only this file touches the table. */
export function createCheckoutRatesRepository(db: Database) {
  return {
    async find(shopId: string): Promise<CheckoutRatesRow | undefined> {
      const [row] = await db.select().from(checkoutRatesSetting).where(eq(checkoutRatesSetting.shopId, shopId));
      return row;
    },

    /** Turns the rates on with a new callback secret generation; the row as it now is. */
    async enable(shopId: string, ownerId: string): Promise<CheckoutRatesRow> {
      const [row] = await db
        .insert(checkoutRatesSetting)
        .values({ shopId, ownerId, enabled: true, generation: 1 })
        .onConflictDoUpdate({
          target: checkoutRatesSetting.shopId,
          set: { enabled: true, generation: sql`${checkoutRatesSetting.generation} + 1`, lastError: '', updatedAt: new Date() },
        })
        .returning();
      return row!;
    },

    async registered(shopId: string, carrierServiceId: string): Promise<void> {
      await db
        .update(checkoutRatesSetting)
        .set({ carrierServiceId, registeredAt: new Date(), lastError: '', updatedAt: new Date() })
        .where(eq(checkoutRatesSetting.shopId, shopId));
    },

    /** Registration refused: the rates stay off, with the marketplace's reason to show. */
    async refused(shopId: string, reason: string): Promise<void> {
      await db
        .update(checkoutRatesSetting)
        .set({ enabled: false, carrierServiceId: null, registeredAt: null, lastError: reason, updatedAt: new Date() })
        .where(eq(checkoutRatesSetting.shopId, shopId));
    },

    async disable(shopId: string): Promise<void> {
      await db
        .update(checkoutRatesSetting)
        .set({ enabled: false, carrierServiceId: null, registeredAt: null, updatedAt: new Date() })
        .where(eq(checkoutRatesSetting.shopId, shopId));
    },
  };
}

export type CheckoutRatesRepository = ReturnType<typeof createCheckoutRatesRepository>;
