import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startBambulabSimulator, type BambulabSimulator } from '../apps/server/src/integrations/bambulab/bambulab-simulator.ts';
import { makeUser, newBrowser, newPage, startApp, type Credentials, type RunningApp } from './harness.ts';

/**
 * A Bambu Lab printer on /admin-printers (issue 22) in a real browser: the dialog says what the
 * printer needs (LAN-only mode, Developer Mode, access code, serial), an admin enters its IP, serial
 * and access code, Test connection answers from a simulated P1S (MQTT over TLS), the row shows the
 * pinned certificate; the printer shows a new certificate, Test connection says so, and "Trust new
 * certificate" lets it connect again.
 */
let app: RunningApp;
let browser: Browser;
let admin: Credentials;
let sim: BambulabSimulator;

beforeAll(async () => {
  app = await startApp({ PRINTER_ALLOW_LOOPBACK: 'true' });
  browser = await newBrowser();
  admin = await makeUser(app, { role: 'admin', name: 'Farm Admin' });
  sim = await startBambulabSimulator();
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await sim?.stop();
});

describe('a Bambu Lab printer on the printers page', () => {
  it('is added with its serial and access code, tested, and re-trusted after its certificate changed', async () => {
    const page = await newPage(browser, app, admin, { viewport: { width: 1366, height: 1000 } });
    await page.goto('/admin-printers');
    await page.getByRole('button', { name: 'Add printer' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a printer' });
    await dialog.getByLabel('Name').fill('E2E P1S');
    await dialog.getByLabel('Connection').click();
    await page.getByRole('option', { name: 'Bambu Lab (LAN mode)' }).click();
    const requirements = dialog.getByTestId('bambu-requirements');
    expect(await requirements.textContent()).toMatch(/LAN-only mode.*Developer Mode.*access code.*serial number/s);
    const connection = sim.connection() as { mqttPort: number; ftpsPort: number };
    await dialog.getByLabel('IP address').fill('127.0.0.1');
    await dialog.getByLabel('Serial number').fill(sim.serial);
    await dialog.getByLabel('LAN access code').fill(sim.accessCode);
    await dialog.getByLabel('MQTT port').fill(String(connection.mqttPort));
    await dialog.getByLabel('FTPS port').fill(String(connection.ftpsPort));
    // Choosing the kind chose the machine profile and its bed.
    expect(await dialog.getByLabel('Build X (mm)').inputValue()).toBe('256');
    await page.screenshot({ path: 'test-results/printers-dialog-bambu.png' });
    await dialog.getByRole('button', { name: 'Add printer' }).click();
    await dialog.waitFor({ state: 'hidden' });

    const row = page.getByTestId('printer-E2E P1S');
    await expect.poll(() => row.textContent()).toContain(`127.0.0.1 · ${sim.serial} · access code stored`);
    await row.getByRole('button', { name: 'Test connection' }).click();
    const test = page.getByRole('dialog', { name: /Test connection/ });
    await test.getByText(/Connected: /).waitFor({ timeout: 15_000 });
    expect(await test.textContent()).toContain('Bambu Lab P1S');
    await test.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => row.textContent()).toContain('certificate pinned');

    sim.swapCertificate();
    await new Promise((r) => setTimeout(r, 200)); // the printer dropped the old connection
    await row.getByRole('button', { name: 'Test connection' }).click();
    await test.getByText(/trust its new certificate/).waitFor({ timeout: 15_000 });
    await test.getByRole('button', { name: 'Close' }).click();
    await row.getByRole('button', { name: 'Trust new certificate' }).click();
    await expect.poll(() => row.textContent()).not.toContain('certificate pinned');
    await row.getByRole('button', { name: 'Test connection' }).click();
    await test.getByText(/Connected: /).waitFor({ timeout: 15_000 });
    await page.screenshot({ path: 'test-results/printers-page-bambu.png', fullPage: true });
    const [stored] = await app.testApp.context.printers.list();
    expect(stored).toMatchObject({ name: 'E2E P1S', slicerProfile: { kind: 'bambulab', model: 'P1S' }, secretSet: true });
    expect(JSON.stringify(stored)).not.toContain(sim.accessCode);
  });
});
