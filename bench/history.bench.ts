/**
 * The fulfilment history at scale (issue 12): the API's pages over 1,000,000 fulfilment records of
 * 2,000 sellers on PostgreSQL, and a full CSV export of a filtered view of more than 200,000 rows.
 *
 *   npm run bench:history [-- --rounds 30] [-- --drop]
 *
 * The records live in their own database (layerline_history_bench on the server of DATABASE_URL,
 * default postgres://postgres@127.0.0.1:5432/postgres): seeded once with set-based SQL
 * (generate_series), reused by later runs when it holds the same seed (the first lines say which);
 * --drop drops it at the end. Records are spread over two years; buyers are drawn from 3,600 first ×
 * last names, every record has 1 to 3 of 5,000 SKUs and a unique tracking number; one seller (the
 * one signed in here) has every 50th record (20,000), the rest are spread over 1,999 sellers. The
 * real server (bootstrap + HTTP) is driven over HTTP, one request at a time, as an admin and as that
 * seller. Each query runs `rounds` times after a warm-up; the export is timed once, with this
 * process's RSS and heap sampled throughout (server and client share the process, so the growth is
 * an upper bound of the server's). The last line is one JSON object.
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import pg from 'pg';
import { loadConfig } from '../apps/server/src/config.ts';
import { bootstrap } from '../apps/server/src/bootstrap.ts';
import { buildHttpServer } from '../apps/server/src/http/app.ts';
import { TestClient } from '../apps/server/test/test-app.ts';

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const ROUNDS = arg('rounds', 30);
const WARM_UP = 5;
const DROP = process.argv.includes('--drop');
const ROWS = 1_000_000;
const SELLERS = 2_000;
/** The signed-in seller's share: every 50th record. */
const BUSY_EVERY = 50;
const SEED_VERSION = 1;
const DATABASE = 'layerline_history_bench';
const TARGETS = { p95Ms: 50, csvRowsPerSecond: 50_000 };
const BUSY = { email: 'history-seller@bench.layerline.test', password: 'bench passphrase for the history seller' };
const ADMIN = { email: 'history-admin@bench.layerline.test', password: 'bench passphrase for the history admin' };
const MB = 1024 * 1024;

const baseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const benchUrl = (() => {
  const url = new URL(baseUrl);
  url.pathname = `/${DATABASE}`;
  return url.toString();
})();
const started = performance.now();
const log = (line: string) => console.log(line);
const pct = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * p) - 1))]!;

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Whether the bench database holds this seed already; otherwise (re)created empty. */
async function prepareDatabase(): Promise<'reused' | 'fresh'> {
  const exists = await withClient(baseUrl, async (c) => (await c.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [DATABASE])).rowCount === 1);
  if (exists) {
    const seeded = await withClient(benchUrl, async (c) => {
      const meta = await c.query(`SELECT to_regclass('bench_meta') AS t`);
      if (!meta.rows[0].t) return false;
      const row = (await c.query(`SELECT rows, sellers, version FROM bench_meta`)).rows[0];
      return row && row.rows === ROWS && row.sellers === SELLERS && row.version === SEED_VERSION;
    });
    if (seeded) return 'reused';
    await withClient(baseUrl, (c) => c.query(`DROP DATABASE ${DATABASE} WITH (FORCE)`));
  }
  await withClient(baseUrl, (c) => c.query(`CREATE DATABASE ${DATABASE}`));
  return 'fresh';
}

const state = await prepareDatabase();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'layerline-history-bench-'));
const config = loadConfig({
  NODE_ENV: 'test',
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  SLICING: 'off',
  DATABASE_URL: benchUrl,
  WEB_DIST_DIR: path.resolve(import.meta.dirname, '../apps/web/dist'),
});
const running = await bootstrap(config, { error: () => undefined }, { workJobs: false });
const { context } = running;
const app = await buildHttpServer(context, { rateLimits: { apiPerMinute: 10_000_000, contactPer10Minutes: 10_000 } });
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
if (!address || typeof address === 'string') throw new Error('no address');
const server = `http://127.0.0.1:${address.port}`;

async function account(who: { email: string; password: string }, admin: boolean): Promise<TestClient & { userId: string }> {
  const client = new TestClient(server);
  let response = await client.post('/api/auth/sign-in/email', { email: who.email, password: who.password });
  if (response.status !== 200) {
    response = await client.post('/api/auth/sign-up/email', { email: who.email, password: who.password, name: admin ? 'History Admin' : 'History Seller' });
    if (response.status !== 200) throw new Error(`sign-up ${who.email}: ${response.status} ${JSON.stringify(response.body)}`);
  }
  const userId = response.body.user.id as string;
  if (admin) await context.users.setFlags(userId, { isAdmin: true });
  return Object.assign(client, { userId });
}

const busy = await account(BUSY, false);
const admin = await account(ADMIN, true);

/* ---------- Seeding ---------- */

if (state === 'fresh') {
  const t0 = performance.now();
  log(`Seeding ${ROWS.toLocaleString('en')} fulfilment records of ${SELLERS.toLocaleString('en')} sellers into ${DATABASE}…`);
  await withClient(benchUrl, async (c) => {
    await c.query(`SET maintenance_work_mem = '512MB'`);
    // The other sellers; every third has a business name (the rest show their email).
    await c.query(`
      INSERT INTO "user" (id, name, email, email_verified, role, business_name)
      SELECT 'hist-seller-' || g, 'History Seller ' || g, 'hist-seller-' || g || '@bench.layerline.test', true, 'seller',
             CASE WHEN g % 3 = 0 THEN 'Print Shop ' || g ELSE '' END
      FROM generate_series(0, ${SELLERS - 2}) g`);
    // Indexes are built once after the load (much faster than row by row), from their own definitions.
    const indexes = (await c.query(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'fulfillment_record' AND indexname <> 'fulfillment_record_pkey'`)).rows as { indexname: string; indexdef: string }[];
    for (const index of indexes) await c.query(`DROP INDEX "${index.indexname}"`);
    await c.query(
      `WITH names AS (
         SELECT array['Ada','Grace','Maya','Liam','Noah','Olivia','Emma','Ava','Sophia','Isabella','Mia','Amelia','Harper','Evelyn','Abigail','Emily','Elijah','James','William','Benjamin','Lucas','Henry','Alexander','Mason','Michael','Ethan','Daniel','Jacob','Logan','Jackson','Ottilie','Priya','Kenji','Amara','Lars','Ines','Tomasz','Yara','Mateo','Zofia','Chloe','Hannah','Nora','Lily','Aria','Leo','Oscar','Felix','Hugo','Arjun','Mei','Sana','Omar','Layla','Ivan','Elena','Pablo','Lucia','Finn','Astrid'] AS first,
                array['Lovelace','Hopper','Thompson','Smith','Johnson','Williams','Brown','Jones','Garcia','Miller','Davis','Rodriguez','Martinez','Hernandez','Lopez','Gonzalez','Wilson','Anderson','Taylor','Moore','Jackson','Martin','Lee','Perez','White','Harris','Sanchez','Clark','Ramirez','Lewis','Quasthoff','Nakamura','Okafor','Lindqvist','Kowalski','Haddad','Silva','Novak','Rossi','Dubois','Schmidt','Murphy','Kim','Singh','Patel','Cohen','Fischer','Moreau','Costa','Varga','Walker','Young','Allen','King','Wright','Scott','Green','Baker','Adams','Nelson'] AS last,
                array['etsy','etsy','shopify','shopify','api','manual'] AS channels,
                array['USPS|Ground Advantage|https://tools.usps.com/go/TrackConfirmAction?tLabels=','UPS|Ground|https://www.ups.com/track?tracknum=','FedEx|Home Delivery|https://www.fedex.com/fedextrack/?trknbr=','USPS|Priority Mail|https://tools.usps.com/go/TrackConfirmAction?tLabels='] AS carriers
       ),
       base AS (
         SELECT g,
                -- A multiplicative hash of g: names, SKUs and costs spread over time, not cycling in order.
                (g::bigint * 2654435761) % 4294967296 AS h,
                CASE WHEN g % ${BUSY_EVERY} = 0 THEN $1 ELSE 'hist-seller-' || (g % ${SELLERS - 1}) END AS owner,
                -- Two years, newest first (g = 1 is a minute ago).
                now() - make_interval(secs => g * 63.072) AS created
         FROM generate_series(1, ${ROWS}) g
       ),
       rows AS (
         SELECT b.g, b.owner, b.created,
                n.channels[1 + b.g % 6] AS channel,
                'HO-' || (1000000 + b.g) AS order_number,
                n.first[1 + b.h % 60] || ' ' || n.last[1 + (b.h / 60) % 60] AS buyer,
                (SELECT array_agg('SKU-' || lpad(((b.h / 3600 + k * 1777) % 5000)::text, 4, '0')) FROM generate_series(0, b.g % 3) k) AS skus,
                '1Z' || upper(substr(md5(b.g::text), 1, 16)) AS tracking,
                string_to_array(n.carriers[1 + (b.h / 7) % 4], '|') AS carrier,
                500 + b.h % 5000 AS print_cost, 60 + b.g % 140 AS packaging, 420 + (b.h / 11) % 1300 AS shipping
         FROM base b, names n
       )
       INSERT INTO fulfillment_record (owner_id, channel, order_number, buyer_name, items, print_cost_cents, packaging_cents,
                                       shipping_cents, total_cents, currency, carrier, service, tracking_number, tracking_url,
                                       shipped_at, delivered_at, created_at, search_text)
       SELECT owner, channel, order_number, buyer,
              (SELECT jsonb_agg(jsonb_build_object('sku', s, 'title', 'Printed part ' || right(s, 4), 'quantity', 1 + g % 2)) FROM unnest(skus) s),
              print_cost, packaging, shipping, print_cost + packaging + shipping, 'USD', carrier[1], carrier[2], tracking, carrier[3] || tracking,
              created, CASE WHEN created < now() - interval '7 days' THEN created + interval '3 days' END, created,
              lower(order_number || E'\\n' || buyer || E'\\n' || array_to_string(skus, E'\\n') || E'\\n' || tracking)
       FROM rows`,
      [busy.userId],
    );
    log(`  rows written in ${((performance.now() - t0) / 1000).toFixed(0)} s; building indexes…`);
    for (const index of indexes) await c.query(index.indexdef);
    // The visibility map (index-only scans for deep pages and counts) and the planner's statistics.
    await c.query('VACUUM (ANALYZE) fulfillment_record, "user"');
    await c.query(`CREATE TABLE bench_meta (rows int NOT NULL, sellers int NOT NULL, version int NOT NULL)`);
    await c.query(`INSERT INTO bench_meta VALUES ($1, $2, $3)`, [ROWS, SELLERS, SEED_VERSION]);
  });
  log(`Seeded in ${((performance.now() - t0) / 1000).toFixed(0)} s.`);
} else {
  log(`Reusing ${DATABASE}: already seeded with ${ROWS.toLocaleString('en')} records of ${SELLERS.toLocaleString('en')} sellers.`);
}

/* ---------- Queries ---------- */

async function timedGet(client: TestClient, url: string): Promise<{ ms: number; body: any }> {
  const t = performance.now();
  const response = await client.get(url);
  const ms = performance.now() - t;
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${JSON.stringify(response.body)}`);
  return { ms, body: response.body };
}

const db = new pg.Pool({ connectionString: benchUrl, max: 2 });
/** Terms taken from the data: tracking numbers of records spread over the table, a full buyer name, a first name. */
const samples = (await db.query(`SELECT tracking_number, buyer_name FROM fulfillment_record WHERE order_number IN ('HO-1012345', 'HO-1345678', 'HO-1777777', 'HO-1999001', 'HO-1500000') ORDER BY order_number`)).rows as { tracking_number: string; buyer_name: string }[];
const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
const q = (params: Record<string, string | number>) => new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();

interface Query {
  label: string;
  client: TestClient;
  /** One URL per round (cycled), so a search is not the same term every time. */
  urls: readonly string[];
  /** Left out of the overall p50/p95 (and printed apart), with the reason. */
  apart?: string;
}
const skuPrefixes = ['sku-01', 'sku-22', 'sku-37', 'sku-45', 'sku-08'];
const QUERIES: Query[] = [
  { label: 'admin, default page', client: admin, urls: ['/api/fulfillment-history'] },
  { label: 'seller, default page', client: busy, urls: ['/api/fulfillment-history/user'] },
  { label: 'admin, search tracking number', client: admin, urls: samples.map((s) => `/api/fulfillment-history?${q({ searchTerm: s.tracking_number })}`) },
  { label: 'admin, search buyer full name', client: admin, urls: samples.map((s) => `/api/fulfillment-history?${q({ searchTerm: s.buyer_name })}`) },
  { label: 'admin, search buyer first name', client: admin, urls: samples.map((s) => `/api/fulfillment-history?${q({ searchTerm: s.buyer_name.split(' ')[0]! })}`) },
  { label: 'seller, search buyer full name', client: busy, urls: samples.map((s) => `/api/fulfillment-history/user?${q({ searchTerm: s.buyer_name })}`) },
  { label: 'admin, one month', client: admin, urls: [`/api/fulfillment-history?${q({ startDate: day(120), endDate: day(90) })}`] },
  { label: 'seller, one month, oldest first', client: busy, urls: [`/api/fulfillment-history/user?${q({ startDate: day(120), endDate: day(90), orderDirection: 'asc' })}`] },
  { label: 'admin, page 500', client: admin, urls: ['/api/fulfillment-history?page=500'] },
  {
    label: 'seller, search SKU prefix',
    client: busy,
    urls: skuPrefixes.map((term) => `/api/fulfillment-history/user?${q({ searchTerm: term })}`),
    apart: "a common term within one seller: the trigram index checks every seller's matches (docs/shipping.md)",
  },
];

/** How many records the search terms match, to read the times by. */
const matching = async (term: string, ownerId: string | null) =>
  Number((await db.query(`SELECT count(*) FROM fulfillment_record WHERE search_text LIKE $1 AND ($2::text IS NULL OR owner_id = $2)`, [`%${term.toLowerCase()}%`, ownerId])).rows[0].count);
const firstSample = samples[0]!;
log(
  `\nSearch terms (the first of each): tracking number ${await matching(firstSample.tracking_number, null)} record, full name "${firstSample.buyer_name}" ${await matching(firstSample.buyer_name, null)} ` +
    `(${await matching(firstSample.buyer_name, busy.userId)} of the seller's), first name "${firstSample.buyer_name.split(' ')[0]}" ${await matching(firstSample.buyer_name.split(' ')[0]!, null)}, ` +
    `SKU prefix "${skuPrefixes[0]}" ${await matching(skuPrefixes[0]!, busy.userId)} of the seller's ${await matching('', busy.userId)} (${await matching(skuPrefixes[0]!, null)} in all)`,
);

const times = new Map<string, number[]>();
for (let round = -WARM_UP; round < ROUNDS; round++) {
  for (const query of QUERIES) {
    const url = query.urls[(round + WARM_UP) % query.urls.length]!;
    const { ms } = await timedGet(query.client, url);
    // The warm-up rounds pay for compiling and planning, not for the table.
    if (round >= 0) times.set(query.label, [...(times.get(query.label) ?? []), ms]);
  }
}
const all = QUERIES.filter((query) => !query.apart).flatMap((query) => times.get(query.label)!).sort((a, b) => a - b);
log(`\nQueries over HTTP on ${ROWS.toLocaleString('en')} records (client-side times, one request at a time, ${ROUNDS} rounds after ${WARM_UP} of warm-up)`);
const line = (label: string, list: readonly number[]) => {
  const sorted = [...list].sort((a, b) => a - b);
  return `  ${label.padEnd(40)} p50 ${pct(sorted, 0.5).toFixed(1).padStart(6)} ms   p95 ${pct(sorted, 0.95).toFixed(1).padStart(6)} ms`;
};
for (const query of QUERIES.filter((q) => !q.apart)) log(line(query.label, times.get(query.label)!));
log(line('all of the above', all));
for (const query of QUERIES.filter((q) => q.apart)) log(`${line(query.label, times.get(query.label)!)}   (apart: ${query.apart})`);

// The chart's query is not a page: it reads every matching record (for information, not in the p95).
const chart = async (client: TestClient, url: string) => (await timedGet(client, url)).ms;
await chart(admin, '/api/fulfillment-history/monthly');
log(`  monthly chart (not in the p95): admin, all records ${(await chart(admin, '/api/fulfillment-history/monthly')).toFixed(0)} ms; seller ${(await chart(busy, '/api/fulfillment-history/monthly')).toFixed(0)} ms; admin, one month ${(await chart(admin, `/api/fulfillment-history/monthly?${q({ startDate: day(120), endDate: day(90) })}`)).toFixed(0)} ms`);

/* ---------- CSV export ---------- */

/**
 * Downloads the export, counting its lines as they arrive (nothing kept), with this process's memory
 * sampled: the peak RSS after the first QUARTER_ROWS rows and at the end (flat memory: the same), and
 * the heap retained once the export is done and collected.
 */
const QUARTER_ROWS = 80_000;
async function timedExport(url: string) {
  global.gc?.();
  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  let peakRssAtQuarter: number | null = null;
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    peakRss = Math.max(peakRss, now.rss);
    peakHeap = Math.max(peakHeap, now.heapUsed);
  }, 50);
  const t = performance.now();
  const response = await fetch(new URL(url, server), { headers: { cookie: admin.cookieHeader(), origin: server, 'sec-fetch-site': 'same-origin' } });
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  let lines = 0;
  let bytes = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines += 1;
    if (peakRssAtQuarter === null && lines > QUARTER_ROWS) peakRssAtQuarter = peakRss;
  }
  const seconds = (performance.now() - t) / 1000;
  clearInterval(sampler);
  global.gc?.();
  const after = process.memoryUsage();
  // Each record is one line: no field of this data holds a line break.
  return {
    rows: lines - 1,
    bytes,
    seconds,
    rssBeforeMb: before.rss / MB,
    rssGrowthAtQuarterMb: ((peakRssAtQuarter ?? peakRss) - before.rss) / MB,
    rssGrowthMb: (peakRss - before.rss) / MB,
    heapPeakGrowthMb: (peakHeap - before.heapUsed) / MB,
    heapRetainedMb: (after.heapUsed - before.heapUsed) / MB,
  };
}

const exportUrl = `/api/fulfillment-history/export.csv?${q({ startDate: day(240) })}`;
const csv = await timedExport(exportUrl);
const csvRowsPerSecond = Math.round(csv.rows / csv.seconds);
log(`\nCSV export (admin, every seller, the last 240 days): ${csv.rows.toLocaleString('en')} rows, ${(csv.bytes / MB).toFixed(0)} MB in ${csv.seconds.toFixed(1)} s = ${csvRowsPerSecond.toLocaleString('en')} rows/s`);
log(
  `  memory of this process (server and client): RSS ${csv.rssBeforeMb.toFixed(0)} MB before; peak +${csv.rssGrowthAtQuarterMb.toFixed(0)} MB after ${QUARTER_ROWS.toLocaleString('en')} rows, +${csv.rssGrowthMb.toFixed(0)} MB by the end; ` +
    `heap +${csv.heapPeakGrowthMb.toFixed(0)} MB at the peak (garbage between collections), ${csv.heapRetainedMb >= 0 ? '+' : ''}${csv.heapRetainedMb.toFixed(1)} MB retained after a collection`,
);
const result = {
  rows: ROWS,
  p50Ms: Number(pct(all, 0.5).toFixed(1)),
  p95Ms: Number(pct(all, 0.95).toFixed(1)),
  csvRowsPerSecond,
};
const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
log('\nTargets');
log(`  p95 ≤ ${TARGETS.p95Ms} ms: ${result.p95Ms} -> ${verdict(result.p95Ms <= TARGETS.p95Ms)}`);
log(`  CSV ≥ ${TARGETS.csvRowsPerSecond.toLocaleString('en')} rows/s: ${csvRowsPerSecond.toLocaleString('en')} -> ${verdict(csvRowsPerSecond >= TARGETS.csvRowsPerSecond)}`);
log(`  (total run ${((performance.now() - started) / 1000).toFixed(0)} s; load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}; database ${state === 'fresh' ? 'seeded by this run' : 'reused'}${DROP ? ', dropped at the end' : ', kept for the next run (--drop drops it)'})`);

await db.end();
await app.close();
await running.close();
fs.rmSync(dataDir, { recursive: true, force: true });
if (DROP) await withClient(baseUrl, (c) => c.query(`DROP DATABASE ${DATABASE} WITH (FORCE)`));
console.log(JSON.stringify(result));
