import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { user } from '../../db/auth-schema.ts';
import { order } from '../orders/orders-schema.ts';
import { charge, refund } from '../payments/payments-schema.ts';

/*
 * The affiliates module's tables (issue 13; docs/affiliates.md).
 * Re-exported by db/schema.ts, the one entry point of the ORM and drizzle-kit.
 */

/** A seller who brings others: their code, their Stripe Connect account for payouts. */
export const affiliate = pgTable(
  'affiliate',
  {
    userId: text('user_id')
      .primaryKey()
      .references(() => user.id, { onDelete: 'cascade' }),
    /** As the seller typed it; unique without regard to case. */
    code: text('code').notNull(),
    connectAccountId: text('connect_account_id'),
    /** none | pending | active | restricted */
    connectStatus: text('connect_status').notNull().default('none'),
    /** An admin stopped payouts (the earnings still accrue). */
    payoutsHeld: boolean('payouts_held').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('affiliate_code_lower_idx').on(sql`lower(${table.code})`)],
);

/** Who brought whom: set once at sign-up from `?ref=CODE`; earnings run until `endsAt`. */
export const referral = pgTable(
  'referral',
  {
    referredUserId: text('referred_user_id')
      .primaryKey()
      .references(() => user.id, { onDelete: 'cascade' }),
    affiliateId: text('affiliate_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    code: text('code').notNull(),
    /** The share of fulfilment revenue, in basis points, fixed at sign-up (1000 = 10 %). */
    shareBps: integer('share_bps').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    endsAt: timestamp('ends_at', { withTimezone: true }).notNull(),
  },
  (table) => [index('referral_affiliate_idx').on(table.affiliateId, table.createdAt)],
);

/** The affiliate ledger: an earning per charged order, a reversal per refund (negative). */
export const affiliateEarning = pgTable(
  'affiliate_earning',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    affiliateId: text('affiliate_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    referredUserId: text('referred_user_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    orderId: uuid('order_id').references(() => order.id, { onDelete: 'set null' }),
    chargeId: uuid('charge_id').references(() => charge.id, { onDelete: 'set null' }),
    refundId: uuid('refund_id').references(() => refund.id, { onDelete: 'set null' }),
    /** earning | reversal */
    kind: text('kind').notNull(),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull().default('USD'),
    /** When it may be paid out: the order delivered + the holding period; null until delivered. */
    payableAt: timestamp('payable_at', { withTimezone: true }),
    payoutId: uuid('payout_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('affiliate_earning_charge_idx')
      .on(table.chargeId)
      .where(sql`kind = 'earning'`),
    uniqueIndex('affiliate_earning_refund_idx')
      .on(table.refundId)
      .where(sql`kind = 'reversal'`),
    index('affiliate_earning_affiliate_idx').on(table.affiliateId, table.createdAt, table.id),
    index('affiliate_earning_order_idx').on(table.orderId),
  ],
);

/** A monthly payout to an affiliate's connected account: proposed, approved by an admin, then transferred once. */
export const affiliatePayout = pgTable(
  'affiliate_payout',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    affiliateId: text('affiliate_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    /** YYYY-MM: the month the run covers. */
    period: text('period').notNull(),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull().default('USD'),
    /** proposed | approved | paid | failed | held */
    status: text('status').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    transferId: text('transfer_id'),
    error: text('error'),
    approvedBy: text('approved_by').references(() => user.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    paidAt: timestamp('paid_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('affiliate_payout_period_idx').on(table.affiliateId, table.period),
    uniqueIndex('affiliate_payout_key_idx').on(table.idempotencyKey),
  ],
);
