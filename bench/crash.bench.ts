/**
 * A crash costs seconds (issue 21): the whole chain — the demo install's sandbox shop orders, charged
 * with the sandbox card, printed by the simulated farm and its autopilot, labelled by the sandbox
 * carrier, tracked to delivered — runs on PostgreSQL in a child process (`node apps/server/src/main.ts`,
 * as `npm start` runs it) that this bench kills with SIGKILL at seeded random moments and restarts,
 * until every order is delivered.
 *
 *   npm run bench:crash [-- --seed 21] [-- --orders 100] [-- --kills 8] [-- --minutes 15]
 *
 * DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) is the server to create a scratch
 * database on; it is dropped at the end, also on failure. The demo admin adds --printers (12) simulated
 * printers at 6,000× beside the demo's five, so 100 orders print in minutes. Orders are placed through the sandbox shop's
 * "simulate order" API by the demo seller while the kills go on (a placement whose answer a kill lost
 * is placed again, so `orders` counts the database's orders: at least --orders). Between two kills the
 * bench waits a random 2–12 s after the restarted server has resumed every queue.
 *
 * Resume time, measured for every restart and every queue: at the kill (the child has exited) the
 * bench notes each queue's jobs that were held (`active`) or due (`created`/`retry` with start_after
 * passed); after the restart it polls pg-boss's job table, and the queue has resumed when the first
 * of those jobs is claimed again (its `started_on` later than the restart). `maxResumeSeconds` is
 * counted from the restart itself (the new process's spawn: Node loading the server included), the
 * largest over all restarts and queues; a queue not resumed within 60 s counts as 60. Each kill's
 * line also gives the part after the process took its job lease (its `layerline-jobs` connection's
 * `backend_start` in pg_stat_activity: the server loaded, the database open, nothing recovered yet),
 * which is recovery alone; its worst is printed on the line before the JSON.
 *
 * At the end: `duplicateCharges` = orders with more than one live or succeeded order charge;
 * `duplicateLabels` = parcels (order, parcel index) with more than one label bought and not voided;
 * `duplicatePrintJobs` = print jobs for the same (item, part, copy, attempt) more than once. The last
 * line is one JSON object; the bench exits 1 (and says FAIL) when an order is not delivered within
 * --minutes, a duplicate exists, maxResumeSeconds is over 10, or the server exited by itself (it is
 * started again, and the exit is reported).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createScratchDatabase, TestClient } from '../apps/server/test/test-app.ts';

const arg = (name: string, fallback: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1]! : fallback;
};
const SEED = Number(arg('seed', '21'));
const ORDERS = Number(arg('orders', '100'));
const KILLS = Number(arg('kills', '8'));
const LIMIT_MS = Number(arg('minutes', '15')) * 60_000;
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Simulated printers the bench adds beside the demo's five (which print at 600× and change spools), at 6,000×. */
const FAST_PRINTERS = Number(arg('printers', '12'));
const RESUME_LIMIT_S = 10;
const RESUME_WAIT_S = 60;
const ROOT = path.resolve(import.meta.dirname, '..');

const startedAt = Date.now();
const deadline = startedAt + LIMIT_MS;
const log = (line: string) => console.log(`[${((Date.now() - startedAt) / 1000).toFixed(1).padStart(6)} s] ${line}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** mulberry32: the same seed gives the same kill moments. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = random(SEED);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address() as net.AddressInfo;
      server.close(() => resolve(address.port));
    });
  });
}

const scratch = await createScratchDatabase(DATABASE_URL);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'layerline-crash-'));
const logFile = path.join(dataDir, 'server.log');
const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}`;
const db = new pg.Pool({ connectionString: scratch.url, max: 2 });
db.on('error', () => undefined);
const query = async <T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> => (await db.query<T>(text, values)).rows;

const serverEnv: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  NODE_ENV: 'development',
  HOST: '127.0.0.1',
  PORT: String(port),
  DATA_DIR: path.join(dataDir, 'data'),
  DATABASE_URL: scratch.url,
  SEED_DEMO_DATA: 'true',
  LOG_LEVEL: 'warn',
  // The sandbox chain at speed: a farm turn every half second, the autopilot's steps 0.2 s after
  // they are due, a sandbox carrier day of half a second, tracking read every second.
  FARM_AUTOPILOT: 'true',
  FARM_AUTOPILOT_DELAY_S: '0.2',
  FARM_TICK_S: '0.5',
  SHIPPING_SANDBOX: 'true',
  SHIPPING_AUTO_BUY: 'true',
  SANDBOX_CARRIER_DAY_S: '0.5',
  TRACKING_POLL_S: '1',
  PAYMENTS_CHARGE_ORDERS: 'true',
  // A simulated farm draws no power: starts are not staggered to 4 a minute (the default).
};

let child: ChildProcess | null = null;
/** Exits the bench did not cause (a server that died by itself): reported, and the server is started again. */
let unplannedExits = 0;

/** Spawns the server and waits for its health check; returns when it was spawned. */
async function startServer(): Promise<number> {
  const spawnedAt = Date.now();
  const out = fs.openSync(logFile, 'a');
  const proc = spawn(process.execPath, [path.join(ROOT, 'apps/server/src/main.ts')], { cwd: ROOT, env: serverEnv, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  let exited = false;
  proc.once('exit', (code, signal) => {
    exited = true;
    if (signal === 'SIGKILL' && killing) return;
    unplannedExits++;
    log(`the server exited by itself (code ${code}, signal ${signal})`);
  });
  child = proc;
  while (Date.now() < spawnedAt + 120_000) {
    if (exited) throw new Error(`the server exited at start (see ${logFile})`);
    try {
      const response = await fetch(`${baseUrl}/api/health`);
      if (response.ok) return spawnedAt;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error('the server did not answer within 120 s');
}

let killing = false;

const serverRunning = (): boolean => child !== null && child.exitCode === null && child.signalCode === null;

async function killServer(): Promise<void> {
  const proc = child;
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  killing = true;
  proc.kill('SIGKILL');
  await exited;
  killing = false;
  child = null;
}

/** When the restarted process took its job lease (after Node's start, imports, migrations). */
async function leaseTakenAt(): Promise<number | null> {
  const [row] = await query<{ at: Date | null }>(
    `SELECT max(backend_start) AS at FROM pg_stat_activity WHERE application_name = 'layerline-jobs' AND datname = current_database()`,
  );
  return row?.at ? row.at.getTime() : null;
}

interface HeldJob {
  id: string;
  name: string;
}

/** Each queue's jobs held or due at the moment of the kill. */
async function jobsInFlight(): Promise<HeldJob[]> {
  return query<HeldJob>(
    `SELECT id, name FROM pgboss.job
      WHERE name <> 'dead-letter' AND (state = 'active' OR (state IN ('created', 'retry') AND start_after <= now()))`,
  );
}

/** Seconds from `from` to the first claim of each queue's in-flight jobs after the spawn (capped at RESUME_WAIT_S). */
async function resumeTimes(held: HeldJob[], spawnedAt: number, from: number): Promise<Map<string, number>> {
  const queues = new Set(held.map((job) => job.name));
  const times = new Map<string, number>();
  const ids = held.map((job) => job.id);
  while (times.size < queues.size && Date.now() < spawnedAt + RESUME_WAIT_S * 1000) {
    const rows = await query<{ name: string; first: Date | null }>(
      `SELECT name, min(started_on) AS first FROM pgboss.job WHERE id = ANY($1::uuid[]) AND started_on > $2 GROUP BY name`,
      [ids, new Date(spawnedAt)],
    );
    for (const row of rows) if (row.first && !times.has(row.name)) times.set(row.name, Math.max(0, (row.first.getTime() - from) / 1000));
    await sleep(200);
  }
  for (const queue of queues) if (!times.has(queue)) times.set(queue, RESUME_WAIT_S);
  return times;
}

async function orderCounts(): Promise<{ orders: number; delivered: number }> {
  const [row] = await query<{ orders: number; delivered: number }>(
    `SELECT count(*)::int AS orders, (count(*) FILTER (WHERE status = 'delivered'))::int AS delivered FROM "order"`,
  );
  return row!;
}

/** The demo admin adds FAST_PRINTERS simulated printers, each with a spool of the demo designs' colour loaded. */
async function addPrinters(): Promise<void> {
  const passwords = JSON.parse(fs.readFileSync(path.join(serverEnv.DATA_DIR!, 'demo-accounts.json'), 'utf8')) as { admin: string };
  const admin = new TestClient(baseUrl);
  const signIn = await admin.post('/api/auth/sign-in/email', { email: 'admin@demo.layerline.local', password: passwords.admin });
  if (signIn.status !== 200) throw new Error(`admin sign-in: ${signIn.status}`);
  for (let index = 1; index <= FAST_PRINTERS; index++) {
    const model = 'Simulated MK4';
    const created = await admin.post('/api/admin/printers', {
      name: `Bench ${index}`,
      model,
      buildVolumeMm: { x: 250, y: 210, z: 220 },
      nozzleMm: 0.4,
      materials: ['PLA'],
      connection: { kind: 'simulated', speedFactor: 6_000, offline: false, nozzleTargetC: 215, bedTargetC: 60, model },
    });
    if (created.status !== 201 && created.status !== 200) throw new Error(`printer: ${created.status} ${JSON.stringify(created.body).slice(0, 300)}`);
    const spools = await admin.request('PUT', `/api/admin/printers/${(created.body as { id: string }).id}/spools`, {
      spools: [{ material: 'PLA', colourName: 'Signal orange', colourHex: '#f97316', gramsLeft: 20_000, loaded: true }],
    }, {});
    if (spools.status !== 200) throw new Error(`spools: ${spools.status} ${JSON.stringify(spools.body).slice(0, 300)}`);
  }
}

/** The demo seller places orders through the sandbox shop until the database holds ORDERS of them. */
async function placeOrders(): Promise<void> {
  const passwords = JSON.parse(fs.readFileSync(path.join(serverEnv.DATA_DIR!, 'demo-accounts.json'), 'utf8')) as { seller: string };
  const seller = new TestClient(baseUrl);
  let shopId: string | null = null;
  while ((await orderCounts()).orders < ORDERS && Date.now() < deadline) {
    try {
      if (!shopId) {
        const signIn = await seller.post('/api/auth/sign-in/email', { email: 'seller@demo.layerline.local', password: passwords.seller });
        if (signIn.status !== 200) throw new Error(`sign-in: ${signIn.status}`);
        const shops = await seller.get('/api/shops');
        shopId = (shops.body as { id: string; platform: string }[]).find((shop) => shop.platform === 'sandbox')?.id ?? null;
        if (!shopId) throw new Error(`no sandbox shop: ${JSON.stringify(shops.body).slice(0, 200)}`);
      }
      const placed = await seller.post(`/api/shops/${shopId}/sandbox/simulate-order`, {});
      if (placed.status !== 201) throw new Error(`simulate-order: ${placed.status} ${JSON.stringify(placed.body).slice(0, 200)}`);
    } catch {
      await sleep(300); // the server is down (a kill) or starting: try again
    }
  }
}

interface Duplicates {
  duplicateCharges: number;
  duplicateLabels: number;
  duplicatePrintJobs: number;
}

async function duplicates(): Promise<Duplicates> {
  const count = async (text: string) => (await query<{ n: number }>(`SELECT count(*)::int AS n FROM (${text}) AS d`))[0]!.n;
  return {
    duplicateCharges: await count(
      `SELECT order_id FROM charge WHERE kind = 'order' AND status IN ('pending', 'processing', 'requires_action', 'succeeded', 'refunded')
        GROUP BY order_id HAVING count(*) > 1`,
    ),
    duplicateLabels: await count(
      `SELECT order_id, parcel_index FROM shipment WHERE status <> 'voided' AND tracking_number IS NOT NULL GROUP BY 1, 2 HAVING count(*) > 1`,
    ),
    duplicatePrintJobs: await count(`SELECT order_item_id, part_index, copy, attempt FROM print_job GROUP BY 1, 2, 3, 4 HAVING count(*) > 1`),
  };
}

let result: Record<string, unknown> = {};
let ok = false;
try {
  log(`seed ${SEED}, ${ORDERS} orders, ${KILLS} kills, time limit ${LIMIT_MS / 60_000} min; database ${new URL(scratch.url).pathname.slice(1)}; server log ${logFile}`);
  await startServer();
  await addPrinters();
  const placing = placeOrders();
  let kills = 0;
  let maxResume = 0;
  let maxFromSpawn = 0;
  while (kills < KILLS && Date.now() < deadline) {
    await sleep(2_000 + rand() * 10_000);
    const before = await orderCounts();
    await killServer();
    kills++;
    const held = await jobsInFlight();
    const spawnedAt = await startServer();
    const leaseAt = (await leaseTakenAt()) ?? spawnedAt;
    const leaseAfter = (leaseAt - spawnedAt) / 1000;
    const times = await resumeTimes(held, spawnedAt, leaseAt);
    const worst = Math.max(0, ...times.values());
    maxResume = Math.max(maxResume, worst);
    maxFromSpawn = Math.max(maxFromSpawn, times.size > 0 ? worst + leaseAfter : 0);
    const detail = [...times].map(([queue, seconds]) => `${queue} ${seconds.toFixed(1)} s`).join(', ');
    log(
      `kill ${kills}: ${before.orders} orders, ${before.delivered} delivered; ${held.length} jobs in flight; ` +
        `lease taken ${leaseAfter.toFixed(1)} s after the spawn (load ${os.loadavg()[0]!.toFixed(1)}); resumed after it: ${detail || 'nothing was in flight'}`,
    );
  }
  await placing;
  let counts = await orderCounts();
  while (counts.delivered < counts.orders && Date.now() < deadline) {
    await sleep(2_000);
    if (!serverRunning()) await startServer();
    counts = await orderCounts();
    log(`${counts.delivered} of ${counts.orders} orders delivered`);
  }
  log(`worst resume counted from the restarted process's job lease (recovery alone, Node's loading left out): ${maxResume.toFixed(1)} s`);
  const dupes = await duplicates();
  result = { orders: counts.orders, kills, delivered: counts.delivered, ...dupes, maxResumeSeconds: Number(maxFromSpawn.toFixed(1)) };
  ok =
    unplannedExits === 0 &&
    counts.orders >= ORDERS &&
    counts.delivered === counts.orders &&
    kills >= KILLS &&
    dupes.duplicateCharges === 0 &&
    dupes.duplicateLabels === 0 &&
    dupes.duplicatePrintJobs === 0 &&
    maxFromSpawn <= RESUME_LIMIT_S;
} catch (error) {
  log(`error: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await killServer();
  await db.end();
  await scratch.drop();
  if (ok) fs.rmSync(dataDir, { recursive: true, force: true });
}
if (!ok) console.log(`FAIL (server log kept in ${logFile})`);
console.log(JSON.stringify(result));
process.exit(ok ? 0 : 1);
