import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ShopCredentials } from '../../modules/shops/connector.ts';
import {
  recordingFetchInto,
  startPrismMock,
  type PrismMock,
  type RecordedCall,
} from '../http-client/prism-mock.ts';
import { createEbayConnector } from './ebay-connector.ts';
import { ebayInventoryPage, ebayOffersPage, mapEbayListing } from './ebay-mapping.ts';

/**
 * Contract test: the Inventory API requests of listListings go to Prism running eBay's own
 * OpenAPI file (/work/shared/contracts/ebay/sell_inventory_v1_oas3.json). Its own file (and Prism)
 * so the Fulfillment test's Prism does not have to load both documents.
 */

const SPEC = '/work/shared/contracts/ebay/sell_inventory_v1_oas3.json';

let prism: PrismMock;
let recorded: RecordedCall[] = [];

const recordingFetch = recordingFetchInto(() => recorded);

const credentials: ShopCredentials = {
  externalShopId: 'ma8vp1jySJC',
  accessToken: 'v^1.1#i^1#user-access',
  refreshToken: null,
  tokenExpiresAt: null,
  settings: {},
};

beforeAll(async () => {
  prism = await startPrismMock(SPEC);
}, 90_000);

afterAll(async () => {
  await prism?.stop();
});

beforeEach(() => {
  recorded = [];
});

describe('eBay listings against the Sell Inventory OpenAPI (Prism)', () => {
  it('listListings: getInventoryItems (offset/limit), then getOffers by SKU for each item; all requests valid', async () => {
    const ebay = createEbayConnector({
      clientId: 'c',
      clientSecret: 's',
      ruName: 'r',
      fetch: recordingFetch,
      endpoints: { inventory: prism.origin },
      http: { baseDelayMs: 10, maxDelayMs: 50 },
    });
    const listings = await ebay.listListings(credentials);
    expect(
      recorded.map((c) => ({
        call: `${c.method} ${c.url.pathname}`,
        status: c.status,
        violations: c.violations,
      })),
    ).toEqual([
      { call: 'GET /inventory_item', status: 200, violations: null },
      { call: 'GET /offer', status: 200, violations: null },
    ]);
    expect(Object.fromEntries(recorded[0]!.url.searchParams)).toEqual({ offset: '0', limit: '100' });
    expect(Object.fromEntries(recorded[1]!.url.searchParams)).toEqual({ sku: 'string' });
    // Prism's example offer has status "string", not PUBLISHED: nothing is live, nothing is listed…
    expect(listings).toEqual([]);
    // …and the same examples, published, map to one listing with the SKU, price and listing id.
    const item = ebayInventoryPage.parse(JSON.parse(recorded[0]!.body)).inventoryItems![0]!;
    const offer = ebayOffersPage.parse(JSON.parse(recorded[1]!.body)).offers![0]!;
    expect(
      mapEbayListing(
        { ...item, sku: 'LL-PLANTER-M', groupIds: [], inventoryItemGroupKeys: [] },
        [
          {
            ...offer,
            status: 'PUBLISHED',
            listing: { listingId: '110551234567' },
            pricingSummary: { price: { value: '26.00', currency: 'USD' } },
          },
        ],
        'https://www.ebay.com',
      ),
    ).toEqual([
      {
        externalListingId: '110551234567',
        externalVariantId: '',
        title: 'string',
        sku: 'LL-PLANTER-M',
        priceCents: 2600,
        currency: 'USD',
        url: 'https://www.ebay.com/itm/110551234567',
        imageUrl: 'string',
      },
    ]);
  });

  it('negative: the mock refuses a request without the bearer token (api_auth)', async () => {
    const response = await fetch(`${prism.origin}/inventory_item?limit=1`);
    expect(response.status).toBe(401);
  });
});
