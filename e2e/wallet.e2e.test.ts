import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { uniqueEmail, uploadDesign, type SignedInClient } from '../apps/server/test/test-app.ts';
import { newBrowser, newPage, startApp, type Credentials, type RunningApp } from './harness.ts';

/**
 * Billing's wallet (issue 24, docs/wallet.md) in a real browser against the real server and the sandbox
 * payment provider: the seller tops up $25 by their test card, sees the balance, its history and the
 * receipt (whose PDF opens), turns on auto-recharge, and an order is paid from the balance; an admin
 * adjusts the seller's balance from the seller's Billing page and sets the business details the
 * receipts carry on the admin overview.
 */
const CUBE = fs.readFileSync(path.resolve(import.meta.dirname, '../../shared/models/ps-20mm_cube.obj'));

let app: RunningApp;
let browser: Browser;
let sellerClient: SignedInClient;
let seller: Credentials;
let admin: Credentials;

const credentials = (client: SignedInClient): Credentials => ({ email: client.email, password: client.password, userId: client.userId });

beforeAll(async () => {
  app = await startApp({ PAYMENTS_CHARGE_ORDERS: 'true' });
  browser = await newBrowser();
  admin = credentials(await app.testApp.signUp({ role: 'admin', name: 'Wallet Admin', email: uniqueEmail('wallet-admin') }));
  sellerClient = await app.testApp.signUp({ role: 'seller', name: 'Wally Seller', email: uniqueEmail('wallet-seller') });
  seller = credentials(sellerClient);
  const design = (await uploadDesign(sellerClient, CUBE, 'ps-20mm_cube.obj')) as { printConfigs: { id: string }[] };
  const product = await sellerClient.post('/api/products', {
    name: 'Desk cube',
    variants: [{ name: 'Single', sku: 'WALLET-CUBE', packaging: 'standard', parts: [{ printConfigId: design.printConfigs[0]!.id, quantity: 1 }] }],
  });
  expect(product.status).toBe(201);
  // The card as the Account settings form stores it (that form has its own browser test: billing.e2e.test.ts).
  expect((await sellerClient.post('/api/payments/setup-intent')).status).toBe(200);
  const method = await sellerClient.post('/api/payments/sandbox/payment-methods', { cardNumber: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' });
  expect((await sellerClient.post('/api/payments/default-payment-method', { paymentMethodId: method.body.paymentMethodId })).status).toBe(200);
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

describe('the wallet on Billing', () => {
  it('a seller tops up, sees the balance, its history and the receipt PDF, turns on auto-recharge, and an order is paid from the balance', async () => {
    const page = await newPage(browser, app, seller, { viewport: { width: 1280, height: 1100 } });
    const errors = watchErrors(page);
    await page.goto('/billing');
    const wallet = page.getByTestId('wallet');
    await expect.poll(() => wallet.getByTestId('wallet-balance').textContent()).toBe('$0.00');
    await wallet.getByRole('button', { name: 'Top up' }).click();
    const dialog = page.getByRole('dialog', { name: 'Top up the balance' });
    await dialog.getByLabel('Amount ($)').fill('2');
    await dialog.getByRole('button', { name: 'Top up' }).click();
    await dialog.getByText('At least $5.00').waitFor();
    await dialog.getByLabel('Amount ($)').fill('25');
    await dialog.getByRole('button', { name: 'Top up' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => wallet.getByTestId('wallet-balance').textContent()).toBe('$25.00');
    const entry = wallet.getByTestId('wallet-entry').first();
    expect(await entry.textContent()).toContain('Top-up');
    const receiptLink = wallet.getByTestId('receipt').first().getByRole('link');
    expect(await receiptLink.textContent()).toMatch(/^R-\d{6}$/);
    const pdf = await page.request.get((await receiptLink.getAttribute('href'))!);
    expect(pdf.headers()['content-type']).toBe('application/pdf');
    expect((await pdf.body()).subarray(0, 5).toString()).toBe('%PDF-');

    const form = page.getByRole('form', { name: 'Auto-recharge' });
    await form.getByLabel('Auto-recharge').check();
    await form.getByLabel('When the balance falls below ($)').fill('5');
    await form.getByLabel('Top up by ($)').fill('20');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Auto-recharge is on').waitFor();
    expect((await sellerClient.get('/api/wallet')).body).toMatchObject({ autoRecharge: true, rechargeThresholdCents: 500, rechargeAmountCents: 2000 });

    // An order entering production is paid from the balance: the charge says so and the balance goes down.
    const placed = await sellerClient.post('/api/orders/manual', {
      items: [{ sku: 'WALLET-CUBE', quantity: 1 }],
      shippingAddress: { name: 'Maya Thompson', line1: '1420 Larkin Street', city: 'San Francisco', region: 'CA', postalCode: '94109', country: 'US' },
    });
    expect(placed.status).toBe(201);
    await app.testApp.context.orders.announcementsSettled();
    const [paid] = (await sellerClient.get(`/api/payments/charges?orderId=${placed.body.id}`)).body.items;
    expect(paid).toMatchObject({ provider: 'wallet', status: 'succeeded' });
    await page.reload();
    const expected = `$${((2500 - paid.amountCents) / 100).toFixed(2)}`;
    await expect.poll(() => page.getByTestId('wallet-balance').textContent()).toBe(expected);
    expect(await page.getByTestId('wallet-entry').first().textContent()).toContain(`Order ${placed.body.externalId}`);
    expect(await page.getByTestId('receipt').first().textContent()).toContain('Balance');
    // The month's statement and the CSV are offered.
    const statementHref = await page.getByRole('link', { name: 'Statement PDF' }).getAttribute('href');
    const statement = await page.request.get(statementHref!);
    expect((await statement.body()).subarray(0, 5).toString()).toBe('%PDF-');
    const csv = await page.request.get((await page.getByRole('link', { name: 'Balance history CSV' }).getAttribute('href'))!);
    expect(await csv.text()).toContain(',top_up,Top-up,25.00,25.00,USD,R-');
    expect(errors).toEqual([]);
  });

  it('an admin adjusts the seller’s balance from their Billing page and sets the business details on receipts', async () => {
    const page = await newPage(browser, app, admin, { viewport: { width: 1280, height: 1100 } });
    const errors = watchErrors(page);
    const before = (await sellerClient.get('/api/wallet')).body.balanceCents as number;
    await page.goto(`/billing?targetUserId=${seller.userId}`);
    const wallet = page.getByTestId('wallet');
    await wallet.getByRole('button', { name: 'Adjust balance' }).click();
    const dialog = page.getByRole('dialog', { name: 'Adjust the balance' });
    await dialog.getByLabel('Amount ($, negative to debit)').fill('7.50');
    await dialog.getByLabel('Reason (on the seller’s receipt)').fill('Goodwill: late parcel');
    await dialog.getByRole('button', { name: 'Adjust' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => wallet.getByTestId('wallet-balance').textContent()).toBe(`$${((before + 750) / 100).toFixed(2)}`);
    expect(await wallet.getByTestId('receipt').first().textContent()).toContain('Goodwill: late parcel');

    await page.goto('/admin');
    const panel = page.getByTestId('admin-business-details');
    await panel.getByLabel('Legal name').fill('Okafor Print Farm LLC');
    await panel.getByLabel('Billing email').fill('billing@okafor.test');
    await panel.getByLabel('Address').fill('12 Filament Way\nDayton, OH 45402');
    await panel.getByRole('button', { name: 'Save business details' }).click();
    await page.getByText('Receipts issued from now on carry these details').waitFor();
    expect((await app.testApp.context.businessDetails.get()).details.legalName).toBe('Okafor Print Farm LLC');
    expect(errors).toEqual([]);
  });
});
