import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { uniqueEmail, uploadDesign, type SignedInClient } from '../apps/server/test/test-app.ts';
import { boxStl } from '../apps/server/test/hostile-models.ts';
import { startMoonrakerSimulator, type MoonrakerSimulator } from '../apps/server/src/integrations/moonraker/moonraker-simulator.ts';
import { detectPrusaSlicer } from '../apps/server/src/integrations/prusa-slicer/prusa-slicer.ts';
import { newBrowser, newPage, startApp, type RunningApp } from './harness.ts';

/**
 * A plate PrusaSlicer cannot slice for a real printer, on /admin-production (issue 22): the plate
 * splits back into single parts, the one left in the queue says on the board that it prints alone,
 * with the reason. PrusaSlicer runs behind a wrapper that refuses a plate's `--merge` run, and the
 * printer is a Klipper behind the Moonraker simulator. Skipped without PrusaSlicer.
 */
const slicer = await detectPrusaSlicer();

let app: RunningApp;
let browser: Browser;
let sim: MoonrakerSimulator;
let wrapperDir: string;
let adminClient: SignedInClient;
let sellerClient: SignedInClient;

describe.skipIf(!slicer.available)('a plate split on the production board', () => {
  beforeAll(async () => {
    // Readable by nobody: the sandbox runs the slicer as nobody.
    wrapperDir = await mkdtemp(path.join(os.tmpdir(), 'layerline-plate-split-'));
    await chmod(wrapperDir, 0o755);
    const wrapper = path.join(wrapperDir, 'prusa-slicer');
    await writeFile(wrapper, ['#!/bin/sh', 'case " $* " in *" --merge "*) echo "error: no plates here" >&2; exit 1;; esac', `exec ${slicer.path} "$@"`, ''].join('\n'));
    await chmod(wrapper, 0o755);
    sim = await startMoonrakerSimulator();
    app = await startApp({ SLICING: 'auto', PRUSA_SLICER_PATH: wrapper, FARM_TICK_S: '1', FARM_AUTOPILOT: 'false', FARM_PARTS_PER_PLATE: '4', PRINTER_ALLOW_LOOPBACK: 'true' });
    browser = await newBrowser();
    adminClient = await app.testApp.signUp({ role: 'admin', name: 'Split Admin', email: uniqueEmail('split-admin') });
    sellerClient = await app.testApp.signUp({ role: 'seller', name: 'Split Seller', email: uniqueEmail('split-seller') });
    const design = (await uploadDesign(sellerClient, boxStl(20, 20, 10), 'cube.stl')) as { printConfigs: { id: string }[] };
    const product = await sellerClient.post('/api/products', {
      name: 'Cube',
      variants: [{ name: 'One', sku: 'SPLIT-CUBE', parts: [{ printConfigId: design.printConfigs[0]!.id, quantity: 1 }] }],
    });
    expect(product.status).toBe(201);
    const printer = await adminClient.post('/api/admin/printers', {
      name: 'Klipper Voron',
      buildVolumeMm: { x: 250, y: 210, z: 210 },
      nozzleMm: 0.4,
      connection: sim.connection(),
    });
    expect(printer.status, JSON.stringify(printer.body)).toBe(201);
    const spools = await adminClient.request('PUT', `/api/admin/printers/${printer.body.id}/spools`, {
      spools: [{ material: 'PLA', colourName: 'Orange', colourHex: '#f97316', gramsLeft: 1000, loaded: true }],
    }, {});
    expect(spools.status).toBe(200);
    expect((await adminClient.post(`/api/admin/production/printers/${printer.body.id}/bed-clear`, {})).status).toBe(204);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    await sim?.stop();
    await rm(wrapperDir, { recursive: true, force: true });
  });

  it('shows the parts of a plate that could not be sliced queued to print alone, with the reason', async () => {
    const placed = await sellerClient.post('/api/orders/manual', {
      items: [{ sku: 'SPLIT-CUBE', quantity: 3 }],
      shippingAddress: { name: 'Maya Thompson', line1: '1420 Larkin Street', city: 'San Francisco', region: 'CA', postalCode: '94109', country: 'US' },
    });
    expect(placed.status).toBe(201);

    const page = await newPage(browser, app, { email: adminClient.email, password: adminClient.password, userId: adminClient.userId }, { viewport: { width: 1400, height: 900 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto('/admin-production');

    const alone = page.getByTestId('queue-row').getByTestId('prints-alone');
    await expect.poll(() => alone.count(), { timeout: 90_000 }).toBe(2);
    expect(await alone.first().getAttribute('title')).toMatch(/^PrusaSlicer could not slice the plate for Klipper Voron: /);
    await page.screenshot({ path: 'test-results/plate-split-board.png', fullPage: true });
    expect(pageErrors).toEqual([]);
  }, 150_000);
});
