import http from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uploadDesign, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { boxStl } from '../../../test/hostile-models.ts';
import type { ChargeChangedEvent } from '../payments/payment-events.ts';
import { verifyWebhook } from './webhook-signature.ts';

/**
 * The events a seller's webhook endpoint gets besides every status change (issue 13): the order
 * charged (told by the payments module), shipped with its tracking, delivered. A real order is printed
 * by the farm's autopilot on a simulated printer, its label bought from the sandbox carrier and
 * tracked to delivered; the seller's receiver is a local HTTP server that checks each signature.
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

let t: TestApp;
let admin: SignedInClient;
let seller: SignedInClient;
let secret: string;
let receiver: {
  url: string;
  received: { headers: http.IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
};

async function waitFor<T>(
  probe: () => T | Promise<T>,
  what: string,
  timeoutMs = 30_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The events the receiver got of one type for one order, parsed. */
const eventsOf = (type: string, orderId: string): any[] =>
  receiver.received
    .map((r) => JSON.parse(r.body))
    .filter((event) => event.type === type && event.data.order.id === orderId);

/** The Standard Webhooks signature, recomputed here independently of the server's code. */
const expectedSignature = (id: string, timestamp: string, body: string): string =>
  `v1,${createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
    .update(`${id}.${timestamp}.${body}`)
    .digest('base64')}`;

/** The delivery of one event, its signature checked both ways. */
function signedDelivery(eventId: string) {
  const delivery = receiver.received.find((r) => r.headers['webhook-id'] === eventId)!;
  const headers = {
    id: eventId,
    timestamp: String(delivery.headers['webhook-timestamp']),
    signature: String(delivery.headers['webhook-signature']),
  };
  expect(headers.signature).toBe(expectedSignature(headers.id, headers.timestamp, delivery.body));
  expect(verifyWebhook(secret, headers, delivery.body)).toBe(true);
  expect(verifyWebhook(secret, headers, delivery.body.replace('"order', '"0rder'))).toBe(false);
  return delivery;
}

beforeAll(async () => {
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.statusCode = 204;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  t = await startTestApp({
    // The receiver listens on 127.0.0.1: allowed only with this setting.
    ALLOW_LOCAL_WEBHOOK_RECEIVERS: 'true',
    FARM_TICK_S: '0.2',
    FARM_AUTOPILOT: 'true',
    FARM_AUTOPILOT_DELAY_S: '0',
    SANDBOX_CARRIER_DAY_S: '0.5',
    TRACKING_POLL_S: '3600',
  });
  [admin, seller] = await Promise.all([t.signUp({ role: 'admin' }), t.signUp({ role: 'beta' })]);
  expect(
    (
      await admin.post('/api/admin/printers', {
        name: 'Sim hooks',
        buildVolumeMm: { x: 250, y: 250, z: 250 },
        nozzleMm: 0.4,
        connection: { kind: 'simulated', speedFactor: 100_000 },
      })
    ).status,
  ).toBe(201);
  const design = await uploadDesign(seller, boxStl(20, 20, 20), 'box.stl');
  const product = await seller.post('/api/products', {
    name: 'Hook box',
    variants: [
      { name: 'Box', sku: 'HOOK-BOX', parts: [{ printConfigId: design.printConfigs[0].id, quantity: 1 }] },
    ],
  });
  expect(product.status).toBe(201);
  const endpoint = await seller.request<any>('PUT', '/api/webhook-endpoint', { url: receiver.url }, {});
  expect(endpoint.status).toBe(200);
  secret = endpoint.body.secret;
}, 120_000);
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

describe('seller webhook events', () => {
  let orderId: string;

  it('sends order.shipped with the parcel’s carrier, tracking number and tracking URL, signed', async () => {
    const created = await seller.post('/api/orders/manual', {
      items: [{ sku: 'HOOK-BOX', quantity: 1 }],
      shippingAddress: ADDRESS,
    });
    expect(created.status).toBe(201);
    orderId = created.body.id;
    await waitFor(
      async () => (await admin.get(`/api/orders/${orderId}`)).body.status === 'packed',
      'the packed order',
    );
    const bought = await admin.post(`/api/admin/shipping/orders/${orderId}/labels`, {});
    expect(bought.status).toBe(200);
    const [label] = bought.body.shipments;
    // The sandbox carrier's tracking page is a page of this site: the app links to its path.
    expect(label.trackingUrl).toBe(`/tracking/${label.trackingNumber}`);
    // Without PUBLIC_URL the receiver is told this server's configured address, as the emails are.
    const trackingUrl = `http://localhost:${t.context.config.port}${label.trackingUrl}`;

    const [shipped] = await waitFor(
      () => (eventsOf('order.shipped', orderId).length ? eventsOf('order.shipped', orderId) : null),
      'order.shipped',
    );
    expect(shipped.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(shipped.data.tracking).toEqual([
      {
        carrier: label.carrier,
        service: label.service,
        trackingNumber: label.trackingNumber,
        trackingUrl,
      },
    ]);
    expect(shipped.data.order.shipments.map((s: any) => s.trackingUrl)).toEqual([trackingUrl]);
    expect(shipped.data.tracking[0].trackingNumber).not.toBe('');
    expect(shipped.data.order).toMatchObject({ id: orderId, status: 'shipped' });
    signedDelivery(shipped.id);
    // The status change itself is told as before, under its own id.
    const changed = await waitFor(
      () =>
        receiver.received
          .map((r) => JSON.parse(r.body))
          .find(
            (e) =>
              e.type === 'order.status_changed' && e.data.order.id === orderId && e.data.status === 'shipped',
          ),
      'the status change',
    );
    expect(changed.id).not.toBe(shipped.id);
    expect(changed.data.order.shipments.map((s: any) => s.trackingUrl)).toEqual([trackingUrl]);
  });

  it('answers the order API with the tracking page’s absolute address (the request’s origin without PUBLIC_URL)', async () => {
    const key = (await seller.post('/api/api-keys', { name: 'tracking' })).body.key as string;
    const read = await fetch(new URL(`/api/v1/orders/${orderId}`, t.baseUrl), {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(read.status).toBe(200);
    const [shipment] = ((await read.json()) as any).shipments;
    expect(shipment.trackingUrl).toBe(`${t.baseUrl}/tracking/${shipment.trackingNumber}`);
    // The app's own order page keeps the path, which it follows within the site.
    const inApp = (await seller.get(`/api/orders/${orderId}`)).body;
    expect(inApp.shipments[0].trackingUrl).toBe(`/tracking/${shipment.trackingNumber}`);
  });

  it('sends order.delivered once the parcel is delivered, and each event once', async () => {
    // A sandbox day is half a second here: a 5-day parcel is delivered within 3 s.
    await new Promise((resolve) => setTimeout(resolve, 3_200));
    await t.context.shipping.trackingPass(0, 60_000);
    const [delivered] = await waitFor(
      () => (eventsOf('order.delivered', orderId).length ? eventsOf('order.delivered', orderId) : null),
      'order.delivered',
    );
    expect(delivered.data.order).toMatchObject({ id: orderId, status: 'delivered' });
    expect(delivered.data.deliveredAt).toBe(delivered.data.order.shipments[0].deliveredAt);
    signedDelivery(delivered.id);
    // The outbox sweep announcing everything again sends nothing new.
    await t.context.orders.announcePending(0, 100);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(eventsOf('order.shipped', orderId)).toHaveLength(1);
    expect(eventsOf('order.delivered', orderId)).toHaveLength(1);

    const listed = (await seller.get('/api/webhook-endpoint/deliveries')).body.items.filter(
      (d: any) => d.orderId === orderId,
    );
    expect(listed.map((d: any) => d.type)).toEqual(
      expect.arrayContaining(['order.status_changed', 'order.shipped', 'order.delivered']),
    );
  });

  it('announceCharged sends order.charged once, however often it is told, and only for a succeeded charge', async () => {
    const charge: ChargeChangedEvent = {
      chargeId: 'ch_hooks_1',
      ownerId: seller.userId,
      orderId,
      orderNumber: 'M-HOOKS',
      kind: 'order',
      from: 'processing',
      to: 'succeeded',
      amountCents: 1234,
      refundedCents: 0,
      currency: 'USD',
      failureReason: null,
      actionUrl: null,
    };
    await Promise.all([
      t.context.webhookDeliveries.announceCharged(charge),
      t.context.webhookDeliveries.announceCharged(charge),
    ]);
    await t.context.webhookDeliveries.announceCharged(charge);
    await t.context.webhookDeliveries.announceCharged({
      ...charge,
      chargeId: 'ch_hooks_2',
      from: 'processing',
      to: 'failed',
      failureReason: 'Declined',
    });
    const [charged] = await waitFor(
      () => (eventsOf('order.charged', orderId).length ? eventsOf('order.charged', orderId) : null),
      'order.charged',
    );
    expect(charged.data.charge).toEqual({
      id: 'ch_hooks_1',
      amountCents: 1234,
      currency: 'USD',
      kind: 'order',
    });
    expect(charged.data.order.id).toBe(orderId);
    signedDelivery(charged.id);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(eventsOf('order.charged', orderId)).toHaveLength(1);
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === charged.id)).toHaveLength(1);
    // A charge of another seller that names this order tells this seller nothing.
    await t.context.webhookDeliveries.announceCharged({
      ...charge,
      chargeId: 'ch_hooks_3',
      ownerId: admin.userId,
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(eventsOf('order.charged', orderId)).toHaveLength(1);
  });
});
