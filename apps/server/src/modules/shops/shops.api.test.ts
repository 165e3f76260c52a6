import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { oauthState, shopConnection } from '../../db/schema.ts';
import {
  SANDBOX_MATCHABLE_SKUS,
  SANDBOX_UNMATCHED_SKU,
} from '../../integrations/sandbox-shop/sandbox-connector.ts';
import { enqueueDueSyncs } from '../../jobs/shop-sync-jobs.ts';
import { addVariants } from '../../../test/orders-fixtures.ts';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import {
  MarketplaceRejectedError,
  type OAuthConnector,
  type ShopConnector,
  type ShopCredentials,
} from './connector.ts';

let t: TestApp;
let seller: SignedInClient;
let other: SignedInClient;
let plain: SignedInClient;
let admin: SignedInClient;

/**
 * A fake OAuth marketplace registered through the registry (the real Etsy and Shopify modules
 * have their own contract tests). It records what it was asked, so the tests can prove the
 * callback never reached the code exchange when the state was wrong.
 */
const exchanged: { code: string; codeVerifier: string }[] = [];
const revoked: ShopCredentials[] = [];
let rejectListings = false;
const refreshes: string[] = [];
const listedWith: (string | null)[] = [];
const fakeShop: ShopConnector = {
  platform: 'ebay',
  async refreshTokens(credentials) {
    refreshes.push(credentials.refreshToken ?? '');
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Rotating refresh tokens, as Etsy does: the old refresh token stops working after one use.
    return {
      accessToken: `access-${refreshes.length}`,
      refreshToken: `refresh-rotated-${refreshes.length}`,
      tokenExpiresAt: new Date(Date.now() + 3600_000),
    };
  },
  async listListings(credentials) {
    listedWith.push(credentials.accessToken);
    if (rejectListings) throw new MarketplaceRejectedError('The grant was revoked on the marketplace', 401);
    return [
      {
        externalListingId: 'w-1',
        externalVariantId: '',
        title: 'Fake vase',
        sku: 'LL-VASE-TWIST',
        priceCents: 100,
        currency: 'USD',
        url: null,
        imageUrl: null,
      },
    ];
  },
  async fetchOrders() {
    return { orders: [], nextCursor: 'c1' };
  },
  async pushTracking() {},
  async revoke(credentials) {
    revoked.push(credentials);
  },
};
const fakeOAuth: OAuthConnector = {
  platform: 'ebay',
  authorizeUrl: ({ state, codeChallenge, redirectUri }) =>
    `https://marketplace.invalid/authorize?${new URLSearchParams({ state, code_challenge: codeChallenge, code_challenge_method: 'S256', redirect_uri: redirectUri })}`,
  async completeAuthorization({ query, codeVerifier }) {
    exchanged.push({ code: query.code!, codeVerifier });
    return {
      externalShopId: `fake-${query.code}`,
      shopName: 'Fake Woo Shop',
      tokens: {
        accessToken: `access-${query.code}`,
        refreshToken: `refresh-${query.code}`,
        tokenExpiresAt: new Date(Date.now() + 3600_000),
      },
      scopes: 'read write',
      settings: {},
    };
  },
};

beforeAll(async () => {
  t = await startTestApp();
  t.context.shopConnectors.register(fakeShop, fakeOAuth);
  seller = await t.signUp({ role: 'beta', name: 'Shop Seller' });
  other = await t.signUp({ role: 'beta', name: 'Other Seller' });
  plain = await t.signUp({ role: 'seller' });
  admin = await t.signUp({ role: 'admin' });
});

afterAll(async () => {
  await t?.close();
});

async function startOAuth(client: SignedInClient): Promise<string> {
  const response = await client.post('/api/shops/ebay/connect', {});
  expect(response.status).toBe(200);
  const url = new URL(response.body.authorizeUrl);
  expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  expect(url.searchParams.get('redirect_uri')).toBe(`${t.baseUrl}/api/shops/ebay/callback`);
  return url.searchParams.get('state')!;
}

const callback = (client: SignedInClient, params: Record<string, string>) =>
  client.get(`/api/shops/ebay/callback?${new URLSearchParams(params)}`);

const redirectOf = (response: { status: number; headers: Headers }) => {
  expect(response.status).toBe(303);
  return new URL(response.headers.get('location')!, 'http://x');
};

describe('sandbox shop: connect → listings → SKU links → orders', () => {
  let shopId: string;
  let variants: Map<string, string>;

  beforeAll(async () => {
    variants = await addVariants(t.context, seller.userId, SANDBOX_MATCHABLE_SKUS, 'Sandbox products');
  });

  it('connects at once and imports the listings, linked by SKU except the unmatched one', async () => {
    const connected = await seller.post('/api/shops/sandbox/connect', {});
    expect(connected.status).toBe(200);
    expect(connected.body.authorizeUrl).toBeNull();
    shopId = connected.body.shop.id;
    expect(connected.body.shop).toMatchObject({ platform: 'sandbox', status: 'connected', listingCount: 7 });

    const listings = await seller.get(`/api/listings?shopId=${shopId}`);
    expect(listings.status).toBe(200);
    expect(listings.body.total).toBe(7);
    const linked = listings.body.items.filter((l: any) => l.linkSource === 'sku');
    expect(linked).toHaveLength(6);
    expect(linked.every((l: any) => l.linkedVariantId === variants.get(l.sku))).toBe(true);
    const inbox = await seller.get('/api/listings?unmatched=true');
    expect(inbox.body.items.map((l: any) => l.sku)).toEqual([SANDBOX_UNMATCHED_SKU]);
    expect((await seller.get('/api/shops')).body).toHaveLength(1);
  });

  it('a simulated order arrives accepted, with its items matched', async () => {
    const simulated = await seller.post(`/api/shops/${shopId}/sandbox/simulate-order`, {});
    expect(simulated.status).toBe(201);
    expect(simulated.body.created).toBe(true);
    const order = await seller.get(`/api/orders/${simulated.body.orderId}`);
    expect(order.body).toMatchObject({
      status: 'accepted',
      platform: 'sandbox',
      shopId,
      shopName: expect.stringContaining('Sandbox'),
    });
    expect(order.body.items.every((i: any) => i.variantId && i.productName)).toBe(true);
    expect(order.body.events.map((e: any) => e.toStatus)).toEqual(['received', 'accepted']);
  });

  it('sends tracking to the marketplace (completeEtsyOrder, for any shop); a packed order becomes shipped', async () => {
    const simulated = await seller.post(`/api/shops/${shopId}/sandbox/simulate-order`, {});
    const orderId = simulated.body.orderId as string;
    const tracking = { trackingNumber: '9400111899223847560001', carrierName: 'usps' };
    expect((await seller.post(`/api/orders/${orderId}/tracking`, tracking)).status).toBe(403);
    for (const to of ['in_production', 'printed', 'packed']) {
      expect((await admin.post(`/api/orders/${orderId}/status`, { to, reason: 'farm' })).status).toBe(200);
    }
    const shipped = await admin.post(`/api/orders/${orderId}/tracking`, tracking);
    expect(shipped.status).toBe(200);
    expect(shipped.body.status).toBe('shipped');
    expect(shipped.body.events.at(-1)).toMatchObject({ toStatus: 'shipped', actorKind: 'admin' });
    expect(shipped.body.events.at(-1).reason).toContain('9400111899223847560001');
    const sandbox = t.context.shopConnectors.shop('sandbox') as unknown as { shipped: Map<string, unknown> };
    const [row] = await t.context.db.select().from(shopConnection).where(eq(shopConnection.id, shopId));
    expect(sandbox.shipped.get(`${row!.externalShopId}:${shipped.body.externalId}`)).toEqual(tracking);
    const audit = (await admin.get('/api/admin/audit?limit=20')).body.entries;
    expect(audit).toContainEqual(
      expect.objectContaining({
        action: 'order.tracking-sent',
        actorId: admin.userId,
        targetUserId: seller.userId,
      }),
    );
    // The spec's completeEtsyOrder names an Etsy receipt: a sandbox order is not one.
    const etsy = await admin.post('/api/etsy/complete-order', {
      userId: seller.userId,
      receiptId: shipped.body.externalId,
      trackingNumber: 'X123',
    });
    expect(etsy.status).toBe(404);
    expect(
      (
        await seller.post('/api/etsy/complete-order', {
          userId: other.userId,
          receiptId: '1',
          trackingNumber: 'X123',
        })
      ).status,
    ).toBe(403);
  });

  it('an order with the unmatched SKU is held; linking the listing by hand releases it', async () => {
    const simulated = await seller.post(`/api/shops/${shopId}/sandbox/simulate-order`, {
      includeUnmatched: true,
    });
    const held = await seller.get(`/api/orders/${simulated.body.orderId}`);
    expect(held.body.status).toBe('on_hold');
    expect(held.body.holdReason).toContain(SANDBOX_UNMATCHED_SKU);

    const inbox = await seller.get('/api/listings?link=unmatched');
    const mystery = inbox.body.items[0];
    const options = await seller.get('/api/listings/variant-options?search=dragon');
    expect(options.body.map((o: any) => o.sku)).toEqual(['LL-DRAGON-ART']);
    const linked = await seller.post(`/api/listings/${mystery.id}/link`, { variantId: options.body[0].id });
    expect(linked.status).toBe(200);
    expect(linked.body).toMatchObject({ linkSource: 'manual', linkedVariantId: options.body[0].id });

    const released = await seller.get(`/api/orders/${simulated.body.orderId}`);
    expect(released.body.status).toBe('accepted');
    expect(released.body.events.at(-1)).toMatchObject({
      fromStatus: 'on_hold',
      toStatus: 'accepted',
      actorKind: 'system',
    });

    // A manual link survives the next import's SKU matching.
    await seller.post(`/api/shops/${shopId}/sync`, {});
    const after = await seller.get(`/api/listings?search=${SANDBOX_UNMATCHED_SKU}`);
    expect(after.body.items[0]).toMatchObject({ linkSource: 'manual', linkedVariantId: options.body[0].id });
    const unlinked = await seller.delete(`/api/listings/${mystery.id}/link`);
    expect(unlinked.body).toMatchObject({ linkSource: null, linkedVariantId: null });
  });

  it('syncs orders deterministically from the cursor; repeats change nothing; a cancellation cancels', async () => {
    const counts = [];
    for (let i = 0; i < 5; i++) {
      const sync = await seller.post(`/api/shops/${shopId}/sync`, {});
      expect(sync.status).toBe(200);
      counts.push([sync.body.ordersReceived, sync.body.ordersCreated]);
    }
    // The first call of this loop is the shop's second sync (one ran above): each brings the previous
    // order again and one new order; the 5th brings order 3 again, cancelled.
    expect(counts.map(([, created]) => created)).toEqual([1, 1, 1, 1, 1]);
    const list = await seller.get('/api/orders?search=SBX-1003');
    expect(list.body.items[0].status).toBe('cancelled');
    const refreshed = await seller.get('/api/listings?refresh=true');
    expect(refreshed.body.total).toBe(7);
  });

  it('another seller gets 404 for the shop and its listings; a non-beta seller is refused', async () => {
    const listing = (await seller.get('/api/listings')).body.items[0];
    expect((await other.post(`/api/shops/${shopId}/sync`, {})).status).toBe(404);
    expect((await other.post(`/api/shops/${shopId}/sandbox/simulate-order`, {})).status).toBe(404);
    expect((await other.delete(`/api/shops/${shopId}`)).status).toBe(404);
    expect(
      (await other.post(`/api/listings/${listing.id}/link`, { variantId: variants.get('LL-VASE-TWIST') }))
        .status,
    ).toBe(404);
    expect((await other.delete(`/api/listings/${listing.id}/link`)).status).toBe(404);
    expect((await other.get('/api/listings')).body.total).toBe(0);
    expect((await other.get(`/api/shops?targetUserId=${seller.userId}`)).status).toBe(403);
    expect((await other.get(`/api/listings?targetUserId=${seller.userId}`)).status).toBe(403);
    // Linking to another seller's variant: answered as a missing variant.
    const otherVariants = await addVariants(t.context, other.userId, ['OTHER-1']);
    expect(
      (await seller.post(`/api/listings/${listing.id}/link`, { variantId: otherVariants.get('OTHER-1') }))
        .status,
    ).toBe(404);
    // Beta gating (admins pass).
    expect((await plain.get('/api/shops')).status).toBe(403);
    expect((await plain.get('/api/listings')).status).toBe(403);
    expect((await plain.post('/api/shops/sandbox/connect', {})).status).toBe(403);
    expect((await t.client().get('/api/shops')).status).toBe(401);
    expect((await admin.get(`/api/shops?targetUserId=${seller.userId}`)).body).toHaveLength(1);
    expect((await admin.get(`/api/listings?targetUserId=${seller.userId}`)).body.total).toBe(7);
  });

  it('the periodic check queues a sync only for shops that are due, and the worker runs it', async () => {
    expect(await enqueueDueSyncs(t.running.jobs, t.context.shops)).toBe(0); // just synced; the sandbox syncs hourly
    const before = (await seller.get('/api/shops')).body[0].lastSyncedAt;
    const later = Date.now() + 2 * 3600_000;
    expect(await enqueueDueSyncs(t.running.jobs, t.context.shops, later)).toBeGreaterThanOrEqual(1);
    await expect
      .poll(async () => (await seller.get('/api/shops')).body[0].lastSyncedAt, { timeout: 15_000 })
      .not.toBe(before);
  });

  it('disconnect deletes the connection and its listings', async () => {
    expect((await seller.delete(`/api/shops/${shopId}`)).status).toBe(204);
    expect((await seller.get('/api/shops')).body).toHaveLength(0);
    expect((await seller.get('/api/listings')).body.total).toBe(0);
    // Its orders stay (they are the seller's records), without the shop.
    const orders = await seller.get('/api/orders?search=SBX');
    expect(orders.body.items.length).toBeGreaterThan(0);
    expect(orders.body.items[0].shopId).toBeNull();
  });
});

describe('OAuth connect', () => {
  it('stores the connection with sealed tokens after a valid callback', async () => {
    const state = await startOAuth(seller);
    expect(Buffer.from(state, 'base64url')).toHaveLength(32);
    const response = await callback(seller, { state, code: 'good' });
    expect(redirectOf(response).searchParams.get('connected')).toBe('ebay');
    const [row] = await t.context.db
      .select()
      .from(shopConnection)
      .where(eq(shopConnection.externalShopId, 'fake-good'));
    expect(row).toBeTruthy();
    expect(row!.accessTokenEnc).not.toContain('access-good');
    expect(row!.refreshTokenEnc).not.toContain('refresh-good');
    // The verifier sent to the exchange matches the S256 challenge given at the start.
    expect(exchanged.at(-1)!.codeVerifier.length).toBeGreaterThanOrEqual(43);

    // Disconnect revokes with the decrypted token, then deletes the row.
    expect((await seller.delete(`/api/shops/${row!.id}`)).status).toBe(204);
    expect(revoked.at(-1)!.accessToken).toBe('access-good');
    expect(
      await t.context.db.select().from(shopConnection).where(eq(shopConnection.id, row!.id)),
    ).toHaveLength(0);
  });

  it('refreshes an expired token once for 20 concurrent syncs (TOK-1)', async () => {
    const state = await startOAuth(seller);
    await callback(seller, { state, code: 'expiring' });
    const [row] = await t.context.db
      .select()
      .from(shopConnection)
      .where(eq(shopConnection.externalShopId, 'fake-expiring'));
    await t.context.db
      .update(shopConnection)
      .set({ tokenExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(shopConnection.id, row!.id));
    refreshes.length = 0;
    listedWith.length = 0;
    const results = await Promise.all(
      Array.from({ length: 20 }, () => seller.post(`/api/shops/${row!.id}/sync`, {})),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(refreshes).toEqual(['refresh-expiring']);
    expect(new Set(listedWith)).toEqual(new Set(['access-1']));
    expect((await seller.delete(`/api/shops/${row!.id}`)).status).toBe(204);
  });

  it('rejects unknown, reused, expired and another seller’s states, storing nothing', async () => {
    const before = exchanged.length;
    const countShops = async () =>
      (await t.context.db.select().from(shopConnection).where(eq(shopConnection.platform, 'ebay'))).length;
    const shopsBefore = await countShops();

    const unknown = redirectOf(await callback(seller, { state: 'not-a-state', code: 'x1' }));
    expect(unknown.searchParams.get('error')).toMatch(/not recognised/);

    const state = await startOAuth(seller);
    const stolen = redirectOf(await callback(other, { state, code: 'x2' }));
    expect(stolen.searchParams.get('error')).toMatch(/not recognised/);
    // The attempt by another seller did not use it up: the rightful seller still can, once.
    expect(redirectOf(await callback(seller, { state, code: 'ok2' })).searchParams.get('connected')).toBe(
      'ebay',
    );
    const reused = redirectOf(await callback(seller, { state, code: 'x3' }));
    expect(reused.searchParams.get('error')).toMatch(/already used/);

    const expiring = await startOAuth(seller);
    await t.context.db
      .update(oauthState)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(oauthState.state, expiring));
    const expired = redirectOf(await callback(seller, { state: expiring, code: 'x4' }));
    expect(expired.searchParams.get('error')).toMatch(/expired/);

    const wrongPlatform = await startOAuth(seller);
    const crossed = await seller.get(
      `/api/shops/etsy/callback?${new URLSearchParams({ state: wrongPlatform, code: 'x5' })}`,
    );
    expect(redirectOf(crossed).searchParams.get('error')).toBeTruthy();

    const signedOut = redirectOf(
      await t.client().get(`/api/shops/ebay/callback?state=${wrongPlatform}&code=x6`),
    );
    expect(signedOut.searchParams.get('error')).toMatch(/Sign in/);

    // Only the one legitimate exchange happened; only its connection exists.
    expect(exchanged.slice(before).map((e) => e.code)).toEqual(['ok2']);
    expect(await countShops()).toBe(shopsBefore + 1);
  });

  it('a marketplace that rejects the grant marks the connection as in error', async () => {
    const [row] = await t.context.db
      .select()
      .from(shopConnection)
      .where(eq(shopConnection.externalShopId, 'fake-ok2'));
    rejectListings = true;
    const sync = await seller.post(`/api/shops/${row!.id}/sync`, {});
    rejectListings = false;
    expect(sync.status).toBe(400);
    const shops = (await seller.get('/api/shops')).body;
    expect(shops.find((s: any) => s.id === row!.id)).toMatchObject({
      status: 'error',
      statusMessage: 'The grant was revoked on the marketplace',
    });
  });

  it('refuses platforms without a connector and non-beta sellers', async () => {
    expect((await seller.post('/api/shops/amazon/connect', {})).status).toBe(400);
    expect((await seller.post('/api/shops/nowhere/connect', {})).status).toBe(400);
    expect((await plain.post('/api/shops/woocommerce/connect', {})).status).toBe(403);
    const platforms = await seller.get('/api/shops/platforms');
    expect(platforms.body.platforms).toEqual(
      expect.arrayContaining([
        { platform: 'sandbox', label: 'Sandbox shop', oauth: false, fields: [] },
        { platform: 'ebay', label: 'eBay', oauth: true, fields: [] },
      ]),
    );
  });
});
