import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  loadFixtures,
  loadStripeApi,
  paymentIntentFrom,
  startStripeFake,
  type StripeFake,
} from '../apps/server/src/integrations/stripe/stripe-fake.ts';
import { addVariants } from '../apps/server/test/orders-fixtures.ts';
import { uniqueEmail, uploadDesign, type SignedInClient } from '../apps/server/test/test-app.ts';
import { makeUser, newBrowser, newPage, startApp, type Credentials, type RunningApp } from './harness.ts';

/**
 * The billing pages (issue 13, docs/payments.md) in a real browser against the real server and the
 * built-in sandbox payment provider (no Stripe keys: test mode, Stripe's public test cards), with
 * orders charged when they enter production: the seller's order (a 20 mm cube) is held because no card
 * is on file; the seller has a bad number refused under the card number field, saves 4242…, sees it
 * and the order released and charged, with its breakdown on /billing; an admin charges the stored card
 * by hand from the seller's billing page and refunds it; the seller sees the charge and its refund on
 * /billing and in the order dialog; with the card that needs authentication, a charge waits for the
 * seller, who completes it on the test-mode authentication page (and fails another one, which says to
 * add another card). With Stripe keys (Stripe's API played by the contract fake, Stripe.js by a small
 * stand-in served for js.stripe.com, which the test machine cannot reach), the card form and the
 * authentication go through Stripe.js, loaded only on those pages with the server's publishable key.
 */
const CUBE = fs.readFileSync(path.resolve(import.meta.dirname, '../../shared/models/ps-20mm_cube.obj'));

let app: RunningApp;
let browser: Browser;
let adminClient: SignedInClient;
let sellerClient: SignedInClient;
let admin: Credentials;
let seller: Credentials;
let orderId: string;
let orderNumber: string;

const credentials = (client: SignedInClient): Credentials => ({
  email: client.email,
  password: client.password,
  userId: client.userId,
});

beforeAll(async () => {
  app = await startApp({ PAYMENTS_CHARGE_ORDERS: 'true' });
  browser = await newBrowser();
  adminClient = await app.testApp.signUp({ role: 'admin', name: 'Pay Admin', email: uniqueEmail('pay-admin') });
  sellerClient = await app.testApp.signUp({ role: 'seller', name: 'Billie Seller', email: uniqueEmail('pay-seller') });
  admin = credentials(adminClient);
  seller = credentials(sellerClient);
  // A product of one quoted cube: its order has a price to charge.
  const design = (await uploadDesign(sellerClient, CUBE, 'ps-20mm_cube.obj')) as { printConfigs: { id: string }[] };
  const product = await sellerClient.post('/api/products', {
    name: 'Desk cube',
    variants: [{ name: 'Single', sku: 'BILL-CUBE', packaging: 'standard', parts: [{ printConfigId: design.printConfigs[0]!.id, quantity: 1 }] }],
  });
  expect(product.status).toBe(201);
  const placed = await sellerClient.post('/api/orders/manual', {
    items: [{ sku: 'BILL-CUBE', quantity: 1 }],
    shippingAddress: {
      name: 'Maya Thompson',
      line1: '1420 Larkin Street',
      city: 'San Francisco',
      region: 'CA',
      postalCode: '94109',
      country: 'US',
    },
  });
  expect(placed.status).toBe(201);
  orderId = placed.body.id;
  orderNumber = placed.body.externalId;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

/** The admin's chargeStoredCard, as the Charge card dialog sends it. */
async function chargeByHand(amount: number) {
  const response = await adminClient.post('/api/payments/charge-stored-card', {
    orderId,
    amount,
    targetUserId: seller.userId,
    requestId: randomUUID(),
  });
  expect(response.status).toBe(200);
  return response.body as { id: string; status: string };
}

async function saveSandboxCard(page: Page, cardNumber: string): Promise<void> {
  const form = page.getByTestId('sandbox-card-form');
  await form.getByLabel('Card number').fill(cardNumber);
  await form.getByLabel('Expiry (MM / YY)').fill('1234');
  await form.getByLabel('CVC').fill('123');
  await form.getByRole('button', { name: 'Save card' }).click();
}

describe('billing', () => {
  it('a seller adds the sandbox test card in Account settings (a bad number is refused under its field); the held order is charged', async () => {
    const page = await newPage(browser, app, seller, { viewport: { width: 1280, height: 1000 } });
    const errors = watchErrors(page);
    await page.goto('/account-settings');
    const section = page.getByTestId('billing-section');
    await section.getByTestId('card-on-file').waitFor();
    expect(await section.getByTestId('card-on-file').textContent()).toContain('No card yet — orders wait until you add one');
    // The order entered production with no card to charge: it waits.
    await expect.poll(() => section.getByTestId('held-orders').textContent()).toContain('1 order is on hold');
    // Test mode is said twice: on the section and on the form, with Stripe's test numbers.
    expect(await section.getByTestId('payments-test-mode').textContent()).toBe('Test mode — no real money moves');
    const form = section.getByTestId('sandbox-card-form');
    expect(await form.textContent()).toContain('TEST MODE');
    const testCards = await form.getByTestId('sandbox-test-cards').textContent();
    for (const number of ['4242 4242 4242 4242', '4000 0000 0000 0002', '4000 0000 0000 9995', '4000 0025 0000 3155']) {
      expect(testCards).toContain(number);
    }

    // Nothing typed: each field says what it needs, and nothing is sent.
    await form.getByRole('button', { name: 'Save card' }).click();
    await form.getByText('Enter the card number').waitFor();
    expect(await form.getByText('Enter the 3 or 4 digit CVC').count()).toBe(1);

    // A number that fails the card check (Luhn): the sandbox refuses it, under the number field.
    await saveSandboxCard(page, '4242 4242 4242 4241');
    const numberField = form.getByRole('textbox', { name: 'Card number' });
    await expect
      .poll(async () => page.locator(`#${await numberField.getAttribute('aria-describedby')}`).textContent(), { timeout: 10_000 })
      .toBe('Your card number is invalid.');
    expect(await numberField.getAttribute('aria-invalid')).toBe('true');
    expect((await sellerClient.get('/api/payments/billing')).body.card).toBeNull();
    await page.screenshot({ path: 'test-results/billing-account-settings-refused.png', fullPage: true });

    // The card that succeeds, filled from the list of test cards.
    await form.getByRole('button', { name: 'Use test card 4242 4242 4242 4242' }).click();
    expect(await numberField.inputValue()).toBe('4242 4242 4242 4242');
    await form.getByRole('button', { name: 'Save card' }).click();
    await section.getByTestId('card-saved').waitFor({ timeout: 10_000 });
    expect(await section.getByTestId('card-saved').textContent()).toContain('1 order released');
    await expect.poll(() => section.getByTestId('held-orders').count()).toBe(0);
    expect(await section.getByTestId('card-on-file').textContent()).toContain('Visa •••• 4242 · expires 12/34');
    expect(await section.getByTestId('sandbox-card-form').count()).toBe(0);
    const billing = (await sellerClient.get('/api/payments/billing')).body;
    expect(billing.card).toMatchObject({ last4: '4242', expMonth: 12, expYear: 2034 });
    await page.screenshot({ path: 'test-results/billing-account-settings-saved.png', fullPage: true });

    // Still there after a reload; Replace card opens the form again, Cancel closes it.
    await page.reload();
    await expect.poll(() => section.getByTestId('card-on-file').textContent(), { timeout: 10_000 }).toContain('•••• 4242');
    await section.getByRole('button', { name: 'Replace card' }).click();
    await section.getByTestId('sandbox-card-form').getByRole('button', { name: 'Cancel' }).click();
    expect(await section.getByTestId('sandbox-card-form').count()).toBe(0);

    // /billing: the order's first attempt (no card) and the second, paid, with what it is made of.
    await page.getByTestId('billing-section').getByRole('link', { name: 'See your charges' }).click();
    const rows = page.getByTestId('charge-row');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).getByTestId('charge-status').textContent()).toBe('Paid');
    expect(await rows.nth(0).getByRole('link', { name: orderNumber }).count()).toBe(1);
    expect(await rows.nth(1).getByTestId('charge-status').textContent()).toBe('Failed');
    expect(await rows.nth(1).getByTestId('charge-failure').textContent()).toBe('No card on file.');
    await rows.nth(0).getByTestId('charge-amount').hover();
    expect(await page.getByRole('tooltip').textContent()).toMatch(/^Items \$\d+\.\d\d · Packaging \$\d+\.\d\d · Shipping \$\d+\.\d\d$/);
    await rows.nth(0).getByRole('button', { name: 'Show the details' }).click();
    await page.locator('.MuiCollapse-entered').waitFor();
    expect(await page.getByTestId('charge-details').textContent()).toContain('Attempt 2');
    await page.screenshot({ path: 'test-results/billing-order-charged.png', fullPage: true });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('an admin charges the card by hand and refunds it; the seller sees both on /billing and on the order', async () => {
    const adminPage = await newPage(browser, app, admin, { viewport: { width: 1280, height: 1000 } });
    const adminErrors = watchErrors(adminPage);
    // From the order in All Orders to the seller's billing, with the order picked.
    await adminPage.goto(`/admin-orders?order=${orderId}`);
    await adminPage.getByTestId('order-charge').getByRole('link', { name: /Seller’s billing/ }).click();
    await adminPage.waitForURL(/\/billing\?/);
    expect(new URL(adminPage.url()).searchParams.get('targetUserId')).toBe(seller.userId);
    await adminPage.getByTestId('billing-card-summary').getByText('•••• 4242', { exact: false }).waitFor();
    const rows = adminPage.getByTestId('charge-row');
    await expect.poll(() => rows.count()).toBe(2);

    await adminPage.getByRole('button', { name: 'Charge card' }).click();
    const dialog = adminPage.getByRole('dialog', { name: /Charge .* card/ });
    expect(await dialog.getByLabel('Order id').inputValue()).toBe(orderId);
    // Below Stripe's minimum: the server says so, and nothing is charged.
    await dialog.getByLabel('Amount').fill('0.20');
    await dialog.getByRole('button', { name: 'Charge card' }).click();
    await dialog.getByText('A card charge must be at least $0.50').waitFor({ timeout: 10_000 });
    await dialog.getByLabel('Amount').fill('12.50');
    await dialog.getByRole('button', { name: 'Charge card' }).click();
    await dialog.waitFor({ state: 'detached', timeout: 10_000 });
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(3);
    expect(await rows.first().getByTestId('charge-amount').textContent()).toBe('$12.50');
    expect(await rows.first().getByTestId('charge-status').textContent()).toBe('Paid');
    expect(await rows.first().textContent()).toContain('Charged by Layerline');

    await rows.first().getByRole('button', { name: 'Refund' }).click();
    const confirm = adminPage.getByRole('dialog', { name: 'Refund $12.50?' });
    await confirm.getByLabel(/Reason/).fill('Print came out warped');
    await confirm.getByRole('button', { name: 'Refund' }).click();
    await confirm.waitFor({ state: 'detached', timeout: 10_000 });
    await expect.poll(() => rows.first().getByTestId('charge-status').textContent(), { timeout: 10_000 }).toBe('Refunded');
    await adminPage.getByTestId('refund-row').waitFor();
    expect(await rows.first().getByRole('button', { name: 'Refund' }).count()).toBe(0);
    await adminPage.screenshot({ path: 'test-results/billing-admin.png', fullPage: true });
    // Everyone's charges, each seller's name leading to their billing.
    await adminPage.goto('/billing');
    await adminPage.getByTestId('charge-row').first().getByRole('link', { name: 'Billie Seller' }).click({ timeout: 10_000 });
    await adminPage.getByRole('button', { name: 'Charge card' }).waitFor();
    expect(new URL(adminPage.url()).searchParams.get('targetUserId')).toBe(seller.userId);
    expect(adminErrors).toEqual([]);
    await adminPage.context().close();

    const page = await newPage(browser, app, seller, { viewport: { width: 1280, height: 1000 } });
    const errors = watchErrors(page);
    await page.goto('/billing');
    const sellerRows = page.getByTestId('charge-row');
    await expect.poll(() => sellerRows.count()).toBe(3);
    expect(await sellerRows.first().getByRole('link', { name: orderNumber }).getAttribute('href')).toBe(`/orders?order=${orderId}`);
    expect(await sellerRows.first().getByTestId('charge-amount').textContent()).toBe('$12.50');
    expect(await page.getByTestId('refund-row').textContent()).toContain('Print came out warped');
    expect(await page.getByTestId('refund-row').textContent()).toContain('−$12.50');
    // Sellers see no admin buttons.
    expect(await page.getByRole('button', { name: 'Charge card' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Refund' }).count()).toBe(0);
    await sellerRows.first().getByRole('button', { name: 'Show the details' }).click();
    expect(await page.getByTestId('charge-details').textContent()).toContain('A charge made by hand');
    await page.locator('.MuiCollapse-entered').waitFor();
    await page.screenshot({ path: 'test-results/billing-seller.png', fullPage: true });

    // The order dialog says what the order cost.
    await sellerRows.first().getByRole('link', { name: orderNumber }).click();
    const charge = page.getByRole('dialog').getByTestId('order-charge');
    await charge.waitFor({ timeout: 10_000 });
    expect(await charge.textContent()).toContain('$12.50');
    expect(await charge.textContent()).toContain('Refunded');
    await page.screenshot({ path: 'test-results/billing-order-dialog.png' });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('a charge the bank wants confirmed waits for the seller, who authenticates it (or fails to)', async () => {
    const page = await newPage(browser, app, seller, { viewport: { width: 1280, height: 1000 } });
    const errors = watchErrors(page);
    await page.goto('/account-settings');
    const section = page.getByTestId('billing-section');
    await section.getByRole('button', { name: 'Replace card' }).click();
    await saveSandboxCard(page, '4000 0025 0000 3155');
    await expect.poll(() => section.getByTestId('card-on-file').textContent(), { timeout: 10_000 }).toContain('•••• 3155');

    const waiting = await chargeByHand(8);
    expect(waiting.status).toBe('requires_action');
    const refused = await chargeByHand(9);
    expect(refused.status).toBe('requires_action');

    // Account settings says what waits, each with its way to the bank.
    await page.reload();
    const actions = section.getByTestId('action-needed');
    await expect.poll(() => actions.count(), { timeout: 10_000 }).toBe(2);
    expect(await actions.allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining(`$8.00 for order ${orderNumber}`)]),
    );
    await page.screenshot({ path: 'test-results/billing-account-settings-action.png', fullPage: true });

    // From /billing: the Authenticate button of the $8.00 charge.
    await page.goto('/billing');
    const row = page.getByTestId('charge-row').filter({ hasText: '$8.00' });
    await row.waitFor({ timeout: 10_000 });
    expect(await row.getByTestId('charge-status').textContent()).toBe('Needs authentication');
    await row.getByRole('link', { name: 'Authenticate' }).click();
    await page.waitForURL(`**/billing/authenticate/${waiting.id}`);
    const panel = page.getByTestId('sandbox-authentication');
    await panel.waitFor({ timeout: 10_000 });
    expect(await panel.textContent()).toContain('TEST MODE');
    expect(await panel.textContent()).toContain(`Your bank asks you to confirm this payment of $8.00 for order ${orderNumber}`);
    await page.screenshot({ path: 'test-results/billing-authenticate.png', fullPage: true });
    await panel.getByRole('button', { name: 'Complete authentication' }).click();
    const outcome = page.getByTestId('authentication-outcome');
    await outcome.waitFor({ timeout: 10_000 });
    expect(await outcome.textContent()).toContain('Payment confirmed');
    await page.screenshot({ path: 'test-results/billing-authenticated.png', fullPage: true });

    // Coming back to a done payment says so.
    await page.reload();
    await expect.poll(() => outcome.textContent(), { timeout: 10_000 }).toContain('This payment is already done');

    // The other one, refused at the bank: failed, with the way to another card.
    await page.goto(`/billing/authenticate/${refused.id}`);
    await panel.getByRole('button', { name: 'Fail authentication' }).click({ timeout: 10_000 });
    await expect.poll(() => outcome.textContent(), { timeout: 10_000 }).toContain('The payment failed');
    expect(await page.getByRole('link', { name: 'Add another card' }).getAttribute('href')).toBe('/account-settings#billing');
    await page.screenshot({ path: 'test-results/billing-authentication-failed.png', fullPage: true });

    await page.goto('/billing');
    await expect
      .poll(async () => (await page.getByTestId('charge-status').allTextContents()).sort(), { timeout: 10_000 })
      .toEqual(['Failed', 'Failed', 'Paid', 'Paid', 'Refunded']);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: 'test-results/billing-mobile.png', fullPage: true });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('an unknown charge on the authentication page says so', async () => {
    const page = await newPage(browser, app, seller);
    await page.goto(`/billing/authenticate/${randomUUID()}`);
    await page.getByRole('alert').filter({ hasText: /not found|No such|unknown/i }).waitFor({ timeout: 10_000 });
    await page.context().close();
  });
});

/**
 * What the pages use of Stripe.js, served in place of https://js.stripe.com/endive/stripe.js: it
 * records the publishable key and what the page confirms, and its card element is a plain input.
 * Stripe.js itself cannot be tested here (no network); this checks our side of it.
 */
const FAKE_STRIPE_JS = `
window.__stripe = { keys: [], setups: [], payments: [] };
window.Stripe = Object.assign(function Stripe(key) {
  window.__stripe.keys.push(key);
  const created = {};
  const cardElement = () => {
    const listeners = {};
    let input = null;
    const emit = (event, payload) => (listeners[event] || []).forEach((cb) => cb(payload));
    return {
      mount(node) {
        input = document.createElement('input');
        input.setAttribute('aria-label', 'Card details');
        input.addEventListener('input', () =>
          emit('change', { elementType: 'card', empty: !input.value, complete: input.value.replace(/\\D/g, '').length >= 16 }),
        );
        node.appendChild(input);
        emit('ready', {});
      },
      on(event, cb) { (listeners[event] = listeners[event] || []).push(cb); return this; },
      off(event, cb) { listeners[event] = (listeners[event] || []).filter((x) => x !== cb); return this; },
      update() {},
      destroy() { if (input) input.remove(); },
      clear() { if (input) input.value = ''; },
      number() { return input ? input.value : ''; },
    };
  };
  return {
    elements() {
      return {
        create(type) { return (created[type] = cardElement()); },
        getElement(type) { return created[typeof type === 'string' ? type : type.__elementType] || null; },
        update() {},
      };
    },
    createToken() {},
    createPaymentMethod() {},
    async confirmCardSetup(clientSecret, data) {
      window.__stripe.setups.push({ clientSecret, number: data.payment_method.card.number() });
      return { setupIntent: { id: clientSecret.split('_secret')[0], status: 'succeeded', payment_method: 'pm_card_visa' } };
    },
    async confirmCardPayment(clientSecret) {
      window.__stripe.payments.push(clientSecret);
      return { paymentIntent: { status: 'succeeded' } };
    },
    _registerWrapper() {},
    registerAppInfo() {},
  };
}, { version: 'endive' });
`;

describe('billing with Stripe keys', () => {
  let stripeApp: RunningApp;
  let stripe: StripeFake;
  let stripeSeller: Credentials;

  beforeAll(async () => {
    const fixtures = loadFixtures();
    stripe = await startStripeFake(await loadStripeApi(), fixtures);
    stripeApp = await startApp({
      STRIPE_SECRET_KEY: 'sk_test_layerline_e2e',
      STRIPE_PUBLISHABLE_KEY: 'pk_test_layerline_e2e_from_server',
      STRIPE_API_URL: `http://${stripe.host}:${stripe.port}`,
    });
    stripeSeller = await makeUser(stripeApp, { role: 'seller', name: 'Stripe Seller' });
  }, 120_000);

  afterAll(async () => {
    await stripeApp?.stop();
    await stripe?.close();
  });

  /** A page whose js.stripe.com answers the stand-in; the Stripe chunks and scripts it asked for are recorded. */
  async function stripePage(user: Credentials | undefined): Promise<{ page: Page; stripeLoads: string[] }> {
    const page = await newPage(browser, stripeApp, user, { viewport: { width: 1280, height: 1000 } });
    const stripeLoads: string[] = [];
    page.on('request', (request) => {
      if (/js\.stripe\.com|StripeCardForm|StripeAuthentication|stripe-loader/.test(request.url())) stripeLoads.push(request.url());
    });
    await page.route('https://js.stripe.com/**', (route) =>
      route.fulfill({ status: 200, contentType: 'application/javascript', body: FAKE_STRIPE_JS }),
    );
    return { page, stripeLoads };
  }

  it('loads Stripe only for the card form, with the server’s key, and stores the card Stripe confirmed', async () => {
    const visitor = await stripePage(undefined);
    await visitor.page.goto('/');
    await visitor.page.getByRole('heading', { level: 1 }).first().waitFor();
    await visitor.page.waitForLoadState('networkidle');
    expect(visitor.stripeLoads).toEqual([]);
    await visitor.page.context().close();

    const { page, stripeLoads } = await stripePage(stripeSeller);
    const errors = watchErrors(page);
    await page.goto('/billing');
    await page.getByTestId('billing-card-summary').waitFor();
    await page.waitForLoadState('networkidle');
    expect(stripeLoads).toEqual([]);

    await page.goto('/account-settings');
    const section = page.getByTestId('billing-section');
    const form = section.getByTestId('stripe-card-form');
    await form.waitFor({ timeout: 15_000 });
    expect(await section.getByTestId('sandbox-card-form').count()).toBe(0);
    // sk_test keys: no real money moves, and the page says so.
    expect(await section.getByTestId('payments-test-mode').count()).toBe(1);
    expect(await page.evaluate(() => (window as unknown as { __stripe: { keys: string[] } }).__stripe.keys)).toEqual([
      'pk_test_layerline_e2e_from_server',
    ]);
    expect(stripeLoads.some((url) => url.startsWith('https://js.stripe.com/'))).toBe(true);

    const save = form.getByRole('button', { name: 'Save card' });
    expect(await save.isDisabled()).toBe(true);
    await form.getByLabel('Card details').fill('4242 4242 4242 4242');
    await save.click();
    await section.getByTestId('card-saved').waitFor({ timeout: 15_000 });
    // The card is the one Stripe answers for the payment method (its fixture: a Visa ending 4242, 08/24).
    expect(await section.getByTestId('card-on-file').textContent()).toContain('Visa •••• 4242 · expires 08/24');
    const setups = await page.evaluate(() => (window as unknown as { __stripe: { setups: { clientSecret: string }[] } }).__stripe.setups);
    expect(setups).toHaveLength(1);
    expect(setups[0]!.clientSecret).toMatch(/^seti_.+_secret_fake$/);
    const used = stripe.requests.map((request) => request.operationId);
    expect(used).toEqual(expect.arrayContaining(['PostSetupIntents', 'PostPaymentMethodsPaymentMethodAttach', 'PostCustomersCustomer']));
    expect(stripe.requests.flatMap((request) => request.errors)).toEqual([]);
    await page.screenshot({ path: 'test-results/billing-stripe-card-saved.png', fullPage: true });
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('authenticates a charge Stripe holds with stripe.confirmCardPayment, then reads it back', async () => {
    const fixtures = loadFixtures();
    const stripeAdmin = await stripeApp.testApp.signUp({ role: 'admin', name: 'Stripe Admin', email: uniqueEmail('stripe-admin') });
    // An order to charge: its variant written straight to the database (the charge is by hand, for an amount the admin names).
    await addVariants(stripeApp.testApp.context, stripeSeller.userId, ['STRIPE-CUBE']);
    const sellerClient = stripeApp.testApp.client();
    expect((await sellerClient.post('/api/auth/sign-in/email', { email: stripeSeller.email, password: stripeSeller.password })).status).toBe(200);
    const placed = await sellerClient.post('/api/orders/manual', {
      items: [{ sku: 'STRIPE-CUBE', quantity: 1 }],
      shippingAddress: { name: 'Lee Park', line1: '1 Main Street', city: 'Austin', region: 'TX', postalCode: '78701', country: 'US' },
    });
    expect(placed.status).toBe(201);

    // The card's bank wants the seller to confirm this one.
    stripe.answer((request) =>
      request.operationId === 'PostPaymentIntents'
        ? { status: 200, body: { ...paymentIntentFrom(fixtures, request.body, 'requires_action'), next_action: { type: 'use_stripe_sdk', use_stripe_sdk: {} } } }
        : undefined,
    );
    const charged = await stripeAdmin.post('/api/payments/charge-stored-card', {
      orderId: placed.body.id,
      amount: 7,
      targetUserId: stripeSeller.userId,
      requestId: randomUUID(),
    });
    stripe.answer(undefined);
    expect(charged.status).toBe(200);
    expect(charged.body.status).toBe('requires_action');
    const { clientSecret } = (await sellerClient.get(`/api/payments/charges/${charged.body.id}/authentication`)).body as { clientSecret: string };
    expect(clientSecret).toBeTruthy();

    const { page, stripeLoads } = await stripePage(stripeSeller);
    const errors = watchErrors(page);
    await page.goto(`/billing/authenticate/${charged.body.id}`);
    await page.getByText(`Your bank asks you to confirm this payment of $7.00 for order ${placed.body.externalId}.`).waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('sandbox-authentication').count()).toBe(0);
    await page.getByRole('button', { name: 'Confirm with your bank' }).click({ timeout: 15_000 });
    const outcome = page.getByTestId('authentication-outcome');
    await outcome.waitFor({ timeout: 15_000 });
    expect(await outcome.textContent()).toContain('Payment confirmed');
    expect(await page.evaluate(() => (window as unknown as { __stripe: { payments: string[] } }).__stripe.payments)).toEqual([clientSecret]);
    expect(stripeLoads.some((url) => url.includes('StripeAuthentication'))).toBe(true);
    // Read back from Stripe after the bank's answer, not taken from the browser's word.
    expect(stripe.requests.at(-1)?.operationId).toBe('GetPaymentIntentsIntent');
    expect(stripe.requests.flatMap((request) => request.errors)).toEqual([]);
    await page.screenshot({ path: 'test-results/billing-stripe-authenticated.png', fullPage: true });
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
