import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { product, productVariant } from '../apps/server/src/db/schema.ts';
import { SANDBOX_MATCHABLE_SKUS } from '../apps/server/src/integrations/sandbox-shop/sandbox-connector.ts';
import { makeUser, newBrowser, newPage, startApp, type Credentials, type RunningApp } from './harness.ts';

/**
 * The shops-and-orders journey in a real browser: a beta seller with a product connects the
 * sandbox shop on /connect-store → its listings are imported and linked by SKU (/link-listings)
 * → an order arrives ("Simulate an order") → it shows on /orders with its timeline, and on the
 * dashboard's recent orders.
 *
 * The product's variants are written to the database directly: a real product needs designs
 * with quotes, which products.e2e.test.ts covers.
 */
let app: RunningApp;
let browser: Browser;
let seller: Credentials;

beforeAll(async () => {
  app = await startApp();
  browser = await newBrowser();
  seller = await makeUser(app, { role: 'beta', name: 'Journey Seller' });
  const db = app.testApp.context.db;
  const [p] = await db
    .insert(product)
    .values({ ownerId: seller.userId, name: 'Sandbox range' })
    .returning({ id: product.id });
  await db
    .insert(productVariant)
    .values(
      SANDBOX_MATCHABLE_SKUS.map((sku) => ({ productId: p!.id, ownerId: seller.userId, name: sku, sku })),
    );
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe('connect the sandbox shop → listings → an order with its timeline', () => {
  it('runs the whole journey', async () => {
    const page = await newPage(browser, app, seller, { viewport: { width: 1366, height: 900 } });

    await page.goto('/connect-store');
    await page.getByRole('button', { name: 'Connect sandbox shop' }).click({ timeout: 20_000 });
    const shop = page.getByTestId('connected-shop');
    await shop.waitFor({ timeout: 15_000 });
    await expect.poll(async () => shop.textContent()).toContain('7 listings');

    await page.goto('/link-listings');
    const rows = page.getByTestId('listing-row');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(7);
    await expect.poll(() => page.getByText('by SKU').count()).toBe(6);
    await page.getByRole('button', { name: 'Unmatched inbox' }).click();
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('LL-MYSTERY-BOX');

    await page.goto('/connect-store');
    await page.getByRole('button', { name: 'Simulate an order' }).click({ timeout: 15_000 });
    await page.getByText('A new order arrived from the sandbox shop').waitFor({ timeout: 15_000 });

    await page.goto('/orders');
    const orderRows = page.getByTestId('order-row');
    await expect.poll(() => orderRows.count(), { timeout: 15_000 }).toBe(1);
    expect(await orderRows.first().textContent()).toContain('Accepted');
    await orderRows.first().getByRole('link').click();
    await expect.poll(() => new URL(page.url()).searchParams.get('order')).toBeTruthy();
    const timeline = page.getByTestId('order-timeline');
    await timeline.waitFor({ timeout: 15_000 });
    const text = (await timeline.textContent()) ?? '';
    expect(text).toContain('Received');
    expect(text).toContain('Accepted');
    expect(await page.getByTestId('order-status').textContent()).toBe('Accepted');
    // Back closes the detail.
    await page.goBack();
    await expect.poll(() => page.getByTestId('order-timeline').count()).toBe(0);

    await page.goto('/dashboard');
    const recent = page.getByTestId('recent-orders');
    await recent.waitFor({ timeout: 15_000 });
    await expect.poll(async () => recent.textContent()).toContain('Accepted');
    await recent.getByRole('link', { name: /SBX-SIM-/ }).click();
    await page.getByTestId('order-timeline').waitFor({ timeout: 15_000 });
    await page.context().close();
  }, 90_000);
});

describe('/orders pages with a cursor', () => {
  it('walks Next and Previous through a seller’s orders, and a filter starts again at page 1', async () => {
    const busy = await makeUser(app, { role: 'beta', name: 'Paging Seller' });
    for (let i = 0; i < 30; i++) {
      await app.testApp.context.orderIngestion.ingest({
        ownerId: busy.userId,
        channel: `e2e-paging:${busy.userId}`,
        shopId: null,
        platform: 'api',
        actor: { kind: 'marketplace', id: null },
        order: {
          externalId: `PAGE-${String(i).padStart(2, '0')}`,
          note: '',
          placedAt: new Date(Date.UTC(2025, 4, 1, 12, i)),
          customerName: i === 3 ? 'Ottilie Quasthoff' : 'Maya Thompson',
          shippingAddress: { name: 'Maya Thompson', company: '', line1: '1 Main St', line2: '', city: 'Portland', region: 'OR', postalCode: '97201', country: 'US', phone: '', email: '' },
          currency: 'USD',
          totalCents: 1000,
          cancelled: false,
          items: [{ externalItemId: '1', sku: 'E2E-UNLINKED', title: 'Thing', quantity: 1, unitPriceCents: 1000 }],
        },
      });
    }
    const page = await newPage(browser, app, busy, { viewport: { width: 1366, height: 900 } });
    await page.goto('/orders');
    const rows = page.getByTestId('order-row');
    const pager = page.getByRole('navigation', { name: 'Pages of orders' });
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(25);
    // Newest placed first.
    expect(await rows.first().textContent()).toContain('PAGE-29');
    await pager.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => rows.count()).toBe(5);
    expect(await pager.textContent()).toContain('Page 2');
    expect(await rows.first().textContent()).toContain('PAGE-04');
    expect(await pager.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);
    await pager.getByRole('button', { name: 'Previous' }).click();
    await expect.poll(() => rows.count()).toBe(25);
    expect(await rows.first().textContent()).toContain('PAGE-29');
    await pager.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => rows.count()).toBe(5);
    // A search starts again at the first page.
    await page.getByLabel('Search order, buyer or SKU').fill('quasthoff');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('PAGE-03');
    expect(await pager.count()).toBe(0);
    await page.context().close();
  }, 90_000);
});
