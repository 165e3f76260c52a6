import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  MarketplaceRejectedError,
  MarketplaceUnavailableError,
  type ShopCredentials,
} from '../../modules/shops/connector.ts';
import { createWooCommerceConnector } from './woocommerce-connector.ts';
import { createWooFetch, parseWooStoreUrl, wooShopId } from './woocommerce-http.ts';

/**
 * The store address is the seller's, so requests follow the order API's webhook rules: https,
 * public addresses only, checked at connect, before each operation and on every DNS answer when a
 * socket opens. DNS is faked here; a TCP listener on 127.0.0.1 counts any connection that slips
 * through (none may).
 */

let listener: Server;
let port: number;
let connections = 0;

beforeAll(async () => {
  listener = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => listener.close(() => resolve()));
});
beforeEach(() => {
  connections = 0;
});

const resolvesTo =
  (...addresses: string[]) =>
  async (): Promise<LookupAddress[]> =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

const CK = 'ck_0123456789abcdef0123456789abcdef01234567';
const CS = 'cs_fedcba9876543210fedcba9876543210fedcba98';
const INTERNAL = ['127.0.0.1', '10.1.2.3', '169.254.169.254', '::1', '192.168.0.10', '::ffff:127.0.0.1'];

const connectorResolvingTo = (...addresses: string[]) =>
  createWooCommerceConnector({
    appSecret: 'x'.repeat(40),
    resolve: resolvesTo(...addresses),
    http: { maxAttempts: 1 },
  });

describe('store address rules', () => {
  it('normalises the address to the shop id the webhooks name (host and path, lower-case, no scheme)', () => {
    expect(parseWooStoreUrl('https://Shop.Example.com/Store/', { allowInternal: false })).toEqual({
      baseUrl: 'https://shop.example.com/Store', // the host lower-cased by URL, the path as typed
      externalShopId: 'shop.example.com/store',
    });
    expect(wooShopId('https://shop.example.com:8443/')).toBe('shop.example.com:8443');
    expect(wooShopId('ftp://shop.example.com/')).toBeNull();
    expect(wooShopId('not a url')).toBeNull();
  });

  it.each([
    ['http://shop.example.com', /https/],
    ['https://localhost', /public host/],
    ['https://127.0.0.1', /public address/],
    ['https://[::1]', /public address/],
    ['https://10.0.0.5', /public address/],
    ['https://user:pw@shop.example.com', /user name/],
    ['https://shop.example.com/?a=1', /query/],
    ['shop.example.com', /full URL/],
  ])('refuses %s', (raw, reason) => {
    expect(() => parseWooStoreUrl(raw, { allowInternal: false })).toThrow(reason);
  });

  it.each(INTERNAL)(
    'connect refuses a store name that resolves to %s, before any request',
    async (address) => {
      const error = await connectorResolvingTo(address)
        .connectWithCredentials({
          storeUrl: `https://shop.example.com:${port}`,
          consumerKey: CK,
          consumerSecret: CS,
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MarketplaceRejectedError);
      expect((error as Error).message).toMatch(/private network/);
      expect(connections).toBe(0);
    },
  );

  it('every operation checks the store’s DNS again (a name later pointed inside is refused)', async () => {
    const credentials: ShopCredentials = {
      externalShopId: `shop.example.com:${port}`,
      accessToken: CK,
      refreshToken: CS,
      tokenExpiresAt: null,
      settings: { storeUrl: `https://shop.example.com:${port}` },
    };
    const woo = connectorResolvingTo('93.184.216.34', '10.0.0.7'); // one internal answer is enough
    await expect(woo.fetchOrders(credentials, null)).rejects.toThrow(/private network/);
    await expect(
      woo.pushTracking(credentials, '5', { trackingNumber: '1Z', carrierName: 'ups' }),
    ).rejects.toThrow(/private network/);
    await expect(
      woo.listListings({ ...credentials, settings: { storeUrl: 'http://shop.example.com' } }),
    ).rejects.toThrow(/https/);
    expect(connections).toBe(0);
  });

  it('the socket’s own lookup refuses an internal answer (DNS rebound after the check): never connected', async () => {
    let calls = 0;
    // First answer (the check before the operation) public, every later one (the socket's) loopback.
    const rebinding = async (): Promise<LookupAddress[]> =>
      (calls++ === 0 ? ['93.184.216.34'] : ['127.0.0.1']).map((address) => ({ address, family: 4 }));
    const woo = createWooCommerceConnector({
      appSecret: 'x'.repeat(40),
      resolve: rebinding,
      http: { maxAttempts: 2, baseDelayMs: 1 },
    });
    const credentials: ShopCredentials = {
      externalShopId: `shop.example.com:${port}`,
      accessToken: CK,
      refreshToken: CS,
      tokenExpiresAt: null,
      settings: { storeUrl: `https://shop.example.com:${port}` },
    };
    const error = await woo.fetchOrders(credentials, null).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceUnavailableError);
    expect(calls).toBe(3); // the check, then one lookup per attempt
    expect(connections).toBe(0);
  });

  it('the transport alone refuses internal answers and internal literals; allowInternal (tests) reaches 127.0.0.1', async () => {
    const guarded = createWooFetch({ allowInternal: false, resolve: resolvesTo('::1') });
    await expect(guarded(`https://shop.example.com:${port}/wp-json/wc/v3/orders`)).rejects.toThrow(
      /internal address/,
    );
    await expect(guarded(`https://127.0.0.1:${port}/`)).rejects.toThrow(/public address/);
    await expect(guarded(`http://shop.example.com:${port}/`)).rejects.toThrow(/https/);
    expect(connections).toBe(0);
    const open = createWooFetch({ allowInternal: true });
    await expect(open(`http://127.0.0.1:${port}/`)).rejects.toThrow(); // reached (and hung up on)
    expect(connections).toBe(1);
  });
});
