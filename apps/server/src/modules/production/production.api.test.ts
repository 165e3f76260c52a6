import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uploadDesign, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { boxStl } from '../../../test/hostile-models.ts';
import { printJob, productionEvent } from '../../db/schema.ts';
import { startOctoprintSimulator } from '../../integrations/octoprint/octoprint-simulator.ts';

/**
 * The print farm at work (issue 11, items 2-5) through the real server and database: accepted
 * orders become print jobs, the dispatcher puts them on simulated printers (only when everything
 * matches and the bed is confirmed clear), printers' answers move jobs and orders, QC passes or
 * fails (reprints, then a hold), packing, the packing slip, the seller's view, and the faults: a
 * printer that fails mid-print, goes offline, a part no printer can take, two dispatchers at once,
 * a cancelled order. The farm's tick is called directly (FARM_TICK_S keeps the timer out of the way).
 * Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */

const ADDRESS = { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' };
const ORANGE = '#f97316';

let t: TestApp;
let admin: SignedInClient;
let seller: SignedInClient;
let other: SignedInClient;
/** The seller's 20 mm box in PLA (the default configuration, orange) and a 150 mm tall one. */
let smallConfig: string;
let tallConfig: string;

async function addPrinter(name: string, options: { size?: number; nozzle?: number; spool?: [string, string] | null; connection?: Record<string, unknown> } = {}) {
  const size = options.size ?? 200;
  const created = await admin.post('/api/admin/printers', {
    name,
    buildVolumeMm: { x: size, y: size, z: size },
    nozzleMm: options.nozzle ?? 0.4,
    connection: { kind: 'simulated', speedFactor: 100_000, ...options.connection },
  });
  expect(created.status).toBe(201);
  const spool = options.spool === undefined ? ['PLA', ORANGE] : options.spool;
  if (spool) {
    const set = await admin.request<any>('PUT', `/api/admin/printers/${created.body.id}/spools`, {
      spools: [{ material: spool[0], colourName: 'Spool', colourHex: spool[1], gramsLeft: 1000, loaded: true }],
    }, {});
    expect(set.status).toBe(200);
  }
  return created.body.id as string;
}

async function order(sku: string, quantity = 1) {
  const created = await seller.post('/api/orders/manual', { items: [{ sku, quantity }], shippingAddress: ADDRESS });
  expect(created.status).toBe(201);
  return created.body as { id: string; status: string };
}

const tick = () => t.context.farmDispatcher.tick();
const jobsOf = (orderId: string) => t.context.printJobs.ofOrder(orderId);
const orderOf = async (orderId: string) => (await seller.get(`/api/orders/${orderId}`)).body;
const board = async () => (await admin.get('/api/admin/production/board')).body;

/** Ticks until `done` holds (each tick is one poll + decision), failing after `max` ticks. */
async function tickUntil(done: () => Promise<boolean>, max = 20) {
  for (let i = 0; i < max; i++) {
    if (await done()) return;
    await tick();
    await new Promise((r) => setTimeout(r, 30));
  }
  expect(await done()).toBe(true);
}

/** Retires every printer, so each test sets up its own farm. */
async function emptyFarm() {
  for (const p of (await admin.get('/api/admin/printers')).body) {
    if (p.status !== 'retired') await admin.post(`/api/admin/printers/${p.id}/retire`, {});
  }
}

beforeAll(async () => {
  t = await startTestApp({ FARM_TICK_S: '300', FARM_AUTOPILOT: 'false', MAX_BUILD_VOLUME_MM: '400,400,400' });
  [admin, seller, other] = await Promise.all([t.signUp({ role: 'admin' }), t.signUp({ role: 'beta' }), t.signUp({ role: 'beta' })]);
  const small = await uploadDesign(seller, boxStl(20, 20, 20), 'box.stl');
  smallConfig = small.printConfigs[0].id;
  const tall = await uploadDesign(seller, boxStl(30, 30, 150), 'tall.stl');
  tallConfig = tall.printConfigs[0].id;
  const product = await seller.post('/api/products', {
    name: 'Desk set',
    variants: [
      { name: 'Box', sku: 'BOX', packaging: 'gift box', parts: [{ printConfigId: smallConfig, quantity: 1 }] },
      { name: 'Kit', sku: 'KIT', parts: [{ printConfigId: smallConfig, quantity: 2 }, { printConfigId: tallConfig, quantity: 1 }] },
    ],
  });
  expect(product.status).toBe(201);
}, 120_000);
afterAll(async () => t?.close());

describe('print jobs from accepted orders', () => {
  it('makes one job per part × quantity, once, with the part’s material, colour and size', async () => {
    const placed = await order('KIT', 2);
    expect(placed.status).toBe('accepted');
    await t.context.orders.announcementsSettled();
    const jobs = await jobsOf(placed.id);
    // 2 kits × (2 small + 1 tall) = 6 jobs.
    expect(jobs).toHaveLength(6);
    expect(jobs.every((j) => j.status === 'queued' && j.attempt === 1 && j.material === 'PLA' && j.colour === ORANGE)).toBe(true);
    expect(jobs.filter((j) => j.sizeZMm === 150)).toHaveLength(2);
    // Each printed copy of each part is its own job.
    expect(new Set(jobs.map((j) => `${j.orderItemId}:${j.partIndex}:${j.copy}`)).size).toBe(6);
    expect(jobs[0]!.partName).toMatch(/^Desk set \/ Kit \//);
    // Without PrusaSlicer (SLICING=off here) the file is a simulation file: simulated printers only.
    expect(jobs.every((j) => j.fileKind === 'simulation' && j.fileKey !== null)).toBe(true);
    // Made again (a repeated announcement): nothing new.
    expect(await t.context.production.createJobsForOrder(placed.id)).toBe(0);
    expect(await jobsOf(placed.id)).toHaveLength(6);
    // The seller sees the parts on the order; another seller does not see the order at all.
    const seen = await orderOf(placed.id);
    expect(seen.production).toMatchObject({ partsTotal: 6, partsDone: 0, partsPrinting: 0 });
    expect((await other.get(`/api/orders/${placed.id}`)).status).toBe(404);
    await seller.post(`/api/orders/${placed.id}/status`, { to: 'cancelled', reason: 'test over' });
    await t.context.orders.announcementsSettled();
    expect((await jobsOf(placed.id)).every((j) => j.status === 'cancelled')).toBe(true);
  });

  it('is admin only', async () => {
    expect((await seller.get('/api/admin/production/board')).status).toBe(403);
    expect((await t.client().get('/api/admin/production/board')).status).toBe(401);
    const anyJob = (await t.context.db.select().from(printJob).limit(1))[0]!;
    expect((await seller.post(`/api/admin/production/jobs/${anyJob.id}/qc`, { result: 'pass' })).status).toBe(403);
  });
});

describe('the dispatcher on simulated printers', () => {
  it('prints an order from accepted to packed: bed clear, print, QC, packing slip, pack', async () => {
    await emptyFarm();
    const printerId = await addPrinter('Sim A');
    const placed = await order('BOX');
    await t.context.orders.announcementsSettled();
    // The printer answers, but its bed was never confirmed clear: nothing starts.
    await tick();
    expect((await jobsOf(placed.id))[0]!.status).toBe('queued');
    const b1 = await board();
    expect(b1.printers.find((p: any) => p.id === printerId)).toMatchObject({ bedConfirmedClear: false, connectionLost: false, state: { state: 'idle' } });
    expect(b1.queued.map((j: any) => j.orderId)).toContain(placed.id);

    expect((await admin.post(`/api/admin/production/printers/${printerId}/bed-clear`, {})).status).toBe(204);
    await tick();
    const [started] = await jobsOf(placed.id);
    expect(started!.failureReason).toBe(null);
    // Started on this printer; on a loaded machine the simulated print may already be done.
    expect(['printing', 'printed']).toContain(started!.status);
    expect(started!.printerId).toBe(printerId);
    expect((await orderOf(placed.id)).status).toBe('in_production');

    await tickUntil(async () => (await jobsOf(placed.id))[0]!.status === 'printed');
    const b2 = await board();
    expect(b2.awaitingQc.map((j: any) => j.id)).toContain(started!.id);
    expect(b2.printers.find((p: any) => p.id === printerId).bedConfirmedClear).toBe(false);

    const passed = await admin.post(`/api/admin/production/jobs/${started!.id}/qc`, { result: 'pass' });
    expect(passed.status).toBe(200);
    expect(passed.body).toMatchObject({ status: 'qc_passed', qcBy: admin.userId });
    expect((await orderOf(placed.id)).status).toBe('printed');
    expect((await admin.post(`/api/admin/production/jobs/${started!.id}/qc`, { result: 'pass' })).status).toBe(409);

    const b3 = await board();
    const packing = b3.awaitingPacking.find((o: any) => o.orderId === placed.id);
    expect(packing.pickList).toEqual([{ sku: 'BOX', title: expect.any(String), quantity: 1, packaging: 'gift box', parts: [{ name: 'Desk set / Box', quantity: 1 }] }]);
    const slip = await fetch(new URL(`/api/admin/production/orders/${placed.id}/packing-slip.pdf?message=Thanks!`, t.baseUrl), { headers: { cookie: admin.cookieHeader() } });
    expect(slip.status).toBe(200);
    expect(slip.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await slip.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');
    expect((await fetch(new URL(`/api/admin/production/orders/${placed.id}/packing-slip.pdf`, t.baseUrl), { headers: { cookie: seller.cookieHeader() } })).status).toBe(403);

    expect((await admin.post(`/api/admin/production/orders/${placed.id}/pack`, { message: 'Thanks!' })).status).toBe(204);
    const packed = await orderOf(placed.id);
    expect(packed.status).toBe('packed');
    expect(packed.production).toMatchObject({ partsTotal: 1, partsDone: 1 });
    expect(packed.events.map((e: any) => e.toStatus)).toEqual(expect.arrayContaining(['accepted', 'in_production', 'printed', 'packed']));
    expect((await admin.post(`/api/admin/production/orders/${placed.id}/pack`, {})).status).toBe(409);
  });

  it('reprints a part that fails QC, and holds the order with the reason after the third attempt', async () => {
    await emptyFarm();
    const printerId = await addPrinter('Sim QC');
    const placed = await order('BOX');
    await t.context.orders.announcementsSettled();
    for (let attempt = 1; attempt <= 3; attempt++) {
      await admin.post(`/api/admin/production/printers/${printerId}/bed-clear`, {});
      await tickUntil(async () => (await jobsOf(placed.id)).some((j) => j.attempt === attempt && j.status === 'printed'));
      const job = (await jobsOf(placed.id)).find((j) => j.attempt === attempt)!;
      const empty = await admin.post(`/api/admin/production/jobs/${job.id}/qc`, { result: 'fail', reason: '' });
      expect(empty.status).toBe(400);
      expect(empty.body.error).toMatch(/why/i);
      const failed = await admin.post(`/api/admin/production/jobs/${job.id}/qc`, { result: 'fail', reason: 'layer shift at 8 mm' });
      expect(failed.body.status).toBe('qc_failed');
    }
    const jobs = await jobsOf(placed.id);
    expect(jobs.map((j) => [j.attempt, j.status])).toEqual([[1, 'qc_failed'], [2, 'qc_failed'], [3, 'qc_failed']]);
    expect(jobs[1]!.reprintOf).toBe(jobs[0]!.id);
    const held = await orderOf(placed.id);
    expect(held.status).toBe('on_hold');
    expect(held.holdReason).toContain('failed 3 times');
    expect(held.holdReason).toContain('layer shift at 8 mm');
    expect((await board()).onHold.map((h: any) => h.orderId)).toContain(placed.id);
    // Released by an admin: one more attempt is queued.
    expect((await admin.post(`/api/orders/${placed.id}/status`, { to: 'accepted', reason: 'new nozzle fitted' })).status).toBe(200);
    await t.context.orders.announcementsSettled();
    expect((await jobsOf(placed.id)).map((j) => [j.attempt, j.status]).at(-1)).toEqual([4, 'queued']);
    await admin.post(`/api/orders/${placed.id}/status`, { to: 'cancelled', reason: 'test over' });
  });

  it('records a print that fails on the printer and reprints it; a printer gone offline shows, and its job is not restarted', async () => {
    await emptyFarm();
    const failing = await addPrinter('Sim fails', { connection: { speedFactor: 20, failAtLayer: 2 } });
    const placed = await order('BOX');
    await t.context.orders.announcementsSettled();
    await admin.post(`/api/admin/production/printers/${failing}/bed-clear`, {});
    await tick();
    const [first] = await jobsOf(placed.id);
    expect(first!.status).toBe('printing');

    // Offline mid-print: the board says so, the job stays printing, nothing is restarted.
    t.context.simulatedPrinters.setOffline(failing, true);
    await tick();
    const offline = await board();
    expect(offline.printers.find((p: any) => p.id === failing).connectionLost).toBe(true);
    expect((await jobsOf(placed.id)).map((j) => j.status)).toEqual(['printing']);
    t.context.simulatedPrinters.setOffline(failing, false);

    await tickUntil(async () => (await jobsOf(placed.id))[0]!.status === 'failed', 200);
    const jobs = await jobsOf(placed.id);
    expect(jobs[0]!.failureReason).toMatch(/layer 2/);
    expect(jobs[1]).toMatchObject({ attempt: 2, status: 'queued', reprintOf: jobs[0]!.id });
    const events = await t.context.db.select().from(productionEvent).where(eq(productionEvent.jobId, jobs[0]!.id));
    expect(events.map((e) => e.kind)).toEqual(expect.arrayContaining(['assigned', 'printing', 'failed']));
    // The failed print left the bed to clear: the reprint waits for it.
    await tick();
    expect((await jobsOf(placed.id))[1]!.status).toBe('queued');
    await admin.post(`/api/orders/${placed.id}/status`, { to: 'cancelled', reason: 'test over' });
  });

  it('fails and reprints a job whose printer is retired while it prints', async () => {
    await emptyFarm();
    const printerId = await addPrinter('Sim retired', { connection: { speedFactor: 1 } });
    const placed = await order('BOX');
    await t.context.orders.announcementsSettled();
    await admin.post(`/api/admin/production/printers/${printerId}/bed-clear`, {});
    await tick();
    expect((await jobsOf(placed.id))[0]!.status).toBe('printing');
    expect((await admin.post(`/api/admin/printers/${printerId}/retire`, {})).status).toBe(200);
    await tick();
    const jobs = await jobsOf(placed.id);
    expect(jobs[0]).toMatchObject({ status: 'failed', failureReason: expect.stringMatching(/retired or removed/) });
    expect(jobs[1]).toMatchObject({ status: 'queued', attempt: 2 });
    await admin.post(`/api/orders/${placed.id}/status`, { to: 'cancelled', reason: 'test over' });
  });

  it('holds an order whose part no printer of the farm can take, in words; a part only a 0.6 mm printer fits is made for 0.6 mm', async () => {
    await emptyFarm();
    await addPrinter('Sim small', { size: 120 });
    await addPrinter('Sim wide nozzle', { size: 140, nozzle: 0.6 });
    const placed = await order('KIT');
    await t.context.orders.announcementsSettled();
    const held = await orderOf(placed.id);
    expect(held.status).toBe('on_hold');
    expect(held.holdReason).toMatch(/The part is 30 × 30 × 150 mm; the largest bed is/);
    expect(held.holdReason).toContain('Desk set / Kit');
    // Its jobs wait (they are kept for when the order is released), and nothing dispatches them.
    await tick();
    expect((await jobsOf(placed.id)).every((j) => j.status === 'queued')).toBe(true);
    await admin.post(`/api/orders/${placed.id}/status`, { to: 'cancelled', reason: 'test over' });

    // A big printer with a 0.6 mm nozzle joins: the tall part is made for it, the small ones for 0.4 mm.
    const big = await addPrinter('Sim big 0.6', { size: 300, nozzle: 0.6 });
    const next = await order('KIT');
    await t.context.orders.announcementsSettled();
    expect((await orderOf(next.id)).status).toBe('accepted');
    const jobs = await jobsOf(next.id);
    expect(jobs.filter((j) => j.sizeZMm === 150).map((j) => j.nozzleMm)).toEqual([0.6]);
    expect(jobs.filter((j) => j.sizeZMm === 20).every((j) => j.nozzleMm === 0.4)).toBe(true);
    await admin.post(`/api/admin/production/printers/${big}/bed-clear`, {});
    await tick();
    expect((await jobsOf(next.id)).find((j) => j.sizeZMm === 150)).toMatchObject({ status: 'printing', printerId: big });
    await admin.post(`/api/orders/${next.id}/status`, { to: 'cancelled', reason: 'test over' });
    await t.context.orders.announcementsSettled();
  });

  it('never puts a job on two printers or two jobs on one printer when two dispatchers run at once', async () => {
    await emptyFarm();
    const printers = await Promise.all(['P1', 'P2', 'P3'].map((name) => addPrinter(name, { connection: { speedFactor: 1 } })));
    const placed = await order('BOX', 8);
    await t.context.orders.announcementsSettled();
    await Promise.all(printers.map((id) => admin.post(`/api/admin/production/printers/${id}/bed-clear`, {})));
    // Two admins pressing "start" while the worker ticks.
    await Promise.all([tick(), tick(), tick()]);
    const jobs = await jobsOf(placed.id);
    const onPrinters = jobs.filter((j) => ['assigned', 'uploading', 'printing'].includes(j.status));
    expect(onPrinters.length).toBeGreaterThan(0);
    expect(onPrinters.length).toBeLessThanOrEqual(3);
    expect(new Set(onPrinters.map((j) => j.printerId)).size).toBe(onPrinters.length);
    const assignedEvents = await t.context.db.select().from(productionEvent).where(eq(productionEvent.kind, 'assigned'));
    const perJob = new Map<string, number>();
    for (const e of assignedEvents) if (e.jobId) perJob.set(e.jobId, (perJob.get(e.jobId) ?? 0) + 1);
    for (const job of onPrinters) expect(perJob.get(job.id)).toBe(1);

    // Cancelled while printing: the jobs end and the printers are told to stop.
    await admin.post(`/api/orders/${placed.id}/status`, { to: 'cancelled', reason: 'buyer cancelled' });
    await t.context.orders.announcementsSettled();
    expect((await jobsOf(placed.id)).every((j) => j.status === 'cancelled')).toBe(true);
    await tick();
    for (const id of printers) {
      const status = (await board()).printers.find((p: any) => p.id === id);
      expect(['cancelled', 'finished', 'idle']).toContain(status.state.state);
    }
  });

  it('pins a job to a printer and reorders the queue', async () => {
    await emptyFarm();
    const a = await addPrinter('Pin A');
    const b = await addPrinter('Pin B');
    const first = await order('BOX');
    const second = await order('BOX');
    await t.context.orders.announcementsSettled();
    const [jobA] = await jobsOf(first.id);
    const [jobB] = await jobsOf(second.id);
    // Second before first.
    expect((await admin.post(`/api/admin/production/jobs/${jobB!.id}/move`, { beforeJobId: jobA!.id })).status).toBe(200);
    const queue = (await board()).queued.map((j: any) => j.id);
    expect(queue.indexOf(jobB!.id)).toBeLessThan(queue.indexOf(jobA!.id));
    // The first pinned to B; only B's bed is clear, so the second (on top) waits for A.
    expect((await admin.post(`/api/admin/production/jobs/${jobA!.id}/pin`, { printerId: b })).body.pinnedPrinterId).toBe(b);
    expect((await admin.post(`/api/admin/production/jobs/${jobA!.id}/pin`, { printerId: crypto.randomUUID() })).status).toBe(404);
    await admin.post(`/api/admin/production/printers/${b}/bed-clear`, {});
    await tick();
    expect((await t.context.printJobs.find(jobA!.id))!).toMatchObject({ printerId: b });
    expect((await t.context.printJobs.find(jobB!.id))!.status).toBe('queued');
    void a;
    for (const o of [first, second]) await admin.post(`/api/orders/${o.id}/status`, { to: 'cancelled', reason: 'test over' });
  });

  it('asks for a spool change when no printer has the colour, and starts once it is loaded', async () => {
    await emptyFarm();
    const printerId = await addPrinter('Sim blue', { spool: ['PLA', '#1e88e5'] });
    const placed = await order('BOX');
    await t.context.orders.announcementsSettled();
    await admin.post(`/api/admin/production/printers/${printerId}/bed-clear`, {});
    await tick();
    const [job] = await jobsOf(placed.id);
    expect(job).toMatchObject({ status: 'assigned', spoolChange: { material: 'PLA', colour: ORANGE } });
    const loaded = await admin.post(`/api/admin/production/jobs/${job!.id}/spool-loaded`, {});
    expect(loaded.status).toBe(200);
    expect(loaded.body.status).toBe('printing');
    const printer = (await admin.get(`/api/admin/printers/${printerId}`)).body;
    expect(printer.spools.find((s: any) => s.loaded)).toMatchObject({ material: 'PLA', colourHex: ORANGE });
    await admin.post(`/api/orders/${placed.id}/status`, { to: 'cancelled', reason: 'test over' });
  });
});

describe('the farm autopilot', () => {
  let auto: TestApp;
  afterAll(async () => auto?.close());

  it('takes an order from accepted to packed with no clicks, each step recorded as the autopilot’s', async () => {
    auto = await startTestApp({ FARM_TICK_S: '300', FARM_AUTOPILOT: 'true', FARM_AUTOPILOT_DELAY_S: '0' });
    const [boss, maker] = await Promise.all([auto.signUp({ role: 'admin' }), auto.signUp({ role: 'beta' })]);
    const design = await uploadDesign(maker, boxStl(20, 20, 20), 'box.stl');
    await maker.post('/api/products', { name: 'Cube', variants: [{ name: 'One', sku: 'ONE', parts: [{ printConfigId: design.printConfigs[0].id, quantity: 1 }] }] });
    const made = await boss.post('/api/admin/printers', { name: 'Auto', buildVolumeMm: { x: 200, y: 200, z: 200 }, nozzleMm: 0.4, connection: { kind: 'simulated', speedFactor: 100_000 } });
    const placed = (await maker.post('/api/orders/manual', { items: [{ sku: 'ONE', quantity: 1 }], shippingAddress: ADDRESS })).body;
    await auto.context.orders.announcementsSettled();
    for (let i = 0; i < 20 && (await maker.get(`/api/orders/${placed.id}`)).body.status !== 'packed'; i++) {
      await auto.context.farmDispatcher.tick();
      await new Promise((r) => setTimeout(r, 20));
    }
    const done = (await maker.get(`/api/orders/${placed.id}`)).body;
    expect(done.status).toBe('packed');
    const [job] = await auto.context.printJobs.ofOrder(placed.id);
    expect(job!.qcBy).toBe('autopilot');
    const events = await auto.context.db.select().from(productionEvent);
    const byAutopilot = new Set(events.filter((e) => e.actorKind === 'autopilot').map((e) => e.kind));
    // The printer had no spool: the autopilot loaded the one the job asked for.
    expect([...byAutopilot].sort()).toEqual(['bed_clear', 'packed', 'qc_pass', 'spool_loaded']);
    expect((await boss.get('/api/admin/production/board')).body.autopilot).toBe(true);
    void made;
  }, 120_000);
});

describe('with PrusaSlicer installed', () => {
  let sliced: TestApp;
  afterAll(async () => sliced?.close());

  /** Ticks until the job prints (its printer's file is sliced meanwhile), failing after two minutes. */
  async function tickUntilPrinting(jobId: string) {
    const deadline = Date.now() + 120_000;
    let job = (await sliced.context.printJobs.find(jobId))!;
    while (job.status !== 'printing' && Date.now() < deadline) {
      expect(['queued', 'assigned']).toContain(job.status);
      await sliced.context.farmDispatcher.tick();
      await new Promise((r) => setTimeout(r, 300));
      job = (await sliced.context.printJobs.find(jobId))!;
    }
    expect(job.status).toBe('printing');
    return job;
  }

  /** The G-code a configuration got for a printer profile. */
  async function fileFor(configId: string, profileKey: string) {
    const file = await sliced.context.printJobs.printFile(configId, 1, profileKey);
    expect(file).toMatchObject({ status: 'done', gcodeKey: expect.stringMatching(/^gcode\//) });
    return (await sliced.context.storage.readAll(file!.gcodeKey!)).toString('utf8');
  }

  it('slices each configuration for the printer it lands on (nozzle and bed), and sends that G-code', async () => {
    sliced = await startTestApp({ SLICING: 'auto', FARM_TICK_S: '300', FARM_AUTOPILOT: 'false', PRINTER_ALLOW_LOOPBACK: 'true' });
    expect(sliced.running.slicerAvailable).toBe(true);
    const [boss, maker] = await Promise.all([sliced.signUp({ role: 'admin' }), sliced.signUp({ role: 'beta' })]);
    const design = await uploadDesign(maker, boxStl(20, 20, 20), 'box.stl');
    const configId = design.printConfigs[0].id;
    await maker.post('/api/products', { name: 'Cube', variants: [{ name: 'One', sku: 'ONE', parts: [{ printConfigId: configId, quantity: 1 }] }] });
    const printer = await boss.post('/api/admin/printers', { name: 'Sliced', buildVolumeMm: { x: 200, y: 200, z: 200 }, nozzleMm: 0.4, connection: { kind: 'simulated', speedFactor: 100_000 } });
    await boss.request('PUT', `/api/admin/printers/${printer.body.id}/spools`, { spools: [{ material: 'PLA', colourName: 'Orange', colourHex: ORANGE, gramsLeft: 1000, loaded: true }] }, {});
    await boss.post(`/api/admin/production/printers/${printer.body.id}/bed-clear`, {});
    const placed = (await maker.post('/api/orders/manual', { items: [{ sku: 'ONE', quantity: 1 }], shippingAddress: ADDRESS })).body;
    await sliced.context.orders.announcementsSettled();

    const [queued] = await sliced.context.printJobs.ofOrder(placed.id);
    expect(queued).toMatchObject({ fileKind: 'sliced', nozzleMm: 0.4 });
    // Assigned to the printer, it waits while the configuration is sliced for that printer's profile.
    const job = await tickUntilPrinting(queued!.id);
    expect(job.printerId).toBe(printer.body.id);
    const gcode = await fileFor(configId, 'n0.4-200x200x200-generic');
    expect(gcode).toMatch(/; bed_shape = 0x0,200x0,200x200,0x200/);
    expect(gcode).toMatch(/; nozzle_diameter = 0.4/);
    expect((await boss.post(`/api/orders/${placed.id}/status`, { to: 'cancelled', reason: 'next: a real printer API' })).status).toBe(200);
    await sliced.context.orders.announcementsSettled();
    await boss.post(`/api/admin/printers/${printer.body.id}/retire`, {});

    // The same G-code through a real adapter: OctoPrint's API (an in-process OctoPrint 1.11.8 simulator).
    const octo = await startOctoprintSimulator({ apiKey: 'farm-key' });
    try {
      const real = await boss.post('/api/admin/printers', {
        name: 'OctoPrint MK4',
        buildVolumeMm: { x: 250, y: 210, z: 220 },
        nozzleMm: 0.4,
        connection: { kind: 'octoprint', baseUrl: octo.origin, apiKey: 'farm-key' },
      });
      expect(real.status).toBe(201);
      await boss.request('PUT', `/api/admin/printers/${real.body.id}/spools`, { spools: [{ material: 'PLA', colourName: 'Orange', colourHex: ORANGE, gramsLeft: 1000, loaded: true }] }, {});
      await boss.post(`/api/admin/production/printers/${real.body.id}/bed-clear`, {});
      const second = (await maker.post('/api/orders/manual', { items: [{ sku: 'ONE', quantity: 1 }], shippingAddress: ADDRESS })).body;
      await sliced.context.orders.announcementsSettled();
      const tickOnce = () => sliced.context.farmDispatcher.tick();
      const [waiting] = await sliced.context.printJobs.ofOrder(second.id);
      const onOcto = await tickUntilPrinting(waiting!.id);
      expect(onOcto.printerId).toBe(real.body.id);
      // The file OctoPrint received is the configuration sliced for its bed, under the job's name.
      const octoGcode = await fileFor(configId, 'n0.4-250x210x220-generic');
      expect(octoGcode).toMatch(/; bed_shape = 0x0,250x0,250x210,0x210/);
      expect([...octo.files.keys()]).toEqual([`layerline-${onOcto.id}.gcode`]);
      expect(octo.files.get(`layerline-${onOcto.id}.gcode`)!.toString('utf8')).toBe(octoGcode);
      expect(octo.stateText).toMatch(/^(Starting|Printing)$/);

      octo.advance(0.4);
      await tickOnce();
      expect((await sliced.context.printJobs.find(onOcto.id))!.progress).toBeCloseTo(0.4, 2);
      // A garbled answer: the connection is shown lost, the job stays printing, nothing is sent again.
      const uploads = octo.requests.filter((r) => r.method === 'POST' && r.url.pathname === '/api/files/local').length;
      octo.faults.push('html', 'html', 'html');
      await tickOnce();
      const lost = (await boss.get('/api/admin/production/board')).body.printers.find((p: any) => p.id === real.body.id);
      expect(lost.connectionLost).toBe(true);
      expect((await sliced.context.printJobs.find(onOcto.id))!.status).toBe('printing');
      octo.faults.length = 0;
      octo.finish();
      await tickOnce(); // OctoPrint says Finishing for a moment, then Operational at 100 %
      await tickOnce();
      expect((await sliced.context.printJobs.find(onOcto.id))!.status).toBe('printed');
      expect(octo.requests.filter((r) => r.method === 'POST' && r.url.pathname === '/api/files/local').length).toBe(uploads);
      expect((await boss.get('/api/admin/production/board')).body.printers.find((p: any) => p.id === real.body.id).connectionLost).toBe(false);
    } finally {
      await octo.stop();
    }
  }, 180_000);
});
