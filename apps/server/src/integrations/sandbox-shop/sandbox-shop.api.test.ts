import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { order } from '../../db/schema.ts';

/** The sandbox shop through the real server: simulated orders under concurrency, and their times. */

let t: TestApp;
let seller: SignedInClient;

beforeAll(async () => {
  t = await startTestApp();
  seller = await t.signUp({ role: 'beta', name: 'Sandbox Seller' });
});
afterAll(async () => {
  await t?.close();
});

describe('sandbox simulations', () => {
  it('30 concurrent simulations make 30 orders: each 201 names a real, distinct order, placed no later than now', async () => {
    const connected = await seller.post('/api/shops/sandbox/connect', {});
    expect(connected.status).toBe(200);
    const shopId = connected.body.shop.id as string;

    const before = Date.now();
    const answers = await Promise.all(Array.from({ length: 30 }, () => seller.post(`/api/shops/${shopId}/sandbox/simulate-order`, {})));
    const after = Date.now();
    expect(answers.map((a) => a.status)).toEqual(Array(30).fill(201));
    expect(answers.every((a) => a.body.created === true)).toBe(true);
    const ids = answers.map((a) => a.body.orderId as string);
    expect(new Set(ids).size).toBe(30);

    const rows = await t.context.db.select({ id: order.id, externalId: order.externalId, placedAt: order.placedAt }).from(order).where(inArray(order.id, ids));
    expect(rows).toHaveLength(30);
    expect(new Set(rows.map((r) => r.externalId)).size).toBe(30);
    for (const row of rows) {
      expect(row.externalId).toMatch(/^SBX-SIM-\d+-[A-Za-z0-9_-]{8}$/);
      expect(row.placedAt!.getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(row.placedAt!.getTime()).toBeLessThanOrEqual(after);
    }
    const all = await t.context.db.select({ id: order.id }).from(order).where(eq(order.shopId, shopId));
    expect(all.length).toBeGreaterThanOrEqual(30);
  });

  it('a sync right after connecting brings orders placed in the past, not a minute ahead', async () => {
    const other = await t.signUp({ role: 'beta', name: 'Fresh Sandbox' });
    const connected = await other.post('/api/shops/sandbox/connect', {});
    const shopId = connected.body.shop.id as string;
    for (let i = 0; i < 3; i++) expect((await other.post(`/api/shops/${shopId}/sync`, {})).status).toBeLessThan(300);
    const now = Date.now();
    const rows = await t.context.db.select({ externalId: order.externalId, placedAt: order.placedAt }).from(order).where(eq(order.shopId, shopId));
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.placedAt!.getTime(), row.externalId).toBeLessThanOrEqual(now);
  });
});
