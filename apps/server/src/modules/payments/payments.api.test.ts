import { randomUUID } from 'node:crypto';
import { and, count, countDistinct, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uploadDesign, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { boxStl } from '../../../test/hostile-models.ts';
import { charge, emailMessage, printJob, refund } from '../../db/schema.ts';
import { signSandboxWebhook } from '../../integrations/sandbox-payments/sandbox-payments.ts';

/**
 * Payments through the real server and database (issue 13), with the sandbox provider (Stripe's test
 * cards; the Stripe adapter has its own contract test, and payments-stripe.api.test.ts runs this
 * flow against a Stripe that validates every request against Stripe's spec): a stored card, an order
 * charged once when it is released to production and printed only then, a decline that holds the
 * order until a new card, an authentication, an admin's charge by hand, refunds when a charged order
 * is cancelled before it prints (asked twice: one refund), forged and replayed webhooks, and 1,000
 * orders released at once → exactly 1,000 charges. Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */

const ADDRESS = {
  name: 'Ada Buyer',
  line1: '1 Main St',
  city: 'Springfield',
  region: 'IL',
  postalCode: '62704',
  country: 'US',
};

let t: TestApp;
let admin: SignedInClient;

const orderOf = async (orderId: string) => (await admin.get(`/api/orders/${orderId}`)).body;
const chargesOf = async (client: SignedInClient, orderId: string) =>
  (await client.get(`/api/payments/charges?orderId=${orderId}`)).body.items as any[];
const jobsOf = async (orderId: string) =>
  (await t.context.db.select({ n: count() }).from(printJob).where(eq(printJob.orderId, orderId)))[0]!.n;

/** A seller with a product (a 20 mm box) and, when given, a card stored through the sandbox card form. */
async function sellerWith(cardNumber: string | null): Promise<SignedInClient> {
  const seller = await t.signUp({ role: 'beta' });
  const design = await uploadDesign(seller, boxStl(20, 20, 20), 'box.stl');
  const product = await seller.post('/api/products', {
    name: 'Box',
    variants: [
      { name: 'Box', sku: 'BOX', parts: [{ printConfigId: design.printConfigs[0].id, quantity: 1 }] },
    ],
  });
  expect(product.status).toBe(201);
  if (cardNumber) await storeCard(seller, cardNumber);
  return seller;
}

async function storeCard(seller: SignedInClient, cardNumber: string) {
  expect((await seller.post('/api/payments/setup-intent')).status).toBe(200);
  const method = await seller.post('/api/payments/sandbox/payment-methods', {
    cardNumber,
    expMonth: 12,
    expYear: 2034,
    cvc: '123',
  });
  expect(method.status).toBe(200);
  const stored = await seller.post('/api/payments/default-payment-method', {
    paymentMethodId: method.body.paymentMethodId,
  });
  expect(stored.status).toBe(200);
  return stored.body;
}

async function placeOrder(seller: SignedInClient): Promise<string> {
  const created = await seller.post('/api/orders/manual', {
    items: [{ sku: 'BOX', quantity: 2 }],
    shippingAddress: ADDRESS,
  });
  expect(created.status).toBe(201);
  await t.context.orders.announcementsSettled();
  return created.body.id as string;
}

beforeAll(async () => {
  t = await startTestApp({
    PAYMENTS_CHARGE_ORDERS: 'true',
    FARM_AUTOPILOT: 'false',
    FARM_TICK_S: '300',
    MAX_BUILD_VOLUME_MM: '400,400,400',
  });
  admin = await t.signUp({ role: 'admin' });
}, 120_000);
afterAll(async () => t?.close());

describe('a stored card', () => {
  it('is entered in the sandbox card form and shown by its brand and last 4, never its number', async () => {
    const seller = await t.signUp({ role: 'beta' });
    const before = await seller.get('/api/payments/billing');
    expect(before.body).toMatchObject({
      provider: 'sandbox',
      testMode: true,
      chargesOrders: true,
      card: null,
    });
    const bad = await seller.post('/api/payments/sandbox/payment-methods', {
      cardNumber: '4242 4242 4242 4241',
      expMonth: 12,
      expYear: 2034,
      cvc: '123',
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ field: 'number' });
    expect(bad.body.error).toMatch(/card number/i);
    const stored = await storeCard(seller, '4242 4242 4242 4242');
    expect(stored).toMatchObject({ brand: 'visa', last4: '4242', releasedOrders: 0 });
    const after = await seller.get('/api/payments/billing');
    expect(after.body.card).toEqual({ brand: 'visa', last4: '4242', expMonth: 12, expYear: 2034 });
    expect(JSON.stringify(after.body)).not.toContain('4242424242424242');
    // Another seller's card is not theirs to read; only admins act for another user.
    const other = await t.signUp({ role: 'beta' });
    expect((await other.get(`/api/payments/billing?targetUserId=${seller.userId}`)).status).toBe(403);
    expect((await admin.get(`/api/payments/billing?targetUserId=${seller.userId}`)).body.card.last4).toBe(
      '4242',
    );
  });

  it('refuses a payment method that is not one', async () => {
    const seller = await t.signUp({ role: 'beta' });
    const response = await seller.post('/api/payments/default-payment-method', {
      paymentMethodId: 'not-a-card',
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toBeTruthy();
  });
});

describe('an order released to production', () => {
  it('is charged once — items, packaging and shipping — and only then printed', async () => {
    const seller = await sellerWith('4242424242424242');
    const orderId = await placeOrder(seller);
    const charges = await chargesOf(seller, orderId);
    expect(charges).toHaveLength(1);
    const [paid] = charges;
    expect(paid).toMatchObject({
      kind: 'order',
      attempt: 1,
      status: 'succeeded',
      provider: 'sandbox',
      currency: 'USD',
      refundedCents: 0,
    });
    expect(paid.breakdown.itemsCents).toBeGreaterThan(0);
    expect(paid.breakdown.shippingCents).toBeGreaterThan(0);
    expect(paid.amountCents).toBe(
      paid.breakdown.itemsCents + paid.breakdown.packagingCents + paid.breakdown.shippingCents,
    );
    expect(await jobsOf(orderId)).toBe(2);
    // The same release announced again (a sweep after a crash) charges nothing more.
    const order = await orderOf(orderId);
    await t.context.payments.onOrderStatusChanges([
      {
        announcementId: randomUUID(),
        orderId,
        ownerId: seller.userId,
        channel: order.channel,
        from: 'received',
        to: 'accepted',
      },
    ]);
    expect(await chargesOf(seller, orderId)).toHaveLength(1);
    // Another seller does not see it.
    const other = await t.signUp({ role: 'beta' });
    expect((await other.get(`/api/payments/charges?orderId=${orderId}`)).body.items).toEqual([]);
  });

  it('declined: held with the bank’s words, nothing prints, a new card releases it and it is charged again', async () => {
    const seller = await sellerWith('4000000000000002');
    const orderId = await placeOrder(seller);
    const held = await orderOf(orderId);
    expect(held.status).toBe('on_hold');
    expect(held.holdReason).toMatch(/^Payment failed: Your card was declined\./);
    expect(await jobsOf(orderId)).toBe(0);
    expect((await chargesOf(seller, orderId))[0]).toMatchObject({
      status: 'failed',
      failureReason: 'Your card was declined.',
    });
    expect((await seller.get('/api/payments/billing')).body.heldOrders).toBe(1);
    // The seller is emailed once (the embedded default keeps it in the outbox admins read).
    const mails = await t.context.db
      .select()
      .from(emailMessage)
      .where(and(eq(emailMessage.userId, seller.userId), eq(emailMessage.templateType, 'payment_failed')));
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain('Your card was declined.');

    const stored = await storeCard(seller, '4242424242424242');
    expect(stored.releasedOrders).toBe(1);
    await t.context.orders.announcementsSettled();
    const charges = await chargesOf(seller, orderId);
    expect(charges.map((c) => [c.attempt, c.status])).toEqual([
      [2, 'succeeded'],
      [1, 'failed'],
    ]);
    expect((await orderOf(orderId)).status).toBe('accepted');
    expect(await jobsOf(orderId)).toBe(2);
  });

  it('without a card: held until the seller adds one', async () => {
    const seller = await sellerWith(null);
    const orderId = await placeOrder(seller);
    expect((await orderOf(orderId)).holdReason).toMatch(/^Payment failed: No card on file\./);
    await storeCard(seller, '4242424242424242');
    await t.context.orders.announcementsSettled();
    expect((await chargesOf(seller, orderId))[0]).toMatchObject({ attempt: 2, status: 'succeeded' });
  });

  it('needing authentication: the seller gets a link, authenticates, and the order goes to production', async () => {
    const seller = await sellerWith('4000002500003155');
    const orderId = await placeOrder(seller);
    const held = await orderOf(orderId);
    expect(held.status).toBe('on_hold');
    expect(held.holdReason).toMatch(/^Payment needs authentication: /);
    const billing = (await seller.get('/api/payments/billing')).body;
    expect(billing.actionsNeeded).toHaveLength(1);
    const [{ chargeId }] = billing.actionsNeeded;
    const [pending] = await chargesOf(seller, orderId);
    expect(pending).toMatchObject({
      id: chargeId,
      status: 'requires_action',
      actionUrl: `/billing/authenticate/${chargeId}`,
    });

    const other = await t.signUp({ role: 'beta' });
    expect((await other.get(`/api/payments/charges/${chargeId}/authentication`)).status).toBe(404);
    expect(
      (await other.post(`/api/payments/charges/${chargeId}/confirm`, { sandboxOutcome: 'approve' })).status,
    ).toBe(404);

    const page = await seller.get(`/api/payments/charges/${chargeId}/authentication`);
    expect(page.body).toMatchObject({
      provider: 'sandbox',
      clientSecret: null,
      charge: { status: 'requires_action' },
    });
    const confirmed = await seller.post(`/api/payments/charges/${chargeId}/confirm`, {
      sandboxOutcome: 'approve',
    });
    expect(confirmed.body.status).toBe('succeeded');
    await t.context.orders.announcementsSettled();
    expect((await orderOf(orderId)).status).toBe('accepted');
    expect(await jobsOf(orderId)).toBe(2);
    expect(await chargesOf(seller, orderId)).toHaveLength(1);
  });

  it('authentication refused: the order stays held, and its reason says the card was refused, no longer to authenticate', async () => {
    const seller = await sellerWith('4000002500003155');
    const orderId = await placeOrder(seller);
    expect((await orderOf(orderId)).holdReason).toMatch(/^Payment needs authentication: .*authenticate/);
    const [{ id: chargeId }] = await chargesOf(seller, orderId);
    const refused = await seller.post(`/api/payments/charges/${chargeId}/confirm`, { sandboxOutcome: 'refuse' });
    expect(refused.body.status).toBe('failed');
    await t.context.orders.announcementsSettled();
    const held = await orderOf(orderId);
    expect(held.status).toBe('on_hold');
    expect(held.holdReason).toBe(
      'Payment failed: The cardholder did not authenticate the payment. Add another card in Account settings to release the order.',
    );
    expect(held.holdReason).not.toMatch(/Open Billing to authenticate/);
    expect(await jobsOf(orderId)).toBe(0);
    // Held for payment as any failed charge: a new card releases it and charges it again.
    expect((await storeCard(seller, '4242424242424242')).releasedOrders).toBe(1);
    await t.context.orders.announcementsSettled();
    expect((await chargesOf(seller, orderId)).map((c) => c.status).sort()).toEqual(['failed', 'succeeded']);
  });
});

describe('charging by hand and refunds', () => {
  it('chargeStoredCard is for admins, and one request charges once', async () => {
    const seller = await sellerWith('4242424242424242');
    const orderId = await placeOrder(seller);
    const body = { orderId, amount: 12.5, targetUserId: seller.userId, requestId: randomUUID() };
    expect((await seller.post('/api/payments/charge-stored-card', body)).status).toBe(403);
    const [first, second] = await Promise.all([
      admin.post('/api/payments/charge-stored-card', body),
      admin.post('/api/payments/charge-stored-card', body),
    ]);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(first.body.id).toBe(second.body.id);
    expect(first.body).toMatchObject({ kind: 'manual', amountCents: 1250, status: 'succeeded' });
    expect((await chargesOf(seller, orderId)).filter((c) => c.kind === 'manual')).toHaveLength(1);
    const noCard = await t.signUp({ role: 'beta' });
    const refused = await admin.post('/api/payments/charge-stored-card', {
      ...body,
      targetUserId: noCard.userId,
    });
    expect(refused.status).toBe(404);
    const tooSmall = await admin.post('/api/payments/charge-stored-card', {
      ...body,
      amount: 0.2,
      requestId: randomUUID(),
    });
    expect(tooSmall.status).toBe(422);
  });

  it('a charged order cancelled before it prints is refunded; a refund asked twice is one refund', async () => {
    const seller = await sellerWith('4242424242424242');
    const orderId = await placeOrder(seller);
    const [paid] = await chargesOf(seller, orderId);
    const cancelled = await seller.post(`/api/orders/${orderId}/status`, {
      to: 'cancelled',
      reason: 'The buyer changed their mind',
    });
    expect(cancelled.status).toBe(200);
    await t.context.orders.announcementsSettled();
    const [refunded] = await chargesOf(seller, orderId);
    expect(refunded).toMatchObject({ id: paid.id, status: 'refunded', refundedCents: paid.amountCents });
    expect(refunded.refunds).toHaveLength(1);
    // Asked again (by an admin, twice at once): nothing is left to refund, and no second refund is made.
    const again = await Promise.all([
      admin.post(`/api/payments/charges/${paid.id}/refund`, { reason: 'again' }),
      admin.post(`/api/payments/charges/${paid.id}/refund`, { reason: 'again' }),
    ]);
    for (const response of again) expect(response.status).toBe(200);
    const rows = await t.context.db.select().from(refund).where(eq(refund.chargeId, paid.id));
    expect(rows).toHaveLength(1);
  });

  it('a partial refund asked twice at once is one refund', async () => {
    const seller = await sellerWith('4242424242424242');
    const orderId = await placeOrder(seller);
    const [paid] = await chargesOf(seller, orderId);
    const request = { amountCents: 100, reason: 'A scratch', requestId: randomUUID() };
    const ask = () => admin.post(`/api/payments/charges/${paid.id}/refund`, request);
    expect((await seller.post(`/api/payments/charges/${paid.id}/refund`, { amountCents: 100 })).status).toBe(
      403,
    );
    const answers = await Promise.all([ask(), ask(), ask()]);
    for (const response of answers) expect(response.status).toBe(200);
    const rows = await t.context.db.select().from(refund).where(eq(refund.chargeId, paid.id));
    expect(rows).toHaveLength(1);
    expect((await chargesOf(seller, orderId))[0]).toMatchObject({ status: 'succeeded', refundedCents: 100 });
  });
});

describe('webhooks', () => {
  const event = (id: string, paymentIntentId: string) =>
    JSON.stringify({
      id,
      object: 'event',
      type: 'payment_intent.succeeded',
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: paymentIntentId, object: 'payment_intent' } },
    });
  const deliver = (body: string, signature: string) =>
    fetch(new URL('/api/payments/webhook', t.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
      body,
    });

  it('refuses forged, replayed (older than 300 s) and unsigned deliveries, and stores nothing for them', async () => {
    const body = event(`evt_${randomUUID()}`, 'pi_sandbox_s_0');
    expect((await deliver(body, signSandboxWebhook(body, 'whsec_someone_else'))).status).toBe(401);
    expect(
      (await deliver(body, signSandboxWebhook(body, undefined, Math.floor(Date.now() / 1000) - 301))).status,
    ).toBe(401);
    expect(
      (await deliver(body.replace('succeeded', 'payment_failed'), signSandboxWebhook(body))).status,
    ).toBe(401);
    const unsigned = await fetch(new URL('/api/payments/webhook', t.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(unsigned.status).toBe(401);
  });

  it('10,000 concurrent deliveries of one event make one state change', async () => {
    const seller = await sellerWith('4000002500003155');
    const orderId = await placeOrder(seller);
    const [pending] = await chargesOf(seller, orderId);
    expect(pending.status).toBe('requires_action');
    // The seller authenticated at the bank (the sandbox's side); the provider's event tells us.
    const paymentIntentId = (
      await t.context.db.select({ pi: charge.paymentIntentId }).from(charge).where(eq(charge.id, pending.id))
    )[0]!.pi!;
    await t.context.paymentProvider.completeTestAuthentication!(paymentIntentId, true);
    const changes: string[] = [];
    t.context.payments.onChargeChanged(async (change) => {
      if (change.chargeId === pending.id) changes.push(`${change.from}->${change.to}`);
    });
    const body = event(`evt_${randomUUID()}`, paymentIntentId);
    const signature = signSandboxWebhook(body);
    // 10,000 deliveries, 200 in flight at any moment (the test process's sockets are the limit, not the server).
    const statuses: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 200 }, async () => {
        while (next < 10_000) {
          next++;
          statuses.push((await deliver(body, signature)).status);
        }
      }),
    );
    expect(statuses).toHaveLength(10_000);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(changes).toEqual(['requires_action->succeeded']);
    await t.context.orders.announcementsSettled();
    expect((await orderOf(orderId)).status).toBe('accepted');
    expect(await jobsOf(orderId)).toBe(2);
  }, 180_000);
});

describe('refund events', () => {
  const deliver = (type: string, object: Record<string, unknown>) => {
    const body = JSON.stringify({
      id: `evt_${randomUUID()}`,
      object: 'event',
      type,
      created: Math.floor(Date.now() / 1000),
      data: { object },
    });
    return fetch(new URL('/api/payments/webhook', t.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': signSandboxWebhook(body) },
      body,
    });
  };
  const paymentIntentOf = async (chargeId: string) =>
    (
      await t.context.db.select({ pi: charge.paymentIntentId }).from(charge).where(eq(charge.id, chargeId))
    )[0]!.pi!;

  it('one arriving before its charge’s own event settles the charge first; only what the provider refunded is recorded', async () => {
    const seller = await sellerWith('4000002500003155');
    const orderId = await placeOrder(seller);
    const [waiting] = await chargesOf(seller, orderId);
    expect(waiting.status).toBe('requires_action');
    const paymentIntentId = await paymentIntentOf(waiting.id);
    // The seller authenticated at the bank; the refund event is the first to reach us (Stripe does not order events).
    await t.context.paymentProvider.completeTestAuthentication!(paymentIntentId, true);
    expect(
      (
        await deliver('charge.refunded', {
          object: 'charge',
          payment_intent: paymentIntentId,
          amount_refunded: 999_999,
        })
      ).status,
    ).toBe(200);
    // Its body's total is not taken: the sandbox refunded nothing.
    expect((await chargesOf(seller, orderId))[0]).toMatchObject({
      id: waiting.id,
      status: 'succeeded',
      refundedCents: 0,
      refunds: [],
    });
    await t.context.orders.announcementsSettled();
    expect((await orderOf(orderId)).status).toBe('accepted');

    // A refund made through Layerline, then its event: one refund.
    expect(
      (
        await admin.post(`/api/payments/charges/${waiting.id}/refund`, {
          amountCents: 100,
          requestId: randomUUID(),
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await deliver('charge.refund.updated', {
          object: 'refund',
          payment_intent: paymentIntentId,
          amount: 100,
          status: 'succeeded',
        })
      ).status,
    ).toBe(200);
    expect((await chargesOf(seller, orderId))[0]).toMatchObject({ status: 'succeeded', refundedCents: 100 });
    expect(await t.context.db.select().from(refund).where(eq(refund.chargeId, waiting.id))).toHaveLength(1);
  });
});

describe('1,000 orders released at once', () => {
  it('are charged exactly 1,000 times, even when the releases are announced twice', async () => {
    const seller = await sellerWith('4242424242424242');
    const ingest = (i: number) =>
      t.context.orderIngestion.ingest({
        ownerId: seller.userId,
        channel: `api:${seller.userId}`,
        shopId: null,
        platform: 'api',
        order: {
          externalId: `BULK-${i}`,
          note: '',
          placedAt: new Date(),
          customerName: ADDRESS.name,
          shippingAddress: { company: '', line2: '', phone: '', email: '', ...ADDRESS },
          currency: 'USD',
          totalCents: null,
          cancelled: false,
          items: [{ externalItemId: '1', sku: 'BOX', title: '', quantity: 1, unitPriceCents: null }],
        },
        actor: { kind: 'user', id: seller.userId },
      });
    await Promise.all(Array.from({ length: 1000 }, (_, i) => ingest(i)));
    // The sweep announces every change again at the same time (as after a crash).
    await Promise.all([t.context.orders.announcementsSettled(), t.context.orders.announcePending(0, 1000)]);
    await t.context.orders.announcementsSettled();
    const [totals] = await t.context.db
      .select({ charges: count(), orders: countDistinct(charge.orderId) })
      .from(charge)
      .where(
        and(eq(charge.ownerId, seller.userId), eq(charge.kind, 'order'), eq(charge.status, 'succeeded')),
      );
    expect(totals).toEqual({ charges: 1000, orders: 1000 });
    const [all] = await t.context.db
      .select({ n: count() })
      .from(charge)
      .where(eq(charge.ownerId, seller.userId));
    expect(all!.n).toBe(1000);
  }, 300_000);
});
