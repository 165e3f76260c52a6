import { z } from 'zod';
import { pageQueryFields, pageSchema } from './paging.ts';

/**
 * Payments (issue 13; docs/payments.md): a seller's stored card, charged once per order when the
 * order is released to production; refunds; the charges page. These are the shapes the server and
 * the pages share.
 */

export const PAYMENT_PROVIDERS = ['stripe', 'sandbox'] as const;
export type PaymentProviderName = (typeof PAYMENT_PROVIDERS)[number];

/** A hold reason that starts with this is a payment hold: a new card (or an authenticated payment) releases it. */
export const PAYMENT_HOLD_PREFIX = 'Payment failed: ';
export const PAYMENT_ACTION_HOLD_PREFIX = 'Payment needs authentication: ';

/** The card form's settings: which provider collects the card and whether money is real. */
export const billingSettingsSchema = z.object({
  provider: z.enum(PAYMENT_PROVIDERS),
  /** Stripe test keys or the sandbox: no real money moves; the UI says so. */
  testMode: z.boolean(),
  /** For Stripe Elements (null with the sandbox). */
  publishableKey: z.string().nullable(),
  /** Whether orders are charged when they enter production on this server (off: nothing is charged). */
  chargesOrders: z.boolean(),
  card: z
    .object({ brand: z.string(), last4: z.string(), expMonth: z.number().int(), expYear: z.number().int() })
    .nullable(),
  /** Orders on hold because their payment failed or needs authentication. */
  heldOrders: z.number().int(),
  /** Charges waiting for the seller to authenticate (3-D Secure). */
  actionsNeeded: z.array(z.object({ chargeId: z.string(), orderId: z.string().nullable(), orderNumber: z.string().nullable(), amountCents: z.number().int(), currency: z.string() })),
});
export type BillingSettings = z.infer<typeof billingSettingsSchema>;

/** The spec's createSetupIntent: what the card form needs. */
export const setupIntentSchema = z.object({
  provider: z.enum(PAYMENT_PROVIDERS),
  setupIntentId: z.string(),
  clientSecret: z.string(),
  publishableKey: z.string().nullable(),
  testMode: z.boolean(),
});
export type SetupIntent = z.infer<typeof setupIntentSchema>;

/** The spec's storeDefaultPaymentMethod. */
export const storeDefaultPaymentMethodInputSchema = z
  .object({
    paymentMethodId: z
      .string()
      .trim()
      .min(3, 'The card was not saved: no payment method')
      .max(255)
      .regex(/^pm_[A-Za-z0-9_]+$/, 'Not a payment method id'),
  })
  .strict();
export type StoreDefaultPaymentMethodInput = z.infer<typeof storeDefaultPaymentMethodInputSchema>;

/** The sandbox card form (test mode only): what Stripe Elements would collect. */
export const sandboxCardInputSchema = z
  .object({
    cardNumber: z.string().trim().min(12, 'Enter the card number').max(23),
    expMonth: z.coerce.number().int().min(1, 'Enter the expiry month').max(12, 'Enter the expiry month'),
    expYear: z.coerce.number().int().min(0).max(2100),
    cvc: z.string().trim().min(3, 'Enter the CVC').max(4),
  })
  .strict();
export type SandboxCardInput = z.infer<typeof sandboxCardInputSchema>;

export const storedCardSchema = z.object({
  brand: z.string(),
  last4: z.string(),
  expMonth: z.number().int(),
  expYear: z.number().int(),
  /** Orders released from a payment hold by this card. */
  releasedOrders: z.number().int(),
});
export type StoredCardDto = z.infer<typeof storedCardSchema>;

export const CHARGE_STATES = ['pending', 'processing', 'requires_action', 'succeeded', 'failed', 'refunded'] as const;
export type ChargeState = (typeof CHARGE_STATES)[number];

export const chargeBreakdownSchema = z.object({
  itemsCents: z.number().int(),
  packagingCents: z.number().int(),
  shippingCents: z.number().int(),
});
export type ChargeBreakdown = z.infer<typeof chargeBreakdownSchema>;

export const refundDtoSchema = z.object({
  id: z.string(),
  chargeId: z.string(),
  amountCents: z.number().int(),
  reason: z.string(),
  status: z.string(),
  createdAt: z.string(),
});
export type RefundDto = z.infer<typeof refundDtoSchema>;

/** order: the order's charge at release; adjustment: the difference after its exact slice; manual: an admin's. */
export const CHARGE_KINDS = ['order', 'adjustment', 'manual'] as const;
export type ChargeKind = (typeof CHARGE_KINDS)[number];

export const chargeDtoSchema = z.object({
  id: z.string(),
  ownerId: z.string(),
  sellerName: z.string(),
  orderId: z.string().nullable(),
  orderNumber: z.string().nullable(),
  kind: z.enum(CHARGE_KINDS),
  attempt: z.number().int(),
  amountCents: z.number().int(),
  currency: z.string(),
  breakdown: chargeBreakdownSchema.nullable(),
  /** Who took the money: the card's provider, or `wallet` for an order paid from the prepaid balance (docs/wallet.md). */
  provider: z.enum([...PAYMENT_PROVIDERS, 'wallet']),
  status: z.enum(CHARGE_STATES),
  /** Why it failed; for an adjustment (or an order below the smallest charge), why it is what it is. */
  failureReason: z.string().nullable(),
  /** Where the seller authenticates a charge that needs it (our page). */
  actionUrl: z.string().nullable(),
  refundedCents: z.number().int(),
  refunds: z.array(refundDtoSchema),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ChargeDto = z.infer<typeof chargeDtoSchema>;

/** GET /api/payments/charges: the seller's charges (admins: everyone's, or one seller's), newest first. */
export const chargeListQuerySchema = z
  .object({
    ...pageQueryFields(25),
    targetUserId: z.string().max(100).optional(),
    orderId: z.uuid().optional(),
  })
  .strict();
export type ChargeListQuery = z.infer<typeof chargeListQuerySchema>;
export const chargePageSchema = pageSchema(chargeDtoSchema);
export type ChargePage = z.infer<typeof chargePageSchema>;

/** The spec's chargeStoredCard (admins): an amount in dollars, as the spec's callers send it. */
export const chargeStoredCardInputSchema = z
  .object({
    orderId: z.uuid('Not a valid order id'),
    amount: z.number().positive('The amount must be more than 0').max(100_000, 'The amount is too large'),
    targetUserId: z.string().min(1).max(100),
    /** Names this charge so a repeated request charges once; a new one per click in the app. */
    requestId: z.string().trim().min(8).max(100).optional(),
  })
  .strict();
export type ChargeStoredCardInput = z.infer<typeof chargeStoredCardInputSchema>;

/**
 * POST /api/payments/charges/:id/refund (admins): all of what is left, or an amount in cents. The same
 * `requestId` twice is one refund (the app makes one per dialog); without it, a refund of all that is
 * left can only happen once, and each partial refund is a new one.
 */
export const refundChargeInputSchema = z
  .object({
    amountCents: z.number().int().positive().optional(),
    reason: z.string().trim().max(500).default(''),
    requestId: z.string().trim().min(8).max(100).optional(),
  })
  .strict();
export type RefundChargeInput = z.infer<typeof refundChargeInputSchema>;

/** GET /api/payments/charges/:id/authentication: what the authenticate page needs. */
export const chargeAuthenticationSchema = z.object({
  charge: chargeDtoSchema,
  provider: z.enum(PAYMENT_PROVIDERS),
  /** Stripe: the PaymentIntent's client secret for stripe.handleNextAction (null in the sandbox or when done). */
  clientSecret: z.string().nullable(),
  publishableKey: z.string().nullable(),
});
export type ChargeAuthentication = z.infer<typeof chargeAuthenticationSchema>;

/** POST /api/payments/charges/:id/confirm: after the seller authenticated (the sandbox: approve or refuse). */
export const confirmChargeInputSchema = z
  .object({ sandboxOutcome: z.enum(['approve', 'refuse']).optional() })
  .strict()
  .nullish();
export type ConfirmChargeInput = z.infer<typeof confirmChargeInputSchema>;

/** Formats cents as money for people ("$12.34"). */
export function formatCents(cents: number, currency = 'USD'): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100);
}
