import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OpenAPIBackend, type Document } from 'openapi-backend';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  MalformedOrderError,
  MarketplaceRejectedError,
  MarketplaceUnavailableError,
  type ShopCredentials,
} from '../../modules/shops/connector.ts';
import { startPrismMock, type PrismMock } from '../http-client/prism-mock.ts';
import {
  createWooCommerceConnector,
  WOO_CURSOR_OVERLAP_MS,
  wooAuthorizeUrl,
} from './woocommerce-connector.ts';
import { createWooFetch } from './woocommerce-http.ts';
import { parseWooKeyDelivery, parseWooOrder } from './woocommerce-mapping.ts';
import { mapWooCommerceSandboxOrder, wooCommerceSandboxOrderPayload } from './woocommerce-sandbox-order.ts';

/**
 * Contract tests: every request the WooCommerce connector makes goes, through its own transport
 * (createWooFetch), to Prism running the community WooCommerce v3 file
 * (/work/shared/contracts/woocommerce/woocommerce-openapi-3.0.x.yml), which rejects what the file
 * does not allow (400/422 with sl-violations) and requires HTTP Basic (401 without it). The file's
 * server URL ends in /wp-json/wc/v3 and Prism matches the bare paths, so the test strips that
 * prefix on the way (after recording it). Answers are Prism's, generated from the file's schemas;
 * where a test needs another state (a variable product, a processing order, our own webhook), it
 * edits Prism's answer, keeping its shape. Orders built by the sandbox are validated against the
 * file's shop_order schema with openapi-backend. 401 and 429 come from a local server.
 */

const SPEC = '/work/shared/contracts/woocommerce/woocommerce-openapi-3.0.x.yml';
const PREFIX = '/wp-json/wc/v3';
const APP_SECRET = 'test-app-secret-0123456789abcdef0123456789';
const CK = 'ck_0123456789abcdef0123456789abcdef01234567';
const CS = 'cs_fedcba9876543210fedcba9876543210fedcba98';

interface Recorded {
  method: string;
  /** The URL the connector asked for (with /wp-json/wc/v3). */
  url: URL;
  authorization: string | null;
  requestBody: string;
  status: number;
  violations: string | null;
}

type Patch = (
  call: { method: string; path: string; url: URL },
  body: unknown,
) => { body?: unknown; headers?: Record<string, string> } | undefined;

let prism: PrismMock;
let recorded: Recorded[] = [];
let patch: Patch | undefined;
let schemaApi: OpenAPIBackend;

const wooFetch = createWooFetch({ allowInternal: true });

const recordingFetch: typeof fetch = async (input, init) => {
  const asked = new URL(input instanceof Request ? input.url : String(input));
  const target = new URL(asked);
  if (target.pathname.startsWith(PREFIX)) target.pathname = target.pathname.slice(PREFIX.length);
  const response = await wooFetch(target, init);
  const headers = new Headers(init?.headers);
  const method = init?.method ?? 'GET';
  recorded.push({
    method,
    url: asked,
    authorization: headers.get('authorization'),
    requestBody: typeof init?.body === 'string' ? init.body : '',
    status: response.status,
    violations: response.headers.get('sl-violations'),
  });
  const text = await response.text();
  const body: unknown = text ? JSON.parse(text) : null;
  const patched = response.ok ? patch?.({ method, path: target.pathname, url: target }, body) : undefined;
  const outHeaders = new Headers(response.headers);
  for (const [name, value] of Object.entries(patched?.headers ?? {})) outHeaders.set(name, value);
  return new Response(JSON.stringify(patched?.body ?? body), {
    status: response.status,
    headers: outHeaders,
  });
};

const NOW = new Date('2026-11-21T12:00:00.000Z');

const connector = () =>
  createWooCommerceConnector({
    appSecret: APP_SECRET,
    appName: 'Layerline',
    allowInternal: true,
    fetch: recordingFetch,
    now: () => NOW,
    requestsPerSecond: 1000,
    http: { baseDelayMs: 1, maxDelayMs: 5 },
  });

const credentials = (): ShopCredentials => ({
  externalShopId: new URL(prism.origin).host,
  accessToken: CK,
  refreshToken: CS,
  tokenExpiresAt: null,
  settings: { storeUrl: prism.origin, currency: 'USD' },
});

const expectAllValid = () => {
  expect(recorded.length).toBeGreaterThan(0);
  for (const call of recorded) {
    expect({
      call: `${call.method} ${call.url.pathname}`,
      status: call.status,
      violations: call.violations,
    }).toEqual({
      call: `${call.method} ${call.url.pathname}`,
      status: 200,
      violations: null,
    });
    expect(call.url.pathname.startsWith(`${PREFIX}/`)).toBe(true);
    expect(call.authorization).toBe(`Basic ${Buffer.from(`${CK}:${CS}`).toString('base64')}`);
  }
};

const calls = () => recorded.map((c) => `${c.method} ${c.url.pathname.slice(PREFIX.length)}`);
const query = (call: Recorded) => Object.fromEntries(call.url.searchParams);

const address = {
  name: 'Ada Lovelace',
  company: '',
  line1: '12 Analytical Way',
  line2: 'Flat 3',
  city: 'London',
  region: 'LND',
  postalCode: 'N1 9GU',
  country: 'GB',
  phone: '+44 20 7946 0000',
  email: 'ada@example.com',
};

const sandboxInput = {
  sequence: 4242,
  placedAt: new Date('2026-11-20T09:30:00.000Z'),
  buyer: { name: 'Ada Lovelace', address },
  items: [
    { sku: 'LL-VASE-TWIST', title: 'Twisted Spiral Vase', quantity: 2, unitPriceCents: 2400 },
    { sku: 'LL-PLANTER-M', title: 'Geometric Planter – Medium', quantity: 1, unitPriceCents: 2650 },
  ],
  currency: 'GBP',
};

/** Validates a payload against the file's shop_order schema (the body of GET /orders/{id}). */
const orderSchemaErrors = (api: OpenAPIBackend, payload: unknown) =>
  api.validateResponse(payload, 'getOrder', 200).errors ?? null;

const loadSchemaApi = async (patchDefects: boolean): Promise<OpenAPIBackend> => {
  const loader = new OpenAPIBackend({ definition: SPEC, quick: true });
  const document = structuredClone(await loader.loadDocument()) as Document & {
    paths: Record<string, Record<string, { operationId?: string }>>;
    components: {
      schemas: Record<
        string,
        { properties: Record<string, { items: { properties: Record<string, unknown> } }> }
      >;
    };
  };
  // The file names no operations; the validator looks them up by id.
  document.paths['/orders/{id}']!.get!.operationId = 'getOrder';
  if (patchDefects) {
    // Known defect: line items' product_id is declared a string; WooCommerce's REST docs
    // (woocommerce-rest-api-docs, _orders.md, "Line items properties") and every store send an integer.
    document.components.schemas.shop_order!.properties.line_items!.items.properties.product_id = {
      type: 'integer',
    };
  }
  const api = new OpenAPIBackend({
    definition: document,
    quick: true,
    customizeAjv: (ajv) => ajv.addFormat('email', /^[^\s@]+@[^\s@]+\.[^\s@]+$/),
  });
  await api.init();
  return api;
};

beforeAll(async () => {
  [prism, schemaApi] = await Promise.all([startPrismMock(SPEC), loadSchemaApi(true)]);
}, 90_000);

afterAll(async () => {
  await prism?.stop();
});

beforeEach(() => {
  recorded = [];
  patch = undefined;
});

describe('WooCommerce connector against the WooCommerce v3 file (Prism)', () => {
  it('connectWithCredentials: one authenticated GET /data/currencies/current; keys go in tokens, the store in settings', async () => {
    const grant = await connector().connectWithCredentials({
      storeUrl: `${prism.origin}/`,
      consumerKey: CK,
      consumerSecret: CS,
    });
    expectAllValid();
    expect(calls()).toEqual(['GET /data/currencies/current']);
    const host = new URL(prism.origin).host;
    expect(grant).toEqual({
      externalShopId: host,
      shopName: host,
      tokens: { accessToken: CK, refreshToken: CS, tokenExpiresAt: null },
      scopes: 'read_write',
      settings: { storeUrl: prism.origin, currency: null }, // Prism's example code is "string", not ISO 4217
    });
  });

  it('connectWithCredentials refuses malformed keys before any request', async () => {
    await expect(
      connector().connectWithCredentials({ storeUrl: prism.origin, consumerKey: CS, consumerSecret: CK }),
    ).rejects.toThrow(/consumer key starts with ck_/);
    await expect(
      connector().connectWithCredentials({
        storeUrl: prism.origin,
        consumerKey: CK,
        consumerSecret: 'secret',
      }),
    ).rejects.toThrow(/consumer secret starts with cs_/);
    expect(recorded).toHaveLength(0);
  });

  it('listListings: published products paged by 100; a variable product’s variations, each a listing with its SKU', async () => {
    patch = ({ method, path }, body) => {
      if (method !== 'GET' || path !== '/products') return undefined;
      const [example] = body as Record<string, unknown>[];
      return {
        body: [
          {
            ...example,
            id: 11,
            name: 'Twisted Spiral Vase',
            type: 'simple',
            sku: 'LL-VASE-TWIST',
            price: '24.00',
            images: [{ id: 1, src: 'https://shop.example/vase.jpg' }],
          },
          { ...example, id: 12, name: 'Geometric Planter', type: 'variable', sku: '', price: '18.00' },
          { ...example, id: 13, name: 'Gift set', type: 'grouped', sku: 'SET' },
        ],
      };
    };
    const listings = await connector().listListings(credentials());
    expectAllValid();
    expect(calls()).toEqual(['GET /products', 'GET /products/12/variations']);
    expect(query(recorded[0]!)).toEqual({ status: 'publish', per_page: '100', page: '1' });
    expect(query(recorded[1]!)).toEqual({ status: 'publish', per_page: '100', page: '1' });
    expect(listings).toEqual([
      {
        externalListingId: '11',
        externalVariantId: '',
        title: 'Twisted Spiral Vase',
        sku: 'LL-VASE-TWIST',
        priceCents: 2400,
        currency: 'USD',
        url: 'http://example.com',
        imageUrl: 'https://shop.example/vase.jpg',
      },
      {
        // Prism's example variation, as the file describes it
        externalListingId: '12',
        externalVariantId: '0',
        title: 'Geometric Planter – string',
        sku: 'string',
        priceCents: null,
        currency: 'USD',
        url: 'http://example.com',
        imageUrl: 'http://example.com',
      },
    ]);
  });

  it('paging follows X-WP-TotalPages when the store sends it, else stops on a short page', async () => {
    patch = ({ path, url }, body) => {
      if (path !== '/products') return undefined;
      const [example] = body as Record<string, unknown>[];
      const page = Number(url.searchParams.get('page'));
      const full = Array.from({ length: 100 }, (_, i) => ({
        ...example,
        id: page * 1000 + i,
        type: 'simple',
      }));
      return { body: page < 3 ? full : [], headers: { 'x-wp-totalpages': '2' } };
    };
    expect(await connector().listListings(credentials())).toHaveLength(200);
    expect(recorded.map((c) => c.url.searchParams.get('page'))).toEqual(['1', '2']);

    recorded = [];
    patch = ({ path, url }, body) => {
      if (path !== '/products') return undefined;
      const [example] = body as Record<string, unknown>[];
      const page = Number(url.searchParams.get('page'));
      return {
        body: Array.from({ length: page === 1 ? 100 : 3 }, (_, i) => ({ ...example, id: page * 1000 + i })),
      };
    };
    expect(await connector().listListings(credentials())).toHaveLength(103);
    expect(recorded.map((c) => c.url.searchParams.get('page'))).toEqual(['1', '2']);
    expectAllValid();
  });

  it('fetchOrders: modified_after = cursor − 10 min (GMT), by id ascending; statuses filtered here; bad orders reported, not thrown', async () => {
    const cursor = '2026-11-21T11:00:00.000Z';
    const paid = wooCommerceSandboxOrderPayload(sandboxInput);
    patch = ({ path }, body) => {
      if (path !== '/orders') return undefined;
      const [example] = body as Record<string, unknown>[];
      return {
        body: [
          example, // Prism's example: pending → not taken in
          paid,
          { ...paid, id: 4243, status: 'cancelled' }, // paid, then cancelled → cancels ours
          { ...paid, id: 4244, status: 'cancelled', date_paid: null, date_paid_gmt: null }, // abandoned checkout
          { ...paid, id: 4245, status: 'on-hold' },
          { ...paid, id: 4246, line_items: [] },
        ],
      };
    };
    const result = await connector().fetchOrders(credentials(), cursor);
    expectAllValid();
    expect(calls()).toEqual(['GET /orders']);
    expect(query(recorded[0]!)).toEqual({
      modified_after: new Date(Date.parse(cursor) - WOO_CURSOR_OVERLAP_MS)
        .toISOString()
        .replace('.000Z', 'Z'),
      dates_are_gmt: 'true',
      orderby: 'id',
      order: 'asc',
      per_page: '100',
      page: '1',
    });
    expect(result.nextCursor).toBe(NOW.toISOString());
    expect(result.orders.map((o) => [o.externalId, o.cancelled])).toEqual([
      ['4242', false],
      ['4243', true],
    ]);
    expect(result.failed).toEqual([{ externalId: '4246', reason: 'Order 4246 has no line items' }]);
  });

  it('fetchOrders without a cursor reads the last 30 days', async () => {
    await connector().fetchOrders(credentials(), null);
    expectAllValid();
    expect(recorded[0]!.url.searchParams.get('modified_after')).toBe('2026-10-22T12:00:00Z');
  });

  it('pushTracking: reads the order and its customer notes, adds the tracking note, then sets completed', async () => {
    await connector().pushTracking(credentials(), '5', {
      trackingNumber: '1Z999AA10123456784',
      carrierName: 'ups',
    });
    expectAllValid();
    expect(calls()).toEqual([
      'GET /orders/5',
      'GET /orders/5/notes',
      'POST /orders/5/notes',
      'PUT /orders/5',
    ]);
    expect(query(recorded[1]!)).toEqual({ type: 'customer' });
    expect(JSON.parse(recorded[2]!.requestBody)).toEqual({
      note: 'Shipped with UPS: 1Z999AA10123456784 https://www.ups.com/track?tracknum=1Z999AA10123456784',
      customer_note: true,
    });
    expect(JSON.parse(recorded[3]!.requestBody)).toEqual({ status: 'completed' });
  });

  it('pushTracking again (a retry): no second note when one carries the number; a completed order is left as is', async () => {
    patch = ({ method, path }, body) => {
      if (method === 'GET' && path === '/orders/5/notes') {
        const [example] = body as Record<string, unknown>[];
        return { body: [{ ...example, note: 'Shipped with Sandbox carrier: SBX-1', customer_note: true }] };
      }
      if (method === 'GET' && path === '/orders/5')
        return { body: { ...(body as object), status: 'completed' } };
      return undefined;
    };
    await connector().pushTracking(credentials(), '5', { trackingNumber: 'SBX-1', carrierName: 'sandbox' });
    expectAllValid();
    expect(calls()).toEqual(['GET /orders/5', 'GET /orders/5/notes']);
  });

  it('pushTracking refuses a cancelled order (409) and an id that is not a number, without writing', async () => {
    patch = ({ method, path }, body) =>
      method === 'GET' && path === '/orders/5'
        ? { body: { ...(body as object), status: 'cancelled' } }
        : undefined;
    const error = await connector()
      .pushTracking(credentials(), '5', { trackingNumber: '1Z', carrierName: 'ups' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceRejectedError);
    expect((error as MarketplaceRejectedError).status).toBe(409);
    expect(calls()).toEqual(['GET /orders/5']);
    await expect(
      connector().pushTracking(credentials(), '../webhooks', { trackingNumber: '1Z', carrierName: 'ups' }),
    ).rejects.toBeInstanceOf(MarketplaceRejectedError);
    expect(recorded).toHaveLength(1);
  });

  it('fetchOrder: GET /orders/{id}; an order in a status we skip is null', async () => {
    expect(await connector().fetchOrder(credentials(), '7')).toBeNull(); // Prism's example is pending
    patch = ({ path }) =>
      path === '/orders/7'
        ? { body: wooCommerceSandboxOrderPayload({ ...sandboxInput, sequence: 7 }) }
        : undefined;
    expect((await connector().fetchOrder(credentials(), '7'))?.externalId).toBe('7');
    expectAllValid();
    expect(calls()).toEqual(['GET /orders/7', 'GET /orders/7']);
  });

  it('subscribeWebhooks: order.created and order.updated to the callback with the derived per-shop secret', async () => {
    const callbackUrl = 'https://layerline.example/api/webhooks/woocommerce';
    await connector().subscribeWebhooks(credentials(), callbackUrl);
    expectAllValid();
    expect(calls()).toEqual(['GET /webhooks', 'POST /webhooks', 'POST /webhooks']);
    expect(query(recorded[0]!)).toEqual({ status: 'all', per_page: '100', page: '1' });
    const secret = createHmac('sha256', APP_SECRET)
      .update(`woocommerce-webhook:${new URL(prism.origin).host}`)
      .digest('base64url');
    expect(recorded.slice(1).map((c) => JSON.parse(c.requestBody) as unknown)).toEqual([
      {
        name: 'Layerline order.created',
        status: 'active',
        topic: 'order.created',
        delivery_url: callbackUrl,
        secret,
      },
      {
        name: 'Layerline order.updated',
        status: 'active',
        topic: 'order.updated',
        delivery_url: callbackUrl,
        secret,
      },
    ]);
  });

  it('subscribeWebhooks updates a webhook we already have (re-activated, current secret) instead of adding one', async () => {
    const callbackUrl = 'https://layerline.example/api/webhooks/woocommerce';
    patch = ({ method, path }, body) => {
      if (method !== 'GET' || path !== '/webhooks') return undefined;
      const [example] = body as Record<string, unknown>[];
      return {
        body: [{ ...example, id: 31, topic: 'order.created', status: 'disabled', delivery_url: callbackUrl }],
      };
    };
    await connector().subscribeWebhooks(credentials(), callbackUrl);
    expectAllValid();
    expect(calls()).toEqual(['GET /webhooks', 'PUT /webhooks/31', 'POST /webhooks']);
    expect(JSON.parse(recorded[1]!.requestBody)).toMatchObject({ topic: 'order.created', status: 'active' });
  });

  it('revoke deletes only our webhooks (force=true); WooCommerce has no API to revoke the key itself', async () => {
    patch = ({ method, path }, body) => {
      if (method !== 'GET' || path !== '/webhooks') return undefined;
      const [example] = body as Record<string, unknown>[];
      return {
        body: [
          {
            ...example,
            id: 31,
            topic: 'order.created',
            delivery_url: 'https://layerline.example/api/webhooks/woocommerce',
          },
          { ...example, id: 32, topic: 'order.created', delivery_url: 'https://erp.example/hooks/orders' },
        ],
      };
    };
    await connector().revoke(credentials());
    expectAllValid();
    expect(calls()).toEqual(['GET /webhooks', 'DELETE /webhooks/31']);
    expect(query(recorded[1]!)).toEqual({ force: 'true' });
  });

  describe('negative: the mock really validates', () => {
    const auth = { authorization: `Basic ${Buffer.from(`${CK}:${CS}`).toString('base64')}` };

    it('rejects a request without HTTP Basic (401) and a status outside the order enum', async () => {
      expect((await fetch(`${prism.origin}/orders/5`)).status).toBe(401);
      const bad = await fetch(`${prism.origin}/orders/5`, {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'shipped' }),
      });
      expect(bad.status).toBe(400);
      expect(bad.headers.get('sl-violations')).toContain('status');
    });

    it('rejects a note whose customer_note is not a boolean', async () => {
      const bad = await fetch(`${prism.origin}/orders/5/notes`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ note: 'x', customer_note: 'yes' }),
      });
      expect(bad.status).toBe(400);
      expect(bad.headers.get('sl-violations')).toContain('customer_note');
    });
  });
});

describe('the sandbox order in WooCommerce’s shape', () => {
  it('is valid against the file’s shop_order schema (product_id patched) and maps to the expected order', async () => {
    const payload = wooCommerceSandboxOrderPayload(sandboxInput);
    expect(orderSchemaErrors(schemaApi, payload)).toBeNull();
    expect(mapWooCommerceSandboxOrder(payload)).toEqual({
      externalId: '4242',
      placedAt: new Date('2026-11-20T09:30:00.000Z'),
      customerName: 'Ada Lovelace',
      shippingAddress: address,
      currency: 'GBP',
      totalCents: 7450,
      cancelled: false,
      items: [
        {
          externalItemId: '424201',
          sku: 'LL-VASE-TWIST',
          title: 'Twisted Spiral Vase',
          quantity: 2,
          unitPriceCents: 2400,
        },
        {
          externalItemId: '424202',
          sku: 'LL-PLANTER-M',
          title: 'Geometric Planter – Medium',
          quantity: 1,
          unitPriceCents: 2650,
        },
      ],
    });
    expect(
      mapWooCommerceSandboxOrder(wooCommerceSandboxOrderPayload({ ...sandboxInput, cancelled: true }))
        .cancelled,
    ).toBe(true);
  });

  it('against the unpatched file, the only violation is the known product_id defect; a wrong shape is caught', async () => {
    const unpatched = await loadSchemaApi(false);
    const payload = wooCommerceSandboxOrderPayload(sandboxInput);
    const errors = orderSchemaErrors(unpatched, payload) ?? [];
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e.instancePath.endsWith('/product_id'))).toBe(true);
    expect(orderSchemaErrors(schemaApi, { ...payload, status: 'shipped' })).not.toBeNull();
  });

  it('a payload that is not a readable order is a MalformedOrderError with the reason', () => {
    const payload = wooCommerceSandboxOrderPayload(sandboxInput);
    expect(() => parseWooOrder({ ...payload, line_items: [] })).toThrow(
      new MalformedOrderError('Order 4242 has no line items'),
    );
    expect(() => parseWooOrder({ ...payload, shipping: {}, billing: {} })).toThrow(/has no shipping address/);
    expect(() => parseWooOrder({ ...payload, id: 'abc' })).toThrow(/Not a WooCommerce order \(id:/);
    expect(() => parseWooOrder('<html>')).toThrow(MalformedOrderError);
  });
});

describe('authorisation endpoint', () => {
  it('wooAuthorizeUrl builds /wc-auth/v1/authorize with every value encoded', () => {
    const url = new URL(
      wooAuthorizeUrl({
        storeUrl: 'https://Shop.Example.com/store/',
        appName: 'Layerline',
        state: 'st&ate',
        returnUrl: 'https://layerline.example/connect-store/woocommerce/return?x=1',
        callbackUrl: 'https://layerline.example/api/shops/woocommerce/keys',
      }),
    );
    expect(url.origin + url.pathname).toBe('https://shop.example.com/store/wc-auth/v1/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      app_name: 'Layerline',
      scope: 'read_write',
      user_id: 'st&ate',
      return_url: 'https://layerline.example/connect-store/woocommerce/return?x=1',
      callback_url: 'https://layerline.example/api/shops/woocommerce/keys',
    });
    expect(() =>
      wooAuthorizeUrl({
        storeUrl: 'http://shop.example.com',
        appName: 'L',
        state: 's',
        returnUrl: 'r',
        callbackUrl: 'c',
      }),
    ).toThrow(MarketplaceRejectedError);
  });

  it('parseWooKeyDelivery reads the documented JSON and refuses narrower keys or other shapes', () => {
    // The example from woocommerce-rest-api-docs (_authentication.md), with real-looking keys.
    expect(
      parseWooKeyDelivery({
        key_id: 1,
        user_id: 123,
        consumer_key: CK,
        consumer_secret: CS,
        key_permissions: 'read_write',
      }),
    ).toEqual({
      key_id: 1,
      user_id: '123',
      consumer_key: CK,
      consumer_secret: CS,
      key_permissions: 'read_write',
    });
    expect(() =>
      parseWooKeyDelivery({
        key_id: 1,
        user_id: 's',
        consumer_key: CK,
        consumer_secret: CS,
        key_permissions: 'read',
      }),
    ).toThrow(/read access; Layerline needs read\/write/);
    expect(() => parseWooKeyDelivery({ user_id: 's', consumer_key: CK })).toThrow(MarketplaceRejectedError);
  });
});

describe('store answers that are not in the file: 401 and 429 (local server)', () => {
  let server: Server;
  let origin: string;
  let replies: { status: number; headers?: Record<string, string>; body: unknown }[] = [];
  let hits = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits += 1;
      const reply = replies.shift() ?? { status: 200, body: [] };
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    hits = 0;
    replies = [];
  });

  const local = (sleeps: number[] = []) =>
    createWooCommerceConnector({
      appSecret: APP_SECRET,
      allowInternal: true,
      requestsPerSecond: 1000,
      http: { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 3, sleep: async (ms) => void sleeps.push(ms) },
    });
  const localCredentials = (): ShopCredentials => ({
    ...credentials(),
    externalShopId: new URL(origin).host,
    settings: { storeUrl: origin },
  });

  it('401 (key deleted or revoked in WooCommerce) → MarketplaceRejectedError asking to reconnect, not retried', async () => {
    replies = [
      {
        status: 401,
        body: {
          code: 'woocommerce_rest_authentication_error',
          message: 'Consumer key is invalid.',
          data: { status: 401 },
        },
      },
    ];
    const error = await local()
      .fetchOrders(localCredentials(), null)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceRejectedError);
    expect((error as MarketplaceRejectedError).status).toBe(401);
    expect((error as Error).message).toMatch(/reconnect the shop/);
    expect(hits).toBe(1);
  });

  it('429 → waits the store’s Retry-After, then succeeds; a persistent 429 → MarketplaceUnavailableError with the delay', async () => {
    const sleeps: number[] = [];
    replies = [{ status: 429, headers: { 'retry-after': '2' }, body: { code: 'rate_limited' } }];
    await local(sleeps).fetchOrders(localCredentials(), null);
    expect(hits).toBe(2);
    expect(sleeps[0]).toBeGreaterThanOrEqual(2000);

    hits = 0;
    replies = [0, 1, 2].map(() => ({ status: 429, headers: { 'retry-after': '3' }, body: {} }));
    const error = await local()
      .fetchOrders(localCredentials(), null)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceUnavailableError);
    expect((error as MarketplaceUnavailableError).retryAfterSeconds).toBe(3);
    expect(hits).toBe(3);
  });
});
