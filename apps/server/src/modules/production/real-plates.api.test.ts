import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { eq, inArray } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uploadDesign, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { boxStl } from '../../../test/hostile-models.ts';
import { plateFile, productionEvent } from '../../db/schema.ts';
import { startBambulabSimulator } from '../../integrations/bambulab/bambulab-simulator.ts';
import { startMoonrakerSimulator, type MoonrakerSimulator } from '../../integrations/moonraker/moonraker-simulator.ts';
import { detectPrusaSlicer } from '../../integrations/prusa-slicer/prusa-slicer.ts';
import { plateObjectOf } from './farm-dispatcher.ts';

/**
 * Plates on a real printer (issue 22): a Klipper printer behind the Moonraker simulator gets a
 * plate of three copies sliced by PrusaSlicer as one G-code, with exclude_object definitions for
 * each part; one part is skipped mid-print and reprinted alone, the others pass QC. A plate
 * PrusaSlicer cannot slice splits back into single parts, each printed alone.
 * The slicer is PrusaSlicer behind a wrapper script that refuses a plate's run (`--merge`) while
 * a flag file exists: the one way to make the real slicer refuse a plate whose parts it slices alone.
 * Runs on PGlite, and on PostgreSQL with DATABASE_URL; skipped without PrusaSlicer.
 */

const slicer = await detectPrusaSlicer();
const ADDRESS = { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' };
const ORANGE = '#f97316';

let t: TestApp;
let admin: SignedInClient;
let seller: SignedInClient;
let wrapperDir: string;
let refusePlates: string;
let slowPlates: string;
let sim: MoonrakerSimulator | null = null;
let stopBambu: (() => Promise<void>) | null = null;
const placedOrders: string[] = [];

const tick = () => t.context.farmDispatcher.tick();
const jobsOf = (orderId: string) => t.context.printJobs.ofOrder(orderId);

async function until(what: string, done: () => Promise<boolean>, seconds = 150) {
  const deadline = Date.now() + seconds * 1000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`Gave up waiting: ${what} (${sim?.describe() ?? 'no printer'})`);
    await tick();
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function order(quantity: number) {
  const created = await seller.post('/api/orders/manual', { items: [{ sku: 'CUBE', quantity }], shippingAddress: ADDRESS });
  expect(created.status).toBe(201);
  placedOrders.push(created.body.id);
  await t.context.orders.announcementsSettled();
  return created.body.id as string;
}

/** A Klipper printer, the only one taking jobs, with the cubes' spool loaded and its bed clear. */
async function klipperPrinter(name: string) {
  sim = await startMoonrakerSimulator();
  return onlyPrinter({ name, buildVolumeMm: { x: 250, y: 210, z: 210 }, connection: sim.connection() });
}

async function onlyPrinter(body: Record<string, unknown>) {
  for (const p of (await admin.get('/api/admin/printers')).body) {
    if (p.status !== 'retired') await admin.post(`/api/admin/printers/${p.id}/retire`, {});
  }
  const created = await admin.post('/api/admin/printers', { nozzleMm: 0.4, materials: ['PLA'], ...body });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  const spools = [{ material: 'PLA', colourName: 'Orange', colourHex: ORANGE, gramsLeft: 1000, loaded: true }];
  expect((await admin.request('PUT', `/api/admin/printers/${id}/spools`, { spools }, {})).status).toBe(200);
  expect((await admin.post(`/api/admin/production/printers/${id}/bed-clear`, {})).status).toBe(204);
  return id;
}

/** The file the printer got for a job (its own, or its plate's). */
/** The entries of a zip as yazl writes them (local headers, deflated or stored; as bambulab.contract.test.ts reads them). */
const unzip = (zip: Buffer): Map<string, Buffer> => {
  const entries = new Map<string, Buffer>();
  let at = 0;
  while (zip.readUInt32LE(at) === 0x04034b50) {
    const method = zip.readUInt16LE(at + 8);
    const flags = zip.readUInt16LE(at + 6);
    const nameLength = zip.readUInt16LE(at + 26);
    const extraLength = zip.readUInt16LE(at + 28);
    const name = zip.subarray(at + 30, at + 30 + nameLength).toString('utf8');
    const dataAt = at + 30 + nameLength + extraLength;
    let end = zip.indexOf(Buffer.from([0x50, 0x4b, 0x07, 0x08]), dataAt);
    if (!(flags & 8)) end = dataAt + zip.readUInt32LE(at + 18);
    const raw = zip.subarray(dataAt, end);
    entries.set(name, method === 8 ? inflateRawSync(raw) : raw);
    at = flags & 8 ? end + 16 : end;
  }
  return entries;
};

const fileOf = (jobId: string) => [...sim!.files.entries()].find(([name]) => name.endsWith(`layerline-${jobId}.gcode`))?.[1].toString('utf8');

describe.skipIf(!slicer.available)('plates on a real printer, sliced by PrusaSlicer', () => {
  beforeAll(async () => {
    // Readable by nobody: the sandbox runs the slicer as nobody.
    wrapperDir = await mkdtemp(path.join(os.tmpdir(), 'layerline-plate-slicer-'));
    await chmod(wrapperDir, 0o755);
    refusePlates = path.join(wrapperDir, 'refuse-plates');
    slowPlates = path.join(wrapperDir, 'slow-plates');
    const wrapper = path.join(wrapperDir, 'prusa-slicer');
    await writeFile(
      wrapper,
      [
        '#!/bin/sh',
        `if [ -e ${refusePlates} ]; then case " $* " in *" --merge "*) echo "error: Objects could not be merged into one plate" >&2; exit 1;; esac; fi`,
        `if [ -e ${slowPlates} ]; then case " $* " in *" --merge "*) sleep 8;; esac; fi`,
        `exec ${slicer.path} "$@"`,
        '',
      ].join('\n'),
    );
    await chmod(wrapper, 0o755);
    t = await startTestApp({ SLICING: 'auto', PRUSA_SLICER_PATH: wrapper, FARM_TICK_S: '300', FARM_AUTOPILOT: 'false', FARM_PARTS_PER_PLATE: '3', PRINTER_ALLOW_LOOPBACK: 'true' });
    [admin, seller] = await Promise.all([t.signUp({ role: 'admin' }), t.signUp({ role: 'beta' })]);
    const cube = await uploadDesign(seller, boxStl(20, 20, 10), 'cube.stl');
    const product = await seller.post('/api/products', {
      name: 'Cubes',
      variants: [{ name: 'Cube', sku: 'CUBE', parts: [{ printConfigId: cube.printConfigs[0].id, quantity: 1 }] }],
    });
    expect(product.status).toBe(201);
  }, 120_000);
  afterEach(async () => {
    for (const id of placedOrders.splice(0)) await admin.post(`/api/orders/${id}/status`, { to: 'cancelled', reason: 'test over' });
    await t.context.orders.announcementsSettled();
    await sim?.stop();
    sim = null;
    await stopBambu?.();
    stopBambu = null;
    await rm(refusePlates, { force: true });
    await rm(slowPlates, { force: true });
  });
  afterAll(async () => {
    await t?.close();
    await rm(wrapperDir, { recursive: true, force: true });
  });

  it('prints three parts as one PrusaSlicer plate with exclude_object, skips one mid-print and reprints it alone', async () => {
    const printerId = await klipperPrinter('Klipper plates');
    const orderId = await order(3);
    await until('the plate prints', async () => (await jobsOf(orderId)).every((j) => j.status === 'printing'));
    const parts = (await jobsOf(orderId)).sort((a, b) => a.plateIndex! - b.plateIndex!);
    const [lead, skipped, other] = parts;
    expect(parts.map((p) => p.plateIndex)).toEqual([0, 1, 2]);
    expect(parts.map((p) => p.plateLeadId)).toEqual([null, lead!.id, lead!.id]);

    // One file for the plate: PrusaSlicer's G-code, each part an object under its index, defined for Klipper.
    const gcode = fileOf(lead!.id)!;
    expect(gcode).toMatch(/^; generated by PrusaSlicer/m);
    const labels = parts.map((p) => plateObjectOf(p).label);
    for (const [index, label] of labels.entries()) {
      expect(gcode).toMatch(new RegExp(`^EXCLUDE_OBJECT_DEFINE NAME=${label} CENTER=`, 'm'));
      expect(gcode).toContain(`; printing object ${label}.stl id:${index} copy 0\nEXCLUDE_OBJECT_START NAME=${label}\n`);
    }
    expect(fileOf(skipped!.id)).toBeUndefined();
    const [stored] = await t.context.db.select().from(plateFile).where(eq(plateFile.leadJobId, lead!.id));
    expect(stored).toMatchObject({ status: 'done', objects: labels.map((label, index) => ({ index, label })) });

    // A person sees one part fail: Klipper skips it, the others print on.
    const skip = await admin.post(`/api/admin/production/jobs/${skipped!.id}/skip`, { reason: 'came loose from the bed' });
    expect(skip.status, JSON.stringify(skip.body)).toBe(200);
    expect(sim!.excludedObjects).toEqual([labels[1]!.toUpperCase()]);
    sim!.finish();
    await until('the plate is printed', async () => (await jobsOf(orderId)).filter((j) => j.status === 'printed').length === 2);
    // Made for this one print: once it ended, the plate's G-code leaves storage.
    expect(await t.context.db.select().from(plateFile).where(eq(plateFile.leadJobId, lead!.id))).toEqual([]);
    await expect(t.context.storage.readAll(stored!.gcodeKey!)).rejects.toThrow();
    for (const part of [lead!, other!])
      expect((await admin.post(`/api/admin/production/jobs/${part.id}/qc`, { result: 'pass' })).status).toBe(200);

    // The skipped part is reprinted alone, from its own G-code with no plate's objects.
    const reprint = (await jobsOf(orderId)).find((j) => j.reprintOf === skipped!.id)!;
    expect(reprint).toMatchObject({ status: 'queued', plateLeadId: null, plateIndex: null });
    expect((await admin.post(`/api/admin/production/printers/${printerId}/bed-clear`, {})).status).toBe(204);
    await until('the reprint prints', async () => (await t.context.printJobs.find(reprint.id))!.status === 'printing');
    const alone = fileOf(reprint.id)!;
    expect(alone).toMatch(/^; generated by PrusaSlicer/m);
    expect(alone).not.toContain('EXCLUDE_OBJECT_DEFINE');
    sim!.finish();
    await until('the reprint is printed', async () => (await t.context.printJobs.find(reprint.id))!.status === 'printed');
    expect((await admin.post(`/api/admin/production/jobs/${reprint.id}/qc`, { result: 'pass' })).status).toBe(200);
  }, 300_000);

  it('splits a plate PrusaSlicer cannot slice back into single parts, each printed alone, the reason on their timelines', async () => {
    await writeFile(refusePlates, '');
    const printerId = await klipperPrinter('Klipper refusing plates');
    const orderId = await order(2);
    await until('a part prints', async () => (await jobsOf(orderId)).some((j) => j.status === 'printing'));
    const jobs = await jobsOf(orderId);
    const first = jobs.find((j) => j.status === 'printing');
    const second = jobs.find((j) => j.id !== first?.id);
    expect(first).toMatchObject({ status: 'printing', printerId, plateLeadId: null, plateIndex: null, printsAlone: true });
    expect(second).toMatchObject({ status: 'queued', printerId: null, plateLeadId: null, plateIndex: null, printsAlone: true });
    expect(second!.failureReason).toContain('PrusaSlicer could not slice the plate');
    const events = await t.context.db
      .select()
      .from(productionEvent)
      .where(inArray(productionEvent.jobId, [first!.id, second!.id]));
    expect(events.find((e) => e.jobId === first!.id && e.kind === 'plate_split')?.detail).toMatch(/^PrusaSlicer could not slice the plate for Klipper refusing plates: .*it prints alone on this printer$/);
    expect(events.find((e) => e.jobId === second!.id && e.kind === 'requeued')?.detail).toMatch(/^PrusaSlicer could not slice the plate/);
    const [refused] = await t.context.db.select().from(plateFile).where(eq(plateFile.leadJobId, first!.id));
    expect(refused!.status).toBe('failed');
    expect(fileOf(first!.id)).not.toContain('EXCLUDE_OBJECT_DEFINE');
    const board = (await admin.get('/api/admin/production/board')).body;
    expect(board.queued.find((j: { id: string }) => j.id === second!.id)).toMatchObject({ printsAlone: true, plate: null, failureReason: expect.stringContaining('could not slice the plate') });

    // The other part prints alone next, not on a plate of its own.
    sim!.finish();
    await until('the first part is printed', async () => (await t.context.printJobs.find(first!.id))!.status === 'printed');
    expect((await admin.post(`/api/admin/production/printers/${printerId}/bed-clear`, {})).status).toBe(204);
    await until('the second part prints', async () => (await t.context.printJobs.find(second!.id))!.status === 'printing');
    expect(await t.context.printJobs.find(second!.id)).toMatchObject({ plateIndex: null, plateLeadId: null });
    expect(fileOf(second!.id)).not.toContain('EXCLUDE_OBJECT_DEFINE');
  }, 300_000);

  it('a Bambu Lab printer gets the plate packaged with identify_ids that are the G-code’s object ids, and skips by them', async () => {
    const bambu = await startBambulabSimulator({ printSeconds: 3600 });
    stopBambu = () => bambu.stop();
    await onlyPrinter({
      name: 'P1S plates',
      model: 'Bambu Lab P1S',
      buildVolumeMm: { x: 256, y: 256, z: 250 },
      slicerProfile: { kind: 'bambulab', model: 'P1S' },
      connection: bambu.connection(),
    });
    const orderId = await order(3);
    await until('the plate prints', async () => (await jobsOf(orderId)).every((j) => j.status === 'printing'));
    const parts = (await jobsOf(orderId)).sort((a, b) => a.plateIndex! - b.plateIndex!);
    const entries = unzip(bambu.files.get(`layerline-${parts[0]!.id}.gcode.3mf`)!);
    const gcode = entries.get('Metadata/plate_1.gcode')!.toString('utf8');
    const sliceInfo = entries.get('Metadata/slice_info.config')!.toString('utf8');
    for (const [index, part] of parts.entries()) {
      const { label } = plateObjectOf(part);
      expect(gcode).toContain(`; printing object ${label}.stl id:${index} copy 0\n`);
      expect(sliceInfo).toContain(`<object identify_id="${index}" name="${label}" skipped="false" />`);
    }
    expect((await admin.post(`/api/admin/production/jobs/${parts[2]!.id}/skip`, { reason: 'spaghetti' })).status).toBe(200);
    expect(bambu.skippedObjects).toEqual([2]);
    // The order is cancelled: the print stops, and its plate's G-code leaves storage.
    const [stored] = await t.context.db.select().from(plateFile).where(eq(plateFile.leadJobId, parts[0]!.id));
    expect((await admin.post(`/api/orders/${orderId}/status`, { to: 'cancelled', reason: 'buyer changed their mind' })).status).toBe(200);
    await t.context.orders.announcementsSettled();
    expect(await t.context.db.select().from(plateFile).where(eq(plateFile.leadJobId, parts[0]!.id))).toEqual([]);
    await expect(t.context.storage.readAll(stored!.gcodeKey!)).rejects.toThrow();
  }, 300_000);

  it('splits a plate whose slicing has not come back within the hour, rather than hold the printer for it', async () => {
    await writeFile(slowPlates, '');
    await klipperPrinter('Klipper waiting');
    const orderId = await order(2);
    await until('the plate waits for its slicing', async () => (await t.context.db.select().from(plateFile)).some((f) => f.status === 'queued'));
    const lead = (await jobsOf(orderId)).find((j) => j.plateIndex === 0)!;
    expect(lead.status).toBe('assigned');
    // An hour on: the job failed for good, or was lost with a process killed after the claim.
    await t.context.db.update(plateFile).set({ createdAt: new Date(Date.now() - 61 * 60_000) }).where(eq(plateFile.leadJobId, lead.id));
    await until('the lead prints alone', async () => (await t.context.printJobs.find(lead.id))!.status === 'printing');
    const jobs = await jobsOf(orderId);
    expect(jobs.map((j) => [j.plateIndex, j.printsAlone])).toEqual([[null, true], [null, true]]);
    expect(jobs.find((j) => j.id !== lead.id)!.failureReason).toContain('was not sliced within an hour');
    expect(fileOf(lead.id)).not.toContain('EXCLUDE_OBJECT_DEFINE');
  }, 300_000);
});
