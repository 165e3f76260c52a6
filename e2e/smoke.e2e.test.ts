import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { makeUser, newBrowser, newPage, startApp, type RunningApp } from './harness.ts';

let app: RunningApp;
let browser: Browser;
beforeAll(async () => {
  app = await startApp();
  browser = await newBrowser();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

it('serves the web app with its security headers, and a signed-in browser reaches the dashboard', async () => {
  const user = await makeUser(app);
  const page = await newPage(browser, app, user);
  const response = await page.goto('/dashboard');
  expect(response?.headers()['content-security-policy']).toContain("object-src 'none'");
  await page.waitForURL('**/dashboard');
  await expect.poll(() => page.title()).toBe('Dashboard | Layerline');
});
