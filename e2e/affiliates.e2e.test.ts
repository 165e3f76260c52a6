import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { addVariants } from '../apps/server/test/orders-fixtures.ts';
import { makeUser, newBrowser, newPage, startApp, type Credentials, type RunningApp } from './harness.ts';

/**
 * Affiliates in a real browser: a beta seller opens /affiliate-links, is refused an invalid code
 * with the rule in words, changes their code and sees the share link follow; sets up payouts
 * through the sandbox's onboarding page (test mode) and comes back to "Payouts on"; a seller who signed
 * up with the code has an order charged, and the earning shows on the page. An admin sees
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

  it("a referred seller's charged order shows as a pending earning", async () => {
    const referred = await app.testApp.signUp({
      name: 'Referred Prints',
      extra: { affiliateRef: 'grace-prints' },
    });
    const card = await referred.post('/api/payments/sandbox/payment-methods', {
      cardNumber: '4242424242424242',
      expMonth: 12,
      expYear: 2040,
      cvc: '123',
    });
    await referred.post('/api/payments/default-payment-method', {
      paymentMethodId: card.body.paymentMethodId,
    });
    await addVariants(app.testApp.context, referred.userId, ['E2E-AFF-1']);
    const order = await referred.post('/api/orders/manual', {
      items: [{ sku: 'E2E-AFF-1', quantity: 1 }],
      shippingAddress: {
        name: 'Ada Buyer',
        line1: '1 Main St',
        city: 'Springfield',
        postalCode: '12345',
        country: 'US',
      },
    });
    const farm = await app.testApp.signUp({ role: 'admin', name: 'Charging Admin' });
    const charged = await farm.post('/api/payments/charge-stored-card', {
      orderId: order.body.id,
      amount: 25,
      targetUserId: referred.userId,
    });
    expect(charged.body.status).toBe('succeeded');

    const page = await newPage(browser, app, seller, { viewport: { width: 1440, height: 1000 } });
    await page.goto('/affiliate-links');
    await expect.poll(() => page.getByTestId('figure-signups').textContent(), { timeout: 15_000 }).toBe('1');
    expect(await page.getByTestId('figure-pending').textContent()).toBe('$2.50');
    const ledger = (await page.getByRole('table', { name: 'Earnings ledger' }).textContent()) ?? '';
    expect(ledger).toContain('Referred Prints');
    expect(ledger).toContain('$2.50');
    expect(ledger).toContain('Pending');
    if (shots) await page.screenshot({ path: `${shots}/affiliate-links-earning.png`, fullPage: true });
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
