import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ShopCredentials } from '../../modules/shops/connector.ts';
import { startPrismMock, type PrismMock } from '../http-client/prism-mock.ts';
import { createAmazonConnector } from './amazon-connector.ts';

/**
 * Contract test: listListings' requests go to Prism running Amazon's Listings Items model
 * (/work/shared/contracts/amazon-sp-api/listingsItems_2021-08-01.json, searchListingsItems), which
 * answers with that file's example (one SKU with summaries and offers in two marketplaces).
 */

const SPEC = '/work/shared/contracts/amazon-sp-api/listingsItems_2021-08-01.json';

let prism: PrismMock;
let recorded: { url: URL; status: number; violations: string | null; accessToken: string | null }[] = [];

const recordingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  recorded.push({
    url: new URL(input instanceof Request ? input.url : String(input)),
    status: response.status,
    violations: response.headers.get('sl-violations'),
    accessToken: new Headers(init?.headers).get('x-amz-access-token'),
  });
  return response;
};

const credentials: ShopCredentials = {
  externalShopId: 'A3SELLER7TEST',
  accessToken: 'Atza|access',
  refreshToken: 'Atzr|refresh',
  tokenExpiresAt: null,
  settings: { region: 'na', marketplaceIds: ['A2EUQ1WTGCTBG2'] },
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

describe('Amazon listings against the Listings Items 2021-08-01 model (Prism)', () => {
  it('searchListingsItems for the shop primary marketplace, paged by pageToken, one listing per SKU', async () => {
    const amazon = createAmazonConnector({
      appId: 'app',
      lwaClientId: 'id',
      lwaClientSecret: 'secret',
      fetch: recordingFetch,
      apiBaseUrl: prism.origin,
    });
    const listings = await amazon.listListings(credentials);
    expect(recorded.map((c) => ({ status: c.status, violations: c.violations }))).toEqual([
      { status: 200, violations: null },
      { status: 200, violations: null },
    ]);
    expect(recorded.map((c) => c.url.pathname)).toEqual(
      Array(2).fill('/listings/2021-08-01/items/A3SELLER7TEST'),
    );
    // The example's nextToken repeats: asked for once, then paging stops.
    expect(recorded.map((c) => Object.fromEntries(c.url.searchParams))).toEqual([
      { marketplaceIds: 'A2EUQ1WTGCTBG2', includedData: 'summaries,offers', pageSize: '20' },
      {
        marketplaceIds: 'A2EUQ1WTGCTBG2',
        includedData: 'summaries,offers',
        pageSize: '20',
        pageToken: 'xsdflkj324lkjsdlkj3423klkjsdfkljlk2j34klj2l3k4jlksdjl234',
      },
    ]);
    expect(recorded.every((c) => c.accessToken === 'Atza|access')).toBe(true);
    expect(listings).toEqual([
      {
        externalListingId: 'GM-ZDPI-9B4E',
        externalVariantId: '',
        title: 'Hardside Carry-On Spinner Suitcase Luggage',
        sku: 'GM-ZDPI-9B4E',
        priceCents: 13000, // the Canadian offer, for the shop's marketplace
        currency: 'CAD',
        url: null,
        imageUrl: 'https://www.example.com/luggage.png',
      },
    ]);
  });

  it('the mock rejects a page size above the model maximum (20) and an unknown includedData', async () => {
    const base = `${prism.origin}/listings/2021-08-01/items/A3SELLER7TEST?marketplaceIds=ATVPDKIKX0DER`;
    const tooBig = await fetch(`${base}&pageSize=50`);
    expect(tooBig.status).toBe(400);
    expect(tooBig.headers.get('sl-violations')).toContain('pagesize');
    const unknown = await fetch(`${base}&includedData=everything`);
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get('sl-violations')).toContain('includeddata');
  });
});
