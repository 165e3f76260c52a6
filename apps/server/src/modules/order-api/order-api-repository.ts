import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { order, productVariant } from '../../db/schema.ts';

export interface OrderSummaryRow {
  readonly id: string;
  readonly externalId: string;
  readonly platform: string;
  readonly status: string;
  readonly holdReason: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/**
 * The reads the order API needs beyond the orders service: which of a seller's SKUs exist, and a
 * keyset-paged list of a seller's orders. Every query is scoped to the owner.
 */
export function createOrderApiRepository(db: Database) {
  return {
    /** The subset of `skus` that name one of the seller's product variants. */
    async existingSkus(ownerId: string, skus: readonly string[]): Promise<Set<string>> {
      if (skus.length === 0) return new Set();
      const rows = await db
        .select({ sku: productVariant.sku })
        .from(productVariant)
        .where(and(eq(productVariant.ownerId, ownerId), inArray(productVariant.sku, [...skus])));
      return new Set(rows.map((row) => row.sku));
    },

    /** Newest first; `after` is the last row of the previous page. */
    async listOrders(options: {
      ownerId: string;
      status: string | undefined;
      limit: number;
      /** The id of the last order of the previous page. */
      afterId: string | undefined;
    }): Promise<OrderSummaryRow[]> {
      const { afterId } = options;
      return db
        .select({
          id: order.id,
          externalId: order.externalId,
          platform: order.platform,
          status: order.status,
          holdReason: order.holdReason,
          createdAt: order.createdAt,
          updatedAt: order.updatedAt,
        })
        .from(order)
        .where(
          and(
            eq(order.ownerId, options.ownerId),
            options.status ? eq(order.status, options.status) : undefined,
            // Compared in SQL, so the cursor keeps the database's microsecond precision.
            afterId
              ? sql`(${order.createdAt}, ${order.id}) < (SELECT c.created_at, c.id FROM ${order} c WHERE c.id = ${afterId}::uuid AND c.owner_id = ${options.ownerId})`
              : undefined,
          ),
        )
        .orderBy(desc(order.createdAt), desc(order.id))
        .limit(options.limit);
    },

    async ownerOf(orderId: string): Promise<string | undefined> {
      const [row] = await db.select({ ownerId: order.ownerId }).from(order).where(eq(order.id, orderId));
      return row?.ownerId;
    },
  };
}

export type OrderApiRepository = ReturnType<typeof createOrderApiRepository>;
