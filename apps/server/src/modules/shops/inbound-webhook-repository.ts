import { and, asc, desc, eq, gt, isNotNull, isNull, lt } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { inboundWebhook, shopConnection } from '../../db/schema.ts';

export type InboundWebhookRow = typeof inboundWebhook.$inferSelect;

/** How far back the sweep looks: well inside pg-boss's 7-day retention of finished jobs. */
export const SWEEP_LOOKBACK_MS = 2 * 24 * 60 * 60 * 1000;

/**
 * Inbound marketplace webhooks (one row per delivery id, WH-2) and the two things a delivery
 * needs of shop connections: finding the shop it is for, and detaching a shop whose app was
 * uninstalled.
 */
export function createInboundWebhookRepository(db: Database) {
  return {
    async findShop(
      platform: string,
      externalShopId: string,
    ): Promise<{ id: string; ownerId: string } | undefined> {
      const [row] = await db
        .select({ id: shopConnection.id, ownerId: shopConnection.ownerId })
        .from(shopConnection)
        .where(and(eq(shopConnection.platform, platform), eq(shopConnection.externalShopId, externalShopId)));
      return row;
    },

    /** Stores a delivery; false when its id is already stored (a redelivery: nothing changes). */
    async insertIfNew(input: {
      id: string;
      platform: string;
      shopId: string | null;
      topic: string;
      payload: unknown;
      processed: boolean;
    }): Promise<boolean> {
      const inserted = await db
        .insert(inboundWebhook)
        .values({
          id: input.id,
          platform: input.platform,
          shopId: input.shopId,
          topic: input.topic,
          payload: input.payload,
          processedAt: input.processed ? new Date() : null,
        })
        .onConflictDoNothing()
        .returning({ id: inboundWebhook.id });
      return inserted.length > 0;
    },

    async find(id: string): Promise<InboundWebhookRow | undefined> {
      const [row] = await db.select().from(inboundWebhook).where(eq(inboundWebhook.id, id));
      return row;
    },

    async markProcessed(id: string): Promise<void> {
      await db
        .update(inboundWebhook)
        .set({ processedAt: new Date() })
        .where(and(eq(inboundWebhook.id, id), isNull(inboundWebhook.processedAt)));
    },

    /** A delivery that can never be processed: done, with the reason kept for the operator. */
    async markFailed(id: string, reason: string): Promise<void> {
      await db
        .update(inboundWebhook)
        .set({ processedAt: new Date(), failedReason: reason.slice(0, 1000) })
        .where(and(eq(inboundWebhook.id, id), isNull(inboundWebhook.processedAt)));
    },

    /** Deliveries kept as failed (a payload that was not a readable order), newest first, with their shop. */
    async listFailed(limit: number) {
      return db
        .select({
          id: inboundWebhook.id,
          platform: inboundWebhook.platform,
          topic: inboundWebhook.topic,
          shopId: inboundWebhook.shopId,
          shopName: shopConnection.name,
          reason: inboundWebhook.failedReason,
          receivedAt: inboundWebhook.receivedAt,
        })
        .from(inboundWebhook)
        .leftJoin(shopConnection, eq(shopConnection.id, inboundWebhook.shopId))
        .where(isNotNull(inboundWebhook.failedReason))
        .orderBy(desc(inboundWebhook.receivedAt))
        .limit(limit);
    },

    /** Ids of deliveries received before `before` (and within the lookback) still unprocessed, oldest first. */
    async listUnprocessed(before: Date, limit: number): Promise<string[]> {
      const rows = await db
        .select({ id: inboundWebhook.id })
        .from(inboundWebhook)
        .where(
          and(
            isNull(inboundWebhook.processedAt),
            lt(inboundWebhook.receivedAt, before),
            gt(inboundWebhook.receivedAt, new Date(before.getTime() - SWEEP_LOOKBACK_MS)),
          ),
        )
        .orderBy(asc(inboundWebhook.receivedAt))
        .limit(limit);
      return rows.map((row) => row.id);
    },

    /** The marketplace app was removed: the connection shows the error and its tokens are deleted. */
    async detachShop(shopId: string, message: string): Promise<void> {
      await db
        .update(shopConnection)
        .set({
          status: 'error',
          statusMessage: message,
          accessTokenEnc: null,
          refreshTokenEnc: null,
          tokenExpiresAt: null,
          updatedAt: new Date(),
        })
        .where(eq(shopConnection.id, shopId));
    },
  };
}

export type InboundWebhookRepository = ReturnType<typeof createInboundWebhookRepository>;
