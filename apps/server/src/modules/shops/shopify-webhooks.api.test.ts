import { createHmac, randomUUID } from 'node:crypto';
import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundWebhook, order, orderItem, shopConnection } from '../../db/schema.ts';
import { processWebhookJobId, sweepUnprocessedWebhooks } from '../../jobs/webhook-intake-jobs.ts';
import { QUEUES } from '../../jobs/job-queue.ts';
import { addVariants } from '../../../test/orders-fixtures.ts';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { AppError } from '../../errors.ts';
import { createInboundWebhookRepository } from './inbound-webhook-repository.ts';
import { APP_UNINSTALLED_MESSAGE, createWebhookIntakeService } from './webhook-intake-service.ts';

/**
 * Shopify orders by webhook, end to end on the real server (WH-2, WH-3, WH-7): signed deliveries
 * to POST /api/webhooks/shopify are verified on the raw body, stored once per X-Shopify-Webhook-Id,
 * queued, and ingested by the 'process-webhook' job through the shops service.
 */

const SECRET = 'test-secret';
const SHOP = 'layerline-webhooks.myshopify.com';

let t: TestApp;
let seller: SignedInClient;
let shopId: string;

/** An orders/* webhook body shaped like Shopify's (REST Order JSON, 2026-01), with the fields we do not read. */
function shopifyOrderPayload(
  orderId: string,
  lines: { sku: string | null; quantity: number; shipping?: boolean }[],
  cancelled = false,
) {
  return {
    id: Number(orderId),
    admin_graphql_api_id: `gid://shopify/Order/${orderId}`,
    app_id: 580111,
    browser_ip: '203.0.113.9',
    buyer_accepts_marketing: false,
    cancel_reason: cancelled ? 'customer' : null,
    cancelled_at: cancelled ? '2026-11-21T09:15:00-05:00' : null,
    confirmation_number: 'N1ZD4XEJK',
    confirmed: true,
    contact_email: 'buyer@example.com',
    created_at: '2026-11-20T05:00:00-05:00',
    currency: 'USD',
    current_total_price: '53.99',
    email: 'buyer@example.com',
    financial_status: cancelled ? 'refunded' : 'paid',
    fulfillment_status: null,
    name: `#${orderId.slice(-4)}`,
    order_number: Number(orderId.slice(-4)),
    presentment_currency: 'USD',
    processed_at: '2026-11-20T05:00:00-05:00',
    subtotal_price: '49.00',
    tags: '',
    test: false,
    total_price: '53.99',
    total_tax: '4.99',
    updated_at: '2026-11-20T05:00:01-05:00',
    billing_address: null,
    customer: {
      id: 115310627314723950,
      email: 'buyer@example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
    },
    shipping_address: {
      first_name: 'Ada',
      last_name: 'Lovelace',
      name: 'Ada Lovelace',
      company: null,
      address1: '1 Analytical Way',
      address2: 'Unit 2',
      city: 'Portland',
      province: 'Oregon',
      province_code: 'OR',
      zip: '97201',
      country: 'United States',
      country_code: 'US',
      phone: '+15035550100',
      latitude: 45.5,
      longitude: -122.6,
    },
    line_items: lines.map((line, index) => ({
      id: 866550311766439000 + index,
      admin_graphql_api_id: `gid://shopify/LineItem/${orderId}${index}`,
      fulfillable_quantity: line.quantity,
      fulfillment_service: 'manual',
      gift_card: line.shipping === false,
      grams: 200,
      name: `Item ${line.sku ?? 'gift'}`,
      price: '24.50',
      product_exists: true,
      product_id: 632910392,
      quantity: line.quantity,
      requires_shipping: line.shipping !== false,
      sku: line.sku,
      taxable: true,
      title: `Item ${line.sku ?? 'gift'}`,
      total_discount: '0.00',
      variant_id: 808950810,
      variant_title: null,
      vendor: 'Layerline Test',
      tax_lines: [],
    })),
    shipping_lines: [{ id: 271878346, code: 'Standard', price: '4.99', title: 'Standard' }],
  };
}

interface Delivery {
  topic: string;
  body: Buffer;
  webhookId?: string;
  shop?: string;
  hmac?: string | null;
}

const sign = (body: Buffer, secret = SECRET) => createHmac('sha256', secret).update(body).digest('base64');
/** As Shopify sends it: not how JSON.stringify would (so re-serialising changes the bytes). */
const raw = (payload: unknown) => Buffer.from(JSON.stringify(payload, null, 2));

async function deliver(d: Delivery): Promise<{ status: number; body: unknown; ms: number }> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-shopify-topic': d.topic,
    'x-shopify-shop-domain': d.shop ?? SHOP,
    'x-shopify-webhook-id': d.webhookId ?? randomUUID(),
    'x-shopify-api-version': '2026-01',
    'x-shopify-triggered-at': new Date().toISOString(),
  };
  if (d.hmac !== null) headers['x-shopify-hmac-sha256'] = d.hmac ?? sign(d.body);
  const started = performance.now();
  const response = await fetch(`${t.baseUrl}/api/webhooks/shopify`, {
    method: 'POST',
    headers,
    body: new Uint8Array(d.body),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  return { status: response.status, body: text ? JSON.parse(text) : undefined, ms };
}

async function findOrder(externalId: string) {
  const [row] = await t.context.db
    .select()
    .from(order)
    .where(and(eq(order.channel, shopId), eq(order.externalId, externalId)));
  return row;
}

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 8000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const inboundCount = async (id?: string) => {
  const [row] = await t.context.db
    .select({ n: count() })
    .from(inboundWebhook)
    .where(id ? eq(inboundWebhook.id, id) : undefined);
  return row!.n;
};

beforeAll(async () => {
  t = await startTestApp({ SHOPIFY_API_KEY: 'key', SHOPIFY_API_SECRET: SECRET });
  seller = await t.signUp({ role: 'beta', name: 'Webhook Seller' });
  await addVariants(t.context, seller.userId, ['VASE-S', 'LAMP-1']);
  const [row] = await t.context.db
    .insert(shopConnection)
    .values({
      ownerId: seller.userId,
      platform: 'shopify',
      externalShopId: SHOP,
      name: 'Webhook Test Store',
      // Intake never uses the tokens; a value here proves app/uninstalled deletes them.
      accessTokenEnc: 'sealed-access-token-placeholder',
      settings: { shopHost: SHOP, currency: 'USD' },
    })
    .returning({ id: shopConnection.id });
  shopId = row!.id;
}, 60_000);

afterAll(async () => {
  await t?.close();
});

describe('POST /api/webhooks/shopify', () => {
  it('a signed orders/create is acknowledged, stored, and ingested by the job: matched and unmatched items', async () => {
    const body = raw(
      shopifyOrderPayload('820982911946154508', [
        { sku: 'VASE-S', quantity: 2 },
        { sku: 'NOT-A-PRODUCT', quantity: 1 },
        { sku: null, quantity: 1, shipping: false },
      ]),
    );
    const webhookId = randomUUID();
    const response = await deliver({ topic: 'orders/create', body, webhookId });
    expect(response.status).toBe(200);
    expect(await inboundCount(`shopify:${webhookId}`)).toBe(1);

    const stored = await waitFor('the order', () => findOrder('820982911946154508'));
    expect(stored.ownerId).toBe(seller.userId);
    expect(stored.platform).toBe('shopify');
    expect(stored.status).toBe('on_hold');
    expect(stored.holdReason).toContain('NOT-A-PRODUCT');
    expect(stored.totalCents).toBe(5399);
    const items = await t.context.db.select().from(orderItem).where(eq(orderItem.orderId, stored.id));
    expect(items.map((i) => [i.sku, i.quantity, i.variantId !== null]).sort()).toEqual([
      ['NOT-A-PRODUCT', 1, false],
      ['VASE-S', 2, true],
    ]);
    const [inbound] = await t.context.db
      .select()
      .from(inboundWebhook)
      .where(eq(inboundWebhook.id, `shopify:${webhookId}`));
    expect(inbound!.shopId).toBe(shopId);
    expect(inbound!.topic).toBe('orders/create');
    await waitFor('processed_at', async () => (await t.context.webhookIntake.unprocessed(0)).length === 0);
  });

  it('a fully matched order is accepted; the seller sees it through the orders API', async () => {
    const body = raw(shopifyOrderPayload('820982911946154600', [{ sku: 'LAMP-1', quantity: 1 }]));
    expect((await deliver({ topic: 'orders/create', body })).status).toBe(200);
    const stored = await waitFor('the order', () => findOrder('820982911946154600'));
    expect(stored.status).toBe('accepted');
    const page = await seller.get(`/api/orders/${stored.id}`);
    expect(page.status).toBe(200);
  });

  it('keeps a signed delivery that is not a readable order as a failed delivery with the reason, and goes on', async () => {
    const webhookId = randomUUID();
    const body = raw({ id: 1, admin_graphql_api_id: 'gid://shopify/Order/1', line_items: 'none' });
    expect((await deliver({ topic: 'orders/create', body, webhookId })).status).toBe(200);
    const failed = await waitFor('the failed delivery', async () => {
      const [row] = await t.context.db
        .select()
        .from(inboundWebhook)
        .where(eq(inboundWebhook.id, `shopify:${webhookId}`));
      return row?.processedAt ? row : undefined;
    });
    expect(failed.failedReason).toMatch(/^The Shopify order webhook has an unexpected shape \(/);
    // Admins see it, with its shop and the reason; sellers do not.
    const admin = await t.signUp({ role: 'admin' });
    const listed = await admin.get('/api/admin/marketplace-deliveries/failed');
    expect(listed.status).toBe(200);
    expect(listed.body.items[0]).toMatchObject({
      id: `shopify:${webhookId}`,
      platform: 'shopify',
      topic: 'orders/create',
      shopId,
      shopName: 'Webhook Test Store',
      reason: failed.failedReason,
    });
    expect((await seller.get('/api/admin/marketplace-deliveries/failed')).status).toBe(403);
    // The next delivery is processed as usual.
    const next = raw(shopifyOrderPayload('820982911946154650', [{ sku: 'LAMP-1', quantity: 1 }]));
    expect((await deliver({ topic: 'orders/create', body: next })).status).toBe(200);
    expect((await waitFor('the order', () => findOrder('820982911946154650'))).status).toBe('accepted');
  });

  it('the same delivery 10 times at once: ten 200s, one inbound row, one order', async () => {
    const body = raw(shopifyOrderPayload('820982911946154700', [{ sku: 'VASE-S', quantity: 1 }]));
    const webhookId = randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => deliver({ topic: 'orders/create', body, webhookId })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(await inboundCount(`shopify:${webhookId}`)).toBe(1);
    await waitFor('the order', () => findOrder('820982911946154700'));
    // The same order under another delivery id (Shopify's orders/updated, or the poll) is still one order.
    await deliver({ topic: 'orders/updated', body });
    await waitFor('processed', async () => (await t.context.webhookIntake.unprocessed(0)).length === 0);
    const [orders] = await t.context.db
      .select({ n: count() })
      .from(order)
      .where(and(eq(order.channel, shopId), eq(order.externalId, '820982911946154700')));
    expect(orders!.n).toBe(1);
  });

  it('refuses a tampered body, a wrong secret, a missing or empty header, and re-serialised JSON: 401, nothing stored', async () => {
    const payload = shopifyOrderPayload('820982911946154800', [{ sku: 'VASE-S', quantity: 1 }]);
    const body = raw(payload);
    const before = await inboundCount();
    const attempts: Delivery[] = [
      {
        topic: 'orders/create',
        body: Buffer.from(body.toString().replace('53.99', '0.01')),
        hmac: sign(body),
      },
      { topic: 'orders/create', body, hmac: sign(body, 'wrong-secret') },
      { topic: 'orders/create', body, hmac: null },
      { topic: 'orders/create', body, hmac: '' },
      { topic: 'orders/create', body, hmac: 'c2hvcnQ=' },
      // Parsed and written out again: same data, other bytes; the original signature does not fit.
      {
        topic: 'orders/create',
        body: Buffer.from(JSON.stringify(JSON.parse(body.toString()))),
        hmac: sign(body),
      },
    ];
    for (const attempt of attempts) {
      const response = await deliver(attempt);
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ error: 'Invalid signature' });
    }
    expect(await inboundCount()).toBe(before);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await findOrder('820982911946154800')).toBeUndefined();
    // The raw bytes as signed are accepted.
    expect((await deliver({ topic: 'orders/create', body })).status).toBe(200);
  });

  it('a signed delivery without a webhook id or not JSON is a 400; the rest of the API still parses JSON', async () => {
    const body = raw({ id: 1 });
    const res = await fetch(`${t.baseUrl}/api/webhooks/shopify`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-shopify-hmac-sha256': sign(body),
        'x-shopify-topic': 'orders/create',
        'x-shopify-shop-domain': SHOP,
      },
      body: new Uint8Array(body),
    });
    expect(res.status).toBe(400);
    const notJson = Buffer.from('not json');
    expect((await deliver({ topic: 'orders/create', body: notJson })).status).toBe(400);
    // Another route still gets parsed JSON bodies (and validates them).
    const other = await seller.post('/api/shops/sandbox/connect', {});
    expect(other.status).toBe(200);
  });

  it('orders/cancelled cancels the order, with the change recorded', async () => {
    const id = '820982911946154900';
    await deliver({
      topic: 'orders/create',
      body: raw(shopifyOrderPayload(id, [{ sku: 'LAMP-1', quantity: 1 }])),
    });
    const created = await waitFor('the order', () => findOrder(id));
    expect(created.status).toBe('accepted');
    expect(
      (
        await deliver({
          topic: 'orders/cancelled',
          body: raw(shopifyOrderPayload(id, [{ sku: 'LAMP-1', quantity: 1 }], true)),
        })
      ).status,
    ).toBe(200);
    const cancelled = await waitFor('the cancellation', async () => {
      const row = await findOrder(id);
      return row?.status === 'cancelled' ? row : undefined;
    });
    expect(cancelled.id).toBe(created.id);
    const page = await seller.get(`/api/orders/${created.id}`);
    expect(JSON.stringify(page.body)).toContain('Cancelled on the marketplace');
  });

  it('without Shopify configured the intake is unavailable (503), before looking at the signature', async () => {
    const unconfigured = createWebhookIntakeService({
      repository: createInboundWebhookRepository(t.context.db),
      receivers: {},
      shops: {
        ingestMarketplaceOrder: () => Promise.reject(new Error('not called')),
        ingestMarketplaceOrderById: () => Promise.reject(new Error('not called')),
      },
    });
    const body = raw({ id: 1 });
    const error = await unconfigured
      .receive('shopify', {
        rawBody: body,
        signature: sign(body),
        shopId: SHOP,
        topic: 'orders/create',
        deliveryId: 'x',
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(503);
  });

  it('a delivery for an unknown shop: 200, stored and marked processed, nothing ingested', async () => {
    const webhookId = randomUUID();
    const body = raw(shopifyOrderPayload('820982911946155000', [{ sku: 'VASE-S', quantity: 1 }]));
    const response = await deliver({
      topic: 'orders/create',
      body,
      webhookId,
      shop: 'someone-else.myshopify.com',
    });
    expect(response.status).toBe(200);
    const [row] = await t.context.db
      .select()
      .from(inboundWebhook)
      .where(eq(inboundWebhook.id, `shopify:${webhookId}`));
    expect(row!.shopId).toBeNull();
    expect(row!.processedAt).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [orders] = await t.context.db
      .select({ n: count() })
      .from(order)
      .where(eq(order.externalId, '820982911946155000'));
    expect(orders!.n).toBe(0);
  });

  it('the sweep queues a delivery that was stored but never queued; queueing it twice is one job', async () => {
    const id = `shopify:${randomUUID()}`;
    await t.context.db.insert(inboundWebhook).values({
      id,
      platform: 'shopify',
      shopId,
      topic: 'orders/create',
      payload: shopifyOrderPayload('820982911946155100', [{ sku: 'VASE-S', quantity: 1 }]),
      receivedAt: new Date(Date.now() - 2 * 60 * 1000),
    });
    expect(await sweepUnprocessedWebhooks(t.running.jobs, t.context.webhookIntake)).toBe(1);
    await waitFor('the swept order', () => findOrder('820982911946155100'));
    await waitFor('processed', async () => (await t.context.webhookIntake.unprocessed(0)).length === 0);
    expect(await sweepUnprocessedWebhooks(t.running.jobs, t.context.webhookIntake)).toBe(0);
    // The job id is derived from the delivery: a second send of it is refused by pg-boss.
    const options: { singletonKey: string; id: string } = { singletonKey: id, id: processWebhookJobId(id) };
    expect(await t.running.jobs.send(QUEUES.processWebhook, { id }, options)).toBeNull();
  });

  it('app/uninstalled: the connection shows the error and its tokens are deleted', async () => {
    const body = raw({
      id: 548380009,
      name: 'Webhook Test Store',
      domain: SHOP,
      myshopify_domain: SHOP,
      plan_name: 'basic',
    });
    expect((await deliver({ topic: 'app/uninstalled', body })).status).toBe(200);
    const row = await waitFor('the uninstall', async () => {
      const [found] = await t.context.db.select().from(shopConnection).where(eq(shopConnection.id, shopId));
      return found?.status === 'error' ? found : undefined;
    });
    expect(row.statusMessage).toBe(APP_UNINSTALLED_MESSAGE);
    expect(row.accessTokenEnc).toBeNull();
    expect(row.refreshTokenEnc).toBeNull();
    const shops = await seller.get('/api/shops');
    expect(shops.body.find((s: { id: string }) => s.id === shopId)).toMatchObject({
      status: 'error',
      statusMessage: APP_UNINSTALLED_MESSAGE,
    });
  });
  it('ACK time: p99 over 200 deliveries (10 at a time) is well under Shopify’s 5 s', async () => {
    const times: number[] = [];
    let next = 0;
    const worker = async () => {
      while (next < 200) {
        const n = next++;
        const body = raw(
          shopifyOrderPayload(String(820982911946160000 + n), [{ sku: 'VASE-S', quantity: 1 }]),
        );
        const response = await deliver({ topic: 'orders/create', body });
        expect(response.status).toBe(200);
        times.push(response.ms);
      }
    };
    await Promise.all(Array.from({ length: 10 }, worker));
    times.sort((a, b) => a - b);
    const p50 = times[Math.floor(times.length * 0.5)]!;
    const p99 = times[Math.ceil(times.length * 0.99) - 1]!;
    console.log(
      `shopify webhook ACK (${t.databaseKind}): p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms`,
    );
    // A sanity bound, not the target: Shopify gives up after 5 s, so every ACK must come well before
    // that. The p99 < 1 s target (WH-7) is measured and printed by bench/webhook-ack.bench.ts.
    expect(p99).toBeLessThan(5000);
    // The backlog drains behind the ACKs (each delivery one job; 200 new orders).
    const started = performance.now();
    await waitFor(
      'the backlog',
      async () => (await t.context.webhookIntake.unprocessed(0)).length === 0,
      25_000,
    );
    console.log(
      `  processed the backlog in ${((performance.now() - started) / 1000).toFixed(1)} s after the last ACK`,
    );
  }, 40_000);
});
