import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uploadDesign, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { boxStl } from '../../../test/hostile-models.ts';
import { auditLog, charge, printJob } from '../../db/schema.ts';

/**
 * The change window (issue 24 point 2; docs/change-window.md): until an order is released to
 * production a seller changes its address or cancels it at no cost, in the app and through the
 * order API; a seller setting holds new orders 0–24 hours before release; afterwards both are
 * refused in words that say why. Charges go through the sandbox card processor, as in production.
 */

const ADDRESS = { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62704', country: 'US' };
const NEW_ADDRESS = { name: 'Ada Buyer', line1: '2 New Road', city: 'Portland', region: 'OR', postalCode: '97201', country: 'US' };
const HOUR = 3600_000;

let t: TestApp;
let seller: SignedInClient;
let other: SignedInClient;
let admin: SignedInClient;
let apiKey: string;
let receiver: { url: string; bodies: any[]; close(): Promise<void> };

const jobsOf = async (orderId: string) =>
  (await t.context.db.select({ n: count() }).from(printJob).where(eq(printJob.orderId, orderId)))[0]!.n;
const chargesOf = async (orderId: string) =>
  (await t.context.db.select({ n: count() }).from(charge).where(eq(charge.orderId, orderId)))[0]!.n;

async function v1(method: string, urlPath: string, json?: unknown) {
  const response = await fetch(new URL(urlPath, t.baseUrl), {
    method,
    headers: { accept: 'application/json', authorization: `Bearer ${apiKey}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function placeOrder(client: SignedInClient = seller): Promise<any> {
  const created = await client.post('/api/orders/manual', { items: [{ sku: 'WIN-BOX', quantity: 1 }], shippingAddress: ADDRESS });
  expect(created.status).toBe(201);
  await t.context.orders.announcementsSettled();
  return (await client.get(`/api/orders/${created.body.id}`)).body;
}

async function setWindow(hours: number) {
  const put = await seller.request<any>('PUT', '/api/order-settings', { changeWindowHours: hours }, {});
  expect(put.status).toBe(200);
}

async function waitFor<T>(probe: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  const bodies: any[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      response.statusCode = 204;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  t = await startTestApp({
    ALLOW_LOCAL_WEBHOOK_RECEIVERS: 'true',
    PAYMENTS_CHARGE_ORDERS: 'true',
    FARM_AUTOPILOT: 'false',
    FARM_TICK_S: '300',
  });
  [seller, other, admin] = await Promise.all([t.signUp({ role: 'beta' }), t.signUp({ role: 'beta' }), t.signUp({ role: 'admin' })]);
  const design = await uploadDesign(seller, boxStl(20, 20, 20), 'box.stl');
  const product = await seller.post('/api/products', {
    name: 'Window box',
    variants: [{ name: 'Box', sku: 'WIN-BOX', parts: [{ printConfigId: design.printConfigs[0].id, quantity: 1 }] }],
  });
  expect(product.status).toBe(201);
  expect((await seller.post('/api/payments/setup-intent')).status).toBe(200);
  const method = await seller.post('/api/payments/sandbox/payment-methods', { cardNumber: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' });
  expect((await seller.post('/api/payments/default-payment-method', { paymentMethodId: method.body.paymentMethodId })).status).toBe(200);
  const key = await seller.post('/api/api-keys', { name: 'Storefront' });
  expect(key.status).toBe(201);
  apiKey = key.body.key;
  expect((await seller.request<any>('PUT', '/api/webhook-endpoint', { url: receiver.url }, {})).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

describe('the change window setting', () => {
  it('is 0 hours until set, 0–24 whole hours, the seller’s own (admins act for them)', async () => {
    expect((await seller.get('/api/order-settings')).body).toEqual({ changeWindowHours: 0 });
    for (const bad of [25, -1, 1.5, '2']) {
      const refused = await seller.request<any>('PUT', '/api/order-settings', { changeWindowHours: bad }, {});
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBeTruthy();
    }
    expect((await seller.get('/api/order-settings')).body).toEqual({ changeWindowHours: 0 });
    expect((await other.get(`/api/order-settings?targetUserId=${seller.userId}`)).status).toBe(403);
    expect((await other.request<any>('PUT', `/api/order-settings?targetUserId=${seller.userId}`, { changeWindowHours: 5 }, {})).status).toBe(403);
    expect((await admin.request<any>('PUT', `/api/order-settings?targetUserId=${seller.userId}`, { changeWindowHours: 3 }, {})).body).toEqual({ changeWindowHours: 3 });
    expect((await seller.get('/api/order-settings')).body).toEqual({ changeWindowHours: 3 });
    const audited = await t.context.db.select().from(auditLog).where(eq(auditLog.action, 'order.settings'));
    expect(audited.map((row) => ({ actorId: row.actorId, targetUserId: row.targetUserId }))).toEqual([{ actorId: admin.userId, targetUserId: seller.userId }]);
    expect((await admin.request<any>('PUT', '/api/order-settings?targetUserId=no-such-user', { changeWindowHours: 3 }, {})).status).toBe(404);
    await setWindow(0);
  });
});

describe('with no change window (0 hours)', () => {
  it('releases a new order at once; changing or cancelling it is refused, saying why, and nothing changes', async () => {
    await setWindow(0);
    const placed = await placeOrder();
    expect(placed.status).toBe('accepted');
    expect(placed.releasedAt).not.toBeNull();
    expect(placed.changeWindowClosedReason).toMatch(/released to production/);
    expect(await chargesOf(placed.id)).toBe(1);
    expect(await jobsOf(placed.id)).toBeGreaterThan(0);

    const move = await seller.request<any>('PUT', `/api/orders/${placed.id}/shipping-address`, { shippingAddress: NEW_ADDRESS }, {});
    expect(move.status).toBe(409);
    expect(move.body.error).toMatch(/released to production on \d{4}-\d\d-\d\d \d\d:\d\d UTC.*can no longer be changed/);
    const cancel = await v1('POST', `/api/v1/orders/${placed.id}/cancel`, { reason: 'too late' });
    expect(cancel.status).toBe(409);
    expect(cancel.body.error).toMatch(/released to production/);
    const after = (await seller.get(`/api/orders/${placed.id}`)).body;
    expect(after.status).toBe('accepted');
    expect(after.shippingAddress.line1).toBe('1 Main St');
    expect(after.events).toHaveLength(placed.events.length);
  });
});

describe('with a change window of 2 hours', () => {
  it('holds a new order received: no print job, no charge, and says when it is released', async () => {
    await setWindow(2);
    const before = Date.now();
    const placed = await placeOrder();
    expect(placed.status).toBe('received');
    expect(placed.releasedAt).toBeNull();
    expect(placed.changeWindowClosedReason).toBeNull();
    const releaseAt = Date.parse(placed.releaseAt);
    expect(releaseAt).toBeGreaterThanOrEqual(before + 2 * HOUR - 1000);
    expect(releaseAt).toBeLessThanOrEqual(Date.now() + 2 * HOUR + 1000);
    expect(placed.events.at(-1).reason).toMatch(/held 2 h for changes/);
    expect(await jobsOf(placed.id)).toBe(0);
    expect(await chargesOf(placed.id)).toBe(0);
  });

  it('changes the address in the app and through the order API, each in the timeline and told to the webhook', async () => {
    const placed = await placeOrder();
    const moved = await seller.request<any>('PUT', `/api/orders/${placed.id}/shipping-address`, { shippingAddress: NEW_ADDRESS }, {});
    expect(moved.status).toBe(200);
    expect(moved.body.shippingAddress).toMatchObject(NEW_ADDRESS);
    expect(moved.body.status).toBe('received');
    expect(moved.body.events.at(-1)).toMatchObject({ fromStatus: 'received', toStatus: 'received', actorKind: 'user' });
    expect(moved.body.events.at(-1).reason).toMatch(/Shipping address changed \(was 1 Main St, Springfield, 62704, US\)/);

    const event = await waitFor(
      () => receiver.bodies.find((body) => body.type === 'order.address_changed' && body.data.order.id === placed.id),
      'order.address_changed',
    );
    expect(event.data.previousAddress).toMatchObject(ADDRESS);
    expect(event.data.order.shippingAddress).toMatchObject(NEW_ADDRESS);

    const third = { ...NEW_ADDRESS, line1: '3 Third Avenue' };
    const byApi = await v1('PUT', `/api/v1/orders/${placed.id}/shipping-address`, { shippingAddress: third });
    expect(byApi.status).toBe(200);
    expect(byApi.body.shippingAddress.line1).toBe('3 Third Avenue');
    await waitFor(
      () => receiver.bodies.find((body) => body.type === 'order.address_changed' && body.data.previousAddress.line1 === '2 New Road') ?? undefined,
      'the second order.address_changed',
    );
  });

  it('refuses a bad address, another seller and a stranger’s key, changing nothing', async () => {
    const placed = await placeOrder();
    const bad = await seller.request<any>('PUT', `/api/orders/${placed.id}/shipping-address`, { shippingAddress: { ...NEW_ADDRESS, country: 'XX' } }, {});
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/Country/);
    const extra = await v1('PUT', `/api/v1/orders/${placed.id}/shipping-address`, { shippingAddress: NEW_ADDRESS, note: 'x' });
    expect(extra.status).toBe(400);
    expect((await other.request<any>('PUT', `/api/orders/${placed.id}/shipping-address`, { shippingAddress: NEW_ADDRESS }, {})).status).toBe(404);
    expect((await other.post(`/api/orders/${placed.id}/cancel`, {})).status).toBe(404);
    const otherKey = (await other.post('/api/api-keys', { name: 'Other' })).body.key as string;
    const foreign = await fetch(new URL(`/api/v1/orders/${placed.id}/cancel`, t.baseUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${otherKey}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(foreign.status).toBe(404);
    const after = (await seller.get(`/api/orders/${placed.id}`)).body;
    expect(after.status).toBe('received');
    expect(after.shippingAddress.line1).toBe('1 Main St');
  });

  it('cancels at no cost through the order API: no job, no charge, order.cancelled told; a second cancel says it is cancelled', async () => {
    const placed = await placeOrder();
    const cancelled = await v1('POST', `/api/v1/orders/${placed.id}/cancel`, { reason: 'The buyer changed their mind' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    expect(cancelled.body.events.at(-1)).toMatchObject({ fromStatus: 'received', toStatus: 'cancelled', reason: 'The buyer changed their mind' });
    const event = await waitFor(
      () => receiver.bodies.find((body) => body.type === 'order.cancelled' && body.data.order.id === placed.id),
      'order.cancelled',
    );
    expect(event.data.reason).toBe('The buyer changed their mind');
    // Released later by the sweep? No: a cancelled order is not waiting any more.
    await t.context.orders.releaseDue(new Date(Date.now() + 3 * HOUR));
    await t.context.orders.announcementsSettled();
    expect(await jobsOf(placed.id)).toBe(0);
    expect(await chargesOf(placed.id)).toBe(0);
    expect((await seller.get(`/api/orders/${placed.id}`)).body.status).toBe('cancelled');
    const again = await seller.post(`/api/orders/${placed.id}/cancel`, {});
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('This order is already cancelled.');
  });

  it('releases the order when the window ends: print jobs made, charged once; then changes are refused, saying why', async () => {
    const placed = await placeOrder();
    // Not yet due: nothing moves.
    await t.context.orders.releaseDue(new Date(Date.now() + HOUR));
    expect((await seller.get(`/api/orders/${placed.id}`)).body.status).toBe('received');
    expect(await t.context.orders.releaseDue(new Date(Date.now() + 3 * HOUR))).toBeGreaterThanOrEqual(1);
    await t.context.orders.announcementsSettled();
    const released = (await seller.get(`/api/orders/${placed.id}`)).body;
    expect(released.status).toBe('accepted');
    expect(released.releasedAt).not.toBeNull();
    expect(released.events.at(-1)).toMatchObject({ fromStatus: 'received', toStatus: 'accepted', actorKind: 'system' });
    expect(released.events.at(-1).reason).toMatch(/change window ended/);
    expect(await jobsOf(placed.id)).toBeGreaterThan(0);
    expect(await chargesOf(placed.id)).toBe(1);

    const cancel = await seller.post(`/api/orders/${placed.id}/cancel`, {});
    expect(cancel.status).toBe(409);
    expect(cancel.body.error).toMatch(/released to production on .* can no longer be cancelled at no cost/);
    const move = await v1('PUT', `/api/v1/orders/${placed.id}/shipping-address`, { shippingAddress: NEW_ADDRESS });
    expect(move.status).toBe(409);
    expect(move.body.error).toMatch(/address can no longer be changed/);
  });
});
