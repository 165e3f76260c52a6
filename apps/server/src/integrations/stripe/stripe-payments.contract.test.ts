import Stripe from 'stripe';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  PaymentAuthError,
  PaymentRejectedError,
  PaymentUnavailableError,
  PaymentWebhookSignatureError,
  type ChargeRequest,
  type PaymentProvider,
} from '../../modules/payments/payment-provider.ts';
import { signSandboxWebhook } from '../sandbox-payments/sandbox-payments.ts';
import {
  loadFixtures,
  loadStripeApi,
  paymentIntentFrom,
  retrievedPaymentIntent,
  startStripeFake,
  type FakeRequest,
  type StripeFake,
} from './stripe-fake.ts';
import { STRIPE_API_VERSION, createStripePayments } from './stripe-payments.ts';

/**
 * Contract tests: every request the Stripe provider sends (through the official SDK) goes to a fake
 * that validates it against Stripe's own OpenAPI file (shared/contracts/stripe/spec3.yaml, API
 * 2023-08-16) and answers Stripe's own fixtures (fixtures3.json), changed the way Stripe documents
 * for declines, authentication and failures. After each test: no request failed validation, every
 * POST carried an Idempotency-Key, every request asked for the pinned API version.
 */

const SECRET_KEY = 'sk_test_layerline_contract';
const WEBHOOK_SECRET = 'whsec_layerline_contract';

type Json = Record<string, any>;

let fake: StripeFake;
let fixtures: Record<string, Json>;
let payments: PaymentProvider;
/** Set by a test that sends invalid requests on purpose. */
let expectInvalid = false;

beforeAll(async () => {
  const api = await loadStripeApi();
  fixtures = loadFixtures();
  fake = await startStripeFake(api, fixtures);
  payments = createStripePayments({
    secretKey: SECRET_KEY,
    webhookSecret: WEBHOOK_SECRET,
    host: fake.host,
    port: fake.port,
    protocol: 'http',
  });
}, 60_000);

afterAll(async () => {
  await fake?.close();
});

beforeEach(() => {
  fake.requests.length = 0;
  fake.answer(undefined);
  expectInvalid = false;
});

afterEach(() => {
  if (expectInvalid) return;
  for (const request of fake.requests) {
    const call = `${request.method} ${request.path}`;
    expect({ call, errors: request.errors }).toEqual({ call, errors: [] });
    expect(request.operationId, call).not.toBeNull();
    expect(request.headers['stripe-version'], call).toBe(STRIPE_API_VERSION);
    expect(request.headers.authorization, call).toBe(`Bearer ${SECRET_KEY}`);
    if (request.method === 'POST') expect(request.headers['idempotency-key'], call).toMatch(/^.{1,255}$/);
  }
});

const posts = (operationId: string): FakeRequest[] =>
  fake.requests.filter((request) => request.operationId === operationId);

const charge: ChargeRequest = {
  customerId: 'cus_Oaxlz8kB0PJWGa',
  paymentMethodId: 'pm_1NnmX6GPxmnHQRkJM0z8tUaS',
  amountCents: 2350,
  currency: 'USD',
  idempotencyKey: 'order:ord_123:charge:1',
  metadata: { orderId: 'ord_123', attempt: 1 },
  description: 'Layerline order LL-1001',
};

/** Stripe's 402 for a card error on confirm: the error names the PaymentIntent it left behind. */
const cardError = (request: FakeRequest, code: string, declineCode: string, message: string) => {
  const paymentIntent = paymentIntentFrom(fixtures, request.body, 'requires_payment_method');
  paymentIntent.last_payment_error = {
    type: 'card_error',
    code,
    decline_code: declineCode,
    message,
    doc_url: `https://stripe.com/docs/error-codes/${code}`,
    payment_method: { ...fixtures.payment_method, id: request.body.payment_method },
  };
  return {
    status: 402,
    body: {
      error: {
        type: 'card_error',
        code,
        decline_code: declineCode,
        message,
        doc_url: `https://stripe.com/docs/error-codes/${code}`,
        payment_intent: paymentIntent,
        payment_method: { ...fixtures.payment_method, id: request.body.payment_method },
      },
    },
  };
};

describe('the card on file', () => {
  it('creates a customer per seller, with the seller on its metadata', async () => {
    const { customerId } = await payments.createCustomer({
      sellerId: 'usr_42',
      email: 'maker@example.com',
      name: 'Ada Maker',
    });
    expect(customerId).toMatch(/^cus_/);
    const [request] = posts('PostCustomers');
    expect(request?.body).toEqual({
      email: 'maker@example.com',
      name: 'Ada Maker',
      metadata: { seller_id: 'usr_42' },
    });
    expect(request?.headers['idempotency-key']).toMatch(/^seller:usr_42:customer:[0-9a-f]{32}$/);
  });

  it('creates an off-session SetupIntent with the caller’s idempotency key', async () => {
    const result = await payments.createSetupIntent({
      customerId: 'cus_Oaxlz8kB0PJWGa',
      idempotencyKey: 'seller:usr_42:setup:7',
    });
    expect(result.setupIntentId).toMatch(/^seti_/);
    expect(result.clientSecret).toMatch(/^seti_.+_secret_/);
    const [request] = posts('PostSetupIntents');
    expect(request?.body).toMatchObject({ customer: 'cus_Oaxlz8kB0PJWGa', usage: 'off_session' });
    expect(request?.headers['idempotency-key']).toBe('seller:usr_42:setup:7');
  });

  it('attaches the card and makes it the default for invoices and off-session charges', async () => {
    const card = await payments.attachDefaultPaymentMethod({
      customerId: 'cus_Oaxlz8kB0PJWGa',
      paymentMethodId: 'pm_1NnmX6GPxmnHQRkJM0z8tUaS',
    });
    // fixtures3.json's payment_method is a visa ending 4242, expiring 8/2024.
    expect(card).toEqual({
      paymentMethodId: 'pm_1NnmX6GPxmnHQRkJM0z8tUaS',
      brand: 'visa',
      last4: '4242',
      expMonth: 8,
      expYear: 2024,
    });
    expect(fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'POST /v1/payment_methods/pm_1NnmX6GPxmnHQRkJM0z8tUaS/attach',
      'POST /v1/customers/cus_Oaxlz8kB0PJWGa',
    ]);
    expect(fake.requests[0]?.body).toEqual({ customer: 'cus_Oaxlz8kB0PJWGa' });
    expect(fake.requests[1]?.body).toEqual({
      invoice_settings: { default_payment_method: 'pm_1NnmX6GPxmnHQRkJM0z8tUaS' },
    });
  });

  it('a card Stripe refuses to attach is a rejected request', async () => {
    fake.answer((request) =>
      request.operationId === 'PostPaymentMethodsPaymentMethodAttach'
        ? {
            status: 402,
            body: {
              error: {
                type: 'card_error',
                code: 'card_declined',
                decline_code: 'generic_decline',
                message: 'Your card was declined.',
              },
            },
          }
        : undefined,
    );
    const error = await payments
      .attachDefaultPaymentMethod({ customerId: 'cus_1', paymentMethodId: 'pm_1' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentRejectedError);
    expect((error as PaymentRejectedError).message).toContain('Your card was declined.');
    expect(fake.requests).toHaveLength(1);
  });
});

describe('charging an order', () => {
  it('charges off-session once, with the order on its metadata', async () => {
    const result = await payments.chargeOffSession(charge);
    expect(result).toEqual({
      paymentIntentId: expect.stringMatching(/^pi_/),
      status: 'succeeded',
      declineReason: null,
      nextActionUrl: null,
      clientSecret: expect.stringMatching(/_secret_/) as unknown,
    });
    const [request] = posts('PostPaymentIntents');
    expect(fake.requests).toHaveLength(1);
    expect(request?.headers['idempotency-key']).toBe('order:ord_123:charge:1');
    expect(request?.body).toEqual({
      amount: '2350',
      currency: 'usd',
      customer: 'cus_Oaxlz8kB0PJWGa',
      payment_method: 'pm_1NnmX6GPxmnHQRkJM0z8tUaS',
      payment_method_types: ['card'],
      off_session: 'true',
      confirm: 'true',
      description: 'Layerline order LL-1001',
      metadata: { order_id: 'ord_123', attempt: '1' },
    });
  });

  it.each([
    ['card_declined', 'generic_decline', 'Your card was declined.'],
    ['card_declined', 'insufficient_funds', 'Your card has insufficient funds.'],
  ])(
    'a decline (%s / %s) is a result with Stripe’s words, not retried',
    async (code, declineCode, message) => {
      fake.answer((request) =>
        request.operationId === 'PostPaymentIntents'
          ? cardError(request, code, declineCode, message)
          : undefined,
      );
      const result = await payments.chargeOffSession(charge);
      expect(result).toEqual({
        paymentIntentId: expect.stringMatching(/^pi_/),
        status: 'requires_payment_method',
        declineReason: message,
        nextActionUrl: null,
        clientSecret: expect.stringMatching(/_secret_/) as unknown,
      });
      expect(fake.requests).toHaveLength(1);
    },
  );

  it('authentication_required off-session is requires_action (no URL: the seller is sent a link)', async () => {
    fake.answer((request) =>
      request.operationId === 'PostPaymentIntents'
        ? cardError(
            request,
            'authentication_required',
            'authentication_required',
            'Your card was declined. This transaction requires authentication.',
          )
        : undefined,
    );
    const result = await payments.chargeOffSession(charge);
    expect(result).toEqual({
      paymentIntentId: expect.stringMatching(/^pi_/),
      status: 'requires_action',
      declineReason: 'Your card was declined. This transaction requires authentication.',
      nextActionUrl: null,
      clientSecret: expect.stringMatching(/_secret_/) as unknown,
    });
    expect(fake.requests).toHaveLength(1);
  });

  it('a PaymentIntent left in requires_action answers Stripe’s redirect URL', async () => {
    fake.answer((request) => {
      if (request.operationId !== 'PostPaymentIntents') return undefined;
      const paymentIntent = paymentIntentFrom(fixtures, request.body, 'requires_action');
      paymentIntent.next_action = {
        type: 'redirect_to_url',
        redirect_to_url: { url: 'https://hooks.stripe.com/3d_secure_2/hosted/abc', return_url: null },
      };
      return { status: 200, body: paymentIntent };
    });
    const result = await payments.chargeOffSession(charge);
    expect(result.status).toBe('requires_action');
    expect(result.nextActionUrl).toBe('https://hooks.stripe.com/3d_secure_2/hosted/abc');
  });

  it('processing is reported as processing (wait for the webhook)', async () => {
    fake.answer((request) =>
      request.operationId === 'PostPaymentIntents'
        ? { status: 200, body: paymentIntentFrom(fixtures, request.body, 'processing') }
        : undefined,
    );
    expect((await payments.chargeOffSession(charge)).status).toBe('processing');
  });

  it('reads a PaymentIntent back, an off-session authentication failure included', async () => {
    expect(await payments.getPaymentIntent('pi_1NnlpVGPxmnHQRkJNuz3w9tH')).toEqual({
      paymentIntentId: 'pi_1NnlpVGPxmnHQRkJNuz3w9tH',
      status: 'succeeded',
      declineReason: null,
      nextActionUrl: null,
      clientSecret: expect.stringMatching(/_secret_/) as unknown,
    });
    fake.answer((request) => {
      if (request.operationId !== 'GetPaymentIntentsIntent') return undefined;
      const paymentIntent: Json = { ...fixtures.payment_intent, id: request.path.split('/')[3] };
      paymentIntent.last_payment_error = {
        type: 'card_error',
        code: 'authentication_required',
        decline_code: 'authentication_required',
        message: 'Your card was declined. This transaction requires authentication.',
      };
      return { status: 200, body: paymentIntent };
    });
    expect((await payments.getPaymentIntent('pi_1NnlpVGPxmnHQRkJNuz3w9tH')).status).toBe('requires_action');
    expect(fake.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /v1/payment_intents/pi_1NnlpVGPxmnHQRkJNuz3w9tH',
      'GET /v1/payment_intents/pi_1NnlpVGPxmnHQRkJNuz3w9tH',
    ]);
  });

  it('reads the refunded total from the latest charge, expanded in the same request (a dashboard refund included)', async () => {
    expect(await payments.getRefundedAmount('pi_1NnlpVGPxmnHQRkJNuz3w9tH')).toBe(0);
    fake.answer((request) => {
      if (request.operationId !== 'GetPaymentIntentsIntent') return undefined;
      const paymentIntent = paymentIntentFrom(fixtures, { amount: '2350', currency: 'usd' }, 'succeeded');
      return { status: 200, body: retrievedPaymentIntent(fixtures, request, paymentIntent, 700) };
    });
    expect(await payments.getRefundedAmount('pi_1NnlpVGPxmnHQRkJNuz3w9tH')).toBe(700);
    // A PaymentIntent that never made a charge has nothing refunded.
    fake.answer((request) =>
      request.operationId === 'GetPaymentIntentsIntent'
        ? {
            status: 200,
            body: paymentIntentFrom(fixtures, { amount: '2350', currency: 'usd' }, 'requires_payment_method'),
          }
        : undefined,
    );
    expect(await payments.getRefundedAmount('pi_1NnlpVGPxmnHQRkJNuz3w9tH')).toBe(0);
    expect(fake.requests.map((request) => [request.operationId, request.query])).toEqual(
      Array.from({ length: 3 }, () => ['GetPaymentIntentsIntent', { expand: ['latest_charge'] }]),
    );
  });

  it('finds the charge of an order and attempt by metadata search (a process that died after Stripe answered)', async () => {
    expect(await payments.findPaymentIntent({ orderId: 'ord_123', attempt: 2 })).toBeNull();
    expect(fake.requests[0]?.operationId).toBe('GetPaymentIntentsSearch');
    expect(fake.requests[0]?.query.query).toBe("metadata['order_id']:'ord_123' AND metadata['attempt']:'2'");

    fake.answer((request) => {
      if (request.operationId !== 'GetPaymentIntentsSearch') return undefined;
      const found = paymentIntentFrom(
        fixtures,
        { amount: '2350', currency: 'usd', metadata: { order_id: "o'1", attempt: '1' } },
        'succeeded',
      );
      return {
        status: 200,
        body: {
          object: 'search_result',
          data: [found],
          has_more: false,
          next_page: null,
          url: '/v1/payment_intents/search',
        },
      };
    });
    const found = await payments.findPaymentIntent({ orderId: "o'1", attempt: 1 });
    expect(found?.status).toBe('succeeded');
    expect(fake.requests[1]?.query.query).toBe("metadata['order_id']:'o\\'1' AND metadata['attempt']:'1'");
  });

  it('refunds all or part of a charge with the caller’s key', async () => {
    expect(
      await payments.refund({ paymentIntentId: 'pi_1', idempotencyKey: 'order:ord_123:refund:1' }),
    ).toEqual({
      refundId: expect.stringMatching(/^re_/),
      status: 'succeeded',
    });
    await payments.refund({
      paymentIntentId: 'pi_1',
      amountCents: 500,
      idempotencyKey: 'order:ord_123:refund:2',
    });
    const requests = posts('PostRefunds');
    expect(requests.map((request) => request.body)).toEqual([
      { payment_intent: 'pi_1' },
      { payment_intent: 'pi_1', amount: '500' },
    ]);
    expect(requests.map((request) => request.headers['idempotency-key'])).toEqual([
      'order:ord_123:refund:1',
      'order:ord_123:refund:2',
    ]);
  });
});

describe('failures', () => {
  it('401 is PaymentAuthError, not retried', async () => {
    fake.answer(() => ({
      status: 401,
      body: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****' } },
    }));
    await expect(payments.chargeOffSession(charge)).rejects.toBeInstanceOf(PaymentAuthError);
    expect(fake.requests).toHaveLength(1);
  });

  it.each([
    [500, {}],
    [503, {}],
    [409, {}],
    [429, { 'stripe-should-retry': 'true' }],
  ])('%i is retried twice with the same key, then PaymentUnavailableError', async (status, headers) => {
    fake.answer(() => ({
      status,
      headers,
      body: {
        error: { type: status === 429 ? 'rate_limit_error' : 'api_error', message: `status ${status}` },
      },
    }));
    await expect(payments.chargeOffSession(charge)).rejects.toBeInstanceOf(PaymentUnavailableError);
    expect(fake.requests).toHaveLength(3);
    expect(new Set(fake.requests.map((request) => request.headers['idempotency-key']))).toEqual(
      new Set(['order:ord_123:charge:1']),
    );
  });

  it('429 without Stripe-Should-Retry is left to the caller, with Retry-After', async () => {
    fake.answer(() => ({
      status: 429,
      headers: { 'retry-after': '7' },
      body: { error: { type: 'rate_limit_error', message: 'Too many requests' } },
    }));
    const error = await payments.chargeOffSession(charge).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentUnavailableError);
    expect((error as PaymentUnavailableError).retryAfterSeconds).toBe(7);
    expect(fake.requests).toHaveLength(1);
  });

  it('a 500 followed by success is one charge under one key', async () => {
    let calls = 0;
    fake.answer((request) =>
      request.operationId === 'PostPaymentIntents' && ++calls === 1
        ? { status: 500, body: { error: { type: 'api_error', message: 'boom' } } }
        : undefined,
    );
    expect((await payments.chargeOffSession(charge)).status).toBe('succeeded');
    expect(fake.requests.map((request) => request.headers['idempotency-key'])).toEqual([
      'order:ord_123:charge:1',
      'order:ord_123:charge:1',
    ]);
  });

  it('a dropped connection is retried, then PaymentUnavailableError', async () => {
    fake.answer(() => 'drop');
    await expect(payments.chargeOffSession(charge)).rejects.toBeInstanceOf(PaymentUnavailableError);
    expect(fake.requests).toHaveLength(3);
  });

  it('400s are PaymentRejectedError with Stripe’s code, not retried', async () => {
    fake.answer(() => ({
      status: 400,
      body: {
        error: {
          type: 'idempotency_error',
          message:
            'Keys for idempotent requests can only be used with the same parameters they were first used with.',
        },
      },
    }));
    const error = await payments.chargeOffSession(charge).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaymentRejectedError);
    expect((error as PaymentRejectedError).status).toBe(400);
    expect(fake.requests).toHaveLength(1);

    fake.answer(() => ({
      status: 404,
      body: {
        error: {
          type: 'invalid_request_error',
          code: 'resource_missing',
          message: "No such payment_intent: 'pi_x'",
        },
      },
    }));
    const missing = await payments.getPaymentIntent('pi_x').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(PaymentRejectedError);
    expect((missing as PaymentRejectedError).code).toBe('resource_missing');
  });

  it('an idempotency key over 255 characters is refused before anything is sent', async () => {
    await expect(
      payments.chargeOffSession({ ...charge, idempotencyKey: 'k'.repeat(256) }),
    ).rejects.toBeInstanceOf(PaymentRejectedError);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('the fake holds requests to the spec', () => {
  it('rejects a field Stripe does not know and a wrong type', async () => {
    expectInvalid = true;
    const stripe = new Stripe(SECRET_KEY, {
      apiVersion: STRIPE_API_VERSION,
      host: fake.host,
      port: fake.port,
      protocol: 'http',
      maxNetworkRetries: 0,
    });
    await expect(
      stripe.paymentIntents.create({
        amount: 100,
        currency: 'usd',
        amount_in_dollars: 1,
      } as unknown as Stripe.PaymentIntentCreateParams),
    ).rejects.toThrow(/additional properties/);
    await expect(
      stripe.paymentIntents.create({
        amount: 'ten',
        currency: 'usd',
      } as unknown as Stripe.PaymentIntentCreateParams),
    ).rejects.toThrow(/amount/);
    await expect(
      stripe.refunds.create({
        payment_intent: 'pi_1',
        reason: 'because',
      } as unknown as Stripe.RefundCreateParams),
    ).rejects.toThrow(/reason/);
    // A query parameter the spec requires, missing (search without `query`).
    await expect(
      stripe.paymentIntents.search({ limit: 1 } as unknown as Stripe.PaymentIntentSearchParams),
    ).rejects.toThrow(/query/);
    expect(fake.requests.map((request) => request.errors.length > 0)).toEqual([true, true, true, true]);
  });
});

describe('webhooks', () => {
  const now = 1_760_000_000;
  /** Stripe sends events pretty-printed; a parse and re-serialisation changes the bytes. */
  const body = () => {
    const paymentIntent = {
      ...fixtures.payment_intent,
      status: 'succeeded',
      metadata: { order_id: 'ord_123', attempt: '1' },
    };
    return Buffer.from(
      JSON.stringify(
        {
          ...fixtures.event,
          id: 'evt_1',
          type: 'payment_intent.succeeded',
          created: now - 5,
          data: { object: paymentIntent },
        },
        null,
        2,
      ),
    );
  };
  /** Signed by the SDK's own helper, as Stripe signs. */
  const sign = (payload: Buffer, timestamp: number, secret = WEBHOOK_SECRET) =>
    new Stripe(SECRET_KEY, { apiVersion: STRIPE_API_VERSION }).webhooks.generateTestHeaderString({
      payload: payload.toString('utf8'),
      secret,
      timestamp,
    });

  it('verifies a fresh event and answers it parsed', () => {
    const payload = body();
    const event = payments.verifyWebhook(payload, sign(payload, now), now);
    expect(event).toMatchObject({ id: 'evt_1', type: 'payment_intent.succeeded', created: now - 5 });
    expect(event.data.object).toMatchObject({ object: 'payment_intent', status: 'succeeded' });
    // The real clock too: signed just now.
    expect(payments.verifyWebhook(payload, sign(payload, Math.floor(Date.now() / 1000))).id).toBe('evt_1');
  });

  it('refuses a tampered body, a wrong secret, a garbage header', () => {
    const payload = body();
    const header = sign(payload, now);
    const tampered = Buffer.from(payload.toString('utf8').replace('"succeeded"', '"canceled"'));
    expect(() => payments.verifyWebhook(tampered, header, now)).toThrow(PaymentWebhookSignatureError);
    expect(() => payments.verifyWebhook(payload, sign(payload, now, 'whsec_someone_else'), now)).toThrow(
      PaymentWebhookSignatureError,
    );
    expect(() => payments.verifyWebhook(payload, 'not a signature', now)).toThrow(
      PaymentWebhookSignatureError,
    );
    expect(() => payments.verifyWebhook(payload, '', now)).toThrow(PaymentWebhookSignatureError);
  });

  it('accepts 299 s old, refuses 301 s and an hour old (300 s tolerance)', () => {
    const payload = body();
    expect(payments.verifyWebhook(payload, sign(payload, now - 299), now).id).toBe('evt_1');
    expect(payments.verifyWebhook(payload, sign(payload, now - 300), now).id).toBe('evt_1');
    expect(() => payments.verifyWebhook(payload, sign(payload, now - 301), now)).toThrow(
      PaymentWebhookSignatureError,
    );
    expect(() => payments.verifyWebhook(payload, sign(payload, now - 3600), now)).toThrow(
      PaymentWebhookSignatureError,
    );
  });

  it('refuses a parsed-then-reserialised body (the raw bytes are what is verified)', () => {
    const payload = body();
    const header = sign(payload, now);
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(payload.toString('utf8'))));
    expect(reserialised.equals(payload)).toBe(false);
    expect(() => payments.verifyWebhook(reserialised, header, now)).toThrow(PaymentWebhookSignatureError);
  });

  it('the sandbox signs webhooks the way Stripe does', () => {
    const payload = body();
    expect(payments.verifyWebhook(payload, signSandboxWebhook(payload, WEBHOOK_SECRET, now), now).id).toBe(
      'evt_1',
    );
  });
});
