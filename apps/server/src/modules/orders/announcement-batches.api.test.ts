import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { boxStl } from '../../../test/hostile-models.ts';
import { product as productTable, productVariant } from '../../db/schema.ts';

/**
 * New orders are announced in batches, and the print farm listens a batch at a time: the parts of
 * every accepted order of a batch are read in one query (not one per ingested order), and each order
 * still gets exactly the jobs it needs. Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */

const ADDRESS = { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' };

let t: TestApp;
let seller: SignedInClient;
/** The print configuration of the seller's 20 mm box. */
let boxConfig: string;

beforeAll(async () => {
  t = await startTestApp({ FARM_TICK_S: '300', FARM_AUTOPILOT: 'false' });
  seller = await t.signUp({ role: 'beta' });
  const form = new FormData();
  form.append('file', new Blob([boxStl(20, 20, 20)]), 'box.stl');
  const uploaded = await fetch(new URL('/api/designs', seller.baseUrl), {
    method: 'POST',
    headers: { cookie: seller.cookieHeader(), origin: seller.baseUrl },
    body: form,
  });
  expect(uploaded.status).toBe(201);
  const design = (await uploaded.json()) as { printConfigs: { id: string }[] };
  boxConfig = design.printConfigs[0]!.id;
  const product = await seller.post('/api/products', {
    name: 'Batch set',
    variants: [{ name: 'Printed', sku: 'PRINTED', parts: [{ printConfigId: boxConfig, quantity: 2 }] }],
  });
  expect(product.status).toBe(201);
  // A variant with no printed parts (as the orders benchmark's): written directly, the API wants parts.
  const [bought] = await t.context.db.insert(productTable).values({ ownerId: seller.userId, name: 'Bought in' }).returning({ id: productTable.id });
  await t.context.db.insert(productVariant).values({ productId: bought!.id, ownerId: seller.userId, name: 'Default', sku: 'BOUGHT-IN' });
}, 120_000);
afterAll(async () => t?.close());

const ingest = (sku: string) =>
  t.context.orderIngestion.ingest({
    ownerId: seller.userId,
    channel: `api:${seller.userId}`,
    shopId: null,
    platform: 'api',
    order: {
      externalId: `FARM-${randomUUID()}`,
      note: '',
      placedAt: new Date(),
      customerName: ADDRESS.name,
      shippingAddress: { company: '', line2: '', region: '', phone: '', email: '', ...ADDRESS },
      currency: 'USD',
      totalCents: null,
      cancelled: false,
      items: [{ externalItemId: '1', sku, title: '', quantity: 1, unitPriceCents: null }],
    },
    actor: { kind: 'user', id: seller.userId },
  });

describe('the print farm hears new orders a batch at a time', () => {
  it('reads the parts of a batch of accepted orders in one query, and makes each order its jobs', async () => {
    const batchRead = vi.spyOn(t.context.printJobs, 'partsOfOrders');
    const singleRead = vi.spyOn(t.context.printJobs, 'partsOfOrder');
    try {
      const orders = await Promise.all(Array.from({ length: 12 }, (_, i) => ingest(i % 3 === 0 ? 'PRINTED' : 'BOUGHT-IN')));
      await t.context.orders.announcementsSettled();
      const readFor = batchRead.mock.calls.flatMap(([ids]) => ids);
      // Every order was read once, in fewer reads than orders (they were announced together).
      expect([...readFor].sort()).toEqual(orders.map((o) => o.orderId).sort());
      expect(batchRead.mock.calls.length).toBeLessThan(orders.length);
      expect(singleRead).not.toHaveBeenCalled();
      for (const [i, placed] of orders.entries()) {
        const jobs = await t.context.printJobs.ofOrder(placed.orderId);
        expect(jobs).toHaveLength(i % 3 === 0 ? 2 : 0);
      }
    } finally {
      batchRead.mockRestore();
      singleRead.mockRestore();
    }
  });

  it('still hears a single status change (an order released from hold gets its jobs)', async () => {
    const held = await ingest('NOT-YET-A-VARIANT');
    await t.context.orders.announcementsSettled();
    expect(await t.context.printJobs.ofOrder(held.orderId)).toHaveLength(0);
    // The seller adds the SKU to a printed variant: the order is released and announced on its own.
    const product = await seller.post('/api/products', {
      name: 'Late product',
      variants: [{ name: 'Late', sku: 'NOT-YET-A-VARIANT', parts: [{ printConfigId: boxConfig, quantity: 1 }] }],
    });
    expect(product.status).toBe(201);
    await t.context.orders.announcementsSettled();
    expect((await seller.get(`/api/orders/${held.orderId}`)).body.status).toBe('accepted');
    expect(await t.context.printJobs.ofOrder(held.orderId)).toHaveLength(1);
  });
});
