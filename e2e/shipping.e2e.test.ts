import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { DEMO_PRINTERS } from '../apps/server/src/demo-data.ts';
import { uniqueEmail, uploadDesign, type SignedInClient } from '../apps/server/test/test-app.ts';
import { newBrowser, newPage, startApp, type Credentials, type RunningApp } from './harness.ts';

/**
 * The shipping pages (issue 12, docs/shipping.md) in a real browser against the real server, the
 * built-in sandbox carrier and the demo farm's simulated printers (the autopilot prints, passes QC and
 * packs): a seller's ShipStation keys refused by ShipStation (an in-process fake answering 401) are
 * shown refused and nothing is stored; the seller connects Shippo (an in-process fake of its OAuth and
 * orders: the authorize page sends the browser straight back with a code), lists their Shippo orders
 * and disconnects; an admin creates a shipping profile with two parcel sizes and
 * assigns it to the seller, who keeps the sandbox carrier and sees the profile; at the packing station
 * the admin buys the packed order's labels (one per parcel: the pair of cubes fills two of the small
 * boxes), sees the tracking and opens a label PDF; the seller sees the shipments in the order dialog;
 * the public tracking page shows the parcel's events and says when it does not know a number.
 */
const CUBE = fs.readFileSync(path.resolve(import.meta.dirname, '../../shared/models/ps-20mm_cube.obj'));
const PRINT_MS = 3_000;
const GOOD_V2_KEY = 'ss-v2-key-4f9e8d7c6b5aWXYZ';

let app: RunningApp;
let browser: Browser;
let shipStation: http.Server;
let shipStationCalls = 0;
let shippo: http.Server;
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
  // ShipStation as it answers keys it does not know, and one v2 key it does (with one carrier).
  shipStation = http.createServer((request, response) => {
    shipStationCalls += 1;
    request.resume();
    if (request.headers['api-key'] === GOOD_V2_KEY && request.url?.startsWith('/v2/carriers')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ carriers: [{ carrier_id: 'se-1001' }] }));
      return;
    }
    response.writeHead(401, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ Message: 'Authorization has been denied for this request.' }));
  });
  await new Promise<void>((resolve) => shipStation.listen(0, '127.0.0.1', resolve));
  const fakeUrl = `http://127.0.0.1:${(shipStation.address() as AddressInfo).port}`;

  // Shippo's OAuth as a seller who approves at once, and one order in their Shippo account.
  shippo = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://shippo.fake');
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (request.method === 'GET' && url.pathname === '/oauth/authorize') {
        const back = new URL('/shippo-oauth-redirect', app.baseUrl);
        back.search = new URLSearchParams({ code: 'fake-shippo-code', state: url.searchParams.get('state') ?? '' }).toString();
        response.writeHead(302, { location: back.toString() });
        response.end();
      } else if (request.method === 'POST' && url.pathname === '/oauth/access_token') {
        if (new URLSearchParams(body).get('code') === 'fake-shippo-code') json(200, { access_token: 'oauth.fake-token', token_type: 'bearer', scope: '*' });
        else json(400, { error: 'invalid_grant' });
      } else if (request.method === 'GET' && url.pathname.replace(/\/$/, '') === '/orders') {
        json(200, {
          next: null,
          results: [
            {
              object_id: 'shippo-order-1',
              order_number: '#1001',
              order_status: 'PAID',
              placed_at: '2026-11-01T10:00:00Z',
              to_address: { name: 'Lee Park', country: 'US' },
              line_items: [{}, {}],
            },
          ],
        });
      } else json(404, { detail: 'Not found' });
    });
  });
  await new Promise<void>((resolve) => shippo.listen(0, '127.0.0.1', resolve));
  const shippoUrl = `http://127.0.0.1:${(shippo.address() as AddressInfo).port}`;

  app = await startApp({
    FARM_TICK_S: '1',
    FARM_AUTOPILOT: 'true',
    FARM_AUTOPILOT_DELAY_S: '0',
    SHIPPING_SANDBOX: 'true',
    SHIPPING_AUTO_BUY: 'false',
    // A sandbox day is a minute (the parcel is still travelling when the test looks) and tracking is read every second.
    SANDBOX_CARRIER_DAY_S: '60',
    TRACKING_POLL_S: '1',
    SHIPSTATION_V1_URL: fakeUrl,
    SHIPSTATION_V2_URL: fakeUrl,
    SHIPPO_CLIENT_ID: 'layerline-test',
    SHIPPO_CLIENT_SECRET: 'layerline-test-secret',
    SHIPPO_OAUTH_URL: shippoUrl,
    SHIPPO_API_URL: shippoUrl,
  });
  browser = await newBrowser();
  adminClient = await app.testApp.signUp({ role: 'admin', name: 'Ship Admin', email: uniqueEmail('ship-admin') });
  sellerClient = await app.testApp.signUp({ role: 'seller', name: 'Ship Seller', email: uniqueEmail('ship-seller') });
  admin = credentials(adminClient);
  seller = credentials(sellerClient);

  // The seller's design (the 20 mm cube) and a product of two of them.
  const design = (await uploadDesign(sellerClient, CUBE, 'ps-20mm_cube.obj')) as { printConfigs: { id: string; quote: { printSeconds: number } }[] };
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
  await new Promise((resolve) => shippo?.close(resolve));
});

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

describe('shipping', () => {
  it('refuses ShipStation keys ShipStation refuses and stores nothing; keeps good ones, showing their end only', async () => {
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

    // A v2 key ShipStation knows: stored, only its last four characters shown, with the webhook to set up.
    await section.getByRole('combobox', { name: 'API version' }).click();
    await page.getByRole('option', { name: /ShipStation API \(v2\)/ }).click();
    expect(await section.getByLabel('API secret').count()).toBe(0);
    await section.getByLabel('API key').fill(GOOD_V2_KEY);
    await section.getByRole('button', { name: 'Save keys' }).click();
    await expect
      .poll(() => section.getByTestId('shipstation-saved-keys').textContent(), { timeout: 15_000 })
      .toContain('Keys saved: …WXYZ (v2 API)');
    expect(await section.getByTestId('shipstation-refusal').count()).toBe(0);
    expect(await section.getByLabel('API key').inputValue()).toBe('');
    expect(await page.content()).not.toContain(GOOD_V2_KEY);
    expect(await section.getByTestId('shipstation-webhook-url').textContent()).toMatch(/\/api\/webhooks\/shipstation\//);
    expect(await choice.locator('input').isDisabled()).toBe(false);
    // Removed again: the seller stays on the sandbox carrier.
    await section.getByRole('button', { name: 'Remove keys' }).click();
    await page.getByRole('dialog', { name: 'Remove your ShipStation keys?' }).getByRole('button', { name: 'Remove' }).click();
    await expect
      .poll(() => section.getByTestId('shipstation-saved-keys').textContent(), { timeout: 10_000 })
      .toContain('No ShipStation keys saved.');
    expect((await sellerClient.get('/api/shipstation/keys')).body.configured).toBe(false);
    await page.screenshot({ path: 'test-results/shipping-account-settings-refused.png', fullPage: true });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('connects Shippo through its OAuth, lists the Shippo orders and disconnects', async () => {
    // Someone who is not signed in is asked to sign in; the code is never shown.
    const visitor = await newPage(browser, app);
    await visitor.goto('/shippo-oauth-redirect?code=secret-oauth-code&state=some-state');
    const visitorStatus = visitor.getByTestId('shippo-status');
    await visitorStatus.waitFor();
    expect(await visitorStatus.textContent()).toContain('Sign in to finish connecting Shippo');
    expect(await visitor.content()).not.toContain('secret-oauth-code');
    expect(await visitor.getByRole('link', { name: 'Sign in' }).getAttribute('href')).toBe('/login');
    await visitor.context().close();

    const page = await newPage(browser, app, seller, { viewport: { width: 1280, height: 1000 } });
    const errors = watchErrors(page);
    await page.goto('/account-settings');
    const section = page.getByTestId('shippo-section');
    await section.getByTestId('shippo-connection-status').waitFor();
    expect(await section.getByTestId('shippo-connection-status').textContent()).toBe('Not connected');
    expect(await page.getByTestId('shipping-integration-shippo').textContent()).toContain('Connect your Shippo account below first.');
    // To Shippo and straight back (the fake approves at once): the code is exchanged once.
    await section.getByRole('button', { name: 'Connect Shippo' }).click();
    await page.waitForURL('**/shippo-oauth-redirect?**');
    const status = page.getByTestId('shippo-status');
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toContain('Your Shippo account is connected');
    expect(await page.content()).not.toContain('fake-shippo-code');
    const returnUrl = page.url();
    await page.getByRole('link', { name: 'Back to Account settings' }).click();
    await page.waitForURL('**/account-settings');
    await expect.poll(() => section.getByTestId('shippo-connection-status').textContent(), { timeout: 10_000 }).toBe('Connected');
    expect(await page.getByTestId('shipping-integration-shippo').locator('input').isDisabled()).toBe(false);
    await section.getByRole('button', { name: 'Show my Shippo orders' }).click();
    const orders = section.getByTestId('shippo-orders');
    await orders.waitFor({ timeout: 10_000 });
    const ordersText = (await orders.textContent()) ?? '';
    expect(ordersText).toContain('#1001');
    expect(ordersText).toContain('Lee Park (US)');
    await page.screenshot({ path: 'test-results/shipping-shippo-connected.png', fullPage: true });

    // The same return link again: its state was used.
    await page.goto(returnUrl);
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toContain('Shippo could not be connected');

    await page.goto('/account-settings');
    await section.getByRole('button', { name: 'Disconnect' }).click();
    await page.getByRole('dialog', { name: 'Disconnect Shippo?' }).getByRole('button', { name: 'Disconnect' }).click();
    await expect.poll(() => section.getByTestId('shippo-connection-status').textContent(), { timeout: 10_000 }).toBe('Not connected');
    expect((await sellerClient.get('/api/shippo/connection')).body.connected).toBe(false);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('an admin creates a shipping profile with two parcel sizes and assigns it to the seller', async () => {
    const page = await newPage(browser, app, admin, { viewport: { width: 1400, height: 1000 } });
    const errors = watchErrors(page);
    await page.goto('/shipping-profiles');
    await expect.poll(() => page.title(), { timeout: 10_000 }).toBe('Shipping Profiles | Layerline');
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
    await expect.poll(() => ours.textContent(), { timeout: 10_000 }).toContain('1 seller');
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
    // The tracking poll has read the carrier's first event ("label created").
    type Stored = { shipments: { trackingNumber: string; carrier: string; trackingStatus: string | null }[] };
    await expect
      .poll(async () => ((await sellerClient.get(`/api/orders/${orderId}`)).body as Stored).shipments[0]!.trackingStatus, {
        timeout: 30_000,
      })
      .toBeTruthy();
    const order = (await sellerClient.get(`/api/orders/${orderId}`)).body as Stored;
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
    expect(text).toContain(order.shipments[0]!.trackingStatus);
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
    await expect.poll(() => visitor.title(), { timeout: 10_000 }).toBe('Track a Parcel | Layerline');
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

  it('an admin voids one parcel’s label from the order and buys that parcel a new one', async () => {
    const page = await newPage(browser, app, admin, { viewport: { width: 1400, height: 1000 } });
    const errors = watchErrors(page);
    await page.goto(`/admin-orders?order=${orderId}`);
    const panel = page.getByRole('dialog').getByTestId('shipping-panel');
    await panel.waitFor({ timeout: 15_000 });
    const shipments = panel.getByTestId('shipment');
    await expect.poll(() => shipments.count(), { timeout: 10_000 }).toBe(2);
    const second = shipments.nth(1);
    const voidedNumber = (await second.getByTestId('tracking-number').textContent()) ?? '';
    await second.getByRole('button', { name: 'Void' }).click();
    const confirm = page.getByRole('dialog', { name: 'Void this label?' });
    expect(await confirm.textContent()).toContain(voidedNumber);
    await confirm.getByRole('button', { name: 'Void label' }).click();
    await page.getByTestId('toast').getByText(`Label ${voidedNumber} voided`).waitFor({ timeout: 15_000 });
    await expect.poll(() => page.getByTestId('order-status').textContent(), { timeout: 10_000 }).toBe('Packed');

    // The plan again: the first parcel keeps its label, the second gets a new one.
    const rates = panel.getByTestId('shipping-rates');
    await rates.waitFor({ timeout: 15_000 });
    expect(await panel.getByTestId('parcel-plan').first().textContent()).toContain('Has its label');
    await rates.getByRole('button', { name: 'Buy label' }).click();
    await expect.poll(() => shipments.count(), { timeout: 15_000 }).toBe(3);
    await expect.poll(() => page.getByTestId('order-status').textContent(), { timeout: 10_000 }).toBe('Shipped');
    const stored = (await adminClient.get(`/api/orders/${orderId}`)).body as {
      shipments: { status: string; parcelIndex: number; attempt: number; trackingNumber: string }[];
    };
    expect(stored.shipments.map((s) => [s.parcelIndex, s.attempt, s.status === 'voided']).sort()).toEqual([
      [0, 1, false],
      [1, 1, true],
      [1, 2, false],
    ]);
    expect(await panel.textContent()).toContain('attempt 2');
    await page.screenshot({ path: 'test-results/shipping-void-rebuy.png', fullPage: true });
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
