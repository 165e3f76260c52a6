import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createHash, createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { and, count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { apiKey, auditLog, order, orderOutbox, product, productVariant, webhookEndpoint } from '../../db/schema.ts';
import { sweepOrderOutbox } from '../../jobs/order-outbox-jobs.ts';

/**
 * The seller's own order API: keys, /api/v1 with key auth only, idempotent orders, webhooks signed
 * the Standard Webhooks way to a real local receiver, and manual orders.
 */

const ADDRESS = { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' };

let t: TestApp;
let sellerA: SignedInClient;
let sellerB: SignedInClient;
let plainSeller: SignedInClient;
let admin: SignedInClient;
let keyA: string;
let keyB: string;

/** A client that sends only the API key: no cookie, no browser headers. */
async function v1(key: string | null, method: string, urlPath: string, json?: unknown, extra: Record<string, string> = {}) {
  const headers: Record<string, string> = { accept: 'application/json', ...extra };
  if (key) headers.authorization = `Bearer ${key}`;
  if (json !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(new URL(urlPath, t.baseUrl), { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

async function addVariant(ownerId: string, sku: string): Promise<void> {
  const [p] = await t.context.db.insert(product).values({ ownerId, name: `Product ${sku}` }).returning({ id: product.id });
  await t.context.db.insert(productVariant).values({ productId: p!.id, ownerId, name: 'Default', sku });
}

async function ordersFor(ownerId: string): Promise<number> {
  const [row] = await t.context.db.select({ n: count() }).from(order).where(eq(order.ownerId, ownerId));
  return row?.n ?? 0;
}

const rowsOf = (result: unknown): any[] => (result as { rows: any[] }).rows;

/** pg-boss waits (with backoff) before a retry; tests move the clock forward instead of waiting. */
async function fastForwardRetries(): Promise<void> {
  await t.context.db.execute(sql`UPDATE pgboss.job SET start_after = now() WHERE name = 'webhook-delivery' AND state = 'retry'`);
}

async function waitFor<T>(probe: () => T | Promise<T>, what: string, timeoutMs = 20_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on 127.0.0.1 that answers with the scripted statuses, then 200. */
async function startReceiver() {
  const received: Received[] = [];
  const script: number[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.statusCode = script.shift() ?? 200;
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/layerline`,
    received,
    script,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Another Layerline web process (node src/main.ts) with these settings: its own data directory, no
 * demo data, no job work. Resolves once it listens.
 */
async function startServerProcess(env: Record<string, string>): Promise<{ baseUrl: string; pid: number; stop(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'layerline-second-'));
  const child = spawn(process.execPath, [path.resolve(import.meta.dirname, '../../main.ts')], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      SEED_DEMO_DATA: 'false',
      RUN_JOBS_IN_PROCESS: 'false',
      SLICING: 'off',
      LOG_LEVEL: 'error',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 90_000;
  let url: RegExpExecArray | null;
  while (!(url = /Layerline is running at (http:\/\/\S+)/.exec(out))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`the second server did not start:\n${out}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { baseUrl: `http://127.0.0.1:${new URL(url[1]!).port}`, pid: child.pid!, stop };
}

/** The Standard Webhooks signature, recomputed here independently of the server's code. */
function expectedSignature(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

beforeAll(async () => {
  // The webhook receivers of these tests listen on 127.0.0.1: allowed only with this setting.
  t = await startTestApp({ ALLOW_LOCAL_WEBHOOK_RECEIVERS: 'true' });
  [sellerA, sellerB, plainSeller, admin] = await Promise.all([
    t.signUp({ role: 'beta', name: 'Seller A' }),
    t.signUp({ role: 'beta', name: 'Seller B' }),
    t.signUp({ role: 'seller', name: 'Not in the beta' }),
    t.signUp({ role: 'admin' }),
  ]);
  await addVariant(sellerA.userId, 'CUBE-RED');
  await addVariant(sellerA.userId, 'CUBE-BLUE');
  await addVariant(sellerB.userId, 'B-ONLY');
});
afterAll(async () => {
  await t?.close();
});

describe('API keys', () => {
  it('creates a key, shows it once and stores only its hash', async () => {
    const created = await sellerA.post('/api/api-keys', { name: 'My shop' });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^ll_live_[A-Za-z0-9_-]{43}$/);
    expect(created.body).toMatchObject({ name: 'My shop', prefix: created.body.key.slice(0, 12), revokedAt: null, lastUsedAt: null });
    keyA = created.body.key;

    const list = await sellerA.get('/api/api-keys');
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(1);
    expect(list.body.items[0]).not.toHaveProperty('key');
    expect(JSON.stringify(list.body)).not.toContain(keyA.slice(12));

    const [row] = await t.context.db.select().from(apiKey).where(eq(apiKey.id, created.body.id));
    expect(row!.keyHash).toBe(createHash('sha256').update(keyA).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(keyA.slice(12));

    const b = await sellerB.post('/api/api-keys', { name: 'B shop' });
    keyB = b.body.key;
  });

  it('is created by beta testers (admins pass), listed by anyone signed in, and a seller never sees or revokes another’s keys', async () => {
    expect((await plainSeller.post('/api/api-keys', { name: 'x' })).status).toBe(403);
    const plainList = await plainSeller.get('/api/api-keys');
    expect(plainList.status).toBe(200);
    expect(plainList.body.items).toEqual([]);
    expect((await t.client().get('/api/api-keys')).status).toBe(401);
    expect((await admin.get('/api/api-keys')).status).toBe(200);

    const listB = await sellerB.get('/api/api-keys');
    expect(listB.body.items.map((k: { name: string }) => k.name)).toEqual(['B shop']);
    const [aKey] = (await sellerA.get('/api/api-keys')).body.items;
    expect((await sellerB.delete(`/api/api-keys/${aKey.id}`)).status).toBe(404);
    expect((await v1(keyA, 'GET', '/api/v1/orders')).status).toBe(200);
  });

  it('refuses extra fields and empty names', async () => {
    expect((await sellerA.post('/api/api-keys', { name: 'k', ownerId: sellerB.userId })).status).toBe(400);
    expect((await sellerA.post('/api/api-keys', { name: '  ' })).status).toBe(400);
  });
});

describe('POST /api/v1/orders', () => {
  it('creates the order (201), then answers the same order (200) for the same externalId', async () => {
    const body = { externalId: 'SHOP-1001', items: [{ sku: 'CUBE-RED', quantity: 2 }], shippingAddress: ADDRESS };
    const first = await v1(keyA, 'POST', '/api/v1/orders', body);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      externalId: 'SHOP-1001',
      platform: 'api',
      status: 'accepted',
      holdReason: null,
      customerName: 'Ada Buyer',
      items: [{ sku: 'CUBE-RED', quantity: 2, matched: true }],
    });
    expect(first.body.events.map((e: { toStatus: string }) => e.toStatus)).toEqual(['received', 'accepted']);
    expect(first.body).not.toHaveProperty('ownerId');

    const again = await v1(keyA, 'POST', '/api/v1/orders', { ...body, items: [{ sku: 'CUBE-BLUE', quantity: 9 }] });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.items).toEqual(first.body.items);

    const [row] = await t.context.db.select({ channel: order.channel, ownerId: order.ownerId }).from(order).where(eq(order.id, first.body.id));
    expect(row).toEqual({ channel: `api:${sellerA.userId}`, ownerId: sellerA.userId });
    const got = await v1(keyA, 'GET', `/api/v1/orders/${first.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(first.body.id);
  });

  it('puts an order with an unknown SKU on hold with the reason (still 201)', async () => {
    const response = await v1(keyA, 'POST', '/api/v1/orders', {
      externalId: 'SHOP-1002',
      items: [{ sku: 'CUBE-RED', quantity: 1 }, { sku: 'NOPE-9', quantity: 1 }],
      shippingAddress: ADDRESS,
    });
    expect(response.status).toBe(201);
    expect(response.body.status).toBe('on_hold');
    expect(response.body.holdReason).toContain('NOPE-9');
    expect(response.body.items.map((i: { matched: boolean }) => i.matched)).toEqual([true, false]);
  });

  it('stores 50 concurrent sends of one externalId exactly once', async () => {
    const body = { externalId: 'SHOP-RACE', items: [{ sku: 'CUBE-BLUE', quantity: 1 }], shippingAddress: ADDRESS };
    const responses = await Promise.all(Array.from({ length: 50 }, () => v1(keyA, 'POST', '/api/v1/orders', body)));
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 200)).toHaveLength(49);
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
    const [row] = await t.context.db
      .select({ n: count() })
      .from(order)
      .where(and(eq(order.channel, `api:${sellerA.userId}`), eq(order.externalId, 'SHOP-RACE')));
    expect(row!.n).toBe(1);
  });

  it('refuses extra fields anywhere (mass assignment) and writes nothing', async () => {
    const before = await ordersFor(sellerA.userId);
    const base = { externalId: 'SHOP-EXTRA', items: [{ sku: 'CUBE-RED', quantity: 1 }], shippingAddress: ADDRESS };
    for (const body of [
      { ...base, ownerId: sellerB.userId },
      { ...base, status: 'shipped' },
      { ...base, items: [{ sku: 'CUBE-RED', quantity: 1, unitPriceCents: 1 }] },
      { ...base, shippingAddress: { ...ADDRESS, admin: true } },
      { ...base, items: [] },
      { ...base, shippingAddress: { ...ADDRESS, country: 'usa' } },
    ]) {
      const response = await v1(keyA, 'POST', '/api/v1/orders', body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(typeof response.body.error).toBe('string');
    }
    expect(await ordersFor(sellerA.userId)).toBe(before);
  });

  it('refuses a country that is not an assigned ISO 3166-1 alpha-2 code (XX), here and on manual orders', async () => {
    const before = await ordersFor(sellerA.userId);
    for (const country of ['XX', 'EU', 'UK']) {
      const response = await v1(keyA, 'POST', '/api/v1/orders', {
        externalId: `SHOP-${country}`,
        items: [{ sku: 'CUBE-RED', quantity: 1 }],
        shippingAddress: { ...ADDRESS, country },
      });
      expect(response.status, country).toBe(400);
      expect(response.body.error).toMatch(/^shippingAddress\.country: .*ISO 3166-1/);
    }
    const manual = await sellerA.post('/api/orders/manual', { items: [{ sku: 'CUBE-RED', quantity: 1 }], shippingAddress: { ...ADDRESS, country: 'XX' } });
    expect(manual.status).toBe(400);
    expect(await ordersFor(sellerA.userId)).toBe(before);
    const gb = await v1(keyB, 'POST', '/api/v1/orders', { externalId: 'SHOP-GB', items: [{ sku: 'B-ONLY', quantity: 1 }], shippingAddress: { ...ADDRESS, country: 'GB' } });
    expect(gb.status).toBe(201);
  });

  it('lists the seller’s orders newest first, page by page', async () => {
    const first = await v1(keyA, 'GET', '/api/v1/orders?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(2);
    expect(first.body.nextCursor).toBe(first.body.items[1].id);
    const second = await v1(keyA, 'GET', `/api/v1/orders?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.items).toHaveLength(1);
    expect(second.body.nextCursor).toBeNull();
    const ids = [...first.body.items, ...second.body.items].map((o: { externalId: string }) => o.externalId);
    expect(ids.sort()).toEqual(['SHOP-1001', 'SHOP-1002', 'SHOP-RACE']);
    const held = await v1(keyA, 'GET', '/api/v1/orders?status=on_hold');
    expect(held.body.items.map((o: { externalId: string }) => o.externalId)).toEqual(['SHOP-1002']);
    expect((await v1(keyA, 'GET', '/api/v1/orders?status=bogus')).status).toBe(400);
  });
});

describe('/api/v1 authentication', () => {
  it('accepts only API keys: a session cookie or session token alone gets 401', async () => {
    const cookieOnly = await sellerA.get('/api/v1/orders');
    expect(cookieOnly.status).toBe(401);
    const post = await sellerA.post('/api/v1/orders', { externalId: 'COOKIE-1', items: [{ sku: 'CUBE-RED', quantity: 1 }], shippingAddress: ADDRESS });
    expect(post.status).toBe(401);

    const signIn = await t.client().post('/api/auth/sign-in/email', { email: sellerA.email, password: sellerA.password });
    const sessionToken = signIn.headers.get('set-auth-token');
    expect(sessionToken).toBeTruthy();
    expect((await v1(sessionToken!, 'GET', '/api/v1/orders')).status).toBe(401);
    expect((await v1(null, 'GET', '/api/v1/orders')).status).toBe(401);
    expect((await v1('ll_live_' + 'x'.repeat(43), 'GET', '/api/v1/orders')).body).toEqual({ error: 'Invalid API key' });
  });

  it('authenticates before validating: a bad body without a key is 401, not 400', async () => {
    expect((await v1(null, 'POST', '/api/v1/orders', { nonsense: true })).status).toBe(401);
  });

  it('records when a key was last used', async () => {
    const [row] = await t.context.db.select({ lastUsedAt: apiKey.lastUsedAt }).from(apiKey).where(eq(apiKey.prefix, keyA.slice(0, 12)));
    expect(row!.lastUsedAt).toBeInstanceOf(Date);
  });

  it('refuses a revoked key with 401 Invalid API key', async () => {
    const created = await sellerA.post('/api/api-keys', { name: 'to revoke' });
    expect((await v1(created.body.key, 'GET', '/api/v1/orders')).status).toBe(200);
    expect((await sellerA.delete(`/api/api-keys/${created.body.id}`)).status).toBe(204);
    const response = await v1(created.body.key, 'GET', '/api/v1/orders');
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: 'Invalid API key' });
    const list = await sellerA.get('/api/api-keys');
    expect(list.body.items.find((k: { id: string }) => k.id === created.body.id).revokedAt).not.toBeNull();
  });

  it('never shows seller B’s order to seller A’s key (404)', async () => {
    const b = await v1(keyB, 'POST', '/api/v1/orders', { externalId: 'B-1', items: [{ sku: 'B-ONLY', quantity: 1 }], shippingAddress: ADDRESS });
    expect(b.status).toBe(201);
    const response = await v1(keyA, 'GET', `/api/v1/orders/${b.body.id}`);
    expect(response.status).toBe(404);
    expect(JSON.stringify(response.body)).not.toContain('B-1');
    // The same externalId from another seller is another order.
    const a = await v1(keyA, 'POST', '/api/v1/orders', { externalId: 'B-1', items: [{ sku: 'CUBE-RED', quantity: 1 }], shippingAddress: ADDRESS });
    expect(a.status).toBe(201);
    expect(a.body.id).not.toBe(b.body.id);
    const listA = await v1(keyA, 'GET', '/api/v1/orders?limit=100');
    expect(listA.body.items.map((o: { id: string }) => o.id)).not.toContain(b.body.id);
  });

  it('limits each key to 120 requests a minute', async () => {
    const created = await sellerB.post('/api/api-keys', { name: 'busy' });
    const statuses: number[] = [];
    for (let i = 0; i < 121; i += 1) statuses.push((await v1(created.body.key, 'GET', '/api/v1/orders?limit=1')).status);
    expect(statuses.slice(0, 120).every((s) => s === 200)).toBe(true);
    const limited = await v1(created.body.key, 'GET', '/api/v1/orders?limit=1');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'This API key is limited to 120 requests per minute' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(limited.headers.get('x-retry-after')).toBeNull();
    expect((await v1(keyB, 'GET', '/api/v1/orders?limit=1')).status).toBe(200); // other keys unaffected
  });

  it('answers as docs/order-api.md says: missing key, 413, 415, and the key checked before the body', async () => {
    const missing = await v1(null, 'GET', '/api/v1/orders');
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ error: 'Send your API key in the header Authorization: Bearer ll_live_…' });
    expect((await v1('not-a-key', 'GET', '/api/v1/orders')).body).toEqual({ error: 'Invalid API key' });

    const huge = { externalId: 'HUGE', items: [{ sku: 'CUBE-RED', quantity: 1 }], shippingAddress: { ...ADDRESS, line2: 'x'.repeat(1_100_000) } };
    const tooLarge = await v1(keyA, 'POST', '/api/v1/orders', huge);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body).toEqual({ error: 'Request body is too large' });
    expect((await v1(null, 'POST', '/api/v1/orders', huge)).status).toBe(401);

    const response = await fetch(new URL('/api/v1/orders', t.baseUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${keyA}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'externalId=1',
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual({ error: 'Unsupported Media Type' });
    const text = await fetch(new URL('/api/v1/orders', t.baseUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${keyA}`, 'content-type': 'text/plain' },
      body: 'externalId=1',
    });
    expect(text.status).toBe(400); // text/plain is read as a string, which is not an order
    const notJson = await v1(keyA, 'POST', '/api/v1/orders', undefined, { 'content-type': 'application/json' });
    expect(notJson.status).toBe(400);
  });

  it('allows 20 active keys per seller, then 409 until one is revoked', async () => {
    const seller = await t.signUp({ role: 'beta', name: 'Many keys' });
    for (let i = 0; i < 20; i++) expect((await seller.post('/api/api-keys', { name: `k${i}` })).status).toBe(201);
    const refused = await seller.post('/api/api-keys', { name: 'k20' });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ error: 'You have 20 active keys; revoke one you no longer use first' });
    const [first] = (await seller.get('/api/api-keys')).body.items;
    expect((await seller.delete(`/api/api-keys/${first.id}`)).status).toBe(204);
    expect((await seller.post('/api/api-keys', { name: 'k20' })).status).toBe(201);
  });

  it('lists the active keys and the 20 most recently revoked, however many were made and revoked (a short list, not paged)', async () => {
    const seller = await t.signUp({ role: 'beta', name: 'Key churner' });
    const revoked: string[] = [];
    for (let i = 0; i < 25; i++) {
      const created = await seller.post('/api/api-keys', { name: `old ${i}` });
      expect(created.status).toBe(201);
      expect((await seller.delete(`/api/api-keys/${created.body.id}`)).status).toBe(204);
      revoked.push(created.body.id);
    }
    const live = await seller.post('/api/api-keys', { name: 'live' });
    const listed = (await seller.get('/api/api-keys')).body.items as { id: string; revokedAt: string | null }[];
    expect(listed).toHaveLength(21);
    expect(listed[0]).toMatchObject({ id: live.body.id, revokedAt: null });
    expect(listed.slice(1).map((k) => k.id)).toEqual(revoked.slice(5).reverse());
    expect(listed.slice(1).every((k) => k.revokedAt !== null)).toBe(true);
  });

  it('holds the limit in the database: two server processes on one PostgreSQL database share it', { timeout: 150_000 }, async (ctx) => {
    // PGlite is one process per data directory by design; there the limit is the one above.
    if (t.databaseKind !== 'postgres') return ctx.skip();
    // A second web process of its own (node src/main.ts, as `npm start` runs it), sharing nothing
    // with this one but the database.
    const second = await startServerProcess({ DATABASE_URL: t.context.config.databaseUrl! });
    try {
      expect(second.pid).not.toBe(process.pid);
      const key = (await sellerB.post('/api/api-keys', { name: 'two servers' })).body.key as string;
      const on = (baseUrl: string) =>
        fetch(new URL('/api/v1/orders?limit=1', baseUrl), { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
      const statuses = await Promise.all(Array.from({ length: 120 }, (_, i) => on(i % 2 === 0 ? t.baseUrl : second.baseUrl)));
      expect(statuses.filter((s) => s === 200)).toHaveLength(120);
      // 60 through each process: 120 in all, so the next request is refused by either one.
      expect(await on(t.baseUrl)).toBe(429);
      expect(await on(second.baseUrl)).toBe(429);
      // Another key of the same seller is not affected, on either process.
      expect((await v1(keyB, 'GET', '/api/v1/orders?limit=1')).status).toBe(200);
    } finally {
      await second.stop();
    }
  });

  it('documents the order API in OpenAPI with its security scheme', async () => {
    const response = await t.client().get('/api/docs/json');
    expect(response.status, JSON.stringify(response.body).slice(0, 300)).toBe(200);
    const doc = response.body;
    const post = doc.paths['/api/v1/orders'].post;
    expect(post.tags).toEqual(['order-api']);
    expect(post.security).toEqual([{ apiKey: [] }]);
    expect(post.requestBody.content['application/json'].schema.properties).toHaveProperty('externalId');
    expect(doc.paths['/api/v1/orders/{id}'].get.security).toEqual([{ apiKey: [] }]);
  });
});

describe('webhooks to the seller', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let secret: string;

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  /** A fresh accepted API order of seller A (its creation sends a webhook too, when an endpoint is set). */
  async function newOrder(externalId: string): Promise<string> {
    const response = await v1(keyA, 'POST', '/api/v1/orders', { externalId, items: [{ sku: 'CUBE-RED', quantity: 1 }], shippingAddress: ADDRESS });
    expect(response.status).toBe(201);
    return response.body.id;
  }
  const adminViewer = () => ({ id: admin.userId, isAdmin: true });
  /** Seller A's recorded deliveries of one status change (its `order.status_changed`; a cancellation also has its `order.cancelled`). */
  const deliveriesOf = async (orderId: string, to: string): Promise<any[]> =>
    (await sellerA.get('/api/webhook-endpoint/deliveries')).body.items.filter(
      (d: any) => d.orderId === orderId && d.toStatus === to && d.type === 'order.status_changed',
    );
  const forOrder = (orderId: string, status: string) => (r: Received) => {
    const event = JSON.parse(r.body);
    return event.data.order.id === orderId && event.data.status === status;
  };

  it('sets the endpoint and shows the secret once, sealed at rest', async () => {
    const put = await sellerA.request<any>('PUT', '/api/webhook-endpoint', { url: receiver.url }, {});
    expect(put.status).toBe(200);
    expect(put.body.url).toBe(receiver.url);
    expect(put.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    secret = put.body.secret;

    const got = await sellerA.get('/api/webhook-endpoint');
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty('secret');
    const again = await sellerA.request<any>('PUT', '/api/webhook-endpoint', { url: receiver.url }, {});
    expect(again.body).not.toHaveProperty('secret');

    const [row] = await t.context.db.select().from(webhookEndpoint).where(eq(webhookEndpoint.ownerId, sellerA.userId));
    expect(row!.secretEnc).not.toContain(secret.slice(6));
    expect((await sellerB.get('/api/webhook-endpoint')).status).toBe(404);
    expect((await plainSeller.request<any>('PUT', '/api/webhook-endpoint', { url: receiver.url }, {})).status).toBe(403);
    expect((await sellerA.request<any>('PUT', '/api/webhook-endpoint', { url: 'ftp://example.com/x' }, {})).status).toBe(422);
    expect((await sellerA.request<any>('PUT', '/api/webhook-endpoint', { url: receiver.url, secret: 'mine' }, {})).status).toBe(400);
  });

  it('sends one signed delivery when an order’s status changes', async () => {
    const orderId = await newOrder('HOOK-1');
    await t.context.orders.changeStatus(adminViewer(), orderId, 'in_production', 'Printing now');
    const delivery = await waitFor(() => receiver.received.find(forOrder(orderId, 'in_production')), 'the in_production webhook');

    const { headers, body } = delivery;
    expect(headers['content-type']).toBe('application/json');
    const id = headers['webhook-id'] as string;
    const timestamp = headers['webhook-timestamp'] as string;
    expect(id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(60);
    expect(headers['webhook-signature']).toBe(expectedSignature(secret, id, timestamp, body));
    expect(headers['webhook-signature']).not.toBe(expectedSignature('whsec_' + Buffer.from('wrong').toString('base64'), id, timestamp, body));

    const event = JSON.parse(body);
    expect(event).toMatchObject({ id, type: 'order.status_changed', data: { previousStatus: 'accepted', status: 'in_production' } });
    expect(event.data.order).toMatchObject({ id: orderId, externalId: 'HOOK-1', status: 'in_production' });
    expect(event.data.order).not.toHaveProperty('ownerEmail');
    // Creation was announced as well (from null), and nothing was sent twice.
    await waitFor(() => receiver.received.find(forOrder(orderId, 'accepted')), 'the creation webhook');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.received.filter((r) => JSON.parse(r.body).data.order.id === orderId)).toHaveLength(2);
  });

  it('retries a delivery the receiver failed (500), with the same event id', async () => {
    const orderId = await newOrder('HOOK-2');
    await waitFor(() => receiver.received.find(forOrder(orderId, 'accepted')), 'the creation webhook');
    receiver.script.push(500);
    await t.context.orders.changeStatus(adminViewer(), orderId, 'cancelled', 'Customer changed their mind');
    const first = await waitFor(() => receiver.received.find(forOrder(orderId, 'cancelled')), 'the first attempt');
    await waitFor(async () => {
      await fastForwardRetries();
      return receiver.received.filter(forOrder(orderId, 'cancelled')).length >= 2;
    }, 'the retry');
    const attempts = receiver.received.filter(forOrder(orderId, 'cancelled'));
    expect(attempts).toHaveLength(2);
    expect(attempts[1]!.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(attempts[1]!.body).toBe(first.body);
    const a2 = attempts[1]!;
    expect(a2.headers['webhook-signature']).toBe(expectedSignature(secret, a2.headers['webhook-id'] as string, a2.headers['webhook-timestamp'] as string, a2.body));
    // The seller sees both attempts on the one delivery.
    const row = await waitFor(async () => (await deliveriesOf(orderId, 'cancelled')).find((d) => d.state === 'delivered'), 'the delivery recorded as delivered');
    expect(row).toMatchObject({ eventId: first.headers['webhook-id'], attempts: 2, lastStatusCode: 200, lastError: '', fromStatus: 'accepted' });
    expect(row.deliveredAt).not.toBeNull();
  });

  it('does not retry a delivery the receiver refused with a plain 4xx', async () => {
    const orderId = await newOrder('HOOK-3');
    await waitFor(() => receiver.received.find(forOrder(orderId, 'accepted')), 'the creation webhook');
    receiver.script.push(400);
    await t.context.orders.changeStatus(adminViewer(), orderId, 'in_production', '');
    await waitFor(() => receiver.received.find(forOrder(orderId, 'in_production')), 'the first attempt');
    await waitFor(async () => {
      const rows = rowsOf(await t.context.db.execute(sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'webhook-delivery' AND state IN ('created', 'retry', 'active')`));
      return rows[0].n === 0;
    }, 'the queue to settle');
    await fastForwardRetries();
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(receiver.received.filter(forOrder(orderId, 'in_production'))).toHaveLength(1);
    const [refused] = await deliveriesOf(orderId, 'in_production');
    expect(refused).toMatchObject({ state: 'refused', attempts: 1, lastStatusCode: 400, orderExternalId: 'HOOK-3' });
    expect(refused!.lastError).toContain('400');

    // The seller fixed their receiver and sends it again: same event, a fresh round of attempts.
    expect((await sellerB.post(`/api/webhook-endpoint/deliveries/${refused!.id}/resend`)).status).toBe(404);
    expect((await sellerA.post('/api/webhook-endpoint/deliveries/not-an-id/resend')).status).toBe(400);
    const resent = await sellerA.post(`/api/webhook-endpoint/deliveries/${refused!.id}/resend`);
    expect(resent.status).toBe(202);
    expect(resent.body).toMatchObject({ id: refused!.id, state: 'pending', eventId: refused!.eventId });
    const again = await waitFor(() => receiver.received.filter(forOrder(orderId, 'in_production'))[1], 'the resent delivery');
    expect(again.headers['webhook-id']).toBe(refused!.eventId);
    const delivered = await waitFor(async () => (await deliveriesOf(orderId, 'in_production')).find((d) => d.state === 'delivered'), 'the resend recorded');
    expect(delivered).toMatchObject({ attempts: 2, lastStatusCode: 200 });

    // Two clicks at once queue it once.
    const clicks = await Promise.all([1, 2].map(() => sellerA.post(`/api/webhook-endpoint/deliveries/${refused!.id}/resend`)));
    expect(clicks.map((c) => c.status).sort()).toEqual([202, 409]);
    await waitFor(async () => (await deliveriesOf(orderId, 'in_production'))[0]?.state === 'delivered', 'the second resend');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.received.filter(forOrder(orderId, 'in_production'))).toHaveLength(3);
  });

  it('marks a delivery failed when its last attempt fails; the seller can send it again', async () => {
    const orderId = await newOrder('HOOK-LAST');
    await waitFor(async () => (await deliveriesOf(orderId, 'accepted'))[0]?.state === 'delivered', 'the creation webhook');
    const [delivery] = await deliveriesOf(orderId, 'accepted');
    // Still pending on the attempt the queue will not retry (retryCount = retryLimit): a 503 is final then.
    await t.context.db.execute(sql`UPDATE webhook_delivery SET state = 'pending' WHERE id = ${delivery!.id}`);
    receiver.script.push(503);
    const job = { deliveryId: delivery!.id, ownerId: sellerA.userId, eventId: delivery!.eventId };
    await expect(t.context.webhookDeliveries.deliver(job, { lastAttempt: true })).rejects.toThrow(/503/);
    const [failed] = await deliveriesOf(orderId, 'accepted');
    expect(failed).toMatchObject({ state: 'failed', lastStatusCode: 503, attempts: 2 });
    // Resent: delivered on the next attempt.
    expect((await sellerA.post(`/api/webhook-endpoint/deliveries/${delivery!.id}/resend`)).status).toBe(202);
    const delivered = await waitFor(async () => (await deliveriesOf(orderId, 'accepted')).find((d) => d.state === 'delivered'), 'the resend');
    expect(delivered).toMatchObject({ attempts: 3, lastStatusCode: 200, lastError: '' });
    // A job that runs again after that (at least once) has nothing to do: no request.
    const before = receiver.received.length;
    expect(await t.context.webhookDeliveries.deliver(job, { lastAttempt: false })).toBe('gone');
    expect(receiver.received.length).toBe(before);
  });

  it('lists each seller’s own deliveries only, newest first', async () => {
    const orderId = await newOrder('HOOK-LIST');
    await waitFor(() => receiver.received.find(forOrder(orderId, 'accepted')), 'the creation webhook');
    const list = await waitFor(async () => {
      const response = await sellerA.get('/api/webhook-endpoint/deliveries');
      return response.body.items[0]?.orderId === orderId && response.body.items[0].state === 'delivered' ? response : null;
    }, 'the delivery in the list');
    expect(list.body.items[0]).toMatchObject({ orderExternalId: 'HOOK-LIST', fromStatus: null, toStatus: 'accepted', attempts: 1, lastStatusCode: 200 });
    expect(list.body.items[0].eventId).toBe(receiver.received.find(forOrder(orderId, 'accepted'))!.headers['webhook-id']);
    const times = list.body.items.map((d: any) => d.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
    const b = await sellerB.get('/api/webhook-endpoint/deliveries');
    expect(b.status).toBe(200);
    expect(b.body.items).toEqual([]);
    // Anyone signed in may look at their own (a seller out of the beta included): none here.
    const plain = await plainSeller.get('/api/webhook-endpoint/deliveries');
    expect(plain.status).toBe(200);
    expect(plain.body.items).toEqual([]);
  });

  it('sends a change whose announcement a crash lost, once, when the outbox sweep runs', async () => {
    const orderId = await newOrder('HOOK-CRASH');
    await waitFor(() => receiver.received.find(forOrder(orderId, 'accepted')), 'the creation webhook');
    // What a process killed right after the commit leaves: the change and its announcement, unannounced.
    await t.context.db.transaction(async (tx) => {
      await tx.update(order).set({ status: 'in_production' }).where(eq(order.id, orderId));
      await tx.insert(orderOutbox).values({ orderId, fromStatus: 'accepted', toStatus: 'in_production', createdAt: sql`now() - interval '2 minutes'` });
    });
    await sweepOrderOutbox(t.context.orders);
    const delivery = await waitFor(() => receiver.received.find(forOrder(orderId, 'in_production')), 'the recovered webhook');
    expect(JSON.parse(delivery.body).data).toMatchObject({ previousStatus: 'accepted', status: 'in_production' });
    // Announcing every change of the order again sends nothing twice.
    await t.context.db.update(orderOutbox).set({ announcedAt: null }).where(eq(orderOutbox.orderId, orderId));
    await sweepOrderOutbox(t.context.orders, 0);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.received.filter((r) => JSON.parse(r.body).data.order.id === orderId)).toHaveLength(2);
  });

  it('rotates the secret: later deliveries are signed with the new one only', async () => {
    const rotated = await sellerA.post('/api/webhook-endpoint/rotate-secret');
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(secret);
    const orderId = await newOrder('HOOK-4');
    const delivery = await waitFor(() => receiver.received.find(forOrder(orderId, 'accepted')), 'the creation webhook');
    const id = delivery.headers['webhook-id'] as string;
    const ts = delivery.headers['webhook-timestamp'] as string;
    expect(delivery.headers['webhook-signature']).toBe(expectedSignature(rotated.body.secret, id, ts, delivery.body));
    expect(delivery.headers['webhook-signature']).not.toBe(expectedSignature(secret, id, ts, delivery.body));
  });

  it('stops sending once the endpoint is removed', async () => {
    expect((await sellerA.delete('/api/webhook-endpoint')).status).toBe(204);
    expect((await sellerA.get('/api/webhook-endpoint')).status).toBe(404);
    const before = receiver.received.length;
    await newOrder('HOOK-5');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.received.length).toBe(before);
  });
});

describe('a seller taken out of the beta', () => {
  it('still lists and revokes their keys and sees and removes their webhook endpoint, while the keys stop working (403)', async () => {
    const seller = await t.signUp({ role: 'beta', name: 'Leaving the beta' });
    await addVariant(seller.userId, 'LEAVER-1');
    const created = await seller.post('/api/api-keys', { name: 'Soon out' });
    expect(created.status).toBe(201);
    const key = created.body.key as string;
    expect((await seller.request<any>('PUT', '/api/webhook-endpoint', { url: 'http://127.0.0.1:9/hooks' }, {})).status).toBe(200);
    const body = (externalId: string) => ({ externalId, items: [{ sku: 'LEAVER-1', quantity: 1 }], shippingAddress: ADDRESS });
    expect((await v1(key, 'POST', '/api/v1/orders', body('LEAVE-1'))).status).toBe(201);

    const flagged = await admin.patch(`/api/admin/users/${seller.userId}`, { isBetaTester: false });
    expect(flagged.status).toBe(200);
    const before = await ordersFor(seller.userId);

    // The key no longer opens /api/v1, at once, with a clear answer.
    const refused = await v1(key, 'POST', '/api/v1/orders', body('LEAVE-2'));
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'The order API is open to beta testers only, and this key’s owner is not in the beta' });
    expect((await v1(key, 'GET', '/api/v1/orders')).status).toBe(403);
    expect(await ordersFor(seller.userId)).toBe(before);

    // Their credentials stay theirs to see and revoke; new ones need the beta.
    const list = await seller.get('/api/api-keys');
    expect(list.status).toBe(200);
    expect(list.body.items.map((k: { name: string }) => k.name)).toEqual(['Soon out']);
    expect((await seller.post('/api/api-keys', { name: 'another' })).status).toBe(403);
    expect((await seller.get('/api/webhook-endpoint')).status).toBe(200);
    expect((await seller.get('/api/webhook-endpoint/deliveries')).status).toBe(200);
    expect((await seller.request<any>('PUT', '/api/webhook-endpoint', { url: 'http://127.0.0.1:9/other' }, {})).status).toBe(403);
    expect((await seller.post('/api/webhook-endpoint/rotate-secret')).status).toBe(403);
    expect((await seller.delete(`/api/api-keys/${list.body.items[0].id}`)).status).toBe(204);
    expect((await seller.get('/api/api-keys')).body.items[0].revokedAt).not.toBeNull();
    expect((await v1(key, 'GET', '/api/v1/orders')).status).toBe(401);
    expect((await seller.delete('/api/webhook-endpoint')).status).toBe(204);
    expect((await seller.get('/api/webhook-endpoint')).status).toBe(404);

    // Back in the beta, a fresh key works again.
    await admin.patch(`/api/admin/users/${seller.userId}`, { isBetaTester: true });
    const again = await seller.post('/api/api-keys', { name: 'Back' });
    expect((await v1(again.body.key, 'POST', '/api/v1/orders', body('LEAVE-3'))).status).toBe(201);
  });
});

describe('manual orders', () => {
  it('creates a manual order from the seller’s own SKUs', async () => {
    const response = await sellerA.post('/api/orders/manual', {
      items: [{ sku: 'CUBE-RED', quantity: 3 }],
      shippingAddress: ADDRESS,
      note: 'Gift wrap please',
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ ownerId: sellerA.userId, platform: 'manual', status: 'accepted', note: 'Gift wrap please' });
    expect(response.body.externalId).toMatch(/^M-[0-9A-Z]{10}$/);
    const [row] = await t.context.db.select({ channel: order.channel }).from(order).where(eq(order.id, response.body.id));
    expect(row!.channel).toBe(`manual:${sellerA.userId}`);
  });

  it('refuses an unknown SKU (400 naming it) and writes nothing', async () => {
    const before = await ordersFor(sellerA.userId);
    const response = await sellerA.post('/api/orders/manual', {
      items: [{ sku: 'CUBE-RED', quantity: 1 }, { sku: 'B-ONLY', quantity: 1 }],
      shippingAddress: ADDRESS,
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toContain('B-ONLY');
    expect(await ordersFor(sellerA.userId)).toBe(before);
    expect((await sellerA.post('/api/orders/manual', { items: [{ sku: 'CUBE-RED', quantity: 1 }], shippingAddress: { ...ADDRESS, postalCode: '' } })).status).toBe(400);
    expect((await sellerA.post('/api/orders/manual', { items: [{ sku: 'CUBE-RED', quantity: 1 }], shippingAddress: ADDRESS, status: 'shipped' })).status).toBe(400);
  });

  it('lets only admins place one for a seller, and audits it with the real actor', async () => {
    const denied = await sellerB.post('/api/orders/manual', { items: [{ sku: 'CUBE-RED', quantity: 1 }], shippingAddress: ADDRESS, targetUserId: sellerA.userId });
    expect(denied.status).toBe(403);

    const response = await admin.post('/api/orders/manual', {
      items: [{ sku: 'B-ONLY', quantity: 1 }],
      shippingAddress: ADDRESS,
      targetUserId: sellerB.userId,
    });
    expect(response.status).toBe(201);
    expect(response.body.ownerId).toBe(sellerB.userId);
    expect(response.body.events.at(-1)).toMatchObject({ actorKind: 'admin' });
    const audits = await t.context.db.select().from(auditLog).where(eq(auditLog.action, 'order.manual.for-user'));
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ actorId: admin.userId, targetUserId: sellerB.userId });
    expect(audits[0]!.detail).toMatchObject({ orderId: response.body.id });
    expect(audits[0]!.requestId).toBeTruthy();
  });
});
