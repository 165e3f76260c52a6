import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { user } from '../../db/auth-schema.ts';
import { order } from '../orders/orders-schema.ts';

/*
 * The payments module's tables (issue 13; docs/payments.md).
 * Re-exported by db/schema.ts, the one entry point of the ORM and drizzle-kit.
 */

/** A seller's customer at the payment provider and the default card (brand, last 4, expiry: never the number). */
export const paymentCustomer = pgTable('payment_customer', {
  ownerId: text('owner_id')
    .primaryKey()
    .references(() => user.id, { onDelete: 'cascade' }),
  /** stripe | sandbox: a customer made in one provider means nothing to the other. */
  provider: text('provider').notNull(),
  customerId: text('customer_id').notNull(),
  paymentMethodId: text('payment_method_id'),
  cardBrand: text('card_brand'),
  cardLast4: text('card_last4'),
  cardExpMonth: integer('card_exp_month'),
  cardExpYear: integer('card_exp_year'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * One off-session charge attempt. The row (with its idempotency key) is written before the provider is
 * asked, and the provider's answer recorded on it; a row still `pending` after a crash is looked up at
 * the provider before anything is charged again.
 */
export const charge = pgTable(
  'charge',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    orderId: uuid('order_id').references(() => order.id, { onDelete: 'set null' }),
    /** order (when the order is released to production) | manual (an admin's chargeStoredCard) */
    kind: text('kind').notNull(),
    attempt: integer('attempt').notNull().default(1),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull().default('USD'),
    /** How the amount was made: items, packaging, shipping (cents). */
    breakdown: jsonb('breakdown').$type<{
      itemsCents: number;
      packagingCents: number;
      shippingCents: number;
    }>(),
    provider: text('provider').notNull(),
    /** The customer and card charged: a charge replayed after a crash is asked with the same parameters. */
    customerId: text('customer_id'),
    paymentMethodId: text('payment_method_id'),
    /** `order:<id>:charge:<attempt>` or `manual:<uuid>`: what the provider is given to recognise a repeat. */
    idempotencyKey: text('idempotency_key').notNull(),
    paymentIntentId: text('payment_intent_id'),
    /** pending | processing | requires_action | succeeded | failed | refunded */
    status: text('status').notNull(),
    failureReason: text('failure_reason'),
    actionUrl: text('action_url'),
    refundedCents: integer('refunded_cents').notNull().default(0),
    /** The admin who charged by hand. */
    createdBy: text('created_by').references(() => user.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('charge_idempotency_key_idx').on(table.idempotencyKey),
    uniqueIndex('charge_payment_intent_idx').on(table.paymentIntentId),
    // One live charge per order: two releases of the same order can never both charge it.
    uniqueIndex('charge_live_per_order_idx')
      .on(table.orderId)
      .where(
        sql`kind = 'order' AND status IN ('pending', 'processing', 'requires_action', 'succeeded', 'refunded')`,
      ),
    index('charge_owner_created_idx').on(table.ownerId, table.createdAt, table.id),
    // An order's charges (the fulfilment history shows what each order was charged).
    index('charge_order_idx').on(table.orderId),
    index('charge_created_idx').on(table.createdAt, table.id),
    index('charge_pending_idx')
      .on(table.updatedAt)
      .where(sql`status = 'pending'`),
  ],
);

/**
 * What an order costs the seller, made once (docs/payments.md, "One price per order"): the charge's
 * amount, the fulfilment record's costs and the Billing page all read this row, so they cannot price
 * the same parts twice. When the exact slice of a part that was only estimated lands after the price
 * was made, the new print cost is decided once (`adjusted_items_cents`, with its reason) and the
 * difference charged or refunded as an explicit adjustment.
 */
export const orderPrice = pgTable('order_price', {
  orderId: uuid('order_id')
    .primaryKey()
    .references(() => order.id, { onDelete: 'cascade' }),
  ownerId: text('owner_id')
    .notNull()
    .references(() => user.id, { onDelete: 'cascade' }),
  /** Each item as priced: its SKU, quantity, unit cost and whether every part's quote was exact. */
  lines: jsonb('lines')
    .$type<{ sku: string; quantity: number; unitCents: number; exact: boolean }[]>()
    .notNull(),
  itemsCents: integer('items_cents').notNull(),
  packagingCents: integer('packaging_cents').notNull(),
  shippingCents: integer('shipping_cents').notNull(),
  currency: text('currency').notNull().default('USD'),
  /** The items' cost once every part's exact slice was in, when it differs from itemsCents; null: unchanged or not decided. */
  adjustedItemsCents: integer('adjusted_items_cents'),
  adjustmentReason: text('adjustment_reason'),
  /** When the price was checked against the exact slices (at most once; null: not yet). */
  settledAt: timestamp('settled_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** A refund of a charge; one per idempotency key (a refund asked twice is one refund). */
export const refund = pgTable(
  'refund',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    chargeId: uuid('charge_id')
      .notNull()
      .references(() => charge.id, { onDelete: 'cascade' }),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    amountCents: integer('amount_cents').notNull(),
    reason: text('reason').notNull().default(''),
    idempotencyKey: text('idempotency_key').notNull(),
    providerRefundId: text('provider_refund_id'),
    /** pending | succeeded | failed */
    status: text('status').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('refund_idempotency_key_idx').on(table.idempotencyKey),
    index('refund_charge_idx').on(table.chargeId),
    index('refund_owner_created_idx').on(table.ownerId, table.createdAt, table.id),
  ],
);

/** Payment provider webhooks: stored once per event id, then processed (WH-2/3). */
export const paymentEvent = pgTable(
  'payment_event',
  {
    id: text('id').primaryKey(),
    provider: text('provider').notNull(),
    type: text('type').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    processedAt: timestamp('processed_at', { withTimezone: true }),
    error: text('error'),
  },
  (table) => [
    index('payment_event_unprocessed_idx')
      .on(table.receivedAt)
      .where(sql`processed_at IS NULL`),
  ],
);

/* ---------- the wallet (issue 24; docs/wallet.md) ---------- */

/**
 * A seller's prepaid balance and auto-recharge settings. `balance_cents` moves only in the transaction
 * that appends its `wallet_entry`, so it always equals the sum of the seller's entries; never negative.
 */
export const wallet = pgTable(
  'wallet',
  {
    ownerId: text('owner_id')
      .primaryKey()
      .references(() => user.id, { onDelete: 'cascade' }),
    balanceCents: integer('balance_cents').notNull().default(0),
    currency: text('currency').notNull().default('USD'),
    autoRecharge: boolean('auto_recharge').notNull().default(false),
    /** Top up by `recharge_amount_cents` when the balance falls below this. */
    rechargeThresholdCents: integer('recharge_threshold_cents').notNull().default(0),
    rechargeAmountCents: integer('recharge_amount_cents').notNull().default(0),
    /**
     * One auto top-up per crossing of the threshold: a crossing disarms (and counts, naming the top-up's
     * idempotency key); a credit that brings the balance back to the threshold re-arms.
     */
    rechargeArmed: boolean('recharge_armed').notNull().default(true),
    rechargeCrossings: integer('recharge_crossings').notNull().default(0),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [check('wallet_balance_not_negative', sql`${table.balanceCents} >= 0`)],
);

/**
 * The wallet's ledger, append-only (a trigger refuses UPDATE, and DELETE unless the owner's account is
 * gone): a top-up, an order paid from the balance, a refund into it, an admin's adjustment.
 */
export const walletEntry = pgTable(
  'wallet_entry',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    /** top_up | charge | refund | adjustment */
    kind: text('kind').notNull(),
    /** Signed: credits positive, debits negative. */
    amountCents: integer('amount_cents').notNull(),
    balanceAfterCents: integer('balance_after_cents').notNull(),
    description: text('description').notNull(),
    /** What made it, once: `top-up:<id>`, `order:<id>:charge:<attempt>`, `refund:<id>`, `adjustment:<request>`. */
    idempotencyKey: text('idempotency_key').notNull(),
    chargeId: uuid('charge_id').references(() => charge.id, { onDelete: 'set null' }),
    orderId: uuid('order_id').references(() => order.id, { onDelete: 'set null' }),
    createdBy: text('created_by').references(() => user.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('wallet_entry_idempotency_key_idx').on(table.idempotencyKey),
    index('wallet_entry_owner_created_idx').on(table.ownerId, table.createdAt, table.id),
  ],
);

/** A card payment into the wallet, written (with its key) before the provider is asked. */
export const walletTopUp = pgTable(
  'wallet_top_up',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull().default('USD'),
    /** true: made by auto-recharge. */
    automatic: boolean('automatic').notNull().default(false),
    provider: text('provider').notNull(),
    customerId: text('customer_id'),
    paymentMethodId: text('payment_method_id'),
    /** `wallet:<owner>:top-up:<request>` or `wallet:<owner>:auto-recharge:<crossing>`. */
    idempotencyKey: text('idempotency_key').notNull(),
    paymentIntentId: text('payment_intent_id'),
    /** pending | succeeded | failed */
    status: text('status').notNull(),
    failureReason: text('failure_reason'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('wallet_top_up_idempotency_key_idx').on(table.idempotencyKey),
    index('wallet_top_up_owner_created_idx').on(table.ownerId, table.createdAt),
    index('wallet_top_up_pending_idx')
      .on(table.updatedAt)
      .where(sql`status = 'pending'`),
  ],
);

/** The receipts' numbering: one row, advanced in the transaction that issues a receipt, so numbers have no gaps. */
export const receiptCounter = pgTable('receipt_counter', {
  id: text('id').primaryKey(),
  lastNumber: integer('last_number').notNull(),
});

/**
 * A receipt for every charge (card or wallet), top-up, refund and adjustment: numbered without gaps, with
 * the platform's and the seller's details as they were when it was issued.
 */
export const receipt = pgTable(
  'receipt',
  {
    number: integer('number').primaryKey(),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    /** charge | top_up | refund | adjustment */
    kind: text('kind').notNull(),
    /** What it is for: `charge:<id>`, `refund:<id>`, `wallet-entry:<id>`; one receipt each. */
    source: text('source').notNull(),
    /** Signed as the money moved for the seller: a refund is negative. */
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull().default('USD'),
    /** card | wallet */
    paidWith: text('paid_with').notNull(),
    description: text('description').notNull(),
    orderNumber: text('order_number'),
    issuer: jsonb('issuer').$type<Record<string, string>>().notNull(),
    customer: jsonb('customer').$type<Record<string, string>>().notNull(),
    issuedAt: timestamp('issued_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('receipt_source_idx').on(table.source),
    index('receipt_owner_issued_idx').on(table.ownerId, table.issuedAt),
  ],
);
