import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { auditLog, product, productVariant } from '../../db/schema.ts';

/**
 * Background jobs for admins (ING-5, S-32): a webhook delivery whose receiver always answers 500
 * is retried with growing backoff by the real 'webhook-delivery' policy, dead-lettered after its
 * last attempt, shown to admins with its queue and error, and sent again by an admin (audited),
 * while 50 good deliveries on the same queue keep their latency. pg-boss schedules each retry in
 * the job row (start_after); the test reads that delay, then moves the clock forward instead of
 * waiting hours. A plain 4xx is never retried: order-api.api.test.ts covers it.
 */

const ADDRESS = { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' };
/** The 'webhook-delivery' policy in jobs/job-queue.ts. */
const RETRY_LIMIT = 8;
const RETRY_DELAY_SECONDS = 15;

let t: TestApp;
let seller: SignedInClient;
let plainSeller: SignedInClient;
let admin: SignedInClient;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

const rowsOf = (result: unknown): any[] => (result as { rows: any[] }).rows;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(probe: () => T | Promise<T>, what: string, timeoutMs = 20_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

interface Hit {
  externalId: string;
  eventId: string;
  eventCreatedAt: number;
  at: number;
}

/** The seller's webhook receiver: 500 for orders whose externalId is in `failing`, else 200. */
async function startReceiver() {
  const hits: Hit[] = [];
  const failing = new Set<string>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const externalId = event.data.order.externalId as string;
      hits.push({ externalId, eventId: event.id, eventCreatedAt: Date.parse(event.createdAt), at: Date.now() });
      response.statusCode = failing.has(externalId) ? 500 : 200;
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    hits,
    failing,
    hitsFor: (externalId: string) => hits.filter((hit) => hit.externalId === externalId),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function newApiKey(): Promise<string> {
  const created = await seller.post('/api/api-keys', { name: `key ${Date.now()}` });
  expect(created.status).toBe(201);
  return created.body.key;
}

async function createOrder(key: string, externalId: string): Promise<void> {
  const response = await fetch(new URL('/api/v1/orders', t.baseUrl), {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ externalId, items: [{ sku: 'JOB-CUBE', quantity: 1 }], shippingAddress: ADDRESS }),
  });
  expect(response.status).toBe(201);
}

/** Creates the orders (5 at a time); each announces itself with one webhook. Resolves with each delivery's latency in ms. */
async function deliverGoodWebhooks(key: string, prefix: string, count: number): Promise<number[]> {
  const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
  for (let i = 0; i < ids.length; i += 5) await Promise.all(ids.slice(i, i + 5).map((id) => createOrder(key, id)));
  const hits = await waitFor(() => {
    const found = ids.map((id) => receiver.hitsFor(id)[0]);
    return found.every(Boolean) ? (found as Hit[]) : null;
  }, `${count} good deliveries (${receiver.hits.length} hits so far)`, 30_000);
  // From the status change (the event is created then, and queued in the same breath) to the receiver.
  return hits.map((hit) => hit.at - hit.eventCreatedAt);
}

const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.95) - 1]!;

async function poisonJob(externalId: string): Promise<{ id: string; state: string; retryCount: number; startAfter: Date } | undefined> {
  const rows = rowsOf(
    await t.context.db.execute(
      sql`SELECT job.id, job.state, job.retry_count, job.start_after FROM pgboss.job AS job
          JOIN webhook_delivery AS delivery ON delivery.id::text = job.data ->> 'deliveryId'
          WHERE job.name = 'webhook-delivery' AND delivery.event -> 'data' -> 'order' ->> 'externalId' = ${externalId}`,
    ),
  );
  const row = rows[0];
  return row ? { id: row.id, state: row.state, retryCount: Number(row.retry_count), startAfter: new Date(row.start_after) } : undefined;
}

beforeAll(async () => {
  t = await startTestApp({ ALLOW_LOCAL_WEBHOOK_RECEIVERS: 'true' }); // its webhook receiver is on 127.0.0.1
  receiver = await startReceiver();
  [seller, plainSeller, admin] = await Promise.all([
    t.signUp({ role: 'beta', name: 'Webhook seller' }),
    t.signUp({ role: 'seller', name: 'Someone else' }),
    t.signUp({ role: 'admin' }),
  ]);
  const [p] = await t.context.db.insert(product).values({ ownerId: seller.userId, name: 'Cube' }).returning({ id: product.id });
  await t.context.db.insert(productVariant).values({ productId: p!.id, ownerId: seller.userId, name: 'Default', sku: 'JOB-CUBE' });
  expect((await seller.request('PUT', '/api/webhook-endpoint', { url: receiver.url }, {})).status).toBe(200);
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

describe('GET /api/admin/jobs', () => {
  it('lists every queue with its counts and retry policy, to admins only', async () => {
    const response = await admin.get('/api/admin/jobs');
    expect(response.status).toBe(200);
    const names = response.body.queues.map((q: any) => q.name);
    expect(names).toEqual(expect.arrayContaining(['slice-print-config', 'shop-sync', 'webhook-delivery', 'dead-letter']));
    const webhook = response.body.queues.find((q: any) => q.name === 'webhook-delivery');
    expect(webhook).toMatchObject({ retry: { retryLimit: RETRY_LIMIT, retryDelaySeconds: RETRY_DELAY_SECONDS, backoff: true, expireInSeconds: 60 } });
    for (const key of ['queued', 'deferred', 'active', 'failed', 'total']) expect(typeof webhook[key]).toBe('number');
    expect(response.body.queues.find((q: any) => q.name === 'dead-letter').retry).toBeNull();
    expect(response.body.deadLetters).toEqual([]);

    expect((await plainSeller.get('/api/admin/jobs')).status).toBe(403);
    expect((await seller.get('/api/admin/jobs')).status).toBe(403);
    expect((await t.client().get('/api/admin/jobs')).status).toBe(401);
    expect((await admin.get('/api/admin/jobs?limit=0')).status).toBe(400);
    expect((await admin.get('/api/admin/jobs?extra=1')).status).toBe(400);
  });
});

describe('a poison job (the receiver always answers 500)', () => {
  const POISON = 'POISON-1';
  let baselineP95 = 0;
  let deadLetterId = '';

  it('baseline: 50 good deliveries', async () => {
    const latencies = await deliverGoodWebhooks(await newApiKey(), 'BASE', 50);
    baselineP95 = p95(latencies);
    console.log(`[S-32] baseline: 50 good webhook deliveries, p95 ${baselineP95} ms, max ${Math.max(...latencies)} ms`);
  });

  it('is attempted retryLimit + 1 times with growing backoff while 50 good jobs on its queue keep their latency, then dead-lettered', async () => {
    receiver.failing.add(POISON);
    const key = await newApiKey();
    await createOrder(key, POISON);

    /** Each failed attempt: when the receiver saw it and the delay pg-boss scheduled before the next one. */
    const delays: number[] = [];
    const retryPoison = async () => {
      for (let attempt = 1; attempt <= RETRY_LIMIT; attempt += 1) {
        await waitFor(() => receiver.hitsFor(POISON).length >= attempt, `attempt ${attempt}`);
        const hitAt = receiver.hitsFor(POISON)[attempt - 1]!.at;
        const job = await waitFor(async () => {
          const row = await poisonJob(POISON);
          return row?.state === 'retry' && row.startAfter.getTime() > hitAt ? row : null;
        }, `the retry after attempt ${attempt}`);
        delays.push((job.startAfter.getTime() - hitAt) / 1000);
        await t.context.db.execute(sql`UPDATE pgboss.job SET start_after = now() WHERE id = ${job.id}::uuid`);
      }
      await waitFor(() => receiver.hitsFor(POISON).length > RETRY_LIMIT, 'the last attempt');
    };
    const [latencies] = await Promise.all([deliverGoodWebhooks(key, 'GOOD', 50), retryPoison()]);

    // Stops after the configured attempts.
    const deadLetter = await waitFor(async () => {
      const response = await admin.get('/api/admin/jobs');
      const poisonEventId = receiver.hitsFor(POISON)[0]?.eventId;
      return response.body.deadLetters.find((job: any) => poisonEventId && job.data?.eventId === poisonEventId);
    }, 'the dead letter');
    await sleep(1500);
    const attempts = receiver.hitsFor(POISON);
    expect(attempts).toHaveLength(RETRY_LIMIT + 1);
    expect(new Set(attempts.map((hit) => hit.eventId)).size).toBe(1);

    // Backoff: retry n waits between 15·2^(n-1) and 15·2^n seconds (doubling, with jitter).
    console.log(`[S-32] poison retry delays (s): ${delays.map((d) => d.toFixed(1)).join(', ')}`);
    expect(delays).toHaveLength(RETRY_LIMIT);
    delays.forEach((delay, i) => {
      expect(delay).toBeGreaterThanOrEqual(RETRY_DELAY_SECONDS * 2 ** i - 1);
      expect(delay).toBeLessThanOrEqual(RETRY_DELAY_SECONDS * 2 ** (i + 1) + 1);
    });
    expect(delays.at(-1)!).toBeGreaterThan(delays[0]! * 30);

    // Shown to admins with its original queue, its attempts and the error its handler threw.
    expect(deadLetter).toMatchObject({ queue: 'webhook-delivery', attempts: RETRY_LIMIT + 1 });
    expect(deadLetter.error).toMatch(/WebhookRetryableError: Webhook evt_[0-9a-f]+: the receiver answered 500/);
    expect(deadLetter.data.ownerId).toBe(seller.userId);
    expect(Math.abs(Date.parse(deadLetter.failedAt) - attempts.at(-1)!.at)).toBeLessThan(10_000);
    deadLetterId = deadLetter.id;
    const overview = await admin.get('/api/admin/jobs');
    expect(overview.body.deadLetterTotal).toBe(1);
    expect((await poisonJob(POISON))?.state).toBe('failed');

    // S-32: the good jobs on the same queue were not held up by the poison one.
    const goodP95 = p95(latencies);
    console.log(`[S-32] with a poison job retrying: 50 good webhook deliveries, p95 ${goodP95} ms (baseline ${baselineP95} ms)`);
    // Workers poll once a second, so a delivery's latency carries up to one poll interval of phase
    // noise between runs; within 20 % or one interval of the baseline means the poison job starves nothing.
    expect(goodP95).toBeLessThanOrEqual(Math.max(baselineP95 * 1.2, baselineP95 + 1000));
  });

  it('is sent again by an admin retry (audited), never by a seller', async () => {
    expect(deadLetterId).not.toBe('');
    expect((await seller.post(`/api/admin/jobs/dead-letters/${deadLetterId}/retry`)).status).toBe(403);
    expect((await plainSeller.post(`/api/admin/jobs/dead-letters/${deadLetterId}/retry`)).status).toBe(403);
    expect(receiver.hitsFor(POISON)).toHaveLength(RETRY_LIMIT + 1);

    // The seller fixed their receiver; the admin sends the event again.
    receiver.failing.delete(POISON);
    const retried = await admin.post(`/api/admin/jobs/dead-letters/${deadLetterId}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual({ id: deadLetterId, queue: 'webhook-delivery' });
    await waitFor(() => receiver.hitsFor(POISON).length === RETRY_LIMIT + 2, 'the re-sent delivery');
    const hits = receiver.hitsFor(POISON);
    expect(hits.at(-1)!.eventId).toBe(hits[0]!.eventId);

    const after = await admin.get('/api/admin/jobs');
    expect(after.body.deadLetters).toEqual([]);
    expect((await admin.post(`/api/admin/jobs/dead-letters/${deadLetterId}/retry`)).status).toBe(404);
    expect((await admin.post('/api/admin/jobs/dead-letters/not-a-uuid/retry')).status).toBe(400);

    const entries = await t.context.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'job.dead-letter-retried'), eq(auditLog.actorId, admin.userId)));
    expect(entries).toHaveLength(1);
    expect(entries[0]!.detail).toEqual({ jobId: deadLetterId, queue: 'webhook-delivery' });
    await sleep(1000);
    expect(receiver.hitsFor(POISON)).toHaveLength(RETRY_LIMIT + 2);
  });
});
