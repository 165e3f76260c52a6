import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { fulfillmentRecord } from '../apps/server/src/db/schema.ts';
import { searchTextOf } from '../apps/server/src/modules/fulfillment/fulfillment-repository.ts';
import { makeUser, newBrowser, newPage, startApp, type Credentials, type RunningApp } from './harness.ts';

/**
 * The fulfilment history in a real browser: a seller sees their shipments on /fulfillment-history
 * (with the monthly chart), narrows them by search and downloads the view as CSV; an admin sees
 * every seller's on /admin-fulfillment-history, records a shipment by hand for a seller and filters
 * by that seller. Records are written to the database directly, as the shipping module writes them
 * with each label.
 */
let app: RunningApp;
let browser: Browser;
let seller: Credentials;
let other: Credentials;
let admin: Credentials;

const DAY = 24 * 3600 * 1000;

async function seed(ownerId: string, prefix: string, count: number): Promise<void> {
  await app.testApp.context.db.insert(fulfillmentRecord).values(
    Array.from({ length: count }, (_, i) => {
      const orderNumber = `${prefix}-${1001 + i}`;
      const buyerName = ['Ada Lovelace', 'Grace Hopper', 'Kenji Nakamura'][i % 3]!;
      const sku = `SKU-${prefix}-${i}`;
      const trackingNumber = `1Z${prefix}00000${i}`;
      const createdAt = new Date(Date.now() - (i * 20 + 1) * DAY);
      return {
        ownerId,
        channel: 'etsy',
        orderNumber,
        buyerName,
        items: [{ sku, title: 'Desk cube', quantity: 1 }],
        printCostCents: 1250,
        packagingCents: 80,
        shippingCents: 595 + i,
        totalCents: 1925 + i,
        carrier: 'USPS',
        service: 'Ground Advantage',
        trackingNumber,
        trackingUrl: `https://tools.usps.com/go/TrackConfirmAction?tLabels=${trackingNumber}`,
        shippedAt: createdAt,
        createdAt,
        searchText: searchTextOf({ orderNumber, buyerName, skus: [sku], trackingNumber }),
      };
    }),
  );
}

beforeAll(async () => {
  app = await startApp();
  browser = await newBrowser();
  seller = await makeUser(app, { name: 'History Seller' });
  other = await makeUser(app, { name: 'Other Seller' });
  admin = await makeUser(app, { role: 'admin', name: 'History Admin' });
  await seed(seller.userId, 'SELL', 5);
  await seed(other.userId, 'OTHR', 2);
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe('fulfilment history pages', () => {
  it('a seller sees their shipments and the chart, narrows them by search and downloads the view as CSV', async () => {
    const page = await newPage(browser, app, seller, { viewport: { width: 1440, height: 900 } });
    await page.goto('/fulfillment-history');
    const rows = page.getByTestId('fulfillment-row');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(5);
    const table = (await page.getByRole('table', { name: 'Fulfilment history' }).textContent()) ?? '';
    expect(table).toContain('SELL-1001');
    expect(table).not.toContain('OTHR-');
    expect(table).toContain('$19.25');
    await page.getByTestId('monthly-chart').waitFor();
    expect(await page.getByTestId('fulfillment-total').textContent()).toBe('5 shipments');

    await page.getByTestId('fulfillment-search').fill('1zsell000003');
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(1);
    expect(await rows.first().textContent()).toContain('SELL-1004');
    await expect.poll(() => page.getByTestId('fulfillment-total').textContent()).toBe('1 shipment');
    await expect.poll(() => page.getByRole('link', { name: '1ZSELL000003' }).getAttribute('href')).toContain('tLabels=1ZSELL000003');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^fulfillment-history-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = fs.readFileSync((await download.path())!, 'utf8');
    const lines = csv.split('\r\n').filter(Boolean);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('SELL-1004');

    await page.getByTestId('fulfillment-search').fill('nothing like this');
    await page.getByText('No shipment matches these filters.', { exact: false }).waitFor({ timeout: 10_000 });
  });

  it('an admin sees every seller, records a shipment for one, and filters by that seller', async () => {
    const page = await newPage(browser, app, admin, { viewport: { width: 1440, height: 900 } });
    await page.goto('/admin-fulfillment-history');
    const rows = page.getByTestId('fulfillment-row');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(7);
    const table = (await page.getByRole('table', { name: 'Fulfilment history' }).textContent()) ?? '';
    expect(table).toContain(seller.email);
    expect(table).toContain(other.email);

    await page.getByRole('button', { name: 'Record a shipment' }).click();
    const dialog = page.getByRole('dialog', { name: 'Record a shipment' });
    await dialog.getByLabel('Seller').fill(other.email);
    await page.getByRole('option', { name: other.email }).click({ timeout: 10_000 });
    await dialog.getByLabel('Order number').fill('WALK-IN-7');
    await dialog.getByLabel('Buyer').fill('Maya Thompson');
    await dialog.getByLabel('SKU').fill('SKU-HAND');
    await dialog.getByLabel('Shipping ($)').fill('6.90');
    await dialog.getByLabel('Tracking number').fill('1ZWALKIN7');
    await dialog.getByRole('button', { name: 'Record shipment' }).click();
    await page.getByText(`Shipment WALK-IN-7 recorded for ${other.email}`).waitFor({ timeout: 10_000 });
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(8);

    await page.getByLabel('Seller (all when empty)').fill(other.email);
    await page.getByRole('option', { name: other.email }).click({ timeout: 10_000 });
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(3);
    const filtered = (await page.getByRole('table', { name: 'Fulfilment history' }).textContent()) ?? '';
    expect(filtered).toContain('WALK-IN-7');
    expect(filtered).toContain('$6.90');
    expect(filtered).not.toContain('SELL-');
  });
});
