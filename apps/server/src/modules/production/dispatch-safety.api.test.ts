import net from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PrinterSpool } from '@layerline/contracts';
import { startTestApp, uploadDesign, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { boxStl } from '../../../test/hostile-models.ts';
import { productionEvent } from '../../db/schema.ts';
import { gramsNeeded } from './dispatch-planner.ts';

/**
 * Dispatch safety (issue 20, item 4) through the real server and database, with the autopilot on
 * (no delay): it still leaves a real printer's bed for a person; an ASA part never goes to an open
 * printer (its order is held, in words); a spool with too little left asks for a fresh one, and
 * the spool loaded holds enough. Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */

const ADDRESS = { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' };
const ORANGE = '#f97316';
const IDLE = {
  state: 'idle',
  progress: null,
  fileName: null,
  currentLayer: null,
  totalLayers: null,
  secondsLeft: null,
  temperatures: { nozzle: { actual: 24, target: 0 }, bed: { actual: 23, target: 0 } },
  errorText: null,
} as const;

let t: TestApp;
let admin: SignedInClient;
let seller: SignedInClient;

beforeAll(async () => {
  t = await startTestApp({ FARM_TICK_S: '300', FARM_AUTOPILOT: 'true', FARM_AUTOPILOT_DELAY_S: '0', PRINTER_ALLOW_LOOPBACK: 'true' });
  [admin, seller] = await Promise.all([t.signUp({ role: 'admin' }), t.signUp({ role: 'beta' })]);
  const pla = await uploadDesign(seller, boxStl(20, 20, 20), 'pla.stl');
  const asa = await uploadDesign(seller, boxStl(20, 20, 20), 'asa.stl');
  expect((await seller.request('PATCH', `/api/print-configs/${asa.printConfigs[0].id}`, { filament: 'ASA' }, {})).status).toBe(200);
  const product = await seller.post('/api/products', {
    name: 'Safety set',
    variants: [
      { name: 'PLA', sku: 'PLA-BOX', parts: [{ printConfigId: pla.printConfigs[0].id, quantity: 1 }] },
      { name: 'ASA', sku: 'ASA-BOX', parts: [{ printConfigId: asa.printConfigs[0].id, quantity: 1 }] },
    ],
  });
  expect(product.status).toBe(201);
}, 120_000);
afterAll(async () => t?.close());

const tick = () => t.context.farmDispatcher.tick();

async function order(sku: string) {
  const created = await seller.post('/api/orders/manual', { items: [{ sku, quantity: 1 }], shippingAddress: ADDRESS });
  expect(created.status).toBe(201);
  await t.context.orders.announcementsSettled();
  return created.body as { id: string };
}

async function addSimulated(name: string, fields: Record<string, unknown>, spools: PrinterSpool[]) {
  const created = await admin.post('/api/admin/printers', {
    name,
    buildVolumeMm: { x: 200, y: 200, z: 200 },
    nozzleMm: 0.4,
    connection: { kind: 'simulated', speedFactor: 100_000 },
    ...fields,
  });
  expect(created.status).toBe(201);
  expect((await admin.request('PUT', `/api/admin/printers/${created.body.id}/spools`, { spools }, {})).status).toBe(200);
  return created.body.id as string;
}

async function retireAll() {
  for (const p of (await admin.get('/api/admin/printers')).body) {
    if (p.status !== 'retired') await admin.post(`/api/admin/printers/${p.id}/retire`, {});
  }
}

/** A local port nothing listens on: a real printer that cannot be reached. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the autopilot acts on simulated printers only', () => {
  it('never confirms a real printer’s bed clear, whatever it said last', async () => {
    await retireAll();
    const port = await closedPort();
    const real = {
      octoprint: { kind: 'octoprint', baseUrl: `http://127.0.0.1:${port}`, apiKey: 'matrix-key' },
      moonraker: { kind: 'moonraker', baseUrl: `http://127.0.0.1:${port}` },
      prusalink: { kind: 'prusalink', baseUrl: `http://127.0.0.1:${port}`, auth: { kind: 'api-key', apiKey: 'prusa-key' } },
    };
    const ids: string[] = [];
    for (const [kind, connection] of Object.entries(real)) {
      const created = await admin.post('/api/admin/printers', { name: `Real ${kind}`, buildVolumeMm: { x: 200, y: 200, z: 200 }, nozzleMm: 0.4, connection });
      expect(created.status).toBe(201);
      // Free, as the printer said at its last answer: exactly when the autopilot used to confirm its bed.
      await t.context.printerRepository.recordState(created.body.id, { status: IDLE });
      ids.push(created.body.id);
    }
    const sim = await addSimulated('Sim bed', {}, []);
    for (let i = 0; i < 3; i++) await tick();
    for (const id of ids) expect((await t.context.printerRepository.find(id))!.bedConfirmedClear).toBe(false);
    // The simulated printer beside them had its bed confirmed by the autopilot in the same ticks.
    expect((await t.context.printerRepository.find(sim))!.bedConfirmedClear).toBe(true);
    const bedEvents = await t.context.db.select().from(productionEvent).where(eq(productionEvent.kind, 'bed_clear'));
    expect(bedEvents.filter((e) => e.printerId !== null && ids.includes(e.printerId))).toEqual([]);
  }, 60_000);
});

describe('materials and the enclosure', () => {
  it('never assigns an ASA job to an open printer, even with ASA loaded: the order is held in words', async () => {
    await retireAll();
    await addSimulated('Open frame', {}, [
      { material: 'ASA', colourName: 'Orange', colourHex: ORANGE, gramsLeft: 1000, loaded: true },
    ]);
    const placed = await order('ASA-BOX');
    for (let i = 0; i < 3; i++) await tick();
    const [job] = await t.context.printJobs.ofOrder(placed.id);
    expect(job!.status).toBe('queued');
    expect(job!.printerId).toBeNull();
    const held = (await seller.get(`/api/orders/${placed.id}`)).body;
    expect(held.status).toBe('on_hold');
    expect(JSON.stringify(held)).toMatch(/ASA prints only in an enclosure/);
  }, 60_000);

  it('never sends a job to a printer whose allowed materials lack it', async () => {
    await retireAll();
    await addSimulated('PETG only', { materials: ['PETG'] }, [
      { material: 'PLA', colourName: 'Orange', colourHex: ORANGE, gramsLeft: 1000, loaded: true },
    ]);
    const placed = await order('PLA-BOX');
    for (let i = 0; i < 3; i++) await tick();
    expect((await t.context.printJobs.ofOrder(placed.id))[0]!.printerId).toBeNull();
    expect((await seller.get(`/api/orders/${placed.id}`)).body.status).toBe('on_hold');
  }, 60_000);
});

describe('grams left on the spool', () => {
  it('asks for a fresh spool when the loaded one holds too little, and loads one that holds enough', async () => {
    await retireAll();
    const id = await addSimulated('Low spool', {}, [
      { material: 'PLA', colourName: 'Orange', colourHex: ORANGE, gramsLeft: 1, loaded: true },
    ]);
    const placed = await order('PLA-BOX');
    for (let i = 0; i < 6 && (await t.context.printJobs.ofOrder(placed.id))[0]!.status !== 'printed'; i++) await tick();
    const [job] = await t.context.printJobs.ofOrder(placed.id);
    const events = await t.context.db.select().from(productionEvent).where(eq(productionEvent.jobId, job!.id));
    expect(events.find((e) => e.kind === 'assigned')?.detail).toBe(`Assigned (fresh-spool); load PLA ${ORANGE} first`);
    expect(events.some((e) => e.kind === 'spool_loaded')).toBe(true);
    const spools = (await t.context.printerRepository.find(id))!.spools;
    // The 1 g spool is gone; the loaded one held the job's grams and the margin when it was loaded.
    expect(spools).toHaveLength(1);
    expect(spools[0]).toMatchObject({ material: 'PLA', colourHex: ORANGE, loaded: true });
    expect(spools[0]!.gramsLeft + job!.grams).toBeGreaterThanOrEqual(gramsNeeded(job!.grams) - 1);
  }, 60_000);
});
