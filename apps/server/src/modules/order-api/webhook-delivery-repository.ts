import { and, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { WebhookDeliveryState } from '@layerline/contracts';
import type { Database } from '../../db/client.ts';
import { order, webhookDelivery } from '../../db/schema.ts';

export type WebhookDeliveryRow = typeof webhookDelivery.$inferSelect;
export type NewWebhookDelivery = Pick<WebhookDeliveryRow, 'outboxId' | 'eventId' | 'ownerId' | 'orderId' | 'fromStatus' | 'toStatus' | 'event'>;
export type ListedWebhookDelivery = WebhookDeliveryRow & { orderExternalId: string };

/** The webhook deliveries of every seller: one row per announced order change, with its attempts. */
export function createWebhookDeliveryRepository(db: Database) {
  const listed = () =>
    db
      .select({ delivery: webhookDelivery, orderExternalId: order.externalId })
      .from(webhookDelivery)
      .innerJoin(order, eq(order.id, webhookDelivery.orderId));

  return {
    /** The delivery for an announcement: inserted the first time, the existing row afterwards. */
    async insertIfNew(delivery: NewWebhookDelivery): Promise<WebhookDeliveryRow> {
      const [inserted] = await db.insert(webhookDelivery).values(delivery).onConflictDoNothing({ target: webhookDelivery.outboxId }).returning();
      if (inserted) return inserted;
      const [existing] = await db.select().from(webhookDelivery).where(eq(webhookDelivery.outboxId, delivery.outboxId));
      if (!existing) throw new Error('webhook delivery conflict without an existing row');
      return existing;
    },

    /** The deliveries for many announcements in one statement: inserted, or the existing rows. */
    async insertManyIfNew(deliveries: readonly NewWebhookDelivery[]): Promise<WebhookDeliveryRow[]> {
      if (deliveries.length === 0) return [];
      const inserted = await db.insert(webhookDelivery).values([...deliveries]).onConflictDoNothing({ target: webhookDelivery.outboxId }).returning();
      if (inserted.length === deliveries.length) return inserted;
      const have = new Set(inserted.map((row) => row.outboxId));
      const missing = deliveries.filter((delivery) => !have.has(delivery.outboxId)).map((delivery) => delivery.outboxId);
      const existing = await db.select().from(webhookDelivery).where(inArray(webhookDelivery.outboxId, missing));
      return [...inserted, ...existing];
    },

    /** A delivery with its order's number. */
    async find(id: string): Promise<ListedWebhookDelivery | undefined> {
      const [row] = await listed().where(eq(webhookDelivery.id, id));
      return row && { ...row.delivery, orderExternalId: row.orderExternalId };
    },

    /** The seller's newest deliveries first, with each order's number. */
    async listForOwner(ownerId: string, limit: number): Promise<ListedWebhookDelivery[]> {
      const rows = await listed()
        .where(eq(webhookDelivery.ownerId, ownerId))
        .orderBy(desc(webhookDelivery.createdAt), desc(webhookDelivery.id))
        .limit(limit);
      return rows.map((row) => ({ ...row.delivery, orderExternalId: row.orderExternalId }));
    },

    /** One attempt's outcome; `statusCode` null when the receiver never answered. */
    async recordAttempt(id: string, outcome: { state: WebhookDeliveryState; statusCode: number | null; error: string }): Promise<void> {
      const at = new Date();
      await db
        .update(webhookDelivery)
        .set({
          state: outcome.state,
          attempts: sql`${webhookDelivery.attempts} + 1`,
          lastStatusCode: outcome.statusCode,
          lastError: outcome.error,
          updatedAt: at,
          ...(outcome.state === 'delivered' ? { deliveredAt: at } : {}),
        })
        .where(eq(webhookDelivery.id, id));
    },

    /** Ends a delivery without an attempt (its endpoint is gone, or its URL no longer allowed). */
    async settleWithoutAttempt(id: string, state: WebhookDeliveryState, error: string): Promise<void> {
      await db.update(webhookDelivery).set({ state, lastError: error, updatedAt: new Date() }).where(eq(webhookDelivery.id, id));
    },

    /**
     * Puts the seller's settled delivery back to pending for a resend (compare-and-set, so two
     * clicks queue it once); undefined when it is not theirs, missing or already pending.
     */
    async reopen(id: string, ownerId: string): Promise<WebhookDeliveryRow | undefined> {
      const [row] = await db
        .update(webhookDelivery)
        .set({ state: 'pending', updatedAt: new Date() })
        .where(and(eq(webhookDelivery.id, id), eq(webhookDelivery.ownerId, ownerId), ne(webhookDelivery.state, 'pending')))
        .returning();
      return row;
    },
  };
}

export type WebhookDeliveryRepository = ReturnType<typeof createWebhookDeliveryRepository>;
