import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { product, productVariant } from '../apps/server/src/db/schema.ts';
import { marketplaceOrder } from '../apps/server/test/orders-fixtures.ts';
import { makeUser, newBrowser, newPage, startApp, type Credentials, type RunningApp } from './harness.ts';

/**
 * The seller's own order API in a real browser: a beta seller creates an API key on
 * /connect-store (shown once, then only its prefix), the key places an order, and the seller
 * places a manual order on /submit-order with inline address validation, and sees what their
 * webhook receiver answered, with a resend.
 */
let app: RunningApp;
let browser: Browser;
let seller: Credentials;

beforeAll(async () => {
  app = await startApp({ ALLOW_LOCAL_WEBHOOK_RECEIVERS: 'true' }); // the webhook receivers are on 127.0.0.1
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
  it('a seller taken out of the beta finds their key and webhook on /account-settings, and revokes and removes them', async () => {
    const leaver = await app.testApp.signUp({ role: 'beta', name: 'Leaving Seller' });
    const created = await leaver.post('/api/api-keys', { name: 'Old storefront' });
    expect(created.status).toBe(201);
    const key = created.body.key as string;
    expect((await leaver.request('PUT', '/api/webhook-endpoint', { url: 'http://127.0.0.1:9/old-hooks' }, {})).status).toBe(200);
    await app.testApp.context.users.setFlags(leaver.userId, { isBetaTester: false });
    const list = () => fetch(`${app.baseUrl}/api/v1/orders`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
    expect(await list()).toBe(403);

    const page = await newPage(browser, app, leaver);
    await page.goto('/account-settings');
    const section = page.getByTestId('order-api-credentials');
    await section.waitFor({ timeout: 20_000 });
    const keys = section.getByTestId('api-keys-card');
    expect(await keys.getByTestId('api-key-row').textContent()).toContain(key.slice(0, 12));
    expect(await keys.getByRole('button', { name: 'Create key' }).count()).toBe(0); // creating needs the beta
    await keys.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await keys.getByTestId('api-key-row').getByText('Revoked', { exact: true }).waitFor({ timeout: 15_000 });
    expect(await list()).toBe(401);

    const hooks = section.getByTestId('webhook-endpoint-summary');
    expect(await hooks.textContent()).toContain('http://127.0.0.1:9/old-hooks');
    await hooks.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await hooks.waitFor({ state: 'detached', timeout: 15_000 });
    expect((await leaver.get('/api/webhook-endpoint')).status).toBe(404);
    await page.context().close();
  });

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

  it('shows each webhook delivery with the receiver’s answer, and resends a refused one', async () => {
    // The seller's receiver: refuses the first event (400), accepts everything after.
    const statuses = [400];
    const received: string[] = [];
    const receiver = http.createServer((request, response) => {
      received.push(String(request.headers['webhook-id']));
      request.resume();
      request.on('end', () => {
        response.statusCode = statuses.shift() ?? 200;
        response.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const page = await newPage(browser, app, seller);
      await page.goto('/connect-store');
      const hooks = page.getByTestId('webhook-endpoint-card');
      const url = hooks.getByLabel('Endpoint URL');
      await url.waitFor({ timeout: 20_000 });
      await url.fill(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`);
      await hooks.getByRole('button', { name: /Save URL|Update URL/ }).click();
      await hooks.getByText('No deliveries yet', { exact: false }).waitFor({ timeout: 15_000 });

      await app.testApp.context.orderIngestion.ingest({
        ownerId: seller.userId,
        channel: `api:${seller.userId}`,
        shopId: null,
        platform: 'api',
        order: marketplaceOrder('HOOK-WEB-1', ['CUBE-RED']),
        actor: { kind: 'marketplace', id: null },
      });
      // Opened again: the list shows the event (queued or already answered), polls while it is pending,
      // and the refusal shows with the receiver's status.
      await page.reload();
      const row = hooks.getByTestId('webhook-delivery').filter({ hasText: 'HOOK-WEB-1' });
      await row.getByText('Refused').waitFor({ timeout: 20_000 });
      expect(await row.textContent()).toContain('answered 400');
      expect(await row.textContent()).toContain('New order, accepted');

      await row.getByRole('button', { name: /Resend/ }).click();
      await row.getByText('Delivered').waitFor({ timeout: 20_000 });
      expect(await row.textContent()).toContain('HTTP 200 · 2 attempts');
      expect(received).toHaveLength(2);
      expect(received[1]).toBe(received[0]);
      await page.context().close();
    } finally {
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
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
      cursor: undefined,
      limit: 10,
    });
    const manual = orders.items.find((o) => o.platform === 'manual');
    expect(manual).toMatchObject({ status: 'accepted', customerName: 'Ada Buyer' });
    expect(href).toBe(`/orders?order=${manual!.id}`);
    await page.context().close();
  });
});
