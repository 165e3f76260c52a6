import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { DEMO_PRINTERS } from '../apps/server/src/demo-data.ts';
import { uniqueEmail, uploadDesign, type SignedInClient } from '../apps/server/test/test-app.ts';
import { newBrowser, newPage, startApp, type Credentials, type RunningApp } from './harness.ts';

/**
 * /admin-production (issue 11, items 4-5) in a real browser, against the real dispatcher and the
 * demo farm's simulated printers: an admin opens Production from the admin side nav and sees the
 * printers as cards; a seller's order is accepted and its two parts are queued (the admin reorders the
 * queue by dragging, pins a part and lets it go again); the admin confirms
 * beds clear and loads the spool the dispatcher asks for, the parts print, pass QC, the order shows
 * in packing with a packing slip that is a PDF, is confirmed packed, and the seller then sees it
 * "Packed" with "Printed 2 of 2 parts".
 */
const CUBE = fs.readFileSync(path.resolve(import.meta.dirname, '../../shared/models/ps-20mm_cube.obj'));
/** How long a part takes on the simulated printers, so the board can be seen printing it. */
const PRINT_MS = 6_000;

let app: RunningApp;
let browser: Browser;
let adminClient: SignedInClient;
let admin: Credentials;
let sellerClient: SignedInClient;
let seller: Credentials;
let printSeconds: number;

const credentials = (client: SignedInClient): Credentials => ({
  email: client.email,
  password: client.password,
  userId: client.userId,
});

beforeAll(async () => {
  // No autopilot (the default under test): every bed, spool, QC and packing step is a person's click here.
  app = await startApp({ FARM_TICK_S: '1', FARM_AUTOPILOT: 'false' });
  browser = await newBrowser();
  adminClient = await app.testApp.signUp({
    role: 'admin',
    name: 'Farm Admin',
    email: uniqueEmail('farm-admin'),
  });
  sellerClient = await app.testApp.signUp({
    role: 'seller',
    name: 'Farm Seller',
    email: uniqueEmail('farm-seller'),
  });
  admin = credentials(adminClient);
  seller = credentials(sellerClient);

  // The seller's design (the 20 mm cube), as the upload page would send it.
  const design = (await uploadDesign(sellerClient, CUBE, 'ps-20mm_cube.obj')) as { printConfigs: { id: string; quote: { printSeconds: number } }[] };
  const config = design.printConfigs[0]!;
  printSeconds = config.quote.printSeconds;

  // The demo farm (apps/server/src/demo-data.ts), sped up so a cube prints in about PRINT_MS.
  const speedFactor = Math.max(1, Math.round(printSeconds / (PRINT_MS / 1000)));
  for (const p of DEMO_PRINTERS) {
    const created = await adminClient.post('/api/admin/printers', {
      name: p.name,
      model: p.model,
      buildVolumeMm: { x: p.size[0], y: p.size[1], z: p.size[2] },
      nozzleMm: p.nozzle,
      tags: [...p.tags],
      connection: { kind: 'simulated', speedFactor, model: p.model },
    });
    expect(created.status).toBe(201);
    const [material, colourName, colourHex, gramsLeft] = p.spool;
    const spools = await adminClient.request(
      'PUT',
      `/api/admin/printers/${created.body.id}/spools`,
      {
        spools: [{ material, colourName, colourHex, gramsLeft, loaded: true }],
      },
      {},
    );
    expect(spools.status).toBe(200);
  }

  const product = await sellerClient.post('/api/products', {
    name: 'Desk cube',
    variants: [
      {
        name: 'Pair',
        sku: 'FARM-CUBE-PAIR',
        packaging: 'gift box',
        parts: [{ printConfigId: config.id, quantity: 2 }],
      },
    ],
  });
  expect(product.status).toBe(201);
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

/** Clicks a button when it shows within a short time; says whether it did. */
async function clickIfShown(page: Page, name: string): Promise<boolean> {
  const button = page.getByRole('button', { name, exact: true }).first();
  try {
    await button.waitFor({ state: 'visible', timeout: 500 });
    if (await button.isDisabled()) return false;
    await button.click({ timeout: 2_000 });
    return true;
  } catch {
    return false;
  }
}

describe('the production board', () => {
  it('shows the farm, and takes an order through printing, QC and packing to the seller', async () => {
    const page = await newPage(browser, app, admin, { viewport: { width: 1400, height: 900 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));

    await page.goto('/admin');
    await page.getByTestId('side-nav').getByRole('link', { name: 'Production' }).click();
    await page.waitForURL('**/admin-production');
    await expect.poll(() => page.title()).toBe('Production | Layerline');

    // The demo printers as cards, each with its loaded spool and its bed not confirmed yet.
    const cards = page.getByTestId('board-printers').locator('[data-testid^="board-printer-"]');
    await expect.poll(() => cards.count(), { timeout: 20_000 }).toBe(DEMO_PRINTERS.length);
    for (const p of DEMO_PRINTERS) {
      const card = page.getByTestId(`board-printer-${p.name}`);
      expect(await card.textContent()).toContain(p.model);
      await expect
        .poll(() => card.textContent(), { timeout: 15_000 })
        .toContain(`${p.spool[0]} ${p.spool[1]}`);
    }
    await page.getByText('Nothing queued.').waitFor();
    expect(await page.getByTestId('autopilot').count()).toBe(0);
    await page.screenshot({ path: 'test-results/production-board-empty.png', fullPage: true });

    // The seller's order: one pair of cubes is two parts to print.
    const placed = await sellerClient.post('/api/orders/manual', {
      items: [{ sku: 'FARM-CUBE-PAIR', quantity: 1 }],
      shippingAddress: {
        name: 'Maya Thompson',
        line1: '1420 Larkin Street',
        city: 'San Francisco',
        region: 'CA',
        postalCode: '94109',
        country: 'US',
      },
    });
    expect(placed.status).toBe(201);
    const order = placed.body as { id: string; externalId: string; status: string };
    await expect
      .poll(async () => (await sellerClient.get(`/api/orders/${order.id}`)).body.status, { timeout: 15_000 })
      .toBe('accepted');

    // Its jobs appear on the board by themselves (the board reads itself again every 2 s).
    const ourJobs = (testId: string) => page.getByTestId(testId).filter({ hasText: order.externalId });
    await expect
      .poll(async () => (await ourJobs('queue-row').count()) + (await ourJobs('active-job').count()), {
        timeout: 20_000,
      })
      .toBe(2);
    await page.screenshot({ path: 'test-results/production-board-queued.png', fullPage: true });

    // No bed is confirmed clear yet, so both parts wait in the queue: drag the second above the
    // first (the server keeps the new order), pin it to a printer and let it go again.
    const rows = ourJobs('queue-row');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).textContent()).not.toContain('Copy 2');
    await rows.nth(1).dragTo(rows.nth(0));
    await expect.poll(() => rows.nth(0).textContent(), { timeout: 10_000 }).toContain('Copy 2');
    const queuedCopies = async () =>
      ((await adminClient.get('/api/admin/production/board')).body.queued as { copy: number }[]).map(
        (j) => j.copy,
      );
    expect(await queuedCopies()).toEqual([2, 1]);
    await rows.nth(0).getByRole('combobox').click();
    await page.getByRole('option', { name: 'Mini 1' }).click();
    await page.getByText('Desk cube / Pair pinned to Mini 1').waitFor();
    await expect.poll(() => rows.nth(0).getByRole('combobox').textContent()).toBe('Mini 1');
    await rows.nth(0).getByRole('combobox').click();
    await page.getByRole('option', { name: 'Any printer' }).click();
    await page.getByText('Desk cube / Pair may print on any printer').waitFor();
    await expect.poll(() => rows.nth(0).getByRole('combobox').textContent()).toBe('Any printer');

    // Beds are confirmed clear, spools loaded when the dispatcher asks for a change, until both
    // parts have printed and wait for QC. The board is watched printing on the way.
    let sawPrinting = false;
    let bedsConfirmed = 0;
    let spoolsLoaded = 0;
    const deadline = Date.now() + 120_000;
    while ((await ourJobs('qc-job').count()) < 2) {
      if (Date.now() > deadline)
        throw new Error(
          `the parts did not reach QC: ${await page.getByTestId('board-active').textContent()}`,
        );
      if (await clickIfShown(page, 'Confirm bed clear')) bedsConfirmed++;
      if (await clickIfShown(page, 'Spool loaded')) spoolsLoaded++;
      const printing = ourJobs('active-job').filter({ hasText: 'Printing' });
      if (!sawPrinting && (await printing.count()) > 0) {
        sawPrinting = true;
        await page.screenshot({ path: 'test-results/production-board-printing.png', fullPage: true });
        // The printer's card shows the part, its order and how far it is.
        const card = page
          .locator('[data-testid^="board-printer-"]')
          .filter({ hasText: order.externalId })
          .first();
        expect(await card.textContent()).toMatch(/Starting…|\d+ %/);
      }
      await page.waitForTimeout(300);
    }
    expect(bedsConfirmed).toBeGreaterThan(0);
    expect(sawPrinting).toBe(true);
    // The cube's colour is on no printer of the demo farm: the dispatcher asked for a spool change.
    expect(spoolsLoaded).toBeGreaterThan(0);
    await page.screenshot({ path: 'test-results/production-board-qc.png', fullPage: true });

    // QC: a failure needs a reason (said in the dialog); then both parts pass.
    const firstQc = ourJobs('qc-job').first();
    await firstQc.getByRole('button', { name: 'Fail' }).click();
    const failDialog = page.getByRole('dialog', { name: /Fail QC/ });
    await failDialog.getByRole('button', { name: 'Fail QC' }).click();
    await failDialog.getByText('Say why the part failed QC').waitFor();
    await failDialog.getByRole('button', { name: 'Cancel' }).click();
    await failDialog.waitFor({ state: 'hidden' });
    for (let passed = 0; passed < 2; passed++) {
      await ourJobs('qc-job').first().getByRole('button', { name: 'Pass' }).click();
      await expect.poll(() => ourJobs('qc-job').count(), { timeout: 10_000 }).toBe(1 - passed);
    }

    // Packing: the pick list, the slip (a real PDF) and the confirmation.
    const packing = page.getByTestId('packing-order').filter({ hasText: order.externalId });
    await packing.waitFor({ timeout: 20_000 });
    const pickList = (await packing.textContent()) ?? '';
    expect(pickList).toContain('FARM-CUBE-PAIR');
    expect(pickList).toContain('2 × Desk cube');
    expect(pickList).toContain('gift box');
    await packing.getByLabel('Message on the packing slip').fill('Thank you, Maya!');
    const slip = packing.getByRole('link', { name: 'Packing slip (PDF)' });
    expect(await slip.getAttribute('target')).toBe('_blank');
    const href = (await slip.getAttribute('href')) ?? '';
    expect(href).toContain('message=Thank+you%2C+Maya%21');
    const pdf = await page.evaluate(async (url) => {
      const response = await fetch(url, { credentials: 'same-origin' });
      const bytes = new Uint8Array(await response.arrayBuffer());
      return {
        status: response.status,
        type: response.headers.get('content-type'),
        magic: String.fromCharCode(...bytes.slice(0, 5)),
        size: bytes.length,
      };
    }, href);
    expect(pdf).toMatchObject({ status: 200, magic: '%PDF-' });
    expect(pdf.type).toContain('application/pdf');
    expect(pdf.size).toBeGreaterThan(500);
    await page.screenshot({ path: 'test-results/production-board-packing.png', fullPage: true });
    await packing.getByRole('button', { name: 'Confirm packed' }).click();
    await page.getByText(`Order ${order.externalId} packed`).waitFor();
    await packing.waitFor({ state: 'hidden', timeout: 10_000 });
    expect(pageErrors).toEqual([]);
    await page.context().close();

    // The seller sees the order packed, with every part printed.
    const sellerPage = await newPage(browser, app, seller, { viewport: { width: 1400, height: 900 } });
    await sellerPage.goto(`/orders?order=${order.id}`);
    const status = sellerPage.getByTestId('order-status');
    await status.waitFor({ timeout: 15_000 });
    expect(await status.textContent()).toBe('Packed');
    const progress = sellerPage.getByTestId('order-production');
    expect(await progress.textContent()).toContain('Printed 2 of 2 parts');
    expect(await progress.textContent()).toContain('Passed QC');
    await sellerPage.screenshot({ path: 'test-results/production-seller-order.png' });
    await sellerPage.context().close();
  }, 240_000);
});
