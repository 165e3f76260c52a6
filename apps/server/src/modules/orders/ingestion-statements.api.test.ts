import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { product, productVariant } from '../../db/schema.ts';

/**
 * Most orders name only the seller's own variants: ingestion then matches their SKUs inside the
 * statement that stores the order (no lookup of its own), and falls back to the full matching
 * (variants, then listings linked by hand) when a SKU is not one of them. Both paths store the same
 * order. Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */

const ADDRESS = { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' };

let t: TestApp;
let seller: SignedInClient;
const variantIds = new Map<string, string>();

beforeAll(async () => {
  t = await startTestApp();
  seller = await t.signUp({ role: 'beta' });
  const [p] = await t.context.db.insert(product).values({ ownerId: seller.userId, name: 'Vase' }).returning({ id: product.id });
  for (const sku of ['VASE-S', 'VASE-L']) {
    const [v] = await t.context.db.insert(productVariant).values({ productId: p!.id, ownerId: seller.userId, name: sku.slice(5), sku }).returning({ id: productVariant.id });
    variantIds.set(sku, v!.id);
  }
  // Another seller's variant with a SKU this seller does not have.
  const other = await t.signUp({ role: 'beta' });
  const [q] = await t.context.db.insert(product).values({ ownerId: other.userId, name: 'Theirs' }).returning({ id: product.id });
  await t.context.db.insert(productVariant).values({ productId: q!.id, ownerId: other.userId, name: 'X', sku: 'THEIRS' });
}, 120_000);
afterAll(async () => t?.close());

const ingest = (items: { sku: string; quantity: number }[], options: { externalId?: string; cancelled?: boolean } = {}) =>
  t.context.orderIngestion.ingest({
    ownerId: seller.userId,
    channel: `api:${seller.userId}`,
    shopId: null,
    platform: 'api',
    order: {
      externalId: options.externalId ?? `ING-${randomUUID()}`,
      note: '',
      placedAt: new Date(),
      customerName: ADDRESS.name,
      shippingAddress: { company: '', line2: '', region: '', phone: '', email: '', ...ADDRESS },
      currency: 'USD',
      totalCents: null,
      cancelled: options.cancelled ?? false,
      items: items.map((item, i) => ({ externalItemId: String(i + 1), sku: item.sku, title: '', quantity: item.quantity, unitPriceCents: null })),
    },
    actor: { kind: 'user', id: seller.userId },
  });

const read = (orderId: string) => t.context.orders.get({ id: seller.userId, isAdmin: false }, orderId);

describe('ingestion matches SKUs in the statement that stores the order', () => {
  it('stores an order of the seller’s variants without a lookup of its own, with each item’s variant', async () => {
    const lookup = vi.spyOn(t.context.products, 'findVariantsBySkus');
    try {
      const result = await ingest([{ sku: 'VASE-L', quantity: 2 }, { sku: 'VASE-S', quantity: 1 }, { sku: 'VASE-L', quantity: 1 }]);
      expect(lookup).not.toHaveBeenCalled();
      expect(result.created).toBe(true);
      const order = await read(result.orderId);
      expect(order.status).toBe('accepted');
      expect(order.events.map((e) => [e.toStatus, e.reason])).toEqual([
        ['received', 'Received from api'],
        ['accepted', 'Every SKU matches a product variant'],
      ]);
      // Two lines of one SKU are listed by their random ids: compared in a fixed order.
      const bySkuAndQuantity = (a: unknown[], b: unknown[]) => String(a[0]).localeCompare(String(b[0])) || Number(a[1]) - Number(b[1]);
      expect(order.items.map((i) => [i.sku, i.quantity, i.variantId, i.productName]).sort(bySkuAndQuantity)).toEqual([
        ['VASE-L', 1, variantIds.get('VASE-L'), 'Vase — L'],
        ['VASE-L', 2, variantIds.get('VASE-L'), 'Vase — L'],
        ['VASE-S', 1, variantIds.get('VASE-S'), 'Vase — S'],
      ]);
    } finally {
      lookup.mockRestore();
    }
  });

  it('answers from what it stored, as a read gives it back', async () => {
    const result = await ingest([{ sku: 'VASE-S', quantity: 3 }]);
    expect(result.stored).toBeDefined();
    const order = await read(result.orderId);
    expect(result.stored!.items).toEqual(order.items.map((i) => ({ sku: i.sku, quantity: i.quantity, variantId: i.variantId, productName: i.productName })));
    expect(result.stored!.status).toBe(order.status);
    expect(result.stored!.createdAt.toISOString()).toBe(order.createdAt);
  });

  it('falls back to the full matching when a SKU is not one of the seller’s variants (another seller’s is not)', async () => {
    const lookup = vi.spyOn(t.context.products, 'findVariantsBySkus');
    try {
      const result = await ingest([{ sku: 'VASE-S', quantity: 1 }, { sku: 'THEIRS', quantity: 1 }]);
      expect(lookup).toHaveBeenCalledTimes(1);
      const order = await read(result.orderId);
      expect(order.status).toBe('on_hold');
      expect(order.holdReason).toContain('THEIRS');
      expect(order.items.map((i) => [i.sku, i.variantId])).toEqual([
        ['THEIRS', null],
        ['VASE-S', variantIds.get('VASE-S')],
      ]);
    } finally {
      lookup.mockRestore();
    }
  });

  it('stores an order that arrives cancelled with the three events, and a repeat stores nothing', async () => {
    const externalId = `ING-${randomUUID()}`;
    const first = await ingest([{ sku: 'VASE-S', quantity: 1 }], { externalId, cancelled: true });
    const order = await read(first.orderId);
    expect(order.status).toBe('cancelled');
    expect(order.events.map((e) => e.toStatus)).toEqual(['received', 'accepted', 'cancelled']);
    const repeats = await Promise.all([1, 2, 3].map(() => ingest([{ sku: 'VASE-L', quantity: 5 }], { externalId })));
    expect(repeats.every((r) => r.orderId === first.orderId && !r.created && r.stored === undefined)).toBe(true);
    expect((await read(first.orderId)).items.map((i) => i.sku)).toEqual(['VASE-S']);
  });
});
