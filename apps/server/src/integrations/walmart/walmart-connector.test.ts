import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  MalformedOrderError,
  MarketplaceRejectedError,
  MarketplaceUnavailableError,
  type ShopCredentials,
} from '../../modules/shops/connector.ts';
import { createWalmartConnector } from './walmart-connector.ts';
import { mapWalmartOrder } from './walmart-mapping.ts';

/**
 * Token, 401, rate-limit and malformed-order behaviour against a local server (Prism cannot answer
 * 401 or 429 on demand). Its order is the first order of the getAllOrders example in
 * /work/shared/contracts/walmart/walmart-marketplace-orders-openapi-original.yml; the token answer
 * is the Authentication API's client_credentials example (see walmart-orders.contract.test.ts).
 */

const EXAMPLE_ORDER = {
  purchaseOrderId: '1796277083022',
  customerOrderId: '5281956426648',
  customerEmailId: '3A31739D8B0A45A1B23F7F8C81C8747F@relay.walmart.com',
  orderType: 'REPLACEMENT',
  originalCustomerOrderID: '1234567891234',
  orderDate: 1568466571000,
  shippingInfo: {
    phone: '3155598681',
    estimatedDeliveryDate: 1569438000000,
    estimatedShipDate: 1568700000000,
    methodCode: 'Value',
    postalAddress: {
      name: 'Kathryn Cole',
      address1: '3258BWarners rd',
      address2: 'Garage',
      city: 'Warners',
      state: 'NY',
      postalCode: '13164',
      country: 'USA',
      addressType: 'RESIDENTIAL',
    },
  },
  orderLines: {
    orderLine: [
      {
        lineNumber: '4',
        item: { productName: 'Beba Bean Pee-pee Teepee Airplane - Blue - Laundry Bag', sku: 'test1' },
        charges: {
          charge: [
            {
              chargeType: 'PRODUCT',
              chargeName: 'ItemPrice',
              chargeAmount: { currency: 'USD', amount: 10 },
              tax: { taxName: 'Tax1', taxAmount: { currency: 'USD', amount: 0.8 } },
            },
          ],
        },
        orderLineQuantity: { unitOfMeasurement: 'EACH', amount: '1' },
        statusDate: 1568466647000,
        orderLineStatuses: {
          orderLineStatus: [
            { status: 'Created', statusQuantity: { unitOfMeasurement: 'EACH', amount: '1' } },
          ],
        },
        fulfillment: { fulfillmentOption: 'S2H', shipMethod: 'VALUE', pickUpDateTime: 1568919600000 },
      },
    ],
  },
};

interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

let server: Server;
let origin: string;
let requests: { method: string; path: string; token: string | undefined }[] = [];
/** Answers for API calls, in order (the last one repeats); tokens are answered by `tokenReply`. */
let apiReplies: Reply[] = [];
let tokenReply: Reply;
let issued = 0;

const NOW = new Date('2026-11-21T12:00:00.000Z');
let sleeps: number[] = [];

const connector = () =>
  createWalmartConnector({
    baseUrl: origin,
    now: () => NOW,
    http: { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 3, sleep: async (ms) => void sleeps.push(ms) },
  });

const credentials = (overrides: Partial<ShopCredentials> = {}): ShopCredentials => ({
  externalShopId: 'wm-0123456789abcdef01234567',
  accessToken: 'stored-token',
  refreshToken: 'client-id:client-secret',
  tokenExpiresAt: new Date(NOW.getTime() + 10 * 60_000),
  settings: {},
  ...overrides,
});

const ordersPage = (orders: unknown[]) => ({
  list: { meta: { totalCount: orders.length, limit: 200 }, elements: { order: orders } },
});

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const token = req.headers['wm_sec.access_token'] as string | undefined;
      requests.push({ method: req.method ?? 'GET', path, token });
      let reply: Reply;
      if (path === '/v3/token') {
        reply = tokenReply;
        if (reply.status === 200) {
          issued += 1;
          reply = {
            ...reply,
            body: { access_token: `new-token-${issued}`, token_type: 'Bearer', expires_in: 900 },
          };
        }
      } else {
        reply = apiReplies.length > 1 ? apiReplies.shift()! : apiReplies[0]!;
      }
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  requests = [];
  sleeps = [];
  issued = 0;
  tokenReply = { status: 200, body: {} };
  apiReplies = [{ status: 200, body: ordersPage([]) }];
});

const apiCalls = () => requests.filter((r) => r.path !== '/v3/token');
const tokenCalls = () => requests.filter((r) => r.path === '/v3/token');

describe('Walmart tokens', () => {
  it('an expired stored token is replaced by one new token before the call', async () => {
    await connector().fetchOrders(credentials({ tokenExpiresAt: new Date(NOW.getTime() - 1000) }), null);
    expect(tokenCalls()).toHaveLength(1);
    expect(apiCalls().map((r) => r.token)).toEqual(['new-token-1']);
  });

  it('a 401 on an unexpired token gets one new token and one retry', async () => {
    apiReplies = [
      { status: 401, body: { errors: [{ code: 'UNAUTHORIZED' }] } },
      { status: 200, body: ordersPage([]) },
    ];
    const wm = connector();
    await wm.fetchOrders(credentials(), null);
    expect(tokenCalls()).toHaveLength(1);
    expect(apiCalls().map((r) => r.token)).toEqual(['stored-token', 'new-token-1']);
    // The new token is kept for the shop: the next call does not go back to the stale one.
    await wm.fetchOrders(credentials(), null);
    expect(apiCalls().at(-1)!.token).toBe('new-token-1');
    expect(tokenCalls()).toHaveLength(1);
  });

  it('a 401 with the new token too: MarketplaceRejectedError 401 asking to reconnect, no more tries', async () => {
    apiReplies = [{ status: 401, body: { errors: [{ code: 'UNAUTHORIZED' }] } }];
    const error = await connector()
      .fetchOrders(credentials(), null)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceRejectedError);
    expect((error as MarketplaceRejectedError).status).toBe(401);
    expect((error as Error).message).toBe('Walmart access was revoked; reconnect the shop');
    expect(tokenCalls()).toHaveLength(1);
    expect(apiCalls()).toHaveLength(2);
  });

  it('refused client credentials: refresh says reconnect, connecting says the keys were not accepted', async () => {
    tokenReply = { status: 401, body: { error: 'invalid_client' } };
    const refresh = await connector().refreshTokens!(credentials()).catch((e: unknown) => e);
    expect(refresh).toBeInstanceOf(MarketplaceRejectedError);
    expect((refresh as Error).message).toContain('reconnect the shop');
    const connect = await connector()
      .connectWithCredentials({ clientId: 'client-id', clientSecret: 'wrong' })
      .catch((e: unknown) => e);
    expect(connect).toBeInstanceOf(MarketplaceRejectedError);
    expect((connect as Error).message).toBe('Walmart did not accept this Client ID and Client Secret');
    expect(tokenCalls()).toHaveLength(2); // a refusal is never retried
    expect(apiCalls()).toHaveLength(0);
  });

  it('a connection without stored client credentials is refused before any request', async () => {
    await expect(connector().fetchOrders(credentials({ refreshToken: null }), null)).rejects.toBeInstanceOf(
      MarketplaceRejectedError,
    );
    expect(requests).toHaveLength(0);
  });
});

describe('Walmart rate limits', () => {
  it('429 with x-next-replenish-time: waits until then between attempts, then MarketplaceUnavailableError', async () => {
    const replenish = String(NOW.getTime() + 3000);
    apiReplies = [
      {
        status: 429,
        body: { errors: [{ code: 'REQUEST_THRESHOLD_VIOLATED' }] },
        headers: { 'x-current-token-count': '0', 'x-next-replenish-time': replenish },
      },
    ];
    const error = await connector()
      .fetchOrders(credentials(), null)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceUnavailableError);
    expect((error as MarketplaceUnavailableError).retryAfterSeconds).toBe(3);
    expect(apiCalls()).toHaveLength(3);
    // Two waits of the replenish delay (plus the client's small jitter) between the three attempts.
    expect(sleeps).toHaveLength(2);
    for (const ms of sleeps) expect(ms).toBeGreaterThanOrEqual(3000);
  });

  it('a 429 that clears: the call succeeds after the wait', async () => {
    apiReplies = [
      { status: 429, body: {}, headers: { 'x-next-replenish-time': String(NOW.getTime() + 1000) } },
      { status: 200, body: ordersPage([]) },
    ];
    await connector().fetchOrders(credentials(), null);
    expect(apiCalls()).toHaveLength(2);
    expect(sleeps[0]).toBeGreaterThanOrEqual(1000);
  });

  it('an empty bucket (x-current-token-count: 0) holds the next call of that API until the replenish time', async () => {
    apiReplies = [
      {
        status: 200,
        body: ordersPage([]),
        headers: { 'x-current-token-count': '0', 'x-next-replenish-time': String(NOW.getTime() + 5000) },
      },
      { status: 200, body: ordersPage([]) },
    ];
    const wm = connector();
    await wm.fetchOrders(credentials(), null);
    expect(sleeps).toEqual([]);
    await wm.fetchOrders(credentials(), null);
    expect(sleeps).toEqual([5000]);
    expect(apiCalls()).toHaveLength(2);
  });

  it('an empty bucket that refills later than a minute: MarketplaceUnavailableError without calling', async () => {
    apiReplies = [
      {
        status: 200,
        body: ordersPage([]),
        headers: { 'x-current-token-count': '0', 'x-next-replenish-time': String(NOW.getTime() + 600_000) },
      },
    ];
    const wm = connector();
    await wm.fetchOrders(credentials(), null);
    const error = await wm.fetchOrders(credentials(), null).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceUnavailableError);
    expect((error as MarketplaceUnavailableError).retryAfterSeconds).toBe(600);
    expect(apiCalls()).toHaveLength(1);
  });
});

describe('Walmart malformed orders', () => {
  it('mapWalmartOrder names what is missing', () => {
    const { shippingInfo: _s, ...noShipping } = EXAMPLE_ORDER;
    expect(() => mapWalmartOrder(noShipping)).toThrow(
      new MalformedOrderError('Walmart order 1796277083022 has no shipping address'),
    );
    expect(() => mapWalmartOrder({ ...EXAMPLE_ORDER, orderLines: { orderLine: [] } })).toThrow(
      'Walmart order 1796277083022 has no order lines',
    );
    expect(() => mapWalmartOrder({ ...EXAMPLE_ORDER, purchaseOrderId: null })).toThrow(
      'Walmart order has no purchaseOrderId',
    );
    expect(() => mapWalmartOrder({ ...EXAMPLE_ORDER, orderDate: 'yesterday' })).toThrow(
      'no readable orderDate',
    );
    expect(() => mapWalmartOrder('not an order')).toThrow(MalformedOrderError);
  });

  it('a poll skips a malformed order and still returns (and acknowledges) the readable one', async () => {
    apiReplies = [
      { status: 200, body: ordersPage([{ purchaseOrderId: '999', orderLines: 'nope' }, EXAMPLE_ORDER]) },
      { status: 200, body: { order: EXAMPLE_ORDER } },
    ];
    const result = await connector().fetchOrders(credentials(), null);
    expect(result.orders.map((o) => o.externalId)).toEqual(['1796277083022']);
    expect(result.failed).toEqual([{ externalId: '999', reason: expect.stringMatching(/^Walmart order/) }]);
    expect(apiCalls().map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /v3/orders',
      'POST /v3/orders/1796277083022/acknowledge',
    ]);
  });

  it('a partly cancelled line keeps its open units; an order with every unit cancelled is cancelled', () => {
    const line = EXAMPLE_ORDER.orderLines.orderLine[0]!;
    const twoUnits = {
      ...line,
      orderLineQuantity: { unitOfMeasurement: 'EACH', amount: '2' },
      orderLineStatuses: {
        orderLineStatus: [
          { status: 'Acknowledged', statusQuantity: { unitOfMeasurement: 'EACH', amount: '1' } },
          { status: 'Cancelled', statusQuantity: { unitOfMeasurement: 'EACH', amount: '1' } },
        ],
      },
    };
    const partly = mapWalmartOrder({ ...EXAMPLE_ORDER, orderLines: { orderLine: [twoUnits] } });
    expect(partly).toMatchObject({ cancelled: false, items: [{ sku: 'test1', quantity: 1 }] });
    const cancelledLine = {
      ...line,
      orderLineStatuses: {
        orderLineStatus: [
          { status: 'Cancelled', statusQuantity: { unitOfMeasurement: 'EACH', amount: '1' } },
        ],
      },
    };
    expect(mapWalmartOrder({ ...EXAMPLE_ORDER, orderLines: { orderLine: [cancelledLine] } })).toMatchObject({
      cancelled: true,
      items: [{ sku: 'test1', quantity: 1 }],
    });
  });
});
