import { describe, expect, it } from 'vitest';
import { MarketplaceUnavailableError, type ShopCredentials } from '../../modules/shops/connector.ts';
import { createEtsyConnector } from './etsy-connector.ts';
import { etsyMoneyToCents, mapEtsyListing } from './etsy-mapping.ts';

/**
 * Paging, de-duplication and retry logic (the request shapes themselves are covered by the Prism
 * contract test). Receipts here follow the spec's ShopReceipt fields.
 */

const credentials: ShopCredentials = {
  externalShopId: '42',
  accessToken: '7.token',
  refreshToken: null,
  tokenExpiresAt: null,
  settings: {},
};

const receipt = (id: number) => ({
  receipt_id: id,
  name: 'Grace Hopper',
  first_line: '1 Compiler Rd',
  second_line: null,
  city: 'Arlington',
  state: 'VA',
  zip: '22201',
  country_iso: 'US',
  status: 'Paid',
  created_timestamp: 1_763_000_000,
  grandtotal: { amount: 3198, divisor: 100, currency_code: 'USD' },
  transactions: [
    {
      transaction_id: id * 10,
      title: 'Planter',
      quantity: 2,
      sku: 'PLANTER-M',
      is_digital: false,
      price: { amount: 1599, divisor: 100, currency_code: 'USD' },
    },
  ],
});

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('Etsy connector logic', () => {
  it('pages receipts by offset until a short page and de-duplicates receipts seen twice', async () => {
    const offsets: string[] = [];
    const fetchFn: typeof fetch = async (input) => {
      const url = new URL(String(input));
      const offset = Number(url.searchParams.get('offset'));
      offsets.push(String(offset));
      // A receipt modified while paging shifts into the second page too (id 100 appears twice).
      const ids =
        offset === 0
          ? Array.from({ length: 100 }, (_, i) => i + 1)
          : [100, ...Array.from({ length: 49 }, (_, i) => 101 + i)];
      return json({ count: 149, results: ids.map(receipt) });
    };
    const etsy = createEtsyConnector({ clientId: 'k', fetch: fetchFn, requestsPerSecond: 1000 });
    const { orders } = await etsy.fetchOrders(credentials, '2026-11-21T10:00:00Z');
    expect(offsets).toEqual(['0', '100']);
    expect(orders).toHaveLength(149);
    expect(orders[0]).toMatchObject({
      externalId: '1',
      currency: 'USD',
      totalCents: 3198,
      items: [{ externalItemId: '10', sku: 'PLANTER-M', quantity: 2, unitPriceCents: 1599 }],
      shippingAddress: {
        name: 'Grace Hopper',
        line1: '1 Compiler Rd',
        line2: '',
        region: 'VA',
        country: 'US',
      },
    });
  });

  it('honours 429 + Retry-After from Etsy, then reports unavailable with the delay', async () => {
    let calls = 0;
    const waits: number[] = [];
    const etsy = createEtsyConnector({
      clientId: 'k',
      requestsPerSecond: 1000,
      fetch: async () => {
        calls += 1;
        return json({ error: 'Too many requests' }, 429, { 'retry-after': '3' });
      },
      http: {
        maxAttempts: 3,
        sleep: async (ms) => {
          waits.push(ms);
        },
      },
    });
    const error = await etsy.fetchOrders(credentials, null).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceUnavailableError);
    expect((error as MarketplaceUnavailableError).retryAfterSeconds).toBe(3);
    expect(calls).toBe(3);
    expect(waits).toHaveLength(2);
    for (const wait of waits) expect(wait).toBeGreaterThanOrEqual(3000);
  });

  it('sends the shared secret in x-api-key when configured', async () => {
    const keys: (string | null)[] = [];
    const etsy = createEtsyConnector({
      clientId: 'keystring',
      sharedSecret: 'secret',
      requestsPerSecond: 1000,
      fetch: async (_input, init) => {
        keys.push(new Headers(init?.headers).get('x-api-key'));
        return json({ count: 0, results: [] });
      },
    });
    await etsy.fetchOrders(credentials, null);
    expect(keys).toEqual(['keystring:secret']);
  });

  it('maps money {amount, divisor} to cents and variations to one listing per product', () => {
    expect(etsyMoneyToCents({ amount: 1999, divisor: 100, currency_code: 'USD' })).toBe(1999);
    expect(etsyMoneyToCents({ amount: 5, divisor: 1, currency_code: 'JPY' })).toBe(500);
    expect(etsyMoneyToCents({ amount: 5, divisor: 0, currency_code: 'USD' })).toBeNull();
    const listing = {
      listing_id: 9,
      title: 'Vase',
      url: 'https://www.etsy.com/listing/9',
      price: null,
      state: 'active',
      images: [],
    };
    const price = { amount: 2500, divisor: 100, currency_code: 'EUR' };
    const mapped = mapEtsyListing(listing, {
      products: [
        {
          product_id: 91,
          sku: 'VASE-S',
          is_deleted: false,
          offerings: [{ price, is_enabled: true, is_deleted: false }],
        },
        {
          product_id: 92,
          sku: 'VASE-L',
          is_deleted: false,
          offerings: [{ price, is_enabled: true, is_deleted: false }],
        },
        { product_id: 93, sku: 'OLD', is_deleted: true, offerings: [] },
      ],
    });
    expect(mapped.map((l) => [l.externalVariantId, l.sku, l.priceCents, l.currency])).toEqual([
      ['91', 'VASE-S', 2500, 'EUR'],
      ['92', 'VASE-L', 2500, 'EUR'],
    ]);
  });
});
