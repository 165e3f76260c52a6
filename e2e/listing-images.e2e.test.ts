import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { detectPrusaSlicer } from '../apps/server/src/integrations/prusa-slicer/prusa-slicer.ts';
import { makeUser, newBrowser, newPage, startApp, type Credentials, type RunningApp } from './harness.ts';

/**
 * Listing images in a real browser (issue 24, point 5): a seller's product whose configuration was
 * sliced exactly (PrusaSlicer, the real queue) gets its renders; the product card's Listing images
 * dialog shows the four 2000 × 2000 pictures with their downloads and the zip.
 */
const CUBE = fs.readFileSync(path.resolve(import.meta.dirname, '../../shared/models/ps-20mm_cube.obj'));
const slicer = await detectPrusaSlicer();

let app: RunningApp;
let browser: Browser;
let seller: Credentials;

describe.skipIf(!slicer.available)('listing images', () => {
  beforeAll(async () => {
    app = await startApp({ SLICING: 'auto', MODEL_JOB_CPU_S: '120' });
    browser = await newBrowser();
    seller = await makeUser(app, { role: 'seller', name: 'Image Seller' });
    const client = app.testApp.client();
    expect((await client.post('/api/auth/sign-in/email', { email: seller.email, password: seller.password })).status).toBe(200);
    const form = new FormData();
    form.append('file', new Blob([CUBE]), 'ps-20mm_cube.obj');
    const uploaded = await fetch(new URL('/api/designs', app.baseUrl), { method: 'POST', headers: { cookie: client.cookieHeader(), origin: app.baseUrl }, body: form });
    const design = (await uploaded.json()) as any;
    const product = await client.post('/api/products', { name: 'Image cube', variants: [{ name: 'Orange', sku: 'IMG-CUBE', parts: [{ printConfigId: design.printConfigs[0].id, quantity: 1 }] }] });
    expect(product.status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('shows a product’s four renders with their downloads once the exact slice is done', async () => {
    const page = await newPage(browser, app, seller);
    await page.goto('/products');
    await page.getByTestId('product-listing-images').click();
    const dialog = page.getByTestId('listing-images');
    await dialog.waitFor();
    // Polled by the page every 3 s until the slice and the render are done.
    await dialog.locator('[data-testid=listing-image-set][data-status=done]').waitFor({ timeout: 90_000 });
    const images = dialog.getByTestId('listing-image');
    expect(await images.count()).toBe(4);
    const first = images.first().locator('img');
    await expect.poll(() => first.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), { timeout: 15_000 }).toBe(2000);
    expect(await images.first().getAttribute('href')).toMatch(/^\/api\/listing-images\/[0-9a-f-]{36}\/front\.png$/);
    expect(await images.first().getAttribute('download')).not.toBeNull();
    const zip = dialog.getByTestId('listing-images-zip');
    expect(await zip.getAttribute('href')).toMatch(/\/images\.zip$/);
    const download = await Promise.all([page.waitForEvent('download'), zip.click()]).then(([event]) => event);
    expect(download.suggestedFilename()).toMatch(/\.zip$/);
    await page.context().close();
  }, 120_000);
});
