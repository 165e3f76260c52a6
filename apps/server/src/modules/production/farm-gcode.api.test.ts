import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uploadDesign, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { boxStl } from '../../../test/hostile-models.ts';
import { printFile } from '../../db/schema.ts';
import { detectPrusaSlicer } from '../../integrations/prusa-slicer/prusa-slicer.ts';
import { DEBIAN_PROFILES_DIR, findProfilesDir, loadVendorBundle } from '../../integrations/prusa-slicer/vendor-bundles.ts';
import { resolveSection } from '../../integrations/prusa-slicer/vendor-ini.ts';

/**
 * The farm's G-code carries the printer's profile and the material's (issue 20, item 3), read from
 * the stored file through the real server: a PETG job on a bundled MK3S preset, the same printer
 * switched to the operator's own G-code (an MK4, which the 2.5 bundle lacks), then to no profile.
 * Each change of profile slices the configuration again. Runs on PGlite, and on PostgreSQL with
 * DATABASE_URL; skipped without PrusaSlicer and its bundles.
 */

const slicer = await detectPrusaSlicer();
const bundles = await findProfilesDir();
const MK3S = 'Original Prusa i3 MK3S & MK3S+'; // PrusaResearch.ini L9238 (bundle 1.5.1)
const ADDRESS = { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' };
const ORANGE = '#f97316';
/** Generic PETG, PrusaResearch.ini L2152 (materials.md): first layer 230 °C / 85 °C, then 240 °C / 90 °C. */
const PETG = { nozzleFirst: 230, nozzle: 240, bedFirst: 85, bed: 90 };

describe.skipIf(!slicer.available || !bundles)(`farm G-code with PrusaSlicer's profiles (${bundles ?? DEBIAN_PROFILES_DIR})`, () => {
  let t: TestApp;
  let admin: SignedInClient;
  let maker: SignedInClient;
  let configId: string;
  let printerId: string;
  const printerBody = (slicerProfile: unknown) => ({
    name: 'Farm MK',
    buildVolumeMm: { x: 250, y: 210, z: 210 },
    nozzleMm: 0.4,
    materials: ['PLA', 'PETG'],
    slicerProfile,
    connection: { kind: 'simulated', speedFactor: 100_000 },
  });

  beforeAll(async () => {
    t = await startTestApp({ SLICING: 'auto', FARM_TICK_S: '300', FARM_AUTOPILOT: 'false' });
    [admin, maker] = await Promise.all([t.signUp({ role: 'admin' }), t.signUp({ role: 'beta' })]);
    const design = await uploadDesign(maker, boxStl(20, 20, 20), 'box.stl');
    const petg = await maker.post(`/api/designs/${design.id}/print-configs`, { name: 'PETG box', filament: 'PETG', colour: ORANGE });
    expect(petg.status).toBe(201);
    configId = petg.body.id;
    await maker.post('/api/products', { name: 'Cube', variants: [{ name: 'PETG', sku: 'PETG', parts: [{ printConfigId: configId, quantity: 1 }] }] });
    const created = await admin.post('/api/admin/printers', printerBody({ kind: 'bundled', vendor: 'PrusaResearch', preset: MK3S }));
    expect(created.status).toBe(201);
    printerId = created.body.id;
    await admin.request('PUT', `/api/admin/printers/${printerId}/spools`, { spools: [{ material: 'PETG', colourName: 'Orange', colourHex: ORANGE, gramsLeft: 1000, loaded: true }] }, {});
  }, 60_000);
  afterAll(async () => t?.close());

  /** Orders the PETG box, ticks until it printed on the printer, passes QC and clears the bed; returns the file it got. */
  async function printOne(): Promise<{ profileKey: string; gcode: string }> {
    expect((await admin.post(`/api/admin/production/printers/${printerId}/bed-clear`, {})).status).toBe(204);
    const placed = (await maker.post('/api/orders/manual', { items: [{ sku: 'PETG', quantity: 1 }], shippingAddress: ADDRESS })).body;
    await t.context.orders.announcementsSettled();
    const [queued] = await t.context.printJobs.ofOrder(placed.id);
    const deadline = Date.now() + 120_000;
    let job = (await t.context.printJobs.find(queued!.id))!;
    while (job.status !== 'printed' && Date.now() < deadline) {
      expect(['queued', 'assigned', 'uploading', 'printing']).toContain(job.status);
      await t.context.farmDispatcher.tick();
      await new Promise((r) => setTimeout(r, 300));
      job = (await t.context.printJobs.find(queued!.id))!;
    }
    expect(job).toMatchObject({ status: 'printed', printerId });
    expect((await admin.post(`/api/admin/production/jobs/${job.id}/qc`, { result: 'pass' })).status).toBe(200);
    const files = await t.context.db.select().from(printFile).where(and(eq(printFile.printConfigId, configId), eq(printFile.status, 'done')));
    const newest = files.sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0]!;
    return { profileKey: newest.profileKey, gcode: (await t.context.storage.readAll(newest.gcodeKey!)).toString('utf8') };
  }

  const lines = (gcode: string) => gcode.split('\n');
  /** The heating commands PrusaSlicer wrote, without their comments. */
  const heating = (gcode: string) => lines(gcode).filter((l) => /^M(104|109|140|190) S[1-9]/.test(l)).map((l) => l.split(' ;')[0]);

  it('offers the installed bundles’ FFF printer presets to admins, the MK3S among them and no resin printer', async () => {
    const listed = await admin.get('/api/admin/slicer/printer-presets');
    expect(listed.status).toBe(200);
    expect(listed.body.available).toBe(true);
    expect(listed.body.presets).toContainEqual({ vendor: 'PrusaResearch', preset: MK3S, bedMm: { x: 250, y: 210 }, maxHeightMm: 210, nozzleMm: 0.4 });
    expect(listed.body.presets.some((p: { preset: string }) => p.preset.startsWith('Original Prusa SL1'))).toBe(false);
    expect((await maker.get('/api/admin/slicer/printer-presets')).status).toBe(403);
  });

  it('a PETG job on the bundled MK3S preset: PETG’s temperatures and the MK3S’s own start G-code', async () => {
    const { profileKey, gcode } = await printOne();
    expect(profileKey).toMatch(/^n0\.4-250x210x210-b[0-9a-f]{16}$/);
    expect(heating(gcode).slice(0, 4)).toEqual([`M104 S${PETG.nozzleFirst}`, `M140 S${PETG.bedFirst}`, `M190 S${PETG.bedFirst}`, `M109 S${PETG.nozzleFirst}`]);
    expect(heating(gcode)).toEqual(expect.arrayContaining([`M104 S${PETG.nozzle}`, `M140 S${PETG.bed}`]));
    // A line of the preset's start G-code, read from the installed bundle (resolved through its parents).
    const preset = resolveSection(await loadVendorBundle(bundles!, 'PrusaResearch'), `printer:${MK3S}`);
    const meshLevelling = preset.get('start_gcode')!.split('\\n').find((l) => l.startsWith('G80'))!;
    expect(meshLevelling).toBe('G80 ; mesh bed leveling');
    expect(lines(gcode)).toContain(meshLevelling);
    expect(lines(gcode)).toContain('M862.3 P "MK3S" ; printer model check');
    expect(gcode).toContain(`; printer_settings_id = ${MK3S}\n`);
    expect(gcode).toContain('; filament_settings_id = "Generic PETG"\n');
    expect(gcode).toContain('; filament_max_volumetric_speed = 8\n');
    expect(gcode).toContain('; post_process = \n');
  }, 180_000);

  it('switched to the operator’s own start and end G-code (an MK4): exactly those lines, a new file, PETG’s temperatures', async () => {
    const start = ['M862.3 P "MK4" ; printer model check', 'M140 S[first_layer_bed_temperature]', 'M104 S[first_layer_temperature]', 'G28 ; home', 'G29 ; mesh bed levelling', 'M190 S[first_layer_bed_temperature]', 'M109 S[first_layer_temperature]', 'G1 X100 E12 F1000 ; MK4 purge'];
    const end = ['M104 S0 ; MK4 end', 'M140 S0', 'M84 X Y E'];
    const updated = await admin.request('PUT', `/api/admin/printers/${printerId}`, printerBody({ kind: 'custom', startGcode: start.join('\n'), endGcode: end.join('\n') }), {});
    expect(updated.status).toBe(200);
    const { profileKey, gcode } = await printOne();
    expect(profileKey).toMatch(/^n0\.4-250x210x210-c[0-9a-f]{16}$/);
    const all = lines(gcode);
    const at = all.indexOf(start[0]!);
    expect(all.slice(at, at + start.length)).toEqual(start.map((l) => l.replace('[first_layer_bed_temperature]', String(PETG.bedFirst)).replace('[first_layer_temperature]', String(PETG.nozzleFirst))));
    const endAt = all.indexOf(end[0]!);
    expect(all.slice(endAt, endAt + end.length)).toEqual(end);
    expect(heating(gcode)).toEqual(expect.arrayContaining([`M104 S${PETG.nozzle}`, `M140 S${PETG.bed}`]));
    expect(all).not.toContain('G80 ; mesh bed leveling');
    expect(gcode).toContain('; bed_shape = 0x0,250x0,250x210,0x210\n');
  }, 180_000);

  it('with no profile: Layerline’s generic start G-code heats to PETG’s first layer, homes and draws a purge line', async () => {
    const updated = await admin.request('PUT', `/api/admin/printers/${printerId}`, printerBody(null), {});
    expect(updated.status).toBe(200);
    const { profileKey, gcode } = await printOne();
    expect(profileKey).toBe('n0.4-250x210x210-generic');
    const all = lines(gcode);
    expect(all).toEqual(expect.arrayContaining([
      `M140 S${PETG.bedFirst} ; heat the bed`,
      `M104 S${PETG.nozzleFirst} ; heat the nozzle`,
      `M190 S${PETG.bedFirst} ; wait for the bed`,
      `M109 S${PETG.nozzleFirst} ; wait for the nozzle`,
      'G28 ; home all axes',
      'G1 X100 E12 F1000 ; purge line',
    ]));
    expect(all.find((l) => l.startsWith('; Layerline generic start G-code'))).toMatch(/no mesh bed levelling/);
    const files = await t.context.db.select().from(printFile).where(eq(printFile.printConfigId, configId));
    expect(new Set(files.map((f) => f.profileKey)).size).toBe(3); // one file per profile the printer had
  }, 180_000);
});
