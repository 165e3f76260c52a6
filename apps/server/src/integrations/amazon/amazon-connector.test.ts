import { readFileSync } from 'node:fs';
import { OpenAPIBackend, type Document } from 'openapi-backend';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  MalformedOrderError,
  MarketplaceUnavailableError,
  type ShopCredentials,
} from '../../modules/shops/connector.ts';
import { AMAZON_USAGE_PLANS, createAmazonRateLimiter } from './amazon-client.ts';
import { amazonCarrierFields, createAmazonConnector } from './amazon-connector.ts';
import { mapAmazonOrder, parseAmazonOrder } from './amazon-mapping.ts';
import { amazonSandboxOrderPayload, mapAmazonSandboxOrder } from './amazon-sandbox-order.ts';

/**
 * Rate limits, retries, mapping and the sandbox payload (request shapes are covered by the Prism
 * contract test). Order fixtures follow ordersV0.json; the sandbox payload is validated against
 * that file's `Order` and `OrderItem` definitions with openapi-backend.
 */

const ORDERS_SPEC = '/work/shared/contracts/amazon-sp-api/ordersV0.json';
const LISTINGS_SPEC = '/work/shared/contracts/amazon-sp-api/listingsItems_2021-08-01.json';
type Json = Record<string, unknown>;

const credentials: ShopCredentials = {
  externalShopId: 'A3SELLER7TEST',
  accessToken: 'Atza|access',
  refreshToken: 'Atzr|refresh',
  tokenExpiresAt: null,
  settings: {},
};

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/** A fake clock: sleeping moves time on, so waits are observable and instant. */
const fakeClock = (start: number) => {
  let nowMs = start;
  const sleeps: number[] = [];
  return {
    now: () => new Date(nowMs),
    sleep: async (ms: number) => {
      sleeps.push(ms);
      nowMs += ms;
    },
    sleeps,
  };
};

const paidOrder = (id: string): Json => ({
  AmazonOrderId: id,
  PurchaseDate: '2026-11-20T10:00:00Z',
  LastUpdateDate: '2026-11-20T10:05:00Z',
  OrderStatus: 'Unshipped',
  FulfillmentChannel: 'MFN',
  MarketplaceId: 'ATVPDKIKX0DER',
  OrderTotal: { CurrencyCode: 'USD', Amount: '31.98' },
  ShippingAddress: {
    Name: 'Grace Hopper',
    AddressLine1: '1 Compiler Rd',
    City: 'Arlington',
    StateOrRegion: 'VA',
    PostalCode: '22201',
    CountryCode: 'US',
  },
  BuyerInfo: { BuyerName: 'Grace Hopper', BuyerEmail: 'abc123@marketplace.amazon.com' },
});

describe('usage plans', () => {
  it('are the defaults each operation documents in the contract files', () => {
    const documented = (file: string, path: string, method: string): { rate: number; burst: number } => {
      const doc = JSON.parse(readFileSync(file, 'utf8')) as {
        paths: Record<string, Record<string, { description: string }>>;
      };
      const match = /\|\s*([\d.]+)\s*\|\s*(\d+)\s*\|/.exec(doc.paths[path]![method]!.description);
      return { rate: Number(match![1]), burst: Number(match![2]) };
    };
    expect({
      getOrders: documented(ORDERS_SPEC, '/orders/v0/orders', 'get'),
      getOrder: documented(ORDERS_SPEC, '/orders/v0/orders/{orderId}', 'get'),
      getOrderItems: documented(ORDERS_SPEC, '/orders/v0/orders/{orderId}/orderItems', 'get'),
      confirmShipment: documented(ORDERS_SPEC, '/orders/v0/orders/{orderId}/shipmentConfirmation', 'post'),
      searchListingsItems: documented(LISTINGS_SPEC, '/listings/2021-08-01/items/{sellerId}', 'get'),
      // The Tokens API model is not in contracts/; its description says 1 per second, burst 10.
      createRestrictedDataToken: { rate: 1, burst: 10 },
    }).toEqual(AMAZON_USAGE_PLANS);
  });
});

describe('rate limiting', () => {
  it('spends the burst at once, then spaces requests at the rate Amazon reports', async () => {
    const clock = fakeClock(0);
    const limiter = createAmazonRateLimiter({ now: () => clock.now().getTime(), sleep: clock.sleep });
    const key = 'A1|confirmShipment'; // burst 10, 2 per second
    for (let i = 0; i < 10; i += 1) await limiter.acquire(key);
    expect(clock.sleeps).toEqual([]);
    await limiter.acquire(key);
    expect(clock.sleeps).toEqual([500]);
    limiter.setRate(key, 0.5); // x-amzn-RateLimit-Limit: 0.5
    await limiter.acquire(key);
    expect(clock.sleeps).toEqual([500, 2000]);
    // Another seller, or another operation, has its own bucket.
    await limiter.acquire('A2|confirmShipment');
    expect(clock.sleeps).toHaveLength(2);
  });

  it('a wait longer than the cap fails at once with the delay instead of holding the worker', async () => {
    const clock = fakeClock(0);
    const limiter = createAmazonRateLimiter({
      now: () => clock.now().getTime(),
      sleep: clock.sleep,
      maxWaitMs: 30_000,
    });
    for (let i = 0; i < 20; i += 1) await limiter.acquire('A1|getOrders');
    const error = await limiter.acquire('A1|getOrders').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceUnavailableError);
    expect((error as MarketplaceUnavailableError).retryAfterSeconds).toBe(60); // 1 / 0.0167 per second
    expect(clock.sleeps).toEqual([]);
  });

  it('getOrders pages beyond the default burst are slowed by the x-amzn-RateLimit-Limit Amazon answers', async () => {
    const run = async (rateHeader: string) => {
      const clock = fakeClock(Date.parse('2026-11-21T12:00:00Z'));
      let pages = 0;
      const fetchFn: typeof fetch = async (input) => {
        const url = new URL(String(input));
        if (url.pathname.startsWith('/tokens/'))
          return json({ restrictedDataToken: 'Atz.sprdt|x', expiresIn: 3600 });
        pages += 1;
        return json({ payload: { Orders: [], NextToken: pages < 25 ? `page-${pages}` : undefined } }, 200, {
          'x-amzn-RateLimit-Limit': rateHeader,
        });
      };
      const amazon = createAmazonConnector({
        appId: 'app',
        lwaClientId: 'id',
        lwaClientSecret: 'secret',
        fetch: fetchFn,
        now: clock.now,
        maxRateLimitWaitMs: 30_000,
        http: { sleep: clock.sleep },
      });
      const outcome = await amazon.fetchOrders(credentials, null).catch((e: unknown) => e);
      return { outcome, pages, sleeps: clock.sleeps };
    };
    // Amazon says this seller may call getOrders 10 times a second: 25 pages, spaced 100 ms past the burst.
    const fast = await run('10.0');
    expect(fast.pages).toBe(25);
    expect(fast.sleeps).toEqual(Array(5).fill(100));
    // The header is unusable ("string", as Prism sends it): the documented 0.0167/s stands, and
    // the 21st page would wait a minute, so the poll stops and is retried later.
    const slow = await run('string');
    expect(slow.pages).toBe(20);
    expect(slow.outcome).toBeInstanceOf(MarketplaceUnavailableError);
    expect((slow.outcome as MarketplaceUnavailableError).retryAfterSeconds).toBe(60);
  });

  it('429 is retried with back-off, then MarketplaceUnavailableError; the next call waits for a token', async () => {
    const clock = fakeClock(Date.parse('2026-11-21T12:00:00Z'));
    let calls = 0;
    const fetchFn: typeof fetch = async () => {
      calls += 1;
      return json(
        {
          errors: [{ code: 'QuotaExceeded', message: 'You exceeded your quota for the requested resource.' }],
        },
        429,
      );
    };
    const amazon = createAmazonConnector({
      appId: 'app',
      lwaClientId: 'id',
      lwaClientSecret: 'secret',
      fetch: fetchFn,
      now: clock.now,
      http: { sleep: clock.sleep, random: () => 1, baseDelayMs: 100, maxAttempts: 3 },
    });
    const error = await amazon
      .pushTracking(credentials, '902-3159896-1390916', { trackingNumber: '1Z', carrierName: 'ups' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceUnavailableError);
    expect((error as Error).message).toContain('429');
    expect(calls).toBe(3);
    expect(clock.sleeps).toEqual([100, 200]); // exponential back-off between the attempts
    // The bucket was emptied: the next getOrder waits a full interval (0.5 per second → 2 s).
    await amazon
      .pushTracking(credentials, '902-3159896-1390916', { trackingNumber: '1Z', carrierName: 'ups' })
      .catch(() => undefined);
    expect(clock.sleeps[2]).toBe(2000);
  });
});

describe('mapping', () => {
  it('refuses what cannot be an order, with the reason', () => {
    expect(() =>
      parseAmazonOrder({ PurchaseDate: '2026-11-20T10:00:00Z', OrderStatus: 'Unshipped' }),
    ).toThrow(
      new MalformedOrderError(
        'Amazon order is not readable: AmazonOrderId Invalid input: expected string, received undefined',
      ),
    );
    const order = parseAmazonOrder(paidOrder('111-1111111-1111111'));
    expect(() => mapAmazonOrder(order, [])).toThrow(
      new MalformedOrderError('Amazon order 111-1111111-1111111 has no items'),
    );
    expect(() => mapAmazonOrder({ ...order, PurchaseDate: 'yesterday' }, [])).toThrow(
      'no valid PurchaseDate',
    );
    expect(() =>
      mapAmazonOrder({ ...order, ShippingAddress: { City: 'Arlington', CountryCode: 'US' } }, []),
    ).toThrow('has no shipping name, street');
  });

  it('maps line prices to unit prices, drops fully cancelled lines, and marks Canceled orders', () => {
    const order = parseAmazonOrder(paidOrder('111-1111111-1111111'));
    const items = [
      {
        OrderItemId: '1',
        SellerSKU: ' LL-PLANTER-M ',
        Title: 'Planter',
        QuantityOrdered: 2,
        ItemPrice: { CurrencyCode: 'USD', Amount: '31.98' },
      },
      {
        OrderItemId: '2',
        SellerSKU: 'LL-VASE',
        Title: 'Vase',
        QuantityOrdered: 0,
        ItemPrice: { CurrencyCode: 'USD', Amount: '0.00' },
      },
    ];
    const mapped = mapAmazonOrder(order, items);
    expect(mapped.items).toEqual([
      { externalItemId: '1', sku: 'LL-PLANTER-M', title: 'Planter', quantity: 2, unitPriceCents: 1599 },
    ]);
    expect(mapped).toMatchObject({
      totalCents: 3198,
      currency: 'USD',
      cancelled: false,
      customerName: 'Grace Hopper',
    });
    expect(mapped.shippingAddress.email).toBe('abc123@marketplace.amazon.com');
    // A cancelled order has no address any more and zero quantities: still read, as cancelled.
    const cancelled = mapAmazonOrder({ ...order, OrderStatus: 'Canceled', ShippingAddress: null }, items);
    expect(cancelled.cancelled).toBe(true);
    expect(cancelled.items).toHaveLength(2);
  });

  it('maps our carriers to Amazon carrier codes, others to Other with a name', () => {
    expect(amazonCarrierFields('usps')).toEqual({ carrierCode: 'USPS' });
    expect(amazonCarrierFields('FedEx')).toEqual({ carrierCode: 'FedEx' });
    expect(amazonCarrierFields('dhl_express')).toEqual({ carrierCode: 'DHL' });
    expect(amazonCarrierFields('canada_post')).toEqual({ carrierCode: 'Other', carrierName: 'Canada Post' });
    expect(amazonCarrierFields('sandbox')).toEqual({ carrierCode: 'Other', carrierName: 'Sandbox' });
  });
});

describe('sandbox payload', () => {
  let api: OpenAPIBackend;
  beforeAll(async () => {
    // ordersV0.json is Swagger 2.0: its definitions are wrapped as OpenAPI 3 components to validate with.
    const swagger = JSON.parse(
      readFileSync(ORDERS_SPEC, 'utf8').replaceAll('#/definitions/', '#/components/schemas/'),
    ) as {
      definitions: Json;
    };
    const bodyOf = (schema: Json) => ({
      requestBody: { required: true, content: { 'application/json': { schema } } },
      responses: { 200: { description: 'valid' } },
    });
    api = new OpenAPIBackend({
      definition: {
        openapi: '3.0.0',
        info: { title: 'ordersV0 definitions', version: 'v0' },
        components: { schemas: swagger.definitions },
        paths: {
          '/order': { post: { operationId: 'order', ...bodyOf({ $ref: '#/components/schemas/Order' }) } },
          '/items': {
            post: { operationId: 'items', ...bodyOf({ $ref: '#/components/schemas/OrderItemList' }) },
          },
        },
      } as unknown as Document,
      quick: true,
      ajvOpts: { strict: false, validateFormats: false },
    });
    await api.init();
  });
  const validate = (path: string, body: unknown) =>
    api.validateRequest({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body })
      .errors ?? [];

  const input = {
    sequence: 42,
    placedAt: new Date('2026-11-21T09:30:00.000Z'),
    buyer: {
      name: 'Maya Thompson',
      address: {
        name: 'Maya Thompson',
        company: '',
        line1: '1420 Larkin Street',
        line2: 'Apt 3',
        city: 'San Francisco',
        region: 'CA',
        postalCode: '94109',
        country: 'US',
        phone: '',
        email: 'maya.t@example.com',
      },
    },
    items: [
      { sku: 'LL-VASE-TWIST', title: 'Twisted Spiral Vase', quantity: 1, unitPriceCents: 2400 },
      { sku: 'LL-PLANTER-M', title: 'Geometric Planter – Medium', quantity: 2, unitPriceCents: 2600 },
    ],
    currency: 'USD',
  };

  it('is an Order and an OrderItem list as ordersV0.json defines them (and the validator rejects a broken one)', () => {
    const payload = amazonSandboxOrderPayload(input);
    expect(validate('/order', payload.order)).toEqual([]);
    expect(validate('/items', payload.orderItems)).toEqual([]);
    expect(payload.order.AmazonOrderId).toMatch(/^\d{3}-\d{7}-\d{7}$/);
    expect(validate('/order', { ...payload.order, PurchaseDate: undefined })).not.toEqual([]);
    expect(validate('/items', [{ ...payload.orderItems[0], QuantityOrdered: '1' }])).not.toEqual([]);
  });

  it('maps through the Amazon mapping to the order it describes, the same every time', () => {
    const payload = amazonSandboxOrderPayload(input);
    expect(amazonSandboxOrderPayload(input)).toEqual(payload);
    const cancelled = amazonSandboxOrderPayload({ ...input, cancelled: true });
    expect(validate('/order', cancelled.order)).toEqual([]);
    expect(mapAmazonSandboxOrder(cancelled).cancelled).toBe(true);
    expect(() => mapAmazonSandboxOrder({ order: payload.order })).toThrow(MalformedOrderError);
    const order = mapAmazonSandboxOrder(payload);
    expect(order).toEqual({
      externalId: payload.order.AmazonOrderId,
      placedAt: input.placedAt,
      customerName: 'Maya Thompson',
      shippingAddress: input.buyer.address,
      currency: 'USD',
      totalCents: 7600,
      cancelled: false,
      items: [
        {
          externalItemId: payload.orderItems[0]!.OrderItemId,
          sku: 'LL-VASE-TWIST',
          title: 'Twisted Spiral Vase',
          quantity: 1,
          unitPriceCents: 2400,
        },
        {
          externalItemId: payload.orderItems[1]!.OrderItemId,
          sku: 'LL-PLANTER-M',
          title: 'Geometric Planter – Medium',
          quantity: 2,
          unitPriceCents: 2600,
        },
      ],
    });
  });
});
