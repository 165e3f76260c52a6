import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { fulfillmentRecord, shipment } from '../../db/schema.ts';
import { marketplaceOrder } from '../../../test/orders-fixtures.ts';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { createFulfillmentRepository, searchTextOf, type FulfillmentFilter } from './fulfillment-repository.ts';

/*
 * The fulfilment history through HTTP on a real server: records seeded straight into the table (the
 * shipping module writes them with each label), then read as sellers and admins would.
 *
 * Seller A has 120 records, one every 12 hours from 2026-01-01T00:00Z (i = 0 … 119, so i = 119 is
 * the newest), seller B 30 at the same times. A seller naming another seller's sellerId gets 403.
 */

let t: TestApp;
let sellerA: SignedInClient;
let sellerB: SignedInClient;
let admin: SignedInClient;

const START = Date.parse('2026-01-01T00:00:00Z');
const HOUR = 3600 * 1000;
const BUYERS = ['Ada Lovelace', 'Grace Hopper', 'Ünal Öztürk', 'Maya Thompson', 'Kenji Nakamura'];
const SKUS = ['SKU-RED-VASE', 'SKU-BLUE-BOWL', 'SKU-GREEN-CUP'];

interface Seeded {
  i: number;
  orderNumber: string;
  buyerName: string;
  sku: string;
  trackingNumber: string;
  totalCents: number;
  createdAt: Date;
}

/** A record of `prefix`'s seller: the i-th, 12 hours after the one before. */
function recordOf(prefix: string, i: number): Seeded {
  return {
    i,
    orderNumber: `${prefix}-${String(i).padStart(4, '0')}`,
    buyerName: BUYERS[i % BUYERS.length]!,
    sku: SKUS[i % SKUS.length]!,
    trackingNumber: `1Z${prefix}${String(i * 7919).padStart(8, '0')}`,
    totalCents: 1000 + i * 37,
    createdAt: new Date(START + i * 12 * HOUR),
  };
}

async function seed(ownerId: string, records: readonly Seeded[], extra: Partial<typeof fulfillmentRecord.$inferInsert> = {}): Promise<void> {
  await t.context.db.insert(fulfillmentRecord).values(
    records.map((r) => ({
      ownerId,
      channel: 'etsy',
      orderNumber: r.orderNumber,
      buyerName: r.buyerName,
      items: [{ sku: r.sku, title: 'A printed thing', quantity: 1 + (r.i % 2) }],
      printCostCents: r.totalCents - 300,
      packagingCents: 100,
      shippingCents: 200,
      totalCents: r.totalCents,
      carrier: 'USPS',
      service: 'Ground Advantage',
      trackingNumber: r.trackingNumber,
      trackingUrl: `https://tools.usps.com/go/TrackConfirmAction?tLabels=${r.trackingNumber}`,
      shippedAt: r.createdAt,
      createdAt: r.createdAt,
      searchText: searchTextOf({ orderNumber: r.orderNumber, buyerName: r.buyerName, skus: [r.sku], trackingNumber: r.trackingNumber }),
      ...extra,
    })),
  );
}

const A_RECORDS = Array.from({ length: 120 }, (_, i) => recordOf('A', i));
const B_RECORDS = Array.from({ length: 30 }, (_, i) => recordOf('B', i));
/** A's newest first, as the list shows them by default. */
const A_NEWEST = [...A_RECORDS].reverse();

beforeAll(async () => {
  t = await startTestApp();
  sellerA = await t.signUp({ name: 'Seller A' });
  sellerB = await t.signUp({ name: 'Seller B' });
  admin = await t.signUp({ role: 'admin', name: 'History Admin' });
  expect((await sellerA.patch('/api/me', { businessName: 'Alpha Prints' })).status).toBe(200);
  await seed(sellerA.userId, A_RECORDS);
  await seed(sellerB.userId, B_RECORDS);
});

afterAll(async () => {
  await t?.close();
});

const orderNumbers = (body: { items: { orderNumber: string }[] }) => body.items.map((item) => item.orderNumber);
const q = (params: Record<string, string | number>) => new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();

describe('GET /api/fulfillment-history (getFulfillmentHistory)', () => {
  it('answers page 1 of 50, newest first, with the total and the record as the contract has it', async () => {
    const r = await sellerA.get('/api/fulfillment-history');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, limit: 50, total: 120, totalCapped: false, hasMore: true });
    expect(orderNumbers(r.body)).toEqual(A_NEWEST.slice(0, 50).map((x) => x.orderNumber));
    const newest = A_NEWEST[0]!;
    expect(r.body.items[0]).toEqual({
      id: expect.any(String),
      orderId: null,
      shipmentId: null,
      ownerId: sellerA.userId,
      sellerName: 'Alpha Prints',
      channel: 'etsy',
      orderNumber: newest.orderNumber,
      buyerName: newest.buyerName,
      items: [{ sku: newest.sku, title: 'A printed thing', quantity: 2 }],
      printCostCents: newest.totalCents - 300,
      packagingCents: 100,
      shippingCents: 200,
      totalCents: newest.totalCents,
      currency: 'USD',
      carrier: 'USPS',
      service: 'Ground Advantage',
      trackingNumber: newest.trackingNumber,
      trackingUrl: expect.stringContaining(newest.trackingNumber),
      labelUrl: null,
      shippedAt: newest.createdAt.toISOString(),
      deliveredAt: null,
      createdAt: newest.createdAt.toISOString(),
      chargedCents: null,
    });
  });

  it('pages by page and limit: every record once, in order; past the end an empty page with the total', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const r = await sellerA.get(`/api/fulfillment-history?${q({ page })}`);
      expect(r.body).toMatchObject({ page, total: 120, hasMore: page < 3 });
      seen.push(...orderNumbers(r.body));
    }
    expect(seen).toEqual(A_NEWEST.map((x) => x.orderNumber));
    const past = await sellerA.get(`/api/fulfillment-history?${q({ page: 4 })}`);
    expect(past.body).toMatchObject({ items: [], page: 4, total: 120, hasMore: false });
    const small = await sellerA.get(`/api/fulfillment-history?${q({ page: 3, limit: 7 })}`);
    expect(orderNumbers(small.body)).toEqual(A_NEWEST.slice(14, 21).map((x) => x.orderNumber));
    expect(small.body).toMatchObject({ limit: 7, total: 120, hasMore: true });
  });

  it('orders oldest first with orderDirection=asc', async () => {
    const r = await sellerA.get(`/api/fulfillment-history?${q({ orderBy: 'createdAt', orderDirection: 'asc', limit: 5 })}`);
    expect(orderNumbers(r.body)).toEqual(['A-0000', 'A-0001', 'A-0002', 'A-0003', 'A-0004']);
    const last = await sellerA.get(`/api/fulfillment-history?${q({ orderDirection: 'asc', page: 3 })}`);
    expect(orderNumbers(last.body)).toEqual(A_RECORDS.slice(100).map((x) => x.orderNumber));
  });

  it('filters by date: a day as endDate includes that whole day; a time is exact', async () => {
    // Jan 3 00:00 (i = 4) to Jan 5 12:00 (i = 9): the end day's noon record is in.
    const days = await sellerA.get(`/api/fulfillment-history?${q({ startDate: '2026-01-03', endDate: '2026-01-05' })}`);
    expect(orderNumbers(days.body)).toEqual(['A-0009', 'A-0008', 'A-0007', 'A-0006', 'A-0005', 'A-0004']);
    expect(days.body.total).toBe(6);
    const atNoon = await sellerA.get(`/api/fulfillment-history?${q({ startDate: '2026-01-03T00:00:00Z', endDate: '2026-01-05T12:00:00Z' })}`);
    expect(atNoon.body.total).toBe(6);
    const beforeNoon = await sellerA.get(`/api/fulfillment-history?${q({ startDate: '2026-01-03T00:00:01Z', endDate: '2026-01-05T11:59:59.999Z' })}`);
    expect(orderNumbers(beforeNoon.body)).toEqual(['A-0008', 'A-0007', 'A-0006', 'A-0005']);
    const offset = await sellerA.get(`/api/fulfillment-history?${q({ startDate: '2026-01-05T13:00:00+01:00', endDate: '2026-01-05' })}`);
    expect(orderNumbers(offset.body)).toEqual(['A-0009']);
    const oneDay = await sellerA.get(`/api/fulfillment-history?${q({ startDate: '2026-01-05', endDate: '2026-01-05' })}`);
    expect(orderNumbers(oneDay.body)).toEqual(['A-0009', 'A-0008']);
  });

  it('searches order number, buyer, SKU and tracking number: substrings, any case', async () => {
    const search = async (searchTerm: string, extra: Record<string, string | number> = {}) =>
      (await sellerA.get(`/api/fulfillment-history?${q({ searchTerm, limit: 200, ...extra })}`)).body;
    expect(orderNumbers(await search('a-0042'))).toEqual(['A-0042']);
    const grace = A_NEWEST.filter((x) => x.buyerName === 'Grace Hopper').map((x) => x.orderNumber);
    expect(orderNumbers(await search('GRACE hop'))).toEqual(grace);
    expect(orderNumbers(await search('öztürk'))).toEqual(A_NEWEST.filter((x) => x.buyerName === 'Ünal Öztürk').map((x) => x.orderNumber));
    expect(orderNumbers(await search('blue-bowl'))).toEqual(A_NEWEST.filter((x) => x.sku === 'SKU-BLUE-BOWL').map((x) => x.orderNumber));
    const tracking = A_RECORDS[77]!.trackingNumber;
    expect(orderNumbers(await search(tracking.toLowerCase()))).toEqual(['A-0077']);
    expect((await search('no such thing')).items).toEqual([]);
    // LIKE's wildcards are literal characters here.
    expect((await search('%')).items).toEqual([]);
    expect((await search('a_00')).items).toEqual([]);
    // Pages of a search, with its total; B's Grace Hoppers are not A's.
    const first = await search('grace hopper', { limit: 10 });
    expect(first).toMatchObject({ total: grace.length, hasMore: true });
    const second = await search('grace hopper', { limit: 10, page: 2 });
    expect([...orderNumbers(first), ...orderNumbers(second)]).toEqual(grace.slice(0, 20));
    // A search within a date range, oldest first.
    expect(orderNumbers(await search('sku-red', { startDate: '2026-01-02', endDate: '2026-01-04', orderDirection: 'asc' }))).toEqual(['A-0003', 'A-0006']);
  });

  it('finds the same pages and counts by the trigram index, by walking the first records, and by both', async () => {
    const repository = createFulfillmentRepository(t.context.db);
    const narrowWindow = createFulfillmentRepository(t.context.db, { searchWindow: 20 });
    const filters: FulfillmentFilter[] = [
      { ownerId: sellerA.userId, from: null, until: null, search: 'grace' },
      { ownerId: null, from: null, until: null, search: 'sku-' },
      { ownerId: null, from: new Date('2026-01-10T00:00:00Z'), until: { at: new Date('2026-02-01T00:00:00Z'), inclusive: false }, search: 'o' },
    ];
    for (const filter of filters) {
      const all = await repository.countUpTo(filter, 100_000);
      for (const direction of ['desc', 'asc'] as const) {
        const expected = (await repository.page(filter, direction, 0, 1000, 100_000)).rows.map((r) => r.id);
        // countCap 5: every term here is "common", so its pages come from the walk (the window), or
        // from all matches sorted when the window holds too few (the narrow one, and deep pages).
        for (const [offset, limit] of [[0, 5], [5, 5], [0, 51], [40, 11]] as const) {
          for (const [name, repo, countCap] of [['index', repository, 100_000], ['window', repository, 5], ['narrow window', narrowWindow, 5]] as const) {
            const page = await repo.page(filter, direction, offset, limit, countCap);
            const what = `${filter.search} ${direction} ${offset}+${limit} ${name}`;
            expect(page.rows.map((r) => r.id), what).toEqual(expected.slice(offset, offset + limit));
            expect(page.matched, what).toBe(Math.min(all, countCap));
          }
        }
      }
    }
  });

  it('keeps sellers to their own: sellerId naming another seller is 403, their own is allowed', async () => {
    const b = await sellerB.get('/api/fulfillment-history?limit=200');
    expect(b.body.total).toBe(30);
    expect(new Set(b.body.items.map((item: { ownerId: string }) => item.ownerId))).toEqual(new Set([sellerB.userId]));
    expect((await sellerB.get(`/api/fulfillment-history?searchTerm=a-0042`)).body.items).toEqual([]);
    const foreign = await sellerB.get(`/api/fulfillment-history?sellerId=${sellerA.userId}`);
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual({ error: "Only admins may see another seller's fulfilment history" });
    expect((await sellerB.get(`/api/fulfillment-history/monthly?sellerId=${sellerA.userId}`)).status).toBe(403);
    expect((await sellerB.get(`/api/fulfillment-history/export.csv?sellerId=${sellerA.userId}`)).status).toBe(403);
    expect((await sellerB.get(`/api/fulfillment-history?sellerId=${sellerB.userId}`)).body.total).toBe(30);
    expect((await sellerB.get(`/api/fulfillment-history?targetUserId=${sellerA.userId}`)).status).toBe(403);
    expect((await t.client().get('/api/fulfillment-history')).status).toBe(401);
  });

  it('shows admins every seller, with each seller’s name, and filters by sellerId', async () => {
    const all = await admin.get('/api/fulfillment-history?limit=200');
    expect(all.status).toBe(200);
    const owners = new Set(all.body.items.map((item: { ownerId: string }) => item.ownerId));
    expect(owners.has(sellerA.userId) && owners.has(sellerB.userId)).toBe(true);
    const names = new Map(all.body.items.map((item: { ownerId: string; sellerName: string }) => [item.ownerId, item.sellerName]));
    expect(names.get(sellerA.userId)).toBe('Alpha Prints');
    expect(names.get(sellerB.userId)).toBe(sellerB.email);
    const onlyB = await admin.get(`/api/fulfillment-history?sellerId=${sellerB.userId}&limit=100`);
    expect(onlyB.body.total).toBe(30);
    expect(orderNumbers(onlyB.body)).toEqual([...B_RECORDS].reverse().map((x) => x.orderNumber));
    const search = await admin.get(`/api/fulfillment-history?searchTerm=${encodeURIComponent(B_RECORDS[3]!.trackingNumber)}`);
    expect(orderNumbers(search.body)).toEqual(['B-0003']);
  });

  it('gives the label link of a record made with a label', async () => {
    const { orderId } = await t.context.orderIngestion.ingest({
      ownerId: sellerA.userId,
      channel: `test:${sellerA.userId}`,
      shopId: null,
      platform: 'api',
      order: marketplaceOrder('LABELLED-1', ['SKU-LABEL']),
      actor: { kind: 'marketplace', id: null },
    });
    const [label] = await t.context.db
      .insert(shipment)
      .values({
        orderId,
        ownerId: sellerA.userId,
        provider: 'sandbox',
        parcelIndex: 0,
        parcelCount: 1,
        parcel: { parcelId: 'small', name: 'Small box', lengthMm: 200, widthMm: 150, heightMm: 100, weightGrams: 300, partCount: 1, costCents: 80 },
        idempotencyKey: `${orderId}:0:1`,
        status: 'purchased',
      })
      .returning({ id: shipment.id });
    const labelled = recordOf('L', 0);
    await seed(sellerA.userId, [{ ...labelled, createdAt: new Date('2025-06-01T00:00:00Z') }], { orderId, shipmentId: label!.id });
    const r = await sellerA.get('/api/fulfillment-history?searchTerm=l-0000');
    expect(r.body.items).toHaveLength(1);
    expect(r.body.items[0]).toMatchObject({ orderId, shipmentId: label!.id, labelUrl: `/api/shipping/shipments/${label!.id}/label` });
    await t.context.db.delete(fulfillmentRecord).where(sql`${fulfillmentRecord.shipmentId} = ${label!.id}`);
  });
});

describe('GET /api/fulfillment-history/user (getUserFulfillmentHistory)', () => {
  it('is always the caller’s own, admins included; it takes no sellerId', async () => {
    const a = await sellerA.get('/api/fulfillment-history/user?limit=3');
    expect(a.body).toMatchObject({ total: 120, limit: 3 });
    expect(orderNumbers(a.body)).toEqual(['A-0119', 'A-0118', 'A-0117']);
    const own = await admin.get('/api/fulfillment-history/user');
    expect(own.body).toMatchObject({ items: [], total: 0, hasMore: false });
    const named = await admin.get(`/api/fulfillment-history/user?sellerId=${sellerA.userId}`);
    expect(named.status).toBe(400);
  });
});

describe('GET /api/fulfillment-history/monthly', () => {
  it('answers shipments and spend per month of the filtered records', async () => {
    const expected = (records: readonly Seeded[]) => {
      const months = new Map<string, { month: string; shipments: number; spendCents: number }>();
      for (const r of records) {
        const month = r.createdAt.toISOString().slice(0, 7);
        const entry = months.get(month) ?? { month, shipments: 0, spendCents: 0 };
        entry.shipments += 1;
        entry.spendCents += r.totalCents;
        months.set(month, entry);
      }
      return [...months.values()].sort((x, y) => x.month.localeCompare(y.month));
    };
    const a = await sellerA.get('/api/fulfillment-history/monthly');
    expect(a.body.months).toEqual(expected(A_RECORDS));
    expect(a.body.months.map((m: { month: string }) => m.month)).toEqual(['2026-01', '2026-02', '2026-03']);
    const filtered = await sellerA.get(`/api/fulfillment-history/monthly?${q({ searchTerm: 'grace', startDate: '2026-02-01' })}`);
    expect(filtered.body.months).toEqual(expected(A_RECORDS.filter((r) => r.buyerName === 'Grace Hopper' && r.createdAt >= new Date('2026-02-01T00:00:00Z'))));
    const adminB = await admin.get(`/api/fulfillment-history/monthly?sellerId=${sellerB.userId}`);
    expect(adminB.body.months).toEqual(expected(B_RECORDS));
  });
});

/** A CSV text's records (RFC 4180: quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted && c === '"' && text[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (!quoted && c === ',') {
      row.push(cell);
      cell = '';
    } else if (!quoted && c === '\r' && text[i + 1] === '\n') {
      rows.push([...row, cell]);
      row = [];
      cell = '';
      i++;
    } else {
      cell += c;
    }
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

async function download(client: SignedInClient, query = ''): Promise<{ response: Response; text: string; chunks: number }> {
  const response = await fetch(new URL(`/api/fulfillment-history/export.csv${query}`, t.baseUrl), {
    headers: { cookie: client.cookieHeader(), origin: t.baseUrl, 'sec-fetch-site': 'same-origin' },
  });
  const reader = response.body!.getReader();
  // Keeps the byte-order mark (a decoder drops it by default), to check it is sent.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  let text = '';
  let chunks = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks += 1;
    text += decoder.decode(value, { stream: true });
  }
  return { response, text: text + decoder.decode(), chunks };
}

describe('GET /api/fulfillment-history/export.csv', () => {
  it('downloads the filtered view as CSV: a header, money as decimals, the same order as the list', async () => {
    const { response, text } = await download(sellerA, `?${q({ startDate: '2026-01-03', endDate: '2026-01-05' })}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="fulfillment-history-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(text.startsWith('\uFEFFCreated,Seller,Channel,Order,Buyer,Items,')).toBe(true);
    const rows = parseCsv(text.slice(1));
    const header = rows[0]!;
    expect(rows).toHaveLength(7);
    const line = Object.fromEntries(header.map((name, index) => [name, rows[1]![index]]));
    const r9 = A_RECORDS[9]!;
    expect(line).toEqual({
      Created: r9.createdAt.toISOString(),
      Seller: 'Alpha Prints',
      Channel: 'etsy',
      Order: 'A-0009',
      Buyer: r9.buyerName,
      Items: `2 × ${r9.sku} (A printed thing)`,
      'Print cost': ((r9.totalCents - 300) / 100).toFixed(2),
      Packaging: '1.00',
      Shipping: '2.00',
      Total: (r9.totalCents / 100).toFixed(2),
      Currency: 'USD',
      Carrier: 'USPS',
      Service: 'Ground Advantage',
      'Tracking number': r9.trackingNumber,
      'Tracking URL': expect.stringContaining(r9.trackingNumber),
      Shipped: r9.createdAt.toISOString(),
      Delivered: '',
    });
    expect(rows.slice(1).map((row) => row[3])).toEqual(['A-0009', 'A-0008', 'A-0007', 'A-0006', 'A-0005', 'A-0004']);
    const asc = parseCsv((await download(sellerA, `?${q({ startDate: '2026-01-03', endDate: '2026-01-05', orderDirection: 'asc' })}`)).text.slice(1));
    expect(asc.slice(1).map((row) => row[3])).toEqual(['A-0004', 'A-0005', 'A-0006', 'A-0007', 'A-0008', 'A-0009']);
  });

  it('escapes quotes, commas and line breaks, and defuses cells a spreadsheet would run as formulas', async () => {
    const tricky = await t.signUp({ name: 'Tricky Seller' });
    const names = ['=HYPERLINK("http://evil.example","click")', '+1 555 0100', '-2+3', '@SUM(A1)', 'Doe, "JJ"', 'Line one\nline two'];
    await seed(
      tricky.userId,
      names.map((buyerName, i) => ({ ...recordOf('T', i), buyerName })),
    );
    const rows = parseCsv((await download(tricky, '?orderDirection=asc')).text.slice(1));
    expect(rows.slice(1).map((row) => row[4])).toEqual([
      `'=HYPERLINK("http://evil.example","click")`,
      "'+1 555 0100",
      "'-2+3",
      "'@SUM(A1)",
      'Doe, "JJ"',
      'Line one\nline two',
    ]);
    expect(rows.slice(1).every((row) => row.length === rows[0]!.length)).toBe(true);
  });

  it('streams a large export in batches: 30,000 records, every one once', async () => {
    const bulk = await t.signUp({ name: 'Bulk Seller' });
    await t.context.db.execute(sql`
      INSERT INTO fulfillment_record (owner_id, channel, order_number, buyer_name, items, total_cents, tracking_number, created_at, search_text)
      SELECT ${bulk.userId}, 'shopify', 'BULK-' || g, 'Bulk Buyer', '[{"sku":"BULK","title":"","quantity":1}]'::jsonb, g,
             'TRK' || g, timestamptz '2026-01-01' + (g % 5000) * interval '1 minute', 'bulk-' || g
      FROM generate_series(1, 30000) g`);
    const { response, text, chunks } = await download(bulk);
    expect(response.status).toBe(200);
    // Streamed: sent in chunks as it is read, with no length known up front.
    expect(response.headers.get('content-length')).toBeNull();
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    expect(chunks).toBeGreaterThan(1);
    const lines = text.slice(1).split('\r\n').filter(Boolean);
    expect(lines).toHaveLength(30_001);
    const numbers = lines.slice(1).map((line) => line.split(',')[3]!);
    expect(new Set(numbers).size).toBe(30_000);
    // Many records share a minute: the batches' keyset (time, id) neither skips nor repeats them.
    const totals = lines.slice(1).map((line) => Number(line.split(',')[9]));
    expect(totals.reduce((sum, x) => sum + x, 0)).toBeCloseTo((30_000 * 30_001) / 2 / 100, 2);
    // The list counts no further than 10,000, a search no further than 1,000.
    const page = await bulk.get('/api/fulfillment-history?page=2');
    expect(page.body).toMatchObject({ total: 10_000, totalCapped: true, hasMore: true });
    expect(page.body.items).toHaveLength(50);
    expect((await bulk.get('/api/fulfillment-history?searchTerm=bulk')).body).toMatchObject({ total: 1_000, totalCapped: true, hasMore: true });
    expect((await bulk.get('/api/fulfillment-history?searchTerm=bulk-2999')).body).toMatchObject({ total: 11, totalCapped: false, hasMore: false });
  }, 120_000);
});

describe('POST /api/admin/fulfillment-history (createFulfillmentHistoryRecord)', () => {
  const input = (targetUserId: string) => ({
    targetUserId,
    orderNumber: 'MANUAL-0001',
    buyerName: 'Walk-in Buyer',
    items: [{ sku: 'SKU-HAND', title: 'Hand-delivered vase', quantity: 2 }],
    printCostCents: 1250,
    packagingCents: 75,
    shippingCents: 690,
    carrier: 'UPS',
    service: 'Ground',
    trackingNumber: '1ZMANUAL0001',
    trackingUrl: 'https://www.ups.com/track?tracknum=1ZMANUAL0001',
    shippedAt: '2026-04-02',
  });

  it('records a shipment for the seller, audited with the admin, and the seller finds it', async () => {
    const r = await admin.post('/api/admin/fulfillment-history', input(sellerB.userId));
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      ownerId: sellerB.userId,
      sellerName: sellerB.email,
      channel: 'manual',
      orderNumber: 'MANUAL-0001',
      totalCents: 2015,
      currency: 'USD',
      labelUrl: null,
      shipmentId: null,
      shippedAt: '2026-04-02T00:00:00.000Z',
    });
    const found = await sellerB.get('/api/fulfillment-history?searchTerm=1zmanual');
    expect(found.body.items.map((item: { id: string }) => item.id)).toEqual([r.body.id]);
    expect((await sellerB.get('/api/fulfillment-history?searchTerm=sku-hand')).body.total).toBe(1);
    const audit = await admin.get('/api/admin/audit?limit=20');
    expect(audit.body.entries).toContainEqual(
      expect.objectContaining({ actorId: admin.userId, targetUserId: sellerB.userId, action: 'fulfillment.record' }),
    );
  });

  it('is for admins only, for a seller who exists, with an order of that seller', async () => {
    const bySeller = await sellerA.post('/api/admin/fulfillment-history', input(sellerA.userId));
    expect(bySeller.status).toBe(403);
    expect((await admin.post('/api/admin/fulfillment-history', input('no-such-user'))).status).toBe(404);
    const { orderId } = await t.context.orderIngestion.ingest({
      ownerId: sellerA.userId,
      channel: `test:${sellerA.userId}`,
      shopId: null,
      platform: 'api',
      order: marketplaceOrder('FOR-A-ONLY', ['SKU-A']),
      actor: { kind: 'marketplace', id: null },
    });
    const wrongOrder = await admin.post('/api/admin/fulfillment-history', { ...input(sellerB.userId), orderId });
    expect(wrongOrder.status).toBe(400);
    expect(wrongOrder.body.error).toMatch(/not one of this seller/);
    const rightOrder = await admin.post('/api/admin/fulfillment-history', { ...input(sellerA.userId), orderId, orderNumber: 'FOR-A-ONLY' });
    expect(rightOrder.status).toBe(201);
    expect(rightOrder.body.orderId).toBe(orderId);
    const missing = await admin.post('/api/admin/fulfillment-history', { targetUserId: sellerB.userId });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/orderNumber/);
    expect((await admin.post('/api/admin/fulfillment-history', { ...input(sellerB.userId), printCostCents: -1 })).status).toBe(400);
    expect((await admin.post('/api/admin/fulfillment-history', { ...input(sellerB.userId), ownerId: sellerA.userId })).status).toBe(400);
  });
});

describe('bad input', () => {
  it('answers 400 with a readable error', async () => {
    const cases: [string, RegExp][] = [
      [q({ startDate: '2026-02-01', endDate: '2026-01-01' }), /startDate must be on or before endDate/],
      [q({ startDate: '2026-01-05T12:00:00Z', endDate: '2026-01-05T11:00:00Z' }), /startDate must be on or before endDate/],
      [q({ startDate: 'yesterday' }), /ISO 8601/],
      [q({ endDate: '2026-02-30' }), /ISO 8601/],
      [q({ endDate: '2026-01-05T10:00' }), /ISO 8601/],
      [q({ page: 0 }), /page starts at 1/],
      [q({ limit: 1000 }), /limit/i],
      [q({ orderBy: 'totalCents' }), /orderBy/],
      [q({ orderDirection: 'sideways' }), /orderDirection/],
      [q({ cursor: 'abc' }), /cursor/],
    ];
    for (const [query, message] of cases) {
      const r = await sellerA.get(`/api/fulfillment-history?${query}`);
      expect(r.status, query).toBe(400);
      expect(Object.keys(r.body)).toEqual(['error']);
      expect(r.body.error, query).toMatch(message);
    }
    expect((await sellerA.get(`/api/fulfillment-history/monthly?${q({ startDate: '2026-02-01', endDate: '2026-01-01' })}`)).status).toBe(400);
    const csv = await sellerA.get(`/api/fulfillment-history/export.csv?${q({ startDate: '2026-02-01', endDate: '2026-01-01' })}`);
    expect(csv.status).toBe(400);
    expect(csv.body).toEqual({ error: 'startDate must be on or before endDate' });
  });
});
