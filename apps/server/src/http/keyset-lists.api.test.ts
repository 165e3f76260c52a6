import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, contactMessage, listing, product, productVariant, user } from '../db/schema.ts';
import { encodeCursor } from '../platform/keyset-cursor.ts';
import { startTestApp, type SignedInClient, type TestApp } from '../../test/test-app.ts';

/**
 * Keyset paging of the lists other than orders (admin users, designs, products, listings, the audit
 * log and contact messages): walking
 * every page with a small limit answers each row once, in order, with rows that share a timestamp
 * (even a microsecond) and filters combined with cursors; a made-up cursor is a 400.
 */
let t: TestApp;
let admin: SignedInClient;
let seller: SignedInClient;
let other: SignedInClient;

beforeAll(async () => {
  t = await startTestApp();
  admin = await t.signUp({ role: 'admin' });
  seller = await t.signUp({ role: 'beta', name: 'Paging Seller' });
  other = await t.signUp({ role: 'beta', name: 'Other Seller' });
}, 60_000);

afterAll(async () => {
  await t?.close();
});

interface Walked {
  ids: string[];
  pages: number;
  first: any;
}

/** Follows nextCursor from the first page to the last; every page must be full except the last. */
async function walk(client: SignedInClient, url: string, limit: number): Promise<Walked> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  let first: any;
  do {
    const separator = url.includes('?') ? '&' : '?';
    const response: { status: number; body: any } = await client.get(`${url}${separator}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    first ??= response.body;
    const items = response.body.items as { id: string }[];
    cursor = response.body.nextCursor;
    if (cursor) expect(items).toHaveLength(limit);
    else expect(items.length).toBeLessThanOrEqual(limit);
    ids.push(...items.map((item) => item.id));
    pages += 1;
    expect(pages).toBeLessThan(500);
  } while (cursor);
  return { ids, pages, first };
}

/** A timestamp shared by several rows, and two more within the same millisecond. */
const at = (micros: number) => sql`timestamptz '2024-03-01 10:00:00.123000+00' + ${micros}::int * interval '1 microsecond'`;
/** Newest first, id descending among equal times: the order every (created_at, id) list answers in. */
const newestFirst = (rows: { id: string; micros: number }[]) =>
  [...rows].sort((a, b) => b.micros - a.micros || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).map((row) => row.id);

async function expectBadCursor(client: SignedInClient, url: string, cursor: string): Promise<void> {
  const separator = url.includes('?') ? '&' : '?';
  const response = await client.get(`${url}${separator}cursor=${encodeURIComponent(cursor)}`);
  expect(response.status, `${url} ${cursor}`).toBe(400);
  expect(typeof response.body.error).toBe('string');
}

const MADE_UP_CURSORS = [
  'not a cursor!',
  Buffer.from('not json').toString('base64url'),
  encodeCursor(['2024-03-01', 'x']),
  encodeCursor([1.5, 'x']),
  encodeCursor([1e300, 'x']),
  encodeCursor([1, 2]),
  encodeCursor([1]),
];
const BAD_UUID_CURSOR = encodeCursor([1_709_287_200_123_000, 'not-a-uuid']);

describe('GET /api/admin/users', () => {
  const rows = [0, 0, 0, 0, 1, 1, 999].map((micros, index) => ({ id: `paging-user-${index}`, micros }));

  beforeAll(async () => {
    for (const row of rows) {
      await t.context.db.insert(user).values({
        id: row.id,
        email: `${row.id}@pagingzeta.test`,
        name: `Pagingzeta ${row.id}`,
        createdAt: at(row.micros) as unknown as Date,
      });
    }
  });

  it('walks every account once, newest first, with rows sharing a microsecond', async () => {
    const walked = await walk(admin, '/api/admin/users?search=pagingzeta', 2);
    expect(walked.ids).toEqual(newestFirst(rows));
    expect(walked.pages).toBe(4);

    const everyone = await walk(admin, '/api/admin/users', 3);
    const stored = await t.context.db.select({ id: user.id }).from(user);
    expect(new Set(everyone.ids).size).toBe(everyone.ids.length);
    expect(everyone.ids.sort()).toEqual(stored.map((row) => row.id).sort());
  });

  it('refuses a made-up cursor with 400', async () => {
    for (const cursor of MADE_UP_CURSORS) await expectBadCursor(admin, '/api/admin/users', cursor);
    expect((await admin.get('/api/admin/users?page=2')).status).toBe(400);
  });
});

describe('GET /api/designs and /api/admin/designs', () => {
  const copies = [0, 0, 0, 2, 2, 5, 5, 5].map((micros, index) => ({ index, micros }));
  const ids: { id: string; micros: number }[] = [];

  beforeAll(async () => {
    const MODELS = path.resolve(import.meta.dirname, '../../../../../shared/models');
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync(path.join(MODELS, 'ps-20mm_cube.obj'))]), 'ps-20mm_cube.obj');
    const uploaded = await fetch(new URL('/api/designs', t.baseUrl), {
      method: 'POST',
      headers: { cookie: seller.cookieHeader(), origin: t.baseUrl, 'sec-fetch-site': 'same-origin' },
      body: form,
    });
    expect(uploaded.status).toBe(201);
    const source = ((await uploaded.json()) as { id: string }).id;
    // Copies of its row (no files: the list reads rows only), several to a timestamp.
    for (const copy of copies) {
      const result = await t.context.db.execute<{ id: string }>(sql`
        INSERT INTO design (owner_id, name, file_name, format, content_type, storage_key, size_bytes, md5_base64,
          triangles, volume_mm3, surface_area_mm2, bbox_mm, shells, object_count, part_volumes_mm3,
          fits_build_volume, watertight, problems, created_at)
        SELECT owner_id, ${`Pagingdesign ${copy.index}`}, file_name, format, content_type, ${`paging/${copy.index}`}, 1,
          md5_base64, triangles, volume_mm3, surface_area_mm2, bbox_mm, shells, object_count, part_volumes_mm3,
          fits_build_volume, watertight, problems, ${at(copy.micros)}
        FROM design WHERE id = ${source}
        RETURNING id`);
      ids.push({ id: (result as unknown as { rows: { id: string }[] }).rows[0]!.id, micros: copy.micros });
    }
  }, 60_000);

  it('walks a seller’s designs once each, newest first, with the seller’s total', async () => {
    const walked = await walk(seller, '/api/designs?search=pagingdesign', 3);
    expect(walked.ids).toEqual(newestFirst(ids));
    expect(walked.first.total).toBe(copies.length);
    const all = await walk(seller, '/api/designs', 4);
    expect(all.ids).toHaveLength(copies.length + 1);
    expect(new Set(all.ids).size).toBe(all.ids.length);
    expect(all.first.total).toBe(copies.length + 1);
    expect((await other.get('/api/designs')).body).toMatchObject({ items: [], nextCursor: null, total: 0 });
  });

  it('walks everyone’s designs for the admin, without a total', async () => {
    const walked = await walk(admin, '/api/admin/designs?search=pagingdesign', 5);
    expect(walked.ids).toEqual(newestFirst(ids));
    expect(walked.first.total).toBeNull();
    // The owner's email is searched too (one of the filters), across pages.
    const byEmail = await walk(admin, `/api/admin/designs?search=${encodeURIComponent(seller.email)}`, 2);
    expect(byEmail.ids).toHaveLength(copies.length + 1);
  });

  it('refuses a made-up cursor with 400', async () => {
    for (const url of ['/api/designs', '/api/admin/designs']) {
      const client = url === '/api/designs' ? seller : admin;
      for (const cursor of [...MADE_UP_CURSORS, BAD_UUID_CURSOR]) await expectBadCursor(client, url, cursor);
      expect((await client.get(`${url}?page=2`)).status).toBe(400);
    }
  });
});

describe('GET /api/products', () => {
  const rows: { id: string; micros: number }[] = [];

  beforeAll(async () => {
    for (const [index, micros] of [3, 3, 3, 3, 0, 0, 7].entries()) {
      const [row] = await t.context.db
        .insert(product)
        .values({ ownerId: seller.userId, name: `Pagingprod ${index}`, createdAt: at(micros) as unknown as Date })
        .returning({ id: product.id });
      rows.push({ id: row!.id, micros });
      // Every other product is found by its variant's SKU only.
      if (index % 2 === 0) {
        await t.context.db.insert(productVariant).values({ productId: row!.id, ownerId: seller.userId, name: 'Default', sku: `PAGESKU-${index}` });
      }
    }
    await t.context.db.insert(product).values({ ownerId: other.userId, name: 'Pagingprod of another seller' });
  });

  it('walks the seller’s products once each, newest first, with the total', async () => {
    const walked = await walk(seller, '/api/products?search=pagingprod', 2);
    expect(walked.ids).toEqual(newestFirst(rows));
    expect(walked.first.total).toBe(rows.length);
    const bySku = await walk(seller, '/api/products?search=pagesku', 1);
    expect(bySku.ids).toEqual(newestFirst(rows.filter((_, index) => index % 2 === 0)));
    expect(bySku.first.total).toBe(4);
    // An admin acting for the seller pages the same list.
    const forSeller = await walk(admin, `/api/products?targetUserId=${seller.userId}&search=pagingprod`, 3);
    expect(forSeller.ids).toEqual(walked.ids);
  });

  it('refuses a made-up cursor with 400', async () => {
    for (const cursor of [...MADE_UP_CURSORS, BAD_UUID_CURSOR]) await expectBadCursor(seller, '/api/products', cursor);
    expect((await seller.get('/api/products?page=2')).status).toBe(400);
  });
});

describe('GET /api/listings', () => {
  let shopId: string;
  let linkedId: string;
  const titles = ['Alpha', 'Alpha', 'Alpha', 'Beta', 'Beta', 'Gamma', 'alpha'];

  beforeAll(async () => {
    const connected = await seller.post('/api/shops/sandbox/connect', {});
    expect(connected.status).toBe(200);
    shopId = connected.body.shop.id;
    for (const [index, title] of titles.entries()) {
      await t.context.db.insert(listing).values({
        shopId,
        ownerId: seller.userId,
        externalListingId: `paging-${index}`,
        title: `Paginglist ${title}`,
      });
    }
    // One of them linked to a variant, for the linked/unmatched filters.
    const [p] = await t.context.db.insert(product).values({ ownerId: seller.userId, name: 'Linked product' }).returning({ id: product.id });
    const [v] = await t.context.db
      .insert(productVariant)
      .values({ productId: p!.id, ownerId: seller.userId, name: 'Default', sku: 'PAGELINK' })
      .returning({ id: productVariant.id });
    const [l] = await t.context.db
      .update(listing)
      .set({ linkedVariantId: v!.id, linkSource: 'manual' })
      .where(sql`${listing.externalListingId} = 'paging-6'`)
      .returning({ id: listing.id });
    linkedId = l!.id;
  });

  it('walks the listings once each, by title then id, with filters and the total', async () => {
    const all = await walk(seller, '/api/listings', 2);
    const stored = await t.context.db
      .select({ id: listing.id })
      .from(listing)
      .where(sql`${listing.ownerId} = ${seller.userId}`)
      .orderBy(listing.title, listing.id);
    expect(all.ids).toEqual(stored.map((row) => row.id));
    expect(all.first.total).toBe(stored.length);

    const searched = await walk(seller, `/api/listings?search=paginglist&shopId=${shopId}`, 2);
    expect(searched.ids).toHaveLength(titles.length);
    expect(searched.first.total).toBe(titles.length);

    // The unmatched inbox and the linked ones, each combined with the search and a cursor.
    const inbox = await walk(seller, '/api/listings?link=unmatched&search=paginglist', 2);
    expect(inbox.ids).toEqual(searched.ids.filter((id) => id !== linkedId));
    expect(inbox.first.total).toBe(titles.length - 1);
    expect((await walk(seller, '/api/listings?unmatched=true&search=paginglist', 5)).ids).toEqual(inbox.ids);
    const linked = await walk(seller, '/api/listings?link=linked&search=paginglist', 2);
    expect(linked.ids).toEqual([linkedId]);
    const allLinked = await walk(seller, '/api/listings?link=linked', 2);
    expect(allLinked.ids.length + (await walk(seller, '/api/listings?link=unmatched', 4)).ids.length).toBe(stored.length);

    expect((await walk(other, '/api/listings', 2)).ids).toEqual([]);
  });

  it('refuses a made-up cursor with 400', async () => {
    for (const cursor of [...MADE_UP_CURSORS, encodeCursor(['Alpha']), encodeCursor(['Alpha', 'not-a-uuid'])]) {
      await expectBadCursor(seller, '/api/listings', cursor);
    }
    expect((await seller.get('/api/listings?page=2')).status).toBe(400);
  });
});

describe('GET /api/admin/audit and /api/admin/contact-messages', () => {
  const times = [4, 4, 4, 0, 0, 9];

  /** The audit entries and messages keep their names (`entries`, `messages`) beside `nextCursor`. */
  async function walkNamed(url: string, key: 'entries' | 'messages', limit: number): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 500; pages += 1) {
      const response: { status: number; body: any } = await admin.get(`${url}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      ids.push(...(response.body[key] as { id: string }[]).map((item) => item.id));
      cursor = response.body.nextCursor;
      if (!cursor) return ids;
      expect(response.body[key]).toHaveLength(limit);
    }
    throw new Error('too many pages');
  }

  it('walks the audit log once each, newest first, with entries sharing a microsecond', async () => {
    const rows: { id: string; micros: number }[] = [];
    for (const micros of times) {
      const [row] = await t.context.db
        .insert(auditLog)
        .values({ actorId: admin.userId, targetUserId: null, action: 'paging.test', createdAt: at(micros) as unknown as Date })
        .returning({ id: auditLog.id });
      rows.push({ id: row!.id, micros });
    }
    const all = await walkNamed('/api/admin/audit', 'entries', 2);
    const stored = await t.context.db.select({ id: auditLog.id }).from(auditLog);
    expect(new Set(all).size).toBe(all.length);
    expect([...all].sort()).toEqual(stored.map((row) => row.id).sort());
    const mine = new Set(rows.map((row) => row.id));
    expect(all.filter((id) => mine.has(id))).toEqual(newestFirst(rows));
    for (const cursor of [...MADE_UP_CURSORS, BAD_UUID_CURSOR]) await expectBadCursor(admin, '/api/admin/audit', cursor);
  });

  it('walks the contact messages once each, newest first', async () => {
    const rows: { id: string; micros: number }[] = [];
    for (const micros of times) {
      const [row] = await t.context.db
        .insert(contactMessage)
        .values({ name: 'Paging', email: 'paging@example.test', subject: 'Paging', message: 'Hello, about paging', createdAt: at(micros) as unknown as Date })
        .returning({ id: contactMessage.id });
      rows.push({ id: row!.id, micros });
    }
    expect(await walkNamed('/api/admin/contact-messages', 'messages', 4)).toEqual(newestFirst(rows));
    for (const cursor of [...MADE_UP_CURSORS, BAD_UUID_CURSOR]) await expectBadCursor(admin, '/api/admin/contact-messages', cursor);
    expect((await seller.get('/api/admin/contact-messages')).status).toBe(403);
  });
});
