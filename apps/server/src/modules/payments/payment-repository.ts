import { and, desc, eq, inArray, isNull, like, lt, or, sql, type SQL } from 'drizzle-orm';
import { PAYMENT_ACTION_HOLD_PREFIX, PAYMENT_HOLD_PREFIX, type ChargeState } from '@layerline/contracts';
import type { Database } from '../../db/client.ts';
import { charge, order, paymentCustomer, paymentEvent, refund, user } from '../../db/schema.ts';
import { beforeTimeId, microsOf, type TimeIdKey } from '../../platform/time-id-keyset.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';

export type ChargeRow = typeof charge.$inferSelect;
export type RefundRow = typeof refund.$inferSelect;
export type PaymentCustomerRow = typeof paymentCustomer.$inferSelect;
export type NewCharge = Pick<
  typeof charge.$inferInsert,
  | 'ownerId'
  | 'orderId'
  | 'kind'
  | 'attempt'
  | 'amountCents'
  | 'currency'
  | 'breakdown'
  | 'provider'
  | 'customerId'
  | 'paymentMethodId'
  | 'idempotencyKey'
  | 'status'
  | 'failureReason'
  | 'createdBy'
>;
export interface ChargeListRow {
  readonly charge: ChargeRow;
  readonly sellerName: string;
  readonly orderNumber: string | null;
  readonly micros: string;
}

/** Charges that still hold an order's one live slot (charge_live_per_order_idx). */
export const LIVE_CHARGE_STATES: readonly ChargeState[] = [
  'pending',
  'processing',
  'requires_action',
  'succeeded',
  'refunded',
];

/**
 * Payments' tables: each seller's customer and card, charges (one live charge per order, a unique
 * idempotency key per attempt), refunds (one per key) and the provider's webhook events (one row per
 * event id, processed once).
 */
export function createPaymentRepository(db: Database) {
  return {
    /* ---------- customers and cards ---------- */

    async customerOf(ownerId: string): Promise<PaymentCustomerRow | undefined> {
      const [row] = await db.select().from(paymentCustomer).where(eq(paymentCustomer.ownerId, ownerId));
      return row;
    },

    /** Keeps the first customer made for a seller (two tabs adding a card at once make one). */
    async insertCustomer(ownerId: string, provider: string, customerId: string): Promise<PaymentCustomerRow> {
      await db.insert(paymentCustomer).values({ ownerId, provider, customerId }).onConflictDoNothing();
      const [row] = await db.select().from(paymentCustomer).where(eq(paymentCustomer.ownerId, ownerId));
      return row!;
    },

    /** A customer of another provider (the server moved from the sandbox to Stripe): replaced, its card forgotten. */
    async replaceCustomer(
      ownerId: string,
      provider: string,
      customerId: string,
    ): Promise<PaymentCustomerRow> {
      const [row] = await db
        .update(paymentCustomer)
        .set({
          provider,
          customerId,
          paymentMethodId: null,
          cardBrand: null,
          cardLast4: null,
          cardExpMonth: null,
          cardExpYear: null,
          updatedAt: new Date(),
        })
        .where(eq(paymentCustomer.ownerId, ownerId))
        .returning();
      return row!;
    },

    async storeCard(
      ownerId: string,
      card: { paymentMethodId: string; brand: string; last4: string; expMonth: number; expYear: number },
    ): Promise<void> {
      await db
        .update(paymentCustomer)
        .set({
          paymentMethodId: card.paymentMethodId,
          cardBrand: card.brand,
          cardLast4: card.last4,
          cardExpMonth: card.expMonth,
          cardExpYear: card.expYear,
          updatedAt: new Date(),
        })
        .where(eq(paymentCustomer.ownerId, ownerId));
    },

    /* ---------- charges ---------- */

    /** The new attempt, or undefined when its key or the order's live slot is taken (someone else is charging). */
    async insertCharge(values: NewCharge): Promise<ChargeRow | undefined> {
      try {
        const [row] = await db.insert(charge).values(values).returning();
        return row;
      } catch (error) {
        if (isUniqueViolation(error)) return undefined;
        throw error;
      }
    },

    async findCharge(id: string): Promise<ChargeRow | undefined> {
      const [row] = await db.select().from(charge).where(eq(charge.id, id));
      return row;
    },

    async findByIdempotencyKey(key: string): Promise<ChargeRow | undefined> {
      const [row] = await db.select().from(charge).where(eq(charge.idempotencyKey, key));
      return row;
    },

    async findByPaymentIntent(paymentIntentId: string): Promise<ChargeRow | undefined> {
      const [row] = await db.select().from(charge).where(eq(charge.paymentIntentId, paymentIntentId));
      return row;
    },

    /** The order's live charge (at most one), and how many attempts it has had. */
    async orderCharges(orderId: string): Promise<{ live: ChargeRow | undefined; attempts: number }> {
      const rows = await db
        .select()
        .from(charge)
        .where(and(eq(charge.orderId, orderId), eq(charge.kind, 'order')));
      return {
        live: rows.find((row) => LIVE_CHARGE_STATES.includes(row.status as ChargeState)),
        attempts: rows.reduce((max, row) => Math.max(max, row.attempt), 0),
      };
    },

    /** Which of these orders have a succeeded (paid) order charge. */
    async paidOrders(orderIds: readonly string[]): Promise<Set<string>> {
      if (orderIds.length === 0) return new Set();
      const rows = await db
        .select({ orderId: charge.orderId })
        .from(charge)
        .where(
          and(
            inArray(charge.orderId, [...orderIds]),
            eq(charge.kind, 'order'),
            eq(charge.status, 'succeeded'),
          ),
        );
      return new Set(rows.map((row) => row.orderId!));
    },

    /**
     * Moves a charge from one of `from` to `to` with the provider's answer (compare-and-set: of two
     * writers — the request and a webhook — only one makes the change). Undefined when it was not in `from`.
     */
    async transitionCharge(
      id: string,
      from: readonly ChargeState[],
      to: ChargeState,
      values: {
        paymentIntentId?: string | null;
        failureReason?: string | null;
        actionUrl?: string | null;
      } = {},
    ): Promise<ChargeRow | undefined> {
      const [row] = await db
        .update(charge)
        .set({ ...values, status: to, updatedAt: new Date() })
        .where(and(eq(charge.id, id), inArray(charge.status, [...from])))
        .returning();
      return row;
    },

    /** Charges asked of the provider whose answer was never stored (a crash), older than `before`. */
    async pendingCharges(before: Date, limit: number): Promise<ChargeRow[]> {
      return db
        .select()
        .from(charge)
        .where(and(eq(charge.status, 'pending'), lt(charge.updatedAt, before)))
        .orderBy(charge.updatedAt)
        .limit(limit);
    },

    async findChargeListRow(id: string): Promise<ChargeListRow | undefined> {
      const [row] = await listQuery(eq(charge.id, id), 1);
      return row;
    },

    /** Charges waiting for the seller to authenticate. */
    async chargesNeedingAction(ownerId: string): Promise<ChargeListRow[]> {
      return listQuery(and(eq(charge.ownerId, ownerId), eq(charge.status, 'requires_action'))!, 20);
    },

    /** Newest first; a seller's own (ownerId), one order's, or everyone's (admins). */
    async listCharges(filter: {
      ownerId?: string;
      orderId?: string;
      after: TimeIdKey | null;
      limit: number;
    }): Promise<ChargeListRow[]> {
      const conditions: SQL[] = [];
      if (filter.ownerId) conditions.push(eq(charge.ownerId, filter.ownerId));
      if (filter.orderId) conditions.push(eq(charge.orderId, filter.orderId));
      if (filter.after) conditions.push(beforeTimeId(charge.createdAt, charge.id, filter.after));
      return listQuery(conditions.length > 0 ? and(...conditions)! : sql`true`, filter.limit + 1);
    },

    /* ---------- refunds ---------- */

    /** The refund for this key: the one just made, or the one an earlier request made (`created` false). */
    async insertRefund(
      values: Pick<
        typeof refund.$inferInsert,
        'chargeId' | 'ownerId' | 'amountCents' | 'reason' | 'idempotencyKey'
      >,
    ): Promise<{ row: RefundRow; created: boolean }> {
      const inserted = await db
        .insert(refund)
        .values({ ...values, status: 'pending' })
        .onConflictDoNothing()
        .returning();
      if (inserted[0]) return { row: inserted[0], created: true };
      const [row] = await db.select().from(refund).where(eq(refund.idempotencyKey, values.idempotencyKey));
      return { row: row!, created: false };
    },

    /**
     * Records the provider's answer; a succeeded refund adds to the charge's refunded amount in the same
     * transaction, exactly once (only the write that moves the refund out of `pending` adds).
     */
    async settleRefund(
      refundId: string,
      status: 'succeeded' | 'failed',
      providerRefundId: string | null,
    ): Promise<{ refund: RefundRow; charge: ChargeRow } | undefined> {
      return db.transaction(async (tx) => {
        const [settled] = await tx
          .update(refund)
          .set({ status, providerRefundId, updatedAt: new Date() })
          .where(and(eq(refund.id, refundId), eq(refund.status, 'pending')))
          .returning();
        if (!settled) return undefined;
        const [updated] =
          status === 'succeeded'
            ? await tx
                .update(charge)
                .set({
                  refundedCents: sql`${charge.refundedCents} + ${settled.amountCents}`,
                  status: sql`CASE WHEN ${charge.refundedCents} + ${settled.amountCents} >= ${charge.amountCents} THEN 'refunded' ELSE ${charge.status} END`,
                  updatedAt: new Date(),
                })
                .where(eq(charge.id, settled.chargeId))
                .returning()
            : await tx.select().from(charge).where(eq(charge.id, settled.chargeId));
        return { refund: settled, charge: updated! };
      });
    },

    /**
     * Mirrors refunds made at the provider (its dashboard): when the provider's refunded total for the
     * charge is more than we account for — refunded here, plus our own refunds still pending (asked,
     * maybe counted there, not yet settled here) — the difference is recorded as one succeeded refund
     * and added to the charge, in one transaction with the charge row locked, so concurrent events
     * (any number, any totals) never count a cent twice. The key (charge and total) makes a replay one
     * refund. Undefined when nothing was missing. The row is never asked of the provider (not pending).
     */
    async recordProviderRefund(input: {
      chargeId: string;
      providerRefundedCents: number;
      reason: string;
      idempotencyKey: string;
    }): Promise<{ refund: RefundRow; charge: ChargeRow } | undefined> {
      return db.transaction(async (tx) => {
        const [locked] = await tx.select().from(charge).where(eq(charge.id, input.chargeId)).for('update');
        if (!locked || !['succeeded', 'refunded'].includes(locked.status)) return undefined;
        const [pending] = await tx
          .select({ cents: sql<number>`coalesce(sum(${refund.amountCents}), 0)::int` })
          .from(refund)
          .where(and(eq(refund.chargeId, locked.id), eq(refund.status, 'pending')));
        const missing =
          Math.min(input.providerRefundedCents, locked.amountCents) -
          locked.refundedCents -
          Number(pending!.cents);
        if (missing <= 0) return undefined;
        const [inserted] = await tx
          .insert(refund)
          .values({
            chargeId: locked.id,
            ownerId: locked.ownerId,
            amountCents: missing,
            reason: input.reason,
            idempotencyKey: input.idempotencyKey,
            status: 'succeeded',
          })
          .onConflictDoNothing()
          .returning();
        if (!inserted) return undefined;
        const refundedCents = locked.refundedCents + missing;
        const [updated] = await tx
          .update(charge)
          .set({
            refundedCents,
            status: refundedCents >= locked.amountCents ? 'refunded' : locked.status,
            updatedAt: new Date(),
          })
          .where(eq(charge.id, locked.id))
          .returning();
        return { refund: inserted, charge: updated! };
      });
    },

    async refundsOf(chargeIds: readonly string[]): Promise<RefundRow[]> {
      if (chargeIds.length === 0) return [];
      return db
        .select()
        .from(refund)
        .where(inArray(refund.chargeId, [...chargeIds]))
        .orderBy(refund.createdAt);
    },

    async pendingRefunds(before: Date, limit: number): Promise<RefundRow[]> {
      return db
        .select()
        .from(refund)
        .where(and(eq(refund.status, 'pending'), lt(refund.updatedAt, before)))
        .limit(limit);
    },

    /* ---------- orders held for payment ---------- */

    /** The seller's orders on hold because a payment failed or awaits authentication. */
    async paymentHeldOrders(ownerId: string): Promise<{ id: string }[]> {
      return db
        .select({ id: order.id })
        .from(order)
        .where(
          and(
            eq(order.ownerId, ownerId),
            eq(order.status, 'on_hold'),
            or(
              like(order.holdReason, `${PAYMENT_HOLD_PREFIX}%`),
              like(order.holdReason, `${PAYMENT_ACTION_HOLD_PREFIX}%`),
            ),
          ),
        );
    },

    /* ---------- provider webhooks ---------- */

    /** Stores an event once; false when it was already stored (a duplicate delivery). */
    async storeEvent(values: {
      id: string;
      provider: string;
      type: string;
      payload: Record<string, unknown>;
    }): Promise<boolean> {
      const inserted = await db
        .insert(paymentEvent)
        .values(values)
        .onConflictDoNothing()
        .returning({ id: paymentEvent.id });
      return inserted.length > 0;
    },

    /**
     * Claims an unprocessed event and runs `apply` in the same transaction: of any number of
     * concurrent deliveries of one event, only one applies it; a failure leaves it unprocessed.
     */
    async processEvent<T>(
      id: string,
      apply: (payload: Record<string, unknown>, type: string) => Promise<T>,
    ): Promise<{ applied: boolean; result?: T }> {
      const [claimed] = await db
        .update(paymentEvent)
        .set({ processedAt: new Date(), error: null })
        .where(and(eq(paymentEvent.id, id), isNull(paymentEvent.processedAt)))
        .returning();
      if (!claimed) return { applied: false };
      try {
        return { applied: true, result: await apply(claimed.payload, claimed.type) };
      } catch (error) {
        await db
          .update(paymentEvent)
          .set({
            processedAt: null,
            error: error instanceof Error ? error.message.slice(0, 500) : String(error),
          })
          .where(eq(paymentEvent.id, id));
        throw error;
      }
    },

    async unprocessedEvents(before: Date, limit: number): Promise<string[]> {
      const rows = await db
        .select({ id: paymentEvent.id })
        .from(paymentEvent)
        .where(and(isNull(paymentEvent.processedAt), lt(paymentEvent.receivedAt, before)))
        .limit(limit);
      return rows.map((row) => row.id);
    },
  };

  async function listQuery(where: SQL, limit: number): Promise<ChargeListRow[]> {
    return db
      .select({
        charge,
        sellerName: user.name,
        orderNumber: order.externalId,
        micros: microsOf(charge.createdAt),
      })
      .from(charge)
      .innerJoin(user, eq(user.id, charge.ownerId))
      .leftJoin(order, eq(order.id, charge.orderId))
      .where(where)
      .orderBy(desc(charge.createdAt), desc(charge.id))
      .limit(limit);
  }
}

export type PaymentRepository = ReturnType<typeof createPaymentRepository>;
