import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, startTestApp, TestClient } from '../test/test-app.ts';
import { DEMO_ACCOUNTS, DEMO_BAMBU_PRINTER, DEMO_PRINTERS, DEMO_PASSWORDS_FILE, demoPasswords, readDemoPasswords, seedDemoData } from './demo-data.ts';

/** The demo passwords every install had before they were made per installation (issue 10, finding 0). */
const OLD_FIXED_PASSWORDS = { seller: 'demo-seller-print-farm', admin: 'demo-admin-print-farm' };

const MAIN = path.resolve(import.meta.dirname, 'main.ts');
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function scratchDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'layerline-main-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface Installation {
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
}

interface Started {
  readonly child: ChildProcess;
  readonly baseUrl: string;
  readonly port: number;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Printed when this start seeds the demo accounts (SEED_DEMO_DATA not false). */
  readonly passwords: { seller: string; admin: string };
  readonly installation: Installation;
  stop(): Promise<void>;
}

/**
 * `npm start`'s process (node src/main.ts) as a local install runs it: on a fresh data directory
 * (and, with DATABASE_URL, a fresh database), or started again on an earlier one's.
 */
async function startMain(env: Record<string, string>, again?: Installation): Promise<Started> {
  let installation = again;
  if (!installation) {
    const postgres = process.env.DATABASE_URL ? await createScratchDatabase(process.env.DATABASE_URL) : undefined;
    if (postgres) cleanups.push(() => postgres.drop());
    installation = { dataDir: scratchDir(), databaseUrl: postgres?.url };
  }
  const { dataDir, databaseUrl } = installation;
  const seeds = env.SEED_DEMO_DATA !== 'false';
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      PORT: '0',
      SLICING: 'off',
      LOG_LEVEL: 'error',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  cleanups.push(stop);
  const deadline = Date.now() + 110_000;
  while (!(seeds ? /passwords made for this installation/ : /Layerline is running at/).test(out)) {
    if (child.exitCode !== null) throw new Error(`main.ts exited (${child.exitCode}):\n${out}\n${err}`);
    if (Date.now() > deadline) throw new Error(`main.ts did not start:\n${out}\n${err}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const url = /Layerline is running at (http:\/\/\S+)/.exec(out)![1]!;
  const port = Number(new URL(url).port);
  const seller = new RegExp(`Demo seller: ${DEMO_ACCOUNTS.seller.email} / (\\S+)`).exec(out)?.[1] ?? '';
  const admin = new RegExp(`Demo admin: +${DEMO_ACCOUNTS.admin.email} / (\\S+)`).exec(out)?.[1] ?? '';
  return { child, baseUrl: `http://127.0.0.1:${port}`, port, stdout: () => out, stderr: () => err, passwords: { seller, admin }, installation, stop };
}

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 3000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** An address of this machine that other machines could reach (none on an isolated runner). */
const networkAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((entry) => entry && entry.family === 'IPv4' && !entry.internal)?.address;

const signIn = (baseUrl: string, email: string, password: string) =>
  new TestClient(baseUrl).post('/api/auth/sign-in/email', { email, password });

/**
 * What the process has said on stderr once it had time to warn: the warning follows the start
 * message; wait up to 5 s for `expected`, or half a second when nothing is expected.
 */
async function stderrAfterStart(started: Started, expected?: RegExp): Promise<string> {
  const deadline = Date.now() + (expected ? 5000 : 500);
  while (Date.now() < deadline && !expected?.test(started.stderr())) await new Promise((resolve) => setTimeout(resolve, 100));
  return started.stderr();
}

describe('the first README line (npm start) does not expose an admin (issue 10, finding 0)', () => {
  // Two full starts of the process (migrations, demo seeding with a model upload): minutes on a loaded 2-core machine.
  it('listens on 127.0.0.1 only by default, with demo passwords of its own that are printed, kept 0600, and no longer the old ones', { timeout: 300_000 }, async () => {
    const first = await startMain({});
    expect(first.stdout()).toMatch(/Layerline is running at http:\/\/127\.0\.0\.1:\d+/);
    if (networkAddress) expect(await accepts(networkAddress, first.port)).toBe(false);
    expect(await accepts('127.0.0.1', first.port)).toBe(true);

    // The passwords are random, printed, and the same as kept in the data directory (owner-only).
    for (const password of Object.values(first.passwords)) expect(password).toMatch(/^[\w-]{20}$/);
    expect(first.passwords).not.toEqual(OLD_FIXED_PASSWORDS);
    expect(first.passwords.admin).not.toBe(OLD_FIXED_PASSWORDS.admin);
    expect(first.passwords.seller).not.toBe(OLD_FIXED_PASSWORDS.seller);
    expect(first.passwords.admin).not.toBe(first.passwords.seller);
    const keptIn = /kept in (\S+)\)/.exec(first.stdout())![1]!;
    expect(path.basename(keptIn)).toBe(DEMO_PASSWORDS_FILE);
    expect(JSON.parse(fs.readFileSync(keptIn, 'utf8'))).toEqual(first.passwords);
    expect(fs.statSync(keptIn).mode & 0o777).toBe(0o600);

    // The old fixed password no longer signs in; this installation's does.
    expect((await signIn(first.baseUrl, DEMO_ACCOUNTS.admin.email, OLD_FIXED_PASSWORDS.admin)).status).toBe(401);
    const admin = await signIn(first.baseUrl, DEMO_ACCOUNTS.admin.email, first.passwords.admin);
    expect(admin.status).toBe(200);
    // Only loopback: no warning.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(first.stderr()).not.toMatch(/WARNING/);
    await first.stop();

    // The same installation started again beyond loopback (HOST) with SEED_DEMO_DATA=false: this
    // start creates no demo account and prints no password, but the ones made before are still in
    // its database, reachable with the kept password, so it warns all the same.
    const restarted = await startMain({ HOST: '0.0.0.0', SEED_DEMO_DATA: 'false' }, first.installation);
    expect(restarted.stdout()).not.toMatch(/Demo (seller|admin):/);
    expect(await stderrAfterStart(restarted, /WARNING/)).toMatch(
      /WARNING: demo accounts exist \(one is an admin\) and this server listens on 0\.0\.0\.0, beyond this machine/,
    );
    if (networkAddress) expect(await accepts(networkAddress, restarted.port)).toBe(true);
    expect((await signIn(restarted.baseUrl, DEMO_ACCOUNTS.admin.email, first.passwords.admin)).status).toBe(200);
    await restarted.stop();

    // Another installation (a fresh data directory) has other passwords; this one listens on every
    // interface, as HOST=0.0.0.0 asks, and says loudly that its demo admin is reachable.
    const second = await startMain({ HOST: '0.0.0.0' });
    expect(second.passwords.admin).not.toBe(first.passwords.admin);
    expect(second.passwords.seller).not.toBe(first.passwords.seller);
    const deadline = Date.now() + 5000;
    while (!/WARNING: demo accounts exist/.test(second.stderr()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(second.stderr()).toMatch(/WARNING: demo accounts exist \(one is an admin\) and this server listens on 0\.0\.0\.0, beyond this machine/);
    if (networkAddress) expect(await accepts(networkAddress, second.port)).toBe(true);
    expect((await signIn(second.baseUrl, DEMO_ACCOUNTS.admin.email, first.passwords.admin)).status).toBe(401);
    await second.stop();
  });

  it('does not warn when it listens beyond loopback and no demo account exists', { timeout: 120_000 }, async () => {
    const bare = await startMain({ HOST: '0.0.0.0', SEED_DEMO_DATA: 'false' });
    expect(bare.stdout()).not.toMatch(/Demo (seller|admin):/);
    expect(await stderrAfterStart(bare)).not.toMatch(/WARNING/);
    if (networkAddress) expect(await accepts(networkAddress, bare.port)).toBe(true);
    await bare.stop();
  });

  it('moves an older install off the old fixed passwords at start, ending their sessions, and keeps its own across restarts', { timeout: 120_000 }, async () => {
    const t = await startTestApp();
    cleanups.push(() => t.close());
    // The demo accounts as every install before this change created them.
    for (const role of ['seller', 'admin'] as const) {
      const demo = DEMO_ACCOUNTS[role];
      await t.context.auth.api.signUpEmail({
        body: { email: demo.email, password: OLD_FIXED_PASSWORDS[role], name: demo.name, businessName: demo.businessName },
      });
    }
    const attacker = new TestClient(t.baseUrl);
    expect((await attacker.post('/api/auth/sign-in/email', { email: DEMO_ACCOUNTS.admin.email, password: OLD_FIXED_PASSWORDS.admin })).status).toBe(200);
    expect((await attacker.get('/api/me')).status).toBe(200);

    const dataDir = scratchDir();
    expect(readDemoPasswords(dataDir)).toBeUndefined();
    const passwords = demoPasswords(dataDir);
    await seedDemoData(t.context, passwords);
    for (const role of ['seller', 'admin'] as const) {
      expect((await signIn(t.baseUrl, DEMO_ACCOUNTS[role].email, OLD_FIXED_PASSWORDS[role])).status).toBe(401);
      expect((await signIn(t.baseUrl, DEMO_ACCOUNTS[role].email, passwords[role])).status).toBe(200);
    }
    expect((await attacker.get('/api/me')).status).toBe(401);

    // A restart reads the same passwords and changes nothing: sessions signed in with them live on.
    const owner = new TestClient(t.baseUrl);
    expect((await owner.post('/api/auth/sign-in/email', { email: DEMO_ACCOUNTS.admin.email, password: passwords.admin })).status).toBe(200);
    expect(demoPasswords(dataDir)).toEqual(passwords);
    expect(readDemoPasswords(dataDir)).toEqual(passwords);
    await seedDemoData(t.context, demoPasswords(dataDir));
    expect((await owner.get('/api/me')).status).toBe(200);
    // The demo farm (issue 11): made once, with its spools; a restart adds no printer.
    const printers = (await owner.get('/api/admin/printers')).body as { name: string; connection: { kind: string }; spools: unknown[] }[];
    expect(printers.map((p) => p.name).sort()).toEqual([...DEMO_PRINTERS.map((p) => p.name), DEMO_BAMBU_PRINTER.name].sort());
    const simulated = printers.filter((p) => p.name !== DEMO_BAMBU_PRINTER.name);
    expect(simulated.every((p) => p.connection.kind === 'simulated' && p.spools.length === 2)).toBe(true);
    // The demo's Bambu Lab printer (issue 22) runs in this process and answers Test connection.
    const bambu = printers.find((p) => p.name === DEMO_BAMBU_PRINTER.name) as unknown as { id: string; connection: { kind: string } };
    expect(bambu.connection.kind).toBe('bambulab');
    expect((await owner.post(`/api/admin/printers/${bambu.id}/test`, {})).body).toMatchObject({ ok: true, identity: { software: 'Bambu Lab P1S' } });
    // Continuous printing (issue 22): one demo printer ejects its own parts.
    const selfClearing = (printers as unknown as { name: string; clearing: { kind: string } }[]).filter((p) => p.clearing.kind !== 'person');
    expect(selfClearing.map((p) => [p.name, p.clearing.kind])).toEqual([['MK4 2', 'eject_gcode']]);
    // The demo seller's parcel branding (issue 24): an SVG logo, sanitised and rasterised like an upload, and the card.
    const sellerId = (await t.context.users.findIdByEmail(DEMO_ACCOUNTS.seller.email))!;
    const branding = (await owner.get(`/api/branding?targetUserId=${sellerId}`)).body;
    expect(branding).toMatchObject({ logo: { format: 'svg', widthPx: 800 }, thankYouCard: true, insertMessage: expect.stringMatching(/small studio/) });
    // Checkout rates (issue 24): the demo seller's sandbox Shopify store, its rates on; a restart adds none.
    const rates = await t.context.checkoutRates.list(sellerId);
    expect(rates.items).toEqual([expect.objectContaining({ enabled: true, lastError: '' })]);
    await seedDemoData(t.context, demoPasswords(dataDir));
    expect((await t.context.checkoutRates.list(sellerId)).items).toHaveLength(1);
  });
});

describe('the first README line runs the whole chain (issues 11, 12 and 13)', () => {
  // One start with the demo data; the demo farm (simulated printers) prints the demo shop's order,
  // the farm autopilot takes it through QC and packing with no clicks, the sandbox carrier's label is
  // bought, its tracking reaches the sandbox shop, and the parcel is delivered (a sandbox day is 10 s).
  it('takes the demo order from accepted to delivered, by itself, into both fulfilment histories', { timeout: 400_000 }, async () => {
    const started = await startMain({});
    const admin = new TestClient(started.baseUrl);
    expect((await admin.post('/api/auth/sign-in/email', { email: DEMO_ACCOUNTS.admin.email, password: started.passwords.admin })).status).toBe(200);
    const seller = new TestClient(started.baseUrl);
    expect((await seller.post('/api/auth/sign-in/email', { email: DEMO_ACCOUNTS.seller.email, password: started.passwords.seller })).status).toBe(200);
    const board = (await admin.get('/api/admin/production/board')).body as { autopilot: boolean; printers: unknown[] };
    expect(board.autopilot).toBe(true);
    expect(board.printers).toHaveLength(DEMO_PRINTERS.length + 1); // and the demo's Bambu Lab printer

    const ordersNow = async () => ((await seller.get('/api/orders?limit=50')).body as { items: { id: string; status: string }[] }).items;
    const accepted = (await ordersNow()).filter((o) => ['accepted', 'in_production', 'printed', 'packed'].includes(o.status));
    expect(accepted.length).toBeGreaterThan(0);
    const watched = accepted[0]!.id;
    const seen = new Set<string>();
    const deadline = Date.now() + 240_000;
    let status = '';
    while (Date.now() < deadline) {
      const order = (await seller.get(`/api/orders/${watched}`)).body as { status: string; production: { partsTotal: number; partsDone: number } | null };
      status = order.status;
      seen.add(status);
      // The label is bought as soon as it is packed: the next look may already find it shipped.
      if (['packed', 'shipped', 'delivered'].includes(status)) {
        expect(order.production!.partsDone).toBe(order.production!.partsTotal);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    expect(['packed', 'shipped', 'delivered']).toContain(status);
    const timeline = ((await seller.get(`/api/orders/${watched}`)).body as { events: { toStatus: string; reason: string }[] }).events;
    expect(timeline.map((e) => e.toStatus)).toEqual(expect.arrayContaining(['accepted', 'in_production', 'printed', 'packed']));
    expect(timeline.find((e) => e.toStatus === 'packed')!.reason).toMatch(/autopilot/);

    type Shipped = { status: string; externalId: string; events: { toStatus: string }[]; shipments: { status: string; trackingNumber: string; writeback: string; labelUrl: string }[] };
    let order: Shipped | undefined;
    const shippingDeadline = Date.now() + 150_000;
    while (Date.now() < shippingDeadline) {
      order = (await seller.get(`/api/orders/${watched}`)).body as Shipped;
      if (order.status === 'delivered' && order.shipments.every((s) => s.writeback === 'sent')) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    expect(order!.status).toBe('delivered');
    expect(order!.events.map((e) => e.toStatus)).toEqual(expect.arrayContaining(['shipped', 'delivered']));
    const [label] = order!.shipments;
    expect(label).toMatchObject({ status: 'delivered', writeback: 'sent', trackingNumber: expect.stringMatching(/^SBX/) });
    const pdf = await fetch(new URL(label!.labelUrl, started.baseUrl), { headers: { cookie: seller.cookieHeader() } });
    expect(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');
    // Both fulfilment histories show it, and the CSV export carries it.
    const mine = (await seller.get(`/api/fulfillment-history/user?searchTerm=${label!.trackingNumber}`)).body as { items: { orderId: string; deliveredAt: string | null }[] };
    expect(mine.items).toEqual([expect.objectContaining({ orderId: watched, deliveredAt: expect.any(String) })]);
    const everyone = (await admin.get(`/api/fulfillment-history?searchTerm=${label!.trackingNumber}`)).body as { items: { orderId: string }[] };
    expect(everyone.items.map((i) => i.orderId)).toEqual([watched]);
    const csv = await fetch(new URL(`/api/fulfillment-history/export.csv?searchTerm=${label!.trackingNumber}`, started.baseUrl), { headers: { cookie: seller.cookieHeader() } });
    expect(csv.status).toBe(200);
    expect(await csv.text()).toContain(label!.trackingNumber);

    // Payments (issue 13): the demo seller's sandbox card paid for the order, once, when it entered production.
    const charges = (await seller.get(`/api/payments/charges?orderId=${watched}`)).body as { items: { status: string; kind: string; amountCents: number; provider: string }[] };
    expect(charges.items).toEqual([expect.objectContaining({ kind: 'order', status: 'succeeded' })]);
    expect(charges.items[0]!.amountCents).toBeGreaterThan(0);
    // The wallet (issue 24): the demo seller's $100 top-up paid the order from the balance, each with its receipt.
    expect(charges.items[0]!.provider).toBe('wallet');
    expect((await seller.get('/api/wallet')).body).toMatchObject({ autoRecharge: true, hasCard: true });
    const receipts = (await seller.get('/api/wallet/receipts')).body as { items: { kind: string; paidWith: string }[] };
    expect(receipts.items).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'top_up', paidWith: 'card' }), expect.objectContaining({ kind: 'charge', paidWith: 'wallet' })]));
    // …and the fulfilment record shows what the order was charged beside what its label cost.
    const recorded = (await seller.get(`/api/fulfillment-history/user?searchTerm=${label!.trackingNumber}`)).body as { items: { chargedCents: number | null }[] };
    expect(recorded.items[0]!.chargedCents).toBe(charges.items[0]!.amountCents);

    // The demo seller is an affiliate: the referred demo seller's order earned them their share.
    type Affiliates = { affiliateId: string; signUpsCount: number; totals: { pendingCents: number } };
    let affiliate: Affiliates | undefined;
    const affiliateDeadline = Date.now() + 60_000;
    while (Date.now() < affiliateDeadline) {
      affiliate = (await seller.get('/api/affiliates/me')).body as Affiliates;
      if (affiliate.totals.pendingCents > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    expect(affiliate!.signUpsCount).toBe(1);
    expect(affiliate!.totals.pendingCents).toBeGreaterThan(0);
    const earnings = (await seller.get(`/api/affiliates/${affiliate!.affiliateId}/earnings`)).body as { items: { kind: string; referredSeller: string }[] };
    // The referred seller's shop brought them an order or two (one per sync and simulation): an earning on each charged one.
    expect(earnings.items.length).toBeGreaterThan(0);
    for (const entry of earnings.items) expect(entry).toMatchObject({ kind: 'earning', referredSeller: expect.stringContaining('Referred') });

    // A declined card holds the next order the balance does not cover (an admin's debit empties it here; its
    // auto-recharge is declined too), nothing prints, and the seller is emailed (the outbox, read by admins).
    const { ownerId, balanceCents: balance } = (await seller.get('/api/wallet')).body as { ownerId: string; balanceCents: number };
    if (balance > 0) {
      const debit = await admin.post('/api/wallet/adjustments', { targetUserId: ownerId, amountCents: -balance, reason: 'README line: the balance spent', requestId: 'main-test-empty-balance' });
      expect(debit.status, JSON.stringify(debit.body)).toBeLessThan(300);
    }
    const declining = (await seller.post('/api/payments/sandbox/payment-methods', { cardNumber: '4000 0000 0000 0002', expMonth: 12, expYear: 2034, cvc: '123' })).body as { paymentMethodId: string };
    expect((await seller.post('/api/payments/default-payment-method', { paymentMethodId: declining.paymentMethodId })).status).toBe(200);
    const [shop] = ((await seller.get('/api/shops')).body as { id: string; platform: string }[]).filter((s) => s.platform === 'sandbox');
    const simulated = (await seller.post(`/api/shops/${shop!.id}/sandbox/simulate-order`, {})).body as { orderId: string };
    let held: { status: string; holdReason: string | null } | undefined;
    const holdDeadline = Date.now() + 30_000;
    while (Date.now() < holdDeadline) {
      held = (await seller.get(`/api/orders/${simulated.orderId}`)).body as { status: string; holdReason: string | null };
      if (held.status === 'on_hold') break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(held).toMatchObject({ status: 'on_hold', holdReason: expect.stringMatching(/^Payment failed: Your card was declined\./) });
    const outbox = (await admin.get('/api/notifications/outbox?limit=50')).body as { items: { toAddress: string; templateType: string }[] };
    expect(outbox.items).toEqual(expect.arrayContaining([expect.objectContaining({ toAddress: DEMO_ACCOUNTS.seller.email, templateType: 'payment_failed' })]));
    await started.stop();
  });
});
