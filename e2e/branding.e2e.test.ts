import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { makeUser, newBrowser, newPage, startApp, type Credentials, type RunningApp } from './harness.ts';

/**
 * Parcel branding in a real browser (issue 24, point 4): on Account Settings a seller uploads an SVG
 * logo (shown back as the stored PNG), writes the insert message, asks for the thank-you card and
 * saves; after a reload all three are still there. A file that is not a logo is refused with the
 * server's reason.
 */
const LOGO = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="300" height="100"><rect width="300" height="100" rx="12" fill="#0f766e"/><script>alert(1)</script></svg>');

let app: RunningApp;
let browser: Browser;
let seller: Credentials;

beforeAll(async () => {
  app = await startApp();
  browser = await newBrowser();
  seller = await makeUser(app, { role: 'seller', name: 'Brand Seller' });
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe('parcel branding', () => {
  it('a seller uploads a logo, writes the insert message, asks for the card, and finds them after a reload', async () => {
    const page = await newPage(browser, app, seller);
    await page.goto('/account-settings');
    const section = page.getByTestId('branding-section');
    await section.waitFor();
    await expect.poll(() => section.getByTestId('branding-logo-preview').textContent()).toContain('No logo');

    await section.getByTestId('branding-logo-input').setInputFiles({ name: 'logo.svg', mimeType: 'image/svg+xml', buffer: LOGO });
    const logo = section.getByRole('img', { name: 'Your logo' });
    await logo.waitFor();
    // The preview is the stored PNG: 800 px wide (the SVG rasterised), decoded by the browser.
    await expect.poll(() => logo.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(800);

    await section.getByLabel('Insert message').fill('Thanks for shopping small!');
    await section.getByLabel('Print a thank-you card with the packing slip').check();
    await section.getByRole('button', { name: 'Save branding' }).click();
    await page.getByText('Parcel branding saved').waitFor();

    await page.reload();
    await page.getByTestId('branding-section').waitFor();
    await expect.poll(() => page.getByTestId('branding-section').getByLabel('Insert message').inputValue()).toBe('Thanks for shopping small!');
    expect(await page.getByTestId('branding-section').getByLabel('Print a thank-you card with the packing slip').isChecked()).toBe(true);
    await page.getByTestId('branding-section').getByRole('img', { name: 'Your logo' }).waitFor();
    await page.context().close();
  });

  it('refuses a file that is not a PNG or an SVG, saying why, and keeps the logo', async () => {
    const page = await newPage(browser, app, seller);
    await page.goto('/account-settings');
    const section = page.getByTestId('branding-section');
    await section.getByRole('img', { name: 'Your logo' }).waitFor();
    await section.getByTestId('branding-logo-input').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: Buffer.from('<html><script>alert(1)</script></html>') });
    await page.getByText('The logo must be a PNG or an SVG file').waitFor();
    await section.getByRole('img', { name: 'Your logo' }).waitFor();
    await page.context().close();
  });
});
