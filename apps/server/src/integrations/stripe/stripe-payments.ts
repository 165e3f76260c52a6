import { createHash } from 'node:crypto';
import Stripe from 'stripe';
import {
  PaymentAuthError,
  PaymentRejectedError,
  PaymentUnavailableError,
  PaymentWebhookSignatureError,
  WEBHOOK_TOLERANCE_SECONDS,
  type ChargeResult,
  type PaymentProvider,
  type PaymentWebhookEvent,
  type RefundStatus,
} from '../../modules/payments/payment-provider.ts';

/**
 * The payment port on Stripe, through the official `stripe` SDK.
 *
 * API version: pinned to 2023-08-16, the version of the OpenAPI file the contract tests validate
 * against (shared/contracts/stripe/spec3.yaml) and the one stripe-node 13.x is typed for, so the
 * types, the contract and what Stripe answers us are the same API. Moving on means moving all three.
 *
 * Retries: the SDK retries connection errors, 409, 5xx and anything Stripe marks
 * `Stripe-Should-Retry: true`, twice (`maxNetworkRetries: 2`), with backoff and jitter and the same
 * idempotency key. What is still failing after that is PaymentUnavailableError: the caller's job
 * retries later with the same key (PAY-4). 400/401/402 are never retried.
 */

export interface StripePaymentsConfig {
  readonly secretKey: string;
  /** The webhook endpoint's signing secret (`whsec_…`). */
  readonly webhookSecret: string;
  /** Tests point the SDK at a local fake. */
  readonly host?: string;
  readonly port?: number;
  readonly protocol?: 'http' | 'https';
}

export const STRIPE_API_VERSION = '2023-08-16' as const;

/** Stripe keeps idempotency keys up to 255 characters. */
const MAX_KEY = 255;

const key = (text: string): string => {
  if (text.length === 0 || text.length > MAX_KEY)
    throw new PaymentRejectedError(`An idempotency key must be 1 to ${MAX_KEY} characters`);
  return text;
};

const digest = (...parts: string[]): string =>
  createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 32);

type StripeError = InstanceType<typeof Stripe.errors.StripeError>;

const isStripeError = (error: unknown): error is StripeError =>
  error instanceof Error &&
  typeof (error as unknown as { type?: unknown }).type === 'string' &&
  (error as unknown as { type: string }).type.startsWith('Stripe');

const retryAfter = (error: StripeError): number | null => {
  const value = Number(error.headers?.['retry-after']);
  return Number.isFinite(value) && value >= 0 ? value : null;
};

/** A Stripe failure in the port's terms (card errors outside a charge included). */
export const translateStripeError = (error: unknown, operation: string): unknown => {
  if (!isStripeError(error)) return error;
  const status = error.statusCode ?? null;
  const words = `Stripe ${operation}: ${error.message}`;
  if (error.type === 'StripeConnectionError' || error.type === 'StripeAPIError' || status === null)
    return new PaymentUnavailableError(words, retryAfter(error));
  if (
    status === 401 ||
    status === 403 ||
    error.type === 'StripeAuthenticationError' ||
    error.type === 'StripePermissionError'
  )
    return new PaymentAuthError(`Stripe refused the API key (${status}): ${error.message}`);
  if (status === 409 || status === 429 || status >= 500)
    return new PaymentUnavailableError(words, retryAfter(error));
  return new PaymentRejectedError(words, status, error.code ?? null);
};

type Intent = Pick<
  Stripe.PaymentIntent,
  'id' | 'status' | 'last_payment_error' | 'next_action' | 'cancellation_reason' | 'client_secret'
>;

const AUTHENTICATION_REQUIRED = 'authentication_required';

const redirectUrl = (intent: Intent): string | null => intent.next_action?.redirect_to_url?.url ?? null;

/**
 * A PaymentIntent as the caller acts on it (PAY-3). An off-session charge that needs the cardholder
 * to authenticate fails with `authentication_required` and leaves the intent in
 * `requires_payment_method`: that is `requires_action` here, so the seller is sent to authenticate.
 * `requires_capture` (we never capture by hand) is money held: `processing`. `canceled` can only be
 * tried again with a new key, so it reads as `requires_payment_method`.
 */
export const chargeResultOf = (intent: Intent): ChargeResult => {
  const error = intent.last_payment_error;
  const base = { paymentIntentId: intent.id, clientSecret: intent.client_secret ?? null };
  switch (intent.status) {
    case 'succeeded':
      return { ...base, status: 'succeeded', declineReason: null, nextActionUrl: null };
    case 'processing':
    case 'requires_capture':
      return { ...base, status: 'processing', declineReason: null, nextActionUrl: null };
    case 'requires_action':
    case 'requires_confirmation':
      return {
        ...base,
        status: 'requires_action',
        declineReason: error?.message ?? 'The card needs the cardholder to authenticate this payment.',
        nextActionUrl: redirectUrl(intent),
      };
    case 'canceled':
      return {
        ...base,
        status: 'requires_payment_method',
        declineReason: `The payment was canceled${intent.cancellation_reason ? ` (${intent.cancellation_reason})` : ''}.`,
        nextActionUrl: null,
      };
    case 'requires_payment_method':
    default:
      if (error?.code === AUTHENTICATION_REQUIRED || error?.decline_code === AUTHENTICATION_REQUIRED)
        return {
          ...base,
          status: 'requires_action',
          declineReason: error.message ?? 'The card needs the cardholder to authenticate this payment.',
          nextActionUrl: redirectUrl(intent),
        };
      return {
        ...base,
        status: 'requires_payment_method',
        declineReason: error?.message ?? (error?.decline_code || error?.code || 'The payment failed.'),
        nextActionUrl: null,
      };
  }
};

const REFUND_STATUSES: readonly RefundStatus[] = [
  'pending',
  'succeeded',
  'failed',
  'canceled',
  'requires_action',
];

/** Stripe's search syntax: a value in single quotes, quotes and backslashes escaped. */
const searchValue = (value: string): string => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

export const createStripePayments = (config: StripePaymentsConfig): PaymentProvider => {
  const stripe = new Stripe(config.secretKey, {
    apiVersion: STRIPE_API_VERSION,
    maxNetworkRetries: 2,
    timeout: 30_000,
    telemetry: false,
    ...(config.host ? { host: config.host } : {}),
    ...(config.port ? { port: config.port } : {}),
    ...(config.protocol ? { protocol: config.protocol } : {}),
  });

  const call = async <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw translateStripeError(error, operation);
    }
  };

  return {
    kind: 'stripe',
    testMode: /^(sk|rk)_test_/.test(config.secretKey),

    createCustomer: ({ sellerId, email, name }) =>
      call('create customer', async () => {
        // Same seller and details within Stripe's 24 h key window → the same customer, not a second one.
        const customer = await stripe.customers.create(
          { email, name, metadata: { seller_id: sellerId } },
          { idempotencyKey: key(`seller:${sellerId}:customer:${digest(email, name)}`) },
        );
        return { customerId: customer.id };
      }),

    createSetupIntent: ({ customerId, idempotencyKey }) =>
      call('create setup intent', async () => {
        const setupIntent = await stripe.setupIntents.create(
          { customer: customerId, usage: 'off_session', payment_method_types: ['card'] },
          { idempotencyKey: key(idempotencyKey) },
        );
        if (!setupIntent.client_secret)
          throw new PaymentRejectedError('Stripe answered a SetupIntent without a client secret', 502);
        return { setupIntentId: setupIntent.id, clientSecret: setupIntent.client_secret };
      }),

    attachDefaultPaymentMethod: ({ customerId, paymentMethodId }) =>
      call('store the card', async () => {
        const paymentMethod = await stripe.paymentMethods.attach(
          paymentMethodId,
          { customer: customerId },
          { idempotencyKey: key(`customer:${customerId}:attach:${paymentMethodId}`) },
        );
        await stripe.customers.update(
          customerId,
          { invoice_settings: { default_payment_method: paymentMethod.id } },
          { idempotencyKey: key(`customer:${customerId}:default-payment-method:${paymentMethod.id}`) },
        );
        const card = paymentMethod.card;
        if (!card) throw new PaymentRejectedError('Only cards can be stored', 400, 'payment_method_not_card');
        return {
          paymentMethodId: paymentMethod.id,
          brand: card.brand,
          last4: card.last4,
          expMonth: card.exp_month,
          expYear: card.exp_year,
        };
      }),

    chargeOffSession: async (input) => {
      try {
        const intent = await stripe.paymentIntents.create(
          {
            amount: input.amountCents,
            currency: input.currency.toLowerCase(),
            customer: input.customerId,
            payment_method: input.paymentMethodId,
            // A card only: no redirect-based method, so no return_url is needed off-session.
            payment_method_types: ['card'],
            off_session: true,
            confirm: true,
            description: input.description,
            metadata: { order_id: input.metadata.orderId, attempt: String(input.metadata.attempt) },
          },
          { idempotencyKey: key(input.idempotencyKey) },
        );
        return chargeResultOf(intent);
      } catch (error) {
        // A decline (402 card_error) carries the PaymentIntent it left behind: that is the result.
        if (isStripeError(error) && error.type === 'StripeCardError') {
          const intent = error.payment_intent;
          if (intent) {
            const result = chargeResultOf(intent);
            if (result.status === 'requires_payment_method' || result.status === 'requires_action') {
              const authentication =
                error.code === AUTHENTICATION_REQUIRED || error.decline_code === AUTHENTICATION_REQUIRED;
              return {
                ...result,
                status: authentication ? 'requires_action' : result.status,
                declineReason: error.message || result.declineReason,
              };
            }
            return result;
          }
        }
        throw translateStripeError(error, 'charge');
      }
    },

    getPaymentIntent: (paymentIntentId) =>
      call('read payment', async () => chargeResultOf(await stripe.paymentIntents.retrieve(paymentIntentId))),

    getRefundedAmount: (paymentIntentId) =>
      call('read refunds', async () => {
        // The charge's running total, refunds made in the dashboard included; one request, read now.
        const intent = await stripe.paymentIntents.retrieve(paymentIntentId, { expand: ['latest_charge'] });
        const charge = intent.latest_charge;
        // No charge yet (never confirmed): nothing can have been refunded.
        if (!charge) return 0;
        if (typeof charge === 'string')
          throw new PaymentRejectedError(
            'Stripe answered the PaymentIntent without expanding its charge',
            502,
          );
        return charge.amount_refunded;
      }),

    findPaymentIntent: ({ orderId, attempt }) =>
      call('find payment', async () => {
        // Search is eventually consistent (Stripe: usually under a minute behind); the caller runs it
        // on recovery, well after the charge, and replays the idempotency key when it has it.
        const found = await stripe.paymentIntents.search({
          query: `metadata['order_id']:${searchValue(orderId)} AND metadata['attempt']:${searchValue(String(attempt))}`,
          limit: 10,
        });
        const intent = found.data.find((item) => item.status === 'succeeded') ?? found.data[0];
        return intent ? chargeResultOf(intent) : null;
      }),

    refund: ({ paymentIntentId, amountCents, idempotencyKey }) =>
      call('refund', async () => {
        const refund = await stripe.refunds.create(
          { payment_intent: paymentIntentId, ...(amountCents === undefined ? {} : { amount: amountCents }) },
          { idempotencyKey: key(idempotencyKey) },
        );
        const status = REFUND_STATUSES.find((item) => item === refund.status) ?? 'pending';
        return { refundId: refund.id, status };
      }),

    createConnectedAccount: ({ userId, email, country, idempotencyKey }) =>
      call('create connected account', async () => {
        // Express: Stripe hosts onboarding and the payouts dashboard. Only transfers are needed to pay an affiliate.
        const account = await stripe.accounts.create(
          {
            type: 'express',
            email,
            ...(country ? { country } : {}),
            capabilities: { transfers: { requested: true } },
            metadata: { user_id: userId },
          },
          { idempotencyKey: key(idempotencyKey) },
        );
        return { accountId: account.id };
      }),

    createAccountLink: ({ accountId, refreshUrl, returnUrl }) =>
      call('create onboarding link', async () => {
        const link = await stripe.accountLinks.create({
          account: accountId,
          refresh_url: refreshUrl,
          return_url: returnUrl,
          type: 'account_onboarding',
        });
        return { url: link.url };
      }),

    getConnectedAccount: (accountId) =>
      call('read connected account', async () => {
        const account = await stripe.accounts.retrieve(accountId);
        return {
          detailsSubmitted: account.details_submitted ?? false,
          payoutsEnabled: account.payouts_enabled ?? false,
          chargesEnabled: account.charges_enabled ?? false,
          requirementsDue: account.requirements?.currently_due ?? [],
        };
      }),

    createTransfer: ({ accountId, amountCents, currency, idempotencyKey, metadata }) =>
      call('transfer', async () => {
        const transfer = await stripe.transfers.create(
          { amount: amountCents, currency: currency.toLowerCase(), destination: accountId, metadata },
          { idempotencyKey: key(idempotencyKey) },
        );
        return { transferId: transfer.id };
      }),

    verifyWebhook: (rawBody, signatureHeader, nowSeconds) => {
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(
          rawBody,
          signatureHeader,
          config.webhookSecret,
          WEBHOOK_TOLERANCE_SECONDS,
          undefined,
          nowSeconds === undefined ? undefined : nowSeconds * 1000,
        );
      } catch (error) {
        throw new PaymentWebhookSignatureError(
          error instanceof Error ? error.message : 'The webhook did not verify',
        );
      }
      const object = (event.data as { object?: unknown } | undefined)?.object;
      if (
        typeof event.id !== 'string' ||
        typeof event.type !== 'string' ||
        object === null ||
        typeof object !== 'object'
      )
        throw new PaymentWebhookSignatureError('The webhook body is not a Stripe event');
      const parsed: PaymentWebhookEvent = {
        id: event.id,
        type: event.type,
        created: event.created,
        data: { object: object as Record<string, unknown> },
      };
      return parsed;
    },
  };
};
