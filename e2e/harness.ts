import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startTestApp, uniqueEmail, type TestApp } from '../apps/server/test/test-app.ts';

/**
 * Browser tests drive Debian's Chromium (never a downloaded browser) against the real server
 * on a real database, serving the built web app (`npm test` builds it first).
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const WEB_DIST = path.resolve(import.meta.dirname, '../apps/web/dist/index.html');

export interface RunningApp {
  readonly baseUrl: string;
  readonly testApp: TestApp;
  stop(): Promise<void>;
}

export async function startApp(env: Record<string, string> = {}): Promise<RunningApp> {
  if (!fs.existsSync(WEB_DIST)) {
    throw new Error('The web app is not built: run `npm run build` (npm test does it for you).');
  }
  const testApp = await startTestApp(env);
  return { baseUrl: testApp.baseUrl, testApp, stop: () => testApp.close() };
}

export async function newBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface Credentials {
  readonly email: string;
  readonly password: string;
  readonly userId: string;
}

/** Creates an account through the API; `beta` and `admin` get their flag as an admin would set it. */
export async function makeUser(
  app: RunningApp,
  options: { role?: 'seller' | 'beta' | 'admin'; name?: string; email?: string } = {},
): Promise<Credentials> {
  const client = await app.testApp.signUp({
    role: options.role ?? 'seller',
    name: options.name ?? 'Browser Tester',
    email: options.email ?? uniqueEmail(options.role ?? 'seller'),
  });
  return { email: client.email, password: client.password, userId: client.userId };
}

/** Signs a browser context in without the UI (for tests about something else than signing in). */
export async function signInContext(context: BrowserContext, app: RunningApp, user: Credentials): Promise<void> {
  const client = app.testApp.client();
  const response = await client.post('/api/auth/sign-in/email', { email: user.email, password: user.password });
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status}`);
  const url = new URL(app.baseUrl);
  const cookies = client
    .cookieHeader()
    .split('; ')
    .filter(Boolean)
    .map((pair) => {
      const index = pair.indexOf('=');
      return {
        name: pair.slice(0, index),
        value: pair.slice(index + 1),
        domain: url.hostname,
        path: '/',
        httpOnly: true,
        sameSite: 'Lax' as const,
      };
    });
  await context.addCookies(cookies);
}

/** A fresh page in a fresh context (own cookies and local storage), optionally signed in. */
export async function newPage(browser: Browser, app: RunningApp, user?: Credentials, options: Parameters<Browser['newContext']>[0] = {}): Promise<Page> {
  const context = await browser.newContext({ baseURL: app.baseUrl, ...options });
  if (user) await signInContext(context, app, user);
  return context.newPage();
}
