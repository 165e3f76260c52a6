import { readdirSync, readFileSync } from 'node:fs';
import { createHmac } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  MalformedOrderError,
  MarketplaceRejectedError,
  MarketplaceUnavailableError,
  type ShopCredentials,
} from '../../modules/shops/connector.ts';
import { loadTikTokApiDocument, type RecordedRequest, type TikTokApiDocument } from './tiktok-api-meta.ts';
import { createTikTokConnector, TIKTOK_CURSOR_OVERLAP_MS } from './tiktok-connector.ts';
import { mapTikTokOrder } from './tiktok-mapping.ts';
import { mapTikTokSandboxOrder, tiktokSandboxOrderPayload } from './tiktok-sandbox-order.ts';
import { signTikTokRequest, verifyTikTokWebhook } from './tiktok-signing.ts';
import { createTikTokWebhookReceiver } from './tiktok-webhook-receiver.ts';

/**
 * Contract tests. TikTok Shop has no OpenAPI file and Prism cannot load the Partner Center
 * `api_meta` JSON in /work/shared/contracts/tiktok-shop/ (scraped mirror, lazykern/ecommerce-api-docs
 * 2baf0523…). So every request the connector makes goes to a fake `fetch` that checks it against
 * schemas derived from those files (tiktok-api-meta.ts: method, path, headers, query, strict body)
 * and recomputes its `sign`, then answers with the document's own example `response_body`.
 * Where an example is illustrative in a way that changes what we test, the adaptation is named at
 * the use site. The token endpoints are not in any api_meta file: they are checked against the
 * parameter tables of Partner Center's "Authorization overview (202407)" guide
 * (lazykern/ecommerce-api-docs data/processed/tiktok/guides/developer-guide/get-started/authorization/),
 * and answered with that guide's example JSON.
 */

const CONTRACTS = '/work/shared/contracts/tiktok-shop/';
const DOCS: TikTokApiDocument[] = readdirSync(CONTRACTS)
  .filter((file) => file.endsWith('.spec.json'))
  .map((file) => loadTikTokApiDocument(CONTRACTS + file));
const doc = (file: string): TikTokApiDocument => {
  const found = DOCS.find((d) => d.file === file);
  if (!found) throw new Error(`no ${file}`);
  return found;
};

const APP_KEY = '29a39d';
const APP_SECRET = 'e59af819cc';
const API = 'https://open-api.tiktokglobalshop.com';
const AUTH = 'https://auth.tiktok-shops.com';
const NOW = new Date('2026-11-24T12:00:00.000Z');

/** The guide's token response example (authorization-overview-202407.md, "Get Access Token API"). */
const GUIDE_TOKEN_RESPONSE = {
  code: 0,
  message: 'success',
  data: {
    access_token:
      'TTP_Fw8rBwAAAAAkW03FYd09DG-9INtpw361hWthei8S3fHX8iPJ5AUv99fLSCYD9-UucaqxTgNRzKZxi5-tfFMtdWqglEt5_iCk',
    access_token_expire_in: 1660556783,
    refresh_token: 'TTP_NTUxZTNhYTQ2ZDk2YmRmZWNmYWY2YWY2YzkxNGYwNjQ3YjkzYTllYjA0YmNlMw',
    refresh_token_expire_in: 1691487031,
    open_id: '7010736057180325637',
    seller_name: 'Jjj test shop',
    seller_base_region: 'ID',
    user_type: 0,
    granted_scopes: ['seller.affiliate_collaboration.read', 'seller.affiliate_collaboration.write'],
  },
  request_id: '2022080809462301024509910319695C45',
};

/** The guide's parameter tables for the two token endpoints (all required). */
const TOKEN_PARAMS: Record<string, string[]> = {
  '/api/v2/token/get': ['app_key', 'app_secret', 'auth_code', 'grant_type'],
  '/api/v2/token/refresh': ['app_key', 'app_secret', 'refresh_token', 'grant_type'],
};

interface Call extends RecordedRequest {
  readonly doc: string;
  readonly problems: string[];
}

type Reply = { status?: number; headers?: Record<string, string>; body: unknown };
let calls: Call[] = [];
/** Per-test answers by document file (or token path); a list is consumed in order. */
let replies: Record<string, Reply | Reply[]> = {};

const json = (reply: Reply): Response =>
  new Response(JSON.stringify(reply.body), {
    status: reply.status ?? 200,
    headers: { 'content-type': 'application/json', ...reply.headers },
  });

const nextReply = (key: string, fallback: () => unknown): Reply => {
  const configured = replies[key];
  if (Array.isArray(configured)) return configured.length > 1 ? configured.shift()! : configured[0]!;
  return configured ?? { body: fallback() };
};

const validatingFetch: typeof fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const method = init?.method ?? 'GET';
  const headers = new Headers(init?.headers);
  const body =
    init?.body instanceof Uint8Array ? new TextDecoder().decode(init.body) : ((init?.body as string) ?? '');
  if (url.origin === AUTH) {
    const expected = TOKEN_PARAMS[url.pathname];
    const problems = expected
      ? [
          ...expected.filter((p) => !url.searchParams.get(p)).map((p) => `query ${p} missing`),
          ...[...url.searchParams.keys()]
            .filter((k) => !expected.includes(k))
            .map((k) => `query ${k} not in the guide`),
          ...(method === 'GET' ? [] : [`method ${method}, the guide says GET`]),
        ]
      : [`unknown token path ${url.pathname}`];
    calls.push({ method, url, headers, body, doc: url.pathname, problems });
    return json(nextReply(url.pathname, () => GUIDE_TOKEN_RESPONSE));
  }
  const matched = DOCS.find((d) => d.matches(method, url.pathname));
  if (!matched) {
    calls.push({
      method,
      url,
      headers,
      body,
      doc: 'none',
      problems: [`no document for ${method} ${url.pathname}`],
    });
    return json({ status: 404, body: { code: 36009009, message: 'Invalid path' } });
  }
  const problems = matched.check({ method, url, headers, body });
  const query = Object.fromEntries(url.searchParams);
  const sign = signTikTokRequest({ path: url.pathname, query, body, appSecret: APP_SECRET });
  if (query.sign !== sign) problems.push('sign does not match the request');
  calls.push({ method, url, headers, body, doc: matched.file, problems });
  return json(nextReply(matched.file, () => matched.exampleResponse()));
};

const connector = (overrides: Partial<Parameters<typeof createTikTokConnector>[0]> = {}) =>
  createTikTokConnector({
    appKey: APP_KEY,
    appSecret: APP_SECRET,
    serviceId: '7172000000000070150',
    fetch: validatingFetch,
    now: () => NOW,
    http: { baseDelayMs: 1, maxDelayMs: 5, sleep: async () => {} },
    ...overrides,
  });

const credentials: ShopCredentials = {
  externalShopId: '7000714532876273420',
  accessToken: 'TTP_access',
  refreshToken: 'TTP_refresh',
  tokenExpiresAt: null,
  settings: { shopCipher: 'GCP_XF90igAAAABh00qsWgtvOiGFNqyubMt3' },
};

const expectAllValid = () => {
  expect(calls.length).toBeGreaterThan(0);
  for (const call of calls)
    expect({ call: `${call.method} ${call.url.pathname}`, problems: call.problems }).toEqual({
      call: `${call.method} ${call.url.pathname}`,
      problems: [],
    });
};

/** The document's example order, with only the named fields changed. */
const exampleOrder = (file: string, changes: Record<string, unknown>): Record<string, unknown> => {
  const example = doc(file).exampleResponse() as { data: { orders: Record<string, unknown>[] } };
  return { ...example.data.orders[0]!, ...changes };
};
const envelope = (data: unknown) => ({
  code: 0,
  message: 'Success',
  request_id: '202203070749000101890810281E8C70B7',
  data,
});

beforeEach(() => {
  calls = [];
  replies = {};
});

describe('the api_meta documents (the test harness itself)', () => {
  it('accepts each document its own example response', () => {
    expect(DOCS.length).toBeGreaterThanOrEqual(18);
    for (const d of DOCS)
      expect({ file: d.file, problems: d.checkResponse(d.exampleResponse()) }).toEqual({
        file: d.file,
        problems: [],
      });
  });

  it('rejects a wrong body field, a missing required query parameter and a wrong type', () => {
    const ship = doc('ship-package.spec.json');
    const url = new URL(
      `${API}/fulfillment/202309/packages/1152321127278713123/ship?app_key=a&timestamp=1&sign=x`,
    );
    const problems = ship.check({
      method: 'POST',
      url,
      headers: new Headers({ 'content-type': 'application/json', 'x-tts-access-token': 't' }),
      body: JSON.stringify({ self_shipment: { tracking_no: 'JX1', shipping_provider_id: 5 } }),
    });
    expect(problems.join('\n')).toMatch(/shop_cipher missing/);
    expect(problems.join('\n')).toMatch(/tracking_number/);
    expect(problems.join('\n')).toMatch(/shipping_provider_id/);
    expect(problems.join('\n')).toMatch(/tracking_no/);
  });
});

describe('request signing', () => {
  it("gives the Partner Center guide's worked example", () => {
    expect(
      signTikTokRequest({
        path: '/authorization/202309/shops',
        query: { app_key: '29a39d', timestamp: '1623812664' },
        body: '',
        appSecret: 'e59af819cc',
      }),
    ).toBe('b596b73e0cc6de07ac26f036364178ab16b0a907af13d43f0a0cd2345f582dc8');
  });

  it('leaves sign and access_token out and signs the body', () => {
    const base = { path: '/p', query: { app_key: 'k', timestamp: '1' }, body: '{"a":1}', appSecret: 's' };
    const signed = signTikTokRequest(base);
    expect(signTikTokRequest({ ...base, query: { ...base.query, sign: 'x', access_token: 'y' } })).toBe(
      signed,
    );
    expect(signTikTokRequest({ ...base, body: '{"a":2}' })).not.toBe(signed);
  });
});

describe('seller authorisation', () => {
  it('links to the authorisation page with the service id and state', () => {
    const url = new URL(
      connector().authorizeUrl({ state: 'st4te', codeChallenge: 'unused', redirectUri: 'https://x/cb' }),
    );
    expect(`${url.origin}${url.pathname}`).toBe('https://services.tiktokshop.com/open/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      service_id: '7172000000000070150',
      state: 'st4te',
    });
  });

  it('exchanges the code, then reads the shop and its cipher', async () => {
    const grant = await connector().completeAuthorization({
      query: { code: 'FeBoANmHP3yqdoUI9fZOCw', state: 'st4te' },
      codeVerifier: '',
      redirectUri: 'https://x/cb',
    });
    expectAllValid();
    expect(calls.map((c) => c.doc)).toEqual(['/api/v2/token/get', 'get-authorized-shops.spec.json']);
    expect(calls[0]!.url.searchParams.get('grant_type')).toBe('authorized_code');
    expect(calls[0]!.url.searchParams.get('auth_code')).toBe('FeBoANmHP3yqdoUI9fZOCw');
    expect(calls[1]!.headers.get('x-tts-access-token')).toBe(GUIDE_TOKEN_RESPONSE.data.access_token);
    expect(calls[1]!.url.searchParams.has('shop_cipher')).toBe(false);
    expect(grant).toMatchObject({
      externalShopId: '7000714532876273420',
      shopName: 'Maomao beauty shop',
      tokens: {
        accessToken: GUIDE_TOKEN_RESPONSE.data.access_token,
        refreshToken: GUIDE_TOKEN_RESPONSE.data.refresh_token,
        tokenExpiresAt: new Date(1660556783 * 1000),
      },
      settings: {
        shopCipher: 'GCP_XF90igAAAABh00qsWgtvOiGFNqyubMt3',
        region: 'GB',
        shopCode: 'CNGBCBA4LLU8',
      },
    });
    expect(JSON.stringify(grant.settings)).not.toContain('TTP_');
  });

  it('refuses a denied authorisation without calling TikTok', async () => {
    await expect(
      connector().completeAuthorization({
        query: { code: 'null', error: 'auth_denied' },
        codeVerifier: '',
        redirectUri: '',
      }),
    ).rejects.toThrow(/did not grant access/);
    expect(calls).toEqual([]);
  });
});

describe('listings', () => {
  it('pages with page_token and lists every SKU by seller_sku', async () => {
    const example = doc('search-products.spec.json').exampleResponse() as { data: Record<string, unknown> };
    replies['search-products.spec.json'] = [
      { body: example },
      // Second page: the example without a next_page_token (the last page).
      { body: envelope({ ...example.data, next_page_token: '' }) },
    ];
    const listings = await connector().listListings(credentials);
    expectAllValid();
    expect(calls).toHaveLength(2);
    expect(calls[1]!.url.searchParams.get('page_token')).toBe('b2Zmc2V0PTAK');
    expect(JSON.parse(calls[0]!.body)).toEqual({ status: 'ACTIVATE' });
    expect(listings[0]).toEqual({
      externalListingId: '1729592969712207008',
      externalVariantId: '',
      title: 'Short Boat Invisible Socks',
      sku: 'Color-Red-XM01',
      priceCents: 11101,
      currency: 'USD',
      url: null,
      imageUrl: null,
    });
  });
});

describe('orders', () => {
  it('polls by update time from the cursor minus the overlap, maps, skips unpaid orders', async () => {
    // The example order is UNPAID; one copy is made AWAITING_SHIPMENT so it is an order to make.
    replies['get-order-list.spec.json'] = {
      body: envelope({
        total_count: 3,
        orders: [
          exampleOrder('get-order-list.spec.json', { status: 'AWAITING_SHIPMENT' }),
          exampleOrder('get-order-list.spec.json', { id: '576461413038785753' }),
          exampleOrder('get-order-list.spec.json', {
            id: '576461413038785754',
            status: 'AWAITING_SHIPMENT',
            line_items: [],
          }),
        ],
      }),
    };
    const cursor = '2026-11-24T11:00:00.000Z';
    const result = await connector().fetchOrders(credentials, cursor);
    expectAllValid();
    const body = JSON.parse(calls[0]!.body) as { update_time_ge: number };
    expect(body.update_time_ge).toBe((Date.parse(cursor) - TIKTOK_CURSOR_OVERLAP_MS) / 1000);
    expect(calls[0]!.url.searchParams.get('shop_cipher')).toBe(credentials.settings.shopCipher);
    expect(result.nextCursor).toBe(NOW.toISOString());
    expect(result.orders.map((o) => o.externalId)).toEqual(['576461413038785752']);
    expect(result.failed).toEqual([
      { externalId: '576461413038785754', reason: 'TikTok Shop order 576461413038785754 has no line items' },
    ]);
    expect(result.orders[0]).toMatchObject({
      placedAt: new Date(1619611561 * 1000),
      customerName: 'David Kong',
      currency: 'IDR',
      totalCents: 500000,
      cancelled: false,
      note: 'Please ship asap!',
      shippingAddress: { line1: 'TikTok 5800 bristol Pkwy', postalCode: '95110', country: 'US', email: '' },
      items: [
        { externalItemId: '577086512123755123', sku: 'red_iphone_256', quantity: 1, unitPriceCents: 1 },
      ],
    });
  });

  it('fetches one order by id with Get Order Detail (202507); cancelled orders say so', async () => {
    replies['get-order-detail.spec.json'] = {
      body: envelope({ orders: [exampleOrder('get-order-detail.spec.json', { status: 'CANCELLED' })] }),
    };
    const order = await connector().fetchOrder(credentials, '576461413038785752');
    expectAllValid();
    expect(calls[0]!.url.searchParams.get('ids')).toBe('576461413038785752');
    expect(order).toMatchObject({ externalId: '576461413038785752', cancelled: true });
  });

  it('returns null for an order not to be made yet (the example is UNPAID)', async () => {
    expect(await connector().fetchOrder(credentials, '576461413038785752')).toBeNull();
    expectAllValid();
  });

  it('refuses an unreadable order with the reason', () => {
    const order = exampleOrder('get-order-detail.spec.json', { status: 'AWAITING_SHIPMENT' });
    expect(() => mapTikTokOrder({ ...order, recipient_address: undefined })).toThrow(MalformedOrderError);
    expect(() => mapTikTokOrder({ ...order, recipient_address: undefined })).toThrow(/no recipient address/);
    expect(() => mapTikTokOrder({ ...order, id: 42 })).toThrow(/not readable \(id:/);
  });

  it('counts one line item per unit as the quantity', () => {
    const order = exampleOrder('get-order-detail.spec.json', { status: 'AWAITING_SHIPMENT' });
    const line = (order.line_items as Record<string, unknown>[])[0]!;
    const mapped = mapTikTokOrder({
      ...order,
      line_items: [{ ...line, id: '9' }, line, { ...line, id: '10' }],
    });
    expect(mapped.items).toEqual([
      {
        externalItemId: '9',
        sku: 'red_iphone_256',
        title: "Women's Winter Crochet Clothes - Iphone",
        quantity: 3,
        unitPriceCents: 1,
      },
    ]);
  });
});

describe('tracking', () => {
  const shippable = exampleOrder('get-order-detail.spec.json', { status: 'AWAITING_SHIPMENT' });

  it("ships each package with the provider matching our carrier (the example's USPS)", async () => {
    replies['get-order-detail.spec.json'] = { body: envelope({ orders: [shippable] }) };
    const tiktok = connector();
    await tiktok.pushTracking(credentials, '576461413038785752', {
      trackingNumber: '9400111',
      carrierName: 'usps',
    });
    expectAllValid();
    expect(calls.map((c) => c.doc)).toEqual([
      'get-order-detail.spec.json',
      'get-shipping-providers.spec.json',
      'ship-package.spec.json',
    ]);
    expect(calls[1]!.url.pathname).toBe(
      '/logistics/202309/delivery_options/7091146663229654785/shipping_providers',
    );
    expect(calls[2]!.url.pathname).toBe('/fulfillment/202309/packages/1152321127278713123/ship');
    expect(JSON.parse(calls[2]!.body)).toEqual({
      self_shipment: { tracking_number: '9400111', shipping_provider_id: '7117858858072016686' },
    });
    // The providers are cached per shop and delivery option.
    calls = [];
    await tiktok.pushTracking(credentials, '576461413038785752', {
      trackingNumber: '9400112',
      carrierName: 'USPS',
    });
    expect(calls.map((c) => c.doc)).toEqual(['get-order-detail.spec.json', 'ship-package.spec.json']);
  });

  it('marks an order without a package shipped (creating it)', async () => {
    replies['get-order-detail.spec.json'] = { body: envelope({ orders: [{ ...shippable, packages: [] }] }) };
    await connector().pushTracking(credentials, '576461413038785752', {
      trackingNumber: '9400111',
      carrierName: 'usps',
    });
    expectAllValid();
    expect(calls.at(-1)!.doc).toBe('mark-package-as-shipped.spec.json');
    expect(JSON.parse(calls.at(-1)!.body)).toEqual({
      tracking_number: '9400111',
      shipping_provider_id: '7117858858072016686',
    });
  });

  it('refuses a carrier TikTok has no provider for, naming the ones it has', async () => {
    replies['get-order-detail.spec.json'] = { body: envelope({ orders: [shippable] }) };
    const error = await connector()
      .pushTracking(credentials, '576461413038785752', { trackingNumber: '1Z999', carrierName: 'ups' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceRejectedError);
    expect((error as Error).message).toMatch(/no shipping provider matching "ups".*available: USPS/);
    expect(calls.some((c) => c.doc === 'ship-package.spec.json')).toBe(false);
  });

  it('treats "package has been shipped" as done (a retried push)', async () => {
    replies['get-order-detail.spec.json'] = { body: envelope({ orders: [shippable] }) };
    replies['ship-package.spec.json'] = {
      body: { code: 21011040, message: 'Package has already been shipped.', data: {} },
    };
    await expect(
      connector().pushTracking(credentials, '576461413038785752', {
        trackingNumber: '9400111',
        carrierName: 'usps',
      }),
    ).resolves.toBeUndefined();
  });
});

describe('webhook subscription', () => {
  it('sets the shop webhook for order status changes', async () => {
    await connector().subscribeWebhooks(credentials, 'https://layerline.example/api/webhooks/tiktok');
    expectAllValid();
    expect(JSON.parse(calls[0]!.body)).toEqual({
      address: 'https://layerline.example/api/webhooks/tiktok',
      event_type: 'ORDER_STATUS_CHANGE',
    });
  });
});

describe('tokens and errors', () => {
  it('an expired token is refused as 401, refreshed once, and the call then succeeds', async () => {
    const tiktok = connector();
    replies['get-authorized-shops.spec.json'] = [
      { status: 401, body: { code: 105002, message: 'Expired credentials', request_id: 'r' } },
      { body: doc('get-authorized-shops.spec.json').exampleResponse() },
    ];
    replies['search-products.spec.json'] = [
      { body: { code: 105002, message: 'Expired credentials', request_id: 'r' } },
      { body: envelope({ products: [], next_page_token: '' }) },
    ];
    const expired = await tiktok.listListings(credentials).catch((e: unknown) => e);
    expect(expired).toBeInstanceOf(MarketplaceRejectedError);
    expect((expired as MarketplaceRejectedError).status).toBe(401);

    const fresh = await tiktok.refreshTokens!(credentials);
    const refresh = calls.find((c) => c.doc === '/api/v2/token/refresh')!;
    expect(refresh.url.searchParams.get('grant_type')).toBe('refresh_token');
    expect(refresh.url.searchParams.get('refresh_token')).toBe('TTP_refresh');
    expect(fresh.accessToken).toBe(GUIDE_TOKEN_RESPONSE.data.access_token);
    expect(await tiktok.listListings({ ...credentials, accessToken: fresh.accessToken })).toEqual([]);
    expectAllValid();
    expect(calls.filter((c) => c.doc === '/api/v2/token/refresh')).toHaveLength(1);
  });

  it('a refused refresh means the grant is revoked: reconnect', async () => {
    replies['/api/v2/token/refresh'] = {
      body: { code: 36009004, message: 'Invalid credentials', request_id: 'r' },
    };
    const error = await connector().refreshTokens!(credentials).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceRejectedError);
    expect((error as Error).message).toBe('TikTok Shop access was revoked; reconnect the shop');
  });

  it('HTTP 429 is retried honouring Retry-After, then reported as unavailable', async () => {
    const waits: number[] = [];
    replies['search-products.spec.json'] = {
      status: 429,
      headers: { 'retry-after': '7' },
      body: { code: 36009002, message: 'Too many requests' },
    };
    const error = await connector({ http: { maxAttempts: 3, sleep: async (ms) => void waits.push(ms) } })
      .listListings(credentials)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceUnavailableError);
    expect((error as MarketplaceUnavailableError).retryAfterSeconds).toBe(7);
    expect(calls).toHaveLength(3);
    expect(waits.every((ms) => ms >= 7000)).toBe(true);
  });

  it('the rate-limit code in a 200 answer is unavailable too, not a refusal', async () => {
    replies['search-products.spec.json'] = { body: { code: 36009002, message: 'Too many requests' } };
    await expect(connector().listListings(credentials)).rejects.toBeInstanceOf(MarketplaceUnavailableError);
  });

  it('a bad signature is not shown as "reconnect"', async () => {
    replies['search-products.spec.json'] = {
      status: 401,
      body: { code: 106001, message: 'Invalid credentials' },
    };
    const error = await connector()
      .listListings(credentials)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceRejectedError);
    expect((error as MarketplaceRejectedError).status).toBe(500);
    expect((error as Error).message).not.toMatch(/reconnect/);
  });
});

describe('webhooks', () => {
  const receiver = createTikTokWebhookReceiver(APP_KEY, APP_SECRET);
  // The pushed body, exactly as Partner Center's "(1) Order status change" example gives it.
  const content = (
    JSON.parse(readFileSync(`${CONTRACTS}1-order-status-change.json`, 'utf8')) as { content: string }
  ).content;
  const exampleBody = Buffer.from(/```json\n([\s\S]*?)```/.exec(content)![1]!);
  const signed = (body: Buffer) =>
    createHmac('sha256', APP_SECRET).update(APP_KEY).update(body).digest('hex');

  it('reads shop, topic and notification id from the body and the signature from Authorization', () => {
    expect(receiver.read({ authorization: 'abc' }, exampleBody)).toEqual({
      signature: 'abc',
      shopId: '7494049642642441621',
      topic: '1',
      deliveryId: '7327112393057371910',
    });
  });

  it('derives a stable delivery id when the push has no notification id', () => {
    const body = Buffer.from(
      JSON.stringify({ type: 1, shop_id: '1', timestamp: 1644412885, data: { order_id: '2' } }),
    );
    const first = receiver.read({}, body).deliveryId;
    expect(first).toMatch(/^1644412885-[0-9a-f]{64}$/);
    expect(receiver.read({}, Buffer.from(body)).deliveryId).toBe(first);
  });

  it('verifies the (unconfirmed, community) signature: valid, invalid, tampered', () => {
    expect(receiver.verify(exampleBody, signed(exampleBody), '7494049642642441621')).toBe(true);
    expect(receiver.verify(exampleBody, signed(exampleBody).toUpperCase(), '')).toBe(true);
    expect(receiver.verify(exampleBody, 'f'.repeat(64), '')).toBe(false);
    expect(receiver.verify(exampleBody, undefined, '')).toBe(false);
    const tampered = Buffer.from(
      exampleBody.toString('utf8').replace('576486316948490001', '576486316948490002'),
    );
    expect(receiver.verify(tampered, signed(exampleBody), '')).toBe(false);
    expect(verifyTikTokWebhook(exampleBody, signed(exampleBody), APP_KEY, 'other-secret')).toBe(false);
  });

  it('an order status change names the order to fetch; other types are ignored', () => {
    expect(receiver.classify('1')).toBe('order-ref');
    expect(receiver.classify('4')).toBe('ignore');
    expect(receiver.orderRef!(JSON.parse(exampleBody.toString('utf8')))).toBe('576486316948490001');
    expect(() => receiver.orderRef!({ type: 1, data: {} })).toThrow(MalformedOrderError);
  });
});

describe('sandbox impersonation', () => {
  const input = {
    sequence: 7,
    placedAt: new Date('2026-11-20T10:00:00.000Z'),
    buyer: {
      name: 'Ada Lovelace',
      address: {
        name: 'Ada Lovelace',
        company: '',
        line1: '12 Analytical Row',
        line2: 'Flat 2',
        city: 'Austin',
        region: 'TX',
        postalCode: '78701',
        country: 'US',
        phone: '+1 512 555 0100',
        email: 'ada@example.com',
      },
    },
    items: [
      { sku: 'LL-VASE-TWIST', title: 'Twisted Spiral Vase', quantity: 2, unitPriceCents: 2400 },
      { sku: 'LL-DRAGON-ART', title: 'Articulated Dragon', quantity: 1, unitPriceCents: 2900 },
    ],
    currency: 'USD',
  };

  it("is valid against Get Order Detail (202507)'s response fields", () => {
    const payload = tiktokSandboxOrderPayload(input);
    expect(doc('get-order-detail.spec.json').checkResponse(envelope({ orders: [payload] }))).toEqual([]);
    // The check has teeth: a wrong type in the same payload is reported.
    expect(
      doc('get-order-detail.spec.json').checkResponse(
        envelope({ orders: [{ ...payload, create_time: 'x' }] }),
      ),
    ).not.toEqual([]);
  });

  it('maps to the expected order, deterministically', () => {
    const payload = tiktokSandboxOrderPayload(input);
    expect(tiktokSandboxOrderPayload(input)).toEqual(payload);
    const order = mapTikTokSandboxOrder(payload);
    expect(order).toMatchObject({
      externalId: payload.id,
      placedAt: input.placedAt,
      customerName: 'Ada Lovelace',
      currency: 'USD',
      totalCents: 7700,
      cancelled: false,
      shippingAddress: {
        name: 'Ada Lovelace',
        line1: '12 Analytical Row',
        line2: 'Flat 2',
        city: 'Austin',
        region: 'TX',
        postalCode: '78701',
        country: 'US',
        phone: '+1 512 555 0100',
      },
    });
    expect(
      order.items.map(({ sku, title, quantity, unitPriceCents }) => ({
        sku,
        title,
        quantity,
        unitPriceCents,
      })),
    ).toEqual([
      { sku: 'LL-VASE-TWIST', title: 'Twisted Spiral Vase', quantity: 2, unitPriceCents: 2400 },
      { sku: 'LL-DRAGON-ART', title: 'Articulated Dragon', quantity: 1, unitPriceCents: 2900 },
    ]);
  });
});
