import { z } from 'zod';
import { pageQueryFields, pageSchema } from './paging.ts';

/*
 * The wallet (issue 24; docs/wallet.md): a prepaid balance topped up by card, auto-recharge, the
 * append-only ledger, receipts numbered without gaps and monthly statements.
 */

/** The smallest and largest top-up a seller may ask for (Stripe's smallest card charge is $0.50). */
export const MIN_TOP_UP_CENTS = 500;
export const MAX_TOP_UP_CENTS = 1_000_000;

export const WALLET_ENTRY_KINDS = ['top_up', 'charge', 'refund', 'adjustment'] as const;
export type WalletEntryKind = (typeof WALLET_ENTRY_KINDS)[number];
export const RECEIPT_KINDS = ['charge', 'top_up', 'refund', 'adjustment'] as const;
export type ReceiptKind = (typeof RECEIPT_KINDS)[number];

export const walletSchema = z.object({
  ownerId: z.string(),
  balanceCents: z.number().int(),
  currency: z.string(),
  autoRecharge: z.boolean(),
  rechargeThresholdCents: z.number().int(),
  rechargeAmountCents: z.number().int(),
  /** Whether a card is on file: top-ups and auto-recharge need one. */
  hasCard: z.boolean(),
  testMode: z.boolean(),
});
export type WalletDto = z.infer<typeof walletSchema>;

export const walletQuerySchema = z.object({ targetUserId: z.string().max(100).optional() }).strict();

/** POST /api/wallet/top-ups: the same `requestId` twice is one top-up (the app makes one per dialog). */
export const topUpInputSchema = z
  .object({
    amountCents: z
      .number()
      .int('Whole cents')
      .min(MIN_TOP_UP_CENTS, 'A top-up is at least $5.00')
      .max(MAX_TOP_UP_CENTS, 'A top-up is at most $10,000.00'),
    requestId: z.string().trim().min(8).max(100),
  })
  .strict();
export type TopUpInput = z.infer<typeof topUpInputSchema>;

export const topUpSchema = z.object({
  id: z.string(),
  amountCents: z.number().int(),
  currency: z.string(),
  automatic: z.boolean(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  failureReason: z.string().nullable(),
  receiptNumber: z.number().int().nullable(),
  createdAt: z.string(),
});
export type TopUpDto = z.infer<typeof topUpSchema>;

/** PUT /api/wallet/auto-recharge: top up by `amountCents` when the balance falls below `thresholdCents`. */
export const autoRechargeInputSchema = z
  .object({
    enabled: z.boolean(),
    thresholdCents: z.number().int().min(0).max(MAX_TOP_UP_CENTS),
    amountCents: z
      .number()
      .int()
      .min(MIN_TOP_UP_CENTS, 'A top-up is at least $5.00')
      .max(MAX_TOP_UP_CENTS, 'A top-up is at most $10,000.00'),
    targetUserId: z.string().max(100).optional(),
  })
  .strict();
export type AutoRechargeInput = z.infer<typeof autoRechargeInputSchema>;

/** POST /api/wallet/adjustments (admins): a credit (positive) or debit (negative) with its reason. */
export const walletAdjustmentInputSchema = z
  .object({
    targetUserId: z.string().min(1).max(100),
    amountCents: z
      .number()
      .int('Whole cents')
      .refine((value) => value !== 0, 'An adjustment moves some money')
      .refine((value) => Math.abs(value) <= MAX_TOP_UP_CENTS, 'At most $10,000.00'),
    reason: z.string().trim().min(3, 'Say why').max(300),
    requestId: z.string().trim().min(8).max(100),
  })
  .strict();
export type WalletAdjustmentInput = z.infer<typeof walletAdjustmentInputSchema>;

export const walletEntrySchema = z.object({
  id: z.string(),
  kind: z.enum(WALLET_ENTRY_KINDS),
  amountCents: z.number().int(),
  balanceAfterCents: z.number().int(),
  description: z.string(),
  orderId: z.string().nullable(),
  receiptNumber: z.number().int().nullable(),
  createdAt: z.string(),
});
export type WalletEntryDto = z.infer<typeof walletEntrySchema>;

export const walletEntryListQuerySchema = z
  .object({ ...pageQueryFields(25), targetUserId: z.string().max(100).optional() })
  .strict();
export type WalletEntryListQuery = z.infer<typeof walletEntryListQuerySchema>;
export const walletEntryPageSchema = pageSchema(walletEntrySchema);
export type WalletEntryPage = z.infer<typeof walletEntryPageSchema>;

export const receiptSchema = z.object({
  number: z.number().int(),
  kind: z.enum(RECEIPT_KINDS),
  amountCents: z.number().int(),
  currency: z.string(),
  paidWith: z.enum(['card', 'wallet']),
  description: z.string(),
  orderNumber: z.string().nullable(),
  issuedAt: z.string(),
});
export type ReceiptDto = z.infer<typeof receiptSchema>;

export const receiptListQuerySchema = z
  .object({ ...pageQueryFields(25), targetUserId: z.string().max(100).optional() })
  .strict();
export type ReceiptListQuery = z.infer<typeof receiptListQuerySchema>;
export const receiptPageSchema = pageSchema(receiptSchema);
export type ReceiptPage = z.infer<typeof receiptPageSchema>;

/** A statement's month, `YYYY-MM`. */
export const statementMonthSchema = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'A month is YYYY-MM');

/** The platform's business details printed on every receipt and statement (admins edit them). */
export const businessDetailsSchema = z
  .object({
    legalName: z.string().trim().min(1, 'The business’s legal name').max(160),
    address: z.string().trim().min(1, 'The business’s address').max(400),
    email: z.email('An email address').max(200),
    taxId: z.string().trim().max(60).default(''),
    website: z.string().trim().max(200).default(''),
  })
  .strict();
export type BusinessDetails = z.infer<typeof businessDetailsSchema>;
export const businessDetailsStateSchema = z.object({
  details: businessDetailsSchema,
  /** true until an admin sets them: the placeholders are printed. */
  sample: z.boolean(),
});
export type BusinessDetailsState = z.infer<typeof businessDetailsStateSchema>;
