import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { makeUser, newBrowser, newPage, startApp, type Credentials, type RunningApp } from './harness.ts';

/**
 * Email notifications in a real browser, on a server without SMTP (the embedded default, where
 * every email stays in the outbox): a seller turns a kind of email off in Account settings; an
 * admin reads the seller's welcome email in the outbox (HTML in a sandboxed frame, and the text)
 * and writes one with a variable; the welcome email's unsubscribe link turns welcome emails off.
 */
let app: RunningApp;
let browser: Browser;
let seller: Credentials;
let admin: Credentials;

beforeAll(async () => {
  app = await startApp();
  browser = await newBrowser();
  seller = await makeUser(app, { name: 'Mail Seller' });
  admin = await makeUser(app, { role: 'admin', name: 'Mail Admin' });
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe('email notifications', () => {
  it('a seller turns a kind of email off with its switch, and it stays off', async () => {
    const page = await newPage(browser, app, seller);
    await page.goto('/account-settings');
    const section = page.getByTestId('email-notifications-section');
    const weekly = section.getByRole('switch', { name: /Weekly summary/ });
    await expect.poll(() => weekly.isChecked()).toBe(true);
    expect(await section.getByRole('switch', { name: /Order on hold/ }).isChecked()).toBe(true);
    await weekly.click();
    await section.getByRole('button', { name: 'Save email settings' }).click();
    await page.getByText('Email settings saved').waitFor();
    await page.reload();
    await expect.poll(() => page.getByTestId('email-notifications-section').getByRole('switch', { name: /Weekly summary/ }).isChecked()).toBe(false);
    expect(await page.getByTestId('email-notifications-section').getByRole('switch', { name: /Order shipped/ }).isChecked()).toBe(true);
    const saved = await app.testApp.context.notifications.preferences(seller.userId);
    expect(saved.disabled).toEqual(['weekly_summary']);
    await page.context().close();
  });

  it('an admin reads an email in the outbox and writes one; its unsubscribe link works', async () => {
    const page = await newPage(browser, app, admin, { viewport: { width: 1440, height: 900 } });
    await page.goto('/admin-outbox');
    const row = page.getByTestId('email-row').filter({ hasText: seller.email });
    await row.waitFor();
    expect(await row.textContent()).toContain('Welcome to Layerline, Mail Seller');
    expect(await row.textContent()).toContain('In the outbox');
    await row.click();
    const dialog = page.getByRole('dialog', { name: 'Welcome to Layerline, Mail Seller' });
    await dialog.waitFor();
    await dialog.frameLocator('iframe[title="Email as HTML"]').getByText('Hi Mail Seller, welcome to Layerline.').waitFor();
    await dialog.getByRole('tab', { name: 'Plain text' }).click();
    const text = (await dialog.getByTestId('email-text').textContent()) ?? '';
    expect(text).toContain('Open your dashboard:');
    const unsubscribeLink = text.match(/Unsubscribe from these emails: (\S+)/)![1]!;
    await dialog.getByRole('button', { name: 'Close' }).click();

    await page.getByRole('button', { name: 'Send email' }).click();
    const write = page.getByRole('dialog', { name: 'Send an email' });
    await write.getByLabel('To').fill(seller.email);
    await write.getByLabel('Subject').fill('Your parcel, {{name}}');
    await write.getByLabel('Message').fill('Hello {{name}},\n\nIt is on its way.');
    await write.getByLabel('Variables').fill('name=<Ada>');
    await write.getByRole('button', { name: 'Send' }).click();
    const sent = page.getByRole('dialog', { name: 'Your parcel, <Ada>' });
    await sent.waitFor();
    await sent.frameLocator('iframe[title="Email as HTML"]').getByText('Hello <Ada>,').waitFor();
    await sent.getByRole('button', { name: 'Close' }).click();
    await page.getByTestId('email-row').filter({ hasText: 'Your parcel, <Ada>' }).waitFor();
    await page.context().close();

    // The link as the seller would follow it (same path and token on this server).
    const visitor = await newPage(browser, app);
    const link = new URL(unsubscribeLink);
    await visitor.goto(`${link.pathname}${link.search}`);
    await visitor.getByText(/Stop sending Welcome emails to s\*\*\*@example\.test\?/).waitFor();
    await visitor.getByRole('button', { name: 'Unsubscribe' }).click();
    await visitor.getByText(/no longer gets Welcome emails/).waitFor();
    expect((await app.testApp.context.notifications.preferences(seller.userId)).disabled).toEqual(['welcome', 'weekly_summary']);
    await visitor.context().close();
  });
});
