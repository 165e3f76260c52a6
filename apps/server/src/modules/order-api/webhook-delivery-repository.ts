import { and, desc, eq, inArray, ne } from 'drizzle-orm';
import type { WebhookDeliveryState } from '@layerline/contracts';
import type { Database } from '../../db/client.ts';
import { namedStatement } from '../../db/named-statement.ts';
import { order, webhookDelivery } from '../../db/schema.ts';

export type WebhookDeliveryRow = typeof webhookDelivery.$inferSelect;
export type NewWebhookDelivery = Pick<WebhookDeliveryRow, 'outboxId' | 'eventId' | 'ownerId' | 'orderId' | 'fromStatus' | 'toStatus' | 'event'>;
export type ListedWebhookDelivery = WebhookDeliveryRow & { orderExternalId: string };

/** What the delivery worker needs of a delivery to send it. */
export interface SendableDelivery {
  readonly id: string;
  readonly ownerId: string;
  readonly eventId: string;
  readonly state: string;
  readonly event: unknown;
}

export interface DeliveryOutcomeRecord {
  readonly id: string;
  readonly state: WebhookDeliveryState;
  readonly attempted: boolean;
  readonly statusCode: number | null;
  readonly error: string;
}

/** The webhook deliveries of every seller: one row per announced order change, with its attempts. */
export function createWebhookDeliveryRepository(db: Database) {
  // The delivery worker's two statements per batch, prepared once per connection.
  const deliveriesById = namedStatement<SendableDelivery>(
    db,
    'webhook_deliveries_by_id',
    `SELECT id::text AS id, owner_id AS "ownerId", event_id AS "eventId", state, event
     FROM webhook_delivery WHERE id = ANY($1::uuid[])`,
  );
  const recordOutcomesStatement = namedStatement<never>(
    db,
    'webhook_delivery_outcomes',
    `UPDATE webhook_delivery d SET
       state = x.state,
       attempts = d.attempts + CASE WHEN x.attempted THEN 1 ELSE 0 END,
       last_status_code = CASE WHEN x.attempted THEN x.status_code ELSE d.last_status_code END,
       last_error = x.error,
       updated_at = $2::timestamptz,
       delivered_at = CASE WHEN x.attempted AND x.state = 'delivered' THEN $2::timestamptz ELSE d.delivered_at END
     FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, state text, status_code int, error text, attempted boolean)
     WHERE d.id = x.id`,
  );
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

    /** The deliveries a batch of jobs is about, by id (missing ones left out): one query. */
    async findMany(ids: readonly string[]): Promise<SendableDelivery[]> {
      if (ids.length === 0) return [];
      return deliveriesById([ids]);
    },

    /**
     * What became of a batch of deliveries, in one statement: an attempt (`attempted`: counted, with
     * the receiver's status, null when it never answered) or a settlement without one (the endpoint is
     * gone, or its URL no longer allowed).
     */
    async recordOutcomes(outcomes: readonly DeliveryOutcomeRecord[]): Promise<void> {
      if (outcomes.length === 0) return;
      await recordOutcomesStatement([
        JSON.stringify(outcomes.map((o) => ({ id: o.id, state: o.state, status_code: o.statusCode, error: o.error, attempted: o.attempted }))),
        new Date().toISOString(),
      ]);
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
