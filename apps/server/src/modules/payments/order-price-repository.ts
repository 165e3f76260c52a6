import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { orderPrice } from '../../db/schema.ts';

export type OrderPriceRow = typeof orderPrice.$inferSelect;
export type NewOrderPrice = Omit<typeof orderPrice.$inferInsert, 'adjustedItemsCents' | 'adjustmentReason' | 'settledAt' | 'createdAt'>;

/** The order_price table: one price per order, written once, settled against the exact slices once. */
export function createOrderPriceRepository(db: Database) {
  return {
    async find(orderId: string): Promise<OrderPriceRow | undefined> {
      const [row] = await db.select().from(orderPrice).where(eq(orderPrice.orderId, orderId));
      return row;
    },

    /** The first price made for the order stays: two processes pricing it at once store one. */
    async insertOnce(values: NewOrderPrice): Promise<OrderPriceRow> {
      await db.insert(orderPrice).values(values).onConflictDoNothing();
      const [row] = await db.select().from(orderPrice).where(eq(orderPrice.orderId, values.orderId));
      return row!;
    },

    /** Settles the price once (compare-and-set on settled_at): the adjustment, or none. Answers the row as it now is. */
    async settle(orderId: string, adjustment: { itemsCents: number; reason: string } | null): Promise<OrderPriceRow> {
      await db
        .update(orderPrice)
        .set({ adjustedItemsCents: adjustment?.itemsCents ?? null, adjustmentReason: adjustment?.reason ?? null, settledAt: new Date() })
        .where(and(eq(orderPrice.orderId, orderId), isNull(orderPrice.settledAt)));
      const [row] = await db.select().from(orderPrice).where(eq(orderPrice.orderId, orderId));
      return row!;
    },
  };
}

export type OrderPriceRepository = ReturnType<typeof createOrderPriceRepository>;
