import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { documentTitle } from '@layerline/contracts';
import path from 'node:path';
import { createOutboxMailer } from '../apps/server/src/integrations/outbox-mailer/outbox-mailer.ts';
import { ADDRESS_FAILURE_LIMIT, LOGIN_FAILURE_LIMIT } from '../apps/server/src/modules/accounts/login-throttle.ts';
import { makeUser, newBrowser, newPage, startApp, type RunningApp } from './harness.ts';

/** Signing up, logging in and out through the real forms, and the referral code that rides along. */
let app: RunningApp;
let browser: Browser;

beforeAll(async () => {
  [app, browser] = await Promise.all([startApp(), newBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

let counter = 0;
const freshEmail = () => `browser-${Date.now().toString(36)}-${++counter}@example.test`;
const PASSWORD = 'layered filament spool 42';

async function waitForPath(page: Page, path: string, title: string): Promise<void> {
  await page.waitForFunction(
    ([expectedPath, expectedTitle]) =>
      window.location.pathname === expectedPath && document.title === expectedTitle,
    [path, documentTitle(title)] as const,
    { timeout: 10_000 },
  );
}

async function me(page: Page): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await page.request.get('/api/me');
  return { status: response.status(), body: (await response.json()) as Record<string, unknown> };
}

async function fillSignUp(
  page: Page,
  fields: { name: string; email: string; password: string; businessName?: string },
) {
  await page.getByLabel('Your name').fill(fields.name);
  if (fields.businessName) await page.getByLabel('Business name (optional)').fill(fields.businessName);
  await page.getByLabel('Email').fill(fields.email);
  await page.getByLabel('Password').fill(fields.password);
}

describe('sign-up', () => {
  it('captures ?ref=, signs up from the header call to action, lands on /welcome and stores the referral on the account', async () => {
    const page = await newPage(browser, app);
    await page.goto('/pricing?ref=FRIEND-42');
    await waitForPath(page, '/pricing', 'Pricing');
    expect(await page.evaluate(() => localStorage.getItem('affiliateRef'))).toBe('FRIEND-42');

    await page.getByTestId('header-nav').getByRole('link', { name: "Let's Gooooo!" }).click();
    await waitForPath(page, '/get-started', 'Get Started');
    const email = freshEmail();
    await fillSignUp(page, {
      name: 'Riley Referred',
      businessName: 'Riley Makes',
      email,
      password: PASSWORD,
    });
    await page.getByRole('button', { name: 'Create account' }).click();
    await waitForPath(page, '/welcome', 'Welcome');
    await page.getByTestId('onboarding-checklist').waitFor();

    const account = await me(page);
    expect(account.status).toBe(200);
    expect(account.body).toMatchObject({
      email,
      name: 'Riley Referred',
      businessName: 'Riley Makes',
      affiliateRef: 'FRIEND-42',
    });

    // The first dashboard visit after sign-up opens the tour by itself, once.
    await page.getByTestId('header-nav').getByRole('link', { name: 'Dashboard' }).click();
    await waitForPath(page, '/dashboard', 'Dashboard');
    const tour = page.getByTestId('tour-dialog');
    await tour.getByText('Step 1 of 7').waitFor();
    await tour.getByRole('button', { name: 'Close tour' }).click();
    await tour.waitFor({ state: 'hidden' });
    await page.reload();
    await waitForPath(page, '/dashboard', 'Dashboard');
    await page.getByTestId('start-tour').waitFor();
    expect(await tour.count()).toBe(0);
    await page.context().close();
  });

  it('validates the form in the browser before asking the server', async () => {
    const page = await newPage(browser, app);
    await page.goto('/register');
    await waitForPath(page, '/register', 'Register');
    let signUpCalls = 0;
    page.on('request', (request) => {
      if (request.url().includes('/api/auth/sign-up')) signUpCalls += 1;
    });
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Tell us your name').waitFor();
    await page.getByText('Enter your email address').waitFor();
    await fillSignUp(page, { name: 'Short Pass', email: 'not-an-email', password: 'short' });
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Please enter a valid email address').waitFor();
    await page.getByText('Use at least 8 characters').waitFor();
    expect(signUpCalls).toBe(0);
    await page.context().close();
  });

  it("shows the server's refusal, e.g. an email already taken", async () => {
    const existing = await makeUser(app);
    const page = await newPage(browser, app);
    await page.goto('/register');
    await waitForPath(page, '/register', 'Register');
    await fillSignUp(page, { name: 'Copy Cat', email: existing.email, password: PASSWORD });
    await page.getByRole('button', { name: 'Create account' }).click();
    const error = page.getByTestId('form-error');
    await error.waitFor();
    expect((await error.innerText()).trim().length).toBeGreaterThan(0);
    expect(new URL(page.url()).pathname).toBe('/register');
    await page.context().close();
  });
});

describe('log in and log out', () => {
  it('refuses a wrong password with the server text, logs in to /dashboard, and logs out to /login', async () => {
    const user = await makeUser(app, { name: 'Lou Login' });
    const page = await newPage(browser, app, undefined, { viewport: { width: 1366, height: 900 } });
    await page.goto('/login');
    await waitForPath(page, '/login', 'Login');

    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill('definitely not the password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByTestId('form-error').waitFor();
    expect(new URL(page.url()).pathname).toBe('/login');

    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await waitForPath(page, '/dashboard', 'Dashboard');
    await page.getByRole('heading', { name: 'Hello, Lou' }).waitFor();
    expect((await me(page)).status).toBe(200);

    await page.getByTestId('header-nav').getByRole('button', { name: 'Logout' }).click();
    await waitForPath(page, '/login', 'Login');
    expect((await me(page)).status).toBe(401);
    await page.getByTestId('header-nav').getByRole('link', { name: "Let's Gooooo!" }).waitFor();
    // Signed out means signed out: the app pages send us back to /login.
    await page.goto('/account-settings');
    await waitForPath(page, '/login', 'Login');
    await page.context().close();
  });

  it('logs out from the mobile drawer too', async () => {
    const user = await makeUser(app);
    const page = await newPage(browser, app, user, { viewport: { width: 390, height: 844 } });
    await page.goto('/dashboard');
    await waitForPath(page, '/dashboard', 'Dashboard');
    await page.getByTestId('mobile-menu-button').click();
    await page.getByTestId('mobile-drawer').getByText('Logout').click();
    await waitForPath(page, '/login', 'Login');
    expect((await me(page)).status).toBe(401);
    await page.context().close();
  });

  it('changes the password from account settings and signs in with the new one', async () => {
    const user = await makeUser(app);
    const page = await newPage(browser, app, user);
    await page.goto('/account-settings');
    await waitForPath(page, '/account-settings', 'Account Settings');
    const section = page.getByTestId('password-section');
    const newPassword = 'a brand new sturdy passphrase';
    await section.getByLabel('Current password').fill(user.password);
    await section.getByLabel('New password', { exact: true }).fill(newPassword);
    await section.getByLabel('Repeat new password').fill(newPassword);
    await section.getByRole('button', { name: 'Change password' }).click();
    await page.getByTestId('toast').filter({ hasText: 'Password changed' }).waitFor();

    const check = app.testApp.client();
    const signIn = await check.post('/api/auth/sign-in/email', { email: user.email, password: newPassword });
    expect(signIn.status).toBe(200);
    await page.context().close();
  });
});

describe('a throttled account (issue 10, finding 4)', () => {
  it('says so readably, emails a sign-in link from the login page, and the link signs in to /dashboard', async () => {
    const user = await makeUser(app);
    // An attacker's failures from elsewhere (many addresses, each within its share) have throttled the account.
    for (let i = 0; i < LOGIN_FAILURE_LIMIT; i++) {
      await app.testApp.context.loginThrottle.recordFailure(user.email, `198.18.${Math.floor(i / ADDRESS_FAILURE_LIMIT)}.1`);
    }
    const page = await newPage(browser, app);
    await page.goto('/login');
    await waitForPath(page, '/login', 'Login');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    const error = page.getByTestId('form-error');
    await error.waitFor();
    expect(await error.innerText()).toMatch(/Too many failed sign-in attempts.*Email me a sign-in link/s);

    await page.getByTestId('email-link').click();
    await page.getByTestId('link-sent').waitFor();
    const outbox = createOutboxMailer(path.join(app.testApp.context.config.dataDir, 'outbox'), () => undefined);
    const mail = (await outbox.list()).find((message) => message.to === user.email && /sign-in link/.test(message.subject));
    const link = new URL(/https?:\/\/\S+/.exec(mail!.text)![0]);
    expect(link.pathname).toBe('/login');

    // Opened from the mail: a fresh tab.
    const fromMail = await newPage(browser, app);
    await fromMail.goto(`${link.pathname}${link.hash}`);
    await waitForPath(fromMail, '/dashboard', 'Dashboard');
    expect((await me(fromMail)).status).toBe(200);
    // The link is spent: opening it again shows why, on the login page, and the token leaves the address bar.
    const again = await newPage(browser, app);
    await again.goto(`${link.pathname}${link.hash}`);
    await again.getByTestId('form-error').filter({ hasText: 'already used or expired' }).waitFor();
    expect(new URL(again.url()).hash).toBe('');
    for (const opened of [page, fromMail, again]) await opened.context().close();
  });
});
