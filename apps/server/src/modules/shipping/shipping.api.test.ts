import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uploadDesign, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { boxStl } from '../../../test/hostile-models.ts';
import { fulfillmentRecord, orderPrice, sellerShipping, shipment, shopConnection, trackingEvent } from '../../db/schema.ts';
import { createSandboxCarrier } from '../../integrations/sandbox-carrier/sandbox-carrier.ts';
import { createSecretBox } from '../../platform/secret-box.ts';
import { searchTextOf } from '../fulfillment/fulfillment-repository.ts';
import { createOrderRepository } from '../orders/order-repository.ts';
import { createShippingModule } from './shipping-module.ts';
import { ShippingUnavailableError, type ShippingProvider } from './shipping-provider.ts';

/**
 * Shipping through the real server and database (issue 12): the seller's settings, shipping profiles,
 * rates against the delivery promise, labels bought once (a double click, a timeout mid-purchase),
 * split parcels, holds for a rejected address and a part no parcel takes, voids, the tracking back to
 * the sandbox shop (and a marketplace refusing it), tracking updates to delivered, webhooks that are
 * forged or replayed, and the fulfilment record of every label. The sandbox carrier stands in for the
 * provider (ShipStation and Shippo have their own contract tests). Orders are printed by the farm's
 * autopilot on simulated printers; labels are bought by these tests (SHIPPING_AUTO_BUY is off in tests).
 * Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */

const ADDRESS = { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62704', country: 'US' };

let t: TestApp;
/** ShipStation's classic API as far as checking keys goes: GET /carriers with Basic auth (ShipStation API v1 docs, "List Carriers"). */
let shipStation: Server;
const GOOD_KEY = 'ss-key-0123456789abcd';
const GOOD_SECRET = 'ss-secret-9876543210wxyz';
const V2_KEY = 'TEST_v2-key-0123456789';
const V2_TRACKING = '9400111899223197428490';
let admin: SignedInClient;
let seller: SignedInClient;
let other: SignedInClient;

const orderOf = async (orderId: string) => (await admin.get(`/api/orders/${orderId}`)).body;

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`Timed out; last value: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A manual order of the seller, printed and packed by the autopilot farm. */
async function packedOrder(sku: string, quantity = 1, address: Record<string, string> = ADDRESS): Promise<string> {
  const created = await seller.post('/api/orders/manual', { items: [{ sku, quantity }], shippingAddress: address });
  expect(created.status).toBe(201);
  await waitFor(() => orderOf(created.body.id), (o) => o.status === 'packed');
  return created.body.id as string;
}

beforeAll(async () => {
  shipStation = createServer((request, response) => {
    const json = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    // API v2 (ShipStation API v2 docs: API-Key header; list carriers, list labels by tracking number, track a label).
    if (request.url?.startsWith('/v2/')) {
      if (request.headers['api-key'] !== V2_KEY) return json(401, { errors: [{ error_source: 'shipstation', error_type: 'security', error_code: 'unauthorized', message: 'The API key is invalid.' }] });
      const url = new URL(request.url, 'http://localhost');
      if (url.pathname === '/v2/carriers') return json(200, { carriers: [{ carrier_id: 'se-123456' }] });
      if (url.pathname === '/v2/labels') {
        const number = url.searchParams.get('tracking_number');
        return json(200, { labels: number === V2_TRACKING ? [{ label_id: 'se-777777', status: 'completed', voided: false, tracking_number: number, carrier_code: 'stamps_com' }] : [] });
      }
      if (url.pathname === '/v2/labels/se-777777/track') {
        return json(200, {
          tracking_number: V2_TRACKING,
          status_code: 'DE',
          events: [
            { occurred_at: '2026-11-20T15:00:00Z', description: 'Accepted at USPS Origin Facility', city_locality: 'Columbus', state_province: 'OH', status_code: 'AC' },
            { occurred_at: '2026-11-22T17:30:00Z', description: 'Delivered, In/At Mailbox', city_locality: 'Springfield', state_province: 'IL', status_code: 'DE' },
          ],
        });
      }
      return json(404, { errors: [{ error_source: 'shipstation', error_type: 'validation', error_code: 'not_found', message: 'Not found' }] });
    }
    const expected = `Basic ${Buffer.from(`${GOOD_KEY}:${GOOD_SECRET}`).toString('base64')}`;
    if (request.url !== '/carriers' || request.headers.authorization !== expected) {
      response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ Message: 'Authorization has been denied for this request.' }));
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify([{ name: 'Stamps.com', code: 'stamps_com', accountNumber: 'SS123', requiresFundedAccount: true, balance: 24.5, nickname: null, shippingProviderId: 12345, primary: true }]),
    );
  });
  await new Promise<void>((resolve) => shipStation.listen(0, '127.0.0.1', resolve));
  t = await startTestApp({
    SHIPSTATION_V1_URL: `http://127.0.0.1:${(shipStation.address() as AddressInfo).port}`,
    SHIPSTATION_V2_URL: `http://127.0.0.1:${(shipStation.address() as AddressInfo).port}`,
    FARM_TICK_S: '0.2',
    FARM_AUTOPILOT: 'true',
    FARM_AUTOPILOT_DELAY_S: '0',
    SANDBOX_CARRIER_DAY_S: '0.5',
    TRACKING_POLL_S: '3600',
    MAX_BUILD_VOLUME_MM: '400,400,400',
  });
  [admin, seller, other] = await Promise.all([t.signUp({ role: 'admin' }), t.signUp({ role: 'beta' }), t.signUp({ role: 'beta' })]);
  const printer = await admin.post('/api/admin/printers', {
    name: 'Sim ship',
    buildVolumeMm: { x: 300, y: 300, z: 300 },
    nozzleMm: 0.4,
    connection: { kind: 'simulated', speedFactor: 100_000 },
  });
  expect(printer.status).toBe(201);
  const small = await uploadDesign(seller, boxStl(20, 20, 20), 'box.stl');
  const tall = await uploadDesign(seller, boxStl(60, 60, 180), 'tall.stl');
  const product = await seller.post('/api/products', {
    name: 'Shipping set',
    variants: [
      { name: 'Box', sku: 'BOX', parts: [{ printConfigId: small.printConfigs[0].id, quantity: 1 }] },
      { name: 'Tower', sku: 'TOWER', parts: [{ printConfigId: tall.printConfigs[0].id, quantity: 1 }] },
      // The sandbox shop's catalogue, all printed as the small box.
      ...['LL-VASE-TWIST', 'LL-PLANTER-S', 'LL-PLANTER-M', 'LL-PLANTER-L', 'LL-DRAGON-ART', 'LL-CABLE-ORG-4'].map((sku) => ({
        name: sku,
        sku,
        parts: [{ printConfigId: small.printConfigs[0].id, quantity: 1 }],
      })),
    ],
  });
  expect(product.status).toBe(201);
}, 120_000);
afterAll(async () => {
  await t?.close();
  shipStation?.close();
});

describe('settings', () => {
  it('starts on the sandbox carrier with the default profile; only admins act for another seller', async () => {
    const mine = await seller.get('/api/shipping/settings');
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({
      integration: 'sandbox',
      shipStation: { configured: false, apiKeyLast4: null },
      shippo: { available: false, connected: false },
      profile: { name: 'Standard', promise: 'Standard: within 5 days' },
      shipStationWebhookUrl: `/api/webhooks/shipstation/${t.context.shipping.tokens.shipStation(seller.userId)}`,
    });
    expect((await admin.get('/api/admin/shipping-profiles')).body.shippoWebhookUrl).toBe(`/api/webhooks/shippo/${t.context.shipping.tokens.shippo()}`);
    expect((await seller.get(`/api/shipping/settings?targetUserId=${other.userId}`)).status).toBe(403);
    expect((await admin.get(`/api/shipping/settings?targetUserId=${seller.userId}`)).body.integration).toBe('sandbox');
    expect((await t.client().get('/api/shipping/settings')).status).toBe(401);
    // An integration that is not connected cannot be chosen.
    const refused = await seller.post('/api/shipping/integration', { integration: 'shipstation' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/ShipStation API keys/);
    expect((await seller.post('/api/shipping/integration', { integration: 'shippo' })).status).toBe(409);
    // Shippo is not configured on this server: connecting says so.
    const authorize = await seller.post('/api/shippo/authorize', {});
    expect(authorize.status).toBe(409);
    expect(authorize.body.error).toMatch(/not configured on this server/);
  });
});

describe('shipping profiles', () => {
  const profile = (name: string, parcels: unknown[], extra: Record<string, unknown> = {}) => ({
    name,
    handlingDays: 1,
    promiseLabel: 'Standard',
    promiseDays: 5,
    origin: { name: 'Farm', line1: '1 Printer Way', city: 'Columbus', region: 'OH', postalCode: '43004', country: 'US' },
    parcels,
    ...extra,
  });
  const parcel = (id: string, l: number, w: number, h: number, maxGrams = 5000) => ({ id, name: id, lengthMm: l, widthMm: w, heightMm: h, tareGrams: 50, maxGrams, costCents: 40 });

  it('are admin only, validated, and the default cannot be deleted', async () => {
    expect((await seller.get('/api/admin/shipping-profiles')).status).toBe(403);
    const list = await admin.get('/api/admin/shipping-profiles');
    expect(list.status).toBe(200);
    const standard = list.body.items.find((p: any) => p.isDefault);
    expect(standard).toMatchObject({ name: 'Standard', promiseDays: 5 });
    expect((await admin.request('DELETE', `/api/admin/shipping-profiles/${standard.id}`, undefined, {})).status).toBe(409);
    const bad = await admin.post('/api/admin/shipping-profiles', profile('Bad', []));
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/at least one parcel/i);
    const tare = await admin.post('/api/admin/shipping-profiles', profile('Heavy box', [{ ...parcel('x', 100, 100, 100), tareGrams: 6000 }]));
    expect(tare.status).toBe(400);
    const made = await admin.post('/api/admin/shipping-profiles', profile('Spare', [parcel('s', 100, 100, 100)]));
    expect(made.status).toBe(201);
    expect((await admin.request('DELETE', `/api/admin/shipping-profiles/${made.body.id}`, undefined, {})).status).toBe(204);
  });

  it('split an order that no parcel takes whole, and hold one with a part no parcel takes', async () => {
    // Tiny parcels that take one 20 mm box each (a second one would overfill it), given to the seller for this test.
    const tiny = await admin.post('/api/admin/shipping-profiles', profile('One box per parcel', [parcel('tiny', 25, 25, 25)]));
    expect(tiny.status).toBe(201);
    const assigned = await admin.post('/api/admin/shipping-profiles/assign', { profileId: tiny.body.id, targetUserId: seller.userId });
    expect(assigned.status).toBe(200);
    expect(assigned.body.profile.name).toBe('One box per parcel');
    try {
      const split = await packedOrder('BOX', 3);
      const rates = await admin.get(`/api/admin/shipping/orders/${split}/rates`);
      expect(rates.status).toBe(200);
      expect(rates.body.parcels).toHaveLength(3);
      const bought = await admin.post(`/api/admin/shipping/orders/${split}/labels`, {});
      expect(bought.status).toBe(200);
      expect(bought.body.shipments.map((s: any) => [s.parcelIndex, s.parcelCount, s.status])).toEqual([
        [0, 3, 'purchased'],
        [1, 3, 'purchased'],
        [2, 3, 'purchased'],
      ]);
      const shipped = await orderOf(split);
      expect(shipped.status).toBe('shipped');
      expect(new Set(shipped.shipments.map((s: any) => s.trackingNumber)).size).toBe(3);
      // A tower (180 mm tall) fits no 25 mm parcel: the order is held with the reason, nothing is bought.
      const tower = await packedOrder('TOWER');
      const refused = await admin.post(`/api/admin/shipping/orders/${tower}/labels`, {});
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatch(/fits no parcel size/);
      const held = await orderOf(tower);
      expect(held.status).toBe('on_hold');
      expect(held.holdReason).toMatch(/^Shipping: .*fits no parcel size/);
      expect(held.shipments).toEqual([]);
      // With the default profile again, buying releases the hold and ships it.
      await admin.post('/api/admin/shipping-profiles/assign', { profileId: null, targetUserId: seller.userId });
      const again = await admin.post(`/api/admin/shipping/orders/${tower}/labels`, {});
      expect(again.status).toBe(200);
      expect((await orderOf(tower)).status).toBe('shipped');
    } finally {
      await admin.post('/api/admin/shipping-profiles/assign', { profileId: null, targetUserId: seller.userId });
    }
  }, 90_000);
});

describe('a parcel no carrier takes', () => {
  it('answers the provider’s refusal in words when shopping rates, and holds the order when the label is bought by the farm', async () => {
    const huge = await admin.post('/api/admin/shipping-profiles', {
      name: 'Crates only',
      handlingDays: 1,
      promiseLabel: 'Freight',
      promiseDays: 20,
      origin: { name: 'Farm', line1: '1 Printer Way', city: 'Columbus', region: 'OH', postalCode: '43004', country: 'US' },
      // Over a metre long: more than any sandbox service takes.
      parcels: [{ id: 'crate', name: 'Crate', lengthMm: 1200, widthMm: 400, heightMm: 400, tareGrams: 5000, maxGrams: 40_000, costCents: 900 }],
    });
    expect(huge.status).toBe(201);
    await admin.post('/api/admin/shipping-profiles/assign', { profileId: huge.body.id, targetUserId: seller.userId });
    try {
      const orderId = await packedOrder('BOX');
      const rates = await admin.get(`/api/admin/shipping/orders/${orderId}/rates`);
      expect(rates.status).toBe(422);
      expect(rates.body.error).toMatch(/No sandbox service takes a parcel/);
      // The farm's own purchase (the buy-label job's work) holds the order with the same words.
      await t.context.shipping.labels.autoBuy(orderId);
      const held = await orderOf(orderId);
      expect(held.status).toBe('on_hold');
      expect(held.holdReason).toMatch(/^Shipping: the label could not be bought: .*No sandbox service takes a parcel/);
    } finally {
      await admin.post('/api/admin/shipping-profiles/assign', { profileId: null, targetUserId: seller.userId });
    }
  }, 60_000);
});

describe('labels', () => {
  it('shops rates against the promise, buys once however often it is asked, and keeps the record', async () => {
    const orderId = await packedOrder('BOX');
    const rates = await admin.get(`/api/admin/shipping/orders/${orderId}/rates`);
    expect(rates.status).toBe(200);
    expect(rates.body).toMatchObject({ orderId, integration: 'sandbox', promise: 'Standard: within 5 days' });
    const [{ rates: offered }] = rates.body.parcels;
    expect(offered.length).toBeGreaterThan(2);
    const recommended = offered.filter((r: any) => r.recommended);
    expect(recommended).toHaveLength(1);
    // The recommended rate is the cheapest that keeps the promise.
    const onTime = offered.filter((r: any) => r.meetsPromise).sort((a: any, b: any) => a.amountCents - b.amountCents);
    expect(recommended[0].rateId).toBe(onTime[0].rateId);
    // Rates are sorted cheapest first and priced in whole cents.
    expect(offered.map((r: any) => r.amountCents)).toEqual([...offered.map((r: any) => r.amountCents)].sort((a: number, b: number) => a - b));

    // A person picks a dearer rate; a tampered rate id is refused.
    const chosen = offered.find((r: any) => !r.recommended)!;
    const tampered = await admin.post(`/api/admin/shipping/orders/${orderId}/labels`, { rateIds: [`${chosen.rateId.slice(0, -2)}xx`] });
    expect(tampered.status).toBe(400);
    expect((await orderOf(orderId)).status).toBe('packed');
    // A double click: five purchases at once buy one label.
    const answers = await Promise.all(Array.from({ length: 5 }, () => admin.post(`/api/admin/shipping/orders/${orderId}/labels`, { rateIds: [chosen.rateId] })));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    const rows = await t.context.db.select().from(shipment).where(eq(shipment.orderId, orderId));
    expect(rows.filter((r) => r.status === 'purchased')).toHaveLength(1);
    const [label] = rows.filter((r) => r.status === 'purchased');
    expect(label).toMatchObject({ service: chosen.service, costCents: chosen.amountCents, writeback: 'none' });

    const shipped = await orderOf(orderId);
    expect(shipped.status).toBe('shipped');
    expect(shipped.shipments[0]).toMatchObject({ trackingNumber: label!.trackingNumber, labelUrl: `/api/shipping/shipments/${label!.id}/label` });
    expect(shipped.shipments[0].trackingUrl).toMatch(/\/tracking\/SBX/);
    expect(shipped.events.at(-1).reason).toContain(label!.trackingNumber);
    // The order API shows the seller's integration the tracking (its webhooks carry the same order).
    const key = (await seller.post('/api/api-keys', { name: 'shipping test' })).body.key as string;
    const viaApi = await t.client().get(`/api/v1/orders/${orderId}`, { authorization: `Bearer ${key}` });
    expect(viaApi.status).toBe(200);
    expect(viaApi.body.shipments).toEqual([
      expect.objectContaining({ trackingNumber: label!.trackingNumber, carrier: label!.carrier, service: chosen.service, status: 'purchased', deliveredAt: null }),
    ]);
    // Asking again answers the same label.
    const repeat = await admin.post(`/api/admin/shipping/orders/${orderId}/labels`, {});
    expect(repeat.body.shipments.map((s: any) => s.id)).toEqual([label!.id]);

    // The label PDF: the seller's own and admins'; another seller sees nothing.
    const pdf = await fetch(new URL(shipped.shipments[0].labelUrl, t.baseUrl), { headers: { cookie: seller.cookieHeader() } });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');
    expect((await fetch(new URL(shipped.shipments[0].labelUrl, t.baseUrl), { headers: { cookie: other.cookieHeader() } })).status).toBe(404);

    // One fulfilment record, with the order's one stored price (what the seller pays, whatever rate a
    // person chose: the label's own cost is on the shipment), for the seller and for admins.
    const [record] = await t.context.db.select().from(fulfillmentRecord).where(eq(fulfillmentRecord.shipmentId, label!.id));
    const [price] = await t.context.db.select().from(orderPrice).where(eq(orderPrice.orderId, orderId));
    expect(record).toMatchObject({
      orderId,
      ownerId: seller.userId,
      channel: 'manual',
      buyerName: 'Ada Buyer',
      printCostCents: price!.itemsCents,
      shippingCents: price!.shippingCents,
      packagingCents: price!.packagingCents,
      trackingNumber: label!.trackingNumber,
    });
    expect(record!.printCostCents).toBeGreaterThan(0);
    expect(record!.totalCents).toBe(record!.printCostCents + record!.packagingCents + record!.shippingCents);
    const history = await seller.get(`/api/fulfillment-history?searchTerm=${label!.trackingNumber}`);
    expect(history.status).toBe(200);
    expect(history.body.items.map((i: any) => i.orderId)).toEqual([orderId]);
    expect((await other.get(`/api/fulfillment-history?searchTerm=${label!.trackingNumber}`)).body.items).toEqual([]);
    expect((await admin.get(`/api/fulfillment-history?searchTerm=${label!.trackingNumber}`)).body.items).toHaveLength(1);
  }, 60_000);

  it('voids a label through the provider; the order is packed again and a new label is attempt 2', async () => {
    const orderId = await packedOrder('BOX');
    const first = (await admin.post(`/api/admin/shipping/orders/${orderId}/labels`, {})).body.shipments[0];
    expect((await seller.post(`/api/admin/shipping/shipments/${first.id}/void`, {})).status).toBe(403);
    const voided = await admin.post(`/api/admin/shipping/shipments/${first.id}/void`, {});
    expect(voided.status).toBe(200);
    expect(voided.body.status).toBe('voided');
    expect((await orderOf(orderId)).status).toBe('packed');
    expect(await t.context.db.select().from(fulfillmentRecord).where(eq(fulfillmentRecord.shipmentId, first.id))).toEqual([]);
    expect((await admin.post(`/api/admin/shipping/shipments/${first.id}/void`, {})).status).toBe(409);
    const second = (await admin.post(`/api/admin/shipping/orders/${orderId}/labels`, {})).body.shipments;
    expect(second.map((s: any) => [s.attempt, s.status])).toEqual([
      [1, 'voided'],
      [2, 'purchased'],
    ]);
    expect((await orderOf(orderId)).status).toBe('shipped');
  }, 60_000);

  it('holds the order with the carrier’s words when it rejects the address', async () => {
    const orderId = await packedOrder('BOX', 1, { ...ADDRESS, line1: '1 INVALID Road' });
    const refused = await admin.post(`/api/admin/shipping/orders/${orderId}/labels`, {});
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatch(/rejected the address/);
    const held = await orderOf(orderId);
    expect(held.status).toBe('on_hold');
    expect(held.holdReason).toMatch(/^Shipping: the carrier rejected the address/);
    expect(held.shipments.map((s: any) => s.status)).toEqual(['failed']);
    // Nothing was bought, so nothing is in the history.
    expect(await t.context.db.select().from(fulfillmentRecord).where(eq(fulfillmentRecord.orderId, orderId))).toEqual([]);
  }, 60_000);

  it('after a timeout mid-purchase, looks the label up before buying again', async () => {
    const orderId = await packedOrder('BOX');
    const sandbox = createSandboxCarrier({ secondsPerDay: 86_400, trackingBaseUrl: 'http://localhost/tracking' });
    let purchases = 0;
    let lookups = 0;
    // The carrier buys the label, then the answer is lost on the way back (a timeout).
    const flaky: ShippingProvider = {
      ...sandbox,
      async purchaseLabel(credentials, request, rate) {
        purchases += 1;
        await sandbox.purchaseLabel(credentials, request, rate);
        throw new ShippingUnavailableError('The carrier did not answer within 30 s');
      },
      async findLabel(credentials, request) {
        lookups += 1;
        return sandbox.findLabel(credentials, request);
      },
    };
    const ctx = t.context;
    const orderRepository = createOrderRepository(ctx.db);
    const module = createShippingModule({
      db: ctx.db,
      publicUrl: undefined,
      box: createSecretBox(ctx.config.appSecret),
      appSecret: ctx.config.appSecret,
      providers: { sandbox: flaky, shipstation: null as never, shippo: null as never, shippoOAuth: false },
      storage: ctx.storage,
      audit: ctx.audit,
      oauthStates: { insert: async () => undefined, consume: async () => null },
      orders: { detail: (id) => orderRepository.detail(id), find: (id) => orderRepository.find(id), tryTransition: ctx.orders.tryTransition },
      partsOf: async () => [],
      priceOf: async () => null,
      searchTextOf,
      pushToMarketplace: async () => undefined,
      autoBuy: false,
    });
    module.connectQueue({ buyLabels: async () => undefined, writeback: async () => undefined });
    const actor = { id: admin.userId, isAdmin: true };
    await expect(module.labels.buyLabels(actor, orderId)).rejects.toMatchObject({ code: 'unavailable' });
    const [pending] = await ctx.db.select().from(shipment).where(eq(shipment.orderId, orderId));
    expect(pending).toMatchObject({ status: 'purchasing', leaseUntil: null });
    expect(pending!.error).toMatch(/looked up before buying again/);
    expect((await orderOf(orderId)).status).toBe('packed');
    // While a request holds the purchase, another one does not take it over (no second purchase).
    const [held] = await ctx.db
      .update(shipment)
      .set({ leaseUntil: new Date(Date.now() + 60_000) })
      .where(eq(shipment.id, pending!.id))
      .returning();
    expect((await module.labels.buyLabels(actor, orderId)).map((s) => s.status)).toEqual(['purchasing']);
    expect(lookups).toBe(0);
    // Given up (the lease released, as the timed-out request does), the retry finds the label the
    // carrier bought: no second purchase.
    await ctx.db.update(shipment).set({ leaseUntil: null }).where(eq(shipment.id, held!.id));
    const shipments = await module.labels.buyLabels(actor, orderId);
    expect(purchases).toBe(1);
    expect(lookups).toBe(1);
    expect(shipments.map((s) => s.status)).toEqual(['purchased']);
    expect((await orderOf(orderId)).status).toBe('shipped');
  }, 60_000);

  it('refuses labels for orders that are not packed, and another seller’s orders', async () => {
    const placed = await seller.post('/api/orders/manual', { items: [{ sku: 'BOX', quantity: 1 }], shippingAddress: ADDRESS });
    await seller.post(`/api/orders/${placed.body.id}/status`, { to: 'cancelled', reason: 'test' });
    const refused = await admin.post(`/api/admin/shipping/orders/${placed.body.id}/labels`, {});
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/Only packed orders/);
    const theirs = await other.post('/api/shippo/labels', { orderId: placed.body.id });
    expect(theirs.status).toBe(404);
  });
});

describe('tracking', () => {
  it('goes back to the sandbox shop, moves the order to delivered, and survives replays', async () => {
    const connected = await seller.post('/api/shops/sandbox/connect', {});
    expect(connected.status).toBeLessThan(300);
    const shopId = connected.body.id ?? connected.body.shop?.id;
    const simulated = await seller.post(`/api/shops/${shopId}/sandbox/simulate-order`, {});
    expect(simulated.status).toBeLessThan(300);
    const orderId = simulated.body.orderId as string;
    await waitFor(() => orderOf(orderId), (o) => o.status === 'packed');
    const [bought] = (await admin.post(`/api/admin/shipping/orders/${orderId}/labels`, {})).body.shipments;
    expect(bought.writeback).toBe('pending');
    // The write-back job tells the sandbox shop.
    const sent = await waitFor(() => orderOf(orderId), (o) => o.shipments[0].writeback === 'sent');
    const [shop] = await t.context.db.select().from(shopConnection).where(eq(shopConnection.id, shopId));
    const sandbox = t.context.shopConnectors.shop('sandbox') as unknown as { shipped: Map<string, { trackingNumber: string }> };
    expect(sandbox.shipped.get(`${shop!.externalShopId}:${sent.externalId}`)?.trackingNumber).toBe(bought.trackingNumber);

    // A sandbox day is half a second here: a 5-day parcel is delivered within 3 s.
    await new Promise((r) => setTimeout(r, 3_200));
    await t.context.shipping.trackingPass(0, 60_000);
    const delivered = await orderOf(orderId);
    expect(delivered.status).toBe('delivered');
    expect(delivered.shipments[0]).toMatchObject({ status: 'delivered', trackingStatus: expect.stringMatching(/^Delivered/) });
    const events = await t.context.db.select().from(trackingEvent).where(eq(trackingEvent.shipmentId, bought.id));
    expect(events.map((e) => e.status)).toEqual(expect.arrayContaining(['pre_transit', 'in_transit', 'out_for_delivery', 'delivered']));
    // Replayed: nothing changes.
    for (let i = 0; i < 3; i++) await t.context.shipping.tracking.refresh((await t.context.db.select().from(shipment).where(eq(shipment.id, bought.id)))[0]!);
    expect(await t.context.db.select().from(trackingEvent).where(eq(trackingEvent.shipmentId, bought.id))).toHaveLength(events.length);
    expect((await orderOf(orderId)).events.filter((e: any) => e.toStatus === 'delivered')).toHaveLength(1);
    const [record] = await t.context.db.select().from(fulfillmentRecord).where(eq(fulfillmentRecord.shipmentId, bought.id));
    expect(record!.deliveredAt).not.toBe(null);
    expect(record!.channel).toBe('sandbox');
    // The public tracking page's data.
    const page = await t.client().get(`/api/tracking/${bought.trackingNumber}`);
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ delivered: true, carrier: bought.carrier });
    expect((await t.client().get('/api/tracking/SBXNOTAREALNUMBER')).status).toBe(404);
  }, 90_000);

  it('keeps a tracking the marketplace refuses, for admins to retry', async () => {
    const shops = (await seller.get('/api/shops')).body;
    const shopId = (Array.isArray(shops) ? shops : shops.items).find((s: any) => s.platform === 'sandbox').id;
    const simulated = await seller.post(`/api/shops/${shopId}/sandbox/simulate-order`, {});
    const orderId = simulated.body.orderId as string;
    const packed = await waitFor(() => orderOf(orderId), (o) => o.status === 'packed');
    const [shop] = await t.context.db.select().from(shopConnection).where(eq(shopConnection.id, shopId));
    const sandbox = t.context.shopConnectors.shop('sandbox') as unknown as { closed: Set<string> };
    const key = `${shop!.externalShopId}:${packed.externalId}`;
    sandbox.closed.add(key);
    const [bought] = (await admin.post(`/api/admin/shipping/orders/${orderId}/labels`, {})).body.shipments;
    const refused = await waitFor(() => orderOf(orderId), (o) => o.shipments[0].writeback === 'failed');
    expect(refused.shipments[0].writebackError).toMatch(/closed on the marketplace/);
    // The order is shipped all the same; admins see the refusal.
    expect(refused.status).toBe('shipped');
    expect((await seller.get('/api/admin/shipping/writebacks')).status).toBe(403);
    const list = await admin.get('/api/admin/shipping/writebacks');
    expect(list.body.items).toContainEqual(expect.objectContaining({ shipmentId: bought.id, orderId, platform: 'sandbox', trackingNumber: bought.trackingNumber }));
    // Reopened on the marketplace, an admin's retry sends it.
    sandbox.closed.delete(key);
    expect((await admin.post(`/api/admin/shipping/shipments/${bought.id}/writeback`, {})).status).toBe(204);
    await waitFor(() => orderOf(orderId), (o) => o.shipments[0].writeback === 'sent');
    expect((await admin.post(`/api/admin/shipping/shipments/${bought.id}/writeback`, {})).status).toBe(409);
  }, 90_000);

  it('refuses forged webhooks and ignores what it does not know', async () => {
    const body = { event: 'track_updated', data: { carrier: 'usps', tracking_number: '9205590164917312751089', tracking_status: { status: 'DELIVERED' } } };
    const forged = await t.client().post('/api/webhooks/shippo/not-our-token', body);
    expect(forged.status).toBe(401);
    const token = t.context.shipping.tokens.shippo();
    for (let i = 0; i < 10; i++) {
      const unknown = await t.client().post(`/api/webhooks/shippo/${token}`, body);
      expect(unknown.status).toBe(200);
      expect(unknown.body).toEqual({ updated: 0 });
    }
    expect((await t.client().post(`/api/webhooks/shippo/${token}`, { hello: 'world' })).status).toBe(400);
    const ssForged = await t.client().post('/api/webhooks/shipstation/abc.def', { resource_url: 'https://ssapi.shipstation.com/shipments?batchId=1', resource_type: 'SHIP_NOTIFY' });
    expect(ssForged.status).toBe(401);
    // A seller's real token, but they have no ShipStation keys: nothing is fetched.
    const ssToken = t.context.shipping.tokens.shipStation(seller.userId);
    const noKeys = await t.client().post(`/api/webhooks/shipstation/${ssToken}`, { resource_url: 'https://ssapi.shipstation.com/shipments?batchId=1', resource_type: 'SHIP_NOTIFY' });
    expect(noKeys.status).toBe(409);
  });
});

describe('ShipStation keys', () => {
  it('are checked with ShipStation first: refused keys are not stored; good ones are sealed and shown by their last 4', async () => {
    const refused = await seller.post('/api/shipstation/keys', { apiKey: 'wrong-key-123456', apiSecret: 'wrong-secret-123456' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/ShipStation refused/);
    expect((await seller.get('/api/shipstation/keys')).body).toMatchObject({ configured: false, apiKeyLast4: null });
    const noSecret = await seller.post('/api/shipstation/keys', { apiKey: GOOD_KEY });
    expect(noSecret.status).toBe(400);
    expect(noSecret.body.error).toMatch(/secret/);

    const stored = await seller.post('/api/shipstation/keys', { apiKey: GOOD_KEY, apiSecret: GOOD_SECRET });
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ configured: true, apiVersion: 'v1', apiKeyLast4: 'abcd', apiSecretLast4: 'wxyz' });
    expect(JSON.stringify((await seller.get('/api/shipstation/keys')).body)).not.toContain(GOOD_KEY);
    const [row] = await t.context.db.select().from(sellerShipping).where(eq(sellerShipping.ownerId, seller.userId));
    expect(row!.shipstationEnc).not.toContain(GOOD_KEY);
    expect(row!.shipstationEnc).not.toContain(GOOD_SECRET);
    // Another seller cannot store keys for them; an admin can read them (last 4 only).
    expect((await other.post('/api/shipstation/keys', { apiKey: GOOD_KEY, apiSecret: GOOD_SECRET, targetUserId: seller.userId })).status).toBe(403);
    expect((await admin.get(`/api/shipstation/keys?targetUserId=${seller.userId}`)).body.apiKeyLast4).toBe('abcd');

    // Now ShipStation can be chosen; forgetting the keys falls back to the sandbox.
    expect((await seller.post('/api/shipping/integration', { integration: 'shipstation' })).body.integration).toBe('shipstation');
    const removed = await seller.delete('/api/shipstation/keys');
    expect(removed.body.configured).toBe(false);
    expect((await seller.get('/api/shipping/settings')).body.integration).toBe('sandbox');
  });
});

describe('ShipStation v2 webhooks', () => {
  it('read the named label back from ShipStation with the seller’s key: delivered once, however often told', async () => {
    const stored = await seller.post('/api/shipstation/keys', { apiKey: V2_KEY, apiVersion: 'v2' });
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ configured: true, apiVersion: 'v2', apiSecretLast4: null });
    // An order shipped on the seller's ShipStation account (its label row as the label service writes it).
    const orderId = await packedOrder('BOX');
    const [row] = await t.context.db
      .insert(shipment)
      .values({
        orderId,
        ownerId: seller.userId,
        provider: 'shipstation',
        parcelIndex: 0,
        parcelCount: 1,
        parcel: { parcelId: 'small', name: 'Small box', lengthMm: 150, widthMm: 120, heightMm: 80, weightGrams: 90, partCount: 1, costCents: 45 },
        idempotencyKey: `${orderId}:0:1`,
        status: 'purchased',
        carrier: 'USPS',
        carrierCode: 'usps',
        service: 'Ground Advantage',
        trackingNumber: V2_TRACKING,
        providerLabelId: 'se-777777',
        shippedAt: new Date(),
      })
      .returning();
    const packed = await createOrderRepository(t.context.db).find(orderId);
    expect(await t.context.orders.tryTransition(packed!, 'shipped', 'Shipped with USPS', { kind: 'system', id: null })).toBe(true);

    const token = t.context.shipping.tokens.shipStation(seller.userId);
    const body = { resource_url: `https://api.shipstation.com/v2/labels/se-777777/track`, resource_type: 'API_TRACK', data: { tracking_number: V2_TRACKING, status_code: 'DE' } };
    for (let i = 0; i < 3; i++) {
      const told = await t.client().post(`/api/webhooks/shipstation/${token}`, body);
      expect(told.status).toBe(200);
      expect(told.body).toEqual({ updated: 1 });
    }
    const delivered = await orderOf(orderId);
    expect(delivered.status).toBe('delivered');
    expect(delivered.events.filter((e: any) => e.toStatus === 'delivered')).toHaveLength(1);
    expect(delivered.shipments[0]).toMatchObject({ status: 'delivered', trackingStatus: 'Delivered: Delivered, In/At Mailbox (Springfield, IL)' });
    expect(await t.context.db.select().from(trackingEvent).where(eq(trackingEvent.shipmentId, row!.id))).toHaveLength(2);
    // Another seller's token does not move this seller's label.
    const theirs = await t.client().post(`/api/webhooks/shipstation/${t.context.shipping.tokens.shipStation(other.userId)}`, body);
    expect(theirs.status).toBe(409);
    await seller.delete('/api/shipstation/keys');
  }, 60_000);
});
