import { randomUUID } from 'node:crypto';
import { count, eq } from 'drizzle-orm';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uploadDesign, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { boxStl } from '../../../test/hostile-models.ts';
import { charge, printJob, refund } from '../../db/schema.ts';
import { createPaymentRepository } from './payment-repository.ts';
import {
  loadFixtures,
  loadStripeApi,
  paymentIntentFrom,
  retrievedPaymentIntent,
  startStripeFake,
  type FakeRequest,
  type StripeFake,
} from '../../integrations/stripe/stripe-fake.ts';

/**
 * Payments on Stripe (issue 13): the real server with the Stripe adapter pointed at a fake Stripe
 * that validates every request against Stripe's own OpenAPI document (../shared/contracts/stripe/
 * spec3.yaml, API version 2023-08-16) and answers Stripe's own sample objects, remembering
 * PaymentIntents and refunds by idempotency key as Stripe does, and each charge's refunded total. A
 * charge whose answer is lost (the process "dies" after Stripe charged) is found and recorded by the
 * recovery sweep without a second PaymentIntent; Stripe-signed webhooks are verified, a replay older
 * than 300 s refused; refunds made in Stripe's dashboard are mirrored from `charge.refunded` /
 * `charge.refund.updated` (the total read back from Stripe), once, with the affiliate's reversal.
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
let fixtures: Record<string, Record<string, any>>;
let seller: SignedInClient;
/** PaymentIntents the fake made, by idempotency key (Stripe's 24 h memory of keys). */
const intents = new Map<string, Record<string, any>>();
/** Refunds the fake made, by idempotency key. */
const refunds = new Map<string, Record<string, any>>();
/** Each PaymentIntent's charge's `amount_refunded`: refunds by the API and in the dashboard. */
const refundedOnStripe = new Map<string, number>();
/** Lose the answer to charges (Stripe charged; the answer never reached us). */
let dropCharges = false;
/** Lose the answer to refunds (Stripe refunded; the answer never reached us). */
let dropRefunds = false;

/** Stripe's own SDK signs test webhooks the way Stripe does. */
const webhooks = new Stripe('sk_test_signing_only', { apiVersion: '2023-08-16' }).webhooks;
const stripeSigned = (payload: string, timestamp?: number, secret = WEBHOOK_SECRET) =>
  webhooks.generateTestHeaderString({ payload, secret, ...(timestamp ? { timestamp } : {}) });
const chargesOf = async (orderId: string) =>
  (await seller.get(`/api/payments/charges?orderId=${orderId}`)).body.items as any[];
const jobsOf = async (orderId: string) =>
  (await t.context.db.select({ n: count() }).from(printJob).where(eq(printJob.orderId, orderId)))[0]!.n;

async function placeOrder(client = seller): Promise<string> {
  const created = await client.post('/api/orders/manual', {
    items: [{ sku: 'BOX', quantity: 1 }],
    shippingAddress: ADDRESS,
  });
  expect(created.status).toBe(201);
  await t.context.orders.announcementsSettled();
  return created.body.id as string;
}

async function addBoxProduct(client: SignedInClient): Promise<void> {
  const design = await uploadDesign(client, boxStl(20, 20, 20), 'box.stl');
  const product = await client.post('/api/products', {
    name: 'Box',
    variants: [
      { name: 'Box', sku: 'BOX', parts: [{ printConfigId: design.printConfigs[0].id, quantity: 1 }] },
    ],
  });
  expect(product.status).toBe(201);
}

const intentById = (id: unknown) => [...intents.values()].find((intent) => intent.id === id);

beforeAll(async () => {
  fixtures = loadFixtures();
  fake = await startStripeFake(await loadStripeApi(), fixtures);
  fake.answer((request: FakeRequest) => {
    const key = request.headers['idempotency-key'];
    if (request.operationId === 'PostPaymentIntents' && typeof key === 'string') {
      const intent = intents.get(key) ?? paymentIntentFrom(fixtures, request.body, 'succeeded');
      intents.set(key, intent);
      return dropCharges ? 'drop' : { status: 200, body: intent };
    }
    if (request.operationId === 'GetPaymentIntentsIntent') {
      const found = intentById(request.path.split('/')[3]);
      return found
        ? {
            status: 200,
            body: retrievedPaymentIntent(fixtures, request, found, refundedOnStripe.get(found.id) ?? 0),
          }
        : undefined;
    }
    if (request.operationId === 'PostRefunds' && typeof key === 'string') {
      // Stripe: one refund per key (made even when its answer is lost), added to the charge's amount_refunded.
      let made = refunds.get(key);
      if (!made) {
        const intent = intentById(request.body.payment_intent)!;
        const before = refundedOnStripe.get(intent.id) ?? 0;
        const amount =
          request.body.amount === undefined ? intent.amount - before : Number(request.body.amount);
        refundedOnStripe.set(intent.id, before + amount);
        made = {
          ...fixtures.refund,
          id: `re_${randomUUID().replace(/-/g, '')}`,
          amount,
          charge: intent.latest_charge,
          payment_intent: intent.id,
          status: 'succeeded',
        };
        refunds.set(key, made);
      }
      return dropRefunds ? 'drop' : { status: 200, body: made };
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
  await addBoxProduct(seller);
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

  it('a wallet top-up whose answer was lost is found by the sweep and credited once, one PaymentIntent (docs/wallet.md)', async () => {
    const topper = await t.signUp({ role: 'beta' });
    expect((await topper.post('/api/payments/setup-intent')).status).toBe(200);
    expect((await topper.post('/api/payments/default-payment-method', { paymentMethodId: 'pm_card_visa' })).status).toBe(200);
    const requestId = randomUUID();
    dropCharges = true;
    const lost = await topper.post('/api/wallet/top-ups', { amountCents: 2500, requestId });
    expect(lost.status).toBe(503);
    expect((await topper.get('/api/wallet')).body.balanceCents).toBe(0);
    const intentsBefore = intents.size;
    dropCharges = false;
    expect(await t.context.wallet.recover(0)).toBe(1);
    expect(intents.size).toBe(intentsBefore);
    expect((await topper.get('/api/wallet')).body.balanceCents).toBe(2500);
    // The sweep again, and the seller's retry of the same request: nothing more.
    expect(await t.context.wallet.recover(0)).toBe(0);
    const retried = await topper.post('/api/wallet/top-ups', { amountCents: 2500, requestId });
    expect(retried.body).toMatchObject({ status: 'succeeded', receiptNumber: expect.any(Number) });
    expect((await topper.get('/api/wallet')).body.balanceCents).toBe(2500);
    const asked = fake.requests.filter((r) => r.operationId === 'PostPaymentIntents' && String(r.headers['idempotency-key']).includes(`wallet:${topper.userId}:top-up:${requestId}`));
    expect(asked.length).toBeGreaterThanOrEqual(1);
    expect(asked[0]!.body).toMatchObject({ amount: '2500', off_session: 'true', confirm: 'true' });
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

describe('refunds made in Stripe’s dashboard', () => {
  let affiliate: SignedInClient;
  let referred: SignedInClient;
  let admin: SignedInClient;
  /** The order's charge changes the payments module told other modules. */
  const changes: string[] = [];

  const stripeEvent = (type: string, object: Record<string, unknown>) =>
    JSON.stringify({
      id: `evt_${randomUUID().replace(/-/g, '')}`,
      object: 'event',
      api_version: '2023-08-16',
      type,
      created: Math.floor(Date.now() / 1000),
      data: { object },
    });
  /** Delivers a Stripe-signed event `times` times at once; every delivery is answered 200. */
  const deliver = async (payload: string, times = 1) => {
    const signature = stripeSigned(payload);
    const answers = await Promise.all(
      Array.from({ length: times }, () =>
        fetch(new URL('/api/payments/webhook', t.baseUrl), {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'stripe-signature': signature },
          body: payload,
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
  };
  /** What Stripe sends with `charge.refunded`: the charge as it was when the event was made. */
  const chargeObject = (paymentIntentId: string, amount: number, amountRefunded: number) => ({
    ...fixtures.charge,
    id: intentById(paymentIntentId)!.latest_charge,
    payment_intent: paymentIntentId,
    amount,
    amount_refunded: amountRefunded,
    refunded: amountRefunded >= amount,
  });
  /** What Stripe sends with `charge.refund.updated`: the refund. */
  const refundObject = (paymentIntentId: string, amount: number) => ({
    ...fixtures.refund,
    id: `re_${randomUUID().replace(/-/g, '')}`,
    charge: intentById(paymentIntentId)!.latest_charge,
    payment_intent: paymentIntentId,
    amount,
    status: 'succeeded',
  });

  async function chargedOrder() {
    const orderId = await placeOrder(referred);
    const [paid] = (await referred.get(`/api/payments/charges?orderId=${orderId}`)).body.items as any[];
    expect(paid).toMatchObject({ status: 'succeeded', refundedCents: 0 });
    const [row] = await t.context.db
      .select({ paymentIntentId: charge.paymentIntentId })
      .from(charge)
      .where(eq(charge.id, paid.id));
    return {
      orderId,
      chargeId: paid.id as string,
      amount: paid.amountCents as number,
      paymentIntentId: row!.paymentIntentId!,
    };
  }
  const chargeOf = async (orderId: string) =>
    ((await referred.get(`/api/payments/charges?orderId=${orderId}`)).body.items as any[])[0];
  const refundRows = (chargeId: string) =>
    t.context.db.select().from(refund).where(eq(refund.chargeId, chargeId));
  const ledgerOf = async (orderId: string) =>
    ((await affiliate.get(`/api/affiliates/${affiliate.userId}/earnings?limit=100`)).body.items as any[])
      .filter((entry) => entry.orderId === orderId)
      .map((entry) => [entry.kind, entry.amountCents]);

  beforeAll(async () => {
    affiliate = await t.signUp({ role: 'beta', name: 'Ada Affiliate' });
    const code = (await affiliate.get('/api/affiliates/me')).body.code as string;
    referred = await t.signUp({ role: 'beta', name: 'Referred Studio', extra: { affiliateRef: code } });
    admin = await t.signUp({ role: 'admin' });
    await addBoxProduct(referred);
    expect((await referred.post('/api/payments/setup-intent')).status).toBe(200);
    expect(
      (await referred.post('/api/payments/default-payment-method', { paymentMethodId: 'pm_card_visa' }))
        .status,
    ).toBe(200);
    t.context.payments.onChargeChanged(async (change) => {
      if (change.ownerId === referred.userId) changes.push(`${change.chargeId}:${change.from}->${change.to}`);
    });
  }, 120_000);

  it('a partial refund, then the rest: each mirrored once from the total Stripe reads, reversed in the affiliate’s ledger', async () => {
    const { orderId, chargeId, amount, paymentIntentId } = await chargedOrder();
    const [earning] = await ledgerOf(orderId);
    expect(earning?.[0]).toBe('earning');
    const earned = Number(earning?.[1]);
    expect(earned).toBeGreaterThan(0);
    const requestsBefore = fake.requests.length;

    // Someone refunds $3.00 in Stripe's dashboard; Stripe tells us, and retries: 10 deliveries at once.
    refundedOnStripe.set(paymentIntentId, 300);
    await deliver(stripeEvent('charge.refunded', chargeObject(paymentIntentId, amount, 300)), 10);
    expect(await chargeOf(orderId)).toMatchObject({
      status: 'succeeded',
      refundedCents: 300,
      refunds: [{ amountCents: 300, reason: 'Refunded on Stripe', status: 'succeeded' }],
    });
    expect(await ledgerOf(orderId)).toEqual([
      ['reversal', -Math.round((earned * 300) / amount)],
      ['earning', earned],
    ]);
    // The same refund's other event (same total): nothing more.
    await deliver(stripeEvent('charge.refund.updated', refundObject(paymentIntentId, 300)));
    expect(await refundRows(chargeId)).toHaveLength(1);

    // The rest is refunded in the dashboard; what arrives first are two late events of the first refund
    // (their bodies say 300), at once: the total is read from Stripe, and the rest is recorded once.
    refundedOnStripe.set(paymentIntentId, amount);
    await Promise.all([
      deliver(stripeEvent('charge.refund.updated', refundObject(paymentIntentId, 300)), 5),
      deliver(stripeEvent('charge.refunded', chargeObject(paymentIntentId, amount, 300)), 5),
    ]);
    const refunded = await chargeOf(orderId);
    expect(refunded).toMatchObject({ status: 'refunded', refundedCents: amount });
    expect(refunded.refunds.map((r: any) => [r.amountCents, r.reason, r.status])).toEqual([
      [300, 'Refunded on Stripe', 'succeeded'],
      [amount - 300, 'Refunded on Stripe', 'succeeded'],
    ]);
    const reversals = (await ledgerOf(orderId)).filter(([entryKind]) => entryKind === 'reversal');
    expect(reversals).toHaveLength(2);
    expect(reversals.reduce((sum, [, cents]) => sum + Number(cents), 0)).toBe(-earned);
    expect(changes.filter((change) => change.startsWith(chargeId))).toEqual([
      `${chargeId}:pending->succeeded`,
      `${chargeId}:succeeded->refunded`,
    ]);

    // A replay of every event: nothing changes.
    await deliver(stripeEvent('charge.refunded', chargeObject(paymentIntentId, amount, amount)), 3);
    expect(await refundRows(chargeId)).toHaveLength(2);
    // Stripe was asked for the truth with the latest charge expanded, every request valid against the spec.
    const reads = fake.requests
      .slice(requestsBefore)
      .filter((r) => r.operationId === 'GetPaymentIntentsIntent');
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) expect(read.query).toEqual({ expand: ['latest_charge'] });
    expect(fake.requests.flatMap((r) => r.errors)).toEqual([]);
  });

  it('our own refund and its charge.refunded webhook are one refund, even when Stripe’s answer to it was lost', async () => {
    const { orderId, chargeId, amount, paymentIntentId } = await chargedOrder();
    const partial = await admin.post(`/api/payments/charges/${chargeId}/refund`, {
      amountCents: 500,
      reason: 'A scratch',
      requestId: randomUUID(),
    });
    expect(partial.status).toBe(200);
    await deliver(stripeEvent('charge.refunded', chargeObject(paymentIntentId, amount, 500)), 3);
    expect(await chargeOf(orderId)).toMatchObject({
      status: 'succeeded',
      refundedCents: 500,
      refunds: [{ amountCents: 500, reason: 'A scratch' }],
    });

    // The rest: Stripe refunds it, but its answer never reaches us; its webhook does.
    dropRefunds = true;
    const lost = await admin.post(`/api/payments/charges/${chargeId}/refund`, {
      reason: 'Cancelled by phone',
    });
    expect(lost.status).toBe(503);
    expect(refundedOnStripe.get(paymentIntentId)).toBe(amount);
    await deliver(stripeEvent('charge.refunded', chargeObject(paymentIntentId, amount, amount)));
    // Our refund still waiting for its answer is not taken for a dashboard refund.
    expect(await chargeOf(orderId)).toMatchObject({ status: 'succeeded', refundedCents: 500 });
    dropRefunds = false;
    expect((await t.context.payments.recover(0)).refunds).toBe(1);
    const settled = await chargeOf(orderId);
    expect(settled).toMatchObject({ status: 'refunded', refundedCents: amount });
    expect(settled.refunds.map((r: any) => [r.amountCents, r.reason, r.status])).toEqual([
      [500, 'A scratch', 'succeeded'],
      [amount - 500, 'Cancelled by phone', 'succeeded'],
    ]);
    await deliver(stripeEvent('charge.refund.updated', refundObject(paymentIntentId, amount - 500)));
    expect(await refundRows(chargeId)).toHaveLength(2);
    expect(fake.requests.flatMap((r) => r.errors)).toEqual([]);
  });

  it('totals read by concurrent events, in any order, never count a cent twice', async () => {
    const { orderId, chargeId, amount } = await chargedOrder();
    const repository = createPaymentRepository(t.context.db);
    // What events processed at the same moment read from Stripe while dashboard refunds were being made.
    const totals = [300, 800, 800, 300, amount, 1200, amount, 800];
    await Promise.all(
      totals.map((total) =>
        repository.recordProviderRefund({
          chargeId,
          providerRefundedCents: total,
          reason: 'Refunded on Stripe',
          idempotencyKey: `provider-refund:${chargeId}:total:${total}`,
        }),
      ),
    );
    const rows = await refundRows(chargeId);
    expect(rows.reduce((sum, row) => sum + row.amountCents, 0)).toBe(amount);
    expect(await chargeOf(orderId)).toMatchObject({ status: 'refunded', refundedCents: amount });
  });
});
