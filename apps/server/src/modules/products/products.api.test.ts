import fs from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listing, productVariant, shopConnection } from '../../db/schema.ts';
import { marketplaceOrder } from '../../../test/orders-fixtures.ts';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';

const MODELS = path.resolve(import.meta.dirname, '../../../../../../shared/models');
const CUBE = fs.readFileSync(path.join(MODELS, 'ps-20mm_cube.obj'));

async function upload(client: SignedInClient) {
  const form = new FormData();
  form.append('file', new Blob([CUBE]), 'ps-20mm_cube.obj');
  const response = await fetch(new URL('/api/designs', client.baseUrl), {
    method: 'POST',
    headers: { cookie: client.cookieHeader(), origin: client.baseUrl },
    body: form,
  });
  expect(response.status).toBe(201);
  return (await response.json()) as any;
}

const put = (client: SignedInClient, url: string, json: unknown) => client.request<any>('PUT', url, json, {});
const cents = (usd: number) => Math.round(usd * 100) / 100;

let t: TestApp;
let seller: SignedInClient;
let other: SignedInClient;
let admin: SignedInClient;
/** The seller's cube: its default PLA configuration and a PETG one. */
let plaId: string;
let plaCost: number;
let petgId: string;
let petgCost: number;
let othersConfigId: string;

beforeAll(async () => {
  t = await startTestApp();
  [seller, other, admin] = await Promise.all([
    t.signUp({ name: 'Product Seller' }),
    t.signUp({ name: 'Other Seller' }),
    t.signUp({ role: 'admin' }),
  ]);
  const cube = await upload(seller);
  plaId = cube.printConfigs[0].id;
  plaCost = cube.printConfigs[0].quote.costUsd;
  const petg = await seller.post(`/api/designs/${cube.id}/print-configs`, { name: 'Tough PETG', filament: 'PETG' });
  expect(petg.status).toBe(201);
  petgId = petg.body.id;
  petgCost = petg.body.quote.costUsd;
  othersConfigId = (await upload(other)).printConfigs[0].id;
});
afterAll(async () => {
  await t?.close();
});

const twoVariants = (skuPrefix: string) => ({
  name: 'Desk cube set',
  description: 'Two cubes, or one tough one',
  variants: [
    { name: 'Pair', sku: `${skuPrefix}-PAIR`, packaging: 'gift box', parts: [{ printConfigId: plaId, quantity: 2 }, { printConfigId: petgId, quantity: 1 }] },
    { name: 'Single', sku: `${skuPrefix}-ONE`, parts: [{ printConfigId: petgId, quantity: 1 }] },
  ],
});

describe('products', () => {
  let productId: string;
  let pairId: string;
  let singleId: string;

  it('creates a product with two variants priced from the parts’ quotes', async () => {
    const { status, body } = await seller.post('/api/products', twoVariants('CUBE'));
    expect(status).toBe(201);
    productId = body.id;
    expect(body).toMatchObject({ ownerId: seller.userId, name: 'Desk cube set', description: 'Two cubes, or one tough one' });
    expect(body.variants.map((v: any) => [v.name, v.sku, v.packaging])).toEqual([
      ['Pair', 'CUBE-PAIR', 'gift box'],
      ['Single', 'CUBE-ONE', 'standard'],
    ]);
    const [pair, single] = body.variants;
    pairId = pair.id;
    singleId = single.id;
    expect(pair.parts).toHaveLength(2);
    const plaPart = pair.parts.find((p: any) => p.printConfigId === plaId);
    expect(plaPart).toMatchObject({ designName: 'ps-20mm_cube', configName: 'Standard PLA', quantity: 2, unitCostUsd: plaCost });
    expect(pair.unitCostUsd).toBe(cents(plaCost * 2 + petgCost));
    expect(single.unitCostUsd).toBe(petgCost);
    expect(pair.linkedListings).toBe(0);
    expect((await seller.get(`/api/products/${productId}`)).body).toEqual(body);
    expect((await seller.get('/api/dashboard')).body.products).toBe(1);
  });

  it('refuses a SKU the seller already uses, naming it, and a SKU twice in one product', async () => {
    const taken = await seller.post('/api/products', { name: 'Copy', variants: [{ name: 'A', sku: 'CUBE-ONE', parts: [{ printConfigId: plaId, quantity: 1 }] }] });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toContain('CUBE-ONE');
    expect(taken.body.error).toContain('Desk cube set');
    const twice = await seller.post('/api/products', {
      name: 'Twice',
      variants: [
        { name: 'A', sku: 'DUP', parts: [{ printConfigId: plaId, quantity: 1 }] },
        { name: 'B', sku: 'DUP', parts: [{ printConfigId: plaId, quantity: 1 }] },
      ],
    });
    expect(twice.status).toBe(409);
    expect(twice.body.error).toContain('DUP');
    // Another seller may use the same SKU.
    const elsewhere = await other.post('/api/products', { name: 'Theirs', variants: [{ name: 'A', sku: 'CUBE-ONE', parts: [{ printConfigId: othersConfigId, quantity: 1 }] }] });
    expect(elsewhere.status).toBe(201);
  });

  it('creates a SKU once when several requests race for it; the others get 409', async () => {
    const body = { name: 'Race', variants: [{ name: 'A', sku: 'RACE-1', parts: [{ printConfigId: plaId, quantity: 1 }] }] };
    const results = await Promise.all(Array.from({ length: 6 }, () => seller.post('/api/products', body)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    const winner = results.find((r) => r.status === 201)!;
    expect((await seller.delete(`/api/products/${winner.body.id}`)).status).toBe(204);
  });

  it('refuses a part printed from another seller’s configuration and writes nothing', async () => {
    const before = (await seller.get('/api/products')).body.total;
    const refused = await seller.post('/api/products', {
      name: 'Borrowed',
      variants: [{ name: 'A', sku: 'BORROWED', parts: [{ printConfigId: plaId, quantity: 1 }, { printConfigId: othersConfigId, quantity: 1 }] }],
    });
    expect(refused.status).toBe(404);
    expect(refused.body.error).toMatch(/Print configuration/);
    expect((await seller.get('/api/products')).body.total).toBe(before);
    expect(await t.context.db.select().from(productVariant).where(eq(productVariant.sku, 'BORROWED'))).toHaveLength(0);
    // Nor through an update.
    const update = await put(seller, `/api/products/${productId}`, {
      ...twoVariants('CUBE'),
      variants: [{ id: pairId, name: 'Pair', sku: 'CUBE-PAIR', parts: [{ printConfigId: othersConfigId, quantity: 1 }] }],
    });
    expect(update.status).toBe(404);
    expect((await seller.get(`/api/products/${productId}`)).body.variants).toHaveLength(2);
  });

  it('refuses unknown fields and bad input', async () => {
    const extra = await seller.post('/api/products', { ...twoVariants('X'), ownerId: other.userId });
    expect(extra.status).toBe(400);
    const noParts = await seller.post('/api/products', { name: 'Empty', variants: [{ name: 'A', sku: 'E', parts: [] }] });
    expect(noParts.status).toBe(400);
    const badSku = await seller.post('/api/products', { name: 'Bad', variants: [{ name: 'A', sku: 'has space', parts: [{ printConfigId: plaId, quantity: 1 }] }] });
    expect(badSku.status).toBe(400);
  });

  it('hides a seller’s product from another seller', async () => {
    expect((await other.get(`/api/products/${productId}`)).status).toBe(404);
    expect((await put(other, `/api/products/${productId}`, twoVariants('MINE'))).status).toBe(404);
    expect((await other.delete(`/api/products/${productId}`)).status).toBe(404);
    const list = (await other.get('/api/products')).body;
    expect(list.items.map((p: any) => p.id)).not.toContain(productId);
    expect(list.items.map((p: any) => p.name)).toEqual(['Theirs']);
    expect((await other.get(`/api/products?targetUserId=${seller.userId}`)).status).toBe(403);
    expect((await other.post(`/api/products?targetUserId=${seller.userId}`, twoVariants('ACT'))).status).toBe(403);
    expect((await seller.get(`/api/products/${productId}`)).body.name).toBe('Desk cube set');
  });

  it('lets an admin list a seller’s products and create one for them, audited', async () => {
    const list = await admin.get(`/api/products?targetUserId=${seller.userId}&search=cube-pair`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((p: any) => p.id)).toEqual([productId]);
    const created = await admin.post(`/api/products?targetUserId=${seller.userId}`, {
      name: 'Made by admin',
      variants: [{ name: 'One', sku: 'ADMIN-1', parts: [{ printConfigId: plaId, quantity: 3 }] }],
    });
    expect(created.status).toBe(201);
    expect(created.body.ownerId).toBe(seller.userId);
    expect(created.body.variants[0].unitCostUsd).toBe(cents(plaCost * 3));
    const audit = await t.context.audit.list(50);
    expect(audit).toContainEqual(
      expect.objectContaining({ actorId: admin.userId, targetUserId: seller.userId, action: 'product.created-for-user', detail: expect.objectContaining({ productId: created.body.id }) }),
    );
    expect((await seller.get('/api/products')).body.total).toBe(2);
  });

  it('keeps the ids of the variants sent back, and links listings again by SKU after the change', async () => {
    const [shop] = await t.context.db
      .insert(shopConnection)
      .values({ ownerId: seller.userId, platform: 'sandbox', externalShopId: `shop-${seller.userId}`, name: 'Sandbox' })
      .returning();
    await t.context.db.insert(listing).values([
      { shopId: shop!.id, ownerId: seller.userId, externalListingId: 'L1', title: 'Pair listing', sku: 'CUBE-PAIR', linkedVariantId: pairId, linkSource: 'sku' },
      { shopId: shop!.id, ownerId: seller.userId, externalListingId: 'L2', title: 'Single listing', sku: 'CUBE-ONE', linkedVariantId: singleId, linkSource: 'sku' },
    ]);
    const before = (await seller.get(`/api/products/${productId}`)).body;
    expect(before.variants.map((v: any) => v.linkedListings)).toEqual([1, 1]);

    const { status, body } = await put(seller, `/api/products/${productId}`, {
      name: 'Desk cube set v2',
      description: '',
      variants: [
        { id: pairId, name: 'Pair (renamed)', sku: 'CUBE-PAIR-2', packaging: 'kit', parts: [{ printConfigId: petgId, quantity: 2 }] },
        { name: 'Triple', sku: 'CUBE-ONE', parts: [{ printConfigId: plaId, quantity: 3 }] },
      ],
    });
    expect(status).toBe(200);
    expect(body.name).toBe('Desk cube set v2');
    expect(body.variants).toHaveLength(2);
    const pair = body.variants.find((v: any) => v.id === pairId);
    // Links made by SKU follow the SKU: L1 (CUBE-PAIR) no longer matches the renamed variant, and
    // L2 (CUBE-ONE) moves from the removed variant to the new one that has its SKU.
    expect(pair).toMatchObject({ name: 'Pair (renamed)', sku: 'CUBE-PAIR-2', packaging: 'kit', linkedListings: 0, unitCostUsd: cents(petgCost * 2) });
    const triple = body.variants.find((v: any) => v.sku === 'CUBE-ONE');
    expect(triple.id).not.toBe(singleId);
    expect(triple.linkedListings).toBe(1);
    const rows = await t.context.db.select().from(listing).where(eq(listing.ownerId, seller.userId));
    expect(rows.find((r) => r.externalListingId === 'L1')?.linkedVariantId).toBeNull();
    expect(rows.find((r) => r.externalListingId === 'L2')?.linkedVariantId).toBe(triple.id);

    // Two kept variants may swap their SKUs in one update.
    const swapped = await put(seller, `/api/products/${productId}`, {
      name: 'Desk cube set v2',
      variants: body.variants.map((v: any) => ({
        id: v.id,
        name: v.name,
        sku: v.sku === 'CUBE-ONE' ? 'CUBE-PAIR-2' : 'CUBE-ONE',
        parts: v.parts.map((p: any) => ({ printConfigId: p.printConfigId, quantity: p.quantity })),
      })),
    });
    expect(swapped.status).toBe(200);
    expect(swapped.body.variants.find((v: any) => v.id === pairId).sku).toBe('CUBE-ONE');

    // A variant id of another product is refused.
    const foreign = await put(seller, `/api/products/${productId}`, {
      name: 'x',
      variants: [{ id: '00000000-0000-4000-8000-000000000000', name: 'A', sku: 'Z', parts: [{ printConfigId: plaId, quantity: 1 }] }],
    });
    expect(foreign.status).toBe(400);
  });

  it('finds the seller’s variants by SKU for order matching', async () => {
    const found = await t.context.products.findVariantsBySkus(seller.userId, [' CUBE-ONE ', 'ADMIN-1', 'NOPE', '']);
    expect([...found.keys()].sort()).toEqual(['ADMIN-1', 'CUBE-ONE']);
    expect(found.get('CUBE-ONE')).toEqual({ variantId: pairId, productName: 'Desk cube set v2', variantName: 'Pair (renamed)' });
    expect((await t.context.products.findVariantsBySkus(other.userId, ['ADMIN-1'])).size).toBe(0);
  });

  it('names the products that use a design or a configuration', async () => {
    expect(await t.context.products.productsUsing({ printConfigId: petgId })).toEqual(['Desk cube set v2']);
    expect(await t.context.products.productsUsing({ printConfigId: othersConfigId })).toEqual(['Theirs']);
    const design = (await seller.get('/api/designs')).body.items[0];
    expect(await t.context.products.productsUsing({ designId: design.id })).toEqual(['Desk cube set v2', 'Made by admin']);
  });

  it('refuses to delete a design or configuration a product prints, naming the product', async () => {
    const design = (await seller.get('/api/designs')).body.items[0];
    const refused = await seller.delete(`/api/designs/${design.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain('“Desk cube set v2”');
    const config = await seller.delete(`/api/print-configs/${petgId}`);
    expect(config.status).toBe(409);
    expect(config.body.error).toContain('“Desk cube set v2”');
    expect((await seller.get(`/api/designs/${design.id}`)).status).toBe(200);
  });

  it('deletes a product; its listings become unlinked', async () => {
    expect((await seller.delete(`/api/products/${productId}`)).status).toBe(204);
    expect((await seller.get(`/api/products/${productId}`)).status).toBe(404);
    expect((await seller.delete(`/api/products/${productId}`)).status).toBe(404);
    const rows = await t.context.db.select().from(listing).where(eq(listing.ownerId, seller.userId));
    expect(rows.every((r) => r.linkedVariantId === null)).toBe(true);
    expect((await seller.get('/api/products')).body.total).toBe(1);
  });
});

describe('products and orders', () => {
  it('releases orders held for a SKU once a product has it', async () => {
    const held = await t.context.orderIngestion.ingest({
      ownerId: seller.userId,
      channel: `manual:${seller.userId}`,
      shopId: null,
      platform: 'manual',
      order: marketplaceOrder('HELD-1', ['LATE-SKU']),
      actor: { kind: 'system', id: null },
    });
    expect((await seller.get(`/api/orders/${held.orderId}`)).body.status).toBe('on_hold');
    const created = await seller.post('/api/products', {
      name: 'Late product',
      variants: [{ name: 'One', sku: 'LATE-SKU', parts: [{ printConfigId: plaId, quantity: 1 }] }],
    });
    expect(created.status).toBe(201);
    const released = (await seller.get(`/api/orders/${held.orderId}`)).body;
    expect(released.status).toBe('accepted');
    expect(released.events.at(-1)).toMatchObject({ fromStatus: 'on_hold', toStatus: 'accepted' });
  });
});
