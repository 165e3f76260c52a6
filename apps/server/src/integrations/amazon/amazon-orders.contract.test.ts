import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  MalformedOrderError,
  MarketplaceRejectedError,
  type ShopCredentials,
} from '../../modules/shops/connector.ts';
import { startPrismMock, type PrismMock } from '../http-client/prism-mock.ts';
import {
  AMAZON_CURSOR_OVERLAP_MS,
  amazonPackageReferenceId,
  createAmazonConnector,
} from './amazon-connector.ts';

/**
 * Contract tests: every Orders API request the connector builds goes to Prism running Amazon's own
 * model (/work/shared/contracts/amazon-sp-api/ordersV0.json), which rejects what the model does not
 * allow. Two endpoints are not in our contracts folder and are checked by a local server instead:
 * - LWA's token endpoint (https://api.amazon.com/auth/o2/token), against the form Amazon documents
 *   ("Connecting to the Selling Partner API": grant_type, code or refresh_token, client_id,
 *   client_secret, redirect_uri for a code);
 * - the Tokens API (POST /tokens/2021-03-01/restrictedDataToken), against CreateRestrictedDataTokenRequest
 *   transcribed below from amzn/selling-partner-api-models models/tokens-api-model/tokens_2021-03-01.json
 *   (read at commit 264f3deac4242911e4dbf89e6c7cb6c64bfeff94), answering that model's sandbox shape.
 * Where Prism's example order is unusable (it is `Pending`), the answer is replaced by a fixture
 * built from the same file's `x-amzn-api-sandbox` responses; the request still went to Prism.
 */

const SPEC = '/work/shared/contracts/amazon-sp-api/ordersV0.json';
const spec = JSON.parse(readFileSync(SPEC, 'utf8')) as {
  paths: Record<string, Record<string, { responses: Record<string, Record<string, unknown>> }>>;
};
type Json = Record<string, unknown>;
const sandboxResponse = (path: string, index: number): Json => {
  const sandbox = spec.paths[path]!.get!.responses['200']!['x-amzn-api-sandbox'] as {
    static: { response: Json }[];
  };
  return structuredClone(sandbox.static[index]!.response);
};
const exampleOf = (path: string): Json =>
  structuredClone((spec.paths[path]!.get!.responses['200']!.examples as Json)['application/json'] as Json);

/** CreateRestrictedDataTokenRequest from tokens_2021-03-01.json, as a checker. */
const restrictedDataTokenRequestProblems = (body: unknown): string[] => {
  const problems: string[] = [];
  if (typeof body !== 'object' || body === null) return ['body is not an object'];
  const resources = (body as Json).restrictedResources;
  if (!Array.isArray(resources)) return ['restrictedResources is required and must be an array'];
  if (resources.length > 50) problems.push('restrictedResources: at most 50');
  for (const [i, resource] of resources.entries()) {
    const r = resource as Json;
    if (!['GET', 'PUT', 'POST', 'DELETE'].includes(r.method as string)) problems.push(`[${i}].method`);
    if (typeof r.path !== 'string') problems.push(`[${i}].path`);
    if (
      r.dataElements !== undefined &&
      !(Array.isArray(r.dataElements) && r.dataElements.every((d) => typeof d === 'string'))
    )
      problems.push(`[${i}].dataElements`);
  }
  return problems;
};

interface Recorded {
  method: string;
  url: URL;
  status: number;
  violations: string | null;
  accessToken: string | null;
  requestBody: string;
}

let prism: PrismMock;
let local: Server;
let localOrigin: string;
let recorded: Recorded[] = [];
let lwaRequests: URLSearchParams[] = [];
let lwaReply: { status: number; body: unknown } = { status: 200, body: {} };
let rdtRequests: { accessToken: string | null; body: unknown; problems: string[] }[] = [];
/** Replaces the answer of a request Prism accepted, by pathname. */
let overrides: Map<string, (url: URL) => Json> = new Map();
/** Answers instead of Prism for the next matching requests (a 403 for an expired token). */
let interceptions: { match: (url: URL, token: string | null) => boolean; status: number; body: Json }[] = [];

const headerOf = (init: RequestInit | undefined, name: string): string | null =>
  new Headers(init?.headers).get(name);

const recordingFetch: typeof fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const token = headerOf(init, 'x-amz-access-token');
  if (url.pathname.startsWith('/tokens/')) return fetch(`${localOrigin}${url.pathname}`, init);
  if (url.origin !== prism.origin) return fetch(input, init); // LWA, on the local server
  const intercepted = interceptions.findIndex((i) => i.match(url, token));
  if (intercepted >= 0) {
    const [reply] = interceptions.splice(intercepted, 1);
    return new Response(JSON.stringify(reply!.body), {
      status: reply!.status,
      headers: { 'content-type': 'application/json' },
    });
  }
  const response = await fetch(input, init);
  recorded.push({
    method: init?.method ?? 'GET',
    url,
    status: response.status,
    violations: response.headers.get('sl-violations'),
    accessToken: token,
    requestBody: typeof init?.body === 'string' ? init.body : '',
  });
  const override = [...overrides].find(([path]) => url.pathname === path)?.[1];
  if (override && response.ok) {
    return new Response(JSON.stringify(override(url)), { status: 200, headers: response.headers });
  }
  return response;
};

const NOW = new Date('2026-11-21T12:00:00.000Z');

const connector = (extra: Partial<Parameters<typeof createAmazonConnector>[0]> = {}) =>
  createAmazonConnector({
    appId: 'amzn1.sp.solution.test-app',
    lwaClientId: 'amzn1.application-oa2-client.test',
    lwaClientSecret: 'lwa-secret',
    fetch: recordingFetch,
    apiBaseUrl: prism.origin,
    tokenUrl: `${localOrigin}/auth/o2/token`,
    now: () => NOW,
    http: { baseDelayMs: 5, maxDelayMs: 20 },
    ...extra,
  });

const credentials: ShopCredentials = {
  externalShopId: 'A3SELLER7TEST',
  accessToken: 'Atza|current-access',
  refreshToken: 'Atzr|refresh-token',
  tokenExpiresAt: new Date(NOW.getTime() + 30 * 60_000),
  settings: { region: 'na', marketplaceIds: ['ATVPDKIKX0DER'] },
};

const expectAllValid = () => {
  expect(recorded.length).toBeGreaterThan(0);
  for (const call of recorded)
    expect({
      call: `${call.method} ${call.url.pathname}`,
      status: call.status,
      violations: call.violations,
    }).toEqual({
      call: `${call.method} ${call.url.pathname}`,
      status: call.method === 'POST' ? 204 : 200,
      violations: null,
    });
};

/** The contract's getOrder example address and buyer, as an RDT-authorised answer carries them. */
const piiOfExample = () => {
  const order = exampleOf('/orders/v0/orders/{orderId}').payload as Json;
  return { ShippingAddress: order.ShippingAddress, BuyerInfo: order.BuyerInfo };
};

beforeAll(async () => {
  local = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'POST' && req.url === '/auth/o2/token') {
        lwaRequests.push(new URLSearchParams(raw));
        const contentType = req.headers['content-type'] ?? '';
        if (!contentType.startsWith('application/x-www-form-urlencoded'))
          return reply(400, { error: 'invalid_request', error_description: 'form body expected' });
        return reply(lwaReply.status, lwaReply.body);
      }
      if (req.method === 'POST' && req.url === '/tokens/2021-03-01/restrictedDataToken') {
        let body: unknown = null;
        try {
          body = JSON.parse(raw);
        } catch {
          /* reported as a problem below */
        }
        const token =
          typeof req.headers['x-amz-access-token'] === 'string' ? req.headers['x-amz-access-token'] : null;
        const problems = restrictedDataTokenRequestProblems(body);
        rdtRequests.push({ accessToken: token, body, problems });
        if (problems.length > 0)
          return reply(400, { errors: [{ code: 'InvalidInput', message: problems.join('; ') }] });
        return reply(200, { restrictedDataToken: 'Atz.sprdt|restricted-token', expiresIn: 3600 });
      }
      reply(404, { errors: [{ code: 'NotFound', message: 'not found' }] });
    });
  });
  await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
  localOrigin = `http://127.0.0.1:${(local.address() as AddressInfo).port}`;
  prism = await startPrismMock(SPEC);
}, 90_000);

afterAll(async () => {
  await prism?.stop();
  local?.closeAllConnections();
  await new Promise<void>((resolve) => local?.close(() => resolve()));
});

beforeEach(() => {
  recorded = [];
  lwaRequests = [];
  rdtRequests = [];
  overrides = new Map();
  interceptions = [];
  lwaReply = {
    status: 200,
    body: {
      access_token: 'Atza|new-access',
      refresh_token: 'Atzr|refresh-token',
      token_type: 'bearer',
      expires_in: 3600,
    },
  };
});

describe('Amazon connector against the Orders API v0 model (Prism)', () => {
  it('fetchOrders: one RDT for getOrders, then getOrders by LastUpdatedAfter (cursor − 10 min), MFN, paged by NextToken', async () => {
    const cursor = '2026-11-21T11:00:00.000Z';
    const result = await connector().fetchOrders(credentials, cursor);
    expectAllValid();
    expect(rdtRequests).toEqual([
      {
        accessToken: 'Atza|current-access',
        body: {
          restrictedResources: [
            { method: 'GET', path: '/orders/v0/orders', dataElements: ['buyerInfo', 'shippingAddress'] },
          ],
        },
        problems: [],
      },
    ]);
    // Prism's example page carries a NextToken and repeats it: the second page is asked for once.
    expect(recorded.map((c) => Object.fromEntries(c.url.searchParams))).toEqual([
      {
        MarketplaceIds: 'ATVPDKIKX0DER',
        LastUpdatedAfter: new Date(Date.parse(cursor) - AMAZON_CURSOR_OVERLAP_MS).toISOString(),
        FulfillmentChannels: 'MFN',
        MaxResultsPerPage: '100',
      },
      {
        MarketplaceIds: 'ATVPDKIKX0DER',
        LastUpdatedAfter: new Date(Date.parse(cursor) - AMAZON_CURSOR_OVERLAP_MS).toISOString(),
        FulfillmentChannels: 'MFN',
        MaxResultsPerPage: '100',
        NextToken: '2YgYW55IGNhcm5hbCBwbGVhc3VyZS4',
      },
    ]);
    expect(recorded.every((c) => c.accessToken === 'Atz.sprdt|restricted-token')).toBe(true);
    // The example order is Pending (not paid, no items or address yet): skipped, no getOrderItems.
    expect(result).toEqual({ orders: [], nextCursor: NOW.toISOString(), failed: [] });
  });

  it('fetchOrders maps paid orders with their items (getOrderItems with the LWA token) and reports an unreadable one', async () => {
    const page = sandboxResponse('/orders/v0/orders', 0) as { payload: { Orders: Json[] } };
    // The first order as an RDT answer carries it; the second lacks the address (no restricted data).
    Object.assign(page.payload.Orders[0]!, piiOfExample());
    overrides.set('/orders/v0/orders', () => page);
    const items = sandboxResponse('/orders/v0/orders/{orderId}/orderItems', 0) as { payload: Json };
    overrides.set('/orders/v0/orders/902-1845936-5435065/orderItems', () => items);
    overrides.set('/orders/v0/orders/902-8745147-1934268/orderItems', () => items);

    const result = await connector().fetchOrders(credentials, null);
    expectAllValid();
    expect(recorded[0]!.url.searchParams.get('LastUpdatedAfter')).toBe(
      new Date(NOW.getTime() - 30 * 24 * 3600 * 1000).toISOString(),
    );
    const itemCalls = recorded.filter((c) => c.url.pathname.endsWith('/orderItems'));
    expect(itemCalls.map((c) => c.url.pathname)).toEqual([
      '/orders/v0/orders/902-1845936-5435065/orderItems',
      '/orders/v0/orders/902-8745147-1934268/orderItems',
    ]);
    expect(itemCalls.every((c) => c.accessToken === 'Atza|current-access')).toBe(true);
    expect(result.orders).toEqual([
      {
        externalId: '902-1845936-5435065',
        placedAt: new Date('1970-01-19T03:58:30Z'),
        customerName: 'John Doe',
        shippingAddress: {
          name: 'Michigan address',
          company: '',
          line1: '1 Cross St.',
          line2: '',
          city: 'Canton',
          region: 'MI',
          postalCode: '48817',
          country: 'US',
          phone: '',
          email: 'user@example.com',
        },
        currency: 'USD',
        totalCents: 1101,
        cancelled: false,
        items: [
          {
            externalItemId: '05015851154158',
            sku: 'NABetaASINB00551Q3CS',
            title: 'B00551Q3CS [Card Book]',
            quantity: 1,
            unitPriceCents: 1000,
          },
        ],
      },
    ]);
    expect(result.failed).toEqual([
      {
        externalId: '902-8745147-1934268',
        reason:
          'Amazon order 902-8745147-1934268 has no shipping name, street, city, country (restricted data not granted?)',
      },
    ]);
  });

  it('fetchOrder: an RDT for that order path, then getOrder with it; Pending is refused, a paid one mapped', async () => {
    await expect(connector().fetchOrder!(credentials, '902-3159896-1390916')).rejects.toBeInstanceOf(
      MalformedOrderError,
    );
    expect(rdtRequests[0]!.body).toEqual({
      restrictedResources: [
        {
          method: 'GET',
          path: '/orders/v0/orders/902-3159896-1390916',
          dataElements: ['buyerInfo', 'shippingAddress'],
        },
      ],
    });
    expect(recorded[0]!.accessToken).toBe('Atz.sprdt|restricted-token');

    recorded = [];
    const paid = exampleOf('/orders/v0/orders/{orderId}') as { payload: Json };
    paid.payload.OrderStatus = 'Canceled';
    overrides.set('/orders/v0/orders/902-3159896-1390916', () => paid);
    const order = await connector().fetchOrder!(credentials, '902-3159896-1390916');
    expectAllValid();
    expect(recorded.map((c) => c.url.pathname)).toEqual([
      '/orders/v0/orders/902-3159896-1390916',
      '/orders/v0/orders/902-3159896-1390916/orderItems',
      '/orders/v0/orders/902-3159896-1390916/orderItems',
    ]);
    expect(order).toMatchObject({
      externalId: '902-3159896-1390916',
      cancelled: true,
      customerName: 'John Doe',
    });
    expect(order!.items.map((i) => [i.externalItemId, i.sku, i.quantity])).toEqual([
      ['68828574383266', 'CBA_OTF_1', 1],
      ['79039765272157', 'CBA_OTF_5', 2],
    ]);
  });

  it('pushTracking: getOrder (its marketplace), getOrderItems (what is left to ship), confirmShipment valid per the model', async () => {
    await connector().pushTracking(credentials, '902-3159896-1390916', {
      trackingNumber: '9400111899223344556677',
      carrierName: 'usps',
    });
    expectAllValid();
    expect(recorded.map((c) => `${c.method} ${c.url.pathname}`)).toEqual([
      'GET /orders/v0/orders/902-3159896-1390916',
      'GET /orders/v0/orders/902-3159896-1390916/orderItems',
      'GET /orders/v0/orders/902-3159896-1390916/orderItems',
      'POST /orders/v0/orders/902-3159896-1390916/shipmentConfirmation',
    ]);
    expect(recorded.every((c) => c.accessToken === 'Atza|current-access')).toBe(true);
    expect(JSON.parse(recorded[3]!.requestBody)).toEqual({
      marketplaceId: 'ATVPDKIKX0DER',
      packageDetail: {
        packageReferenceId: amazonPackageReferenceId('9400111899223344556677'),
        carrierCode: 'USPS',
        trackingNumber: '9400111899223344556677',
        shipDate: NOW.toISOString(),
        // The example's first item is already shipped (1 of 1); the second has 2 left.
        orderItems: [{ orderItemId: '79039765272157', quantity: 2 }],
      },
    });
    expect(amazonPackageReferenceId('9400111899223344556677')).toMatch(/^[1-9]\d*$/);

    recorded = [];
    await connector().pushTracking(credentials, '902-3159896-1390916', {
      trackingNumber: 'RM123',
      carrierName: 'royal_mail',
    });
    expectAllValid();
    expect(JSON.parse(recorded[3]!.requestBody).packageDetail).toMatchObject({
      carrierCode: 'Other',
      carrierName: 'Royal Mail',
    });

    recorded = [];
    await expect(
      connector().pushTracking(credentials, '../../tokens', { trackingNumber: 'x', carrierName: 'ups' }),
    ).rejects.toBeInstanceOf(MarketplaceRejectedError);
    expect(recorded).toHaveLength(0); // refused before any request
  });

  it('an expired access token is refreshed once (LWA form), then the calls use the new token', async () => {
    await connector().fetchOrders({ ...credentials, tokenExpiresAt: new Date(NOW.getTime() - 1000) }, null);
    expect(lwaRequests.map((f) => Object.fromEntries(f))).toEqual([
      {
        grant_type: 'refresh_token',
        refresh_token: 'Atzr|refresh-token',
        client_id: 'amzn1.application-oa2-client.test',
        client_secret: 'lwa-secret',
      },
    ]);
    expect(rdtRequests.map((r) => r.accessToken)).toEqual(['Atza|new-access']);
    expectAllValid();
  });

  it('a token Amazon refuses mid-way (403 "has expired") is refreshed once and the work redone', async () => {
    interceptions.push({
      match: (url, token) =>
        url.pathname === '/orders/v0/orders/902-3159896-1390916' && token === 'Atza|current-access',
      status: 403,
      body: {
        errors: [
          {
            code: 'Unauthorized',
            message: 'Access to requested resource is denied.',
            details: 'The access token you provided has expired.',
          },
        ],
      },
    });
    await connector().pushTracking(credentials, '902-3159896-1390916', {
      trackingNumber: '1Z999',
      carrierName: 'ups',
    });
    expect(lwaRequests).toHaveLength(1);
    expectAllValid();
    expect(recorded.map((c) => c.accessToken)).toEqual(Array(4).fill('Atza|new-access'));

    // Refused again after the refresh: the shop must be reconnected.
    interceptions = [0, 1].map(() => ({
      match: (url: URL) => url.pathname === '/orders/v0/orders/902-3159896-1390916',
      status: 403,
      body: {
        errors: [
          {
            code: 'Unauthorized',
            message: 'Access to requested resource is denied.',
            details: 'The access token you provided is revoked, malformed or invalid.',
          },
        ],
      },
    }));
    const error = await connector()
      .pushTracking(credentials, '902-3159896-1390916', { trackingNumber: '1Z999', carrierName: 'ups' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceRejectedError);
    expect((error as MarketplaceRejectedError).status).toBe(401);
    expect((error as Error).message).toContain('reconnect');
  });

  it('a revoked grant (LWA invalid_grant) is MarketplaceRejectedError "reconnect", asked once', async () => {
    lwaReply = {
      status: 400,
      body: {
        error: 'invalid_grant',
        error_description: 'The request has an invalid grant parameter : refresh_token',
      },
    };
    const error = await connector().refreshTokens!(credentials).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceRejectedError);
    expect((error as MarketplaceRejectedError).status).toBe(401);
    expect((error as Error).message).toBe('Amazon access was revoked; reconnect the shop');
    expect(lwaRequests).toHaveLength(1);
  });

  it('a 403 that is not about the token (no PII role for the RDT) is not retried and says what is missing', async () => {
    const error = await connector({
      fetch: async (input, init) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        if (url.pathname.startsWith('/tokens/'))
          return new Response(
            JSON.stringify({
              errors: [{ code: 'Unauthorized', message: 'Access to requested resource is denied.' }],
            }),
            {
              status: 403,
              headers: { 'content-type': 'application/json' },
            },
          );
        return recordingFetch(input, init);
      },
    })
      .fetchOrders(credentials, null)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceRejectedError);
    expect((error as MarketplaceRejectedError).status).toBe(403);
    expect((error as Error).message).toContain('Direct-to-Consumer Shipping');
    expect(lwaRequests).toHaveLength(0);
    expect(recorded).toHaveLength(0);
  });

  it('completeAuthorization reads spapi_oauth_code and selling_partner_id; authorizeUrl is the consent page', async () => {
    const grant = await connector().completeAuthorization({
      query: { spapi_oauth_code: 'ANDJLKSDF', state: 'st', selling_partner_id: 'A3SELLER7TEST' },
      codeVerifier: 'unused-by-amazon',
      redirectUri: 'https://layerline.example/api/shops/amazon/callback',
    });
    expect(lwaRequests.map((f) => Object.fromEntries(f))).toEqual([
      {
        grant_type: 'authorization_code',
        code: 'ANDJLKSDF',
        redirect_uri: 'https://layerline.example/api/shops/amazon/callback',
        client_id: 'amzn1.application-oa2-client.test',
        client_secret: 'lwa-secret',
      },
    ]);
    expect(grant).toEqual({
      externalShopId: 'A3SELLER7TEST',
      shopName: 'Amazon seller A3SELLER7TEST',
      tokens: {
        accessToken: 'Atza|new-access',
        refreshToken: 'Atzr|refresh-token',
        tokenExpiresAt: new Date(NOW.getTime() + 3600_000),
      },
      scopes: '',
      settings: { region: 'na', marketplaceIds: ['ATVPDKIKX0DER'] },
    });
    await expect(
      connector().completeAuthorization({
        query: { spapi_oauth_code: 'x', state: 'st' },
        codeVerifier: '',
        redirectUri: 'https://l.example/cb',
      }),
    ).rejects.toThrow('selling_partner_id');
    await expect(
      connector().completeAuthorization({
        query: { code: 'x', state: 'st', selling_partner_id: 'A1' },
        codeVerifier: '',
        redirectUri: 'https://l.example/cb',
      }),
    ).rejects.toThrow('spapi_oauth_code');

    const url = new URL(
      connector({ draftApp: true }).authorizeUrl({
        state: 'st',
        codeChallenge: 'ignored',
        redirectUri: 'https://l.example/cb',
      }),
    );
    expect(url.origin + url.pathname).toBe('https://sellercentral.amazon.com/apps/authorize/consent');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      application_id: 'amzn1.sp.solution.test-app',
      state: 'st',
      redirect_uri: 'https://l.example/cb',
      version: 'beta',
    });
    expect(
      new URL(
        connector({ region: 'eu' }).authorizeUrl({
          state: 's',
          codeChallenge: '',
          redirectUri: 'https://l.example/cb',
        }),
      ).searchParams.has('version'),
    ).toBe(false);
  });

  describe('negative: the mock really validates', () => {
    it('rejects getOrders without MarketplaceIds', async () => {
      const response = await fetch(`${prism.origin}/orders/v0/orders?LastUpdatedAfter=2026-11-21T00:00:00Z`);
      expect(response.status).toBe(400);
      expect(response.headers.get('sl-violations')).toContain('marketplaceids');
    });

    it('rejects a confirmShipment without packageDetail.orderItems or with a non-integer quantity', async () => {
      const post = (packageDetail: Json) =>
        fetch(`${prism.origin}/orders/v0/orders/902-3159896-1390916/shipmentConfirmation`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ marketplaceId: 'ATVPDKIKX0DER', packageDetail }),
        });
      const base = {
        packageReferenceId: '1',
        carrierCode: 'USPS',
        trackingNumber: '1',
        shipDate: NOW.toISOString(),
      };
      const missing = await post(base);
      expect(missing.status).toBeGreaterThanOrEqual(400);
      expect(missing.status).toBeLessThan(500);
      expect(missing.headers.get('sl-violations')).toContain('orderItems');
      const wrongType = await post({ ...base, orderItems: [{ orderItemId: '1', quantity: 'two' }] });
      expect(wrongType.status).toBe(400);
      expect(wrongType.headers.get('sl-violations')).toContain('quantity');
    });
  });
});
