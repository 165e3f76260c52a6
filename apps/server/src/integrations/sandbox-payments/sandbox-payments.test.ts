import { describe, expect, it } from 'vitest';
import {
  PaymentRejectedError,
  PaymentWebhookSignatureError,
  type ChargeRequest,
  type PaymentProvider,
} from '../../modules/payments/payment-provider.ts';
import {
  SANDBOX_WEBHOOK_SECRET,
  createSandboxPayments,
  sandboxPaymentMethodFor,
  signSandboxWebhook,
} from './sandbox-payments.ts';

const NOW = new Date('2026-11-26T12:00:00Z');

const cardId = (number: string, expMonth = 12, expYear = 2030, cvc = '123'): string => {
  const check = sandboxPaymentMethodFor(number, expMonth, expYear, cvc, NOW);
  if (!check.ok) throw new Error(check.message);
  return check.card.paymentMethodId;
};

const setup = async (): Promise<{ payments: PaymentProvider; customerId: string }> => {
  const payments = createSandboxPayments({ now: () => NOW, publicUrl: 'https://farm.example/' });
  const { customerId } = await payments.createCustomer({
    sellerId: 'usr_1',
    email: 'maker@example.com',
    name: 'Ada',
  });
  return { payments, customerId };
};

let orderSeq = 0;
const chargeOf = (
  customerId: string,
  paymentMethodId: string,
  overrides: Partial<ChargeRequest> = {},
): ChargeRequest => {
  const orderId = `ord_${++orderSeq}`;
  return {
    customerId,
    paymentMethodId,
    amountCents: 2350,
    currency: 'usd',
    idempotencyKey: `order:${orderId}:charge:1`,
    metadata: { orderId, attempt: 1 },
    description: `Order ${orderId}`,
    ...overrides,
  };
};

describe('the card form', () => {
  it('accepts Stripe’s test numbers and answers an id that carries the card', () => {
    const check = sandboxPaymentMethodFor('4242 4242 4242 4242', 4, 28, '123', NOW);
    expect(check).toEqual({
      ok: true,
      card: {
        paymentMethodId: expect.stringMatching(/^pm_sandbox_4242_visa_0428_[0-9a-f]+$/),
        brand: 'visa',
        last4: '4242',
        expMonth: 4,
        expYear: 2028,
      },
    });
    expect(sandboxPaymentMethodFor('5555-5555-5555-4444', 1, 2030, '123', NOW)).toMatchObject({
      ok: true,
      card: { brand: 'mastercard', last4: '4444' },
    });
    expect(sandboxPaymentMethodFor('3782 822463 10005', 1, 2030, '1234', NOW)).toMatchObject({
      ok: true,
      card: { brand: 'amex', last4: '0005' },
    });
    for (const number of [
      '4000000000000002',
      '4000000000009995',
      '4000002500003155',
      '4000002760003184',
      '4000000000000341',
    ])
      expect(sandboxPaymentMethodFor(number, 12, 2030, '123', NOW).ok).toBe(true);
    // Two ids for the same card differ (a new PaymentMethod each time, as with Elements).
    expect(cardId('4242424242424242')).not.toBe(cardId('4242424242424242'));
  });

  it.each([
    ['4242 4242 4242 4241', 12, 2030, '123', 'number', 'Your card number is invalid.'],
    ['1234', 12, 2030, '123', 'number', 'Your card number is invalid.'],
    ['4242 4242 4242 424x', 12, 2030, '123', 'number', 'Your card number is invalid.'],
    ['4242424242424242', 10, 2026, '123', 'expiry', "Your card's expiration date is in the past."],
    ['4242424242424242', 12, 2025, '123', 'expiry', "Your card's expiration year is in the past."],
    ['4242424242424242', 13, 2030, '123', 'expiry', "Your card's expiration date is incomplete."],
    ['4242424242424242', 12, 2030, '12', 'cvc', "Your card's security code is invalid."],
    ['4242424242424242', 12, 2030, '12a', 'cvc', "Your card's security code is invalid."],
    ['378282246310005', 12, 2030, '123', 'cvc', "Your card's security code is invalid."],
  ])('refuses %s %i/%i cvc %s (%s)', (number, month, year, cvc, field, message) => {
    expect(sandboxPaymentMethodFor(number, month, year, cvc, NOW)).toEqual({ ok: false, field, message });
  });

  it('this month is still valid', () => {
    expect(sandboxPaymentMethodFor('4242424242424242', 11, 26, '123', NOW).ok).toBe(true);
  });
});

describe('the sandbox provider', () => {
  it('is test mode, sets up and stores a card like Stripe', async () => {
    const { payments, customerId } = await setup();
    expect(payments.kind).toBe('sandbox');
    expect(payments.testMode).toBe(true);
    expect(customerId).toMatch(/^cus_sandbox_/);
    const setupIntent = await payments.createSetupIntent({ customerId, idempotencyKey: 'setup:1' });
    expect(setupIntent.clientSecret.startsWith(`${setupIntent.setupIntentId}_secret_`)).toBe(true);
    expect(await payments.createSetupIntent({ customerId, idempotencyKey: 'setup:1' })).toEqual(setupIntent);

    const paymentMethodId = cardId('4242424242424242', 4, 2028);
    expect(await payments.attachDefaultPaymentMethod({ customerId, paymentMethodId })).toEqual({
      paymentMethodId,
      brand: 'visa',
      last4: '4242',
      expMonth: 4,
      expYear: 2028,
    });
    await expect(
      payments.attachDefaultPaymentMethod({ customerId, paymentMethodId: 'pm_card_visa' }),
    ).rejects.toBeInstanceOf(PaymentRejectedError);
    await expect(
      payments.attachDefaultPaymentMethod({ customerId: 'cus_real', paymentMethodId }),
    ).rejects.toBeInstanceOf(PaymentRejectedError);
  });

  it.each([
    ['4242424242424242', 'succeeded', null],
    ['4000000000000002', 'requires_payment_method', 'Your card was declined.'],
    ['4000000000009995', 'requires_payment_method', 'Your card has insufficient funds.'],
    ['4000000000000341', 'requires_payment_method', 'Your card was declined.'],
    [
      '4000002500003155',
      'requires_action',
      'Your card was declined. This transaction requires authentication.',
    ],
    [
      '4000002760003184',
      'requires_action',
      'Your card was declined. This transaction requires authentication.',
    ],
  ])('charging %s off-session → %s', async (number, status, declineReason) => {
    const { payments, customerId } = await setup();
    const paymentMethodId = cardId(number);
    // Every test card attaches, 0341 included.
    await payments.attachDefaultPaymentMethod({ customerId, paymentMethodId });
    const result = await payments.chargeOffSession(chargeOf(customerId, paymentMethodId));
    expect(result.status).toBe(status);
    expect(result.declineReason).toBe(declineReason);
    expect(result.nextActionUrl).toBe(
      status === 'requires_action'
        ? `https://farm.example/payments/authenticate/${result.paymentIntentId}`
        : null,
    );
    expect(await payments.getPaymentIntent(result.paymentIntentId)).toEqual(result);
  });

  it('a charge is read back in another process by its id alone', async () => {
    const { payments, customerId } = await setup();
    const declined = await payments.chargeOffSession(chargeOf(customerId, cardId('4000000000000002')));
    const paid = await payments.chargeOffSession(chargeOf(customerId, cardId('4242424242424242')));
    const other = createSandboxPayments({ publicUrl: 'https://farm.example' });
    expect(await other.getPaymentIntent(declined.paymentIntentId)).toEqual(declined);
    expect(await other.getPaymentIntent(paid.paymentIntentId)).toEqual(paid);
    await expect(other.getPaymentIntent('pi_nope')).rejects.toMatchObject({
      name: 'PaymentRejectedError',
      status: 404,
    });
  });

  it('the same idempotency key answers the same PaymentIntent; other parameters under it are refused', async () => {
    const { payments, customerId } = await setup();
    const paymentMethodId = cardId('4242424242424242');
    const request = chargeOf(customerId, paymentMethodId);
    const first = await payments.chargeOffSession(request);
    const replays = await Promise.all(Array.from({ length: 20 }, () => payments.chargeOffSession(request)));
    expect(new Set(replays.map((replay) => replay.paymentIntentId))).toEqual(
      new Set([first.paymentIntentId]),
    );
    await expect(payments.chargeOffSession({ ...request, amountCents: 9999 })).rejects.toMatchObject({
      name: 'PaymentRejectedError',
      code: 'idempotency_error',
    });
    // A new attempt (a new key) is a new PaymentIntent.
    const again = await payments.chargeOffSession({
      ...request,
      idempotencyKey: 'order:x:charge:2',
      metadata: { orderId: 'x', attempt: 2 },
    });
    expect(again.paymentIntentId).not.toBe(first.paymentIntentId);
  });

  it('finds the charge of an order and attempt', async () => {
    const { payments, customerId } = await setup();
    const request = chargeOf(customerId, cardId('4242424242424242'));
    expect(await payments.findPaymentIntent(request.metadata)).toBeNull();
    const result = await payments.chargeOffSession(request);
    expect(await payments.findPaymentIntent(request.metadata)).toEqual(result);
    expect(await payments.findPaymentIntent({ ...request.metadata, attempt: 2 })).toBeNull();
  });

  it('refuses a charge Stripe would refuse', async () => {
    const { payments, customerId } = await setup();
    const paymentMethodId = cardId('4242424242424242');
    await expect(
      payments.chargeOffSession(chargeOf(customerId, paymentMethodId, { amountCents: 10 })),
    ).rejects.toBeInstanceOf(PaymentRejectedError);
    await expect(payments.chargeOffSession(chargeOf(customerId, 'pm_bogus'))).rejects.toBeInstanceOf(
      PaymentRejectedError,
    );
    await expect(
      payments.chargeOffSession(chargeOf(customerId, paymentMethodId, { idempotencyKey: '' })),
    ).rejects.toBeInstanceOf(PaymentRejectedError);
  });

  it('a card that expired since it was stored is declined', async () => {
    const { customerId } = await setup();
    const paymentMethodId = cardId('4242424242424242', 12, 2026);
    const later = createSandboxPayments({ now: () => new Date('2027-01-05T00:00:00Z') });
    const result = await later.chargeOffSession(chargeOf(customerId, paymentMethodId));
    expect(result).toMatchObject({
      status: 'requires_payment_method',
      declineReason: 'Your card has expired.',
    });
  });

  it('refunds once per key, never more than was charged, only what succeeded', async () => {
    const { payments, customerId } = await setup();
    const paid = await payments.chargeOffSession(chargeOf(customerId, cardId('4242424242424242')));
    const partial = await payments.refund({
      paymentIntentId: paid.paymentIntentId,
      amountCents: 350,
      idempotencyKey: 'refund:1',
    });
    expect(partial).toEqual({ refundId: expect.stringMatching(/^re_sandbox_/), status: 'succeeded' });
    expect(await payments.getRefundedAmount(paid.paymentIntentId)).toBe(350);
    // The same key twice is one refund (the second answer is the first).
    expect(
      await payments.refund({
        paymentIntentId: paid.paymentIntentId,
        amountCents: 350,
        idempotencyKey: 'refund:1',
      }),
    ).toEqual(partial);
    const rest = await payments.refund({ paymentIntentId: paid.paymentIntentId, idempotencyKey: 'refund:2' });
    expect(rest.refundId).not.toBe(partial.refundId);
    expect(await payments.getRefundedAmount(paid.paymentIntentId)).toBe(2350);
    await expect(
      payments.refund({ paymentIntentId: paid.paymentIntentId, amountCents: 1, idempotencyKey: 'refund:3' }),
    ).rejects.toMatchObject({
      code: 'charge_already_refunded',
    });
    const declined = await payments.chargeOffSession(chargeOf(customerId, cardId('4000000000000002')));
    await expect(
      payments.refund({ paymentIntentId: declined.paymentIntentId, idempotencyKey: 'refund:4' }),
    ).rejects.toBeInstanceOf(PaymentRejectedError);
  });
});

describe('sandbox webhooks', () => {
  const now = 1_760_000_000;
  const payload = Buffer.from(
    JSON.stringify(
      {
        id: 'evt_sandbox_1',
        type: 'payment_intent.succeeded',
        created: now,
        data: { object: { id: 'pi_sandbox_s_1', object: 'payment_intent' } },
      },
      null,
      2,
    ),
  );
  const payments = createSandboxPayments({ webhookSecret: 'whsec_test' });

  it('round-trips a signed event', () => {
    expect(payments.verifyWebhook(payload, signSandboxWebhook(payload, 'whsec_test', now), now)).toEqual({
      id: 'evt_sandbox_1',
      type: 'payment_intent.succeeded',
      created: now,
      data: { object: { id: 'pi_sandbox_s_1', object: 'payment_intent' } },
    });
    // The default secret, and the real clock.
    const byDefault = createSandboxPayments();
    expect(byDefault.verifyWebhook(payload, signSandboxWebhook(payload, SANDBOX_WEBHOOK_SECRET)).id).toBe(
      'evt_sandbox_1',
    );
  });

  it('refuses tampered, wrongly signed, stale and re-serialised deliveries', () => {
    const header = signSandboxWebhook(payload, 'whsec_test', now);
    const refused =
      (body: Buffer, signature: string, at = now) =>
      () =>
        payments.verifyWebhook(body, signature, at);
    expect(refused(Buffer.from(payload.toString().replace('succeeded', 'canceled')), header)).toThrow(
      PaymentWebhookSignatureError,
    );
    expect(refused(payload, signSandboxWebhook(payload, 'whsec_other', now))).toThrow(
      PaymentWebhookSignatureError,
    );
    expect(refused(payload, 't=1760000000,v1=00')).toThrow(PaymentWebhookSignatureError);
    expect(refused(payload, 'garbage')).toThrow(PaymentWebhookSignatureError);
    expect(refused(Buffer.from(JSON.stringify(JSON.parse(payload.toString()))), header)).toThrow(
      PaymentWebhookSignatureError,
    );
    expect(
      payments.verifyWebhook(payload, signSandboxWebhook(payload, 'whsec_test', now - 299), now).id,
    ).toBe('evt_sandbox_1');
    expect(refused(payload, signSandboxWebhook(payload, 'whsec_test', now - 301))).toThrow(
      PaymentWebhookSignatureError,
    );
    // A signed body that is not an event.
    const notEvent = Buffer.from('{"hello":1}');
    expect(refused(notEvent, signSandboxWebhook(notEvent, 'whsec_test', now))).toThrow(
      PaymentWebhookSignatureError,
    );
  });

  it('accepts any matching v1 among several (secret rotation)', () => {
    const rotated = `${signSandboxWebhook(payload, 'whsec_old', now)},v1=${signSandboxWebhook(payload, 'whsec_test', now).split('v1=')[1]}`;
    expect(payments.verifyWebhook(payload, rotated, now).id).toBe('evt_sandbox_1');
  });
});
