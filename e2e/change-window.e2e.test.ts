import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { product, productVariant, shopConnection } from '../apps/server/src/db/schema.ts';
import { makeUser, newBrowser, newPage, startApp, type Credentials, type RunningApp } from './harness.ts';

/**
 * Issue 24 in a real browser: the change window (Account settings → hold new orders; the order
 * page's "Change address" and "Cancel order" before release, and the reason after) and checkout
 * rates (Connect Store → a Shopify shop's switch and its preview).
 *
 * Variants are written to the database directly (a real product needs designs with quotes, which
 * products.e2e.test.ts covers); so is the shop acting as Shopify (no page makes one: a real
 * Shopify store needs a Shopify plan with carrier-calculated shipping).
 */
let app: RunningApp;
let browser: Browser;
let seller: Credentials;

const ADDRESS = { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', postalCode: '62704', country: 'US' };

beforeAll(async () => {
  app = await startApp();
  browser = await newBrowser();
  seller = await makeUser(app, { role: 'beta', name: 'Window Seller' });
  const db = app.testApp.context.db;
  const [p] = await db.insert(product).values({ ownerId: seller.userId, name: 'Window range' }).returning({ id: product.id });
  await db.insert(productVariant).values({ productId: p!.id, ownerId: seller.userId, name: 'Cube', sku: 'WIN-CUBE' });
  await db.insert(shopConnection).values({
    ownerId: seller.userId,
    platform: 'sandbox',
    externalShopId: `sandbox-e2e-rates-${Date.now()}`,
    name: 'Rates Store',
    settings: { impersonate: 'shopify' },
  });
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function placeOrder(page: Page): Promise<string> {
  const created = await page.request.post('/api/orders/manual', { data: { items: [{ sku: 'WIN-CUBE', quantity: 1 }], shippingAddress: ADDRESS } });
  expect(created.status()).toBe(201);
  return ((await created.json()) as { id: string }).id;
}

describe('the change window', () => {
  it('holds a new order for the hours set; its address is changed and it is cancelled on its page; a released one says why not', async () => {
    const page = await newPage(browser, app, seller, { viewport: { width: 1366, height: 900 } });

    await page.goto('/account-settings');
    const section = page.getByTestId('change-window-section');
    const hours = section.getByLabel('Hours before release');
    await hours.waitFor({ timeout: 20_000 });
    await hours.fill('30');
    await section.getByRole('button', { name: 'Save change window' }).click();
    await section.getByText('The change window is 0 to 24 hours').waitFor();
    await hours.fill('2');
    await section.getByRole('button', { name: 'Save change window' }).click();
    await page.getByText('New orders wait 2 h before release').waitFor();

    const held = await placeOrder(page);
    await page.goto(`/orders?order=${held}`);
    const window = page.getByTestId('change-window');
    await window.waitFor({ timeout: 15_000 });
    expect(await window.textContent()).toContain('you can change the address or cancel at no cost');
    expect(await page.getByTestId('order-status').textContent()).toBe('Received');

    await window.getByRole('button', { name: 'Change address' }).click();
    const form = page.getByRole('form', { name: 'New shipping address' });
    await form.getByLabel('Address line 1').fill('2 New Road');
    await form.getByLabel('Country code').fill('XX');
    await form.getByRole('button', { name: 'Save address' }).click();
    await page.getByRole('alert').filter({ hasText: 'Country' }).waitFor();
    await form.getByLabel('Country code').fill('US');
    await form.getByRole('button', { name: 'Save address' }).click();
    await page.getByText('Shipping address changed', { exact: true }).waitFor();
    await expect.poll(async () => page.locator('address').textContent()).toContain('2 New Road');
    expect(await page.getByTestId('order-timeline').textContent()).toContain('Shipping address changed (was 1 Main St');

    await window.getByLabel('Reason (optional)').fill('Buyer changed their mind');
    await window.getByRole('button', { name: 'Cancel order' }).click();
    await expect.poll(async () => page.getByTestId('order-status').textContent(), { timeout: 15_000 }).toBe('Cancelled');
    expect(await page.getByTestId('order-timeline').textContent()).toContain('Buyer changed their mind');
    expect(await page.getByTestId('change-window').count()).toBe(0);

    // Released at once (0 hours): the page says why it can no longer change.
    await page.goto('/account-settings');
    await page.getByTestId('change-window-section').getByLabel('Hours before release').fill('0');
    await page.getByTestId('change-window-section').getByRole('button', { name: 'Save change window' }).click();
    await page.getByText('New orders are released at once').waitFor();
    const released = await placeOrder(page);
    await page.goto(`/orders?order=${released}`);
    const closed = page.getByTestId('change-window-closed');
    await closed.waitFor({ timeout: 15_000 });
    expect(await closed.textContent()).toMatch(/released to production on .* can no longer be cancelled at no cost/);
    expect(await page.getByRole('button', { name: 'Cancel order' }).count()).toBe(0);
  });
});

describe('checkout rates', () => {
  it('turns a Shopify shop’s checkout rates on, and previews the rates a checkout would get', async () => {
    const page = await newPage(browser, app, seller, { viewport: { width: 1366, height: 900 } });
    await page.goto('/connect-store');
    const panel = page.getByTestId('checkout-rates');
    await panel.waitFor({ timeout: 20_000 });
    // The switch follows the server: it turns on once Shopify (here the sandbox) took the registration.
    const toggle = panel.getByLabel('Rates Store: shipping rates at checkout');
    await toggle.click();
    await page.getByText('Checkout rates on').waitFor();
    await expect.poll(() => toggle.isChecked()).toBe(true);
    await page.getByTestId('checkout-rates-registered').waitFor();
    expect(await page.getByTestId('checkout-rates-registered').textContent()).toContain('gid://shopify/DeliveryCarrierService/');

    const preview = panel.getByRole('form', { name: 'Preview checkout rates' });
    await preview.getByLabel('SKU').fill('WIN-CUBE');
    await preview.getByLabel('Postal code').fill('97201');
    await preview.getByRole('button', { name: 'Preview rates' }).click();
    const table = panel.getByRole('table', { name: 'Previewed rates' });
    await table.waitFor({ timeout: 15_000 });
    expect(await table.locator('tbody tr').count()).toBeGreaterThan(0);
    expect(await table.textContent()).toMatch(/\d+\.\d\d USD/);
    await panel.getByText(/Answered in [\d.]+ ms/).waitFor();

    await preview.getByLabel('SKU').fill('NOT-MINE');
    await preview.getByRole('button', { name: 'Preview rates' }).click();
    await panel.getByText('No rates: No product of yours has the SKU “NOT-MINE”').waitFor({ timeout: 15_000 });

    await toggle.click();
    await page.getByText('Checkout rates off').waitFor();
    await expect.poll(() => toggle.isChecked()).toBe(false);
    expect(await page.getByTestId('checkout-rates-registered').count()).toBe(0);
  });
});
