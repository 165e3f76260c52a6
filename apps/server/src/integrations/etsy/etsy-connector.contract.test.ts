import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MarketplaceRejectedError, type ShopCredentials } from '../../modules/shops/connector.ts';
import {
  recordingFetchInto,
  startPrismMock,
  type PrismMock,
  type RecordedCall,
} from '../http-client/prism-mock.ts';
import { createEtsyConnector, ETSY_CURSOR_OVERLAP_MS } from './etsy-connector.ts';
import {
  etsyInventory,
  etsyListingsPage,
  etsyReceiptsPage,
  mapEtsyListing,
  mapEtsyReceipt,
} from './etsy-mapping.ts';

/**
 * Contract tests: every request the Etsy connector builds goes to Prism running Etsy's own OpenAPI
 * file (/work/shared/contracts/etsy/3.0.0.json), which rejects anything the spec does not allow.
 * The OAuth token endpoint is NOT in that file (POST /v3/public/oauth/token answers 404 in Prism),
 * so it is checked against a local server that asserts the form body Etsy documents.
 */

const SPEC = '/work/shared/contracts/etsy/3.0.0.json';

let prism: PrismMock;
let tokenServer: Server;
let tokenOrigin: string;
let tokenRequests: { contentType: string; form: URLSearchParams }[] = [];
let tokenReply: { status: number; body: unknown } = { status: 200, body: {} };
let recorded: RecordedCall[] = [];

const recordingFetch = recordingFetchInto(() => recorded);

const NOW = new Date('2026-11-21T12:00:00.000Z');

const connector = () =>
  createEtsyConnector({
    clientId: 'etsy-keystring',
    fetch: recordingFetch,
    baseUrl: prism.origin,
    tokenUrl: `${tokenOrigin}/v3/public/oauth/token`,
    now: () => NOW,
    http: { baseDelayMs: 10, maxDelayMs: 50 },
  });

const credentials: ShopCredentials = {
  externalShopId: '1',
  accessToken: '12345678.access-token',
  refreshToken: '12345678.refresh-token',
  tokenExpiresAt: null,
  settings: { currency: 'USD' },
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
      status: expect.any(Number),
      violations: null,
    });
    expect(call.status).toBeGreaterThanOrEqual(200);
    expect(call.status).toBeLessThan(300);
  }
};

beforeAll(async () => {
  tokenServer = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      tokenRequests.push({ contentType: req.headers['content-type'] ?? '', form: new URLSearchParams(raw) });
      const ok = req.method === 'POST' && req.url === '/v3/public/oauth/token';
      res.writeHead(ok ? tokenReply.status : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(ok ? tokenReply.body : { error: 'not found' }));
    });
  });
  await new Promise<void>((resolve) => tokenServer.listen(0, '127.0.0.1', resolve));
  tokenOrigin = `http://127.0.0.1:${(tokenServer.address() as AddressInfo).port}`;
  prism = await startPrismMock(SPEC);
}, 90_000);

afterAll(async () => {
  await prism?.stop();
  tokenServer?.closeAllConnections();
  await new Promise<void>((resolve) => tokenServer?.close(() => resolve()));
});

beforeEach(() => {
  recorded = [];
  tokenRequests = [];
  tokenReply = {
    status: 200,
    body: {
      access_token: '12345678.new-access',
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: '12345678.new-refresh',
    },
  };
});

describe('Etsy connector against Etsy OpenAPI v3 (Prism)', () => {
  it('listListings: getListingsByShop (active, paged, with images) + getListingInventory per listing, all valid', async () => {
    const listings = await connector().listListings(credentials);
    expectAllValid();
    const [first, ...inventories] = recorded;
    expect(first!.url.pathname).toBe('/v3/application/shops/1/listings');
    expect(Object.fromEntries(first!.url.searchParams)).toEqual({
      state: 'active',
      limit: '100',
      offset: '0',
      includes: 'Images',
    });
    expect(inventories.map((c) => c.url.pathname)).toEqual(['/v3/application/listings/1/inventory']);
    // Prism's example inventory product is marked is_deleted: true, so nothing is listed from it…
    expect(listings).toEqual([]);
    // …and the same example, undeleted, maps to one listing per product with its SKU.
    const listing = etsyListingsPage.parse(JSON.parse(first!.body)).results[0]!;
    const inventory = etsyInventory.parse(JSON.parse(inventories[0]!.body));
    const undeleted = { products: inventory.products.map((p) => ({ ...p, is_deleted: false })) };
    expect(mapEtsyListing(listing, undeleted)).toEqual([
      {
        externalListingId: '1',
        externalVariantId: '', // a single product
        title: 'string',
        sku: 'string',
        priceCents: null, // the example's divisor is 0: no price rather than NaN/Infinity
        currency: null, // "string" is not an ISO code
        url: 'string',
        imageUrl: 'string', // from includes=Images
      },
    ]);
  });

  it('fetchOrders: getShopReceipts with min_last_modified = cursor − 10 min, paid, paged; nextCursor = now', async () => {
    const cursor = '2026-11-21T11:00:00.000Z';
    const result = await connector().fetchOrders(credentials, cursor);
    expectAllValid();
    expect(recorded).toHaveLength(1);
    const call = recorded[0]!;
    expect(call.url.pathname).toBe('/v3/application/shops/1/receipts');
    expect(Object.fromEntries(call.url.searchParams)).toEqual({
      min_last_modified: String((Date.parse(cursor) - ETSY_CURSOR_OVERLAP_MS) / 1000),
      limit: '100',
      offset: '0',
      was_paid: 'true',
      sort_on: 'created',
      sort_order: 'asc',
    });
    expect(result.nextCursor).toBe(NOW.toISOString());
    // The example receipt holds only a digital transaction: nothing to print, so no order.
    expect(result.orders).toEqual([]);
    const receipt = etsyReceiptsPage.parse(JSON.parse(call.body)).results[0]!;
    const physical = {
      ...receipt,
      transactions: receipt.transactions!.map((t) => ({ ...t, is_digital: false })),
    };
    const order = mapEtsyReceipt(physical, 'USD')!;
    expect(order).toMatchObject({
      externalId: '1',
      placedAt: new Date(946684800 * 1000),
      customerName: 'string',
      currency: 'USD', // the example's "string" is not a currency: the shop's currency is used
      totalCents: null,
      cancelled: false,
      items: [{ externalItemId: '1', sku: 'string', title: 'string', quantity: 0, unitPriceCents: null }],
    });
    expect(order.shippingAddress).toEqual({
      name: 'string',
      company: '',
      line1: 'string',
      line2: 'string',
      city: 'string',
      region: 'string',
      postalCode: 'string',
      country: 'STRING',
      phone: '',
      email: '',
    });
    expect(mapEtsyReceipt({ ...physical, status: 'Canceled' }, 'USD')!.cancelled).toBe(true);
  });

  it('fetchOrders without a cursor reads the last 30 days', async () => {
    await connector().fetchOrders(credentials, null);
    expectAllValid();
    expect(recorded[0]!.url.searchParams.get('min_last_modified')).toBe(
      String(NOW.getTime() / 1000 - 30 * 24 * 3600),
    );
  });

  it('pushTracking: createReceiptShipment with tracking_code, carrier_name (default usps), send_bcc', async () => {
    await connector().pushTracking(credentials, '5', {
      trackingNumber: '9400111899223344556677',
      carrierName: '',
    });
    expectAllValid();
    expect(recorded).toHaveLength(1);
    expect(recorded[0]!.method).toBe('POST');
    expect(recorded[0]!.url.pathname).toBe('/v3/application/shops/1/receipts/5/tracking');
    expect(Object.fromEntries(new URLSearchParams(recorded[0]!.requestBody))).toEqual({
      tracking_code: '9400111899223344556677',
      carrier_name: 'usps',
      send_bcc: 'false',
    });
    await expect(
      connector().pushTracking(credentials, '../../users/me', { trackingNumber: 'x', carrierName: 'ups' }),
    ).rejects.toBeInstanceOf(MarketplaceRejectedError);
    expect(recorded).toHaveLength(1); // refused before any request
  });

  it('completeAuthorization: code + verifier exchanged (local token server), then getMe and getShop (Prism)', async () => {
    const result = await connector().completeAuthorization({
      query: { code: 'auth-code', state: 'state-1' },
      codeVerifier: 'verifier-123',
      redirectUri: 'https://layerline.example/connect-store/etsy/callback',
    });
    expect(tokenRequests).toHaveLength(1);
    expect(tokenRequests[0]!.contentType).toContain('application/x-www-form-urlencoded');
    expect(Object.fromEntries(tokenRequests[0]!.form)).toEqual({
      grant_type: 'authorization_code',
      client_id: 'etsy-keystring',
      redirect_uri: 'https://layerline.example/connect-store/etsy/callback',
      code: 'auth-code',
      code_verifier: 'verifier-123',
    });
    const apiCalls = recorded.filter((c) => c.url.origin === prism.origin);
    expect(apiCalls.map((c) => c.url.pathname)).toEqual([
      '/v3/application/users/me',
      '/v3/application/shops/1',
    ]);
    recorded = apiCalls;
    expectAllValid();
    expect(result).toMatchObject({
      externalShopId: '1',
      shopName: 'string',
      tokens: {
        accessToken: '12345678.new-access',
        refreshToken: '12345678.new-refresh',
        tokenExpiresAt: new Date(NOW.getTime() + 3600_000),
      },
      scopes: 'transactions_r transactions_w listings_r shops_r',
    });
  });

  it('refreshTokens posts grant_type=refresh_token; a refused grant is not retried', async () => {
    const tokens = await connector().refreshTokens!(credentials);
    expect(Object.fromEntries(tokenRequests[0]!.form)).toEqual({
      grant_type: 'refresh_token',
      client_id: 'etsy-keystring',
      refresh_token: '12345678.refresh-token',
    });
    expect(tokens.accessToken).toBe('12345678.new-access');

    tokenRequests = [];
    tokenReply = {
      status: 400,
      body: { error: 'invalid_grant', error_description: 'refresh token expired' },
    };
    const error = await connector().refreshTokens!(credentials).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceRejectedError);
    expect((error as MarketplaceRejectedError).status).toBe(400);
    expect(tokenRequests).toHaveLength(1);
  });

  it('authorizeUrl carries PKCE S256, state, scopes and the redirect URI', () => {
    const verifier = 'a'.repeat(64);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const url = new URL(
      connector().authorizeUrl({
        state: 'st',
        codeChallenge: challenge,
        redirectUri: 'https://l.example/cb',
      }),
    );
    expect(url.origin + url.pathname).toBe('https://www.etsy.com/oauth/connect');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'etsy-keystring',
      redirect_uri: 'https://l.example/cb',
      scope: 'transactions_r transactions_w listings_r shops_r',
      state: 'st',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
  });

  describe('negative: the mock really validates', () => {
    const headers = { 'x-api-key': 'etsy-keystring', authorization: 'Bearer 12345678.access-token' };

    it('rejects a tracking body with a wrong type (send_bcc must be boolean)', async () => {
      const response = await fetch(`${prism.origin}/v3/application/shops/1/receipts/5/tracking`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'tracking_code=1Z999&carrier_name=usps&send_bcc=maybe',
      });
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(response.headers.get('sl-violations')).toContain('send_bcc');
    });

    it('rejects an out-of-range page size and a non-numeric id', async () => {
      const tooMany = await fetch(`${prism.origin}/v3/application/shops/1/receipts?limit=500`, { headers });
      expect(tooMany.status).toBe(400);
      expect(tooMany.headers.get('sl-violations')).toContain('limit');
      const badId = await fetch(`${prism.origin}/v3/application/listings/abc/inventory`, { headers });
      expect(badId.status).toBe(422);
      expect(badId.headers.get('sl-violations')).toContain('listing_id');
    });

    it('rejects a request without the x-api-key header (security scheme)', async () => {
      const response = await fetch(`${prism.origin}/v3/application/shops/1`, {
        headers: { authorization: headers.authorization },
      });
      expect(response.status).toBe(401);
    });

    it('a refused request surfaces as MarketplaceRejectedError with the status, tried once', async () => {
      const etsy = createEtsyConnector({
        clientId: 'k',
        fetch: recordingFetch,
        baseUrl: prism.origin,
        http: { baseDelayMs: 10 },
      });
      // Shop id 0 is below the spec's minimum: the connector refuses it itself…
      await expect(etsy.listListings({ ...credentials, externalShopId: '0' })).rejects.toBeInstanceOf(
        MarketplaceRejectedError,
      );
      expect(recorded).toHaveLength(0);
      // …and when the mock refuses (an empty x-api-key fails the security scheme: 401) it is not retried.
      const noKey = createEtsyConnector({
        clientId: '',
        fetch: recordingFetch,
        baseUrl: prism.origin,
        http: { baseDelayMs: 10 },
      });
      const error = await noKey.listListings(credentials).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MarketplaceRejectedError);
      expect((error as MarketplaceRejectedError).status).toBe(401);
      expect(recorded).toHaveLength(1);
    });
  });
});
