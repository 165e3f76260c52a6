import { createHmac } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { inboundWebhook, order, orderItem } from '../../db/schema.ts';
import { SANDBOX_IMPERSONATORS } from './marketplaces.ts';

/**
 * The five other marketplaces through the real server (issue 15): a sandbox shop impersonating
 * each sends its orders in that marketplace's own shape, read by that marketplace's mapping, so
 * the whole path (poll, overlap, simulate, SKU match, idempotence) runs without an account; and
 * /connect-store's list says which marketplaces this server can connect.
 */

let t: TestApp;
let seller: SignedInClient;
const TIKTOK = { key: 'tt-app-key', secret: 'tt-app-secret-for-tests' };

beforeAll(async () => {
  t = await startTestApp({
    TIKTOK_APP_KEY: TIKTOK.key,
    TIKTOK_APP_SECRET: TIKTOK.secret,
    TIKTOK_SERVICE_ID: '7000000000000000001',
    WALMART_ENABLED: 'true',
    AMAZON_SP_APP_ID: 'amzn1.sp.solution.test-app',
    AMAZON_LWA_CLIENT_ID: 'amzn1.application-oa2-client.test',
    AMAZON_LWA_CLIENT_SECRET: 'amazon-client-secret',
  });
  seller = await t.signUp({ role: 'beta', name: 'Marketplace Seller' });
});
afterAll(async () => {
  await t?.close();
});

const impersonated = Object.keys(SANDBOX_IMPERSONATORS) as (keyof typeof SANDBOX_IMPERSONATORS)[];

describe.each(impersonated)('a sandbox shop impersonating %s', (platform) => {
  it('takes its orders in through that marketplace’s mapping, once each however often they are polled', async () => {
    const connected = await seller.post('/api/shops/sandbox/connect', { impersonate: platform });
    expect(connected.status).toBe(200);
    const shop = connected.body.shop as { id: string; name: string };
    expect(shop.name).toMatch(/\(as .+\)$/);
    // Every poll delivers the previous order again (the overlap real marketplaces have).
    for (let i = 0; i < 4; i++)
      expect((await seller.post(`/api/shops/${shop.id}/sync`, {})).status).toBe(200);
    const simulated = await seller.post(`/api/shops/${shop.id}/sandbox/simulate-order`, {});
    expect(simulated.status).toBe(201);

    const rows = await t.context.db.select().from(order).where(eq(order.shopId, shop.id));
    expect(rows).toHaveLength(5);
    expect(new Set(rows.map((r) => r.externalId)).size).toBe(5);
    // The marketplace's own ids, not the sandbox's SBX- numbers.
    for (const row of rows) expect(row.externalId).not.toMatch(/^SBX-/);
    const items = await t.context.db
      .select()
      .from(orderItem)
      .where(eq(orderItem.orderId, simulated.body.orderId));
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) expect(item.sku).toMatch(/^LL-/);
    const placed = (await seller.get(`/api/orders/${simulated.body.orderId}`)).body as {
      customerName: string;
      shippingAddress: { line1: string; country: string };
    };
    expect(placed.customerName).not.toBe('');
    expect(placed.shippingAddress.line1).not.toBe('');
  });
});

describe('which marketplaces this server can connect', () => {
  it('lists the configured ones with how they connect; the others are absent (the page says not configured)', async () => {
    const { body } = await seller.get('/api/shops/platforms');
    const platforms = new Map(
      (body.platforms as { platform: string; oauth: boolean; fields: unknown[] }[]).map((p) => [
        p.platform,
        p,
      ]),
    );
    expect(platforms.get('tiktok')).toMatchObject({ oauth: true, fields: [] });
    expect(platforms.has('ebay')).toBe(false);
    expect(platforms.get('amazon')).toMatchObject({ oauth: true, fields: [] });
    const amazon = new URL((await seller.post('/api/shops/amazon/connect', {})).body.authorizeUrl);
    expect(amazon.origin).toBe('https://sellercentral.amazon.com');
    expect(amazon.searchParams.get('application_id')).toBe('amzn1.sp.solution.test-app');
    // Walmart: each seller pastes their own client credentials, checked with Walmart before they are kept.
    expect(platforms.get('walmart')).toMatchObject({
      oauth: false,
      fields: [
        expect.objectContaining({ name: 'clientId', secret: false }),
        expect.objectContaining({ name: 'clientSecret', secret: true }),
      ],
    });
    const missing = await seller.post('/api/shops/walmart/connect', { credentials: { clientId: 'abc' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/^Fill in /);
    expect((await seller.post('/api/shops/ebay/connect', {})).status).toBe(400);
    const started = await seller.post('/api/shops/tiktok/connect', {});
    expect(started.status).toBe(200);
    const url = new URL(started.body.authorizeUrl);
    expect(url.searchParams.get('service_id')).toBe('7000000000000000001');
    expect(url.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('POST /api/webhooks/tiktok', () => {
  const sign = (body: string, secret = TIKTOK.secret) =>
    createHmac('sha256', secret)
      .update(TIKTOK.key + body)
      .digest('hex');
  const deliver = (body: string, authorization: string | undefined) =>
    fetch(new URL('/api/webhooks/tiktok', t.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
      body,
    });

  it('stores a signed order status change for a shop that is not connected, acknowledged; refuses a bad signature with 401', async () => {
    const body = JSON.stringify({
      type: 1,
      tts_notification_id: 'n-matrix-1',
      shop_id: '7494049642642441621',
      timestamp: 1700000000,
      data: { order_id: '576461413038785752', order_status: 'AWAITING_SHIPMENT' },
    });
    expect((await deliver(body, sign(body, 'wrong'))).status).toBe(401);
    expect((await deliver(body, undefined)).status).toBe(401);
    const accepted = await deliver(body, sign(body));
    expect(accepted.status).toBe(200);
    const [row] = await t.context.db
      .select()
      .from(inboundWebhook)
      .where(eq(inboundWebhook.platform, 'tiktok'));
    expect(row).toMatchObject({ topic: '1', shopId: null });
    expect(row!.processedAt).not.toBeNull();
  });
});

/** The ?error= of a redirect back to /connect-store. */
const errorOf = (location: string | null) =>
  new URLSearchParams((location ?? '').split('?')[1] ?? '').get('error');

describe('WooCommerce through the real server', () => {
  it('is offered by default, with its approval page and pasted keys', async () => {
    const { body } = await seller.get('/api/shops/platforms');
    const woo = (body.platforms as { platform: string; oauth: boolean; fields: { name: string }[] }[]).find(
      (p) => p.platform === 'woocommerce',
    );
    expect(woo).toMatchObject({ oauth: true });
    expect(woo!.fields.map((f) => f.name)).toEqual(['storeUrl', 'consumerKey', 'consumerSecret']);
  });

  it('sends the seller to the store’s own authorisation page, keys to be delivered to us, bound to the state', async () => {
    expect((await seller.post('/api/shops/woocommerce/connect', {})).status).toBe(400);
    const started = await seller.post('/api/shops/woocommerce/connect', {
      storeUrl: 'https://shop.example.com',
    });
    expect(started.status).toBe(200);
    const url = new URL(started.body.authorizeUrl);
    expect(`${url.origin}${url.pathname}`).toBe('https://shop.example.com/wc-auth/v1/authorize');
    expect(url.searchParams.get('scope')).toBe('read_write');
    expect(url.searchParams.get('callback_url')).toBe(`${t.baseUrl}/api/shops/woocommerce/key-delivery`);
    expect(url.searchParams.get('return_url')).toBe(`${t.baseUrl}/api/shops/woocommerce/callback`);
    const state = url.searchParams.get('user_id')!;
    expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // Keys for a state nobody started are refused; the seller coming back before any keys is told so.
    const unknown = await t.client().post('/api/shops/woocommerce/key-delivery', {
      key_id: 1,
      user_id: 'not-a-state',
      consumer_key: 'ck_1',
      consumer_secret: 'cs_1',
      key_permissions: 'read_write',
    });
    expect(unknown.status).toBe(401);
    const early = await seller.get(`/api/shops/woocommerce/callback?success=1&user_id=${state}`);
    expect(early.status).toBe(303);
    expect(errorOf(early.headers.get('location'))).toMatch(/^WooCommerce did not send the keys/);
    const declined = await seller.get(`/api/shops/woocommerce/callback?success=0&user_id=${state}`);
    expect(errorOf(declined.headers.get('location'))).toBe('Access was not granted');
  });

  it('refuses a store that resolves to our own network, and keeps nothing', async () => {
    const before = (await seller.get('/api/shops')).body.length;
    for (const storeUrl of [
      'https://127.0.0.1',
      'https://localhost',
      'http://shop.example.com',
      'https://169.254.169.254',
    ]) {
      const refused = await seller.post('/api/shops/woocommerce/connect', {
        credentials: { storeUrl, consumerKey: 'ck_0123456789abcdef', consumerSecret: 'cs_0123456789abcdef' },
      });
      expect(refused.status, storeUrl).toBe(400);
      expect(refused.body.error).toMatch(/WooCommerce refused these keys|store address/i);
    }
    expect((await seller.get('/api/shops')).body.length).toBe(before);
  });
});
