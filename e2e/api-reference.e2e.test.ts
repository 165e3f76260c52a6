import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  makeUser,
  newBrowser,
  signInContext,
  startApp,
  type Credentials,
  type RunningApp,
} from './harness.ts';

/**
 * The API reference in a real browser: a beta seller follows the link on /connect-store and reads
 * the order API's guide, its calls with their examples and the webhooks, on a page that loads
 * everything from our own origin under the app's Content-Security-Policy without one violation.
 */
let app: RunningApp;
let browser: Browser;
let seller: Credentials;

beforeAll(async () => {
  app = await startApp();
  browser = await newBrowser();
  seller = await makeUser(app, { role: 'beta', name: 'Reference Reader' });
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

/**
 * A signed-in context whose pages each record what a broken page would show: console errors and
 * warnings, page errors, requests to another origin, failed requests and error answers, and every
 * Content-Security-Policy violation.
 */
async function watchedContext(): Promise<{
  context: BrowserContext;
  problemsOf: (page: Page) => Promise<string[]>;
}> {
  const context = await browser.newContext({ baseURL: app.baseUrl });
  await signInContext(context, app, seller);
  // Run by the browser before the page's own scripts; the policy does not apply to it.
  await context.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (event) =>
      seen.push(`CSP: ${event.violatedDirective} ${event.blockedURI}`),
    );
  });
  const problems = new Map<Page, string[]>();
  // Attached as each page is created, before it loads anything (a page opened by a link included).
  context.on('page', (page) => {
    const seen: string[] = [];
    problems.set(page, seen);
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning')
        seen.push(`console.${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => seen.push(`page error: ${error.message}`));
    page.on('request', (request) => {
      if (!request.url().startsWith(`${app.baseUrl}/`))
        seen.push(`a request to another origin: ${request.url()}`);
    });
    page.on('requestfailed', (request) =>
      seen.push(`failed: ${request.url()} ${request.failure()?.errorText}`),
    );
    page.on('response', (response) => {
      if (response.status() >= 400) seen.push(`${response.status()} ${response.url()}`);
    });
  });
  const problemsOf = async (page: Page) => [
    ...(problems.get(page) ?? ['not watched']),
    ...(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)),
  ];
  return { context, problemsOf };
}

describe('API reference', () => {
  it('a seller opens it from /connect-store and reads the order API: the guide, the calls with examples, the webhooks', async () => {
    const { context, problemsOf } = await watchedContext();
    const store = await context.newPage();
    await store.goto('/connect-store');
    const link = store.getByTestId('api-reference-link');
    await link.waitFor({ timeout: 20_000 });
    expect(await link.textContent()).toBe('API reference');
    const [page] = await Promise.all([context.waitForEvent('page'), link.click()]);
    await page.waitForLoadState();
    expect(new URL(page.url()).pathname).toBe('/api/docs');

    // The guide: getting started, the webhooks, and how to verify their signature.
    await page.getByRole('heading', { name: 'The order API (beta)' }).waitFor({ timeout: 30_000 });
    expect(await page.title()).toBe('Layerline API reference');
    await page.getByRole('heading', { name: 'Verifying the signature (Node.js)' }).waitFor();
    expect(await page.getByText('export function verifyLayerlineWebhook').isVisible()).toBe(true);

    // The order API's calls, opened from their tag, and one with its examples.
    await page.locator('.opblock-tag[data-tag="order-api"]').click();
    const calls = page.locator('#operations-tag-order-api + div .opblock-summary-description');
    await calls.first().waitFor();
    expect(await calls.allTextContents()).toEqual([
      'Send an order',
      'List your orders',
      'Read one of your orders',
      'Change an order’s shipping address before release',
      'Cancel an order before release, at no cost',
    ]);
    await page.getByText('Send an order', { exact: true }).click();
    const send = page.locator('.opblock.is-open');
    await send.getByText('Idempotent on', { exact: false }).waitFor();
    expect(await send.locator('.body-param__example, .highlight-code').first().textContent()).toContain(
      '"CUBE-RED"',
    );
    expect(await send.getByRole('cell', { name: '201' }).count()).toBeGreaterThan(0);

    // The webhooks we send, each with its signed headers.
    const webhooks = page.locator('.webhooks');
    await webhooks.scrollIntoViewIfNeeded();
    expect(await webhooks.locator('.opblock-summary-path').allTextContents()).toEqual([
      'order.status_changed',
      'order.charged',
      'order.adjusted',
      'order.refunded',
      'order.shipped',
      'order.delivered',
      'order.claim_filed',
      'order.claim_decided',
      'order.cancelled',
      'order.address_changed',
    ]);
    await webhooks.getByText('An order shipped, with its tracking').click();
    await webhooks.locator('.parameter__name', { hasText: 'webhook-signature' }).waitFor();

    expect(await problemsOf(page)).toEqual([]);
    await context.close();
  });

  it('the “Sending an order” link opens the reference at the order API’s calls', async () => {
    const { context, problemsOf } = await watchedContext();
    const store = await context.newPage();
    await store.goto('/connect-store');
    const link = store
      .getByRole('region', { name: 'Sending an order' })
      .getByRole('link', { name: 'API reference' });
    await link.waitFor({ timeout: 20_000 });
    const page = await context.newPage();
    await page.goto((await link.getAttribute('href'))!);
    // Opened at the tag: its calls are listed without a click.
    await page.getByText('Read one of your orders', { exact: true }).waitFor({ timeout: 30_000 });
    expect(await page.getByText('List your orders', { exact: true }).isVisible()).toBe(true);
    expect(await problemsOf(page)).toEqual([]);
    await context.close();
  });
});
