import { and, desc, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { charge, order, receipt, receiptCounter, refund, wallet, walletEntry, walletTopUp } from '../../db/schema.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';
import { beforeTimeId, microsOf, type TimeIdKey } from '../../platform/time-id-keyset.ts';
import type { ChargeRow, NewCharge, RefundRow } from './payment-repository.ts';

export type WalletRow = typeof wallet.$inferSelect;
export type WalletEntryRow = typeof walletEntry.$inferSelect;
export type WalletTopUpRow = typeof walletTopUp.$inferSelect;
export type ReceiptRow = typeof receipt.$inferSelect;
type Transaction = Parameters<Parameters<Database['transaction']>[0]>[0];

/** Who a receipt is from and to, as printed (a snapshot: later edits do not change an issued receipt). */
export interface ReceiptParties {
  readonly issuer: Record<string, string>;
  readonly customer: Record<string, string>;
}

interface NewEntry {
  readonly ownerId: string;
  readonly kind: 'top_up' | 'charge' | 'refund' | 'adjustment';
  readonly amountCents: number;
  readonly description: string;
  readonly idempotencyKey: string;
  readonly chargeId?: string | null;
  readonly orderId?: string | null;
  readonly createdBy?: string | null;
}

interface NewReceipt {
  readonly ownerId: string;
  readonly kind: 'charge' | 'top_up' | 'refund' | 'adjustment';
  readonly source: string;
  readonly amountCents: number;
  readonly currency: string;
  readonly paidWith: 'card' | 'wallet';
  readonly description: string;
  readonly orderNumber: string | null;
}

const COUNTER = 'receipt';

/** Thrown inside a transaction to undo it: the balance would go below zero. */
class InsufficientBalance extends Error {}

/**
 * The wallet's tables (docs/wallet.md). Every movement of a balance is one transaction that locks the
 * wallet row, appends its ledger entry (unique key: a repeat moves nothing), moves the balance by the
 * entry's amount (never below zero) and issues the receipt, its number taken from the counter row in
 * the same transaction — so a rolled-back movement leaves no gap and no entry without its receipt.
 */
export function createWalletRepository(db: Database) {
  async function lockWallet(tx: Transaction, ownerId: string): Promise<WalletRow> {
    await tx.insert(wallet).values({ ownerId }).onConflictDoNothing();
    const [row] = await tx.select().from(wallet).where(eq(wallet.ownerId, ownerId)).for('update');
    return row!;
  }

  /** Appends the entry and moves the balance (the wallet row must be locked by this transaction). */
  async function append(tx: Transaction, locked: WalletRow, entry: NewEntry): Promise<WalletEntryRow> {
    const balanceAfterCents = locked.balanceCents + entry.amountCents;
    if (balanceAfterCents < 0) throw new InsufficientBalance();
    const [row] = await tx
      .insert(walletEntry)
      .values({ ...entry, balanceAfterCents })
      .returning();
    await tx
      .update(wallet)
      .set({
        balanceCents: balanceAfterCents,
        // Back at (or above) the threshold: the next fall below it may recharge again.
        rechargeArmed: sql`${wallet.rechargeArmed} OR ${balanceAfterCents} >= ${wallet.rechargeThresholdCents}`,
        updatedAt: new Date(),
      })
      .where(eq(wallet.ownerId, locked.ownerId));
    return row!;
  }

  /** The receipt for `source`, issued once with the next number (gapless: the counter row is locked until commit). */
  async function issue(tx: Transaction, values: NewReceipt, parties: ReceiptParties): Promise<ReceiptRow> {
    await tx.insert(receiptCounter).values({ id: COUNTER, lastNumber: 0 }).onConflictDoNothing();
    const [counter] = await tx.select().from(receiptCounter).where(eq(receiptCounter.id, COUNTER)).for('update');
    // Read after taking the lock: an issuer of the same source that held it has committed by now.
    const [existing] = await tx.select().from(receipt).where(eq(receipt.source, values.source));
    if (existing) return existing;
    const number = counter!.lastNumber + 1;
    const [row] = await tx
      .insert(receipt)
      .values({ ...values, number, issuer: parties.issuer, customer: parties.customer })
      .returning();
    await tx.update(receiptCounter).set({ lastNumber: number }).where(eq(receiptCounter.id, COUNTER));
    return row!;
  }

  async function entryByKey(key: string): Promise<WalletEntryRow | undefined> {
    const [row] = await db.select().from(walletEntry).where(eq(walletEntry.idempotencyKey, key));
    return row;
  }

  return {
    async walletOf(ownerId: string): Promise<WalletRow | undefined> {
      const [row] = await db.select().from(wallet).where(eq(wallet.ownerId, ownerId));
      return row;
    },

    async setAutoRecharge(
      ownerId: string,
      settings: { enabled: boolean; thresholdCents: number; amountCents: number },
    ): Promise<WalletRow> {
      await db.insert(wallet).values({ ownerId }).onConflictDoNothing();
      const [row] = await db
        .update(wallet)
        .set({
          autoRecharge: settings.enabled,
          rechargeThresholdCents: settings.thresholdCents,
          rechargeAmountCents: settings.amountCents,
          // New settings: the next fall below the (new) threshold recharges.
          rechargeArmed: true,
          updatedAt: new Date(),
        })
        .where(eq(wallet.ownerId, ownerId))
        .returning();
      return row!;
    },

    /**
     * Claims this fall below the threshold for one automatic top-up: disarms and counts the crossing
     * (its number names the top-up's idempotency key). Undefined when auto-recharge is off, the balance
     * is at the threshold, or this crossing was already claimed.
     */
    async claimRechargeCrossing(ownerId: string): Promise<{ crossing: number; amountCents: number } | undefined> {
      const [row] = await db
        .update(wallet)
        .set({ rechargeArmed: false, rechargeCrossings: sql`${wallet.rechargeCrossings} + 1` })
        .where(
          and(
            eq(wallet.ownerId, ownerId),
            eq(wallet.autoRecharge, true),
            eq(wallet.rechargeArmed, true),
            lt(wallet.balanceCents, wallet.rechargeThresholdCents),
          ),
        )
        .returning({ crossing: wallet.rechargeCrossings, amountCents: wallet.rechargeAmountCents });
      return row;
    },

    /* ---------- top-ups ---------- */

    /** The top-up for this key: the one just written (pending), or the one an earlier request wrote. */
    async insertTopUp(
      values: Pick<
        typeof walletTopUp.$inferInsert,
        'ownerId' | 'amountCents' | 'automatic' | 'provider' | 'customerId' | 'paymentMethodId' | 'idempotencyKey'
      >,
    ): Promise<{ row: WalletTopUpRow; created: boolean }> {
      const [inserted] = await db
        .insert(walletTopUp)
        .values({ ...values, status: 'pending' })
        .onConflictDoNothing()
        .returning();
      if (inserted) return { row: inserted, created: true };
      const [row] = await db.select().from(walletTopUp).where(eq(walletTopUp.idempotencyKey, values.idempotencyKey));
      return { row: row!, created: false };
    },

    async findTopUp(id: string): Promise<WalletTopUpRow | undefined> {
      const [row] = await db.select().from(walletTopUp).where(eq(walletTopUp.id, id));
      return row;
    },

    async failTopUp(id: string, reason: string, paymentIntentId: string | null): Promise<WalletTopUpRow | undefined> {
      const [row] = await db
        .update(walletTopUp)
        .set({ status: 'failed', failureReason: reason, paymentIntentId, updatedAt: new Date() })
        .where(and(eq(walletTopUp.id, id), eq(walletTopUp.status, 'pending')))
        .returning();
      return row;
    },

    /** The card paid: the top-up succeeds, the balance is credited and the receipt issued, once, together. */
    async completeTopUp(
      id: string,
      paymentIntentId: string,
      parties: ReceiptParties,
    ): Promise<{ topUp: WalletTopUpRow; entry: WalletEntryRow; receipt: ReceiptRow } | undefined> {
      return db.transaction(async (tx) => {
        const [topUp] = await tx
          .update(walletTopUp)
          .set({ status: 'succeeded', paymentIntentId, updatedAt: new Date() })
          .where(and(eq(walletTopUp.id, id), eq(walletTopUp.status, 'pending')))
          .returning();
        if (!topUp) return undefined;
        const locked = await lockWallet(tx, topUp.ownerId);
        const description = topUp.automatic ? 'Auto-recharge' : 'Top-up';
        const entry = await append(tx, locked, {
          ownerId: topUp.ownerId,
          kind: 'top_up',
          amountCents: topUp.amountCents,
          description,
          idempotencyKey: `top-up:${topUp.id}`,
        });
        const issued = await issue(
          tx,
          {
            ownerId: topUp.ownerId,
            kind: 'top_up',
            source: `wallet-entry:${entry.id}`,
            amountCents: topUp.amountCents,
            currency: topUp.currency,
            paidWith: 'card',
            description: `${description} of the prepaid balance`,
            orderNumber: null,
          },
          parties,
        );
        return { topUp, entry, receipt: issued };
      });
    },

    async pendingTopUps(before: Date, limit: number): Promise<WalletTopUpRow[]> {
      return db
        .select()
        .from(walletTopUp)
        .where(and(eq(walletTopUp.status, 'pending'), lt(walletTopUp.updatedAt, before)))
        .orderBy(walletTopUp.updatedAt)
        .limit(limit);
    },

    async recentTopUps(ownerId: string, limit: number): Promise<WalletTopUpRow[]> {
      return db
        .select()
        .from(walletTopUp)
        .where(eq(walletTopUp.ownerId, ownerId))
        .orderBy(desc(walletTopUp.createdAt))
        .limit(limit);
    },

    /* ---------- orders paid from the balance ---------- */

    /**
     * Pays an order's charge from the balance when it covers all of it: the charge row (succeeded,
     * provider `wallet`), the debit and the receipt in one transaction. 'insufficient': the card pays;
     * 'taken': the charge's key or the order's live slot is another's (they are paying it).
     */
    async payOrder(
      values: NewCharge,
      orderNumber: string | null,
      parties: ReceiptParties,
    ): Promise<ChargeRow | 'insufficient' | 'taken'> {
      try {
        return await db.transaction(async (tx) => {
          const locked = await lockWallet(tx, values.ownerId);
          if (locked.balanceCents < values.amountCents) return 'insufficient' as const;
          const [paid] = await tx.insert(charge).values(values).returning();
          await append(tx, locked, {
            ownerId: values.ownerId,
            kind: 'charge',
            amountCents: -values.amountCents,
            description: orderNumber ? `Order ${orderNumber}` : 'Order',
            idempotencyKey: values.idempotencyKey,
            chargeId: paid!.id,
            orderId: values.orderId ?? null,
          });
          await issue(
            tx,
            {
              ownerId: values.ownerId,
              kind: values.kind === 'adjustment' ? 'adjustment' : 'charge',
              source: `charge:${paid!.id}`,
              amountCents: values.amountCents,
              currency: values.currency ?? 'USD',
              paidWith: 'wallet',
              description: orderNumber ? `Fulfilment of order ${orderNumber}` : 'Fulfilment',
              orderNumber,
            },
            parties,
          );
          return paid!;
        });
      } catch (error) {
        if (isUniqueViolation(error)) return 'taken';
        throw error;
      }
    },

    /**
     * Refunds (part of) a charge paid from the balance back into it: the refund row (succeeded), the
     * charge's refunded amount, the credit and the receipt in one transaction. Undefined when this key
     * already refunded (a repeat) or nothing is left.
     */
    async refundToWallet(input: {
      chargeId: string;
      amountCents: number;
      reason: string;
      idempotencyKey: string;
      orderNumber: string | null;
      parties: ReceiptParties;
    }): Promise<{ refund: RefundRow; charge: ChargeRow } | undefined> {
      return db.transaction(async (tx) => {
        const [current] = await tx.select().from(charge).where(eq(charge.id, input.chargeId)).for('update');
        if (!current) return undefined;
        const amountCents = Math.min(input.amountCents, current.amountCents - current.refundedCents);
        if (amountCents <= 0) return undefined;
        const [made] = await tx
          .insert(refund)
          .values({
            chargeId: current.id,
            ownerId: current.ownerId,
            amountCents,
            reason: input.reason,
            idempotencyKey: input.idempotencyKey,
            status: 'succeeded',
          })
          .onConflictDoNothing()
          .returning();
        if (!made) return undefined;
        const refundedCents = current.refundedCents + amountCents;
        const [updated] = await tx
          .update(charge)
          .set({
            refundedCents,
            status: refundedCents >= current.amountCents ? 'refunded' : current.status,
            updatedAt: new Date(),
          })
          .where(eq(charge.id, current.id))
          .returning();
        const locked = await lockWallet(tx, current.ownerId);
        await append(tx, locked, {
          ownerId: current.ownerId,
          kind: 'refund',
          amountCents,
          description: input.reason,
          idempotencyKey: `refund:${made.id}`,
          chargeId: current.id,
          orderId: current.orderId,
        });
        await issue(
          tx,
          {
            ownerId: current.ownerId,
            kind: 'refund',
            source: `refund:${made.id}`,
            amountCents: -amountCents,
            currency: current.currency,
            paidWith: 'wallet',
            description: input.reason,
            orderNumber: input.orderNumber,
          },
          input.parties,
        );
        return { refund: made, charge: updated! };
      });
    },

    /** An admin's credit or debit: the entry and its receipt, once per key; 'insufficient' when a debit exceeds the balance. */
    async adjust(input: {
      ownerId: string;
      amountCents: number;
      reason: string;
      idempotencyKey: string;
      createdBy: string;
      parties: ReceiptParties;
    }): Promise<{ entry: WalletEntryRow; created: boolean } | 'insufficient'> {
      const existing = await entryByKey(input.idempotencyKey);
      if (existing) return { entry: existing, created: false };
      try {
        const entry = await db.transaction(async (tx) => {
          const locked = await lockWallet(tx, input.ownerId);
          const made = await append(tx, locked, {
            ownerId: input.ownerId,
            kind: 'adjustment',
            amountCents: input.amountCents,
            description: input.reason,
            idempotencyKey: input.idempotencyKey,
            createdBy: input.createdBy,
          });
          await issue(
            tx,
            {
              ownerId: input.ownerId,
              kind: 'adjustment',
              source: `wallet-entry:${made.id}`,
              amountCents: input.amountCents,
              currency: 'USD',
              paidWith: 'wallet',
              description: input.reason,
              orderNumber: null,
            },
            input.parties,
          );
          return made;
        });
        return { entry, created: true };
      } catch (error) {
        if (error instanceof InsufficientBalance) return 'insufficient';
        if (isUniqueViolation(error)) return { entry: (await entryByKey(input.idempotencyKey))!, created: false };
        throw error;
      }
    },

    /* ---------- receipts of card payments ---------- */

    /** A card charge that succeeded: its receipt, once. Undefined when the charge is not a paid one. */
    async receiptForCharge(chargeId: string, parties: ReceiptParties): Promise<ReceiptRow | undefined> {
      const [row] = await db
        .select({ charge, orderNumber: order.externalId })
        .from(charge)
        .leftJoin(order, eq(order.id, charge.orderId))
        .where(eq(charge.id, chargeId));
      if (!row || !['succeeded', 'refunded'].includes(row.charge.status) || row.charge.amountCents <= 0) return undefined;
      // Recorded as paid without taking money (below the smallest card charge): nothing to give a receipt for.
      if (row.charge.provider !== 'wallet' && row.charge.paymentIntentId === null) return undefined;
      const { charge: paid, orderNumber } = row;
      const description =
        paid.kind === 'adjustment'
          ? `Price adjustment${orderNumber ? ` of order ${orderNumber}` : ''}: ${paid.failureReason ?? ''}`.trim()
          : orderNumber
            ? `Fulfilment of order ${orderNumber}`
            : 'Charge by the print farm';
      return db.transaction((tx) =>
        issue(
          tx,
          {
            ownerId: paid.ownerId,
            kind: paid.kind === 'adjustment' ? 'adjustment' : 'charge',
            source: `charge:${paid.id}`,
            amountCents: paid.amountCents,
            currency: paid.currency,
            paidWith: paid.provider === 'wallet' ? 'wallet' : 'card',
            description,
            orderNumber,
          },
          parties,
        ),
      );
    },

    /** A refund that succeeded: its receipt, once. */
    async receiptForRefund(refundId: string, parties: ReceiptParties): Promise<ReceiptRow | undefined> {
      const [row] = await db
        .select({ refund, provider: charge.provider, currency: charge.currency, orderNumber: order.externalId })
        .from(refund)
        .innerJoin(charge, eq(charge.id, refund.chargeId))
        .leftJoin(order, eq(order.id, charge.orderId))
        .where(eq(refund.id, refundId));
      if (!row || row.refund.status !== 'succeeded') return undefined;
      return db.transaction((tx) =>
        issue(
          tx,
          {
            ownerId: row.refund.ownerId,
            kind: 'refund',
            source: `refund:${row.refund.id}`,
            amountCents: -row.refund.amountCents,
            currency: row.currency,
            paidWith: row.provider === 'wallet' ? 'wallet' : 'card',
            description: row.refund.reason || 'Refund',
            orderNumber: row.orderNumber,
          },
          parties,
        ),
      );
    },

    /**
     * Paid charges and succeeded refunds with no receipt yet, made before `before`: a listener that failed
     * (or charges made before receipts existed). Owner ids, to issue them with the seller's details.
     */
    async missingReceipts(before: Date, limit: number): Promise<{ charges: { id: string; ownerId: string }[]; refunds: { id: string; ownerId: string }[] }> {
      const charges = await db
        .select({ id: charge.id, ownerId: charge.ownerId })
        .from(charge)
        .where(
          and(
            sql`${charge.status} IN ('succeeded', 'refunded')`,
            sql`(${charge.paymentIntentId} IS NOT NULL OR ${charge.provider} = 'wallet')`,
            lt(charge.updatedAt, before),
            sql`NOT EXISTS (SELECT 1 FROM ${receipt} WHERE ${receipt.source} = 'charge:' || ${charge.id}::text)`,
          ),
        )
        .orderBy(charge.createdAt)
        .limit(limit);
      const refunds = await db
        .select({ id: refund.id, ownerId: refund.ownerId })
        .from(refund)
        .where(
          and(
            eq(refund.status, 'succeeded'),
            lt(refund.updatedAt, before),
            sql`NOT EXISTS (SELECT 1 FROM ${receipt} WHERE ${receipt.source} = 'refund:' || ${refund.id}::text)`,
          ),
        )
        .orderBy(refund.createdAt)
        .limit(limit);
      return { charges, refunds };
    },

    /* ---------- reading ---------- */

    async listEntries(ownerId: string, after: TimeIdKey | null, limit: number) {
      const conditions: SQL[] = [eq(walletEntry.ownerId, ownerId)];
      if (after) conditions.push(beforeTimeId(walletEntry.createdAt, walletEntry.id, after));
      return db
        .select({ entry: walletEntry, receiptNumber: receipt.number, micros: microsOf(walletEntry.createdAt) })
        .from(walletEntry)
        .leftJoin(
          receipt,
          sql`${receipt.source} = CASE WHEN ${walletEntry.kind} = 'charge' THEN 'charge:' || ${walletEntry.chargeId}::text
            WHEN ${walletEntry.kind} = 'refund' THEN ${walletEntry.idempotencyKey}
            ELSE 'wallet-entry:' || ${walletEntry.id}::text END`,
        )
        .where(and(...conditions))
        .orderBy(desc(walletEntry.createdAt), desc(walletEntry.id))
        .limit(limit);
    },

    /** The seller's entries in time order (oldest first), from `from` (inclusive) to `to` (exclusive). */
    async entriesBetween(ownerId: string, from: Date, to: Date): Promise<WalletEntryRow[]> {
      return db
        .select()
        .from(walletEntry)
        .where(and(eq(walletEntry.ownerId, ownerId), gte(walletEntry.createdAt, from), lt(walletEntry.createdAt, to)))
        .orderBy(walletEntry.createdAt, walletEntry.id);
    },

    /** The balance just before `at`: the sum of the entries made before it. */
    async balanceBefore(ownerId: string, at: Date): Promise<number> {
      const [row] = await db
        .select({ cents: sql<string>`coalesce(sum(${walletEntry.amountCents}), 0)` })
        .from(walletEntry)
        .where(and(eq(walletEntry.ownerId, ownerId), lt(walletEntry.createdAt, at)));
      return Number(row!.cents);
    },

    async listReceipts(ownerId: string, beforeNumber: number | null, limit: number): Promise<ReceiptRow[]> {
      const conditions: SQL[] = [eq(receipt.ownerId, ownerId)];
      if (beforeNumber !== null) conditions.push(lt(receipt.number, beforeNumber));
      return db
        .select()
        .from(receipt)
        .where(and(...conditions))
        .orderBy(desc(receipt.number))
        .limit(limit);
    },

    async receiptsBetween(ownerId: string, from: Date, to: Date): Promise<ReceiptRow[]> {
      return db
        .select()
        .from(receipt)
        .where(and(eq(receipt.ownerId, ownerId), gte(receipt.issuedAt, from), lt(receipt.issuedAt, to)))
        .orderBy(receipt.number);
    },

    /** The receipt of a succeeded top-up (of its ledger entry). */
    async receiptOfTopUp(topUpId: string): Promise<ReceiptRow | undefined> {
      const [row] = await db
        .select({ receipt })
        .from(walletEntry)
        .innerJoin(receipt, eq(receipt.source, sql`'wallet-entry:' || ${walletEntry.id}::text`))
        .where(eq(walletEntry.idempotencyKey, `top-up:${topUpId}`));
      return row?.receipt;
    },

    async findReceipt(number: number): Promise<ReceiptRow | undefined> {
      const [row] = await db.select().from(receipt).where(eq(receipt.number, number));
      return row;
    },
  };
}

export type WalletRepository = ReturnType<typeof createWalletRepository>;
