import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { makeUser, newBrowser, newPage, startApp, type Credentials, type RunningApp } from './harness.ts';

/**
 * Products in a real browser: a seller with an uploaded design creates a product with a variant
 * and its SKU on /products, sees its unit cost (live while editing, then on the card), edits it,
 * and another seller does not see it.
 */
const CUBE = fs.readFileSync(path.resolve(import.meta.dirname, '../../shared/models/ps-20mm_cube.obj'));

let app: RunningApp;
let browser: Browser;
let sellerA: Credentials;
let sellerB: Credentials;
let configId: string;
let configCost: number;

/** Uploads the cube for a user through the API (the upload page has its own browser test). */
async function uploadCube(user: Credentials): Promise<{ id: string; printConfigs: { id: string; quote: { costUsd: number } }[] }> {
  const client = app.testApp.client();
  const signIn = await client.post('/api/auth/sign-in/email', { email: user.email, password: user.password });
  expect(signIn.status).toBe(200);
  const form = new FormData();
  form.append('file', new Blob([CUBE]), 'ps-20mm_cube.obj');
  const response = await fetch(new URL('/api/designs', app.baseUrl), {
    method: 'POST',
    headers: { cookie: client.cookieHeader(), origin: app.baseUrl },
    body: form,
  });
  expect(response.status).toBe(201);
  return (await response.json()) as any;
}

function dollars(text: string | null): number {
  const match = /\$([\d,]+\.\d\d)/.exec(text ?? '');
  if (!match?.[1]) throw new Error(`no dollar amount in ${JSON.stringify(text)}`);
  return Number(match[1].replace(/,/g, ''));
}

const cents = (usd: number) => Math.round(usd * 100) / 100;

beforeAll(async () => {
  app = await startApp();
  browser = await newBrowser();
  [sellerA, sellerB] = await Promise.all([
    makeUser(app, { role: 'seller', name: 'Seller A' }),
    makeUser(app, { role: 'seller', name: 'Seller B' }),
  ]);
  const design = await uploadCube(sellerA);
  configId = design.printConfigs[0]!.id;
  configCost = design.printConfigs[0]!.quote.costUsd;
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe('products', () => {
  it('a seller creates a product with a variant and SKU, sees its unit cost, and edits it', async () => {
    const page = await newPage(browser, app, sellerA);
    await page.goto('/products');
    await page.getByTestId('products-empty').waitFor();

    await page.getByTestId('new-product').click();
    const editor = page.getByTestId('product-editor');
    await editor.waitFor();
    await editor.getByTestId('product-name').fill('Desk cube');
    await editor.getByTestId('variant-name').fill('Pair');
    await editor.getByTestId('variant-sku').fill('CUBE-PAIR');
    await editor.getByTestId('variant-packaging').fill('gift box');
    // The design's configuration appears once the seller's designs have loaded.
    await expect.poll(() => editor.locator(`[data-testid=part-config] option[value="${configId}"]`).count(), { timeout: 15_000 }).toBe(1);
    await editor.getByTestId('part-config').selectOption(configId);
    await editor.getByTestId('part-quantity').fill('2');
    // The unit cost follows the form as it is typed.
    await expect.poll(async () => dollars(await editor.getByTestId('variant-editor-cost').textContent())).toBe(cents(configCost * 2));
    await editor.getByTestId('product-save').click();
    await editor.waitFor({ state: 'detached' });

    const card = page.locator('[data-testid=product-card][data-product-name="Desk cube"]');
    await card.waitFor();
    const row = card.locator('[data-testid=variant-row][data-sku="CUBE-PAIR"]');
    await row.waitFor();
    expect(await row.textContent()).toContain('gift box');
    expect(dollars(await row.getByTestId('variant-unit-cost').textContent())).toBe(cents(configCost * 2));
    expect(await row.getByTestId('variant-linked-listings').textContent()).toBe('0');
    const before = (await app.testApp.context.products.findVariantsBySkus(sellerA.userId, ['CUBE-PAIR'])).get('CUBE-PAIR');
    expect(before?.productName).toBe('Desk cube');

    // A second product may not reuse the SKU: the server's reason is shown in the dialog.
    await page.getByTestId('new-product').click();
    await editor.getByTestId('product-name').fill('Copy');
    await editor.getByTestId('variant-name').fill('One');
    await editor.getByTestId('variant-sku').fill('CUBE-PAIR');
    await expect.poll(() => editor.locator(`[data-testid=part-config] option[value="${configId}"]`).count(), { timeout: 15_000 }).toBe(1);
    await editor.getByTestId('part-config').selectOption(configId);
    await editor.getByTestId('product-save').click();
    await expect.poll(() => editor.getByTestId('product-error').textContent()).toContain('CUBE-PAIR');
    await editor.getByRole('button', { name: 'Cancel' }).click();
    await editor.waitFor({ state: 'detached' });

    // Edit: rename, new SKU, three of the part; the variant keeps its id.
    await card.getByTestId('product-edit').click();
    await editor.waitFor();
    expect(await editor.getByTestId('variant-sku').inputValue()).toBe('CUBE-PAIR');
    await editor.getByTestId('product-name').fill('Desk cube trio');
    await editor.getByTestId('variant-name').fill('Trio');
    await editor.getByTestId('variant-sku').fill('CUBE-TRIO');
    await editor.getByTestId('part-quantity').fill('3');
    await expect.poll(async () => dollars(await editor.getByTestId('variant-editor-cost').textContent())).toBe(cents(configCost * 3));
    await editor.getByTestId('product-save').click();
    await editor.waitFor({ state: 'detached' });

    const edited = page.locator('[data-testid=product-card][data-product-name="Desk cube trio"]');
    const trio = edited.locator('[data-testid=variant-row][data-sku="CUBE-TRIO"]');
    await trio.waitFor();
    expect(dollars(await trio.getByTestId('variant-unit-cost').textContent())).toBe(cents(configCost * 3));
    expect(await page.getByTestId('product-card').count()).toBe(1);
    const after = (await app.testApp.context.products.findVariantsBySkus(sellerA.userId, ['CUBE-TRIO'])).get('CUBE-TRIO');
    expect(after?.variantId).toBe(before?.variantId);
    await page.context().close();
  });

  it('another seller does not see it', async () => {
    const page = await newPage(browser, app, sellerB);
    await page.goto('/products');
    await page.getByTestId('products-empty').waitFor();
    expect(await page.getByTestId('product-card').count()).toBe(0);
    expect(await page.content()).not.toContain('CUBE-TRIO');
    await page.context().close();
  });
});
