import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { makeUser, newBrowser, newPage, startApp, type Credentials, type RunningApp } from './harness.ts';

/**
 * Affiliates in a real browser: a beta seller opens /affiliate-links, is refused an invalid code
 * with the rule in words, changes their code and sees the share link follow; sets up payouts
 * through the sandbox's onboarding page (test mode) and comes back to "Payouts on". An admin sees
 * the affiliate on /affiliates and holds their payouts. `SCREENSHOTS=dir` saves what each step looks like.
 */
let app: RunningApp;
let browser: Browser;
let seller: Credentials;
let admin: Credentials;

const shots = process.env.SCREENSHOTS;

beforeAll(async () => {
  app = await startApp();
  browser = await newBrowser();
  seller = await makeUser(app, { role: 'beta', name: 'Grace Hopper' });
  admin = await makeUser(app, { role: 'admin', name: 'Farm Admin' });
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe('affiliate pages', () => {
  it('a beta seller changes their code, sees the share link, and sets up payouts (sandbox)', async () => {
    const page = await newPage(browser, app, seller, { viewport: { width: 1440, height: 1000 } });
    await page.goto('/affiliate-links');
    await expect
      .poll(() => page.getByTestId('affiliate-code').textContent(), { timeout: 15_000 })
      .toBe('grace-hopper');
    expect(await page.getByTestId('share-link').textContent()).toBe(`${app.baseUrl}/?ref=grace-hopper`);
    expect(await page.getByTestId('connect-status').textContent()).toBe('Not set up');

    await page.getByRole('button', { name: 'Change code' }).click();
    const field = page.getByLabel('Referral code');
    await field.fill('no spaces allowed');
    await page.getByText('A code uses only letters, digits and single dashes between them').waitFor();
    await field.fill('admin');
    await page.getByText('"admin" is reserved; choose another code').waitFor();
    await field.fill('Grace-Prints');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => page.getByTestId('affiliate-code').textContent(), { timeout: 10_000 })
      .toBe('Grace-Prints');
    expect(await page.getByTestId('share-link').textContent()).toBe(`${app.baseUrl}/?ref=Grace-Prints`);
    if (shots) await page.screenshot({ path: `${shots}/affiliate-links.png`, fullPage: true });

    await page.getByRole('button', { name: 'Set up payouts' }).click();
    await page.getByTestId('sandbox-onboarding').waitFor({ timeout: 10_000 });
    expect(page.url()).toMatch(/\/affiliate-links\?connect=sandbox&account=acct_sandbox_/);
    if (shots) await page.screenshot({ path: `${shots}/affiliate-sandbox-onboarding.png`, fullPage: true });
    await page.getByRole('button', { name: 'Leave without finishing' }).click();
    await expect
      .poll(() => page.getByTestId('connect-outcome').textContent(), { timeout: 10_000 })
      .toContain('Onboarding is not finished');

    await page.getByRole('button', { name: 'Continue setup' }).first().click();
    await page.getByRole('button', { name: 'Complete onboarding' }).click();
    await expect
      .poll(() => page.getByTestId('connect-outcome').textContent(), { timeout: 10_000 })
      .toContain('Payouts are set up');
    await expect.poll(() => page.getByTestId('connect-status').textContent()).toBe('Payouts on');
    if (shots) await page.screenshot({ path: `${shots}/affiliate-connect-return.png`, fullPage: true });
  });

  it('an admin sees the affiliates list and holds payouts', async () => {
    const page = await newPage(browser, app, admin, { viewport: { width: 1440, height: 1000 } });
    await page.goto('/affiliates');
    const row = page.getByTestId('affiliate-row-Grace-Prints');
    await row.waitFor({ timeout: 15_000 });
    const text = (await row.textContent()) ?? '';
    expect(text).toContain('Grace Hopper');
    expect(text).toContain(seller.email);
    expect(text).toContain('Payouts on');
    await row.getByRole('button', { name: 'Hold payouts' }).click();
    await expect.poll(() => row.textContent(), { timeout: 10_000 }).toContain('Held');
    await page.getByRole('button', { name: 'Propose payouts' }).click();
    await page.getByTestId('payout-run-empty').waitFor({ timeout: 10_000 });
    if (shots) await page.screenshot({ path: `${shots}/admin-affiliates.png`, fullPage: true });
  });
});
