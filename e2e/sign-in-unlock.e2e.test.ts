import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { ADDRESS_FAILURE_LIMIT, LOGIN_FAILURE_LIMIT } from '../apps/server/src/modules/accounts/login-throttle.ts';
import { makeUser, newBrowser, newPage, startApp, type RunningApp } from './harness.ts';

/**
 * Issue 21: an admin ends a seller's sign-in throttling from the users panel on /admin (the way in
 * when no sign-in link can be mailed). The row shows the pause; the button ends it.
 */
let app: RunningApp;
let browser: Browser;
beforeAll(async () => {
  app = await startApp();
  browser = await newBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe('unlocking sign-in on the admin users panel', () => {
  it('shows a throttled seller, unlocks them with one click, and the seller signs in from a new browser', async () => {
    const admin = await makeUser(app, { role: 'admin' });
    const seller = await makeUser(app, { name: 'Locked Out' });
    const throttle = app.testApp.context.loginThrottle;
    for (let i = 0; i < LOGIN_FAILURE_LIMIT; i++) await throttle.recordFailure(seller.email, `198.18.${Math.floor(i / ADDRESS_FAILURE_LIMIT)}.9`);
    const signIn = () => app.testApp.client().post('/api/auth/sign-in/email', { email: seller.email, password: seller.password });
    expect((await signIn()).status).toBe(429);

    const page = await newPage(browser, app, admin, { viewport: { width: 1366, height: 900 } });
    await page.goto('/admin');
    await page.getByLabel('Search users').fill(seller.email);
    const row = page.locator(`[data-testid="admin-user-row"][data-email="${seller.email}"]`);
    await row.waitFor();
    await row.getByText(/^Paused until /).waitFor();

    await row.getByRole('button', { name: `Unlock sign-in: ${seller.email}` }).click();
    await page
      .getByTestId('toast')
      .filter({ hasText: `Sign-in unlocked for ${seller.email} (${LOGIN_FAILURE_LIMIT} failed attempts forgotten)` })
      .waitFor();
    await row.getByText(/^Paused until /).waitFor({ state: 'detached' });

    expect((await signIn()).status).toBe(200);
  });
});
