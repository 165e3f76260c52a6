import { randomUUID } from 'node:crypto';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { ConnectStatus, PayoutStatus } from '@layerline/contracts';
import type { Database } from '../../db/client.ts';
import { affiliate, affiliatePayout, referral, user } from '../../db/schema.ts';
import { pageFrom } from '../../platform/keyset-cursor.ts';
import { decodeTimeIdCursor, timeIdKey } from '../../platform/time-id-keyset.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';

/**
 * The affiliates' tables: codes and Connect accounts, referrals, the ledger and the payouts. The
 * ledger is written only by statements that a unique index makes idempotent (one earning per
 * charge, one reversal per refund), so a listener told twice, a sweep and a crash in between all
 * end in the same rows.
 */

export interface AffiliateRow {
  readonly userId: string;
  readonly code: string;
  readonly connectAccountId: string | null;
  readonly connectStatus: ConnectStatus;
  readonly payoutsHeld: boolean;
  readonly createdAt: Date;
}

export interface Totals {
  readonly pendingCents: number;
  readonly payableCents: number;
  readonly paidCents: number;
}

export interface NewEarning {
  readonly id: string;
  readonly affiliateId: string;
  readonly amountCents: number;
  readonly currency: string;
  readonly orderNumber: string | null;
  readonly referredSeller: string;
}

export interface LedgerRow {
  readonly id: string;
  readonly kind: 'earning' | 'reversal';
  readonly amountCents: number;
  readonly currency: string;
  readonly orderId: string | null;
  readonly orderNumber: string | null;
  readonly referredSeller: string;
  readonly createdAt: Date;
  readonly payableAt: Date | null;
  readonly paidAt: Date | null;
  readonly paid: boolean;
}

export interface PayoutRow {
  readonly id: string;
  readonly affiliateId: string;
  readonly code: string;
  readonly name: string;
  readonly period: string;
  readonly amountCents: number;
  readonly currency: string;
  readonly status: PayoutStatus;
  readonly entriesCount: number;
  readonly idempotencyKey: string;
  readonly transferId: string | null;
  readonly error: string | null;
  readonly approvedBy: string | null;
  readonly createdAt: Date;
  readonly paidAt: Date | null;
}

/** A payable balance not yet in any payout, per affiliate (what a run proposes). */
export interface Balance {
  readonly affiliateId: string;
  readonly code: string;
  readonly connectStatus: ConnectStatus;
  readonly connectAccountId: string | null;
  readonly payoutsHeld: boolean;
  readonly amountCents: number;
  readonly currencies: readonly string[];
}

const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;
const iso = (date: Date): string => date.toISOString();
const int = (value: unknown): number => Number(value ?? 0);
const dateOrNull = (value: unknown): Date | null =>
  value === null || value === undefined ? null : new Date(value as string);

/** The name an affiliate sees for a seller: their business name when they gave one. */
const SELLER_NAME = sql`coalesce(nullif(u.business_name, ''), u.name)`;

/** Fulfilment revenue of a charge: what it charged, less the shipping label passed on to the carrier. */
const REVENUE = sql`(c.amount_cents - coalesce((c.breakdown->>'shippingCents')::int, 0))`;

/** When an entry of this order may be paid: its first delivery + the holding period (null until delivered). */
const payableAtOf = (orderId: SQL, holdDays: number) =>
  sql`(SELECT min(ev.created_at) + ${holdDays} * interval '1 day' FROM order_event ev WHERE ev.order_id = ${orderId} AND ev.to_status = 'delivered')`;
type SQL = ReturnType<typeof sql>;

/** Totals of a set of ledger rows `e` (joined to their payout `p`) as of `now`. */
const totalsColumns = (now: Date) => sql`
  coalesce(sum(e.amount_cents) FILTER (WHERE p.status = 'paid'), 0)::int AS paid,
  coalesce(sum(e.amount_cents) FILTER (WHERE p.status IS DISTINCT FROM 'paid' AND e.payable_at <= ${iso(now)}::timestamptz), 0)::int AS payable,
  coalesce(sum(e.amount_cents) FILTER (WHERE p.status IS DISTINCT FROM 'paid' AND (e.payable_at IS NULL OR e.payable_at > ${iso(now)}::timestamptz)), 0)::int AS pending`;

const totalsOf = (row: Record<string, unknown>): Totals => ({
  pendingCents: int(row.pending),
  payableCents: int(row.payable),
  paidCents: int(row.paid),
});

export function createAffiliateRepository(db: Database) {
  const affiliateColumns = {
    userId: affiliate.userId,
    code: affiliate.code,
    connectAccountId: affiliate.connectAccountId,
    connectStatus: affiliate.connectStatus,
    payoutsHeld: affiliate.payoutsHeld,
    createdAt: affiliate.createdAt,
  };
  const asAffiliate = (row: typeof affiliate.$inferSelect | Record<string, unknown>): AffiliateRow =>
    row as AffiliateRow;

  async function payouts(where: SQL): Promise<PayoutRow[]> {
    const result = await db.execute(sql`
      SELECT p.id, p.affiliate_id, a.code, u.name, p.period, p.amount_cents, p.currency, p.status, p.idempotency_key,
             p.transfer_id, p.error, p.approved_by, p.created_at, p.paid_at,
             (SELECT count(*)::int FROM affiliate_earning e WHERE e.payout_id = p.id) AS entries
      FROM affiliate_payout p
      JOIN affiliate a ON a.user_id = p.affiliate_id
      JOIN "user" u ON u.id = p.affiliate_id
      WHERE ${where}
      ORDER BY a.code, p.id`);
    return rowsOf<Record<string, unknown>>(result).map((row) => ({
      id: String(row.id),
      affiliateId: String(row.affiliate_id),
      code: String(row.code),
      name: String(row.name),
      period: String(row.period),
      amountCents: int(row.amount_cents),
      currency: String(row.currency),
      status: row.status as PayoutStatus,
      entriesCount: int(row.entries),
      idempotencyKey: String(row.idempotency_key),
      transferId: (row.transfer_id as string | null) ?? null,
      error: (row.error as string | null) ?? null,
      approvedBy: (row.approved_by as string | null) ?? null,
      createdAt: new Date(row.created_at as string),
      paidAt: dateOrNull(row.paid_at),
    }));
  }

  return {
    async find(userId: string): Promise<AffiliateRow | null> {
      const [row] = await db.select(affiliateColumns).from(affiliate).where(eq(affiliate.userId, userId));
      return row ? asAffiliate(row) : null;
    },

    /** The affiliate whose code this is, whatever its case. */
    async findByCode(code: string): Promise<AffiliateRow | null> {
      const [row] = await db
        .select(affiliateColumns)
        .from(affiliate)
        .where(sql`lower(${affiliate.code}) = lower(${code})`);
      return row ? asAffiliate(row) : null;
    },

    /** Creates the user's affiliate with this code; null when the code is taken (or the user already has one). */
    async insert(userId: string, code: string): Promise<AffiliateRow | null> {
      try {
        const [row] = await db
          .insert(affiliate)
          .values({ userId, code })
          .onConflictDoNothing({ target: affiliate.userId })
          .returning(affiliateColumns);
        return row ? asAffiliate(row) : null;
      } catch (error) {
        if (isUniqueViolation(error)) return null;
        throw error;
      }
    },

    /** false when another affiliate has the code (in any case). */
    async updateCode(userId: string, code: string): Promise<boolean> {
      try {
        await db.update(affiliate).set({ code, updatedAt: new Date() }).where(eq(affiliate.userId, userId));
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },

    /** Stores the account once: a second request racing the first keeps the first account. Answers the stored one. */
    async setConnectAccount(userId: string, accountId: string): Promise<string> {
      await db
        .update(affiliate)
        .set({ connectAccountId: accountId, connectStatus: 'pending', updatedAt: new Date() })
        .where(and(eq(affiliate.userId, userId), sql`${affiliate.connectAccountId} IS NULL`));
      const [row] = await db
        .select({ id: affiliate.connectAccountId })
        .from(affiliate)
        .where(eq(affiliate.userId, userId));
      return row!.id!;
    },

    /** The provider no longer has this account: the affiliate starts onboarding again (only if it is still the stored one). */
    async forgetConnectAccount(userId: string, accountId: string): Promise<void> {
      await db
        .update(affiliate)
        .set({ connectAccountId: null, connectStatus: 'none', updatedAt: new Date() })
        .where(and(eq(affiliate.userId, userId), eq(affiliate.connectAccountId, accountId)));
    },

    async setConnectStatus(userId: string, status: ConnectStatus): Promise<void> {
      await db
        .update(affiliate)
        .set({ connectStatus: status, updatedAt: new Date() })
        .where(eq(affiliate.userId, userId));
    },

    /** false when there is no such affiliate. */
    async setHeld(userId: string, held: boolean): Promise<boolean> {
      const rows = await db
        .update(affiliate)
        .set({ payoutsHeld: held, updatedAt: new Date() })
        .where(eq(affiliate.userId, userId))
        .returning({ userId: affiliate.userId });
      return rows.length === 1;
    },

    async userOf(userId: string): Promise<{
      id: string;
      name: string;
      email: string;
      affiliateRef: string | null;
      createdAt: Date;
    } | null> {
      const [row] = await db
        .select({
          id: user.id,
          name: user.name,
          email: user.email,
          affiliateRef: user.affiliateRef,
          createdAt: user.createdAt,
        })
        .from(user)
        .where(eq(user.id, userId));
      return row ?? null;
    },

    /** Attaches a new seller to an affiliate, once (the first attachment stands). */
    async insertReferral(input: {
      referredUserId: string;
      affiliateId: string;
      code: string;
      shareBps: number;
      createdAt: Date;
      endsAt: Date;
    }): Promise<boolean> {
      const rows = await db
        .insert(referral)
        .values(input)
        .onConflictDoNothing({ target: referral.referredUserId })
        .returning({ id: referral.referredUserId });
      return rows.length === 1;
    },

    async referralOf(
      userId: string,
    ): Promise<{ affiliateId: string; code: string; shareBps: number; endsAt: Date } | null> {
      const [row] = await db
        .select({
          affiliateId: referral.affiliateId,
          code: referral.code,
          shareBps: referral.shareBps,
          endsAt: referral.endsAt,
        })
        .from(referral)
        .where(eq(referral.referredUserId, userId));
      return row ?? null;
    },

    /** Users who signed up after `since` with a code and no referral yet (a sign-up whose attachment was missed). */
    async unattachedSignUps(since: Date, limit: number): Promise<string[]> {
      const result = await db.execute(sql`
        SELECT u.id FROM "user" u
        WHERE u.affiliate_ref IS NOT NULL AND u.affiliate_ref <> '' AND u.created_at >= ${iso(since)}::timestamptz
          AND NOT EXISTS (SELECT 1 FROM referral r WHERE r.referred_user_id = u.id)
          AND EXISTS (SELECT 1 FROM affiliate a WHERE lower(a.code) = lower(u.affiliate_ref) AND a.user_id <> u.id)
        ORDER BY u.created_at LIMIT ${limit}`);
      return rowsOf<{ id: string }>(result).map((row) => row.id);
    },

    /**
     * The earnings of succeeded order charges of referred sellers, made within their referral's
     * period, that have none yet: one charge (`chargeId`) or, for the sweep, all of them (up to
     * `limit`). The unique index settles a listener and a sweep writing the same one.
     */
    async insertEarnings(input: {
      chargeId?: string;
      holdDays: number;
      limit: number;
    }): Promise<NewEarning[]> {
      const result = await db.execute(sql`
        WITH due AS (
          SELECT c.id AS charge_id, c.owner_id, c.order_id, c.currency, r.affiliate_id,
                 floor(${REVENUE} * r.share_bps / 10000.0)::int AS amount
          FROM charge c
          JOIN referral r ON r.referred_user_id = c.owner_id
          WHERE c.status IN ('succeeded', 'refunded') AND c.order_id IS NOT NULL
            AND c.created_at >= r.created_at AND c.created_at < r.ends_at
            ${input.chargeId ? sql`AND c.id = ${input.chargeId}::uuid` : sql``}
            AND NOT EXISTS (SELECT 1 FROM affiliate_earning x WHERE x.charge_id = c.id AND x.kind = 'earning')
          ORDER BY c.created_at
          LIMIT ${input.limit}
        ), inserted AS (
          INSERT INTO affiliate_earning (affiliate_id, referred_user_id, order_id, charge_id, kind, amount_cents, currency, payable_at)
          SELECT due.affiliate_id, due.owner_id, due.order_id, due.charge_id, 'earning', due.amount, due.currency,
                 ${payableAtOf(sql`due.order_id`, input.holdDays)}
          FROM due WHERE due.amount > 0
          ON CONFLICT (charge_id) WHERE kind = 'earning' DO NOTHING
          RETURNING id, affiliate_id, referred_user_id, order_id, amount_cents, currency
        )
        SELECT i.id, i.affiliate_id, i.amount_cents, i.currency, o.external_id AS order_number, ${SELLER_NAME} AS seller
        FROM inserted i
        JOIN "user" u ON u.id = i.referred_user_id
        LEFT JOIN "order" o ON o.id = i.order_id`);
      return rowsOf<Record<string, unknown>>(result).map((row) => ({
        id: String(row.id),
        affiliateId: String(row.affiliate_id),
        amountCents: int(row.amount_cents),
        currency: String(row.currency),
        orderNumber: (row.order_number as string | null) ?? null,
        referredSeller: String(row.seller),
      }));
    },

    /**
     * The reversals of succeeded refunds of charges that earned, that have none yet: the earning's
     * share of the refund, negative, never more in all than the earning. Payable with the earning
     * (so a refund after a payout comes off the next one).
     */
    async insertReversals(input: { refundId?: string; limit: number }): Promise<number> {
      const result = await db.execute(sql`
        WITH due AS (
          SELECT rf.id AS refund_id, e.affiliate_id, e.referred_user_id, e.order_id, e.charge_id, e.currency, e.payable_at,
                 e.amount_cents AS earned,
                 round(e.amount_cents::numeric * rf.amount_cents / nullif(c.amount_cents, 0))::int AS share,
                 coalesce((SELECT -sum(x.amount_cents) FROM affiliate_earning x WHERE x.charge_id = e.charge_id AND x.kind = 'reversal'), 0)::int AS reversed
          FROM refund rf
          JOIN charge c ON c.id = rf.charge_id
          JOIN affiliate_earning e ON e.charge_id = rf.charge_id AND e.kind = 'earning'
          WHERE rf.status = 'succeeded'
            ${input.refundId ? sql`AND rf.id = ${input.refundId}::uuid` : sql``}
            AND NOT EXISTS (SELECT 1 FROM affiliate_earning x WHERE x.refund_id = rf.id AND x.kind = 'reversal')
          ORDER BY rf.created_at
          LIMIT ${input.limit}
        )
        INSERT INTO affiliate_earning (affiliate_id, referred_user_id, order_id, charge_id, refund_id, kind, amount_cents, currency, payable_at)
        SELECT affiliate_id, referred_user_id, order_id, charge_id, refund_id, 'reversal', -least(share, earned - reversed), currency, payable_at
        FROM due WHERE least(share, earned - reversed) > 0
        ON CONFLICT (refund_id) WHERE kind = 'reversal' DO NOTHING
        RETURNING id`);
      return rowsOf(result).length;
    },

    /** Sets when an order's entries may be paid, once it is delivered (one order, or every delivered order for the sweep). */
    async settlePayable(input: { orderId?: string; holdDays: number }): Promise<number> {
      const result = await db.execute(sql`
        UPDATE affiliate_earning e SET payable_at = ${payableAtOf(sql`e.order_id`, input.holdDays)}
        WHERE e.payable_at IS NULL AND e.order_id IS NOT NULL
          ${input.orderId ? sql`AND e.order_id = ${input.orderId}::uuid` : sql``}
          AND EXISTS (SELECT 1 FROM order_event ev WHERE ev.order_id = e.order_id AND ev.to_status = 'delivered')
        RETURNING e.id`);
      return rowsOf(result).length;
    },

    async totals(affiliateId: string, now: Date): Promise<Totals & { currency: string | null }> {
      const result = await db.execute(sql`
        SELECT ${totalsColumns(now)}, min(e.currency) AS currency
        FROM affiliate_earning e LEFT JOIN affiliate_payout p ON p.id = e.payout_id
        WHERE e.affiliate_id = ${affiliateId}`);
      const row = rowsOf<Record<string, unknown>>(result)[0] ?? {};
      return { ...totalsOf(row), currency: (row.currency as string | null) ?? null };
    },

    /** The affiliate's sign-ups, newest first (up to `limit`), with their charged orders and what they earned; and how many in all. */
    async signUps(
      affiliateId: string,
      limit: number,
    ): Promise<{
      count: number;
      orders: number;
      items: { name: string; joinedAt: Date; endsAt: Date; orders: number; earned: number }[];
    }> {
      const [list, counts] = await Promise.all([
        db.execute(sql`
          SELECT ${SELLER_NAME} AS name, r.created_at, r.ends_at,
                 (SELECT count(*)::int FROM affiliate_earning e WHERE e.affiliate_id = r.affiliate_id AND e.referred_user_id = r.referred_user_id AND e.kind = 'earning') AS orders,
                 (SELECT coalesce(sum(e.amount_cents), 0)::int FROM affiliate_earning e WHERE e.affiliate_id = r.affiliate_id AND e.referred_user_id = r.referred_user_id) AS earned
          FROM referral r JOIN "user" u ON u.id = r.referred_user_id
          WHERE r.affiliate_id = ${affiliateId}
          ORDER BY r.created_at DESC, r.referred_user_id DESC
          LIMIT ${limit}`),
        db.execute(sql`
          SELECT (SELECT count(*)::int FROM referral WHERE affiliate_id = ${affiliateId}) AS signups,
                 (SELECT count(*)::int FROM affiliate_earning WHERE affiliate_id = ${affiliateId} AND kind = 'earning') AS orders`),
      ]);
      const count = rowsOf<Record<string, unknown>>(counts)[0] ?? {};
      return {
        count: int(count.signups),
        orders: int(count.orders),
        items: rowsOf<Record<string, unknown>>(list).map((row) => ({
          name: String(row.name),
          joinedAt: new Date(row.created_at as string),
          endsAt: new Date(row.ends_at as string),
          orders: int(row.orders),
          earned: int(row.earned),
        })),
      };
    },

    /** The ledger, newest first, keyset-paged on (created_at, id) (affiliate_earning_affiliate_idx). */
    async ledger(affiliateId: string, options: { cursor?: string | undefined; limit: number }) {
      const after = decodeTimeIdCursor(options.cursor, 'uuid');
      const result = await db.execute(sql`
        SELECT e.id, e.kind, e.amount_cents, e.currency, e.order_id, o.external_id AS order_number, ${SELLER_NAME} AS seller,
               e.created_at, e.payable_at, p.paid_at, (p.status = 'paid') AS paid,
               ((extract(epoch from e.created_at) * 1000000)::bigint)::text AS micros
        FROM affiliate_earning e
        JOIN "user" u ON u.id = e.referred_user_id
        LEFT JOIN "order" o ON o.id = e.order_id
        LEFT JOIN affiliate_payout p ON p.id = e.payout_id
        WHERE e.affiliate_id = ${affiliateId}
          ${after ? sql`AND (e.created_at, e.id) < (timestamptz 'epoch' + ${after.micros}::float8 * interval '1 microsecond', ${after.id}::uuid)` : sql``}
        ORDER BY e.created_at DESC, e.id DESC
        LIMIT ${options.limit + 1}`);
      return pageFrom(
        rowsOf<Record<string, unknown>>(result),
        options.limit,
        (row) => timeIdKey(String(row.micros), String(row.id)),
        (row): LedgerRow => ({
          id: String(row.id),
          kind: row.kind as LedgerRow['kind'],
          amountCents: int(row.amount_cents),
          currency: String(row.currency),
          orderId: (row.order_id as string | null) ?? null,
          orderNumber: (row.order_number as string | null) ?? null,
          referredSeller: String(row.seller),
          createdAt: new Date(row.created_at as string),
          payableAt: dateOrNull(row.payable_at),
          paidAt: dateOrNull(row.paid_at),
          paid: row.paid === true,
        }),
      );
    },

    /** Every affiliate with totals, newest first, keyset-paged on (created_at, user id). */
    async list(options: { cursor?: string | undefined; limit: number; now: Date }) {
      const after = decodeTimeIdCursor(options.cursor, 'text');
      const result = await db.execute(sql`
        SELECT a.user_id, u.name, u.email, a.code, a.connect_status, a.payouts_held, a.created_at,
               ((extract(epoch from a.created_at) * 1000000)::bigint)::text AS micros,
               (SELECT count(*)::int FROM referral r WHERE r.affiliate_id = a.user_id) AS signups,
               t.*
        FROM affiliate a
        JOIN "user" u ON u.id = a.user_id
        CROSS JOIN LATERAL (
          SELECT ${totalsColumns(options.now)}, count(*) FILTER (WHERE e.kind = 'earning')::int AS orders
          FROM affiliate_earning e LEFT JOIN affiliate_payout p ON p.id = e.payout_id
          WHERE e.affiliate_id = a.user_id
        ) t
        WHERE true
          ${after ? sql`AND (a.created_at, a.user_id) < (timestamptz 'epoch' + ${after.micros}::float8 * interval '1 microsecond', ${after.id})` : sql``}
        ORDER BY a.created_at DESC, a.user_id DESC
        LIMIT ${options.limit + 1}`);
      return pageFrom(
        rowsOf<Record<string, unknown>>(result),
        options.limit,
        (row) => timeIdKey(String(row.micros), String(row.user_id)),
        (row) => ({
          userId: String(row.user_id),
          name: String(row.name),
          email: String(row.email),
          code: String(row.code),
          connectStatus: row.connect_status as ConnectStatus,
          payoutsHeld: row.payouts_held === true,
          signUpsCount: int(row.signups),
          ordersCount: int(row.orders),
          totals: totalsOf(row),
          createdAt: new Date(row.created_at as string),
        }),
      );
    },

    /** Payable entries in no payout, by `cutoff`, summed per affiliate. */
    async balances(cutoff: Date): Promise<Balance[]> {
      const result = await db.execute(sql`
        SELECT e.affiliate_id, a.code, a.connect_status, a.connect_account_id, a.payouts_held,
               sum(e.amount_cents)::int AS amount, array_agg(DISTINCT e.currency) AS currencies
        FROM affiliate_earning e JOIN affiliate a ON a.user_id = e.affiliate_id
        WHERE e.payout_id IS NULL AND e.payable_at <= ${iso(cutoff)}::timestamptz
        GROUP BY e.affiliate_id, a.code, a.connect_status, a.connect_account_id, a.payouts_held
        ORDER BY a.code`);
      return rowsOf<Record<string, unknown>>(result).map((row) => ({
        affiliateId: String(row.affiliate_id),
        code: String(row.code),
        connectStatus: row.connect_status as ConnectStatus,
        connectAccountId: (row.connect_account_id as string | null) ?? null,
        payoutsHeld: row.payouts_held === true,
        amountCents: int(row.amount),
        currencies: (row.currencies as string[] | string)
          .toString()
          .replace(/[{}]/g, '')
          .split(',')
          .filter(Boolean),
      }));
    },

    /**
     * Proposes the affiliate's payout of the period with their payable entries: a new payout, or the
     * period's proposed (or held) one topped up. null when the period's payout is already approved,
     * paid or failed (it is not touched). In one transaction, so two proposals never split entries.
     */
    async propose(input: {
      affiliateId: string;
      period: string;
      cutoff: Date;
      currency: string;
    }): Promise<{ payoutId: string } | { existing: PayoutStatus }> {
      return db.transaction(async (tx) => {
        const id = randomUUID();
        await tx
          .insert(affiliatePayout)
          .values({
            id,
            affiliateId: input.affiliateId,
            period: input.period,
            amountCents: 0,
            currency: input.currency,
            status: 'proposed',
            idempotencyKey: `payout:${id}`,
          })
          .onConflictDoNothing({ target: [affiliatePayout.affiliateId, affiliatePayout.period] });
        const [payout] = await tx
          .select({ id: affiliatePayout.id, status: affiliatePayout.status })
          .from(affiliatePayout)
          .where(
            and(eq(affiliatePayout.affiliateId, input.affiliateId), eq(affiliatePayout.period, input.period)),
          )
          .for('update');
        if (payout!.status !== 'proposed' && payout!.status !== 'held')
          return { existing: payout!.status as PayoutStatus };
        await tx.execute(sql`
          UPDATE affiliate_earning SET payout_id = ${payout!.id}::uuid
          WHERE affiliate_id = ${input.affiliateId} AND payout_id IS NULL AND currency = ${input.currency}
            AND payable_at <= ${iso(input.cutoff)}::timestamptz`);
        await tx.execute(sql`
          UPDATE affiliate_payout SET status = 'proposed', error = NULL,
            amount_cents = (SELECT coalesce(sum(amount_cents), 0) FROM affiliate_earning WHERE payout_id = ${payout!.id}::uuid)
          WHERE id = ${payout!.id}::uuid`);
        return { payoutId: payout!.id };
      });
    },

    payoutsOf: (period: string, ids?: readonly string[]) =>
      payouts(
        ids
          ? sql`p.period = ${period} AND p.id IN (${sql.join(
              ids.map((id) => sql`${id}::uuid`),
              sql`, `,
            )})`
          : sql`p.period = ${period}`,
      ),

    async payout(id: string): Promise<PayoutRow | null> {
      return (await payouts(sql`p.id = ${id}::uuid`))[0] ?? null;
    },

    /**
     * proposed/failed/approved → approved; answers the idempotency key to transfer with, or null when
     * the payout is not in those states. An approval left unanswered (approved) is tried again with
     * the same key, so a transfer Stripe made is never made twice. A failed one was refused by the
     * provider (no transfer): Stripe would replay that refusal for the same key, so it gets the next
     * key (`payout:<id>:2`, …).
     */
    async approve(id: string, adminId: string): Promise<string | null> {
      const result = await db.execute(sql`
        UPDATE affiliate_payout SET status = 'approved', approved_by = coalesce(approved_by, ${adminId}), error = NULL,
          idempotency_key = CASE WHEN status = 'failed'
            THEN 'payout:' || id || ':' || (coalesce(nullif(split_part(idempotency_key, ':', 3), ''), '1')::int + 1)
            ELSE idempotency_key END
        WHERE id = ${id}::uuid AND status IN ('proposed', 'failed', 'approved')
        RETURNING idempotency_key`);
      return rowsOf<{ idempotency_key: string }>(result)[0]?.idempotency_key ?? null;
    },

    /** approved → paid, once. */
    async markPaid(id: string, transferId: string, at: Date): Promise<boolean> {
      const rows = await db
        .update(affiliatePayout)
        .set({ status: 'paid', transferId, paidAt: at, error: null })
        .where(and(eq(affiliatePayout.id, id), eq(affiliatePayout.status, 'approved')))
        .returning({ id: affiliatePayout.id });
      return rows.length === 1;
    },

    /** approved → failed (the provider refused; an admin may approve it again) or stays approved with the error (no answer). */
    async recordFailure(id: string, error: string, status: 'failed' | 'approved'): Promise<void> {
      await db
        .update(affiliatePayout)
        .set({ status, error })
        .where(and(eq(affiliatePayout.id, id), eq(affiliatePayout.status, 'approved')));
    },

    /**
     * A payout that may not be paid now (held, not onboarded): its entries go back to the next run.
     * Never an approved one: its transfer may have been made without our hearing the answer.
     */
    async holdPayout(id: string, reason: string): Promise<void> {
      await db.transaction(async (tx) => {
        const rows = await tx
          .update(affiliatePayout)
          .set({ status: 'held', error: reason, amountCents: 0 })
          .where(and(eq(affiliatePayout.id, id), sql`${affiliatePayout.status} IN ('proposed', 'failed')`))
          .returning({ id: affiliatePayout.id });
        if (rows.length === 1)
          await tx.execute(sql`UPDATE affiliate_earning SET payout_id = NULL WHERE payout_id = ${id}::uuid`);
      });
    },

    /** The period's payouts, newest periods first, for the admin page. */
    async recentPeriods(limit: number): Promise<string[]> {
      const rows = await db
        .selectDistinct({ period: affiliatePayout.period })
        .from(affiliatePayout)
        .orderBy(desc(affiliatePayout.period))
        .limit(limit);
      return rows.map((row) => row.period);
    },
  };
}

export type AffiliateRepository = ReturnType<typeof createAffiliateRepository>;
