import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { uploadDesign, type SignedInClient } from '../apps/server/test/test-app.ts';
import { boxStl } from '../apps/server/test/hostile-models.ts';
import { newBrowser, newPage, startApp, type RunningApp } from './harness.ts';

/**
 * Claims in a real browser (issue 24; docs/claims.md): an order printed by the autopilot, shipped by the
 * sandbox carrier and delivered; its seller files a claim with a photo from the order's page and sees it
 * on Claims; an admin looks at the photo and the production record in the queue and decides a reprint;
 * the admin overview counts the claim against its printer.
 */
let app: RunningApp;
let browser: Browser;
let seller: SignedInClient;
let admin: SignedInClient;
let orderId: string;

async function waitFor(probe: () => Promise<boolean>, what: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  app = await startApp({ PAYMENTS_CHARGE_ORDERS: 'true', FARM_TICK_S: '0.2', FARM_AUTOPILOT: 'true', FARM_AUTOPILOT_DELAY_S: '0', SANDBOX_CARRIER_DAY_S: '0.5', TRACKING_POLL_S: '3600' });
  browser = await newBrowser();
  [admin, seller] = await Promise.all([app.testApp.signUp({ role: 'admin', name: 'Claims Admin' }), app.testApp.signUp({ role: 'beta', name: 'Claims Seller' })]);
  expect((await admin.post('/api/admin/printers', { name: 'Sim E2E', buildVolumeMm: { x: 250, y: 250, z: 250 }, nozzleMm: 0.4, connection: { kind: 'simulated', speedFactor: 100_000 } })).status).toBe(201);
  const design = await uploadDesign(seller, boxStl(20, 20, 20), 'box.stl');
  expect((await seller.post('/api/products', { name: 'Claim box', variants: [{ name: 'Box', sku: 'E2E-CLAIM', parts: [{ printConfigId: design.printConfigs[0].id, quantity: 1 }] }] })).status).toBe(201);
  const method = await seller.post('/api/payments/sandbox/payment-methods', { cardNumber: '4242 4242 4242 4242', expMonth: 12, expYear: 2034, cvc: '123' });
  expect((await seller.post('/api/payments/default-payment-method', { paymentMethodId: method.body.paymentMethodId })).status).toBe(200);
  const created = await seller.post('/api/orders/manual', { items: [{ sku: 'E2E-CLAIM', quantity: 1 }], shippingAddress: { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62704', country: 'US' } });
  expect(created.status).toBe(201);
  orderId = created.body.id;
  await waitFor(async () => (await admin.get(`/api/orders/${orderId}`)).body.status === 'packed', 'the packed order');
  expect((await admin.post(`/api/admin/shipping/orders/${orderId}/labels`, {})).status).toBe(200);
  await waitFor(async () => {
    await app.testApp.context.shipping.trackingPass(0, 60_000);
    return (await seller.get(`/api/orders/${orderId}`)).body.status === 'delivered';
  }, 'the delivered order');
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe('claims', () => {
  it('a seller files a claim with a photo from the order page and sees it on Claims', async () => {
    const page = await newPage(browser, app, seller, { viewport: { width: 1366, height: 900 } });
    await page.goto(`/orders?order=${orderId}`);
    await page.getByRole('button', { name: 'File a claim' }).click();
    const dialog = page.getByRole('dialog', { name: /File a claim on order/ });
    await dialog.getByLabel('What is wrong').click();
    await page.getByRole('option', { name: 'Arrived damaged' }).click();
    await dialog.getByRole('checkbox').first().check();
    await dialog.getByLabel('Describe the problem').fill('The box arrived crushed');
    // Submitting without a photo is refused in the form, before anything is sent.
    await dialog.getByRole('button', { name: 'File claim' }).click();
    await dialog.getByRole('alert').getByText('Add at least one photo').waitFor();
    const photo = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#2e7d32' } }).png().toBuffer();
    await dialog.getByLabel('Photos').setInputFiles({ name: 'crushed.png', mimeType: 'image/png', buffer: photo });
    await dialog.getByRole('button', { name: 'File claim' }).click();
    await page.getByText('Claim filed: we will look at it').waitFor();
    await page.getByTestId('order-timeline').getByText(/Claim filed \(arrived damaged\)/).waitFor();

    await page.goto('/claims');
    const row = page.getByTestId('claim-row');
    await row.waitFor();
    expect(await row.textContent()).toContain('Waiting for review');
    expect(await row.textContent()).toContain('The box arrived crushed');
    await page.context().close();
  });

  it('an admin sees the photo and the production record in the queue, decides a reprint, and the overview counts it', async () => {
    const page = await newPage(browser, app, admin, { viewport: { width: 1440, height: 900 } });
    await page.goto('/admin-claims');
    const card = page.getByTestId('claim-card');
    await card.waitFor();
    expect(await card.textContent()).toContain('The box arrived crushed');
    const record = card.getByRole('table', { name: 'Production record' });
    expect(await record.textContent()).toContain('Sim E2E');
    expect(await record.textContent()).toContain('autopilot');
    const image = card.getByRole('img', { name: 'Photo 1 of the claim' });
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(320);
    // Declining needs a reason: refused in the form.
    await card.getByRole('button', { name: 'Decline' }).click();
    await card.getByRole('alert').getByText('Give the seller a reason').waitFor();
    await card.getByLabel(/Note to the seller/).fill('Packed in a stronger box this time');
    await card.getByRole('button', { name: 'Reprint (free)' }).click();
    await page.getByText(/: reprint on its way/).waitFor();
    await page.getByTestId('claims-queue-empty').waitFor();

    await page.goto('/admin');
    const panel = page.getByTestId('admin-claims-stats');
    await panel.getByRole('table', { name: 'Claims per printer' }).getByText('Sim E2E').waitFor();
    expect(await panel.textContent()).toContain('1 claims, 0 waiting for a decision');
    await page.context().close();

    const seen = await seller.get('/api/claims');
    expect(seen.body.items[0]).toMatchObject({ status: 'reprint', decisionNote: 'Packed in a stronger box this time' });
  });
});
