import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { product, productVariant, webhookDelivery } from '../../db/schema.ts';
import { toPublicOrder } from './order-api-service.ts';
import { WebhookRetryableError, type StatusChange } from './webhook-delivery-service.ts';

/**
 * The webhook worker takes a batch of delivery jobs at once (one read of the deliveries, one of their
 * sellers' endpoints, the POSTs side by side, one statement recording every attempt): each job of a
 * mixed batch still gets its own outcome and its own record, exactly as one job at a time did.
 * Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */

const ADDRESS = { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' };

let t: TestApp;
let receiver: { url(path: string): string; requests: { path: string; eventId: string; body: string }[]; close(): Promise<void> };

/** Answers by path: /ok 200, /down 503, /gone 410. */
async function startReceiver() {
  const requests: { path: string; eventId: string; body: string }[] = [];
  const statuses: Record<string, number> = { '/ok': 200, '/down': 503, '/gone': 410 };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({ path: request.url ?? '', eventId: String(request.headers['webhook-id']), body: Buffer.concat(chunks).toString('utf8') });
      response.statusCode = statuses[request.url ?? ''] ?? 404;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A seller with an endpoint at `path` and one order; returns the order's recorded (not queued) delivery job. */
async function sellerWithDelivery(path: string | null): Promise<{ seller: SignedInClient; job: { deliveryId: string; ownerId: string; eventId: string } }> {
  const seller = await t.signUp({ role: 'beta' });
  const ingested = await t.context.orderIngestion.ingest({
    ownerId: seller.userId,
    channel: `api:${seller.userId}`,
    shopId: null,
    platform: 'api',
    order: {
      externalId: `BATCH-${randomUUID()}`,
      note: '',
      placedAt: new Date(),
      customerName: ADDRESS.name,
      shippingAddress: { company: '', line2: '', region: '', phone: '', email: '', ...ADDRESS },
      currency: 'USD',
      totalCents: null,
      cancelled: false,
      items: [{ externalItemId: '1', sku: 'NO-SUCH-SKU', title: '', quantity: 1, unitPriceCents: null }],
    },
    actor: { kind: 'user', id: seller.userId },
  });
  await t.context.orders.announcementsSettled();
  // The endpoint is set after the creation was announced, so the only delivery is the one recorded here.
  await t.context.webhookEndpoints.set(seller.userId, receiver.url(path ?? '/ok'));
  const [job] = await t.context.webhookDeliveries.recordMany([
    { announcementId: randomUUID(), orderId: ingested.orderId, ownerId: seller.userId, from: 'on_hold', to: 'accepted' },
  ]);
  expect(job).toBeDefined();
  if (path === null) await t.context.webhookEndpoints.remove(seller.userId);
  return { seller, job: job! };
}

const rowsOf = async (ids: string[]) =>
  new Map((await t.context.db.select().from(webhookDelivery).where(inArray(webhookDelivery.id, ids))).map((row) => [row.id, row]));

beforeAll(async () => {
  t = await startTestApp({ ALLOW_LOCAL_WEBHOOK_RECEIVERS: 'true' });
  receiver = await startReceiver();
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

describe('webhook deliveries, a batch of jobs at a time', () => {
  it('gives each job of a mixed batch its own outcome and record, and sends a delivery twice in one batch once', async () => {
    const delivered = await sellerWithDelivery('/ok');
    const retried = await sellerWithDelivery('/down');
    const lastTry = await sellerWithDelivery('/down');
    const refused = await sellerWithDelivery('/gone');
    const noEndpoint = await sellerWithDelivery(null);
    const before = receiver.requests.length;

    const outcomes = await t.context.webhookDeliveries.deliverMany([
      { data: delivered.job, lastAttempt: false },
      { data: retried.job, lastAttempt: false },
      { data: lastTry.job, lastAttempt: true },
      { data: refused.job, lastAttempt: false },
      { data: noEndpoint.job, lastAttempt: false },
      { data: { deliveryId: 'not-a-uuid' }, lastAttempt: false },
      // The same delivery again in the same batch (a resend beside its first job).
      { data: delivered.job, lastAttempt: false },
    ]);

    expect(outcomes[0]).toBe('delivered');
    expect(outcomes[1]).toBeInstanceOf(WebhookRetryableError);
    expect((outcomes[1] as Error).message).toContain('503');
    expect(outcomes[2]).toBeInstanceOf(WebhookRetryableError);
    expect(outcomes[3]).toBe('refused');
    expect(outcomes[4]).toBe('failed');
    expect(outcomes[5]).toBeInstanceOf(Error);
    expect(outcomes[6]).toBe('gone');

    // One POST each for the four with an endpoint (the repeated job sent nothing), signed with its event id.
    const sent = receiver.requests.slice(before);
    expect(sent.map((r) => r.eventId).sort()).toEqual([delivered, retried, lastTry, refused].map((d) => d.job.eventId).sort());

    const rows = await rowsOf([delivered, retried, lastTry, refused, noEndpoint].map((d) => d.job.deliveryId));
    expect(rows.get(delivered.job.deliveryId)).toMatchObject({ state: 'delivered', attempts: 1, lastStatusCode: 200, lastError: '' });
    expect(rows.get(delivered.job.deliveryId)!.deliveredAt).not.toBeNull();
    expect(rows.get(retried.job.deliveryId)).toMatchObject({ state: 'pending', attempts: 1, lastStatusCode: 503, lastError: 'The receiver answered 503', deliveredAt: null });
    expect(rows.get(lastTry.job.deliveryId)).toMatchObject({ state: 'failed', attempts: 1, lastStatusCode: 503 });
    expect(rows.get(refused.job.deliveryId)).toMatchObject({ state: 'refused', attempts: 1, lastStatusCode: 410 });
    expect(rows.get(refused.job.deliveryId)!.lastError).toContain('not retried');
    // No endpoint any more: settled without an attempt.
    expect(rows.get(noEndpoint.job.deliveryId)).toMatchObject({ state: 'failed', attempts: 0, lastStatusCode: null, lastError: 'No webhook endpoint is set any more' });

    // At least once: the batch run again sends only what is still to send (the retryable one), and
    // the single-job entry point answers the same as the batch.
    const again = await t.context.webhookDeliveries.deliverMany([
      { data: delivered.job, lastAttempt: false },
      { data: refused.job, lastAttempt: false },
      { data: retried.job, lastAttempt: false },
    ]);
    expect(again.slice(0, 2)).toEqual(['gone', 'gone']);
    expect(again[2]).toBeInstanceOf(WebhookRetryableError);
    expect(receiver.requests.slice(before + sent.length).map((r) => r.eventId)).toEqual([retried.job.eventId]);
    expect((await rowsOf([retried.job.deliveryId])).get(retried.job.deliveryId)).toMatchObject({ state: 'pending', attempts: 2 });
    expect(await t.context.webhookDeliveries.deliver(delivered.job, { lastAttempt: false })).toBe('gone');
    await expect(t.context.webhookDeliveries.deliver(retried.job, { lastAttempt: true })).rejects.toThrow(/503/);
    expect((await rowsOf([retried.job.deliveryId])).get(retried.job.deliveryId)).toMatchObject({ state: 'failed', attempts: 3 });
  });
});

describe('the webhook of a new order', () => {
  it('describes the order as a read of it does, without reading it, for every kind of new order', async () => {
    const seller = await t.signUp({ role: 'beta' });
    await t.context.webhookEndpoints.set(seller.userId, receiver.url('/ok'));
    const [p] = await t.context.db.insert(product).values({ ownerId: seller.userId, name: 'Lamp' }).returning({ id: product.id });
    for (const sku of ['LAMP-S', 'LAMP-L', 'Läмп-ü']) await t.context.db.insert(productVariant).values({ productId: p!.id, ownerId: seller.userId, name: sku, sku });
    const key = (await t.context.apiKeys.create(seller.userId, 'webhook test')).key;
    const post = async (body: unknown) => {
      const response = await fetch(new URL('/api/v1/orders', t.baseUrl), {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { id: string }).id;
    };
    const recorded = vi.spyOn(t.context.webhookDeliveries, 'recordMany');
    let ids: string[];
    try {
      ids = [
        // Several items (listed by SKU, byte order), a minimal address (its empty fields filled in).
        await post({ externalId: 'NEW-1', items: [{ sku: 'LAMP-S', quantity: 2 }, { sku: 'Läмп-ü', quantity: 1 }, { sku: 'LAMP-L', quantity: 3 }], shippingAddress: ADDRESS }),
        // An unknown SKU: on hold, with the reason.
        await post({ externalId: 'NEW-2', items: [{ sku: 'NOPE', quantity: 1 }, { sku: 'LAMP-S', quantity: 1 }], shippingAddress: { ...ADDRESS, company: 'Acme', phone: '+1 555 0100' } }),
        // A manual order: another channel and platform, the same path.
        ((await seller.post('/api/orders/manual', { items: [{ sku: 'LAMP-L', quantity: 1 }], shippingAddress: ADDRESS })).body as { id: string }).id,
      ];
      await t.context.orders.announcementsSettled();
      // Each new order was announced with its stored copy, so its event was described from it, not
      // read back (recordMany reads only the changes announced without it: a later change, or the
      // sweep re-announcing one on a busy machine, after the first announcement).
      const firstAnnouncements = new Map<string, StatusChange>();
      for (const [changes] of recorded.mock.calls)
        for (const change of changes) if (change.from === null && ids.includes(change.orderId) && !firstAnnouncements.has(change.orderId)) firstAnnouncements.set(change.orderId, change);
      expect([...firstAnnouncements.keys()].sort()).toEqual([...ids].sort());
      for (const change of firstAnnouncements.values()) expect(change.created).toBeDefined();
    } finally {
      recorded.mockRestore();
    }
    for (const id of ids) {
      const sent = await waitFor(() => receiver.requests.find((r) => r.path === '/ok' && JSON.parse(r.body).data.order.id === id));
      const event = JSON.parse(sent.body);
      expect(event.data).toMatchObject({ previousStatus: null });
      // Exactly what a read of the order gives (the order API's GET, and the public form of the order page).
      const read = await fetch(new URL(`/api/v1/orders/${id}`, t.baseUrl), { headers: { authorization: `Bearer ${key}` } });
      expect(event.data.order).toEqual(await read.json());
      expect(event.data.order).toEqual(toPublicOrder(await t.context.orders.get({ id: seller.userId, isAdmin: false }, id), t.baseUrl));
      expect(event.data.status).toBe(event.data.order.status);
    }
  });
});

async function waitFor<T>(probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting for a webhook');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
