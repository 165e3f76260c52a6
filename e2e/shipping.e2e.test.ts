import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { DEMO_PRINTERS } from '../apps/server/src/demo-data.ts';
import { uniqueEmail, type SignedInClient } from '../apps/server/test/test-app.ts';
import { newBrowser, newPage, startApp, type Credentials, type RunningApp } from './harness.ts';

/**
 * The shipping pages (issue 12, docs/shipping.md) in a real browser against the real server, the
 * built-in sandbox carrier and the demo farm's simulated printers (the autopilot prints, passes QC and
 * packs): a seller's ShipStation keys refused by ShipStation (an in-process fake answering 401) are
 * shown refused and nothing is stored; an admin creates a shipping profile with two parcel sizes and
 * assigns it to the seller, who keeps the sandbox carrier and sees the profile; at the packing station
 * the admin buys the packed order's labels (one per parcel: the pair of cubes fills two of the small
 * boxes), sees the tracking and opens a label PDF; the seller sees the shipments in the order dialog;
 * the public tracking page shows the parcel's events and says when it does not know a number.
 */
const CUBE = fs.readFileSync(path.resolve(import.meta.dirname, '../../shared/models/ps-20mm_cube.obj'));
const PRINT_MS = 3_000;

let app: RunningApp;
let browser: Browser;
let shipStation: http.Server;
let shipStationCalls = 0;
let adminClient: SignedInClient;
let sellerClient: SignedInClient;
let admin: Credentials;
let seller: Credentials;
let orderId: string;
let orderNumber: string;

const credentials = (client: SignedInClient): Credentials => ({
  email: client.email,
  password: client.password,
  userId: client.userId,
});

beforeAll(async () => {
  // ShipStation as it answers keys it does not know.
  shipStation = http.createServer((request, response) => {
    shipStationCalls += 1;
    request.resume();
    response.writeHead(401, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ Message: 'Authorization has been denied for this request.' }));
  });
  await new Promise<void>((resolve) => shipStation.listen(0, '127.0.0.1', resolve));
  const fakeUrl = `http://127.0.0.1:${(shipStation.address() as AddressInfo).port}`;

  app = await startApp({
    FARM_TICK_S: '1',
    FARM_AUTOPILOT: 'true',
    FARM_AUTOPILOT_DELAY_S: '0',
    SHIPPING_SANDBOX: 'true',
    SHIPPING_AUTO_BUY: 'false',
    SHIPSTATION_V1_URL: fakeUrl,
    SHIPSTATION_V2_URL: fakeUrl,
  });
  browser = await newBrowser();
  adminClient = await app.testApp.signUp({ role: 'admin', name: 'Ship Admin', email: uniqueEmail('ship-admin') });
  sellerClient = await app.testApp.signUp({ role: 'seller', name: 'Ship Seller', email: uniqueEmail('ship-seller') });
  admin = credentials(adminClient);
  seller = credentials(sellerClient);

  // The seller's design (the 20 mm cube) and a product of two of them.
  const form = new FormData();
  form.append('file', new Blob([CUBE]), 'ps-20mm_cube.obj');
  const upload = await fetch(new URL('/api/designs', app.baseUrl), {
    method: 'POST',
    headers: { cookie: sellerClient.cookieHeader(), origin: app.baseUrl },
    body: form,
  });
  expect(upload.status).toBe(201);
  const design = (await upload.json()) as { printConfigs: { id: string; quote: { printSeconds: number } }[] };
  const config = design.printConfigs[0]!;

  // The demo farm, sped up so a cube prints in about PRINT_MS; the autopilot does the rest.
  const speedFactor = Math.max(1, Math.round(config.quote.printSeconds / (PRINT_MS / 1000)));
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
        spools: [
          { material, colourName, colourHex, gramsLeft, loaded: true },
          { material: 'PLA', colourName: 'Signal orange', colourHex: '#f97316', gramsLeft: 1000, loaded: false },
        ],
      },
      {},
    );
    expect(spools.status).toBe(200);
  }
  const product = await sellerClient.post('/api/products', {
    name: 'Desk cube',
    variants: [{ name: 'Pair', sku: 'SHIP-CUBE-PAIR', packaging: 'standard', parts: [{ printConfigId: config.id, quantity: 2 }] }],
  });
  expect(product.status).toBe(201);
  const placed = await sellerClient.post('/api/orders/manual', {
    items: [{ sku: 'SHIP-CUBE-PAIR', quantity: 1 }],
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
  orderId = placed.body.id;
  orderNumber = placed.body.externalId;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await new Promise((resolve) => shipStation?.close(resolve));
});

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

describe('shipping', () => {
  it('refuses ShipStation keys ShipStation refuses, and stores nothing', async () => {
    const page = await newPage(browser, app, seller, { viewport: { width: 1280, height: 1000 } });
    const errors = watchErrors(page);
    await page.goto('/account-settings');
    const section = page.getByTestId('shipstation-section');
    await section.waitFor();
    await section.getByText('No ShipStation keys saved.').waitFor();
    // The classic API needs the secret too: said before anything is sent.
    await section.getByLabel('API key').fill('ss-key-abcdefgh1234');
    await section.getByRole('button', { name: 'Save keys' }).click();
    await section.getByText(/Enter the ShipStation API secret/).waitFor();
    expect(shipStationCalls).toBe(0);
    await section.getByLabel('API secret').fill('ss-secret-abcdefgh5678');
    await section.getByRole('button', { name: 'Save keys' }).click();
    const refusal = section.getByTestId('shipstation-refusal');
    await refusal.waitFor({ timeout: 15_000 });
    expect(await refusal.textContent()).toContain('Nothing was saved.');
    expect(shipStationCalls).toBeGreaterThan(0);
    expect((await sellerClient.get('/api/shipstation/keys')).body.configured).toBe(false);
    expect(await section.getByTestId('shipstation-saved-keys').textContent()).toContain('No ShipStation keys saved.');
    // ShipStation cannot be chosen without keys; the reason is said.
    const choice = page.getByTestId('shipping-integration-shipstation');
    expect(await choice.locator('input').isDisabled()).toBe(true);
    expect(await choice.textContent()).toContain('Save your ShipStation keys below first.');
    // Shippo: this server has no Shippo app credentials.
    expect(await page.getByTestId('shippo-section').textContent()).toContain('not configured on this server');
    await page.screenshot({ path: 'test-results/shipping-account-settings-refused.png', fullPage: true });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('an admin creates a shipping profile with two parcel sizes and assigns it to the seller', async () => {
    const page = await newPage(browser, app, admin, { viewport: { width: 1400, height: 1000 } });
    const errors = watchErrors(page);
    await page.goto('/shipping-profiles');
    await expect.poll(() => page.title()).toBe('Shipping Profiles | Layerline');
    // The server's starter profile is the default.
    const rows = page.getByTestId('shipping-profile-row');
    await rows.first().waitFor();
    expect(await rows.first().textContent()).toContain('Default');

    await page.getByRole('button', { name: 'New profile' }).click();
    const dialog = page.getByRole('dialog', { name: 'New shipping profile' });
    await dialog.waitFor();
    // Nothing filled in: the problems are said in words.
    await dialog.getByRole('button', { name: 'Create profile' }).click();
    const problems = dialog.getByTestId('profile-form-errors');
    await problems.waitFor();
    expect(await problems.textContent()).toContain('Profile name: Name the profile');
    expect(await problems.textContent()).toContain('Parcel 1, length: Enter a number');

    await dialog.getByLabel('Profile name').fill('Cube mailers');
    await dialog.getByLabel('Handling days').fill('1');
    await dialog.getByLabel('Promise name').fill('Express');
    await dialog.getByLabel('Promise days').fill('4');
    // Each box takes one 20 mm cube (60 % of its inside volume), so the pair ships as two parcels.
    const parcel = (index: number, column: string) => dialog.getByLabel(`Parcel ${index} ${column}`, { exact: true });
    const fillParcel = async (index: number, values: [string, string, string, string, string, string, string]) => {
      const columns = ['Name', 'L (mm)', 'W (mm)', 'H (mm)', 'Tare (g)', 'Max (g)', 'Cost ($)'];
      for (const [i, column] of columns.entries()) await parcel(index, column).fill(values[i]!);
    };
    await fillParcel(1, ['Cube mailer', '25', '25', '25', '12', '400', '0.35']);
    await dialog.getByRole('button', { name: 'Add parcel size' }).click();
    await fillParcel(2, ['Cube mailer plus', '28', '28', '28', '15', '500', '0.40']);
    // The origin comes from the default profile (the farm's address); it is kept.
    expect(await dialog.getByLabel('City').inputValue()).not.toBe('');
    await dialog.getByRole('button', { name: 'Create profile' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByText('Cube mailers created').waitFor();
    const ours = rows.filter({ hasText: 'Cube mailers' });
    await ours.waitFor();
    const text = (await ours.textContent()) ?? '';
    expect(text).toContain('Express: within 4 days');
    expect(text).toContain('Cube mailer 25×25×25 mm');
    expect(text).toContain('Cube mailer plus 28×28×28 mm');
    expect(text).toContain('0 sellers');

    // The default cannot be deleted: the server's words are shown.
    await rows.filter({ hasText: 'Default' }).getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: /^Delete / });
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await confirm.getByTestId('delete-profile-error').waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });

    // Assigned to the seller by email.
    await ours.getByRole('button', { name: 'Assign' }).click();
    const assign = page.getByRole('dialog', { name: 'Assign to a seller' });
    await assign.getByLabel('Seller’s email or account id').fill(seller.email);
    await assign.getByRole('button', { name: 'Assign' }).click();
    await assign.waitFor({ state: 'hidden' });
    await page.getByText(`${seller.email} now ships with Cube mailers`).waitFor();
    await expect.poll(() => ours.textContent()).toContain('1 seller');
    await page.screenshot({ path: 'test-results/shipping-profiles.png', fullPage: true });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('the seller keeps the sandbox carrier and sees the profile that applies', async () => {
    const page = await newPage(browser, app, seller, { viewport: { width: 1280, height: 1000 } });
    const errors = watchErrors(page);
    await page.goto('/account-settings');
    const section = page.getByTestId('shipping-section');
    await section.getByTestId('shipping-profile').waitFor();
    expect(await section.getByTestId('shipping-profile').textContent()).toContain('Cube mailers · Express: within 4 days');
    await section.getByTestId('shipping-integration-sandbox').click();
    await section.getByRole('button', { name: 'Save integration' }).click();
    await page.getByText('Labels are now bought with Sandbox carrier (test labels)').waitFor();
    expect((await sellerClient.get('/api/shipping/settings')).body.integration).toBe('sandbox');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('at the packing station an admin buys the packed order’s labels once and opens one', async () => {
    // The autopilot prints, passes QC and packs the order.
    await expect
      .poll(async () => (await sellerClient.get(`/api/orders/${orderId}`)).body.status, { timeout: 150_000, interval: 1_000 })
      .toBe('packed');

    const page = await newPage(browser, app, admin, { viewport: { width: 1400, height: 1000 } });
    const errors = watchErrors(page);
    await page.goto('/admin-production');
    const card = page.getByTestId('ready-to-ship').filter({ hasText: orderNumber });
    await card.waitFor({ timeout: 20_000 });
    await card.getByRole('button', { name: 'Shipping' }).click();
    const rates = card.getByTestId('shipping-rates');
    await rates.waitFor({ timeout: 20_000 });
    expect(await rates.textContent()).toContain('Express: within 4 days');
    // One block per parcel; the recommended rate of each is chosen already.
    const plans = card.getByTestId('parcel-plan');
    expect(await plans.count()).toBe(2);
    for (let i = 0; i < 2; i++) {
      const plan = plans.nth(i);
      expect(await plan.textContent()).toContain(`Parcel ${i + 1} of 2`);
      expect(await plan.textContent()).toContain('1 part');
      const recommended = plan.locator('[data-testid="rate"][data-recommended="true"]');
      expect(await recommended.count()).toBe(1);
      expect(await recommended.locator('input[type="radio"]').isChecked()).toBe(true);
      expect(await plan.textContent()).toMatch(/Meets promise|Late/);
    }
    await page.screenshot({ path: 'test-results/shipping-rates.png', fullPage: true });

    // A double click buys once.
    await card.getByRole('button', { name: 'Buy 2 labels' }).dblclick();
    const shipments = card.getByTestId('shipment');
    await expect.poll(() => shipments.count(), { timeout: 20_000 }).toBe(2);
    const numbers = await card.getByTestId('tracking-number').allTextContents();
    expect(numbers).toHaveLength(2);
    expect(new Set(numbers).size).toBe(2);
    const stored = (await adminClient.get(`/api/orders/${orderId}`)).body;
    expect(stored.shipments).toHaveLength(2);
    expect(stored.status).toBe('shipped');

    // The label opens in a new tab as a PDF.
    const print = shipments.first().getByRole('link', { name: 'Print label' });
    expect(await print.getAttribute('target')).toBe('_blank');
    const href = (await print.getAttribute('href')) ?? '';
    expect(href).toMatch(/^\/api\/shipping\/shipments\/.+\/label$/);
    const pdf = await page.evaluate(async (url) => {
      const response = await fetch(url, { credentials: 'same-origin' });
      const bytes = new Uint8Array(await response.arrayBuffer());
      return { status: response.status, type: response.headers.get('content-type'), magic: String.fromCharCode(...bytes.slice(0, 5)) };
    }, href);
    expect(pdf).toMatchObject({ status: 200, magic: '%PDF-' });
    expect(pdf.type).toContain('application/pdf');
    await page.screenshot({ path: 'test-results/shipping-labels.png', fullPage: true });
    // No write-back failed (a manual order has no marketplace to tell).
    await page.getByTestId('board-writebacks').getByText('Every marketplace has its tracking.').waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  }, 240_000);

  it('the seller sees the shipments in the order dialog, and the public page tracks them', async () => {
    const order = (await sellerClient.get(`/api/orders/${orderId}`)).body as {
      shipments: { trackingNumber: string; carrier: string }[];
    };
    const trackingNumber = order.shipments[0]!.trackingNumber;

    const page = await newPage(browser, app, seller, { viewport: { width: 1280, height: 1000 } });
    const errors = watchErrors(page);
    await page.goto(`/orders?order=${orderId}`);
    const list = page.getByTestId('order-shipments');
    await list.waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('order-status').textContent()).toBe('Shipped');
    expect(await list.getByTestId('order-shipment').count()).toBe(2);
    const text = (await list.textContent()) ?? '';
    expect(text).toContain(trackingNumber);
    expect(text).toContain(order.shipments[0]!.carrier);
    expect(text).toContain('No marketplace to tell');
    const tracking = list.getByTestId('shipment-tracking').first();
    const trackingHref = (await tracking.getAttribute('href')) ?? '';
    expect(trackingHref).toContain(`/tracking/${trackingNumber}`);
    expect(await list.getByRole('link', { name: 'Label PDF' }).first().getAttribute('href')).toMatch(
      /^\/api\/shipping\/shipments\/.+\/label$/,
    );
    await page.screenshot({ path: 'test-results/shipping-seller-order.png' });
    expect(errors).toEqual([]);
    await page.context().close();

    // Anyone with the number: the carrier, the status and the events, newest first.
    const visitor = await newPage(browser, app, undefined, { viewport: { width: 1000, height: 900 } });
    const visitorErrors = watchErrors(visitor);
    await visitor.goto(`/tracking/${encodeURIComponent(trackingNumber)}`);
    await expect.poll(() => visitor.title()).toBe('Track a Parcel | Layerline');
    const result = visitor.getByTestId('tracking-result');
    await result.waitFor({ timeout: 15_000 });
    expect(await result.textContent()).toContain(order.shipments[0]!.carrier);
    const events = visitor.getByTestId('tracking-events').locator('li');
    const known = (await app.testApp.client().get(`/api/tracking/${encodeURIComponent(trackingNumber)}`)).body as {
      events: { description: string; occurredAt: string }[];
    };
    expect(known.events.length).toBeGreaterThan(0);
    expect(await events.count()).toBe(known.events.length);
    const newest = [...known.events].sort((a, b) => Date.parse(b.occurredAt) - Date.parse(a.occurredAt))[0]!;
    expect(await events.first().textContent()).toContain(newest.description);
    await visitor.screenshot({ path: 'test-results/shipping-tracking.png' });

    await visitor.goto('/tracking/NOSUCHNUMBER123');
    await visitor.getByTestId('tracking-unknown').waitFor({ timeout: 10_000 });
    expect(await visitor.getByTestId('tracking-unknown').textContent()).toContain('We do not know this tracking number');
    expect(visitorErrors).toEqual([]);
    await visitor.context().close();
  });
});
