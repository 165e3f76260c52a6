import { describe, expect, it } from 'vitest';
import {
  MalformedOrderError,
  MarketplaceRejectedError,
  MarketplaceUnavailableError,
  type ShopCredentials,
} from '../../modules/shops/connector.ts';
import { createEbayConnector, type EbayConnectorOptions } from './ebay-connector.ts';
import { ebayAmountToCents, ebayCarrierCode, mapEbayOrder } from './ebay-mapping.ts';

/**
 * Paging, refresh, back-off, mapping and idempotence logic (the request shapes themselves are
 * covered by the Prism contract tests). Orders here use only fields of the Fulfillment API's Order.
 */

const credentials: ShopCredentials = {
  externalShopId: 'ma8vp1jySJC',
  accessToken: 'old-access',
  refreshToken: 'refresh-1',
  tokenExpiresAt: new Date('2026-11-21T11:59:30.000Z'),
  settings: {},
};

const order = (id: string, overrides: Record<string, unknown> = {}) => ({
  orderId: id,
  creationDate: '2026-11-20T10:00:00.000Z',
  lastModifiedDate: '2026-11-21T10:00:00.000Z',
  orderFulfillmentStatus: 'NOT_STARTED',
  orderPaymentStatus: 'PAID',
  buyer: { username: 'grace_h' },
  cancelStatus: { cancelState: 'NONE_REQUESTED', cancelRequests: [] },
  pricingSummary: { total: { value: '31.98', currency: 'USD' } },
  fulfillmentStartInstructions: [
    {
      fulfillmentInstructionsType: 'SHIP_TO',
      shippingStep: {
        shipTo: {
          fullName: 'Grace Hopper',
          contactAddress: {
            addressLine1: '1 Compiler Rd',
            city: 'Arlington',
            stateOrProvince: 'VA',
            postalCode: '22201',
            countryCode: 'US',
          },
          primaryPhone: { phoneNumber: '7035550100' },
          email: 'grace@example.com',
        },
      },
    },
  ],
  lineItems: [
    {
      lineItemId: `${id}-L1`,
      sku: 'LL-PLANTER-M',
      title: 'Planter',
      quantity: 2,
      lineItemCost: { value: '31.98', currency: 'USD' },
      lineItemFulfillmentStatus: 'NOT_STARTED',
    },
  ],
  ...overrides,
});

const json = (body: unknown, status = 200) =>
  new Response(body === null ? null : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json' },
  });

const connectorWith = (fetchFn: typeof fetch, extra: Partial<EbayConnectorOptions> = {}) =>
  createEbayConnector({
    clientId: 'c',
    clientSecret: 's',
    ruName: 'r',
    fetch: fetchFn,
    requestsPerSecond: 1000,
    now: () => new Date('2026-11-21T12:00:00.000Z'),
    http: { baseDelayMs: 1, maxDelayMs: 2 },
    ...extra,
  });

describe('eBay connector logic', () => {
  it('pages getOrders by offset until total, de-duplicates, and maps eBay’s fields', async () => {
    const offsets: string[] = [];
    const ebay = connectorWith(async (input) => {
      const url = new URL(String(input));
      const offset = Number(url.searchParams.get('offset'));
      offsets.push(String(offset));
      // An order modified while paging shifts into the second page too (id 200 appears twice).
      const ids =
        offset === 0
          ? Array.from({ length: 200 }, (_, i) => i + 1)
          : [200, ...Array.from({ length: 49 }, (_, i) => 201 + i)];
      return json({
        total: 249,
        limit: 200,
        offset,
        orders: ids.map((n) => order(`27-00000-${String(n).padStart(5, '0')}`)),
      });
    });
    const { orders, failed } = await ebay.fetchOrders(credentials, '2026-11-21T10:00:00Z');
    expect(offsets).toEqual(['0', '200']);
    expect(orders).toHaveLength(249);
    expect(failed).toEqual([]);
    expect(orders[0]).toEqual({
      externalId: '27-00000-00001',
      placedAt: new Date('2026-11-20T10:00:00.000Z'),
      customerName: 'Grace Hopper',
      shippingAddress: {
        name: 'Grace Hopper',
        company: '',
        line1: '1 Compiler Rd',
        line2: '',
        city: 'Arlington',
        region: 'VA',
        postalCode: '22201',
        country: 'US',
        phone: '7035550100',
        email: 'grace@example.com',
      },
      currency: 'USD',
      totalCents: 3198,
      cancelled: false,
      items: [
        {
          externalItemId: '27-00000-00001-L1',
          sku: 'LL-PLANTER-M',
          title: 'Planter',
          quantity: 2,
          unitPriceCents: 1599,
        },
      ],
    });
  });

  it('a poll ingests the readable orders and reports the unreadable one with its reason', async () => {
    const ebay = connectorWith(async () =>
      json({ total: 2, orders: [order('27-00000-00001'), order('27-00000-00002', { lineItems: [] })] }),
    );
    const { orders, failed } = await ebay.fetchOrders(credentials, null);
    expect(orders.map((o) => o.externalId)).toEqual(['27-00000-00001']);
    expect(failed).toEqual([
      { externalId: '27-00000-00002', reason: 'eBay order 27-00000-00002 has no line items' },
    ]);
  });

  it('refuses unreadable orders with MalformedOrderError saying why, and reads cancellations', () => {
    const cases: [unknown, RegExp][] = [
      ['not an order', /not readable/],
      [order(''), /no orderId/],
      [order('A', { creationDate: 'yesterday' }), /no valid creationDate/],
      [order('A', { lineItems: undefined }), /no line items/],
      [order('A', { lineItems: [{ lineItemId: 'L', quantity: 0 }] }), /line L has no valid quantity/],
      [
        order('A', { fulfillmentStartInstructions: [{ fulfillmentInstructionsType: 'PREPARE_FOR_PICKUP' }] }),
        /no shipping address/,
      ],
    ];
    for (const [payload, reason] of cases) {
      expect(() => mapEbayOrder(payload)).toThrow(MalformedOrderError);
      expect(() => mapEbayOrder(payload)).toThrow(reason);
    }
    expect(mapEbayOrder(order('A', { cancelStatus: { cancelState: 'CANCELED' } })).cancelled).toBe(true);
    expect(mapEbayOrder(order('A', { cancelStatus: { cancelState: 'IN_PROGRESS' } })).cancelled).toBe(false);
    expect(mapEbayOrder(order('A', { orderPaymentStatus: 'FULLY_REFUNDED' })).cancelled).toBe(true);
    expect(
      mapEbayOrder(order('A', { orderPaymentStatus: 'FULLY_REFUNDED', orderFulfillmentStatus: 'FULFILLED' }))
        .cancelled,
    ).toBe(false);
    expect(mapEbayOrder(order('A', { buyerCheckoutNotes: ' blue please ' })).note).toBe('blue please');
  });

  it('an expired token: 401 asks to reconnect; one refresh, and the same call then succeeds', async () => {
    let tokenCalls = 0;
    const seenTokens: string[] = [];
    const ebay = connectorWith(async (input, init) => {
      const url = new URL(String(input));
      const auth = new Headers(init?.headers).get('authorization') ?? '';
      if (url.pathname === '/identity/v1/oauth2/token') {
        tokenCalls += 1;
        return json({ access_token: 'new-access', expires_in: 7200, token_type: 'User Access Token' });
      }
      seenTokens.push(auth);
      return auth === 'Bearer new-access'
        ? json({ total: 0, orders: [] })
        : json({ errors: [{ errorId: 1001, message: 'Invalid access token' }] }, 401);
    });
    const error = await ebay.fetchOrders(credentials, null).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceRejectedError);
    expect((error as MarketplaceRejectedError).status).toBe(401);
    expect((error as Error).message).toMatch(/reconnect the shop/);
    // What the shops module does for a token about to expire: refresh once, then call.
    const tokens = await ebay.refreshTokens(credentials);
    expect(tokens).toEqual({
      accessToken: 'new-access',
      refreshToken: 'refresh-1',
      tokenExpiresAt: new Date('2026-11-21T14:00:00.000Z'),
    });
    const result = await ebay.fetchOrders({ ...credentials, ...tokens }, null);
    expect(result.orders).toEqual([]);
    expect(tokenCalls).toBe(1);
    expect(seenTokens).toEqual(['Bearer old-access', 'Bearer new-access']);
  });

  it('429 without Retry-After: backs off in process, then MarketplaceUnavailableError with a minute', async () => {
    let calls = 0;
    const waits: number[] = [];
    const ebay = connectorWith(
      async () => {
        calls += 1;
        return json({ errors: [{ errorId: 2001, message: 'Too many requests' }] }, 429);
      },
      {
        http: {
          maxAttempts: 3,
          baseDelayMs: 500,
          random: () => 1,
          sleep: async (ms) => {
            waits.push(ms);
          },
        },
      },
    );
    const error = await ebay.fetchOrders(credentials, null).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceUnavailableError);
    expect((error as MarketplaceUnavailableError).retryAfterSeconds).toBe(60);
    expect(calls).toBe(3);
    expect(waits).toEqual([500, 1000]); // exponential back-off between the attempts
  });

  it('pushTracking: a 409 (fulfillment exists) is done; a fully shipped order posts nothing; unknown carriers are Other', async () => {
    const posts: unknown[] = [];
    let fulfilled = false;
    const ebay = connectorWith(async (input, init) => {
      if (init?.method === 'POST') {
        posts.push(JSON.parse(String(init.body)));
        return json({ errors: [{ errorId: 409, message: 'Conflict' }] }, 409);
      }
      const lines = [
        { lineItemId: 'L1', quantity: 2, lineItemFulfillmentStatus: fulfilled ? 'FULFILLED' : 'NOT_STARTED' },
        { lineItemId: 'L2', quantity: 1, lineItemFulfillmentStatus: 'FULFILLED' },
      ];
      return json(order('27-00000-00009', { lineItems: lines }));
    });
    await ebay.pushTracking(credentials, '27-00000-00009', {
      trackingNumber: ' LX123 ',
      carrierName: 'Royal Mail',
    });
    expect(posts).toEqual([
      {
        lineItems: [{ lineItemId: 'L1', quantity: 2 }], // L2 was already shipped
        shippedDate: '2026-11-21T12:00:00.000Z',
        shippingCarrierCode: 'Other',
        trackingNumber: 'LX123',
      },
    ]);
    fulfilled = true;
    await ebay.pushTracking(credentials, '27-00000-00009', { trackingNumber: 'LX123', carrierName: 'usps' });
    expect(posts).toHaveLength(1);
    await expect(
      ebay.pushTracking(credentials, '27-00000-00009', { trackingNumber: ' ', carrierName: 'usps' }),
    ).rejects.toBeInstanceOf(MarketplaceRejectedError);
    expect(['usps', 'UPS', 'FedEx', 'dhl-express', 'sandbox'].map(ebayCarrierCode)).toEqual([
      'USPS',
      'UPS',
      'FedEx',
      'DHL',
      'Other',
    ]);
  });

  it('fetchOrder: null when eBay does not know the order', async () => {
    const ebay = connectorWith(async () =>
      json({ errors: [{ errorId: 32100, message: 'Invalid order ID' }] }, 404),
    );
    expect(await ebay.fetchOrder(credentials, '27-00000-00404')).toBeNull();
  });

  it('listListings follows the offset of eBay’s `next` link (never its host); SKUs without offers are skipped', async () => {
    const requests: string[] = [];
    const ebay = connectorWith(async (input) => {
      const url = new URL(String(input));
      requests.push(`${url.pathname}?${url.searchParams.toString()}`);
      if (url.pathname.endsWith('/inventory_item')) {
        const first = url.searchParams.get('offset') === '0';
        return json({
          total: 2,
          inventoryItems: [
            first
              ? {
                  sku: 'LL-VASE-TWIST',
                  product: { title: 'Vase', imageUrls: ['https://i.ebayimg.com/v.jpg'] },
                }
              : { sku: 'LL-PLANTER-S', groupIds: ['G1'], product: { title: 'Planter' } },
          ],
          ...(first
            ? { next: 'https://evil.example/sell/inventory/v1/inventory_item?offset=1&limit=100' }
            : {}),
        });
      }
      if (url.searchParams.get('sku') === 'LL-PLANTER-S') return json({ errors: [{ errorId: 25713 }] }, 404);
      return json({
        offers: [
          {
            offerId: 'O1',
            sku: 'LL-VASE-TWIST',
            status: 'PUBLISHED',
            listing: { listingId: '110551234567' },
            pricingSummary: { price: { value: '24.00', currency: 'USD' } },
          },
          { offerId: 'O2', sku: 'LL-VASE-TWIST', status: 'UNPUBLISHED' },
        ],
      });
    });
    const listings = await ebay.listListings(credentials);
    expect(requests).toEqual([
      '/sell/inventory/v1/inventory_item?offset=0&limit=100',
      '/sell/inventory/v1/offer?sku=LL-VASE-TWIST',
      '/sell/inventory/v1/inventory_item?offset=1&limit=100',
      '/sell/inventory/v1/offer?sku=LL-PLANTER-S',
    ]);
    expect(listings).toEqual([
      {
        externalListingId: '110551234567',
        externalVariantId: '',
        title: 'Vase',
        sku: 'LL-VASE-TWIST',
        priceCents: 2400,
        currency: 'USD',
        url: 'https://www.ebay.com/itm/110551234567',
        imageUrl: 'https://i.ebayimg.com/v.jpg',
      },
    ]);
  });

  it('reads eBay amounts as decimal strings', () => {
    expect(ebayAmountToCents({ value: '19.99', currency: 'USD' })).toBe(1999);
    expect(ebayAmountToCents({ value: '1500', currency: 'JPY' })).toBe(150000);
    expect(ebayAmountToCents({ value: 'string', currency: 'USD' })).toBeNull();
    expect(ebayAmountToCents(null)).toBeNull();
  });
});
