import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { auditLog, printer } from '../../db/schema.ts';
import { startBambulabSimulator, type BambulabSimulator } from '../../integrations/bambulab/bambulab-simulator.ts';

/**
 * A Bambu Lab printer as data (issue 22): its connection (IP, serial, LAN access code, model) saved
 * by an admin with the access code sealed and never returned, kept when the form leaves it empty,
 * refused in words when malformed; and the address policy applied to its host as to any printer's.
 * Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */
let t: TestApp;
let admin: SignedInClient;
let seller: SignedInClient;
let sim: BambulabSimulator;

const bambu = (connection: Record<string, unknown>) => ({
  name: 'P1S #1',
  model: 'Bambu Lab P1S',
  buildVolumeMm: { x: 256, y: 256, z: 250 },
  nozzleMm: 0.4,
  slicerProfile: { kind: 'bambulab', model: 'P1S' },
  connection,
});

beforeAll(async () => {
  t = await startTestApp({ PRINTER_ALLOW_LOOPBACK: 'true' });
  [admin, seller] = await Promise.all([t.signUp({ role: 'admin' }), t.signUp()]);
  sim = await startBambulabSimulator();
}, 120_000);
afterAll(async () => {
  await t?.close();
  await sim?.stop();
});

describe('Bambu Lab printers on the printers API', () => {
  it('keeps the access code sealed, never returns it, and keeps it when an edit leaves it empty', async () => {
    const created = await admin.post('/api/admin/printers', bambu(sim.connection() as Record<string, unknown>));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.connection).toEqual({ kind: 'bambulab', host: '127.0.0.1', serial: sim.serial, model: 'P1S', mqttPort: expect.any(Number), ftpsPort: expect.any(Number) });
    expect(created.body.secretSet).toBe(true);
    expect(created.body.certificateSha256).toBeNull();
    const [row] = await t.context.db.select().from(printer);
    expect(JSON.stringify(row)).not.toContain(sim.accessCode);
    const audit = await t.context.db.select().from(auditLog);
    expect(JSON.stringify(audit)).not.toContain(sim.accessCode);

    const { accessCode: _left, ...withoutCode } = sim.connection() as Record<string, unknown>;
    const edited = await admin.request('PUT', `/api/admin/printers/${created.body.id}`, { ...bambu({ ...withoutCode, accessCode: '' }), name: 'P1S #1 (renamed)' }, {});
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    const tested = await admin.post(`/api/admin/printers/${created.body.id}/test`, {});
    expect(tested.body).toMatchObject({ ok: true, identity: { kind: 'bambulab', software: 'Bambu Lab P1S', firmware: 'firmware 01.08.02.00' } });
    expect((await admin.get(`/api/admin/printers/${created.body.id}`)).body.certificateSha256).toMatch(/^[0-9A-F:]{95}$/);
    await admin.post(`/api/admin/printers/${created.body.id}/retire`, {});
  });

  it('refuses a malformed connection in words, and a seller altogether', async () => {
    const good = sim.connection() as Record<string, unknown>;
    const shortCode = await admin.post('/api/admin/printers', bambu({ ...good, accessCode: '123' }));
    expect(shortCode.status).toBe(400);
    expect(shortCode.body.error).toContain('8 characters');
    const badSerial = await admin.post('/api/admin/printers', bambu({ ...good, serial: 'no spaces allowed' }));
    expect(badSerial.status).toBe(400);
    expect(badSerial.body.error).toContain('serial');
    const badModel = await admin.post('/api/admin/printers', bambu({ ...good, model: 'X2' }));
    expect(badModel.status).toBe(400);
    expect((await seller.post('/api/admin/printers', bambu(good))).status).toBe(403);
  });

  it('applies the printer host policy to its host (link-local refused)', async () => {
    const refused = await admin.post('/api/admin/printers', bambu({ ...(sim.connection() as Record<string, unknown>), host: '169.254.169.254' }));
    expect(refused.status).toBe(422);
    expect(refused.body.error).toContain('link-local');
  });
});
