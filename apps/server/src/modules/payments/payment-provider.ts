/**
 * The one interface a payment provider implements (integrations/stripe, integrations/sandbox-payments).
 * The payments module talks only to this. A seller has one customer at the provider with one default
 * card; each order is charged off-session once, with an idempotency key derived from the order and the
 * attempt (reliability guide PAY-1), so a retry of the same attempt can never charge twice.
 *
 * A card that is declined or needs the cardholder to authenticate is a *result*, not an exception:
 * the caller records it and holds the order. Exceptions are for requests that did not run as asked.
 */

export type PaymentProviderKind = 'stripe' | 'sandbox';

/**
 * The states an off-session charge can end in, as the caller acts on them (PAY-3):
 * - `succeeded`: paid.
 * - `processing`: the provider is still settling; wait for the webhook, create no new charge.
 * - `requires_action`: the cardholder must authenticate (3-D Secure); send the seller `nextActionUrl`
 *   or a link to authenticate in the app. Never retried automatically.
 * - `requires_payment_method`: declined (`declineReason` says why); only a new card (or an explicit
 *   retry with a NEW idempotency key) may try again.
 */
export const CHARGE_STATUSES = [
  'succeeded',
  'processing',
  'requires_action',
  'requires_payment_method',
] as const;
export type ChargeStatus = (typeof CHARGE_STATUSES)[number];

export interface ChargeResult {
  readonly paymentIntentId: string;
  readonly status: ChargeStatus;
  /** The provider's words for a decline or an authentication request ("Your card was declined."). */
  readonly declineReason: string | null;
  /** Where the cardholder authenticates, when the provider gave one. */
  readonly nextActionUrl: string | null;
  /** Stripe: the PaymentIntent's client secret, for the seller's browser to authenticate on-session. */
  readonly clientSecret: string | null;
}

export interface ChargeMetadata {
  /** Stored on the payment (Stripe: `metadata.order_id`, `metadata.attempt`) so findPaymentIntent finds it. */
  readonly orderId: string;
  readonly attempt: number;
}

export interface ChargeRequest {
  readonly customerId: string;
  readonly paymentMethodId: string;
  /** In the currency's smallest unit. */
  readonly amountCents: number;
  /** ISO 4217, lower or upper case. */
  readonly currency: string;
  /** Derived from business identity, e.g. `order:{id}:charge:{attempt}`; at most 255 characters. */
  readonly idempotencyKey: string;
  readonly metadata: ChargeMetadata;
  readonly description: string;
}

export interface StoredCard {
  readonly paymentMethodId: string;
  /** visa, mastercard, amex, … as the provider names it. */
  readonly brand: string;
  readonly last4: string;
  readonly expMonth: number;
  readonly expYear: number;
}

export type RefundStatus = 'pending' | 'succeeded' | 'failed' | 'canceled' | 'requires_action';

export interface RefundResult {
  readonly refundId: string;
  readonly status: RefundStatus;
}

/** A verified webhook event, as the provider sent it. */
export interface PaymentWebhookEvent {
  readonly id: string;
  readonly type: string;
  /** Unix seconds. */
  readonly created: number;
  readonly data: { readonly object: Record<string, unknown> };
}

/** Stripe's default, kept by both providers (WH-1). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

export interface PaymentProvider {
  readonly kind: PaymentProviderKind;
  /** True when no real money moves (Stripe test keys, the sandbox): the UI says so. */
  readonly testMode: boolean;
  /** One customer per seller. */
  createCustomer(input: { sellerId: string; email: string; name: string }): Promise<{ customerId: string }>;
  /** What the card form (Stripe Elements) needs to collect a card for later off-session use. */
  createSetupIntent(input: {
    customerId: string;
    idempotencyKey: string;
  }): Promise<{ setupIntentId: string; clientSecret: string }>;
  /** Attaches the card to the customer and makes it the default (`invoice_settings.default_payment_method`). */
  attachDefaultPaymentMethod(input: { customerId: string; paymentMethodId: string }): Promise<StoredCard>;
  /** Charges the stored card once. Declines and authentication requests are results, not throws. */
  chargeOffSession(input: ChargeRequest): Promise<ChargeResult>;
  getPaymentIntent(paymentIntentId: string): Promise<ChargeResult>;
  /**
   * How much of the payment has been refunded in all, in the smallest unit, as the provider knows it
   * now (Stripe: the PaymentIntent's latest charge's `amount_refunded`), refunds made outside
   * Layerline (Stripe's dashboard) included. What a refund webhook's body claims may be older.
   */
  getRefundedAmount(paymentIntentId: string): Promise<number>;
  /**
   * The charge made for this order and attempt, if any: for a process that died after the provider
   * answered and before the answer was stored. Replaying chargeOffSession with the same idempotency
   * key (within 24 h) is the exact way; this is the lookup for when the key is not at hand.
   */
  findPaymentIntent(input: ChargeMetadata): Promise<ChargeResult | null>;
  /**
   * Test mode only (the sandbox): the cardholder's answer to an authentication request, which in
   * Stripe happens in the browser (stripe.confirmCardPayment). Absent on real providers.
   */
  completeTestAuthentication?(paymentIntentId: string, approve: boolean): Promise<ChargeResult>;
  /** Refunds all of a payment, or `amountCents` of it. */
  refund(input: {
    paymentIntentId: string;
    amountCents?: number;
    idempotencyKey: string;
  }): Promise<RefundResult>;
  /**
   * Verifies a webhook's `t=…,v1=…` signature over the raw body (not a re-serialised parse) with a
   * 300 s tolerance and answers the event; throws PaymentWebhookSignatureError otherwise.
   */
  verifyWebhook(rawBody: Buffer, signatureHeader: string, nowSeconds?: number): PaymentWebhookEvent;

  // ── Connect (affiliate payouts; docs/affiliates.md) ──
  /** An Express connected account for a user who is paid through Layerline (one per user; the key makes a retry the same account). */
  createConnectedAccount(input: {
    userId: string;
    email: string;
    /** ISO 3166-1 alpha-2; Stripe asks during onboarding when absent. */
    country?: string;
    idempotencyKey: string;
  }): Promise<{ accountId: string }>;
  /** A one-time onboarding link (`account_onboarding`); Stripe sends the browser to `returnUrl`, or to `refreshUrl` when the link expired. */
  createAccountLink(input: {
    accountId: string;
    refreshUrl: string;
    returnUrl: string;
  }): Promise<{ url: string }>;
  getConnectedAccount(accountId: string): Promise<ConnectedAccount>;
  /** Moves money from the platform's balance to a connected account, once per idempotency key. */
  createTransfer(input: {
    accountId: string;
    amountCents: number;
    currency: string;
    idempotencyKey: string;
    metadata: Record<string, string>;
  }): Promise<{ transferId: string }>;
  /**
   * Test mode only (the sandbox): what the user does on the sandbox's onboarding page, which in
   * Stripe happens on Stripe's own pages. Absent on real providers.
   */
  completeTestOnboarding?(accountId: string, outcome: 'complete' | 'restricted'): Promise<ConnectedAccount>;
}

/** A connected account as the caller acts on it. */
export interface ConnectedAccount {
  readonly detailsSubmitted: boolean;
  readonly payoutsEnabled: boolean;
  readonly chargesEnabled: boolean;
  /** Stripe's `requirements.currently_due`. */
  readonly requirementsDue: readonly string[];
}

/** Try again later with the same idempotency key: no answer, 409, 429 or 5xx. */
export class PaymentUnavailableError extends Error {
  readonly retryAfterSeconds: number | null;
  constructor(message: string, retryAfterSeconds: number | null = null) {
    super(message);
    this.name = 'PaymentUnavailableError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The provider refused the request as made (400-type: unknown id, bad parameter, key reused). */
export class PaymentRejectedError extends Error {
  readonly status: number;
  /** The provider's error code (`resource_missing`, `idempotency_error`, …) when it gave one. */
  readonly code: string | null;
  constructor(message: string, status = 400, code: string | null = null) {
    super(message);
    this.name = 'PaymentRejectedError';
    this.status = status;
    this.code = code;
  }
}

/** The provider refused our API key (401/403): configuration, not the seller's doing. */
export class PaymentAuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PaymentAuthError';
  }
}

/** A webhook whose signature, timestamp or body does not verify: answer 400, process nothing. */
export class PaymentWebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PaymentWebhookSignatureError';
  }
}
