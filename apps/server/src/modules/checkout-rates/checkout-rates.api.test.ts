import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uploadDesign, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { boxStl } from '../../../test/hostile-models.ts';
import { shopConnection } from '../../db/schema.ts';
import { shopifyRateResponseSchema } from '../../integrations/shopify/shopify-carrier-service.ts';

/**
 * Checkout rates (issue 24 point 6; docs/checkout-rates.md) on the real server: a seller turns them
 * on for a Shopify shop (here a sandbox shop acting as Shopify, whose carrier service registration
 * answers as Shopify's would), and Shopify's rate request at checkout — Shopify's own published
 * example (integrations/shopify/carrier-service-callback.md) with the seller's SKU — gets rates
 * from the seller's shipping profile through the sandbox carrier, fast.
 */

const DESCRIPTION = readFileSync(path.join(import.meta.dirname, '../../integrations/shopify/carrier-service-callback.md'), 'utf8');
const EXAMPLE = JSON.parse(/### Example shipping rate request sent to a carrier service\s+```json\n([\s\S]*?)\n```/.exec(DESCRIPTION)![1]!);

let t: TestApp;
let seller: SignedInClient;
let other: SignedInClient;
let admin: SignedInClient;
let shopId: string;
let plainShopId: string;

/** Shopify's example request, shipping to the US, with these items. */
function rateRequest(items: { sku: string | null; quantity: number; requires_shipping?: boolean }[]) {
  const body = structuredClone(EXAMPLE);
  body.rate.destination = { ...body.rate.destination, country: 'US', postal_code: '97201', province: 'OR', city: 'Portland', address1: '1 Analytical Way' };
  body.rate.items = items.map((item) => ({ ...EXAMPLE.rate.items[0], sku: item.sku, quantity: item.quantity, requires_shipping: item.requires_shipping ?? true }));
  return body;
}

async function callback(url: string, body: unknown) {
  const started = performance.now();
  const response = await fetch(new URL(new URL(url).pathname, t.baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-shopify-shop-domain': 'layerline-test.myshopify.com' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any, ms: performance.now() - started };
}

beforeAll(async () => {
  t = await startTestApp();
  [seller, other, admin] = await Promise.all([t.signUp({ role: 'beta' }), t.signUp({ role: 'beta' }), t.signUp({ role: 'admin' })]);
  const design = await uploadDesign(seller, boxStl(40, 30, 20), 'box.stl');
  const product = await seller.post('/api/products', {
    name: 'Rate box',
    variants: [{ name: 'Box', sku: 'RATE-BOX', parts: [{ printConfigId: design.printConfigs[0].id, quantity: 1 }] }],
  });
  expect(product.status).toBe(201);
  // A sandbox shop acting as Shopify for its carrier service (the sandbox connector registers it as
  // Shopify would); no route makes one, since its orders are not in Shopify's shape.
  const [shop] = await t.context.db
    .insert(shopConnection)
    .values({ ownerId: seller.userId, platform: 'sandbox', externalShopId: `sandbox-rates-${Date.now()}`, name: 'Rates test store', settings: { impersonate: 'shopify' } })
    .returning({ id: shopConnection.id });
  shopId = shop!.id;
  const plain = await seller.post('/api/shops/sandbox/connect', {});
  plainShopId = plain.body.shop.id;
}, 120_000);

afterAll(async () => {
  await t?.close();
});

describe('the seller’s setting', () => {
  it('lists the seller’s Shopify shops, off until turned on; only theirs (admins act for them)', async () => {
    const list = await seller.get('/api/checkout-rates');
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([
      expect.objectContaining({ shopId, platform: 'sandbox', enabled: false, callbackUrl: null, carrierServiceId: null, lastError: '' }),
    ]);
    expect((await other.get(`/api/checkout-rates/${shopId}`)).status).toBe(404);
    expect((await other.request<any>('PUT', `/api/checkout-rates/${shopId}`, { enabled: true }, {})).status).toBe(404);
    expect((await other.get(`/api/checkout-rates?targetUserId=${seller.userId}`)).status).toBe(403);
    expect((await admin.get(`/api/checkout-rates?targetUserId=${seller.userId}`)).body.items).toHaveLength(1);
  });

  it('refuses a shop that is not Shopify’s, and a body that is not a switch', async () => {
    const plain = await seller.request<any>('PUT', `/api/checkout-rates/${plainShopId}`, { enabled: true }, {});
    expect(plain.status).toBe(422);
    expect(plain.body.error).toMatch(/Shopify/);
    expect((await seller.request<any>('PUT', `/api/checkout-rates/${shopId}`, { enabled: 'yes' }, {})).status).toBe(400);
    expect((await seller.request<any>('PUT', `/api/checkout-rates/not-a-shop`, { enabled: true }, {})).status).toBe(400);
  });
});

describe('Shopify’s rate request at checkout', () => {
  let url: string;

  it('is registered as the shop’s carrier service when turned on, with a secret callback URL', async () => {
    const on = await seller.request<any>('PUT', `/api/checkout-rates/${shopId}`, { enabled: true }, {});
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ enabled: true, lastError: '' });
    expect(on.body.carrierServiceId).toMatch(/^gid:\/\/shopify\/DeliveryCarrierService\//);
    expect(on.body.callbackUrl).toMatch(new RegExp(`/api/checkout-rates/shopify/${shopId}/[A-Za-z0-9_-]{43}$`));
    url = on.body.callbackUrl;
  });

  it('answers rates from the seller’s shipping profile, as Shopify’s description requires, fast', async () => {
    const answer = await callback(url, rateRequest([{ sku: 'RATE-BOX', quantity: 2 }]));
    expect(answer.status).toBe(200);
    const { rates } = shopifyRateResponseSchema.parse(answer.body);
    expect(rates.length).toBeGreaterThan(0);
    for (const rate of rates) {
      expect(Number(rate.total_price)).toBeGreaterThan(0);
      expect(rate.currency).toBe('USD');
      expect(rate.service_code).toMatch(/^[a-z0-9_]+:[a-z0-9_]+$/i);
    }
    // Cheapest first; the codes stay the same for the same cart.
    expect(rates.map((r) => Number(r.total_price))).toEqual([...rates.map((r) => Number(r.total_price))].sort((a, b) => a - b));
    const again = await callback(url, rateRequest([{ sku: 'RATE-BOX', quantity: 2 }]));
    expect(again.body).toEqual(answer.body);
    // Well within Shopify's 3 s (cached the second time: Shopify's own cache is 15 minutes too).
    expect(answer.ms).toBeLessThan(2000);
    expect(again.ms).toBeLessThan(answer.ms + 50);
    console.log(`checkout rates: first answer ${answer.ms.toFixed(0)} ms, cached ${again.ms.toFixed(0)} ms`);
    // A bigger cart costs at least as much.
    const more = shopifyRateResponseSchema.parse((await callback(url, rateRequest([{ sku: 'RATE-BOX', quantity: 6 }]))).body);
    const cheapest = (list: { total_price: string }[]) => Math.min(...list.map((r) => Number(r.total_price)));
    expect(cheapest(more.rates)).toBeGreaterThanOrEqual(cheapest(rates));
  });

  it('says “cannot ship this” (no rates) for a cart with an item that is not the seller’s', async () => {
    const answer = await callback(url, rateRequest([{ sku: 'RATE-BOX', quantity: 1 }, { sku: 'SOMEONE-ELSES', quantity: 1 }]));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ rates: [] });
    const noSku = await callback(url, rateRequest([{ sku: null, quantity: 1 }]));
    expect(noSku.body).toEqual({ rates: [] });
    // Nothing to ship (a gift card): nothing to rate.
    expect((await callback(url, rateRequest([{ sku: 'RATE-BOX', quantity: 1, requires_shipping: false }]))).body).toEqual({ rates: [] });
  });

  it('refuses a wrong secret, an unknown shop and a body that is not a rate request', async () => {
    const wrong = url.replace(/\/[A-Za-z0-9_-]{43}$/, `/${'x'.repeat(43)}`);
    expect((await callback(wrong, rateRequest([{ sku: 'RATE-BOX', quantity: 1 }]))).status).toBe(404);
    expect((await callback(url.replace(shopId, plainShopId), rateRequest([{ sku: 'RATE-BOX', quantity: 1 }]))).status).toBe(404);
    expect((await callback(url.replace(shopId, 'not-a-uuid'), rateRequest([{ sku: 'RATE-BOX', quantity: 1 }]))).status).toBe(404);
    const bad = await callback(url, { rate: { items: [] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/Not a Shopify rate request/);
  });

  it('previews the same rates for the seller, with how long they took', async () => {
    const preview = await seller.post(`/api/checkout-rates/${shopId}/preview`, {
      destination: { country: 'US', postalCode: '97201', region: 'OR', city: 'Portland' },
      items: [{ sku: 'RATE-BOX', quantity: 2 }],
    });
    expect(preview.status).toBe(200);
    expect(preview.body.reason).toBe('');
    expect(preview.body.rates.length).toBeGreaterThan(0);
    expect(typeof preview.body.elapsedMs).toBe('number');
    const unknown = await seller.post(`/api/checkout-rates/${shopId}/preview`, { destination: { country: 'US', postalCode: '97201' }, items: [{ sku: 'NOPE', quantity: 1 }] });
    expect(unknown.body).toMatchObject({ rates: [], reason: expect.stringMatching(/NOPE/) });
    expect((await other.post(`/api/checkout-rates/${shopId}/preview`, { destination: { country: 'US', postalCode: '97201' }, items: [{ sku: 'RATE-BOX', quantity: 1 }] })).status).toBe(404);
  });

  it('stops answering when turned off; on again, only the new URL works', async () => {
    const off = await seller.request<any>('PUT', `/api/checkout-rates/${shopId}`, { enabled: false }, {});
    expect(off.body).toMatchObject({ enabled: false, callbackUrl: null, carrierServiceId: null });
    expect((await callback(url, rateRequest([{ sku: 'RATE-BOX', quantity: 1 }]))).status).toBe(404);
    const on = await seller.request<any>('PUT', `/api/checkout-rates/${shopId}`, { enabled: true }, {});
    expect(on.body.callbackUrl).not.toBe(url);
    expect((await callback(url, rateRequest([{ sku: 'RATE-BOX', quantity: 1 }]))).status).toBe(404);
    expect((await callback(on.body.callbackUrl, rateRequest([{ sku: 'RATE-BOX', quantity: 1 }]))).status).toBe(200);
  });
});
