import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uploadDesign, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { boxStl } from '../../../test/hostile-models.ts';
import { webhookDelivery } from '../../db/schema.ts';

/**
 * Each order's webhook events carry their order's sequence number and reach the seller's receiver in
 * that order, the creation first (issue 21, item 2): an order declined at release (created accepted,
 * then held by its payment in the same announcement) is told `null → accepted` (1) before
 * `accepted → on_hold` (2), even when the receiver fails the creation's first attempt: the hold's job
 * sends the creation first instead of overtaking it. Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */

const ADDRESS = { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62704', country: 'US' };

let t: TestApp;
let receiver: http.Server;
/** What the receiver got, in arrival order, and what it answered. */
const arrivals: { event: any; status: number }[] = [];
/** While set, the next creation event (sequence 1) to arrive is answered 503, once. */
let failNextCreation = false;

async function waitFor<T>(probe: () => T | Promise<T>, what: string, timeoutMs = 30_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A seller with a box product, a card that the bank declines, and a webhook endpoint on the receiver. */
async function decliningSeller(): Promise<SignedInClient> {
  const seller = await t.signUp({ role: 'beta' });
  const design = await uploadDesign(seller, boxStl(20, 20, 20), 'box.stl');
  expect((await seller.post('/api/products', { name: 'Box', variants: [{ name: 'Box', sku: 'BOX', parts: [{ printConfigId: design.printConfigs[0].id, quantity: 1 }] }] })).status).toBe(201);
  expect((await seller.post('/api/payments/setup-intent')).status).toBe(200);
  const method = await seller.post('/api/payments/sandbox/payment-methods', { cardNumber: '4000000000000002', expMonth: 12, expYear: 2034, cvc: '123' });
  expect((await seller.post('/api/payments/default-payment-method', { paymentMethodId: method.body.paymentMethodId })).status).toBe(200);
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  expect((await seller.request<any>('PUT', '/api/webhook-endpoint', { url }, {})).status).toBe(200);
  return seller;
}

async function placeOrder(seller: SignedInClient): Promise<string> {
  const created = await seller.post('/api/orders/manual', { items: [{ sku: 'BOX', quantity: 1 }], shippingAddress: ADDRESS });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

const delivered = (orderId: string) => arrivals.filter((a) => a.status === 204 && a.event.data.order.id === orderId).map((a) => a.event);

beforeAll(async () => {
  receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const fail = failNextCreation && event.sequence === 1;
      if (fail) failNextCreation = false;
      const status = fail ? 503 : 204;
      arrivals.push({ event, status });
      response.statusCode = status;
      response.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t = await startTestApp({ ALLOW_LOCAL_WEBHOOK_RECEIVERS: 'true', PAYMENTS_CHARGE_ORDERS: 'true', FARM_AUTOPILOT: 'false', FARM_TICK_S: '300' });
}, 120_000);
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('webhook events of an order', () => {
  it('an order declined at release: the creation (1, accepted) reaches the receiver before the hold (2)', async () => {
    const seller = await decliningSeller();
    const orderId = await placeOrder(seller);
    const [first, second] = await waitFor(() => (delivered(orderId).length >= 2 ? delivered(orderId) : null), 'two events');
    expect(first).toMatchObject({ type: 'order.status_changed', sequence: 1, data: { previousStatus: null, status: 'accepted' } });
    expect(second).toMatchObject({ type: 'order.status_changed', sequence: 2, data: { previousStatus: 'accepted', status: 'on_hold' } });
    expect(second.data.order.holdReason).toMatch(/^Payment failed: /);
    // Stored as sent: the sequence is in the row and in its event.
    const rows = await t.context.db.select().from(webhookDelivery).where(eq(webhookDelivery.orderId, orderId));
    expect(rows.map((r) => [r.sequence, (r.event as any).sequence]).sort()).toEqual([
      [1, 1],
      [2, 2],
    ]);
  });

  it('a creation whose first attempt fails is sent again before the hold: a later event never overtakes it', async () => {
    const seller = await decliningSeller();
    failNextCreation = true;
    const orderId = await placeOrder(seller);
    const events = await waitFor(() => (delivered(orderId).length >= 2 ? delivered(orderId) : null), 'two delivered events', 60_000);
    expect(events.map((e) => e.sequence)).toEqual([1, 2]);
    const tries = arrivals.filter((a) => a.event.data.order.id === orderId);
    expect(tries[0]).toMatchObject({ status: 503, event: { sequence: 1 } });
    // Nothing of sequence 2 arrived before the creation was accepted.
    const creationAccepted = tries.findIndex((a) => a.status === 204 && a.event.sequence === 1);
    expect(tries.findIndex((a) => a.event.sequence === 2)).toBeGreaterThan(creationAccepted);
  }, 90_000);
});
