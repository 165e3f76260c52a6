import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uploadDesign, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { boxStl } from '../../../test/hostile-models.ts';
import { gramsNeeded } from './dispatch-planner.ts';

/**
 * Several parts per plate in the running farm (issue 22) through the real server and database,
 * with simulated printers and simulation files (SLICING off): copies of one configuration, across
 * orders, go on one plate of one printer, print as one file, come off together; QC stays per part,
 * a part that fails QC is reprinted alone, a part failing mid-print is skipped while the others
 * print on, and a cancelled order's part leaves the others to print.
 * Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */

const ADDRESS = { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' };
const ORANGE = '#f97316';

let t: TestApp;
let admin: SignedInClient;
let seller: SignedInClient;

async function addPrinter(name: string, speedFactor = 100_000) {
  const created = await admin.post('/api/admin/printers', {
    name,
    buildVolumeMm: { x: 200, y: 200, z: 200 },
    nozzleMm: 0.4,
    connection: { kind: 'simulated', speedFactor },
  });
  expect(created.status).toBe(201);
  const set = await admin.request<any>('PUT', `/api/admin/printers/${created.body.id}/spools`, {
    spools: [{ material: 'PLA', colourName: 'Orange', colourHex: ORANGE, gramsLeft: 1000, loaded: true }],
  }, {});
  expect(set.status).toBe(200);
  return created.body.id as string;
}

const placedOrders: string[] = [];
async function order(quantity: number) {
  const created = await seller.post('/api/orders/manual', { items: [{ sku: 'CUBE', quantity }], shippingAddress: ADDRESS });
  expect(created.status).toBe(201);
  placedOrders.push(created.body.id);
  return created.body as { id: string };
}

const tick = () => t.context.farmDispatcher.tick();
const jobsOf = (orderId: string) => t.context.printJobs.ofOrder(orderId);

async function tickUntil(done: () => Promise<boolean>, max = 20) {
  for (let i = 0; i < max; i++) {
    if (await done()) return;
    await tick();
    await new Promise((r) => setTimeout(r, 30));
  }
  expect(await done()).toBe(true);
}

/** Retires every printer and cancels the orders of earlier tests, so each test plates only its own parts. */
async function emptyFarm() {
  for (const p of (await admin.get('/api/admin/printers')).body) {
    if (p.status !== 'retired') await admin.post(`/api/admin/printers/${p.id}/retire`, {});
  }
  // By an admin: a seller may no longer cancel an order in production. Already cancelled ones answer 409.
  for (const id of placedOrders.splice(0)) await admin.post(`/api/orders/${id}/status`, { to: 'cancelled', reason: 'test over' });
  await t.context.orders.announcementsSettled();
}

beforeAll(async () => {
  t = await startTestApp({ FARM_TICK_S: '300', FARM_AUTOPILOT: 'false', FARM_PARTS_PER_PLATE: '8' });
  [admin, seller] = await Promise.all([t.signUp({ role: 'admin' }), t.signUp({ role: 'beta' })]);
  const cube = await uploadDesign(seller, boxStl(20, 20, 10), 'cube.stl');
  const product = await seller.post('/api/products', {
    name: 'Cubes',
    variants: [{ name: 'Cube', sku: 'CUBE', parts: [{ printConfigId: cube.printConfigs[0].id, quantity: 1 }] }],
  });
  expect(product.status).toBe(201);
}, 120_000);
afterAll(async () => t?.close());

describe('several parts per plate', () => {
  it('puts copies from two orders on one plate, prints them as one file, and QCs each part; a failed part is reprinted alone', async () => {
    await emptyFarm();
    const printerId = await addPrinter('Plate A');
    const first = await order(3);
    const second = await order(2);
    await t.context.orders.announcementsSettled();
    await tick();
    expect((await admin.post(`/api/admin/production/printers/${printerId}/bed-clear`, {})).status).toBe(204);
    await tick();

    const jobs = [...(await jobsOf(first.id)), ...(await jobsOf(second.id))];
    expect(jobs).toHaveLength(5);
    expect(jobs.every((j) => j.printerId === printerId)).toBe(true);
    const lead = jobs.find((j) => j.plateIndex === 0)!;
    expect(lead.plateLeadId).toBe(null);
    const others = jobs.filter((j) => j.id !== lead.id);
    expect(others.every((j) => j.plateLeadId === lead.id)).toBe(true);
    expect(jobs.map((j) => j.plateIndex).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(['printing', 'printed']).toContain(lead.status);

    await tickUntil(async () => [...(await jobsOf(first.id)), ...(await jobsOf(second.id))].every((j) => j.status === 'printed'));
    // One print for five parts: they started, and came off, together.
    const printed = await t.context.printJobs.ofOrders([first.id, second.id]);
    const starts = printed.map((j) => j.startedAt!.getTime());
    expect(Math.max(...starts) - Math.min(...starts)).toBeLessThan(1000);
    const finishes = printed.map((j) => j.finishedAt!.getTime());
    expect(Math.max(...finishes) - Math.min(...finishes)).toBeLessThan(1000);

    // QC is per part: one passes, one fails and is reprinted alone (a new job, on no plate).
    const [pass, fail] = others;
    expect((await admin.post(`/api/admin/production/jobs/${pass!.id}/qc`, { result: 'pass' })).status).toBe(200);
    expect((await admin.post(`/api/admin/production/jobs/${fail!.id}/qc`, { result: 'fail', reason: 'stringing' })).status).toBe(200);
    const after = [...(await jobsOf(first.id)), ...(await jobsOf(second.id))];
    const reprint = after.find((j) => j.reprintOf === fail!.id)!;
    expect(reprint).toMatchObject({ status: 'queued', attempt: 2, plateLeadId: null, plateIndex: null, printerId: null });
    expect(after.filter((j) => j.status === 'printed')).toHaveLength(3);
  });

  it('a cancelled order takes its parts off a plate that has not started, and the others go back to the queue whole', async () => {
    await emptyFarm();
    const printerId = await addPrinter('Plate B');
    // A spool change first keeps the plate assigned, not started.
    await admin.request<any>('PUT', `/api/admin/printers/${printerId}/spools`, {
      spools: [{ material: 'PETG', colourName: 'Black', colourHex: '#000000', gramsLeft: 1000, loaded: true }],
    }, {});
    const keep = await order(2);
    const cancel = await order(1);
    await t.context.orders.announcementsSettled();
    await tick();
    await admin.post(`/api/admin/production/printers/${printerId}/bed-clear`, {});
    await tick();
    const before = [...(await jobsOf(keep.id)), ...(await jobsOf(cancel.id))];
    expect(before.every((j) => j.status === 'assigned' && j.printerId === printerId)).toBe(true);
    expect(new Set(before.map((j) => j.plateLeadId ?? j.id)).size).toBe(1);

    await seller.post(`/api/orders/${cancel.id}/status`, { to: 'cancelled', reason: 'changed mind' });
    await t.context.orders.announcementsSettled();
    expect((await jobsOf(cancel.id)).every((j) => j.status === 'cancelled')).toBe(true);
    const kept = await jobsOf(keep.id);
    expect(kept.every((j) => j.status === 'queued' && j.printerId === null && j.plateLeadId === null && j.plateIndex === null)).toBe(true);
  });

  it('loads a spool that holds the whole plate, not one that holds only its lead', async () => {
    await emptyFarm();
    const printerId = await addPrinter('Plate D');
    await admin.request<any>('PUT', `/api/admin/printers/${printerId}/spools`, {
      spools: [{ material: 'PETG', colourName: 'Black', colourHex: '#000000', gramsLeft: 1000, loaded: true }],
    }, {});
    const placed = await order(3);
    await t.context.orders.announcementsSettled();
    await tick();
    await admin.post(`/api/admin/production/printers/${printerId}/bed-clear`, {});
    await tick();
    const jobs = await jobsOf(placed.id);
    const lead = jobs.find((j) => j.plateIndex === 0)!;
    expect(lead.spoolChange).toEqual({ material: 'PLA', colour: ORANGE });
    expect(jobs.filter((j) => j.plateLeadId === lead.id)).toHaveLength(2);
    // A spare orange spool with just enough for one part is on the printer.
    const justOne = gramsNeeded(lead.grams);
    await admin.request<any>('PUT', `/api/admin/printers/${printerId}/spools`, {
      spools: [
        { material: 'PETG', colourName: 'Black', colourHex: '#000000', gramsLeft: 1000, loaded: true },
        { material: 'PLA', colourName: 'Orange', colourHex: ORANGE, gramsLeft: justOne, loaded: false },
      ],
    }, {});
    expect((await admin.post(`/api/admin/production/jobs/${lead.id}/spool-loaded`, {})).status).toBe(200);
    const printer = (await admin.get('/api/admin/printers')).body.find((p: any) => p.id === printerId);
    const loaded = printer.spools.find((s: any) => s.loaded);
    expect(loaded).toMatchObject({ material: 'PLA', colourHex: ORANGE });
    expect(loaded.gramsLeft).toBeGreaterThanOrEqual(gramsNeeded(jobs.reduce((sum, j) => sum + j.grams, 0)));
  });

  it('skips a part failing mid-print: the printer prints the rest, the part is reprinted alone, the bed must be cleared', async () => {
    await emptyFarm();
    // Real time: the plate keeps printing while the test acts.
    const printerId = await addPrinter('Plate C', 1);
    const placed = await order(3);
    await t.context.orders.announcementsSettled();
    await tick();
    await admin.post(`/api/admin/production/printers/${printerId}/bed-clear`, {});
    await tick();
    await tickUntil(async () => (await jobsOf(placed.id)).every((j) => j.status === 'printing'));
    const [lead, failing, other] = (await jobsOf(placed.id)).sort((a, b) => a.plateIndex! - b.plateIndex!);

    const url = `/api/admin/production/jobs/${failing!.id}/skip`;
    expect((await seller.post(url, { reason: 'spaghetti' })).status).toBe(403);
    expect((await admin.post(url, { reason: '' })).status).toBe(400);
    const skipped = await admin.post(url, { reason: 'came loose from the bed' });
    expect(skipped.status).toBe(200);
    expect(skipped.body).toMatchObject({ status: 'failed', failureReason: 'came loose from the bed', plate: { leadId: lead!.id, index: 1 } });
    const again = await admin.post(url, { reason: 'came loose from the bed' });
    expect(again.status).toBe(409);
    expect(again.body.error).toEqual(expect.any(String));

    await tick();
    const now = await jobsOf(placed.id);
    expect(now.filter((j) => j.status === 'printing').map((j) => j.id).sort()).toEqual([lead!.id, other!.id].sort());
    expect(now.find((j) => j.reprintOf === failing!.id)).toMatchObject({ status: 'queued', plateLeadId: null, plateIndex: null });
    const board = (await admin.get('/api/admin/production/board')).body;
    expect(board.printers.find((p: any) => p.id === printerId)).toMatchObject({ bedConfirmedClear: false, jobId: lead!.id });
  });

  it('refuses to skip a part printed alone', async () => {
    await emptyFarm();
    const printerId = await addPrinter('Solo', 1);
    const placed = await order(1);
    await t.context.orders.announcementsSettled();
    await tick();
    await admin.post(`/api/admin/production/printers/${printerId}/bed-clear`, {});
    await tickUntil(async () => (await jobsOf(placed.id))[0]!.status === 'printing');
    const [solo] = await jobsOf(placed.id);
    expect(solo!.plateIndex).toBe(null);
    expect((await admin.post(`/api/admin/production/jobs/${solo!.id}/skip`, { reason: 'came loose' })).status).toBe(409);
  });
});
