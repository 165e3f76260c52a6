import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uploadDesign, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { boxStl } from '../../../test/hostile-models.ts';
import { productionEvent } from '../../db/schema.ts';
import {
  FAKE_WEBHOOK_ID,
  FAKE_WEBHOOK_TOKEN,
  loadDiscordApi,
  startDiscordFake,
  type DiscordFake,
} from '../../integrations/discord/discord-fake.ts';
import { startMoonrakerSimulator } from '../../integrations/moonraker/moonraker-simulator.ts';
import { startOctoprintSimulator } from '../../integrations/octoprint/octoprint-simulator.ts';
import { startPrusalinkSimulator } from '../../integrations/prusalink/prusalink-simulator.ts';
import type { PrinterSimulator } from '../../integrations/printer-drivers/printer-simulator.ts';

/**
 * Continuous printing (issue 22, point 3) through the real server, database, job queue and farm:
 * the clearing method set on a printer by an admin; a self-clearing printer going on to its next
 * plate without a person, up to its cap; a failed or cancelled print, or an end the printer did not
 * report cleanly, stopping it with the board's flag and a Discord alert (a fake Discord that checks
 * every request against Discord's OpenAPI file). Real printer servers are their simulators, which
 * run the eject tail the farm appended as their firmware would. Runs on PGlite, and on PostgreSQL
 * with DATABASE_URL. Needs PrusaSlicer (jobs for real printers carry real G-code).
 */

const ADDRESS = { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' };
const ORANGE = '#f97316';
const SPOOL = { material: 'PLA', colourName: 'Orange', colourHex: ORANGE, gramsLeft: 1000, loaded: true };
const SWEEP = 'G1 Z200 F600\nG1 Y0 F3000\nG1 Y210 F3000';
const EJECT = { kind: 'eject_gcode', gcode: SWEEP, releaseTempC: 35, maxUnattendedPlates: 2 } as const;

let t: TestApp;
let fake: DiscordFake;
let admin: SignedInClient;
let seller: SignedInClient;

const tick = () => t.context.farmDispatcher.tick();
const jobsOf = (orderId: string) => t.context.printJobs.ofOrder(orderId);
const printerRow = async (id: string) => (await t.context.printerRepository.find(id))!;
const eventsOf = (printerId: string, kind: string) =>
  t.context.db
    .select()
    .from(productionEvent)
    .where(and(eq(productionEvent.printerId, printerId), eq(productionEvent.kind, kind)));
const boardPrinter = async (id: string) =>
  (await admin.get('/api/admin/production/board')).body.printers.find((p: { id: string }) => p.id === id);
const posted = (text: string) =>
  fake.accepted().map((r) => (r.body as { content: string }).content).filter((c) => c.includes(text));

async function until(what: string, done: () => Promise<boolean>, seconds = 60, step: () => Promise<unknown> = tick) {
  const deadline = Date.now() + seconds * 1000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`Gave up waiting: ${what}`);
    await step();
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A printer on the farm, loaded with the job's spool; `clearing` null leaves it out (the default). */
async function addPrinter(name: string, connection: Record<string, unknown>, clearing: unknown = EJECT) {
  const created = await admin.post('/api/admin/printers', {
    name,
    buildVolumeMm: { x: 250, y: 210, z: 210 },
    nozzleMm: 0.4,
    materials: ['PLA'],
    ...(clearing === null ? {} : { clearing }),
    connection,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  expect((await admin.request('PUT', `/api/admin/printers/${id}/spools`, { spools: [SPOOL] }, {})).status).toBe(200);
  return id;
}

/** Only this printer takes jobs: every other one is retired. */
async function retireAllBut(keep: string | null = null) {
  for (const p of (await admin.get('/api/admin/printers')).body) {
    if (p.status !== 'retired' && p.id !== keep) await admin.post(`/api/admin/printers/${p.id}/retire`, {});
  }
}

/** The orders a test placed: cancelled after it, so no job of one test prints in the next. */
const placedOrders: string[] = [];

async function order(quantity: number) {
  const placed = await seller.post('/api/orders/manual', { items: [{ sku: 'CUBE', quantity }], shippingAddress: ADDRESS });
  expect(placed.status).toBe(201);
  await t.context.orders.announcementsSettled();
  placedOrders.push(placed.body.id);
  return placed.body.id as string;
}

const confirmBedClear = async (printerId: string) =>
  expect((await admin.post(`/api/admin/production/printers/${printerId}/bed-clear`, {})).status).toBe(204);

beforeAll(async () => {
  fake = await startDiscordFake(await loadDiscordApi());
  fake.setBucket(50, 1);
  t = await startTestApp({
    SLICING: 'auto',
    FARM_TICK_S: '300',
    FARM_AUTOPILOT: 'false',
    PRINTER_ALLOW_LOOPBACK: 'true',
    DISCORD_WEBHOOK_URL: `https://discord.com/api/webhooks/${FAKE_WEBHOOK_ID}/${FAKE_WEBHOOK_TOKEN}`,
    DISCORD_API_URL: fake.origin,
  });
  expect(t.running.slicerAvailable, 'PrusaSlicer must be installed for these tests').toBe(true);
  [admin, seller] = await Promise.all([t.signUp({ role: 'admin' }), t.signUp({ role: 'beta' })]);
  const design = await uploadDesign(seller, boxStl(20, 20, 10), 'cube.stl');
  const product = await seller.post('/api/products', {
    name: 'Cube',
    variants: [{ name: 'One', sku: 'CUBE', parts: [{ printConfigId: design.printConfigs[0].id, quantity: 1 }] }],
  });
  expect(product.status).toBe(201);
}, 180_000);
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
afterEach(async () => {
  // Every alert the server sent was valid against Discord's spec.
  expect(fake.requests.flatMap((request) => request.errors)).toEqual([]);
  for (const orderId of placedOrders.splice(0)) await admin.post(`/api/orders/${orderId}/status`, { to: 'cancelled', reason: 'test over' });
  await t.context.orders.announcementsSettled();
});

describe('the clearing method on the printers page (admin API)', () => {
  it('is a person by default, and an admin sets an eject G-code or a plate changer', async () => {
    const id = await addPrinter('Settings sim', { kind: 'simulated', speedFactor: 100_000 }, null);
    const created = (await admin.get(`/api/admin/printers/${id}`)).body;
    expect(created).toMatchObject({ clearing: { kind: 'person' }, unattendedPlates: 0 });
    const { id: _id, status: _s, secretSet: _ss, spools: _sp, attention: _a, attentionAt: _aa, lastState: _l, lastStateAt: _la, lastError: _le, bedConfirmedClear: _b, bedConfirmedBy: _bb, bedConfirmedAt: _ba, unattendedPlates: _u, certificateSha256: _cert, createdAt: _c, updatedAt: _up, ...editable } = created;
    const saved = await admin.request('PUT', `/api/admin/printers/${id}`, { ...editable, clearing: EJECT }, {});
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect((saved.body as { clearing: unknown }).clearing).toEqual(EJECT);
    const changer = await admin.request('PUT', `/api/admin/printers/${id}`, { ...editable, clearing: { kind: 'plate_changer', maxUnattendedPlates: 10 } }, {});
    expect((changer.body as { clearing: unknown }).clearing).toEqual({ kind: 'plate_changer', maxUnattendedPlates: 10 });
    expect((await boardPrinter(id)).clearing).toEqual({ kind: 'plate_changer', clearsItself: true, unattendedPlates: 0, maxUnattendedPlates: 10 });
  }, 60_000);

  it('is described in the OpenAPI document: the printer body and answer, and the board', async () => {
    const doc = (await t.client().get('/api/docs/json')).body as any;
    const text = (value: unknown) => JSON.stringify(value);
    expect(text(doc.paths['/api/admin/printers/{id}'].put.requestBody)).toContain('"releaseTempC"');
    expect(text(doc.paths['/api/admin/printers/{id}'].put.requestBody)).toContain('"plate_changer"');
    expect(text(doc.paths['/api/admin/printers'].post.responses['201'])).toContain('"unattendedPlates"');
    expect(text(doc.paths['/api/admin/production/board'].get.responses['200'])).toContain('"clearsItself"');
  });

  it('refuses a clearing it cannot run, in words, and changes nothing', async () => {
    const id = await addPrinter('Refusing sim', { kind: 'simulated', speedFactor: 100_000 });
    const { body: before } = await admin.get(`/api/admin/printers/${id}`);
    const body = (clearing: unknown) => ({
      name: before.name,
      buildVolumeMm: before.buildVolumeMm,
      nozzleMm: before.nozzleMm,
      materials: before.materials,
      connection: before.connection,
      clearing,
    });
    const put = (clearing: unknown) => admin.request('PUT', `/api/admin/printers/${id}`, body(clearing), {});
    for (const clearing of [
      { ...EJECT, releaseTempC: 120 },
      { ...EJECT, gcode: '   ' },
      { ...EJECT, maxUnattendedPlates: 0 },
      { kind: 'robot_arm' },
      { kind: 'plate_changer' },
    ]) {
      const refused = await put(clearing);
      expect(refused.status, JSON.stringify(clearing)).toBe(400);
      expect(typeof (refused.body as { error: unknown }).error).toBe('string');
    }
    expect((await admin.get(`/api/admin/printers/${id}`)).body.clearing).toEqual(EJECT);
    // Admins only.
    expect((await seller.request('PUT', `/api/admin/printers/${id}`, body({ kind: 'person' }), {})).status).toBe(403);
    expect((await admin.get(`/api/admin/printers/${id}`)).body.clearing).toEqual(EJECT);
  }, 60_000);
});

describe('a simulated printer that ejects its own parts', () => {
  it('prints plate after plate without a person up to its cap, then waits for a person, who starts the count again', async () => {
    await retireAllBut();
    const id = await addPrinter('Ejecting sim', { kind: 'simulated', speedFactor: 100_000 });
    await confirmBedClear(id);
    const orderId = await order(4);
    const printed = async (n: number) => (await jobsOf(orderId)).filter((j) => j.status === 'printed').length >= n;
    // One person's confirmation, then two plates more without one (the cap is 2).
    await until('three plates printed', () => printed(3));
    for (let i = 0; i < 3; i++) await tick();
    const jobs = await jobsOf(orderId);
    expect(jobs.filter((j) => j.status === 'printed')).toHaveLength(3);
    expect(jobs.filter((j) => j.status === 'queued')).toHaveLength(1);
    const cleared = await eventsOf(id, 'bed_clear');
    expect(cleared.filter((e) => e.actorKind === 'printer').map((e) => e.detail)).toEqual([
      'Bed cleared by its eject G-code: the next plate is 1 of 2 without a person',
      'Bed cleared by its eject G-code: the next plate is 2 of 2 without a person',
    ]);
    expect((await eventsOf(id, 'continuous_limit'))[0]!.detail).toContain('2 plates in a row without a person');
    expect(await printerRow(id)).toMatchObject({ bedConfirmedClear: false, unattendedPlates: 2, attention: null });
    expect((await boardPrinter(id)).clearing).toEqual({ kind: 'eject_gcode', clearsItself: true, unattendedPlates: 2, maxUnattendedPlates: 2 });
    await until('the cap is told on Discord', async () => posted('Ejecting sim').length > 0, 30, () => new Promise((r) => setTimeout(r, 100)));
    // A person looks and confirms the bed clear: the count starts again and the last plate prints.
    await confirmBedClear(id);
    expect((await printerRow(id)).unattendedPlates).toBe(0);
    await until('the fourth plate printed', () => printed(4));
    expect((await eventsOf(id, 'bed_clear')).filter((e) => e.actorKind === 'printer')).toHaveLength(3);
  }, 120_000);

  it('stops for a person when a print fails: flagged, told on Discord, and no next plate', async () => {
    await retireAllBut();
    const id = await addPrinter('Failing sim', { kind: 'simulated', speedFactor: 100_000, failAtLayer: 2 });
    await confirmBedClear(id);
    const orderId = await order(1);
    await until('the print failed', async () => (await jobsOf(orderId)).some((j) => j.status === 'failed'));
    for (let i = 0; i < 3; i++) await tick();
    const row = await printerRow(id);
    expect(row.attention).toContain('The print failed on Failing sim, so it did not clear its bed');
    expect(row.bedConfirmedClear).toBe(false);
    // The reprint waits: the printer takes nothing until a person clears the flag and the bed.
    expect((await jobsOf(orderId)).at(-1)).toMatchObject({ attempt: 2, status: 'queued', printerId: null });
    expect(await eventsOf(id, 'continuous_stopped')).toHaveLength(1);
    await until('the stop is told on Discord', async () => posted('Failing sim').length > 0, 30, () => new Promise((r) => setTimeout(r, 100)));
    expect(posted('Failing sim')[0]).toContain('stopped printing by itself and needs a person');
  }, 120_000);

  it('stops for a person when its print is cancelled (the order was cancelled)', async () => {
    await retireAllBut();
    const id = await addPrinter('Cancelled sim', { kind: 'simulated', speedFactor: 1 });
    await confirmBedClear(id);
    const orderId = await order(1);
    await until('the job prints', async () => (await jobsOf(orderId))[0]?.status === 'printing');
    expect((await admin.post(`/api/orders/${orderId}/status`, { to: 'cancelled', reason: 'buyer changed their mind' })).status).toBe(200);
    await t.context.orders.announcementsSettled();
    await until('the printer is flagged', async () => (await printerRow(id)).attention !== null);
    expect((await printerRow(id)).attention).toContain('was cancelled');
  }, 120_000);
});

describe('an order cancelled after its plate printed', () => {
  it('leaves the printer alone: it may be printing the next order’s plate already', async () => {
    await retireAllBut();
    const sim = await startMoonrakerSimulator();
    try {
      const id = await addPrinter('Moving on', sim.connection());
      await confirmBedClear(id);
      const first = await order(1);
      await until('the first order prints', async () => (await jobsOf(first))[0]?.status === 'printing');
      const second = await order(1);
      sim.finish();
      await until('the second order prints', async () => (await jobsOf(second))[0]?.status === 'printing');
      expect((await admin.post(`/api/orders/${first}/status`, { to: 'cancelled', reason: 'buyer changed their mind' })).status).toBe(200);
      await t.context.orders.announcementsSettled();
      await tick();
      expect(sim.describe()).toContain('print_stats printing');
      expect((await jobsOf(second))[0]!.status).toBe('printing');
      expect((await printerRow(id)).attention).toBeNull();
    } finally {
      await sim.stop();
    }
  }, 180_000);
});

describe('real printer servers run the eject the farm appended', () => {
  let sim: PrinterSimulator | null = null;
  afterEach(async () => {
    await sim?.stop();
    sim = null;
  });

  it.each([
    // The wait in each firmware's words (docs/printers.md, "The eject tail on each firmware").
    { name: 'Moonraker/Klipper', start: () => startMoonrakerSimulator(), wait: 'M140 S0\nTEMPERATURE_WAIT SENSOR=heater_bed MAXIMUM=35' },
    { name: 'OctoPrint', start: () => startOctoprintSimulator({ autoconnect: true }), wait: 'M140 S0\nM190 R35\nM140 S0' },
    { name: 'PrusaLink on Buddy', start: () => startPrusalinkSimulator({ firmware: 'buddy' }), wait: 'M140 S0\nM190 R35\nM140 S0' },
    { name: 'Prusa-Link on the MK3', start: () => startPrusalinkSimulator({ firmware: 'mk3' }), wait: 'M140 S0\nM190 R35\nM140 S0' },
  ])('$name waits for the bed to cool in its own words, and the next plate goes without a person', async (vendor) => {
    await retireAllBut();
    const printer = await vendor.start();
    sim = printer;
    const id = await addPrinter(`${vendor.name} ejector`, printer.connection());
    await confirmBedClear(id);
    const orderId = await order(2);
    await until('the first plate prints', async () => (await jobsOf(orderId)).some((j) => j.status === 'printing'));
    const first = (await jobsOf(orderId)).find((j) => j.status === 'printing')!;
    const file = [...printer.files.entries()].find(([name]) => name.endsWith(`layerline-${first.id}.gcode`))![1].toString();
    // After the job's own G-code: bed off, the wait, the operator's sweep.
    expect(file.slice(file.lastIndexOf('; layerline:eject\n'))).toContain(`${vendor.wait}\n${SWEEP}\n; layerline:eject-end`);
    printer.finish();
    await until('the second plate prints', async () => printer.printsStarted === 2);
    expect(printer.ejectsRun[0]!.cooledToC).toBe(35);
    expect((await eventsOf(id, 'bed_clear')).filter((e) => e.actorKind === 'printer')).toHaveLength(1);
    expect((await jobsOf(orderId)).map((j) => j.status).sort()).toEqual(['printed', 'printing']);
    expect((await printerRow(id)).attention).toBeNull();
  }, 180_000);

  it('a Buddy printer restarted after its print cannot confirm the eject: it stops for a person', async () => {
    await retireAllBut();
    sim = await startPrusalinkSimulator({ firmware: 'buddy' });
    const id = await addPrinter('Buddy ejector', sim.connection());
    await confirmBedClear(id);
    const orderId = await order(2);
    await until('the first plate prints', async () => (await jobsOf(orderId)).some((j) => j.status === 'printing'));
    sim.finish();
    await sim.restartServer(); // it boots IDLE and no longer knows how the print ended
    await until('the plate leaves printing', async () => (await jobsOf(orderId)).some((j) => j.status === 'printed'));
    for (let i = 0; i < 3; i++) await tick();
    expect((await printerRow(id)).attention).toContain('did not report the end of its print cleanly');
    expect(sim.printsStarted).toBe(1);
    expect((await jobsOf(orderId)).filter((j) => j.status === 'queued')).toHaveLength(1);
  }, 180_000);
});
