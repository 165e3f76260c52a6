import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MarketplaceRejectedError, type ShopCredentials } from '../../modules/shops/connector.ts';
import {
  recordingFetchInto,
  startPrismMock,
  type PrismMock,
  type RecordedCall,
} from '../http-client/prism-mock.ts';
import { createEbayConnector, EBAY_CURSOR_OVERLAP_MS, EBAY_DEFAULT_SCOPES } from './ebay-connector.ts';
import { ebaySandboxOrderPayload, mapEbaySandboxOrder } from './ebay-sandbox-order.ts';

/**
 * Contract tests: every Fulfillment API request the eBay connector builds goes to Prism running
 * eBay's own OpenAPI file (/work/shared/contracts/ebay/sell_fulfillment_v1_oas3.json), which
 * rejects anything the spec does not allow. The OAuth token endpoint and Commerce Identity's
 * getUser are NOT in our contracts: they are checked against a local server that asserts what
 * eBay documents (developer.ebay.com/api-docs/static/oauth-auth-code-grant-request.html and
 * oauth-refresh-token-request.html: form body, Basic client_id:client_secret; Identity API
 * GET /commerce/identity/v1/user/ → UserResponse {userId, username, …}).
 */

const SPEC = '/work/shared/contracts/ebay/sell_fulfillment_v1_oas3.json';

interface LocalRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  form: URLSearchParams;
}

let prism: PrismMock;
let local: Server;
let localOrigin: string;
let localRequests: LocalRequest[] = [];
let tokenReply: { status: number; body: unknown } = { status: 200, body: {} };
let recorded: RecordedCall[] = [];

const recordingFetch = recordingFetchInto(() => recorded);

const NOW = new Date('2026-11-21T12:00:00.000Z');
const RU_NAME = 'Layerline_Inc-Layerlin-PRD-a1b2c3d4e-5f6a7b8c';

const connector = () =>
  createEbayConnector({
    clientId: 'Layerlin-app-PRD-1234',
    clientSecret: 'PRD-secret-5678',
    ruName: RU_NAME,
    fetch: recordingFetch,
    endpoints: {
      fulfillment: prism.origin,
      identity: `${localOrigin}/commerce/identity/v1`,
      token: `${localOrigin}/identity/v1/oauth2/token`,
    },
    now: () => NOW,
    http: { baseDelayMs: 10, maxDelayMs: 50 },
  });

const credentials: ShopCredentials = {
  externalShopId: 'ma8vp1jySJC',
  accessToken: 'v^1.1#i^1#user-access',
  refreshToken: 'v^1.1#i^1#refresh',
  tokenExpiresAt: null,
  settings: {},
};

const prismCalls = () => recorded.filter((c) => c.url.origin === prism.origin);

const expectAllValid = (calls: RecordedCall[]) => {
  expect(calls.length).toBeGreaterThan(0);
  for (const call of calls) {
    expect({ call: `${call.method} ${call.url.pathname}`, violations: call.violations }).toEqual({
      call: `${call.method} ${call.url.pathname}`,
      violations: null,
    });
    expect(call.status).toBeGreaterThanOrEqual(200);
    expect(call.status).toBeLessThan(300);
  }
};

beforeAll(async () => {
  local = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const path = req.url ?? '';
      localRequests.push({
        method: req.method ?? '',
        path,
        headers: req.headers,
        form: new URLSearchParams(raw),
      });
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST' && path === '/identity/v1/oauth2/token') {
        res.writeHead(tokenReply.status);
        res.end(JSON.stringify(tokenReply.body));
      } else if (req.method === 'GET' && path === '/commerce/identity/v1/user/') {
        res.writeHead(200);
        res.end(
          JSON.stringify({
            userId: 'ma8vp1jySJC',
            username: 'planter_shop',
            accountType: 'INDIVIDUAL',
            status: 'CONFIRMED',
          }),
        );
      } else {
        res.writeHead(404);
        res.end(JSON.stringify({ errors: [{ errorId: 404, message: 'not found' }] }));
      }
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
  localRequests = [];
  tokenReply = {
    status: 200,
    body: {
      access_token: 'v^1.1#i^1#new-access',
      expires_in: 7200,
      refresh_token: 'v^1.1#i^1#new-refresh',
      refresh_token_expires_in: 47304000,
      token_type: 'User Access Token',
    },
  };
});

describe('eBay connector against the Sell Fulfillment OpenAPI (Prism)', () => {
  it('fetchOrders: getOrders filtered by lastmodifieddate from cursor − 10 min, paged by 200; unreadable orders reported', async () => {
    const cursor = '2026-11-21T11:00:00.000Z';
    const result = await connector().fetchOrders(credentials, cursor);
    const calls = prismCalls();
    expectAllValid(calls);
    expect(calls).toHaveLength(1);
    const call = calls[0]!;
    expect(call.url.pathname).toBe('/order');
    const since = new Date(Date.parse(cursor) - EBAY_CURSOR_OVERLAP_MS).toISOString();
    // eBay's documented encoding: brackets percent-encoded, the rest as is.
    expect(call.url.search).toBe(`?filter=lastmodifieddate:%5B${since}..%5D&limit=200&offset=0`);
    expect(result.nextCursor).toBe(NOW.toISOString());
    // Prism's generated order has creationDate "string": not an order we can read, so it is
    // reported with its reason instead of failing the poll.
    expect(result.orders).toEqual([]);
    expect(result.failed).toEqual([
      { externalId: 'string', reason: 'eBay order string has no valid creationDate' },
    ]);
  });

  it('fetchOrders without a cursor reads the last 30 days', async () => {
    await connector().fetchOrders(credentials, null);
    expectAllValid(prismCalls());
    const since = new Date(NOW.getTime() - 30 * 24 * 3600 * 1000).toISOString();
    expect(prismCalls()[0]!.url.searchParams.get('filter')).toBe(`lastmodifieddate:[${since}..]`);
  });

  it('pushTracking: getOrder, then createShippingFulfillment with every line, the carrier code and the number', async () => {
    await connector().pushTracking(credentials, '01-03955-36441', {
      trackingNumber: '9400111899223344556677',
      carrierName: 'fedex',
    });
    const calls = prismCalls();
    expectAllValid(calls);
    expect(calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual([
      'GET /order/01-03955-36441',
      'POST /order/01-03955-36441/shipping_fulfillment',
    ]);
    expect(JSON.parse(calls[1]!.requestBody)).toEqual({
      // Prism's example order has one line item, id "string", with an unusable quantity: 1 is sent.
      lineItems: [{ lineItemId: 'string', quantity: 1 }],
      shippedDate: NOW.toISOString(),
      shippingCarrierCode: 'FedEx',
      trackingNumber: '9400111899223344556677',
    });
    await expect(
      connector().pushTracking(credentials, '../../user', { trackingNumber: 'x', carrierName: 'ups' }),
    ).rejects.toBeInstanceOf(MarketplaceRejectedError);
    expect(prismCalls()).toHaveLength(2); // refused before any request
  });

  it('fetchOrder: getOrder by id (valid request; Prism’s placeholder order is refused by the mapping)', async () => {
    await expect(connector().fetchOrder(credentials, '27-00000-00007')).rejects.toThrow(/creationDate/);
    expectAllValid(prismCalls());
    expect(prismCalls()[0]!.url.pathname).toBe('/order/27-00000-00007');
  });

  describe('negative: the mock really validates', () => {
    it('rejects a fulfillment whose quantity is not an integer, and a request without a token', async () => {
      const bad = await fetch(`${prism.origin}/order/1/shipping_fulfillment`, {
        method: 'POST',
        headers: { authorization: 'Bearer x', 'content-type': 'application/json' },
        body: JSON.stringify({ lineItems: [{ lineItemId: '1', quantity: 'two' }], trackingNumber: '1Z' }),
      });
      expect(bad.status).toBe(400);
      expect(bad.headers.get('sl-violations')).toContain('lineItems.0.quantity');
      const noAuth = await fetch(`${prism.origin}/order?limit=1`);
      expect(noAuth.status).toBe(401);
    });
  });
});

describe('eBay OAuth (local server asserting the documented token and identity requests)', () => {
  it('authorizeUrl: client_id, the RuName as redirect_uri, response_type=code, scopes, state; no PKCE', () => {
    const url = new URL(
      connector().authorizeUrl({
        state: 'st-1',
        codeChallenge: 'ignored',
        redirectUri: 'https://l.example/cb',
      }),
    );
    expect(url.origin + url.pathname).toBe('https://auth.ebay.com/oauth2/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'Layerlin-app-PRD-1234',
      redirect_uri: RU_NAME,
      response_type: 'code',
      scope: EBAY_DEFAULT_SCOPES,
      state: 'st-1',
    });
    const sandbox = createEbayConnector({
      clientId: 'c',
      clientSecret: 's',
      ruName: 'r',
      environment: 'sandbox',
    });
    expect(new URL(sandbox.authorizeUrl({ state: 's', codeChallenge: 'x', redirectUri: 'y' })).origin).toBe(
      'https://auth.sandbox.ebay.com',
    );
  });

  it('completeAuthorization: code exchanged with Basic auth and the RuName, then getUser names the shop', async () => {
    const grant = await connector().completeAuthorization({
      query: { code: 'v^1.1#i^1#code', state: 'st-1' },
      codeVerifier: 'unused',
      redirectUri: 'https://l.example/cb',
    });
    expect(localRequests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /identity/v1/oauth2/token',
      'GET /commerce/identity/v1/user/',
    ]);
    const [token, user] = localRequests;
    expect(token!.headers['content-type']).toContain('application/x-www-form-urlencoded');
    expect(token!.headers.authorization).toBe(
      `Basic ${Buffer.from('Layerlin-app-PRD-1234:PRD-secret-5678').toString('base64')}`,
    );
    expect(Object.fromEntries(token!.form)).toEqual({
      grant_type: 'authorization_code',
      code: 'v^1.1#i^1#code',
      redirect_uri: RU_NAME,
    });
    expect(user!.headers.authorization).toBe('Bearer v^1.1#i^1#new-access');
    expect(grant).toEqual({
      externalShopId: 'ma8vp1jySJC',
      shopName: 'planter_shop',
      tokens: {
        accessToken: 'v^1.1#i^1#new-access',
        refreshToken: 'v^1.1#i^1#new-refresh',
        tokenExpiresAt: new Date(NOW.getTime() + 7200_000),
      },
      scopes: EBAY_DEFAULT_SCOPES,
      settings: { environment: 'production' },
    });
    await expect(
      connector().completeAuthorization({
        query: { error: 'access_denied' },
        codeVerifier: '',
        redirectUri: '',
      }),
    ).rejects.toThrow(/did not grant access/);
  });

  it('refreshTokens: grant_type=refresh_token with the scopes; keeps the refresh token eBay does not resend', async () => {
    tokenReply = {
      status: 200,
      body: { access_token: 'v^1.1#i^1#refreshed', expires_in: 7200, token_type: 'User Access Token' },
    };
    const tokens = await connector().refreshTokens(credentials);
    expect(localRequests).toHaveLength(1);
    expect(localRequests[0]!.headers.authorization).toMatch(/^Basic /);
    expect(Object.fromEntries(localRequests[0]!.form)).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'v^1.1#i^1#refresh',
      scope: EBAY_DEFAULT_SCOPES,
    });
    expect(tokens).toEqual({
      accessToken: 'v^1.1#i^1#refreshed',
      refreshToken: 'v^1.1#i^1#refresh',
      tokenExpiresAt: new Date(NOW.getTime() + 7200_000),
    });
  });

  it('a revoked grant (invalid_grant) is MarketplaceRejectedError asking to reconnect, tried once', async () => {
    tokenReply = {
      status: 400,
      body: {
        error: 'invalid_grant',
        error_description:
          'the provided authorization refresh token is invalid or was issued to another client',
      },
    };
    const error = await connector()
      .refreshTokens(credentials)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceRejectedError);
    expect((error as Error).message).toMatch(/reconnect the shop/);
    expect(localRequests).toHaveLength(1);
  });
});

describe('eBay sandbox order payload', () => {
  it('is valid against getOrder’s Order schema, uses only its fields, and maps to the expected order', () => {
    const definition = JSON.parse(readFileSync(SPEC, 'utf8')) as {
      components: { schemas: Record<string, SchemaNode> };
    };
    const payload = ebaySandboxOrderPayload({
      sequence: 1007,
      placedAt: new Date('2026-11-20T09:30:00.000Z'),
      buyer: {
        name: 'Ada Lovelace',
        address: {
          name: 'Ada Lovelace',
          company: 'Analytical Engines',
          line1: '1 Main St',
          line2: 'Apt 2',
          city: 'San Jose',
          region: 'CA',
          postalCode: '95125',
          country: 'US',
          phone: '4085550100',
          email: 'ada@example.com',
        },
      },
      items: [
        { sku: 'LL-PLANTER-M', title: 'Geometric Planter – Medium', quantity: 2, unitPriceCents: 2600 },
        { sku: 'LL-VASE-TWIST', title: 'Twisted Spiral Vase', quantity: 1, unitPriceCents: 2400 },
      ],
      currency: 'usd',
    });
    // eBay's schemas use only type, format, properties, items and $ref (no `required`, no enums;
    // openapi-backend cannot compile this file), so a walk over them is a complete check: every
    // field we send must be one the Order schema describes, with its type.
    const order = { $ref: '#/components/schemas/Order' };
    expect(schemaProblems(payload, order, definition.components.schemas)).toEqual([]);
    // …and the walk really checks.
    expect(
      schemaProblems(
        { ...payload, legacyOrderId: '1', lineItems: [{ quantity: 'two' }] },
        order,
        definition.components.schemas,
      ),
    ).toEqual(['.lineItems[0].quantity: expected integer', '.legacyOrderId: not in the schema']);

    expect(mapEbaySandboxOrder(payload)).toEqual({
      externalId: '27-00000-01007',
      placedAt: new Date('2026-11-20T09:30:00.000Z'),
      customerName: 'Ada Lovelace',
      shippingAddress: {
        name: 'Ada Lovelace',
        company: 'Analytical Engines',
        line1: '1 Main St',
        line2: 'Apt 2',
        city: 'San Jose',
        region: 'CA',
        postalCode: '95125',
        country: 'US',
        phone: '4085550100',
        email: 'ada@example.com',
      },
      currency: 'USD',
      totalCents: 7600,
      cancelled: false,
      items: [
        {
          externalItemId: '10000100701',
          sku: 'LL-PLANTER-M',
          title: 'Geometric Planter – Medium',
          quantity: 2,
          unitPriceCents: 2600,
        },
        {
          externalItemId: '10000100702',
          sku: 'LL-VASE-TWIST',
          title: 'Twisted Spiral Vase',
          quantity: 1,
          unitPriceCents: 2400,
        },
      ],
    });
  });
});

interface SchemaNode {
  $ref?: string;
  type?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
}

/** Fields of `value` the schema does not describe or whose type differs (follows $ref, objects and arrays). */
const schemaProblems = (
  value: unknown,
  schema: SchemaNode,
  schemas: Record<string, SchemaNode>,
  path = '',
): string[] => {
  const node = schema.$ref ? schemas[schema.$ref.split('/').pop()!]! : schema;
  const type = Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
  const expected = node.type ?? (node.properties ? 'object' : undefined);
  if (expected && expected !== type && !(expected === 'number' && type === 'integer'))
    return [`${path}: expected ${expected}`];
  if (Array.isArray(value))
    return value.flatMap((v, i) => schemaProblems(v, node.items ?? {}, schemas, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) => {
    const property = node.properties?.[key];
    return property
      ? schemaProblems(v, property, schemas, `${path}.${key}`)
      : [`${path}.${key}: not in the schema`];
  });
};
