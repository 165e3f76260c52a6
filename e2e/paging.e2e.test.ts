import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { product, user } from '../apps/server/src/db/schema.ts';
import { makeUser, newBrowser, newPage, startApp, type Credentials, type RunningApp } from './harness.ts';

/**
 * Keyset-paged lists in a real browser: Next and Previous walk the pages (Page n), and a new
 * search starts again at page 1. Products (20 a page) for a seller, users (20 a page) for an admin.
 */
let app: RunningApp;
let browser: Browser;
let seller: Credentials;
let admin: Credentials;

/** 25 rows, newest first by index 0 (one second apart), the last three named "Findme". */
const names = Array.from({ length: 25 }, (_, index) => (index >= 22 ? `Findme ${index}` : `Paged ${String(index).padStart(2, '0')}`));
const createdAt = (index: number) => sql`now() - ${index}::int * interval '1 second'`;

beforeAll(async () => {
  app = await startApp();
  browser = await newBrowser();
  [seller, admin] = await Promise.all([makeUser(app, { name: 'Paging Seller' }), makeUser(app, { role: 'admin' })]);
  const db = app.testApp.context.db;
  for (const [index, name] of names.entries()) {
    await db.insert(product).values({ ownerId: seller.userId, name, createdAt: createdAt(index) as unknown as Date });
    await db.insert(user).values({
      id: `paged-person-${index}`,
      email: `paged-person-${String(index).padStart(2, '0')}@pagedperson.test`,
      name: `Pagedperson ${name}`,
      createdAt: createdAt(index) as unknown as Date,
    });
  }
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const pager = (page: Page, label: string) => page.getByRole('navigation', { name: label });

describe('keyset paging', () => {
  it('walks the products with Next and Previous, and a search starts at page 1', async () => {
    const page = await newPage(browser, app, seller);
    await page.goto('/products');
    const cards = page.getByTestId('product-card');
    await expect.poll(() => cards.count()).toBe(20);
    expect(await cards.first().getAttribute('data-product-name')).toBe(names[0]);
    const nav = pager(page, 'Pages of products');
    await expect.poll(() => nav.textContent()).toContain('Page 1');

    await nav.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => nav.textContent()).toContain('Page 2');
    await expect.poll(() => cards.first().getAttribute('data-product-name')).toBe(names[20]);
    expect(await cards.evaluateAll((all) => all.map((card) => card.getAttribute('data-product-name')))).toEqual(names.slice(20));
    expect(await nav.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);

    await nav.getByRole('button', { name: 'Previous' }).click();
    await expect.poll(() => cards.first().getAttribute('data-product-name')).toBe(names[0]);
    await expect.poll(() => cards.count()).toBe(20);

    await nav.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => nav.textContent()).toContain('Page 2');
    await page.getByLabel('Search products').fill('findme');
    await expect.poll(() => cards.evaluateAll((all) => all.map((card) => card.getAttribute('data-product-name')))).toEqual(names.slice(22));
    // Three results fit one page: the pager is gone, and clearing the search shows page 1 again.
    expect(await nav.count()).toBe(0);
    await page.getByLabel('Search products').fill('');
    await expect.poll(() => cards.first().getAttribute('data-product-name')).toBe(names[0]);
    await expect.poll(() => nav.textContent()).toContain('Page 1');
    await page.context().close();
  });

  it('walks the admin’s users list with Next and Previous', async () => {
    const page = await newPage(browser, app, admin, { viewport: { width: 1366, height: 900 } });
    await page.goto('/admin');
    await page.getByLabel('Search users').fill('pagedperson');
    const rows = page.getByTestId('admin-user-row');
    const emails = () => rows.evaluateAll((all) => all.map((row) => row.getAttribute('data-email')));
    const expected = names.map((_, index) => `paged-person-${String(index).padStart(2, '0')}@pagedperson.test`);
    await expect.poll(emails).toEqual(expected.slice(0, 20));
    const nav = pager(page, 'Pages of users');
    await nav.getByRole('button', { name: 'Next' }).click();
    await expect.poll(emails).toEqual(expected.slice(20));
    await expect.poll(() => nav.textContent()).toContain('Page 2');
    await nav.getByRole('button', { name: 'Previous' }).click();
    await expect.poll(emails).toEqual(expected.slice(0, 20));
    await page.context().close();
  });
});
