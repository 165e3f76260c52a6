import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  PaymentRejectedError,
  PaymentWebhookSignatureError,
  WEBHOOK_TOLERANCE_SECONDS,
  type ChargeRequest,
  type ChargeResult,
  type ConnectedAccount,
  type PaymentProvider,
  type PaymentWebhookEvent,
  type RefundResult,
} from '../../modules/payments/payment-provider.ts';

/**
 * The payment port without Stripe keys (the embedded default): test mode, no money moves. It behaves
 * the way Stripe does for Stripe's public test card numbers, so the whole flow — a card form, a
 * stored card, charges that succeed, decline or need authentication, refunds, signed webhooks — can
 * be seen and tested without an account.
 *
 * A sandbox payment method id carries its card (`pm_sandbox_<last4>_<brand>_<MMYY>_<random>`), and a
 * PaymentIntent id carries its outcome, so a charge made in one process (the worker) can be read in
 * another (the API). Everything else is in memory, per process: idempotency (the same key answers
 * the same PaymentIntent, as Stripe does) holds within one process and a bounded number of keys;
 * across processes and restarts the caller's own table (one charge per order and attempt) is the guard.
 */

/** What a test card does when charged off-session (Stripe's test-card table). */
type Outcome = 'succeed' | 'decline' | 'insufficient_funds' | 'authenticate';

interface TestCard {
  readonly outcome: Outcome;
  readonly note: string;
}

/** Stripe's public test numbers with a behaviour other than success, by full number. */
const TEST_CARDS: Record<string, TestCard> = {
  '4000000000000002': { outcome: 'decline', note: 'declined (generic_decline)' },
  '4000000000009995': { outcome: 'insufficient_funds', note: 'declined (insufficient_funds)' },
  '4000002500003155': { outcome: 'authenticate', note: 'needs authentication off-session' },
  '4000002760003184': { outcome: 'authenticate', note: 'always needs authentication' },
  '4000000000000341': { outcome: 'decline', note: 'attaches, every charge declines' },
};

/** The outcome for a stored card, by the last four digits its id carries. */
const OUTCOME_BY_LAST4: Record<string, Outcome> = Object.fromEntries(
  Object.entries(TEST_CARDS).map(([number, card]) => [number.slice(-4), card.outcome]),
);

const OUTCOME_CODE: Record<Outcome, string> = {
  succeed: 's',
  decline: 'd',
  insufficient_funds: 'f',
  authenticate: 'a',
};
const CODE_OUTCOME: Record<string, Outcome> = Object.fromEntries(
  Object.entries(OUTCOME_CODE).map(([o, c]) => [c, o as Outcome]),
);

/** Stripe's own words for each outcome. */
export const SANDBOX_DECLINE_MESSAGES = {
  decline: 'Your card was declined.',
  insufficient_funds: 'Your card has insufficient funds.',
  authenticate: 'Your card was declined. This transaction requires authentication.',
} as const;

/** The default signing secret of sandbox webhooks. */
export const SANDBOX_WEBHOOK_SECRET = 'whsec_sandbox_layerline';

/** Oldest keys are forgotten past this (Stripe forgets after 24 h; the caller's table is the real guard). */
const MAX_REMEMBERED = 10_000;

// --- the card form ------------------------------------------------------------------------------

export interface SandboxCard {
  readonly paymentMethodId: string;
  readonly brand: string;
  readonly last4: string;
  readonly expMonth: number;
  readonly expYear: number;
}

export type SandboxCardCheck =
  | { readonly ok: true; readonly card: SandboxCard }
  | { readonly ok: false; readonly field: 'number' | 'expiry' | 'cvc'; readonly message: string };

const luhn = (digits: string): boolean => {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
};

const brandOf = (digits: string): string => {
  if (/^4/.test(digits)) return 'visa';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(digits)) return 'mastercard';
  if (/^3[47]/.test(digits)) return 'amex';
  if (/^(6011|65|64[4-9])/.test(digits)) return 'discover';
  if (/^35/.test(digits)) return 'jcb';
  if (/^(36|30[0-5]|38|39)/.test(digits)) return 'diners';
  if (/^62/.test(digits)) return 'unionpay';
  return 'unknown';
};

/**
 * What Stripe Elements does with a card typed into the form: checks it (Luhn, an expiry in the
 * future, a 3–4 digit CVC) and answers a payment method id, or the words Elements would show.
 * Spaces and dashes in the number are ignored; a two-digit year means 20YY.
 */
export const sandboxPaymentMethodFor = (
  cardNumber: string,
  expMonth: number,
  expYear: number,
  cvc: string,
  now: Date = new Date(),
): SandboxCardCheck => {
  const digits = cardNumber.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(digits) || !luhn(digits))
    return { ok: false, field: 'number', message: 'Your card number is invalid.' };
  const year = expYear < 100 ? 2000 + expYear : expYear;
  if (!Number.isInteger(expMonth) || expMonth < 1 || expMonth > 12 || !Number.isInteger(year))
    return { ok: false, field: 'expiry', message: "Your card's expiration date is incomplete." };
  const thisYear = now.getUTCFullYear();
  if (year < thisYear)
    return { ok: false, field: 'expiry', message: "Your card's expiration year is in the past." };
  if (year === thisYear && expMonth < now.getUTCMonth() + 1)
    return { ok: false, field: 'expiry', message: "Your card's expiration date is in the past." };
  if (year > thisYear + 50)
    return { ok: false, field: 'expiry', message: "Your card's expiration year is invalid." };
  const brand = brandOf(digits);
  if (!/^\d{3,4}$/.test(cvc) || (brand === 'amex' ? cvc.length !== 4 : cvc.length !== 3))
    return { ok: false, field: 'cvc', message: "Your card's security code is invalid." };
  const last4 = digits.slice(-4);
  const mmyy = `${String(expMonth).padStart(2, '0')}${String(year % 100).padStart(2, '0')}`;
  return {
    ok: true,
    card: {
      paymentMethodId: `pm_sandbox_${last4}_${brand}_${mmyy}_${randomBytes(6).toString('hex')}`,
      brand,
      last4,
      expMonth,
      expYear: year,
    },
  };
};

const PM_ID = /^pm_sandbox_(\d{4})_([a-z]+)_(\d{2})(\d{2})_[0-9a-f]+$/;

const parsePaymentMethod = (paymentMethodId: string): SandboxCard => {
  const match = PM_ID.exec(paymentMethodId);
  if (!match)
    throw new PaymentRejectedError(`No such PaymentMethod: '${paymentMethodId}'`, 400, 'resource_missing');
  return {
    paymentMethodId,
    last4: match[1]!,
    brand: match[2]!,
    expMonth: Number(match[3]),
    expYear: 2000 + Number(match[4]),
  };
};

// --- webhooks -----------------------------------------------------------------------------------

const hmac = (secret: string, timestamp: number, body: Buffer | string): string =>
  createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');

/** A `Stripe-Signature`-style header (`t=…,v1=…`) for a body, as Stripe signs webhooks. */
export const signSandboxWebhook = (
  body: Buffer | string,
  secret: string = SANDBOX_WEBHOOK_SECRET,
  timestampSeconds = Math.floor(Date.now() / 1000),
): string => `t=${timestampSeconds},v1=${hmac(secret, timestampSeconds, body)}`;

/** Verifies a `t=…,v1=…` header over the raw body, with Stripe's rules, and parses the event. */
export const verifySandboxWebhook = (
  rawBody: Buffer,
  signatureHeader: string,
  secret: string,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): PaymentWebhookEvent => {
  const parts = signatureHeader.split(',').map((part) => part.trim().split('='));
  const timestamp = Number(parts.find(([name]) => name === 't')?.[1]);
  const signatures = parts.filter(([name, value]) => name === 'v1' && value).map(([, value]) => value!);
  if (!Number.isInteger(timestamp) || signatures.length === 0)
    throw new PaymentWebhookSignatureError('Unable to extract timestamp and signatures from header');
  const expected = Buffer.from(hmac(secret, timestamp, rawBody), 'utf8');
  const matches = signatures.some((signature) => {
    const given = Buffer.from(signature, 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches)
    throw new PaymentWebhookSignatureError('No signatures found matching the expected signature for payload');
  if (nowSeconds - timestamp > WEBHOOK_TOLERANCE_SECONDS)
    throw new PaymentWebhookSignatureError('Timestamp outside the tolerance zone');
  let event: unknown;
  try {
    event = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new PaymentWebhookSignatureError('The webhook body is not JSON');
  }
  const record = event as Partial<PaymentWebhookEvent> | null;
  if (
    !record ||
    typeof record.id !== 'string' ||
    typeof record.type !== 'string' ||
    typeof record.created !== 'number' ||
    !record.data ||
    typeof record.data.object !== 'object' ||
    record.data.object === null
  )
    throw new PaymentWebhookSignatureError('The webhook body is not an event');
  return { id: record.id, type: record.type, created: record.created, data: { object: record.data.object } };
};

// --- the provider -------------------------------------------------------------------------------

export interface SandboxPaymentsOptions {
  /** The clock (tests). */
  readonly now?: () => Date;
  /** The app's public URL: where a card that needs authentication is sent. */
  readonly publicUrl?: string;
  readonly webhookSecret?: string;
}

interface SandboxIntent extends ChargeResult {
  readonly amountCents: number;
  readonly currency: string;
  readonly metadata: { orderId: string; attempt: number };
  refundedCents: number;
}

/** A Map that forgets its oldest entries past a size. */
class Bounded<V> {
  readonly #map = new Map<string, V>();
  readonly #max: number;
  constructor(max: number) {
    this.#max = max;
  }
  get(key: string): V | undefined {
    return this.#map.get(key);
  }
  set(key: string, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    while (this.#map.size > this.#max) this.#map.delete(this.#map.keys().next().value!);
  }
  values(): IterableIterator<V> {
    return this.#map.values();
  }
}

const digest = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 24);

/** A transfer to a connected account, as the sandbox recorded it (no money moves). */
export interface SandboxTransfer {
  readonly transferId: string;
  readonly accountId: string;
  readonly amountCents: number;
  readonly currency: string;
  readonly idempotencyKey: string;
  readonly metadata: Record<string, string>;
}

export interface SandboxPaymentProvider extends PaymentProvider {
  /** Every transfer made by this process, oldest first (what a test or the demo can look at). */
  readonly transfers: readonly SandboxTransfer[];
}

const ACCOUNT_ID = /^acct_sandbox_[0-9a-f]+$/;

const NOT_ONBOARDED: ConnectedAccount = {
  detailsSubmitted: false,
  payoutsEnabled: false,
  chargesEnabled: false,
  requirementsDue: ['external_account', 'individual.dob.day', 'tos_acceptance.date'],
};

export const createSandboxPayments = (options: SandboxPaymentsOptions = {}): SandboxPaymentProvider => {
  const now = options.now ?? (() => new Date());
  const publicUrl = (options.publicUrl ?? 'http://localhost:3000').replace(/\/+$/, '');
  const webhookSecret = options.webhookSecret ?? SANDBOX_WEBHOOK_SECRET;

  /** Idempotency key → the parameters first used and what was answered. */
  const answered = new Bounded<{ params: string; result: unknown }>(MAX_REMEMBERED);
  const intents = new Bounded<SandboxIntent>(MAX_REMEMBERED);
  /**
   * Connected accounts by id. A process that restarted has forgotten an account's onboarding: it
   * reads as not onboarded (the user onboards again on the sandbox page), as an account Stripe
   * would answer while its details are still due.
   */
  const accounts = new Bounded<ConnectedAccount>(MAX_REMEMBERED);
  const transfers: SandboxTransfer[] = [];
  /** The sandbox's onboarding page is ours; a path of this site when no public URL is known. */
  const pagesBase = options.publicUrl ? publicUrl : '';

  const knownAccount = (accountId: string): ConnectedAccount => {
    if (!ACCOUNT_ID.test(accountId))
      throw new PaymentRejectedError(`No such account: '${accountId}'`, 404, 'resource_missing');
    return accounts.get(accountId) ?? NOT_ONBOARDED;
  };

  /** Stripe's idempotency: the same key and parameters → the first answer; other parameters → an error. */
  const once = <T>(idempotencyKey: string, params: unknown, run: () => T): T => {
    if (idempotencyKey.length === 0 || idempotencyKey.length > 255)
      throw new PaymentRejectedError('An idempotency key must be 1 to 255 characters');
    const fingerprint = JSON.stringify(params);
    const earlier = answered.get(idempotencyKey);
    if (earlier) {
      if (earlier.params !== fingerprint)
        throw new PaymentRejectedError(
          'Keys for idempotent requests can only be used with the same parameters they were first used with.',
          400,
          'idempotency_error',
        );
      return earlier.result as T;
    }
    const result = run();
    answered.set(idempotencyKey, { params: fingerprint, result });
    return result;
  };

  const resultFor = (paymentIntentId: string, outcome: Outcome): ChargeResult => {
    switch (outcome) {
      case 'succeed':
        return {
          paymentIntentId,
          status: 'succeeded',
          declineReason: null,
          nextActionUrl: null,
          clientSecret: null,
        };
      case 'authenticate':
        return {
          paymentIntentId,
          status: 'requires_action',
          declineReason: SANDBOX_DECLINE_MESSAGES.authenticate,
          nextActionUrl: `${publicUrl}/payments/authenticate/${paymentIntentId}`,
          clientSecret: null,
        };
      default:
        return {
          paymentIntentId,
          status: 'requires_payment_method',
          declineReason: SANDBOX_DECLINE_MESSAGES[outcome],
          nextActionUrl: null,
          clientSecret: null,
        };
    }
  };

  /** A PaymentIntent read from its id alone (one charged in another process). */
  const fromId = (paymentIntentId: string): ChargeResult => {
    const remembered = intents.get(paymentIntentId);
    if (remembered) return publicResult(remembered);
    const match = /^pi_sandbox_([a-z])_[0-9a-f]+$/.exec(paymentIntentId);
    const outcome = match ? CODE_OUTCOME[match[1]!] : undefined;
    if (!outcome)
      throw new PaymentRejectedError(`No such payment_intent: '${paymentIntentId}'`, 404, 'resource_missing');
    return resultFor(paymentIntentId, outcome);
  };

  const publicResult = (intent: SandboxIntent): ChargeResult => ({
    paymentIntentId: intent.paymentIntentId,
    status: intent.status,
    declineReason: intent.declineReason,
    nextActionUrl: intent.nextActionUrl,
    clientSecret: null,
  });

  return {
    kind: 'sandbox',
    testMode: true,
    transfers,

    createCustomer: async ({ sellerId, email, name }) => {
      if (!sellerId) throw new PaymentRejectedError('A customer needs a seller');
      void email;
      void name;
      return { customerId: `cus_sandbox_${randomBytes(8).toString('hex')}` };
    },

    createSetupIntent: async ({ customerId, idempotencyKey }) =>
      once(idempotencyKey, { op: 'setup_intent', customerId }, () => {
        if (!customerId.startsWith('cus_sandbox_'))
          throw new PaymentRejectedError(`No such customer: '${customerId}'`, 400, 'resource_missing');
        const setupIntentId = `seti_sandbox_${randomBytes(8).toString('hex')}`;
        return { setupIntentId, clientSecret: `${setupIntentId}_secret_${randomBytes(8).toString('hex')}` };
      }),

    attachDefaultPaymentMethod: async ({ customerId, paymentMethodId }) => {
      if (!customerId.startsWith('cus_sandbox_'))
        throw new PaymentRejectedError(`No such customer: '${customerId}'`, 400, 'resource_missing');
      // 4000 0000 0000 0341 attaches like any other card; its charges fail.
      return parsePaymentMethod(paymentMethodId);
    },

    chargeOffSession: async (input: ChargeRequest) => {
      const { customerId, paymentMethodId, amountCents, currency, idempotencyKey, metadata, description } =
        input;
      const params = {
        op: 'charge',
        customerId,
        paymentMethodId,
        amountCents,
        currency: currency.toLowerCase(),
        metadata,
        description,
      };
      return once(idempotencyKey, params, () => {
        if (!Number.isInteger(amountCents) || amountCents < 50)
          throw new PaymentRejectedError('Amount must be at least 50 cents', 400, 'amount_too_small');
        if (!/^[a-z]{3}$/.test(params.currency))
          throw new PaymentRejectedError(`Invalid currency: ${currency}`, 400, 'parameter_invalid_string');
        if (!customerId.startsWith('cus_sandbox_'))
          throw new PaymentRejectedError(`No such customer: '${customerId}'`, 400, 'resource_missing');
        const card = parsePaymentMethod(paymentMethodId);
        const today = now();
        const expired =
          card.expYear < today.getUTCFullYear() ||
          (card.expYear === today.getUTCFullYear() && card.expMonth < today.getUTCMonth() + 1);
        const outcome: Outcome = expired ? 'decline' : (OUTCOME_BY_LAST4[card.last4] ?? 'succeed');
        // From the key alone: a retry with the same key in another process names the same PaymentIntent.
        const paymentIntentId = `pi_sandbox_${OUTCOME_CODE[outcome]}_${digest(`charge\u0000${idempotencyKey}`)}`;
        const result = resultFor(paymentIntentId, outcome);
        const declineReason = expired ? 'Your card has expired.' : result.declineReason;
        intents.set(paymentIntentId, {
          ...result,
          declineReason,
          amountCents,
          currency: params.currency,
          metadata: { orderId: metadata.orderId, attempt: metadata.attempt },
          refundedCents: 0,
        });
        return { ...result, declineReason };
      });
    },

    getPaymentIntent: async (paymentIntentId) => fromId(paymentIntentId),

    // Only refunds made through this process are known (the sandbox has no dashboard to refund from).
    getRefundedAmount: async (paymentIntentId) => {
      fromId(paymentIntentId);
      return intents.get(paymentIntentId)?.refundedCents ?? 0;
    },

    completeTestAuthentication: async (paymentIntentId, approve) => {
      const current = fromId(paymentIntentId);
      if (current.status !== 'requires_action') return current;
      const remembered = intents.get(paymentIntentId);
      const answered: ChargeResult = approve
        ? {
            paymentIntentId,
            status: 'succeeded',
            declineReason: null,
            nextActionUrl: null,
            clientSecret: null,
          }
        : {
            paymentIntentId,
            status: 'requires_payment_method',
            declineReason: 'The cardholder did not authenticate the payment.',
            nextActionUrl: null,
            clientSecret: null,
          };
      if (remembered) intents.set(paymentIntentId, { ...remembered, ...answered });
      return answered;
    },

    findPaymentIntent: async ({ orderId, attempt }) => {
      let found: SandboxIntent | undefined;
      for (const intent of intents.values())
        if (intent.metadata.orderId === orderId && intent.metadata.attempt === attempt) found = intent;
      return found ? publicResult(found) : null;
    },

    refund: async ({ paymentIntentId, amountCents, idempotencyKey }) =>
      once(
        idempotencyKey,
        { op: 'refund', paymentIntentId, amountCents: amountCents ?? null },
        (): RefundResult => {
          const charge = fromId(paymentIntentId);
          if (charge.status !== 'succeeded')
            throw new PaymentRejectedError(
              `This PaymentIntent (${paymentIntentId}) does not have a successful charge to refund.`,
              400,
              'charge_not_refundable',
            );
          const intent = intents.get(paymentIntentId);
          if (amountCents !== undefined && (!Number.isInteger(amountCents) || amountCents <= 0))
            throw new PaymentRejectedError(
              'The refund amount must be a positive integer',
              400,
              'parameter_invalid_integer',
            );
          if (intent) {
            const amount = amountCents ?? intent.amountCents - intent.refundedCents;
            if (amount <= 0 || intent.refundedCents + amount > intent.amountCents)
              throw new PaymentRejectedError(
                `Refund amount (${amount}) is greater than the unrefunded amount on the charge (${intent.amountCents - intent.refundedCents}).`,
                400,
                'charge_already_refunded',
              );
            intent.refundedCents += amount;
          }
          return { refundId: `re_sandbox_${digest(idempotencyKey)}`, status: 'succeeded' };
        },
      ),

    createConnectedAccount: async ({ userId, email, country, idempotencyKey }) =>
      once(idempotencyKey, { op: 'account', userId, email, country: country ?? null }, () => {
        // From the key: the same user's retry in another process names the same account.
        const accountId = `acct_sandbox_${digest(`account\u0000${idempotencyKey}`)}`;
        accounts.set(accountId, NOT_ONBOARDED);
        return { accountId };
      }),

    createAccountLink: async ({ accountId }) => {
      knownAccount(accountId);
      return { url: `${pagesBase}/affiliate-links?connect=sandbox&account=${encodeURIComponent(accountId)}` };
    },

    getConnectedAccount: async (accountId) => knownAccount(accountId),

    completeTestOnboarding: async (accountId, outcome) => {
      knownAccount(accountId);
      const account: ConnectedAccount =
        outcome === 'complete'
          ? { detailsSubmitted: true, payoutsEnabled: true, chargesEnabled: false, requirementsDue: [] }
          : {
              detailsSubmitted: true,
              payoutsEnabled: false,
              chargesEnabled: false,
              requirementsDue: ['external_account'],
            };
      accounts.set(accountId, account);
      return account;
    },

    createTransfer: async ({ accountId, amountCents, currency, idempotencyKey, metadata }) =>
      once(
        idempotencyKey,
        { op: 'transfer', accountId, amountCents, currency: currency.toLowerCase(), metadata },
        () => {
          if (!Number.isInteger(amountCents) || amountCents < 1)
            throw new PaymentRejectedError(
              'The transfer amount must be a positive integer',
              400,
              'parameter_invalid_integer',
            );
          if (!/^[a-z]{3}$/i.test(currency))
            throw new PaymentRejectedError(`Invalid currency: ${currency}`, 400, 'parameter_invalid_string');
          if (!knownAccount(accountId).payoutsEnabled)
            throw new PaymentRejectedError(
              `Your destination account (${accountId}) needs to have at least one of the following capabilities enabled: transfers, crypto_transfers, legacy_payments`,
              400,
              'insufficient_capabilities_for_transfer',
            );
          const transfer: SandboxTransfer = {
            transferId: `tr_sandbox_${digest(`transfer\u0000${idempotencyKey}`)}`,
            accountId,
            amountCents,
            currency: currency.toLowerCase(),
            idempotencyKey,
            metadata: { ...metadata },
          };
          transfers.push(transfer);
          return { transferId: transfer.transferId };
        },
      ),

    verifyWebhook: (rawBody, signatureHeader, nowSeconds) =>
      verifySandboxWebhook(
        rawBody,
        signatureHeader,
        webhookSecret,
        nowSeconds ?? Math.floor(now().getTime() / 1000),
      ),
  };
};
