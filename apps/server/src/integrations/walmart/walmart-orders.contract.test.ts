import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAPIBackendModule from 'openapi-backend';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MarketplaceRejectedError, type ShopCredentials } from '../../modules/shops/connector.ts';
import { startPrismMock, type PrismMock } from '../http-client/prism-mock.ts';
import { WALMART_SERVICE_NAME } from './walmart-client.ts';
import { createWalmartConnector, walmartShopIdFor, WALMART_CURSOR_OVERLAP_MS } from './walmart-connector.ts';
import {
  walmartSandboxOrderPayload,
  walmartSandboxOrderToMarketplaceOrder,
} from './walmart-sandbox-order.ts';

/**
 * Contract tests: every Marketplace API request the Walmart connector builds goes to Prism running
 * Walmart's Orders description (/work/shared/contracts/walmart/walmart-marketplace-orders-openapi-original.yml,
 * an edited mirror Prism loads), which rejects a missing WM_* header, a wrong query or body.
 *
 * POST /v3/token is not in contracts/. Its description is Walmart's Authentication API, mirrored in
 * the same repository: api-evangelist/walmart `openapi/walmart-marketplace-authentication-openapi-original.yml`
 * (commit c7bb6caafb3dcf72aeffdc179268478b8402b8df). The local token server below checks the
 * request against what that document requires — headers Authorization (Basic), Content-Type
 * (form), WM_QOS.CORRELATION_ID, WM_SVC.NAME; body `grant_type` one of its enum — and answers with
 * that document's client_credentials example ({access_token, token_type: Bearer, expires_in: 900}).
 */

const SPEC = '/work/shared/contracts/walmart/walmart-marketplace-orders-openapi-original.yml';
const OpenAPIBackend = OpenAPIBackendModule.default ?? OpenAPIBackendModule;

interface Recorded {
  method: string;
  url: URL;
  status: number;
  /** Prism's findings about our request (its findings about the vendor's own examples are kept apart). */
  violations: string[];
  responseViolations: string[];
  headers: Headers;
  requestBody: string;
  body: string;
}

interface TokenRequest {
  headers: Record<string, string | string[] | undefined>;
  form: URLSearchParams;
  problems: string[];
}

let prism: PrismMock;
let tokenServer: Server;
let tokenOrigin: string;
let recorded: Recorded[] = [];
let tokenRequests: TokenRequest[] = [];
/** getAnOrder answers (after Prism validated the request) with this order when set. */
let getAnOrderBody: unknown = null;
let listExample: { list: { elements: { order: Record<string, unknown>[] } } };

/**
 * getAnOrder's example wraps the order in {order} while its schema describes a bare order, so Prism
 * flags its own answer; only that finding is expected on the response side.
 */
const expectOnlyKnownResponseFindings = () => {
  for (const call of recorded) {
    const known = call.method === 'GET' && /^\/v3\/orders\/[^/]+$/.test(call.url.pathname);
    for (const message of call.responseViolations)
      expect({ call: call.url.pathname, message }).toEqual({
        call: call.url.pathname,
        message: known
          ? expect.stringMatching(/^Response body must have required property/)
          : 'none expected',
      });
  }
};

/** The Authentication API's requirements for POST /v3/token (see the header comment). */
const tokenProblems = (headers: TokenRequest['headers'], form: URLSearchParams): string[] => {
  const problems: string[] = [];
  const header = (name: string) => {
    const value = headers[name];
    return typeof value === 'string' ? value : '';
  };
  if (!/^Basic [A-Za-z0-9+/]+=*$/.test(header('authorization'))) problems.push('Authorization');
  if (!header('content-type').startsWith('application/x-www-form-urlencoded')) problems.push('Content-Type');
  if (!header('wm_qos.correlation_id')) problems.push('WM_QOS.CORRELATION_ID');
  if (!header('wm_svc.name')) problems.push('WM_SVC.NAME');
  if (!['authorization_code', 'refresh_token', 'client_credentials'].includes(form.get('grant_type') ?? ''))
    problems.push('grant_type');
  return problems;
};

const requestUrl = (input: Parameters<typeof fetch>[0]): URL =>
  new URL(input instanceof Request ? input.url : input);

/** /v3/token → the local token server; every other call → Prism, recorded with its violations. */
const routingFetch: typeof fetch = async (input, init) => {
  const url = requestUrl(input);
  const target =
    url.pathname === '/v3/token'
      ? `${tokenOrigin}${url.pathname}`
      : `${prism.origin}${url.pathname}${url.search}`;
  const response = await fetch(target, init);
  if (url.pathname === '/v3/token') return response;
  const body = await response.clone().text();
  const findings = JSON.parse(response.headers.get('sl-violations') ?? '[]') as {
    location: string[];
    message: string;
  }[];
  recorded.push({
    method: init?.method ?? 'GET',
    url,
    status: response.status,
    violations: findings.filter((f) => f.location[0] !== 'response').map((f) => f.message),
    responseViolations: findings.filter((f) => f.location[0] === 'response').map((f) => f.message),
    headers: new Headers(init?.headers),
    requestBody: typeof init?.body === 'string' ? init.body : '',
    body,
  });
  const isGetAnOrder = (init?.method ?? 'GET') === 'GET' && /^\/v3\/orders\/[^/]+$/.test(url.pathname);
  if (isGetAnOrder && getAnOrderBody !== null && response.ok)
    return new Response(JSON.stringify(getAnOrderBody), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  return response;
};

const NOW = new Date('2026-11-21T12:00:00.000Z');
const CLIENT_ID = '0f0e9f0c-1111-4a2b-9c3d-5e6f7a8b9c0d';
const SHOP_ID = walmartShopIdFor(CLIENT_ID);

const connector = (extra: { channelType?: string } = {}) =>
  createWalmartConnector({
    baseUrl: 'http://walmart.test',
    fetch: routingFetch,
    now: () => NOW,
    http: { baseDelayMs: 10, maxDelayMs: 50 },
    ...extra,
  });

const credentials: ShopCredentials = {
  externalShopId: SHOP_ID,
  accessToken: 'eyJraWQiOiI1MWY3MjM0Ny0wYWY5LTRhZ.stored',
  refreshToken: `${CLIENT_ID}:client-secret`,
  tokenExpiresAt: new Date(NOW.getTime() + 10 * 60_000),
  settings: {},
};

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
      violations: [],
    });
    expect(call.headers.get('WM_SVC.NAME')).toBe(WALMART_SERVICE_NAME);
    expect(call.headers.get('WM_QOS.CORRELATION_ID')).toMatch(/^[0-9a-f-]{36}$/);
    expect(call.headers.get('accept')).toBe('application/json');
  }
  // A new correlation id per request.
  const ids = recorded.map((c) => c.headers.get('WM_QOS.CORRELATION_ID'));
  expect(new Set(ids).size).toBe(ids.length);
  expectOnlyKnownResponseFindings();
};

beforeAll(async () => {
  tokenServer = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const form = new URLSearchParams(raw);
      const problems = tokenProblems(req.headers, form);
      tokenRequests.push({ headers: req.headers, form, problems });
      res.writeHead(problems.length ? 400 : 200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          problems.length
            ? { error: 'invalid_request' }
            : {
                access_token: 'eyJraWQiOiI1MWY3MjM0Ny0wYWY5LTRhZ.....',
                token_type: 'Bearer',
                expires_in: 900,
              },
        ),
      );
    });
  });
  await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve));
  tokenOrigin = `http://127.0.0.1:${(tokenServer.address() as AddressInfo).port}`;
  prism = await startPrismMock(SPEC, 150_000);
  const page = await fetch(`${prism.origin}/v3/orders`, {
    headers: {
      'WM_SEC.ACCESS_TOKEN': 't',
      'WM_QOS.CORRELATION_ID': 'c',
      'WM_SVC.NAME': WALMART_SERVICE_NAME,
    },
  });
  listExample = (await page.json()) as typeof listExample;
}, 180_000);

afterAll(async () => {
  await prism?.stop();
  tokenServer?.closeAllConnections();
  await new Promise<void>((resolve) => tokenServer?.close(() => resolve()));
});

beforeEach(() => {
  recorded = [];
  tokenRequests = [];
  getAnOrderBody = null;
});

describe('Walmart connector against the Walmart Orders OpenAPI (Prism)', () => {
  it('connectWithCredentials: client-credentials token (Authentication API rules), then one getAllOrders', async () => {
    const grant = await connector({ channelType: 'channel-123' }).connectWithCredentials({
      clientId: ` ${CLIENT_ID} `,
      clientSecret: 'client-secret',
    });
    expect(tokenRequests).toHaveLength(1);
    expect(tokenRequests[0]!.problems).toEqual([]);
    expect(tokenRequests[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from(`${CLIENT_ID}:client-secret`).toString('base64')}`,
    );
    expect(Object.fromEntries(tokenRequests[0]!.form)).toEqual({ grant_type: 'client_credentials' });
    expect(tokenRequests[0]!.headers['wm_consumer.channel.type']).toBe('channel-123');
    expectAllValid();
    expect(recorded.map((c) => `${c.method} ${c.url.pathname}${c.url.search}`)).toEqual([
      'GET /v3/orders?limit=1',
    ]);
    expect(recorded[0]!.headers.get('WM_SEC.ACCESS_TOKEN')).toBe('eyJraWQiOiI1MWY3MjM0Ny0wYWY5LTRhZ.....');
    expect(recorded[0]!.headers.get('WM_CONSUMER.CHANNEL.TYPE')).toBe('channel-123');
    expect(grant).toEqual({
      externalShopId: SHOP_ID,
      shopName: 'Walmart seller …9c0d',
      tokens: {
        accessToken: 'eyJraWQiOiI1MWY3MjM0Ny0wYWY5LTRhZ.....',
        refreshToken: `${CLIENT_ID}:client-secret`,
        tokenExpiresAt: new Date(NOW.getTime() + 900_000),
      },
      scopes: '',
      settings: { clientIdHint: '9c0d' },
    });
    expect(SHOP_ID).toMatch(/^wm-[0-9a-f]{24}$/);
    expect(JSON.stringify(grant.settings)).not.toContain(CLIENT_ID);
  });

  it('refreshTokens: a new client-credentials token from the stored "clientId:clientSecret"', async () => {
    const tokens = await connector().refreshTokens!(credentials);
    expect(tokenRequests.map((r) => r.problems)).toEqual([[]]);
    expect(tokens).toEqual({
      accessToken: 'eyJraWQiOiI1MWY3MjM0Ny0wYWY5LTRhZ.....',
      refreshToken: `${CLIENT_ID}:client-secret`,
      tokenExpiresAt: new Date(NOW.getTime() + 900_000),
    });
  });

  it('fetchOrders: lastModifiedStartDate = cursor − 10 min, limit 200, nextCursor paging, acknowledges Created orders', async () => {
    const cursor = '2026-11-21T11:00:00.000Z';
    const result = await connector().fetchOrders(credentials, cursor);
    expectAllValid();
    expect(tokenRequests).toHaveLength(0); // the stored token is still valid
    const lists = recorded.filter((c) => c.url.pathname === '/v3/orders');
    expect(Object.fromEntries(lists[0]!.url.searchParams)).toEqual({
      createdStartDate: new Date(NOW.getTime() - 60 * 24 * 3600_000).toISOString(),
      lastModifiedStartDate: new Date(Date.parse(cursor) - WALMART_CURSOR_OVERLAP_MS).toISOString(),
      limit: '200',
    });
    // Page 2 is the example's nextCursor as query; Prism answers the same cursor again, so paging stops.
    expect(lists).toHaveLength(2);
    expect(Object.fromEntries(lists[1]!.url.searchParams)).toMatchObject({
      limit: '10',
      hasMoreElements: 'true',
      soIndex: '31',
      poIndex: '10',
    });
    // Only the example's Created order is acknowledged.
    expect(recorded.filter((c) => c.method === 'POST').map((c) => c.url.pathname)).toEqual([
      '/v3/orders/1796277083022/acknowledge',
    ]);
    expect(result.nextCursor).toBe(NOW.toISOString());
    expect(result.orders).toHaveLength(10);
    const created = result.orders.find((o) => o.externalId === '1796277083022')!;
    expect(created).toEqual({
      externalId: '1796277083022',
      placedAt: new Date(1568466571000),
      customerName: 'Kathryn Cole',
      shippingAddress: {
        name: 'Kathryn Cole',
        company: '',
        line1: '3258BWarners rd',
        line2: 'Garage',
        city: 'Warners',
        region: 'NY',
        postalCode: '13164',
        country: 'US',
        phone: '3155598681',
        email: '3A31739D8B0A45A1B23F7F8C81C8747F@relay.walmart.com',
      },
      currency: 'USD',
      totalCents: null,
      cancelled: false,
      items: [
        {
          externalItemId: '4',
          sku: 'test1',
          title: 'Beba Bean Pee-pee Teepee Airplane - Blue - Laundry Bag',
          quantity: 1,
          unitPriceCents: 1000,
        },
      ],
    });
    expect(result.orders.find((o) => o.externalId === '3796235970012')!.cancelled).toBe(true);
    expect(result.orders.find((o) => o.externalId === '3796050123784')).toMatchObject({
      cancelled: false,
      items: [{ sku: 'TEST-02', unitPriceCents: 999 }],
    });
  });

  it('fetchOrders without a cursor reads the last 14 days', async () => {
    await connector().fetchOrders(credentials, null);
    expectAllValid();
    expect(recorded[0]!.url.searchParams.get('lastModifiedStartDate')).toBe(
      new Date(NOW.getTime() - 14 * 24 * 3600_000).toISOString(),
    );
  });

  it('fetchOrder: getAnOrder unwraps {order}; a shipped order is not acknowledged', async () => {
    const order = await connector().fetchOrder!(credentials, '1815367951431');
    expectAllValid();
    expect(recorded.map((c) => `${c.method} ${c.url.pathname}`)).toEqual(['GET /v3/orders/1815367951431']);
    expect(order).toMatchObject({
      externalId: '1815367951431',
      customerName: 'Donald Ashley',
      cancelled: false,
    });
    expect(order!.items).toEqual([
      {
        externalItemId: '1',
        sku: 'YHY-FN25200B2',
        title: 'Mac Sports Heavy Duty Steel Double Decker Collapsible Yard Cart Wagon, Purple',
        quantity: 1,
        unitPriceCents: 500,
      },
    ]);
  });

  it('pushTracking: acknowledges a Created order, then ships every open line with tracking (UPS mapped)', async () => {
    getAnOrderBody = { order: listExample.list.elements.order[0] }; // the example's Created order
    await connector().pushTracking(credentials, '1796277083022', {
      trackingNumber: '1Z999AA10123456784',
      carrierName: 'ups',
    });
    expectAllValid();
    expect(recorded.map((c) => `${c.method} ${c.url.pathname}`)).toEqual([
      'GET /v3/orders/1796277083022',
      'POST /v3/orders/1796277083022/acknowledge',
      'POST /v3/orders/1796277083022/shipping',
    ]);
    expect(JSON.parse(recorded[2]!.requestBody)).toEqual({
      orderShipment: {
        orderLines: {
          orderLine: [
            {
              lineNumber: '4',
              sellerOrderId: '1796277083022',
              orderLineStatuses: {
                orderLineStatus: [
                  {
                    status: 'Shipped',
                    statusQuantity: { unitOfMeasurement: 'EACH', amount: '1' },
                    trackingInfo: {
                      shipDateTime: NOW.getTime(),
                      carrierName: { carrier: 'UPS' },
                      methodCode: 'Standard',
                      trackingNumber: '1Z999AA10123456784',
                      trackingURL: 'https://www.ups.com/track?tracknum=1Z999AA10123456784',
                    },
                  },
                ],
              },
            },
          ],
        },
      },
    });
  });

  it('pushTracking: an unknown carrier goes as otherCarrier with a tracking URL; a shipped order is left alone', async () => {
    getAnOrderBody = { order: listExample.list.elements.order[0] };
    await connector().pushTracking(credentials, '1796277083022', {
      trackingNumber: 'SB-1',
      carrierName: 'sandbox',
    });
    expectAllValid();
    const shipped = JSON.parse(recorded.at(-1)!.requestBody) as {
      orderShipment: {
        orderLines: { orderLine: { orderLineStatuses: { orderLineStatus: { trackingInfo: unknown }[] } }[] };
      };
    };
    expect(
      shipped.orderShipment.orderLines.orderLine[0]!.orderLineStatuses.orderLineStatus[0]!.trackingInfo,
    ).toMatchObject({
      carrierName: { otherCarrier: 'sandbox' },
      trackingURL: 'https://t.17track.net/en#nums=SB-1',
    });

    recorded = [];
    getAnOrderBody = null; // Prism's getAnOrder example: every line already Shipped
    await connector().pushTracking(credentials, '1815367951431', {
      trackingNumber: 'X',
      carrierName: 'usps',
    });
    expect(recorded.map((c) => `${c.method} ${c.url.pathname}`)).toEqual(['GET /v3/orders/1815367951431']);

    await expect(
      connector().pushTracking(credentials, '../token', { trackingNumber: 'x', carrierName: 'ups' }),
    ).rejects.toBeInstanceOf(MarketplaceRejectedError);
    expect(recorded).toHaveLength(1); // refused before any request
  });

  it('the sandbox payload is valid against getAllOrders’ order schema and maps to the expected order', async () => {
    const api = new OpenAPIBackend({ definition: SPEC, quick: true, ajvOpts: { logger: false } });
    await api.init();
    const payload = walmartSandboxOrderPayload({
      sequence: 7,
      placedAt: new Date('2026-11-20T09:30:00.000Z'),
      buyer: {
        name: 'Ada Lovelace',
        address: {
          name: 'Ada Lovelace',
          company: '',
          line1: '1 Main St',
          line2: 'Apt 2',
          city: 'Bentonville',
          region: 'AR',
          postalCode: '72712',
          country: 'US',
          phone: '4795550100',
          email: 'ada@example.com',
        },
      },
      items: [
        { sku: 'BENCHY-RED', title: 'Benchy (red)', quantity: 2, unitPriceCents: 1250 },
        { sku: 'VASE-01', title: 'Spiral vase', quantity: 1, unitPriceCents: 2999 },
      ],
      currency: 'usd',
    });
    const page = { list: { meta: { totalCount: 1, limit: 200 }, elements: { order: [payload] } } };
    const valid = api.validateResponse(page, 'getAllOrders');
    expect(valid.errors ?? []).toEqual([]);
    // The validator is real: the same order without its shipping info is refused.
    const { shippingInfo: _dropped, ...withoutShipping } = payload;
    const invalid = api.validateResponse(
      { list: { ...page.list, elements: { order: [withoutShipping] } } },
      'getAllOrders',
    );
    expect(JSON.stringify(invalid.errors)).toContain('shippingInfo');

    expect(walmartSandboxOrderToMarketplaceOrder(payload)).toEqual({
      externalId: '1700000000007',
      placedAt: new Date('2026-11-20T09:30:00.000Z'),
      customerName: 'Ada Lovelace',
      shippingAddress: {
        name: 'Ada Lovelace',
        company: '',
        line1: '1 Main St',
        line2: 'Apt 2',
        city: 'Bentonville',
        region: 'AR',
        postalCode: '72712',
        country: 'US',
        phone: '4795550100',
        email: 'ada@example.com',
      },
      currency: 'USD',
      totalCents: null,
      cancelled: false,
      items: [
        { externalItemId: '1', sku: 'BENCHY-RED', title: 'Benchy (red)', quantity: 2, unitPriceCents: 1250 },
        { externalItemId: '2', sku: 'VASE-01', title: 'Spiral vase', quantity: 1, unitPriceCents: 2999 },
      ],
    });
  });

  describe('negative: the mock really validates', () => {
    const headers = {
      'WM_SEC.ACCESS_TOKEN': 't',
      'WM_QOS.CORRELATION_ID': 'c',
      'WM_SVC.NAME': WALMART_SERVICE_NAME,
    };

    it('rejects a call without WM_SVC.NAME or WM_QOS.CORRELATION_ID', async () => {
      const noService = await fetch(`${prism.origin}/v3/orders?limit=1`, {
        headers: { 'WM_SEC.ACCESS_TOKEN': 't', 'WM_QOS.CORRELATION_ID': 'c' },
      });
      expect(noService.status).toBe(422);
      const noCorrelation = await fetch(`${prism.origin}/v3/orders/1/acknowledge`, {
        method: 'POST',
        headers: { 'WM_SEC.ACCESS_TOKEN': 't', 'WM_SVC.NAME': WALMART_SERVICE_NAME },
      });
      expect(noCorrelation.status).toBe(422);
    });

    it('rejects a shipping line without sellerOrderId or with a carrier outside the enum', async () => {
      const line = {
        lineNumber: '1',
        sellerOrderId: '1',
        orderLineStatuses: {
          orderLineStatus: [
            {
              status: 'Shipped',
              statusQuantity: { unitOfMeasurement: 'EACH', amount: '1' },
              trackingInfo: {
                shipDateTime: 1,
                carrierName: { carrier: 'UPS' },
                methodCode: 'Standard',
                trackingNumber: '1',
              },
            },
          ],
        },
      };
      const post = (orderLine: unknown) =>
        fetch(`${prism.origin}/v3/orders/1/shipping`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ orderShipment: { orderLines: { orderLine: [orderLine] } } }),
        });
      expect((await post(line)).status).toBe(200);
      const { sellerOrderId: _id, ...noSellerOrderId } = line;
      const missing = await post(noSellerOrderId);
      expect(missing.status).toBe(422);
      expect(await missing.text()).toContain('sellerOrderId');
      const badCarrier = structuredClone(line);
      badCarrier.orderLineStatuses.orderLineStatus[0]!.trackingInfo.carrierName.carrier = 'Pigeon';
      const refused = await post(badCarrier);
      expect(refused.status).toBe(422);
      expect(await refused.text()).toContain('carrier');
    });
  });
});
