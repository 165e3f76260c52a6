import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { uniqueEmail, uploadDesign, type SignedInClient } from '../apps/server/test/test-app.ts';
import { newBrowser, newPage, startApp, type RunningApp } from './harness.ts';

/**
 * Several parts per plate on /admin-production (issue 22) in a real browser, against the real
 * dispatcher and a simulated printer: an order of three cubes goes on one plate, the printer's card
 * lists the three parts, each active job says which part of three it is, and the admin skips one
 * failing part from the board: it is reprinted alone while the others print on.
 */
const CUBE = fs.readFileSync(path.resolve(import.meta.dirname, '../../shared/models/ps-20mm_cube.obj'));

let app: RunningApp;
let browser: Browser;
let adminClient: SignedInClient;
let sellerClient: SignedInClient;

beforeAll(async () => {
  app = await startApp({ FARM_TICK_S: '1', FARM_AUTOPILOT: 'false', FARM_PARTS_PER_PLATE: '8' });
  browser = await newBrowser();
  adminClient = await app.testApp.signUp({ role: 'admin', name: 'Plate Admin', email: uniqueEmail('plate-admin') });
  sellerClient = await app.testApp.signUp({ role: 'seller', name: 'Plate Seller', email: uniqueEmail('plate-seller') });
  const design = (await uploadDesign(sellerClient, CUBE, 'ps-20mm_cube.obj')) as { printConfigs: { id: string }[] };
  const product = await sellerClient.post('/api/products', {
    name: 'Cube',
    variants: [{ name: 'One', sku: 'PLATE-CUBE', parts: [{ printConfigId: design.printConfigs[0]!.id, quantity: 1 }] }],
  });
  expect(product.status).toBe(201);
  // Real time: the plate prints for as long as the test needs to look at it.
  const printer = await adminClient.post('/api/admin/printers', {
    name: 'Plate MK4',
    buildVolumeMm: { x: 250, y: 210, z: 220 },
    nozzleMm: 0.4,
    connection: { kind: 'simulated', speedFactor: 1 },
  });
  expect(printer.status).toBe(201);
  const spools = await adminClient.request('PUT', `/api/admin/printers/${printer.body.id}/spools`, {
    spools: [{ material: 'PLA', colourName: 'Orange', colourHex: '#f97316', gramsLeft: 1000, loaded: true }],
  }, {});
  expect(spools.status).toBe(200);
  expect((await adminClient.post(`/api/admin/production/printers/${printer.body.id}/bed-clear`, {})).status).toBe(204);
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe('plates on the production board', () => {
  it('shows the parts of a plate on its printer, and skips a failing one', async () => {
    const placed = await sellerClient.post('/api/orders/manual', {
      items: [{ sku: 'PLATE-CUBE', quantity: 3 }],
      shippingAddress: { name: 'Maya Thompson', line1: '1420 Larkin Street', city: 'San Francisco', region: 'CA', postalCode: '94109', country: 'US' },
    });
    expect(placed.status).toBe(201);

    const page = await newPage(browser, app, { email: adminClient.email, password: adminClient.password, userId: adminClient.userId }, { viewport: { width: 1400, height: 900 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto('/admin-production');

    const card = page.getByTestId('board-printer-Plate MK4');
    await expect.poll(() => card.getByTestId('plate-part').count(), { timeout: 30_000 }).toBe(3);
    expect(await card.getByTestId('printer-plate').textContent()).toContain('Plate of 3 parts');
    const positions = page.getByTestId('plate-position');
    await expect.poll(() => positions.count(), { timeout: 10_000 }).toBe(3);
    expect(await positions.allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('Part 1 of 3'), expect.stringContaining('Part 3 of 3')]),
    );
    await page.screenshot({ path: 'test-results/plates-board.png', fullPage: true });

    // The second part came loose: skip it from the board.
    await positions.filter({ hasText: 'Part 2 of 3' }).getByRole('button', { name: 'Skip' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Skip this part' }).click();
    await dialog.getByText('Say why the part failed').waitFor();
    await dialog.getByLabel('Reason').fill('came loose from the bed');
    await dialog.getByRole('button', { name: 'Skip this part' }).click();
    await dialog.waitFor({ state: 'hidden' });

    await expect.poll(() => card.getByTestId('plate-part').count(), { timeout: 10_000 }).toBe(2);
    const jobs = (await app.testApp.context.printJobs.ofOrder(placed.body.id)) as { status: string; attempt: number; plateIndex: number | null }[];
    expect(jobs.filter((j) => j.status === 'printing')).toHaveLength(2);
    expect(jobs.find((j) => j.attempt === 2)).toMatchObject({ status: 'queued', plateIndex: null });
    expect(pageErrors).toEqual([]);
  });
});
