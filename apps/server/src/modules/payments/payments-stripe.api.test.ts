import { randomUUID } from 'node:crypto';
import { count, eq } from 'drizzle-orm';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uploadDesign, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { boxStl } from '../../../test/hostile-models.ts';
import { charge, printJob } from '../../db/schema.ts';
import {
  loadFixtures,
  loadStripeApi,
  paymentIntentFrom,
  startStripeFake,
  type FakeRequest,
  type StripeFake,
} from '../../integrations/stripe/stripe-fake.ts';

/**
 * Payments on Stripe (issue 13): the real server with the Stripe adapter pointed at a fake Stripe
 * that validates every request against Stripe's own OpenAPI document (../shared/contracts/stripe/
 * spec3.yaml, API version 2023-08-16) and answers Stripe's own sample objects, remembering
 * PaymentIntents by idempotency key as Stripe does. A charge whose answer is lost (the process "dies"
 * after Stripe charged) is found and recorded by the recovery sweep without a second PaymentIntent;
 * Stripe-signed webhooks are verified, a replay older than 300 s refused.
 * Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */

const ADDRESS = {
  name: 'Ada Buyer',
  line1: '1 Main St',
  city: 'Springfield',
  region: 'IL',
  postalCode: '62704',
  country: 'US',
};
const WEBHOOK_SECRET = 'whsec_test_layerline_payments';

let t: TestApp;
let fake: StripeFake;
let seller: SignedInClient;
/** PaymentIntents the fake made, by idempotency key (Stripe's 24 h memory of keys). */
const intents = new Map<string, Record<string, unknown>>();
/** Lose the answer to charges (Stripe charged; the answer never reached us). */
let dropCharges = false;

/** Stripe's own SDK signs test webhooks the way Stripe does. */
const webhooks = new Stripe('sk_test_signing_only', { apiVersion: '2023-08-16' }).webhooks;
const stripeSigned = (payload: string, timestamp?: number, secret = WEBHOOK_SECRET) =>
  webhooks.generateTestHeaderString({ payload, secret, ...(timestamp ? { timestamp } : {}) });
const chargesOf = async (orderId: string) =>
  (await seller.get(`/api/payments/charges?orderId=${orderId}`)).body.items as any[];
const jobsOf = async (orderId: string) =>
  (await t.context.db.select({ n: count() }).from(printJob).where(eq(printJob.orderId, orderId)))[0]!.n;

async function placeOrder(): Promise<string> {
  const created = await seller.post('/api/orders/manual', {
    items: [{ sku: 'BOX', quantity: 1 }],
    shippingAddress: ADDRESS,
  });
  expect(created.status).toBe(201);
  await t.context.orders.announcementsSettled();
  return created.body.id as string;
}

beforeAll(async () => {
  const fixtures = loadFixtures();
  fake = await startStripeFake(await loadStripeApi(), fixtures);
  fake.answer((request: FakeRequest) => {
    const key = request.headers['idempotency-key'];
    if (request.operationId === 'PostPaymentIntents' && typeof key === 'string') {
      const intent = intents.get(key) ?? paymentIntentFrom(fixtures, request.body, 'succeeded');
      intents.set(key, intent);
      return dropCharges ? 'drop' : { status: 200, body: intent };
    }
    if (request.operationId === 'GetPaymentIntentsIntent') {
      const found = [...intents.values()].find((intent) => intent.id === request.path.split('/')[3]);
      return found ? { status: 200, body: found } : undefined;
    }
    return undefined;
  });
  t = await startTestApp({
    PAYMENTS_CHARGE_ORDERS: 'true',
    STRIPE_SECRET_KEY: 'sk_test_layerline',
    STRIPE_PUBLISHABLE_KEY: 'pk_test_layerline',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_URL: `http://${fake.host}:${fake.port}`,
    FARM_AUTOPILOT: 'false',
    FARM_TICK_S: '300',
  });
  seller = await t.signUp({ role: 'beta' });
  const design = await uploadDesign(seller, boxStl(20, 20, 20), 'box.stl');
  const product = await seller.post('/api/products', {
    name: 'Box',
    variants: [
      { name: 'Box', sku: 'BOX', parts: [{ printConfigId: design.printConfigs[0].id, quantity: 1 }] },
    ],
  });
  expect(product.status).toBe(201);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await fake?.close();
});

describe('payments on Stripe', () => {
  it('collects a card with Stripe Elements’ setup intent and charges an order once, every request valid against Stripe’s spec', async () => {
    const setup = await seller.post('/api/payments/setup-intent');
    expect(setup.status).toBe(200);
    expect(setup.body).toMatchObject({
      provider: 'stripe',
      publishableKey: 'pk_test_layerline',
      testMode: true,
    });
    expect(setup.body.clientSecret).toMatch(/_secret_/);
    // Test mode on Stripe: no sandbox card form.
    expect(
      (
        await seller.post('/api/payments/sandbox/payment-methods', {
          cardNumber: '4242424242424242',
          expMonth: 12,
          expYear: 2034,
          cvc: '123',
        })
      ).status,
    ).toBe(404);
    const stored = await seller.post('/api/payments/default-payment-method', {
      paymentMethodId: 'pm_card_visa',
    });
    expect(stored.status).toBe(200);
    expect(stored.body.last4).toMatch(/^\d{4}$/);

    const orderId = await placeOrder();
    const [paid] = await chargesOf(orderId);
    expect(paid).toMatchObject({ status: 'succeeded', provider: 'stripe', attempt: 1 });
    expect(await jobsOf(orderId)).toBe(1);
    const created = fake.requests.filter((r) => r.operationId === 'PostPaymentIntents');
    expect(created).toHaveLength(1);
    expect(created[0]!.body).toMatchObject({
      off_session: 'true',
      confirm: 'true',
      amount: String(paid.amountCents),
      metadata: { order_id: orderId, attempt: '1' },
    });
    expect(created[0]!.headers['idempotency-key']).toContain(`order:${orderId}:charge:1`);
    expect(fake.requests.flatMap((r) => r.errors)).toEqual([]);
  });

  it('a charge whose answer was lost after Stripe charged is found and recorded by the sweep, never charged again', async () => {
    dropCharges = true;
    const orderId = await placeOrder();
    const [pending] = await chargesOf(orderId);
    // The process asked and heard nothing: the row is pending and nothing prints.
    expect(pending).toMatchObject({ status: 'pending', attempt: 1 });
    expect(await jobsOf(orderId)).toBe(0);
    const keys = new Set(
      fake.requests
        .filter((r) => r.operationId === 'PostPaymentIntents')
        .map((r) => r.headers['idempotency-key']),
    );
    const intentsBefore = intents.size;

    // What the next process's sweep does (here with no wait): ask again with the same key and parameters.
    dropCharges = false;
    const recovered = await t.context.payments.recover(0);
    expect(recovered.charges).toBe(1);
    const [paid] = await chargesOf(orderId);
    expect(paid).toMatchObject({ id: pending.id, status: 'succeeded' });
    expect(intents.size).toBe(intentsBefore);
    expect(keys.size).toBe(2);
    await t.context.orders.announcementsSettled();
    expect(await jobsOf(orderId)).toBe(1);
    // The sweep again: nothing left to do.
    expect((await t.context.payments.recover(0)).charges).toBe(0);
    const [rows] = await t.context.db.select({ n: count() }).from(charge).where(eq(charge.orderId, orderId));
    expect(rows!.n).toBe(1);
    expect(fake.requests.flatMap((r) => r.errors)).toEqual([]);
  }, 60_000);

  it('verifies Stripe’s signature on webhooks; a replay older than 300 s and a forgery are refused', async () => {
    const payload = JSON.stringify({
      id: `evt_${randomUUID().replace(/-/g, '')}`,
      object: 'event',
      type: 'payment_intent.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: 'pi_unknown', object: 'payment_intent' } },
    });
    const post = (signature: string) =>
      fetch(new URL('/api/payments/webhook', t.baseUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
        body: payload,
      });
    expect((await post(stripeSigned(payload))).status).toBe(200);
    expect((await post(stripeSigned(payload, Math.floor(Date.now() / 1000) - 301))).status).toBe(401);
    expect((await post(stripeSigned(payload, undefined, 'whsec_forged'))).status).toBe(401);
  });
});
