import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { product, productVariant } from '../apps/server/src/db/schema.ts';
import { makeUser, newBrowser, newPage, startApp, type Credentials, type RunningApp } from './harness.ts';

/**
 * The seller's own order API in a real browser: a beta seller creates an API key on
 * /connect-store (shown once, then only its prefix), the key places an order, and the seller
 * places a manual order on /submit-order with inline address validation.
 */
let app: RunningApp;
let browser: Browser;
let seller: Credentials;

beforeAll(async () => {
  app = await startApp();
  browser = await newBrowser();
  seller = await makeUser(app, { role: 'beta', name: 'API Seller' });
  const db = app.testApp.context.db;
  const [p] = await db.insert(product).values({ ownerId: seller.userId, name: 'Desk Cube' }).returning({ id: product.id });
  await db.insert(productVariant).values({ productId: p!.id, ownerId: seller.userId, name: 'Red', sku: 'CUBE-RED' });
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe('order API and manual orders', () => {
  it('creates an API key in the panel, shows it once, and the key places an order', async () => {
    const page = await newPage(browser, app, seller);
    await page.goto('/connect-store');
    const panel = page.getByTestId('api-keys-card');
    await panel.waitFor({ timeout: 20_000 });
    await panel.getByLabel('Key name').fill('My storefront');
    await panel.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-api-key-value').textContent({ timeout: 15_000 }))!.trim();
    expect(key).toMatch(/^ll_live_[A-Za-z0-9_-]{43}$/);
    await expect.poll(() => panel.getByTestId('api-key-row').count()).toBe(1);
    expect(await panel.getByTestId('api-key-row').textContent()).toContain(key.slice(0, 12));

    const response = await fetch(`${app.baseUrl}/api/v1/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        externalId: 'WEB-1',
        items: [{ sku: 'CUBE-RED', quantity: 1 }],
        shippingAddress: { name: 'Ada', line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' },
      }),
    });
    expect(response.status).toBe(201);

    // Once dismissed or reloaded, the key is gone for good: only its prefix is listed.
    await page.reload();
    await panel.getByTestId('api-key-row').first().waitFor();
    expect(await page.getByTestId('new-api-key').count()).toBe(0);
    expect(await page.content()).not.toContain(key.slice(12));

    // The webhook endpoint: its signing secret is shown once, right after it is set.
    const hooks = page.getByTestId('webhook-endpoint-card');
    await hooks.getByLabel('Endpoint URL').fill('http://127.0.0.1:9/hooks');
    await hooks.getByRole('button', { name: 'Save URL' }).click();
    expect((await page.getByTestId('webhook-secret-value').textContent({ timeout: 15_000 }))!.trim()).toMatch(/^whsec_/);
    await hooks.getByRole('button', { name: 'Rotate secret' }).waitFor();
    await page.context().close();
  });

  it('submits a manual order, with address errors shown under their fields', async () => {
    const page = await newPage(browser, app, seller);
    await page.goto('/submit-order');
    await page.getByRole('combobox', { name: /Product/ }).click({ timeout: 20_000 });
    await page.getByRole('option', { name: /Desk Cube.*CUBE-RED/ }).click();
    await page.getByTestId('line-quantity').fill('2');

    await page.getByRole('button', { name: 'Place order' }).click();
    await page.getByText('Recipient name is required').waitFor();
    await page.getByText('Street address is required').waitFor();

    await page.getByLabel('Recipient name').fill('Ada Buyer');
    await page.getByLabel('Street address').fill('1 Main St');
    await page.getByLabel('City').fill('Springfield');
    await page.getByLabel('Postal code').fill('12345');
    await page.getByLabel(/Country/).fill('usa');
    await page.getByRole('button', { name: 'Place order' }).click();
    await page.getByText('Country must be a two-letter ISO code like US').waitFor();
    await page.getByLabel(/Country/).fill('us');
    await page.getByLabel('Note for the print farm (optional)').fill('Gift wrap, please');
    await page.getByRole('button', { name: 'Place order' }).click();

    const placed = page.getByTestId('order-placed');
    await placed.waitFor({ timeout: 15_000 });
    expect(await placed.textContent()).toMatch(/Order M-[0-9A-Z]{10} is placed/);
    await page.getByTestId('toast-region').getByText(/Order M-[0-9A-Z]{10} placed/).waitFor();
    const href = await placed.getByRole('link', { name: 'View the order' }).getAttribute('href');
    expect(href).toMatch(/^\/orders\?order=[0-9a-f-]{36}$/);

    const orders = await app.testApp.context.orders.listForOwner(seller.userId, {
      status: null,
      search: '',
      from: null,
      to: null,
      page: 1,
      limit: 10,
    });
    const manual = orders.items.find((o) => o.platform === 'manual');
    expect(manual).toMatchObject({ status: 'accepted', customerName: 'Ada Buyer' });
    expect(href).toBe(`/orders?order=${manual!.id}`);
    await page.context().close();
  });
});
