/**
 * Orders at scale (issue 10): order API ingestion with 10 clients, without and with a webhook
 * endpoint set, and the order lists' p95 (first page, ~300 pages deep, search) against a table of
 * 1,000,000 orders across 2,000 sellers, on PostgreSQL.
 *
 *   npm run bench:orders [-- --seconds 15] [-- --drop] [-- --ingest-only] [-- --queries]
 *
 * The table lives in its own database (layerline_bench on the server of DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres): seeded once with set-based SQL (generate_series),
 * reused by later runs when it holds the same seed (the first lines say which); --drop drops it at
 * the end. The real server (bootstrap + HTTP, job workers in-process as `npm start` runs them) is
 * driven over HTTP. What the bench sets that production would not: the per-address API limit
 * (600/min: all clients here share 127.0.0.1) is lifted, and webhook receivers on 127.0.0.1 are
 * allowed (ALLOW_LOCAL_WEBHOOK_RECEIVERS). The per-key limit stays on (120/min): the clients
 * spread their orders over 300 sellers' keys, as 300 integrations would. Each ingestion phase also
 * prints what an order cost (CPU here and in PostgreSQL, statements; --queries lists the statements).
 * The last line is one JSON object.
 */
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import pg from 'pg';
import { loadConfig } from '../apps/server/src/config.ts';
import { bootstrap } from '../apps/server/src/bootstrap.ts';
import { buildHttpServer } from '../apps/server/src/http/app.ts';
import { encodeCursor } from '../apps/server/src/platform/keyset-cursor.ts';
import { TestClient } from '../apps/server/test/test-app.ts';

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const SECONDS = arg('seconds', 15);
const DROP = process.argv.includes('--drop');
/** Ingestion only (for profiling it): no list measurements. */
const INGEST_ONLY = process.argv.includes('--ingest-only');
const CLIENTS = arg('clients', 10);
const ORDERS = 1_000_000;
const SELLERS = 2_000;
/** The busy seller: every 50th order (20,000), so ~300 pages deep at 25 a page stays inside their orders. */
const BUSY_EVERY = 50;
const INGEST_SELLERS = 300;
const SEED_VERSION = 2;
const TARGETS = { ordersPerSecond: 400, withWebhooksPerSecond: 400, listP95Ms: 50, deepPageP95Ms: 50, searchP95Ms: 50 };
const BUSY = { email: 'busy-seller@bench.layerline.test', password: 'bench passphrase for the busy seller' };
const ADMIN = { email: 'bench-admin@bench.layerline.test', password: 'bench passphrase for the admin' };

const baseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const benchUrl = (() => {
  const url = new URL(baseUrl);
  url.pathname = '/layerline_bench';
  return url.toString();
})();
const started = performance.now();
const log = (line: string) => console.log(line);
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * p) - 1))]!;

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Whether layerline_bench holds this seed already; otherwise (re)created empty. */
async function prepareDatabase(): Promise<'reused' | 'fresh'> {
  const exists = await withClient(baseUrl, async (c) => (await c.query(`SELECT 1 FROM pg_database WHERE datname = 'layerline_bench'`)).rowCount === 1);
  if (exists) {
    const seeded = await withClient(benchUrl, async (c) => {
      const meta = await c.query(`SELECT to_regclass('bench_meta') AS t`);
      if (!meta.rows[0].t) return false;
      const row = (await c.query(`SELECT orders, sellers, version FROM bench_meta`)).rows[0];
      return row && row.orders === ORDERS && row.sellers === SELLERS && row.version === SEED_VERSION;
    });
    if (seeded) return 'reused';
    await withClient(baseUrl, (c) => c.query('DROP DATABASE layerline_bench WITH (FORCE)'));
  }
  await withClient(baseUrl, (c) => c.query('CREATE DATABASE layerline_bench'));
  return 'fresh';
}

const state = await prepareDatabase();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'layerline-bench-'));
const config = loadConfig({
  NODE_ENV: 'test',
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  SLICING: 'off',
  DATABASE_URL: benchUrl,
  ALLOW_LOCAL_WEBHOOK_RECEIVERS: 'true',
  WEB_DIST_DIR: path.resolve(import.meta.dirname, '../apps/web/dist'),
});
const running = await bootstrap(config, { error: () => undefined }, { workJobs: true });
const { context } = running;
const app = await buildHttpServer(context, { rateLimits: { apiPerMinute: 10_000_000, contactPer10Minutes: 10_000 } });
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
if (!address || typeof address === 'string') throw new Error('no address');
const server = `http://127.0.0.1:${address.port}`;
const db = new pg.Pool({ connectionString: benchUrl, max: 2 });

async function account(who: { email: string; password: string }, admin: boolean): Promise<TestClient & { userId: string }> {
  const client = new TestClient(server);
  let response = await client.post('/api/auth/sign-in/email', { email: who.email, password: who.password });
  if (response.status !== 200) {
    response = await client.post('/api/auth/sign-up/email', { email: who.email, password: who.password, name: admin ? 'Bench Admin' : 'Busy Seller' });
    if (response.status !== 200) throw new Error(`sign-up ${who.email}: ${response.status} ${JSON.stringify(response.body)}`);
  }
  const userId = response.body.user.id as string;
  await context.users.setFlags(userId, admin ? { isAdmin: true } : { isBetaTester: true });
  return Object.assign(client, { userId });
}

const busy = await account(BUSY, false);
const admin = await account(ADMIN, true);

if (state === 'fresh') {
  const t0 = performance.now();
  log(`Seeding ${ORDERS.toLocaleString('en')} orders across ${SELLERS.toLocaleString('en')} sellers into layerline_bench…`);
  await withClient(benchUrl, async (c) => {
    await c.query(`SET maintenance_work_mem = '256MB'`);
    await c.query(`
      INSERT INTO "user" (id, name, email, email_verified, role, is_beta_tester)
      SELECT 'bench-seller-' || g, 'Bench Seller ' || g, 'bench-seller-' || g || '@bench.layerline.test', true, 'seller', true
      FROM generate_series(0, ${SELLERS - 2}) g`);
    // Indexes are built once after the load (much faster than row by row), from their own definitions.
    const indexes = (await c.query(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'order' AND indexname NOT IN ('order_pkey')`)).rows as { indexname: string; indexdef: string }[];
    for (const index of indexes) await c.query(`DROP INDEX "${index.indexname}"`);
    await c.query(
      `WITH names AS (
         SELECT array['Ada','Grace','Maya','Liam','Noah','Olivia','Emma','Ava','Sophia','Isabella','Mia','Amelia','Harper','Evelyn','Abigail','Emily','Elijah','James','William','Benjamin','Lucas','Henry','Alexander','Mason','Michael','Ethan','Daniel','Jacob','Logan','Jackson','Ottilie','Priya','Kenji','Amara','Lars','Ines','Tomasz','Yara','Mateo','Zofia'] AS first,
                array['Lovelace','Hopper','Thompson','Smith','Johnson','Williams','Brown','Jones','Garcia','Miller','Davis','Rodriguez','Martinez','Hernandez','Lopez','Gonzalez','Wilson','Anderson','Taylor','Moore','Jackson','Martin','Lee','Perez','White','Harris','Sanchez','Clark','Ramirez','Lewis','Quasthoff','Nakamura','Okafor','Lindqvist','Kowalski','Haddad','Silva','Novak','Rossi','Dubois','Schmidt','Murphy','Kim','Singh','Patel','Cohen','Fischer','Moreau','Costa','Varga'] AS last
       ),
       rows AS (
         SELECT g,
                CASE WHEN g % ${BUSY_EVERY} = 0 THEN $1 ELSE 'bench-seller-' || (g % ${SELLERS - 1}) END AS owner,
                first[1 + g % 40] || ' ' || last[1 + (g / 40) % 50] AS buyer,
                -- SKUs spread over time (a multiplicative hash of g), not cycling in order.
                'SKU-' || lpad(((g::bigint * 2654435761 % 4294967296) % 5000)::text, 4, '0') AS sku,
                now() - make_interval(secs => (g / 2) * 30) AS placed
         FROM generate_series(1, ${ORDERS}) g, names
       ),
       ins AS (
         INSERT INTO "order" (owner_id, channel, platform, external_id, status, customer_name, shipping_address, currency, total_cents, placed_at, created_at, updated_at, search_text)
         SELECT owner, 'api:' || owner, 'api', 'B-' || g,
                (array['accepted','accepted','accepted','on_hold','in_production','printed','packed','shipped','delivered','cancelled'])[1 + g % 10],
                buyer,
                jsonb_build_object('name', buyer, 'company', '', 'line1', g || ' Larkin Street', 'line2', '', 'city', 'San Francisco', 'region', 'CA', 'postalCode', '94109', 'country', 'US', 'phone', '', 'email', ''),
                'USD', 1000 + g % 9000, placed, placed, placed,
                lower('B-' || g || E'\\n' || buyer || E'\\n' || sku || E'\\n' || 'Bench item')
         FROM rows
         RETURNING id, total_cents, search_text
       )
       INSERT INTO order_item (order_id, external_item_id, sku, title, quantity, unit_price_cents)
       SELECT id, '1', upper(split_part(search_text, E'\\n', 3)), 'Bench item', 1, total_cents FROM ins`,
      [busy.userId],
    );
    log(`  rows written in ${((performance.now() - t0) / 1000).toFixed(0)} s; building indexes…`);
    for (const index of indexes) await c.query(index.indexdef);
    await c.query('ANALYZE');
    await c.query(`CREATE TABLE bench_meta (orders int NOT NULL, sellers int NOT NULL, version int NOT NULL)`);
    await c.query(`INSERT INTO bench_meta VALUES ($1, $2, $3)`, [ORDERS, SELLERS, SEED_VERSION]);
  });
  log(`Seeded in ${((performance.now() - t0) / 1000).toFixed(0)} s.`);
} else {
  log(`Reusing layerline_bench: already seeded with ${ORDERS.toLocaleString('en')} orders across ${SELLERS.toLocaleString('en')} sellers.`);
}

/* ---------- Ingestion ---------- */

// Leftovers of an earlier run that stopped halfway.
const cleanup = async () => {
  await db.query(`DELETE FROM "order" WHERE external_id LIKE 'ING-%'`);
  await db.query(`DELETE FROM api_key WHERE name = 'bench'`);
  await db.query(`DELETE FROM webhook_endpoint WHERE owner_id LIKE 'bench-seller-%'`);
};
await cleanup();
// Autovacuum may be off on a test server (it is on this machine's): vacuum and analyze what ingestion
// writes, pg-boss's jobs included, as autovacuum would have. Without statistics pg-boss's job table
// (thousands of completed jobs from earlier runs) is planned as empty, and completing a batch of
// deliveries scanned every job of the queue (8 ms instead of 0.5).
await db.query('VACUUM (ANALYZE) "order", order_item, order_event, order_outbox, webhook_delivery, webhook_endpoint, api_key, api_key_rate_window, pgboss.job');

/* ---------- Lists (first, on a settled table: the previous run's leftovers vacuumed away) ---------- */

async function timedGet(client: TestClient, url: string): Promise<{ ms: number; body: any }> {
  const t = performance.now();
  const response = await client.get(url);
  const ms = performance.now() - t;
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${JSON.stringify(response.body)}`);
  return { ms, body: response.body };
}
async function repeat(times: number, run: () => Promise<number>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < times; i++) out.push(await run());
  return out;
}

async function measureLists() {
  // Warm up: the first requests of a process pay for compiling and planning, not for the table.
  for (let i = 0; i < 5; i++) {
    await timedGet(busy, '/api/orders');
    await timedGet(admin, '/api/admin/orders');
  }
  const listTimes = [
    ...(await repeat(40, async () => (await timedGet(busy, '/api/orders')).ms)),
    ...(await repeat(40, async () => (await timedGet(admin, '/api/admin/orders')).ms)),
    ...(await repeat(20, async () => (await timedGet(busy, '/api/orders?status=on_hold')).ms)),
    ...(await repeat(20, async () => (await timedGet(admin, '/api/admin/orders?status=delivered')).ms)),
  ].sort((a, b) => a - b);

  async function follow(client: TestClient, url: string, pages: number, cursor: string | null = null): Promise<number[]> {
    const times: number[] = [];
    for (let page = 0; page < pages; page++) {
      const { ms, body } = await timedGet(client, `${url}${cursor ? `${url.includes('?') ? '&' : '?'}cursor=${cursor}` : ''}`);
      times.push(ms);
      cursor = body.nextCursor;
      if (!cursor) break;
    }
    return times;
  }
  // The last pages of the admin view: a cursor 40 pages from the oldest order, followed to the end.
  const near = (await db.query(`SELECT to_char(placed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS placed, id FROM "order" ORDER BY placed_at, id OFFSET 1000 LIMIT 1`)).rows[0];
  const deepTimes = [
    ...(await follow(busy, '/api/orders', 300)),
    ...(await follow(admin, '/api/admin/orders', 300)),
    ...(await follow(admin, '/api/admin/orders', 60, encodeCursor([near.placed, near.id]))),
  ].sort((a, b) => a - b);

  const searches: [TestClient, string][] = [
    [busy, 'B-250'],
    [busy, 'Quasthoff'],
    [busy, 'ottilie q'],
    [busy, 'sku-042'],
    [busy, 'nakamura'],
    [admin, 'B-123456'],
    [admin, 'Ottilie Quasthoff'],
    [admin, 'kenji nakamura'],
    [admin, 'SKU-4217'],
    [admin, 'sku-42'],
    [admin, 'lindqvist'],
    [admin, 'bench-seller-17@'],
    [admin, 'zzz-no-such-order'],
  ];
  const searchTimes: number[] = [];
  const byTerm = new Map<string, number[]>();
  for (let round = 0; round < 5; round++) {
    for (const [client, term] of searches) {
      const url = `${client === admin ? '/api/admin/orders' : '/api/orders'}?search=${encodeURIComponent(term)}`;
      const { ms } = await timedGet(client, url);
      searchTimes.push(ms);
      const key = `${client === admin ? 'admin' : 'seller'} "${term}"`;
      byTerm.set(key, [...(byTerm.get(key) ?? []), ms]);
    }
  }
  searchTimes.sort((a, b) => a - b);
  const searchDetail = [...byTerm].map(([key, times]) => `${key} ${pct(times.sort((a, b) => a - b), 0.5).toFixed(0)}`).join(', ');
  return { listTimes, deepTimes, searchTimes, searchDetail };
}
const lists = INGEST_ONLY ? null : await measureLists();


const ingestSellers = Array.from({ length: INGEST_SELLERS }, (_, i) => `bench-seller-${i}`);
const hasVariant = (await db.query(`SELECT count(*)::int AS n FROM product_variant WHERE sku = 'ING-SKU' AND owner_id = ANY($1)`, [ingestSellers])).rows[0].n;
if (hasVariant < INGEST_SELLERS) {
  await db.query(`DELETE FROM product WHERE name = 'Bench product'`);
  await db.query(
    `WITH p AS (INSERT INTO product (owner_id, name) SELECT s, 'Bench product' FROM unnest($1::text[]) s RETURNING id, owner_id)
     INSERT INTO product_variant (product_id, owner_id, name, sku) SELECT id, owner_id, 'Bench variant', 'ING-SKU' FROM p`,
    [ingestSellers],
  );
}
const keys: string[] = [];
for (const seller of ingestSellers) keys.push((await context.apiKeys.create(seller, 'bench')).key);

let received = 0;
const receiver = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    received += 1;
    response.writeHead(200).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverPort = (receiver.address() as { port: number }).port;

/*
 * What an order costs, beside the throughput (which other load on the machine moves): the CPU of
 * this process (server, job worker and the clients), the CPU of the PostgreSQL backends serving
 * layerline_bench (their run time from /proc, Linux only), and the statements sent per order,
 * counted on node-postgres's Client (the server's pool and pg-boss's alike). --queries lists the
 * statements with the backend CPU each took (measured around each one: slower, for diagnosis only).
 */
const QUERY_DETAIL = process.argv.includes('--queries');
const statements = new Map<string, { n: number; ns: number }>();
let statementCount = 0;
/** A process's time on the CPU so far, in ns (/proc/<pid>/schedstat), or null. */
function runtimeNs(pid: number | string): number | null {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return null;
  }
}
const clientQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client & { processID?: number }, ...args: unknown[]) {
  statementCount += 1;
  if (!QUERY_DETAIL) return clientQuery.apply(this, args);
  const first = args[0] as string | { text?: string; name?: string } | undefined;
  const text = typeof first === 'string' ? first : (first?.text ?? first?.name ?? '?');
  const key = text.replace(/\s+/g, ' ').trim().slice(0, 110);
  const pid = this.processID;
  const before = pid ? runtimeNs(pid) : null;
  const done = () => {
    const after = pid ? runtimeNs(pid) : null;
    const entry = statements.get(key) ?? { n: 0, ns: 0 };
    entry.n += 1;
    if (before !== null && after !== null) entry.ns += after - before;
    statements.set(key, entry);
  };
  const callback = args.at(-1);
  if (typeof callback === 'function') {
    args[args.length - 1] = (...results: unknown[]) => {
      done();
      return (callback as (...r: unknown[]) => unknown)(...results);
    };
    return clientQuery.apply(this, args);
  }
  const result = clientQuery.apply(this, args);
  if (result && typeof (result as Promise<unknown>).then === 'function') (result as Promise<unknown>).then(done, done);
  return result;
} as typeof pg.Client.prototype.query;
function postgresCpuMs(): number | null {
  try {
    let ns = 0;
    for (const pid of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (!cmdline.startsWith('postgres:') || !cmdline.includes(' layerline_bench ')) continue;
        ns += runtimeNs(pid) ?? 0;
      } catch {
        // gone meanwhile
      }
    }
    return ns / 1e6;
  } catch {
    return null;
  }
}
function costMeter() {
  const cpu = process.cpuUsage();
  const pgMs = postgresCpuMs();
  const count0 = statementCount;
  statements.clear();
  return (orders: number) => {
    const used = process.cpuUsage(cpu);
    const pgNow = postgresCpuMs();
    return {
      nodeMs: (used.user + used.system) / 1000 / orders,
      postgresMs: pgMs === null || pgNow === null ? null : (pgNow - pgMs) / orders,
      statements: (statementCount - count0) / orders,
      detail: [...statements]
        .sort((a, b) => b[1].ns - a[1].ns)
        .slice(0, 25)
        .map(([text, { n, ns }]) => `      ${(n / orders).toFixed(3)} × ${(ns / n / 1e6).toFixed(3)} ms = ${(ns / orders / 1e6).toFixed(3)} ms  ${text}`),
    };
  };
}
const costLine = (cost: ReturnType<ReturnType<typeof costMeter>>) =>
  `    per order: ${cost.nodeMs.toFixed(2)} ms CPU in this process (server, worker, clients), ${cost.postgresMs === null ? '?' : cost.postgresMs.toFixed(2)} ms in PostgreSQL, ${cost.statements.toFixed(2)} statements` +
  (QUERY_DETAIL ? `\n      (statements per order × PostgreSQL CPU each = per order)\n${cost.detail.join('\n')}` : '');

const address0 = { name: 'Ada Lovelace', line1: '1 Analytical Way', city: 'Portland', region: 'OR', postalCode: '97201', country: 'US' };
let sequence = 0;
async function ingest(label: string): Promise<{ perSecond: number; p50: number; count: number }> {
  const times: number[] = [];
  const deadline = performance.now() + SECONDS * 1000;
  const begin = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < deadline) {
        const n = sequence++;
        const t = performance.now();
        const response = await fetch(`${server}/api/v1/orders`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${keys[n % keys.length]}` },
          body: JSON.stringify({ externalId: `ING-${label}-${n}`, items: [{ sku: 'ING-SKU', quantity: 1 + (n % 3) }], shippingAddress: address0 }),
        });
        const body = await response.text();
        if (response.status !== 201) throw new Error(`order ${n}: ${response.status} ${body}`);
        times.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - begin) / 1000;
  times.sort((a, b) => a - b);
  return { perSecond: times.length / elapsed, p50: pct(times, 0.5), count: times.length };
}


log(`\nIngestion: POST /api/v1/orders, ${CLIENTS} clients, ${SECONDS} s each, over ${INGEST_SELLERS} sellers' keys`);
let meter = costMeter();
const plain = await ingest('plain');
await context.orders.announcementsSettled();
const plainCost = meter(plain.count);
log(`  no webhook endpoint:   ${plain.perSecond.toFixed(0)} orders/s (${plain.count} orders, p50 ${plain.p50.toFixed(1)} ms)`);
log(costLine(plainCost));
for (const seller of ingestSellers) await context.webhookEndpoints.set(seller, `http://127.0.0.1:${receiverPort}/hook`);
meter = costMeter();
const hooked = await ingest('hooked');
log(`  webhook endpoint set:  ${hooked.perSecond.toFixed(0)} orders/s (${hooked.count} orders, p50 ${hooked.p50.toFixed(1)} ms)`);
const drainStart = performance.now();
while (received < hooked.count && performance.now() - drainStart < 120_000) await new Promise((r) => setTimeout(r, 250));
log(`  webhooks received: ${received} of ${hooked.count}, the last ${((performance.now() - drainStart) / 1000).toFixed(1)} s after the last order`);
log(`${costLine(meter(hooked.count))} (deliveries included)`);

if (!lists) {
  await cleanup();
  receiver.close();
  await db.end();
  await app.close();
  await running.close();
  process.exit(0);
}
const { listTimes, deepTimes, searchTimes, searchDetail } = lists;
const result = {
  ordersPerSecond: Math.round(plain.perSecond),
  withWebhooksPerSecond: Math.round(hooked.perSecond),
  listP95Ms: Number(pct(listTimes, 0.95).toFixed(1)),
  deepPageP95Ms: Number(pct(deepTimes, 0.95).toFixed(1)),
  searchP95Ms: Number(pct(searchTimes, 0.95).toFixed(1)),
  orders: ORDERS,
};
const verdict = (value: number, target: number, atLeast: boolean) => ((atLeast ? value >= target : value <= target) ? 'PASS' : 'FAIL');
log(`\nLists on ${ORDERS.toLocaleString('en')} orders (client-side times over HTTP, one request at a time)`);
log(`  first page (busy seller, admin, by status): p95 ${result.listP95Ms} ms over ${listTimes.length}`);
log(`  deep pages (300 of the busy seller, 300 + the last 40 of the admin view): p95 ${result.deepPageP95Ms} ms over ${deepTimes.length}`);
log(`  search (order number, buyer, SKU, seller email): p95 ${result.searchP95Ms} ms over ${searchTimes.length}`);
log(`    median ms per search: ${searchDetail}`);
log('\nTargets');
log(`  ingestion ≥ ${TARGETS.ordersPerSecond}/s: ${result.ordersPerSecond} -> ${verdict(result.ordersPerSecond, TARGETS.ordersPerSecond, true)}`);
log(`  ingestion with webhooks ≥ ${TARGETS.withWebhooksPerSecond}/s: ${result.withWebhooksPerSecond} -> ${verdict(result.withWebhooksPerSecond, TARGETS.withWebhooksPerSecond, true)}`);
log(`  list p95 ≤ ${TARGETS.listP95Ms} ms: ${result.listP95Ms} -> ${verdict(result.listP95Ms, TARGETS.listP95Ms, false)}`);
log(`  deep page p95 ≤ ${TARGETS.deepPageP95Ms} ms: ${result.deepPageP95Ms} -> ${verdict(result.deepPageP95Ms, TARGETS.deepPageP95Ms, false)}`);
log(`  search p95 ≤ ${TARGETS.searchP95Ms} ms: ${result.searchP95Ms} -> ${verdict(result.searchP95Ms, TARGETS.searchP95Ms, false)}`);
log(`  (total run ${((performance.now() - started) / 1000).toFixed(0)} s; database ${state === 'fresh' ? 'seeded by this run' : 'reused'}${DROP ? ', dropped at the end' : ', kept for the next run (--drop drops it)'})`);

await cleanup();
receiver.close();
await db.end();
await app.close();
await running.close();
fs.rmSync(dataDir, { recursive: true, force: true });
if (DROP) await withClient(baseUrl, (c) => c.query('DROP DATABASE layerline_bench WITH (FORCE)'));
console.log(JSON.stringify(result));
