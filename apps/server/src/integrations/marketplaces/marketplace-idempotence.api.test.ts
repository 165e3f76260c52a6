import { createHash, createHmac, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ShippingAddress } from '@layerline/contracts';
import { and, count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addVariants } from '../../../test/orders-fixtures.ts';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { inboundWebhook, order, orderEvent, orderItem, orderOutbox } from '../../db/schema.ts';
import { processWebhookJobId } from '../../jobs/webhook-intake-jobs.ts';
import type { MarketplaceOrder } from '../../modules/shops/connector.ts';
import { createTikTokConnector } from '../tiktok/tiktok-connector.ts';
import { mapTikTokSandboxOrder, tiktokSandboxOrderPayload } from '../tiktok/tiktok-sandbox-order.ts';
import { signTikTokRequest } from '../tiktok/tiktok-signing.ts';
import { createWalmartConnector } from '../walmart/walmart-connector.ts';
import {
  walmartSandboxOrderPayload,
  walmartSandboxOrderToMarketplaceOrder,
} from '../walmart/walmart-sandbox-order.ts';
import {
  walmartWebhookSecret,
  WALMART_WEBHOOK_SHOP_HEADER,
  WALMART_WEBHOOK_TOKEN_HEADER,
} from '../walmart/walmart-webhook-receiver.ts';
import { createWooCommerceConnector } from '../woocommerce/woocommerce-connector.ts';
import {
  mapWooCommerceSandboxOrder,
  wooCommerceSandboxOrderPayload,
} from '../woocommerce/woocommerce-sandbox-order.ts';
import { wooWebhookSecret } from '../woocommerce/woocommerce-webhook-receiver.ts';
import type { SandboxOrderInput } from './marketplaces.ts';

/**
 * Issue 15, per connector that pushes webhooks (WooCommerce, Walmart, TikTok Shop): the same order
 * arriving by the poll (POST /api/shops/:id/sync) and by signed webhooks at the same moment ends as
 * exactly one order, and a redelivery changes nothing. Everything runs through the real server: the
 * real connector, pointed at a local fake of the marketplace that answers with the marketplace's own
 * sandbox payload in the envelope its API uses; the real webhook route, intake, job and ingestion.
 */

const TIKTOK = {
  key: 'tt-idempotence-key',
  secret: 'tt-idempotence-secret',
  serviceId: '7000000000000000042',
};
const SKUS = ['LL-IDEM-VASE', 'LL-IDEM-LAMP'];
/** Distinct webhook deliveries in the race (each also sent twice at once), and polls alongside them. */
const DELIVERIES = 3;
const SYNCS = 3;

let t: TestApp;
let seller: SignedInClient;

beforeAll(async () => {
  t = await startTestApp({
    // WooCommerce's receiver exists by default; these make Walmart's and TikTok Shop's exist.
    WALMART_ENABLED: 'true',
    TIKTOK_APP_KEY: TIKTOK.key,
    TIKTOK_APP_SECRET: TIKTOK.secret,
    TIKTOK_SERVICE_ID: TIKTOK.serviceId,
  });
  seller = await t.signUp({ role: 'beta', name: 'Idempotence Seller' });
  // Every SKU is one of the seller's variants, so the order is accepted (and announced) when created.
  await addVariants(t.context, seller.userId, SKUS);
}, 60_000);

afterAll(async () => {
  await t?.close();
});

// ── a fake marketplace ──────────────────────────────────────────────────────────────────────────

interface FakeRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}
interface FakeReply {
  readonly status?: number;
  readonly body: unknown;
  readonly headers?: Record<string, string>;
}
interface Fake {
  readonly baseUrl: string;
  readonly requests: FakeRequest[];
  close(): Promise<void>;
}

/** A marketplace on 127.0.0.1 answering `handle`'s JSON; every request is recorded. */
async function startFake(handle: (request: FakeRequest) => FakeReply | Promise<FakeReply>): Promise<Fake> {
  const requests: FakeRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const request: FakeRequest = {
        method: req.method ?? 'GET',
        url: new URL(req.url ?? '/', 'http://127.0.0.1'),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      let reply: FakeReply;
      try {
        reply = await handle(request);
      } catch (error) {
        reply = { status: 500, body: { error: String(error) } };
      }
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Makes "at the same moment" exact: while armed, the fake marketplace holds its answers to the polls'
 * order lists and to the webhooks' order fetches until every poll and at least one webhook job has
 * asked (and a moment more, for the rest of that job batch), then answers them all together, so
 * both ways ingest the order at once rather than one after the other.
 */
class Barrier {
  private readonly waiting: (() => void)[] = [];
  private readonly arrived = { poll: 0, fetch: 0 };
  private armed = false;
  private fallback: NodeJS.Timeout | undefined;
  /** True once the polls and a webhook fetch were held and released together. */
  met = false;

  arm(): void {
    this.armed = true;
    // Never hang the suite: released anyway (and `met` stays false, which fails the test).
    this.fallback = setTimeout(() => this.release(), 15_000);
  }

  pass(kind: 'poll' | 'fetch'): Promise<void> {
    if (!this.armed) return Promise.resolve();
    this.arrived[kind] += 1;
    const held = new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.arrived.poll >= SYNCS && this.arrived.fetch >= 1 && !this.met) {
      this.met = true;
      setTimeout(() => this.release(), 150);
    }
    return held;
  }

  private release(): void {
    clearTimeout(this.fallback);
    this.armed = false;
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

const requestsTo = (fake: Fake, method: string, path: string) =>
  fake.requests.filter((r) => r.method === method && r.url.pathname === path).length;

/** The order every marketplace sends here, as the sandbox shop would hand it to the payload builders. */
function sandboxInput(sequence: number): SandboxOrderInput {
  const address: ShippingAddress = {
    name: 'Ada Lovelace',
    company: '',
    line1: '1 Analytical Way',
    line2: 'Unit 2',
    city: 'Portland',
    region: 'OR',
    postalCode: '97201',
    country: 'US',
    phone: '+15035550100',
    email: 'ada@example.com',
  };
  return {
    sequence,
    placedAt: new Date(Date.now() - 60 * 60 * 1000),
    buyer: { name: address.name, address },
    items: [
      { sku: SKUS[0]!, title: 'Idempotence vase', quantity: 2, unitPriceCents: 2450 },
      { sku: SKUS[1]!, title: 'Idempotence lamp', quantity: 1, unitPriceCents: 3900 },
    ],
    currency: 'USD',
  };
}

// ── what is proved, the same way for every marketplace ──────────────────────────────────────────

interface Harness {
  readonly shopId: string;
  readonly platform: 'woocommerce' | 'walmart' | 'tiktok';
  /** The order as the marketplace's own mapping reads its payload. */
  readonly expected: MarketplaceOrder;
  /** Delivery number n, signed as the marketplace signs it; the same n is the same bytes and delivery id. */
  deliver(n: number): Promise<Response>;
  /** How often the fake marketplace served the order by id (what each webhook's job fetches). */
  detailFetches(): number;
  /** The fake marketplace's, on its order list (the poll) and its order by id (the webhooks' fetch). */
  readonly barrier: Barrier;
}

const byId = <T extends { id: string }>(list: T[]) => [...list].sort((a, b) => a.id.localeCompare(b.id));

async function findOrders(h: Harness) {
  return t.context.db
    .select()
    .from(order)
    .where(and(eq(order.channel, h.shopId), eq(order.externalId, h.expected.externalId)));
}

/** The order and everything ingestion writes with it, as stored now; there must be exactly one. */
async function snapshot(h: Harness) {
  const rows = await findOrders(h);
  expect(rows).toHaveLength(1);
  // Nor under another channel (a webhook path keyed apart from the poll's would make a second one).
  const [all] = await t.context.db
    .select({ n: count() })
    .from(order)
    .where(eq(order.externalId, h.expected.externalId));
  expect(all!.n).toBe(1);
  const row = rows[0]!;
  const items = await t.context.db.select().from(orderItem).where(eq(orderItem.orderId, row.id));
  const events = await t.context.db.select().from(orderEvent).where(eq(orderEvent.orderId, row.id));
  const outbox = await t.context.db.select().from(orderOutbox).where(eq(orderOutbox.orderId, row.id));
  return { row, items: byId(items), events: byId(events), outbox: byId(outbox) };
}

const inboundOf = (shopId: string) =>
  t.context.db.select().from(inboundWebhook).where(eq(inboundWebhook.shopId, shopId));

async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const drained = () =>
  waitFor('the webhook jobs', async () => (await t.context.webhookIntake.unprocessed(0)).length === 0);

interface SyncResult {
  ordersReceived: number;
  ordersCreated: number;
}

const sync = (shopId: string) => seller.post<SyncResult>(`/api/shops/${shopId}/sync`, {});

async function proveOneOrder(h: Harness): Promise<void> {
  expect(await findOrders(h)).toHaveLength(0);

  // The race: polls and webhooks for the same order at once; each delivery also arrives twice at once.
  const deliveries = Array.from({ length: DELIVERIES }, (_, n) => [n, n]).flat();
  h.barrier.arm();
  const [syncs, webhooks] = await Promise.all([
    Promise.all(Array.from({ length: SYNCS }, () => sync(h.shopId))),
    Promise.all(deliveries.map((n) => h.deliver(n))),
  ]);
  expect(h.barrier.met).toBe(true);
  expect(syncs.map((s) => s.status)).toEqual(Array(SYNCS).fill(200));
  expect(webhooks.map((w) => w.status)).toEqual(Array(deliveries.length).fill(200));
  for (const s of syncs) expect(s.body.ordersReceived).toBe(1);
  // At most one poll can have created it (none when a webhook's job came first).
  expect(syncs.reduce((sum, s) => sum + s.body.ordersCreated, 0)).toBeLessThanOrEqual(1);

  await drained();
  // One stored delivery per delivery id, each processed without failing, on its first attempt:
  // an ingestion that threw on the race and succeeded on a retry would show here.
  const inbound = await inboundOf(h.shopId);
  expect(inbound).toHaveLength(DELIVERIES);
  for (const row of inbound) expect(row).toMatchObject({ platform: h.platform, failedReason: null });
  for (const row of inbound) expect(row.processedAt).not.toBeNull();
  const jobIds = inbound.map((row) => processWebhookJobId(row.id));
  const jobsNow = async () =>
    (
      (await t.context.db.execute(
        sql`SELECT state, retry_count FROM pgboss.job WHERE name = 'process-webhook' AND id IN (${sql.join(
          jobIds.map((id) => sql`${id}::uuid`),
          sql`, `,
        )})`,
      )) as unknown as { rows: { state: string; retry_count: number }[] }
    ).rows;
  // The queue settles a job just after its handler returns (the row is marked processed inside it).
  await waitFor('the jobs to settle', async () =>
    (await jobsNow()).every((job) => job.state !== 'created' && job.state !== 'active'),
  );
  expect(await jobsNow()).toEqual(Array(DELIVERIES).fill({ state: 'completed', retry_count: 0 }));
  // Every job fetched the order from the marketplace and ingested it (not skipped as unknown).
  expect(h.detailFetches()).toBe(DELIVERIES);

  // Exactly one order, with its items, first events and creation announcement once each (announced
  // just after the ingestion that created it returned).
  await waitFor('the announcement', async () =>
    (
      await t.context.db
        .select()
        .from(orderOutbox)
        .innerJoin(order, eq(order.id, orderOutbox.orderId))
        .where(and(eq(order.channel, h.shopId), eq(order.externalId, h.expected.externalId)))
    ).every((row) => row.order_outbox.announcedAt !== null),
  );
  const first = await snapshot(h);
  expect(first.row).toMatchObject({
    ownerId: seller.userId,
    shopId: h.shopId,
    platform: h.platform,
    status: 'accepted',
  });
  expect(first.items.map((i) => [i.sku, i.quantity, i.variantId !== null]).sort()).toEqual(
    h.expected.items.map((i) => [i.sku, i.quantity, true]).sort(),
  );
  expect(first.events.map((e) => e.toStatus).sort()).toEqual(['accepted', 'received']);
  expect(first.outbox).toHaveLength(1);
  expect(first.outbox[0]).toMatchObject({
    fromStatus: null,
    toStatus: 'accepted',
    announcedAt: expect.any(Date),
  });

  // A redelivery (delivery 0 again: same id, same bytes) is acknowledged and changes nothing: no
  // delivery stored or marked again.
  expect((await h.deliver(0)).status).toBe(200);
  expect(byId(await inboundOf(h.shopId))).toEqual(byId(inbound));

  // The marketplace telling of the order again (a new delivery) and another poll: still the same order, unchanged.
  expect((await h.deliver(DELIVERIES)).status).toBe(200);
  await drained();
  expect(h.detailFetches()).toBe(DELIVERIES + 1);
  const later = await sync(h.shopId);
  expect(later.status).toBe(200);
  expect(later.body).toMatchObject({ ordersReceived: 1, ordersCreated: 0 });
  expect(await snapshot(h)).toEqual(first);
}

// ── the marketplaces ────────────────────────────────────────────────────────────────────────────

describe('the same order by poll and webhook at once is one order', () => {
  it('WooCommerce: GET /orders and order.created/updated (fetched by id), signed per store', async () => {
    const payload = wooCommerceSandboxOrderPayload(sandboxInput(4101));
    const keys = { consumerKey: 'ck_idempotence0123456789', consumerSecret: 'cs_idempotence0123456789' };
    const basic = `Basic ${Buffer.from(`${keys.consumerKey}:${keys.consumerSecret}`).toString('base64')}`;
    const api = '/wp-json/wc/v3';
    const barrier = new Barrier();
    const fake = await startFake(async (request) => {
      if (request.headers.authorization !== basic)
        return { status: 401, body: { code: 'woocommerce_rest_cannot_view', data: { status: 401 } } };
      const path = request.url.pathname;
      if (request.method !== 'GET') return { status: 405, body: { code: 'rest_no_route' } };
      if (path === `${api}/data/currencies/current`)
        return { body: { code: 'USD', name: 'US dollar', symbol: '$' } };
      const page = (items: unknown[]) => ({
        body: items,
        headers: { 'x-wp-total': String(items.length), 'x-wp-totalpages': '1' },
      });
      if (path === `${api}/products`) return page([]);
      if (path === `${api}/orders`) {
        await barrier.pass('poll');
        return page([payload]);
      }
      if (path === `${api}/orders/${payload.id}`) {
        await barrier.pass('fetch');
        return { body: payload };
      }
      return { status: 404, body: { code: 'rest_no_route', data: { status: 404 } } };
    });
    try {
      const connector = createWooCommerceConnector({
        appSecret: t.context.config.appSecret,
        allowInternal: true,
        requestsPerSecond: 100,
      });
      t.context.shopConnectors.register(connector, connector, connector);
      const connected = await seller.post('/api/shops/woocommerce/connect', {
        credentials: { storeUrl: fake.baseUrl, ...keys },
      });
      expect(connected.status).toBe(200);
      const shop = connected.body.shop as { id: string; externalShopId: string };
      const secret = wooWebhookSecret(t.context.config.appSecret, shop.externalShopId);
      // As WooCommerce delivers: the order's JSON, signed with the webhook's secret.
      const body = Buffer.from(JSON.stringify(payload));
      await proveOneOrder({
        shopId: shop.id,
        platform: 'woocommerce',
        expected: mapWooCommerceSandboxOrder(payload),
        deliver: (n) =>
          fetch(`${t.baseUrl}/api/webhooks/woocommerce`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-wc-webhook-source': `${fake.baseUrl}/`,
              'x-wc-webhook-topic': n === 0 ? 'order.created' : 'order.updated',
              'x-wc-webhook-resource': 'order',
              'x-wc-webhook-event': n === 0 ? 'created' : 'updated',
              'x-wc-webhook-id': n === 0 ? '31' : '32',
              'x-wc-webhook-delivery-id': createHash('md5').update(`delivery-${n}`).digest('hex'),
              'x-wc-webhook-signature': createHmac('sha256', secret).update(body).digest('base64'),
            },
            body: new Uint8Array(body),
          }),
        detailFetches: () => requestsTo(fake, 'GET', `${api}/orders/${payload.id}`),
        barrier,
      });
    } finally {
      await fake.close();
    }
  }, 30_000);

  it('Walmart: GET /v3/orders and PO_CREATED (fetched by id, acknowledged), with the per-shop token', async () => {
    const payload = walmartSandboxOrderPayload(sandboxInput(4102));
    const client = { clientId: 'idempotence-client-id', clientSecret: 'idempotence-client-secret' };
    const accessToken = `wm-token-${randomUUID()}`;
    const barrier = new Barrier();
    const fake = await startFake(async (request) => {
      const path = request.url.pathname;
      if (request.method === 'POST' && path === '/v3/token') {
        const basic = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
        if (
          request.headers.authorization !== basic ||
          !request.body.includes('grant_type=client_credentials')
        )
          return { status: 401, body: { error: [{ code: 'UNAUTHORIZED.GMP_GATEWAY_API' }] } };
        return { body: { access_token: accessToken, token_type: 'Bearer', expires_in: 900 } };
      }
      if (request.headers['wm_sec.access_token'] !== accessToken || !request.headers['wm_svc.name'])
        return { status: 401, body: { error: [{ code: 'UNAUTHORIZED.GMP_GATEWAY_API' }] } };
      if (request.method === 'GET' && path === '/v3/items')
        return { body: { ItemResponse: [], totalItems: 0 } };
      if (request.method === 'GET' && path === '/v3/orders') {
        await barrier.pass('poll');
        return {
          body: {
            list: { meta: { totalCount: 1, limit: 200, nextCursor: null }, elements: { order: [payload] } },
          },
        };
      }
      if (request.method === 'GET' && path === `/v3/orders/${payload.purchaseOrderId}`) {
        await barrier.pass('fetch');
        return { body: { order: payload } };
      }
      if (request.method === 'POST' && path === `/v3/orders/${payload.purchaseOrderId}/acknowledge`)
        return { body: { order: payload } };
      return { status: 404, body: { error: [{ code: 'CONTENT_NOT_FOUND.GMP_ORDER_API' }] } };
    });
    try {
      const connector = createWalmartConnector({
        baseUrl: fake.baseUrl,
        webhookSecret: t.context.config.appSecret,
        requestsPerSecond: 100,
      });
      t.context.shopConnectors.register(connector, undefined, connector);
      const connected = await seller.post('/api/shops/walmart/connect', { credentials: client });
      expect(connected.status).toBe(200);
      const shop = connected.body.shop as { id: string; externalShopId: string };
      const token = walmartWebhookSecret(t.context.config.appSecret, shop.externalShopId);
      const eventIds = new Map<number, string>();
      await proveOneOrder({
        shopId: shop.id,
        platform: 'walmart',
        expected: walmartSandboxOrderToMarketplaceOrder(payload),
        deliver: (n) => {
          if (!eventIds.has(n)) eventIds.set(n, randomUUID());
          // Walmart's event envelope; our subscription's custom headers carry the shop and its token.
          const event = {
            source: {
              eventType: 'PO_CREATED',
              eventTime: '2026-11-21T11:59:00.000Z',
              eventId: eventIds.get(n),
            },
            payload: {
              partnerId: '10000012345',
              purchaseOrderId: payload.purchaseOrderId,
              customerOrderId: payload.customerOrderId,
            },
          };
          return fetch(`${t.baseUrl}/api/webhooks/walmart`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              [WALMART_WEBHOOK_SHOP_HEADER]: shop.externalShopId,
              [WALMART_WEBHOOK_TOKEN_HEADER]: token,
            },
            body: JSON.stringify(event),
          });
        },
        detailFetches: () => requestsTo(fake, 'GET', `/v3/orders/${payload.purchaseOrderId}`),
        barrier,
      });
    } finally {
      await fake.close();
    }
  }, 30_000);

  it('TikTok Shop: orders/search and ORDER_STATUS_CHANGE (Get Order Detail by id), signed with the app secret', async () => {
    const payload = tiktokSandboxOrderPayload(sandboxInput(4103));
    const orderId = payload.id as string;
    const shopCipher = 'ROW_idempotence_cipher';
    const externalShopId = '7494049642642449999';
    const accessToken = `tt-token-${randomUUID()}`;
    const authCode = 'idempotence-auth-code';
    const envelope = (data: unknown): FakeReply => ({
      body: { code: 0, message: 'Success', request_id: randomUUID(), data },
    });
    const barrier = new Barrier();
    const fake = await startFake(async (request) => {
      const path = request.url.pathname;
      const query = Object.fromEntries(request.url.searchParams);
      if (path === '/api/v2/token/get') {
        if (
          query.app_key !== TIKTOK.key ||
          query.app_secret !== TIKTOK.secret ||
          query.auth_code !== authCode
        )
          return { body: { code: 36004004, message: 'invalid auth code' } };
        return envelope({
          access_token: accessToken,
          access_token_expire_in: Math.floor(Date.now() / 1000) + 7 * 24 * 3600,
          refresh_token: `tt-refresh-${randomUUID()}`,
          refresh_token_expire_in: Math.floor(Date.now() / 1000) + 365 * 24 * 3600,
          open_id: 'idempotence-open-id',
          seller_name: 'Idempotence Seller',
          seller_base_region: 'US',
          user_type: 0,
          granted_scopes: ['seller.order.info', 'seller.product.basic'],
        });
      }
      // Every Open API call is signed (tiktok-signing.ts) and carries the shop's access token.
      const { sign, access_token: _token, ...signed } = query;
      const expected = signTikTokRequest({
        path,
        query: signed,
        body: request.body,
        appSecret: TIKTOK.secret,
      });
      if (sign !== expected) return { status: 200, body: { code: 106001, message: 'Invalid signature' } };
      if (request.headers['x-tts-access-token'] !== accessToken)
        return { status: 401, body: { code: 105002, message: 'Expired credentials' } };
      if (path === '/authorization/202309/shops')
        return envelope({
          shops: [
            {
              id: externalShopId,
              name: 'Idempotence TikTok Shop',
              region: 'US',
              seller_type: 'LOCAL',
              cipher: shopCipher,
              code: 'USIDEM1',
            },
          ],
        });
      if (query.shop_cipher !== shopCipher)
        return { body: { code: 106011, message: 'shop_cipher is invalid' } };
      if (request.method === 'POST' && path === '/product/202502/products/search')
        return envelope({ products: [], total_count: 0, next_page_token: '' });
      if (request.method === 'POST' && path === '/order/202309/orders/search') {
        await barrier.pass('poll');
        return envelope({ orders: [payload], total_count: 1, next_page_token: '' });
      }
      if (request.method === 'GET' && path === '/order/202507/orders') {
        await barrier.pass('fetch');
        return envelope({ orders: (query.ids ?? '').split(',').includes(orderId) ? [payload] : [] });
      }
      return { status: 404, body: { code: 40006, message: 'Not found' } };
    });
    try {
      const connector = createTikTokConnector({
        appKey: TIKTOK.key,
        appSecret: TIKTOK.secret,
        serviceId: TIKTOK.serviceId,
        apiBaseUrl: fake.baseUrl,
        authBaseUrl: fake.baseUrl,
        requestsPerSecond: 100,
      });
      t.context.shopConnectors.register(connector, connector);
      // The seller's OAuth round trip: the authorisation link, then TikTok's redirect back with a code.
      const started = await seller.post('/api/shops/tiktok/connect', {});
      expect(started.status).toBe(200);
      const state = new URL(started.body.authorizeUrl).searchParams.get('state')!;
      const back = await seller.get(`/api/shops/tiktok/callback?code=${authCode}&state=${state}`);
      expect(back.status).toBe(303);
      expect(back.headers.get('location')).toBe('/connect-store?connected=tiktok');
      const shops = (await seller.get('/api/shops')).body as {
        id: string;
        platform: string;
        externalShopId: string;
      }[];
      const shop = shops.find((s) => s.platform === 'tiktok')!;
      expect(shop.externalShopId).toBe(externalShopId);
      const notificationIds = new Map<number, string>();
      await proveOneOrder({
        shopId: shop.id,
        platform: 'tiktok',
        expected: mapTikTokSandboxOrder(payload),
        deliver: (n) => {
          if (!notificationIds.has(n)) notificationIds.set(n, `73271123930573${String(71910 + n)}`);
          const body = JSON.stringify({
            type: 1,
            tts_notification_id: notificationIds.get(n),
            shop_id: externalShopId,
            timestamp: 1644412885 + n,
            data: {
              order_id: orderId,
              order_status: 'AWAITING_SHIPMENT',
              is_on_hold_order: false,
              update_time: 1644412885,
            },
          });
          // The push signature: hex HMAC-SHA256 with the app secret over the app key and the raw body.
          const authorization = createHmac('sha256', TIKTOK.secret)
            .update(TIKTOK.key + body)
            .digest('hex');
          return fetch(`${t.baseUrl}/api/webhooks/tiktok`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization },
            body,
          });
        },
        detailFetches: () => requestsTo(fake, 'GET', '/order/202507/orders'),
        barrier,
      });
    } finally {
      await fake.close();
    }
  }, 30_000);
});
