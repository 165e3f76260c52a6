import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, count, eq, inArray, isNull, like, sql } from 'drizzle-orm';
import { order, orderEvent, orderItem, orderOutbox, webhookDelivery, webhookEndpoint } from '../../db/schema.ts';
import { sweepOrderOutbox } from '../../jobs/order-outbox-jobs.ts';
import type { OrderStatusChangeEvent } from './order-service.ts';
import { createOrderRepository, type OrderListFilter, type OrderSummaryRow } from './order-repository.ts';
import { addVariants, marketplaceOrder } from '../../../test/orders-fixtures.ts';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';

let t: TestApp;
let seller: SignedInClient;
let other: SignedInClient;
let admin: SignedInClient;

beforeAll(async () => {
  t = await startTestApp();
  seller = await t.signUp({ role: 'beta', name: 'Order Seller' });
  other = await t.signUp({ role: 'beta', name: 'Other Seller' });
  admin = await t.signUp({ role: 'admin' });
  await addVariants(t.context, seller.userId, ['LL-VASE-TWIST', 'LL-PLANTER-S']);
});

afterAll(async () => {
  await t?.close();
});

const ingest = (ownerId: string, externalId: string, skus: string[], extra = {}) =>
  t.context.orderIngestion.ingest({
    ownerId,
    channel: `test:${ownerId}`,
    shopId: null,
    platform: 'api',
    order: marketplaceOrder(externalId, skus, extra),
    actor: { kind: 'marketplace', id: null },
  });

describe('order ingestion', () => {
  it('is idempotent under concurrent deliveries: every order stored once, no errors', async () => {
    // 1,000 orders × 10 deliveries at once on PostgreSQL; 100 × 10 on PGlite (one embedded
    // connection serialises every statement: 10,000 deliveries took ~36 s there; ORDERS_LOAD=1000 runs it).
    const orders = Number(process.env.ORDERS_LOAD ?? (t.databaseKind === 'postgres' ? 1000 : 100));
    const channel = `load:${seller.userId}`;
    const statuses: string[] = [];
    t.context.orders.onStatusChange(async (event) => {
      if (event.channel === channel) statuses.push(event.to);
    });
    const deliveries = [];
    for (let i = 0; i < orders; i++) {
      const o = marketplaceOrder(`LOAD-${i}`, i % 2 ? ['LL-VASE-TWIST'] : ['LL-VASE-TWIST', 'LL-PLANTER-S']);
      for (let d = 0; d < 10; d++) {
        deliveries.push(
          t.context.orderIngestion.ingest({
            ownerId: seller.userId,
            channel,
            shopId: null,
            platform: 'api',
            order: o,
            actor: { kind: 'marketplace', id: null },
          }),
        );
      }
    }
    const results = await Promise.allSettled(deliveries);
    await t.context.orders.announcementsSettled();
    const rejected = results.filter((r) => r.status === 'rejected');
    expect(rejected.map((r) => String((r as PromiseRejectedResult).reason)).slice(0, 3)).toEqual([]);
    const fulfilled = results.map(
      (r) => (r as PromiseFulfilledResult<{ orderId: string; created: boolean }>).value,
    );
    expect(fulfilled.filter((r) => r.created)).toHaveLength(orders);
    expect(new Set(fulfilled.map((r) => r.orderId)).size).toBe(orders);

    const [stored] = await t.context.db.select({ n: count() }).from(order).where(eq(order.channel, channel));
    expect(stored!.n).toBe(orders);
    const ids = (
      await t.context.db.select({ id: order.id }).from(order).where(eq(order.channel, channel))
    ).map((r) => r.id);
    const [items] = await t.context.db
      .select({ n: count() })
      .from(orderItem)
      .where(inArray(orderItem.orderId, ids));
    expect(items!.n).toBe(orders * 1.5);
    const [events] = await t.context.db
      .select({ n: count() })
      .from(orderEvent)
      .where(inArray(orderEvent.orderId, ids));
    expect(events!.n).toBe(orders * 2);
    // One "created" notification per order, none for the duplicates.
    expect(statuses).toHaveLength(orders);
    expect(new Set(statuses)).toEqual(new Set(['accepted']));
  }, 60_000);

  it('puts an order with an unknown SKU on hold with the reason, and linking releases it', async () => {
    const { orderId, created } = await ingest(seller.userId, 'HOLD-1', ['LL-VASE-TWIST', 'LL-UNKNOWN-1']);
    expect(created).toBe(true);
    const held = await seller.get(`/api/orders/${orderId}`);
    expect(held.status).toBe(200);
    expect(held.body.status).toBe('on_hold');
    expect(held.body.holdReason).toContain('LL-UNKNOWN-1');
    expect(held.body.events.map((e: any) => [e.fromStatus, e.toStatus])).toEqual([
      [null, 'received'],
      ['received', 'on_hold'],
    ]);
    expect(held.body.items.find((i: any) => i.sku === 'LL-VASE-TWIST').productName).toContain('Test product');

    // The SKU now exists on a variant: re-matching releases the order.
    await addVariants(t.context, seller.userId, ['LL-UNKNOWN-1'], 'Late product');
    expect(await t.context.orders.rematchOnHold(seller.userId)).toBe(1);
    const released = await seller.get(`/api/orders/${orderId}`);
    expect(released.body.status).toBe('accepted');
    expect(released.body.holdReason).toBeNull();
    expect(released.body.events.at(-1)).toMatchObject({
      fromStatus: 'on_hold',
      toStatus: 'accepted',
      actorKind: 'system',
    });
  });

  it('cancels an order when the marketplace delivers it again as cancelled, once', async () => {
    const first = await ingest(seller.userId, 'CANCEL-1', ['LL-VASE-TWIST']);
    const again = await Promise.all(
      Array.from({ length: 5 }, () =>
        ingest(seller.userId, 'CANCEL-1', ['LL-VASE-TWIST'], { cancelled: true }),
      ),
    );
    expect(again.every((r) => r.orderId === first.orderId && !r.created)).toBe(true);
    const body = (await seller.get(`/api/orders/${first.orderId}`)).body;
    expect(body.status).toBe('cancelled');
    expect(body.events.filter((e: any) => e.toStatus === 'cancelled')).toHaveLength(1);
  });
});

describe('order routes', () => {
  let orderId: string;
  beforeAll(async () => {
    orderId = (await ingest(seller.userId, 'ROUTE-1', ['LL-PLANTER-S'])).orderId;
  });

  it('lists the seller’s own orders with filters and paging', async () => {
    const list = await seller.get('/api/orders?search=ROUTE-1');
    expect(list.status).toBe(200);
    expect(list.body.items.map((o: any) => o.externalId)).toEqual(['ROUTE-1']);
    expect(list.body.items[0]).toMatchObject({ status: 'accepted', itemCount: 1 });
    const held = await seller.get('/api/orders?status=on_hold&limit=5');
    expect(held.body.items.every((o: any) => o.status === 'on_hold')).toBe(true);
    const dated = await seller.get('/api/orders?from=2025-03-01&to=2025-03-01&search=ROUTE');
    expect(dated.body.items.map((o: any) => o.externalId)).toEqual(['ROUTE-1']);
    expect(dated.body.nextCursor).toBeNull();
    const none = await seller.get('/api/orders?from=2025-03-02&search=ROUTE');
    expect(none.body).toEqual({ items: [], nextCursor: null });
    expect((await seller.get('/api/orders?from=yesterday')).status).toBe(400);
    expect((await seller.get('/api/orders?bogus=1')).status).toBe(400);
  });

  it('answers 404 for another seller’s order and refuses targetUserId to non-admins', async () => {
    expect((await other.get(`/api/orders/${orderId}`)).status).toBe(404);
    expect((await other.post(`/api/orders/${orderId}/status`, { to: 'cancelled' })).status).toBe(404);
    expect((await other.get(`/api/orders?targetUserId=${seller.userId}`)).status).toBe(403);
    expect((await other.get('/api/admin/orders')).status).toBe(403);
    expect((await t.client().get('/api/orders')).status).toBe(401);
    const otherList = await other.get('/api/orders');
    expect(otherList.body.items.some((o: any) => o.id === orderId)).toBe(false);
    // Admins see any seller's orders.
    expect((await admin.get(`/api/orders/${orderId}`)).status).toBe(200);
    const forSeller = await admin.get(`/api/orders?targetUserId=${seller.userId}&search=ROUTE-1`);
    expect(forSeller.body.items).toHaveLength(1);
    const all = await admin.get('/api/admin/orders?search=ROUTE-1');
    expect(all.body.items[0]).toMatchObject({ id: orderId, ownerEmail: seller.email });
  });

  it('walks the lifecycle: admins move orders forward, sellers may only cancel before production', async () => {
    expect((await seller.post(`/api/orders/${orderId}/status`, { to: 'in_production' })).status).toBe(403);
    const produced = await admin.post(`/api/orders/${orderId}/status`, {
      to: 'in_production',
      reason: 'Queued on printer 3',
    });
    expect(produced.status).toBe(200);
    expect(produced.body.events.at(-1)).toMatchObject({
      fromStatus: 'accepted',
      toStatus: 'in_production',
      actorKind: 'admin',
      actorEmail: admin.email,
      reason: 'Queued on printer 3',
    });
    // Not allowed by the lifecycle: 409 with a readable message; nothing recorded.
    const skip = await admin.post(`/api/orders/${orderId}/status`, { to: 'shipped' });
    expect(skip.status).toBe(409);
    expect(skip.body.error).toMatch(/in production cannot become shipped/);
    // The seller can no longer cancel it.
    expect((await seller.post(`/api/orders/${orderId}/status`, { to: 'cancelled' })).status).toBe(409);
    const after = await seller.get(`/api/orders/${orderId}`);
    expect(after.body.status).toBe('in_production');
    expect(after.body.events).toHaveLength(3);

    const mine = (await ingest(seller.userId, 'ROUTE-2', ['LL-PLANTER-S'])).orderId;
    const cancelled = await seller.post(`/api/orders/${mine}/status`, {
      to: 'cancelled',
      reason: 'Buyer changed their mind',
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.events.at(-1)).toMatchObject({
      toStatus: 'cancelled',
      actorKind: 'user',
      actorEmail: seller.email,
    });
    expect((await admin.post(`/api/orders/${mine}/status`, { to: 'accepted' })).status).toBe(409);
    expect((await admin.post(`/api/orders/${mine}/status`, { to: 'lost' })).status).toBe(400);
  });

  it('updateEtsyMetaStatus finds the seller’s Etsy order by receipt id; admins only for others', async () => {
    const { orderId: etsyOrder } = await t.context.orderIngestion.ingest({
      ownerId: seller.userId,
      channel: `etsy-test:${seller.userId}`,
      shopId: null,
      platform: 'etsy',
      order: marketplaceOrder('3141592653', ['LL-VASE-TWIST']),
      actor: { kind: 'marketplace', id: null },
    });
    expect(
      (await other.post('/api/etsy/meta-status', { receiptId: '3141592653', newStatus: 'cancelled' })).status,
    ).toBe(404);
    expect(
      (
        await other.post('/api/etsy/meta-status', {
          targetUserId: seller.userId,
          receiptId: '3141592653',
          newStatus: 'cancelled',
        })
      ).status,
    ).toBe(403);
    const moved = await admin.post('/api/etsy/meta-status', {
      targetUserId: seller.userId,
      receiptId: '3141592653',
      newStatus: 'in_production',
    });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: etsyOrder, status: 'in_production' });
    const audit = await t.context.audit.list(20);
    expect(
      audit.find(
        (a) => a.action === 'order.status' && a.actorId === admin.userId && a.targetUserId === seller.userId,
      ),
    ).toBeTruthy();
  });

  it('getMakerforgeOrders lists the seller’s orders (refresh syncs shops first)', async () => {
    const response = await seller.get('/api/makerforge/orders?refresh=true&search=ROUTE');
    expect(response.status).toBe(200);
    expect(response.body.items).toHaveLength(2);
    expect(response.body.nextCursor).toBeNull();
  });
});

describe('announcing status changes (transactional outbox)', () => {
  const asAdmin = () => ({ id: admin.userId, isAdmin: true });
  const heard: OrderStatusChangeEvent[] = [];
  let failing = false;
  beforeAll(() => {
    t.context.orders.onStatusChange(async (event) => {
      if (!event.channel.startsWith('outbox:')) return;
      heard.push(event);
      if (failing) throw new Error('subscriber down');
    });
  });
  /** A new order, once its creation has been announced (the background drain, right after ingestion). */
  const ingestOutbox = async (externalId: string) => {
    const result = await t.context.orderIngestion.ingest({
      ownerId: seller.userId,
      channel: `outbox:${seller.userId}`,
      shopId: null,
      platform: 'api',
      order: marketplaceOrder(externalId, ['LL-VASE-TWIST']),
      actor: { kind: 'marketplace', id: null },
    });
    await t.context.orders.announcementsSettled();
    return result;
  };
  const outboxOf = (orderId: string) => t.context.db.select().from(orderOutbox).where(eq(orderOutbox.orderId, orderId));

  it('writes each change with its announcement and marks it announced once every subscriber heard it', async () => {
    const { orderId } = await ingestOutbox('OUTBOX-1');
    await t.context.orders.changeStatus(asAdmin(), orderId, 'in_production', '');
    const rows = await outboxOf(orderId);
    expect(rows.map((r) => [r.fromStatus, r.toStatus])).toEqual(
      expect.arrayContaining([
        [null, 'accepted'],
        ['accepted', 'in_production'],
      ]),
    );
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.announcedAt !== null)).toBe(true);
    const mine = heard.filter((e) => e.orderId === orderId);
    expect(mine.map((e) => e.announcementId).sort()).toEqual(rows.map((r) => r.id).sort());
  });

  it('answers ingestion before a slow subscriber has heard of the new order, then announces it and marks it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow: string[] = [];
    t.context.orders.onStatusChange(async (event) => {
      if (!event.channel.startsWith('slow:')) return;
      await gate;
      slow.push(event.orderId);
    });
    const ingested = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        t.context.orderIngestion.ingest({
          ownerId: seller.userId,
          channel: `slow:${seller.userId}`,
          shopId: null,
          platform: 'api',
          order: marketplaceOrder(`SLOW-${i}`, ['LL-VASE-TWIST']),
          actor: { kind: 'marketplace', id: null },
        }),
      ),
    );
    // Every order is stored and answered while the subscriber is still waiting.
    expect(ingested.every((r) => r.created)).toBe(true);
    expect(slow).toEqual([]);
    const ids = ingested.map((r) => r.orderId);
    const waiting = await t.context.db.select().from(orderOutbox).where(inArray(orderOutbox.orderId, ids));
    expect(waiting).toHaveLength(30);
    expect(waiting.every((r) => r.announcedAt === null)).toBe(true);
    release();
    await t.context.orders.announcementsSettled();
    expect(new Set(slow)).toEqual(new Set(ids));
    expect(slow).toHaveLength(30);
    const marked = await t.context.db.select().from(orderOutbox).where(inArray(orderOutbox.orderId, ids));
    expect(marked.every((r) => r.announcedAt !== null)).toBe(true);
  });

  it('records one webhook delivery and one job per new order of a batch, and none again when announced twice', async () => {
    const owner = await t.signUp({ role: 'beta', name: 'Batch Seller' });
    await addVariants(t.context, owner.userId, ['LL-BATCH']);
    // An endpoint row as the settings page stores it (no delivery is expected to succeed here).
    await t.context.db.insert(webhookEndpoint).values({ ownerId: owner.userId, url: 'https://hooks.example.test/layerline', secretEnc: 'unused' });
    const ingested = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        t.context.orderIngestion.ingest({
          ownerId: owner.userId,
          channel: `batch:${owner.userId}`,
          shopId: null,
          platform: 'api',
          order: marketplaceOrder(`BATCH-${i}`, ['LL-BATCH']),
          actor: { kind: 'marketplace', id: null },
        }),
      ),
    );
    await t.context.orders.announcementsSettled();
    const ids = ingested.map((r) => r.orderId);
    const deliveries = async () => t.context.db.select().from(webhookDelivery).where(inArray(webhookDelivery.orderId, ids));
    const jobs = async (deliveryIds: string[]) =>
      ((await t.context.db.execute(sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'webhook-delivery' AND data->>'deliveryId' IN (${sql.join(deliveryIds.map((id) => sql`${id}`), sql`, `)})`)) as unknown as { rows: { n: number }[] }).rows[0]!.n;
    const first = await deliveries();
    expect(first).toHaveLength(40);
    expect(new Set(first.map((d) => d.orderId))).toEqual(new Set(ids));
    expect(first.every((d) => d.fromStatus === null && d.toStatus === 'accepted')).toBe(true);
    const deliveryIds = first.map((d) => d.id);
    expect(await jobs(deliveryIds)).toBe(40);
    // Announced again (as the sweep does after a crash): the same deliveries, no new job.
    await t.context.db.update(orderOutbox).set({ announcedAt: null }).where(inArray(orderOutbox.orderId, ids));
    await sweepOrderOutbox(t.context.orders, 0);
    expect((await deliveries()).map((d) => d.id).sort()).toEqual([...deliveryIds].sort());
    expect(await jobs(deliveryIds)).toBe(40);
    await t.context.db.delete(webhookEndpoint).where(eq(webhookEndpoint.ownerId, owner.userId));
  });

  it('leaves a change a subscriber failed on unannounced, and the sweep announces it again with the same id', async () => {
    const { orderId } = await ingestOutbox('OUTBOX-2');
    failing = true;
    try {
      // The change itself stands although a subscriber failed.
      expect((await t.context.orders.changeStatus(asAdmin(), orderId, 'cancelled', 'Test')).status).toBe('cancelled');
    } finally {
      failing = false;
    }
    const pending = (await outboxOf(orderId)).filter((r) => r.announcedAt === null);
    expect(pending.map((r) => r.toStatus)).toEqual(['cancelled']);
    const before = heard.filter((e) => e.orderId === orderId && e.to === 'cancelled').length;
    // Not yet overdue: a sweep leaves it to the path that is (maybe) still announcing it.
    await sweepOrderOutbox(t.context.orders);
    expect(heard.filter((e) => e.orderId === orderId && e.to === 'cancelled')).toHaveLength(before);
    await sweepOrderOutbox(t.context.orders, 0);
    const again = heard.filter((e) => e.orderId === orderId && e.to === 'cancelled');
    expect(again).toHaveLength(before + 1);
    expect(again.at(-1)!.announcementId).toBe(pending[0]!.id);
    expect((await outboxOf(orderId)).every((r) => r.announcedAt !== null)).toBe(true);
  });

  it('announces a change committed by a process that died before announcing it', async () => {
    const { orderId } = await ingestOutbox('OUTBOX-3');
    // What a crash right after the commit leaves behind: the change and its announcement, unannounced.
    await t.context.db.transaction(async (tx) => {
      await tx.update(order).set({ status: 'in_production' }).where(eq(order.id, orderId));
      await tx.insert(orderOutbox).values({ orderId, fromStatus: 'accepted', toStatus: 'in_production', createdAt: sql`now() - interval '2 minutes'` });
    });
    expect(heard.some((e) => e.orderId === orderId && e.to === 'in_production')).toBe(false);
    await sweepOrderOutbox(t.context.orders);
    expect(heard.filter((e) => e.orderId === orderId && e.to === 'in_production')).toMatchObject([
      { orderId, ownerId: seller.userId, channel: `outbox:${seller.userId}`, from: 'accepted', to: 'in_production' },
    ]);
    const [left] = await t.context.db
      .select({ n: count() })
      .from(orderOutbox)
      .where(and(eq(orderOutbox.orderId, orderId), isNull(orderOutbox.announcedAt)));
    expect(left!.n).toBe(0);
  });
});

/** Every page of a list, following nextCursor from the first. */
async function walk(client: SignedInClient, url: string): Promise<{ pages: any[][]; ids: string[] }> {
  const pages: any[][] = [];
  let cursor: string | null = null;
  do {
    const response: { status: number; body: any } = await client.get(`${url}${url.includes('?') ? '&' : '?'}${cursor ? `cursor=${cursor}` : ''}`);
    expect(response.status).toBe(200);
    pages.push(response.body.items);
    cursor = response.body.nextCursor;
  } while (cursor && pages.length < 1000);
  return { pages, ids: pages.flat().map((o: any) => o.id as string) };
}

describe('order lists: keyset (cursor) paging', () => {
  let pager: SignedInClient;
  const stored: { id: string; externalId: string; placedAt: string }[] = [];
  beforeAll(async () => {
    pager = await t.signUp({ role: 'beta', name: 'Paging Seller' });
    await addVariants(t.context, pager.userId, ['LL-PLAIN', 'ZQ-FIND-ME']);
    // 23 orders in 4 distinct placed-at instants, several sharing one down to the microsecond, so
    // only the id separates them; 2 of them on hold; one buyer and one SKU to search for.
    for (let i = 0; i < 23; i++) {
      const placedAt = new Date(Date.UTC(2025, 5, 1 + (i % 4), 9));
      const { orderId } = await t.context.orderIngestion.ingest({
        ownerId: pager.userId,
        channel: `paging:${pager.userId}`,
        shopId: null,
        platform: 'api',
        order: marketplaceOrder(`PG-${i}`, [i === 7 ? 'ZQ-FIND-ME' : 'LL-PLAIN'], {
          placedAt,
          customerName: i === 11 ? 'Ottilie Quasthoff' : 'Maya Thompson',
        }),
        actor: { kind: 'marketplace', id: null },
      });
      stored.push({ id: orderId, externalId: `PG-${i}`, placedAt: placedAt.toISOString() });
    }
  });

  it('pages through every order once, newest placed first, when many share a placed-at', async () => {
    const { pages, ids } = await walk(pager, '/api/orders?limit=5');
    expect(pages.map((p) => p.length)).toEqual([5, 5, 5, 5, 3]);
    expect(ids).toHaveLength(23);
    expect(new Set(ids).size).toBe(23);
    expect(new Set(ids)).toEqual(new Set(stored.map((o) => o.id)));
    const items = pages.flat();
    const expected = [...items].sort((a, b) => (a.placedAt === b.placedAt ? (a.id < b.id ? 1 : -1) : a.placedAt < b.placedAt ? 1 : -1));
    expect(items.map((o) => o.id)).toEqual(expected.map((o) => o.id));
    // The same walk again gives the same pages: the order is stable.
    expect((await walk(pager, '/api/orders?limit=5')).ids).toEqual(ids);
  });

  it('keeps rows that share a placed-at down to the microsecond apart by id', async () => {
    // Microseconds a JS Date cannot hold: a cursor keyed by milliseconds would skip or repeat these.
    const shared = stored.filter((o) => o.placedAt === stored[0]!.placedAt).map((o) => o.id);
    await t.context.db.update(order).set({ placedAt: sql`'2025-06-09T09:00:00.123456Z'::timestamptz` }).where(inArray(order.id, shared.slice(0, 3)));
    await t.context.db.update(order).set({ placedAt: sql`'2025-06-09T09:00:00.123457Z'::timestamptz` }).where(inArray(order.id, shared.slice(3)));
    for (const limit of [1, 2, 4]) {
      const { ids } = await walk(pager, `/api/orders?limit=${limit}`);
      expect(ids).toHaveLength(23);
      expect(new Set(ids).size).toBe(23);
      expect(ids.slice(0, shared.length)).toEqual([...shared.slice(3).sort().reverse(), ...shared.slice(0, 3).sort().reverse()]);
    }
  });

  it('keeps the filters and the search across pages', async () => {
    await t.context.db.update(order).set({ status: 'on_hold', holdReason: 'test' }).where(inArray(order.id, [stored[3]!.id, stored[17]!.id]));
    const held = await walk(pager, '/api/orders?status=on_hold&limit=1');
    expect(new Set(held.ids)).toEqual(new Set([stored[3]!.id, stored[17]!.id]));
    expect(held.pages).toHaveLength(2);
    const june2 = await walk(pager, '/api/orders?from=2025-06-02&to=2025-06-03&limit=2');
    expect(june2.pages.flat().every((o: any) => o.placedAt.startsWith('2025-06-02') || o.placedAt.startsWith('2025-06-03'))).toBe(true);
    expect(june2.ids).toHaveLength(stored.filter((o) => /2025-06-0[23]/.test(o.placedAt)).length);
    // Substrings of the SKU, the buyer's name (any case) and the order number.
    expect((await pager.get('/api/orders?search=find-m')).body.items.map((o: any) => o.externalId)).toEqual(['PG-7']);
    expect((await pager.get('/api/orders?search=quasth')).body.items.map((o: any) => o.externalId)).toEqual(['PG-11']);
    expect((await pager.get('/api/orders?search=PG-2')).body.items.map((o: any) => o.externalId).sort()).toEqual(['PG-2', 'PG-20', 'PG-21', 'PG-22']);
    expect((await pager.get(`/api/orders?search=${stored[5]!.id}`)).body.items.map((o: any) => o.id)).toEqual([stored[5]!.id]);
    // LIKE's wildcards are searched for as text.
    expect((await pager.get('/api/orders?search=PG_1')).body.items).toEqual([]);
    const searched = await walk(pager, '/api/orders?search=pg-1&limit=3');
    expect(searched.ids).toHaveLength(11); // PG-1, PG-10..PG-19
    expect(new Set(searched.ids).size).toBe(11);
  });

  it('finds the same pages whether a search is answered by walking the newest orders or by the index', async () => {
    // A walk of only 3 newest orders: most pages fall back to the trigram index; a walk of
    // 100,000 always finds the page by walking. Both must answer exactly what the other does.
    const walking = createOrderRepository(t.context.db, { searchWindow: 100_000 });
    const indexed = createOrderRepository(t.context.db, { searchWindow: 3 });
    for (const search of ['pg-1', 'PG-2', 'maya', 'quasthoff', 'll-plain', 'zq-find', 'nothing-like-it', pager.email]) {
      for (const ownerId of [pager.userId, null]) {
        let after: readonly [string, string] | null = null;
        for (let pageNo = 0; pageNo < 30; pageNo++) {
          const filter: OrderListFilter = { ownerId, status: null, search, from: null, to: null, after, limit: 3 };
          const a: OrderSummaryRow[] = await walking.list(filter);
          const b: OrderSummaryRow[] = await indexed.list(filter);
          expect(a.map((row) => row.order.id), `${search} ${ownerId} page ${pageNo}`).toEqual(b.map((row) => row.order.id));
          if (a.length < 3) break;
          after = [a.at(-1)!.placedKey, a.at(-1)!.order.id];
        }
      }
    }
  });

  it('pages the admin view of every seller the same way, with the seller found by email', async () => {
    const { ids } = await walk(admin, `/api/admin/orders?search=${encodeURIComponent(pager.email)}&limit=7`);
    expect(new Set(ids)).toEqual(new Set(stored.map((o) => o.id)));
    expect(ids).toHaveLength(23);
    const first = await admin.get('/api/admin/orders?limit=2');
    expect(first.body.items).toHaveLength(2);
    const second = await admin.get(`/api/admin/orders?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.items.map((o: any) => o.id)).not.toContain(first.body.items[0].id);
  });

  it('answers 400 with a message for a cursor it did not make, and for offset paging', async () => {
    const bad = (value: string) => Buffer.from(value).toString('base64url');
    for (const cursor of [
      'not a cursor',
      'x'.repeat(600),
      bad('{'),
      bad('[1,2]'),
      bad('["2025-06-01T09:00:00.000000Z"]'),
      bad('["yesterday","00000000-0000-0000-0000-000000000000"]'),
      bad('["2025-13-45T09:00:00.000000Z","00000000-0000-0000-0000-000000000000"]'),
      bad('["2025-06-01T09:00:00.000000Z","not-a-uuid"]'),
    ]) {
      for (const url of [`/api/orders?cursor=${encodeURIComponent(cursor)}`, `/api/admin/orders?cursor=${encodeURIComponent(cursor)}`]) {
        const response = await (url.startsWith('/api/admin') ? admin : pager).get(url);
        expect(response.status, `${url}`).toBe(400);
        expect(response.body.error).toEqual(expect.any(String));
      }
    }
    expect((await pager.get('/api/orders?page=2')).status).toBe(400);
    expect((await pager.get('/api/orders?limit=101')).status).toBe(400);
  });
});

describe('the order API hot path', () => {
  it('answers a new order from what it stored: the same order GET and a repeat read back', async () => {
    await addVariants(t.context, seller.userId, ['b-2', 'A_1', 'a-1', 'Zed'], 'Hot product');
    const { key } = await t.context.apiKeys.create(seller.userId, 'answers');
    const send = (method: string, url: string, body?: unknown) =>
      fetch(new URL(url, t.baseUrl), {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const address = { name: '  Ada Lovelace ', line1: '1 Analytical Way', city: 'Portland', postalCode: '97201', country: 'US' };
    for (const [externalId, items] of [
      ['HOT-2', [{ sku: 'Zed', quantity: 1 }]],
      // SKUs that sort differently by case, punctuation or locale, and one no variant has (on hold).
      ['HOT-3', [{ sku: 'b-2', quantity: 2 }, { sku: 'Zed', quantity: 1 }, { sku: 'A_1', quantity: 3 }, { sku: 'a-1', quantity: 4 }, { sku: 'NOPE-9', quantity: 1 }]],
    ] as const) {
      const created = await send('POST', '/api/v1/orders', { externalId, items, shippingAddress: address });
      expect(created.status).toBe(201);
      const body = (await created.json()) as { id: string };
      const read = await send('GET', `/api/v1/orders/${body.id}`);
      expect(read.status).toBe(200);
      expect(body).toEqual(await read.json());
      const repeat = await send('POST', '/api/v1/orders', { externalId, items, shippingAddress: address });
      expect(repeat.status).toBe(200);
      expect(await repeat.json()).toEqual(body);
    }
  });

  it('does not look up a session for /api/v1 (API keys only), but still does for the app', async () => {
    const { key } = await t.context.apiKeys.create(seller.userId, 'hot path');
    const auth = t.context.auth.api as { getSession: (...args: any[]) => Promise<unknown> };
    const original = auth.getSession;
    let lookups = 0;
    auth.getSession = (...args: any[]) => {
      lookups += 1;
      return original.apply(auth, args);
    };
    try {
      const response = await fetch(new URL('/api/v1/orders', t.baseUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({
          externalId: 'HOT-1',
          items: [{ sku: 'LL-VASE-TWIST', quantity: 1 }],
          shippingAddress: { name: 'Ada Lovelace', line1: '1 Analytical Way', city: 'Portland', postalCode: '97201', country: 'US' },
        }),
      });
      expect(response.status).toBe(201);
      expect(lookups).toBe(0);
      expect((await seller.get('/api/orders?search=HOT-1')).body.items).toHaveLength(1);
      expect(lookups).toBe(1);
    } finally {
      auth.getSession = original;
    }
  });
});

describe('load cleanup', () => {
  it('keeps the seller list usable after the load test', async () => {
    const [n] = await t.context.db.select({ n: count() }).from(order).where(like(order.externalId, 'LOAD-%'));
    const { ids } = await walk(seller, '/api/orders?limit=100&search=LOAD-');
    expect(ids).toHaveLength(n!.n);
    expect(new Set(ids).size).toBe(n!.n);
  });
});
