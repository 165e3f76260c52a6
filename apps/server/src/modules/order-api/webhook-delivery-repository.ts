import { and, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { WebhookDeliveryState } from '@layerline/contracts';
import type { Database } from '../../db/client.ts';
import { namedStatement } from '../../db/named-statement.ts';
import { order, webhookDelivery, webhookOrderSequence } from '../../db/schema.ts';

export type WebhookDeliveryRow = typeof webhookDelivery.$inferSelect;
/** A delivery to record; `fromStatus` null marks the order's creation event (sequence 1). */
export type NewWebhookDelivery = Pick<WebhookDeliveryRow, 'outboxId' | 'eventId' | 'ownerId' | 'orderId' | 'fromStatus' | 'toStatus' | 'event'>;
export type ListedWebhookDelivery = WebhookDeliveryRow & { orderExternalId: string };

/** What the delivery worker needs of a delivery to send it. */
export interface SendableDelivery {
  readonly id: string;
  readonly ownerId: string;
  readonly orderId: string;
  readonly sequence: number;
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
    `SELECT id::text AS id, owner_id AS "ownerId", order_id::text AS "orderId", sequence, event_id AS "eventId", state, event
     FROM webhook_delivery WHERE id = ANY($1::uuid[])`,
  );
  // The events still to send of the batch's orders: sent with the batch's own, in sequence.
  const pendingOfOrders = namedStatement<SendableDelivery>(
    db,
    'webhook_deliveries_pending_of_orders',
    `SELECT id::text AS id, owner_id AS "ownerId", order_id::text AS "orderId", sequence, event_id AS "eventId", state, event
     FROM webhook_delivery WHERE order_id = ANY($1::uuid[]) AND state = 'pending'
     ORDER BY order_id, sequence`,
  );
  // Orders whose creation is still being announced and has no delivery yet: their creation event is coming.
  const creationOutstanding = namedStatement<{ orderId: string }>(
    db,
    'webhook_creation_outstanding',
    `SELECT o.order_id::text AS "orderId" FROM order_outbox o
     WHERE o.order_id = ANY($1::uuid[]) AND o.from_status IS NULL AND o.announced_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM webhook_delivery d WHERE d.outbox_id = o.id)`,
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

  /**
   * The deliveries for many announcements: inserted (and numbered, in the order given) or the
   * existing rows. One transaction: the new rows, their orders' counters moved by one upsert, and
   * each new row's sequence written into the row and its event, so a number is given only to a row
   * that exists and every order's numbers have no gaps.
   */
  async function insertManyIfNew(deliveries: readonly NewWebhookDelivery[]): Promise<WebhookDeliveryRow[]> {
    if (deliveries.length === 0) return [];
    const rank = new Map(deliveries.map((delivery, index) => [delivery.outboxId, index]));
    return db.transaction(async (tx) => {
      // No conflict target: both unique keys (the outbox id and the event id made from it) are
      // arbiters. With the outbox id alone, two concurrent inserts of one announcement deadlock in
      // PostgreSQL on the event id's index, which is not part of the speculative insertion.
      const inserted = await tx.insert(webhookDelivery).values([...deliveries]).onConflictDoNothing().returning();
      inserted.sort((a, b) => rank.get(a.outboxId)! - rank.get(b.outboxId)!);
      // The creation is 1 whenever it is recorded; the order's other events count on from 2.
      const later = new Map<string, WebhookDeliveryRow[]>();
      for (const row of inserted) if (row.fromStatus !== null) later.set(row.orderId, [...(later.get(row.orderId) ?? []), row]);
      const numbers = inserted.filter((row) => row.fromStatus === null).map((row) => ({ id: row.id, seq: 1 }));
      if (later.size > 0) {
        // Sorted by order: two transactions move their counters in the same order (no deadlock).
        const counters = await tx
          .insert(webhookOrderSequence)
          .values([...later.keys()].sort().map((orderId) => ({ orderId, last: 1 + later.get(orderId)!.length })))
          .onConflictDoUpdate({ target: webhookOrderSequence.orderId, set: { last: sql`${webhookOrderSequence.last} + excluded.last - 1` } })
          .returning();
        for (const { orderId, last } of counters) {
          const rows = later.get(orderId)!;
          rows.forEach((row, index) => numbers.push({ id: row.id, seq: last - rows.length + 1 + index }));
        }
      }
      const numbered = new Map(numbers.map((n) => [n.id, n.seq]));
      if (numbers.length > 0) {
        await tx.execute(sql`
          UPDATE webhook_delivery d SET sequence = x.seq, event = jsonb_set(d.event, '{sequence}', to_jsonb(x.seq))
          FROM jsonb_to_recordset(${JSON.stringify(numbers)}::jsonb) AS x(id uuid, seq int)
          WHERE d.id = x.id`);
      }
      const fresh = inserted.map((row) => {
        const seq = numbered.get(row.id)!;
        return { ...row, sequence: seq, event: { ...(row.event as object), sequence: seq } };
      });
      if (inserted.length === deliveries.length) return fresh;
      const have = new Set(inserted.map((row) => row.outboxId));
      const missing = deliveries.filter((delivery) => !have.has(delivery.outboxId)).map((delivery) => delivery.outboxId);
      const existing = await tx.select().from(webhookDelivery).where(inArray(webhookDelivery.outboxId, missing));
      return [...fresh, ...existing];
    });
  }

  return {
    /** The delivery for an announcement: inserted the first time, the existing row afterwards. */
    async insertIfNew(delivery: NewWebhookDelivery): Promise<WebhookDeliveryRow> {
      const [row] = await insertManyIfNew([delivery]);
      if (!row) throw new Error('webhook delivery conflict without an existing row');
      return row;
    },

    insertManyIfNew,

    /** The pending deliveries of these orders, each order's in sequence. */
    async pendingOfOrders(orderIds: readonly string[]): Promise<SendableDelivery[]> {
      return orderIds.length === 0 ? [] : pendingOfOrders([orderIds]);
    },

    /** Of these orders, those whose creation event is still to be recorded (their later events wait for it). */
    async creationOutstanding(orderIds: readonly string[]): Promise<Set<string>> {
      if (orderIds.length === 0) return new Set();
      return new Set((await creationOutstanding([orderIds])).map((row) => row.orderId));
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
