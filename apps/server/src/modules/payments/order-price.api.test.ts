import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uploadDesign, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { boxStl } from '../../../test/hostile-models.ts';
import { emailMessage, fulfillmentRecord, orderPrice, printConfiguration } from '../../db/schema.ts';

/**
 * One price per order (issue 21, item 1), through the real server and database: orders charged at
 * release on the sandbox card, printed by the farm's autopilot on a simulated printer, labelled by
 * the sandbox carrier and tracked to delivered. Two of the designs get an exact quote after their
 * orders were charged (one cheaper, one dearer): the difference is refunded or charged as its own
 * adjustment, with its reason, and for every delivered order charges − refunds is the fulfilment
 * record's total to the cent. The seller's webhook receiver hears each order's events in sequence
 * (the creation first), the refund and the adjustment as their own events, and each is emailed.
 * Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */

const ADDRESS = { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62704', country: 'US' };

let t: TestApp;
let admin: SignedInClient;
let seller: SignedInClient;
/** Every webhook body the seller's receiver got, in arrival order. */
const received: any[] = [];
let receiver: http.Server;

async function waitFor<T>(probe: () => T | Promise<T>, what: string, timeoutMs = 60_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const orderOf = async (orderId: string) => (await admin.get(`/api/orders/${orderId}`)).body;
const chargesOf = async (orderId: string) => (await seller.get(`/api/payments/charges?orderId=${orderId}`)).body.items as any[];

/** A product of one box design; answers its SKU and print configuration. */
async function product(sku: string, sizeMm: number): Promise<{ sku: string; configId: string }> {
  const design = await uploadDesign(seller, boxStl(sizeMm, sizeMm, sizeMm), `${sku}.stl`);
  const configId = design.printConfigs[0].id as string;
  const created = await seller.post('/api/products', { name: sku, variants: [{ name: sku, sku, parts: [{ printConfigId: configId, quantity: 1 }] }] });
  expect(created.status).toBe(201);
  return { sku, configId };
}

async function placeOrder(sku: string, quantity: number): Promise<string> {
  const created = await seller.post('/api/orders/manual', { items: [{ sku, quantity }], shippingAddress: ADDRESS });
  expect(created.status).toBe(201);
  await t.context.orders.announcementsSettled();
  return created.body.id as string;
}

/** The exact figures landing after the charge: the farm's own cost for the configuration (an exact quote). */
async function exactQuote(configId: string, costUsd: number) {
  await t.context.db
    .update(printConfiguration)
    .set({ adminCost: { grams: 10, printSeconds: 600, costUsd, note: 'Exact', setBy: admin.userId, computedAt: new Date().toISOString() } })
    .where(eq(printConfiguration.id, configId));
}

beforeAll(async () => {
  receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      response.statusCode = 204;
      response.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t = await startTestApp({
    ALLOW_LOCAL_WEBHOOK_RECEIVERS: 'true',
    PAYMENTS_CHARGE_ORDERS: 'true',
    FARM_TICK_S: '0.2',
    FARM_AUTOPILOT: 'true',
    FARM_AUTOPILOT_DELAY_S: '0',
    SANDBOX_CARRIER_DAY_S: '0.5',
    TRACKING_POLL_S: '3600',
  });
  [admin, seller] = await Promise.all([t.signUp({ role: 'admin' }), t.signUp({ role: 'beta' })]);
  expect((await seller.post('/api/payments/setup-intent')).status).toBe(200);
  const method = await seller.post('/api/payments/sandbox/payment-methods', { cardNumber: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' });
  expect((await seller.post('/api/payments/default-payment-method', { paymentMethodId: method.body.paymentMethodId })).status).toBe(200);
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  expect((await seller.request<any>('PUT', '/api/webhook-endpoint', { url }, {})).status).toBe(200);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('one price per order', () => {
  it('charges − refunds equal the fulfilment record’s total for every delivered order, adjustments included', async () => {
    const [plain, cheaper, dearer] = [await product('PLAIN', 20), await product('CHEAP', 24), await product('DEAR', 22)];
    // Charged at release while every part is only estimated; no printer yet, so nothing prints.
    const orders = {
      plainTwo: await placeOrder(plain.sku, 2),
      plainOne: await placeOrder(plain.sku, 1),
      cheaper: await placeOrder(cheaper.sku, 2),
      dearer: await placeOrder(dearer.sku, 1),
    };
    const charged = new Map<string, any>();
    for (const id of Object.values(orders)) {
      const [first] = await chargesOf(id);
      expect(first).toMatchObject({ kind: 'order', status: 'succeeded' });
      const [price] = await t.context.db.select().from(orderPrice).where(eq(orderPrice.orderId, id));
      // The charge is the stored price, item by item.
      expect(first.amountCents).toBe(price!.itemsCents + price!.packagingCents + price!.shippingCents);
      expect(first.breakdown).toEqual({ itemsCents: price!.itemsCents, packagingCents: price!.packagingCents, shippingCents: price!.shippingCents });
      expect(price!.lines.every((line) => !line.exact)).toBe(true);
      charged.set(id, { charge: first, price: price! });
    }
    // The exact quotes land after the charges: $0.10 a piece (cheaper), and $0.75 more than estimated (dearer).
    await exactQuote(cheaper.configId, 0.1);
    const dearUnit = charged.get(orders.dearer).price.lines[0].unitCents / 100 + 0.75;
    await exactQuote(dearer.configId, dearUnit);

    expect((await admin.post('/api/admin/printers', { name: 'Sim money', buildVolumeMm: { x: 250, y: 250, z: 250 }, nozzleMm: 0.4, connection: { kind: 'simulated', speedFactor: 100_000 } })).status).toBe(201);
    for (const id of Object.values(orders)) {
      await waitFor(async () => (await orderOf(id)).status === 'packed', `order ${id} packed`);
      await t.context.orders.announcementsSettled();
      expect((await admin.post(`/api/admin/shipping/orders/${id}/labels`, {})).status).toBe(200);
    }
    await waitFor(async () => {
      await t.context.shipping.trackingPass(0, 60_000);
      const statuses = await Promise.all(Object.values(orders).map(async (id) => (await orderOf(id)).status));
      return statuses.every((status) => status === 'delivered');
    }, 'every order delivered');

    const records = await t.context.db.select().from(fulfillmentRecord).where(inArray(fulfillmentRecord.orderId, Object.values(orders)));
    for (const id of Object.values(orders)) {
      const charges = await chargesOf(id);
      const net = charges
        .filter((c) => c.status === 'succeeded' || c.status === 'refunded')
        .reduce((sum, c) => sum + c.amountCents - c.refundedCents, 0);
      const recorded = records.filter((r) => r.orderId === id).reduce((sum, r) => sum + r.totalCents, 0);
      expect({ order: id, net }).toEqual({ order: id, net: recorded });
    }

    // Cheaper: the difference refunded on the order's charge, with its reason.
    const before = charged.get(orders.cheaper).price;
    const [cheapCharge] = await chargesOf(orders.cheaper);
    expect(cheapCharge.refunds).toEqual([
      expect.objectContaining({ amountCents: before.itemsCents - 20, status: 'succeeded', reason: expect.stringMatching(/exact quote .* to \$0\.20/) }),
    ]);
    // Dearer: one adjustment charge of the difference, its reason shown beside it.
    const dear = await chargesOf(orders.dearer);
    const adjustments = dear.filter((c) => c.kind === 'adjustment');
    expect(adjustments).toEqual([
      expect.objectContaining({ amountCents: 75, status: 'succeeded', failureReason: expect.stringMatching(/exact quote/) }),
    ]);
    // The plain orders were exact neither before nor after: no adjustment.
    for (const id of [orders.plainOne, orders.plainTwo]) {
      const charges = await chargesOf(id);
      expect(charges).toHaveLength(1);
      expect(charges[0].refunds).toEqual([]);
    }
    // Announced again (a sweep after a crash): no more money moves.
    for (const id of Object.values(orders)) {
      await t.context.payments.onOrderStatusChanges([{ announcementId: crypto.randomUUID(), orderId: id, ownerId: seller.userId, channel: 'manual', from: 'printed', to: 'packed' }]);
    }
    expect((await chargesOf(orders.dearer)).filter((c) => c.kind === 'adjustment')).toHaveLength(1);
    expect((await chargesOf(orders.cheaper))[0].refunds).toHaveLength(1);

    // The seller's receiver: each order's events in sequence, 1, 2, 3 … with no gap, the creation first
    // (first arrivals: a receiver deduplicates on the event id, as at-least-once delivery asks).
    const firstArrivals = (orderId: string) => received.filter((e, index) => e.data.order.id === orderId && received.findIndex((f) => f.id === e.id) === index);
    for (const id of Object.values(orders)) {
      await waitFor(() => firstArrivals(id).some((e) => e.type === 'order.delivered'), `order.delivered of ${id}`);
      const events = firstArrivals(id);
      expect(events.map((e) => e.sequence)).toEqual(events.map((_e, index) => index + 1));
      expect(events[0]).toMatchObject({ type: 'order.status_changed', sequence: 1, data: { previousStatus: null } });
      expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['order.charged', 'order.shipped', 'order.delivered']));
    }
    const refunded = received.filter((e) => e.type === 'order.refunded');
    expect(refunded).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({
          refund: { id: cheapCharge.refunds[0].id, chargeId: cheapCharge.id, amountCents: before.itemsCents - 20, currency: 'USD', reason: cheapCharge.refunds[0].reason },
        }),
      }),
    ]);
    const adjusted = received.filter((e) => e.type === 'order.adjusted');
    expect(adjusted).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({ adjustment: { chargeId: adjustments[0].id, amountCents: 75, currency: 'USD', reason: adjustments[0].failureReason } }),
      }),
    ]);
    // An adjustment is not told as a second `order.charged`.
    expect(received.filter((e) => e.type === 'order.charged' && e.data.order.id === orders.dearer)).toHaveLength(1);
    // And each is emailed to the seller, once.
    const mails = await t.context.db
      .select({ templateType: emailMessage.templateType, subject: emailMessage.subject })
      .from(emailMessage)
      .where(and(eq(emailMessage.userId, seller.userId), inArray(emailMessage.templateType, ['order_refunded', 'order_price_adjusted'])));
    expect(mails.map((m) => m.templateType).sort()).toEqual(['order_price_adjusted', 'order_refunded']);
    expect(mails.find((m) => m.templateType === 'order_refunded')!.subject).toMatch(/^Refund of \$\d+\.\d\d for order /);
  }, 180_000);
});
