import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { makeUser, newBrowser, newPage, startApp, type Credentials, type RunningApp } from './harness.ts';

/**
 * /admin-printers (issue 11, item 1) in a real browser: an admin opens Printers from the admin
 * side nav, adds a simulated printer (the dialog's default kind), tests its connection (the
 * simulated printer answers), loads a spool, and pauses it after confirming; then (issue 20) a
 * power group, a printer's allowed materials, enclosure, group and own G-code through the dialog,
 * and the farm's flag for a person, cleared with "Resolved — take jobs again".
 */
let app: RunningApp;
let browser: Browser;
let admin: Credentials;

beforeAll(async () => {
  app = await startApp();
  browser = await newBrowser();
  admin = await makeUser(app, { role: 'admin', name: 'Farm Admin' });
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe('the printers page', () => {
  it('adds a simulated printer, tests its connection and pauses it', async () => {
    const page = await newPage(browser, app, admin, { viewport: { width: 1366, height: 900 } });
    await page.goto('/admin');
    await page.getByRole('link', { name: 'Printers' }).first().click();
    await page.waitForURL('**/admin-printers');
    await page.getByText('No printers yet').waitFor({ timeout: 15_000 });

    await page.getByRole('button', { name: 'Add printer' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a printer' });
    // The server's message for a missing name shows in the dialog.
    await dialog.getByRole('button', { name: 'Add printer' }).click();
    await dialog.getByText('name: Enter a name').waitFor();
    await dialog.getByLabel('Name').fill('E2E Sim');
    await dialog.getByLabel('Model').fill('Simulated MK4');
    await page.screenshot({ path: 'test-results/printers-dialog.png' });
    await dialog.getByRole('button', { name: 'Add printer' }).click();
    await dialog.waitFor({ state: 'hidden' });

    const row = page.getByTestId('printer-E2E Sim');
    await row.waitFor();
    await expect.poll(() => row.textContent()).toContain('250 × 210 × 220 mm');
    expect(await row.textContent()).toContain('Simulated printer');
    // Until someone (or the farm's own poll, which may come first on a busy machine) asks the printer.
    expect(await row.textContent()).toMatch(/Not checked yet|Idle/);

    await row.getByRole('button', { name: 'Test connection' }).click();
    const test = page.getByRole('dialog', { name: /Test connection/ });
    await test.getByText(/Connected: /).waitFor({ timeout: 15_000 });
    expect(await test.textContent()).toContain('It is idle');
    await test.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => row.textContent()).toContain('Idle');

    await row.getByRole('button', { name: 'Spools' }).click();
    const spools = page.getByRole('dialog', { name: /Spools of E2E Sim/ });
    await spools.getByRole('button', { name: 'Add spool' }).click();
    await spools.getByLabel('Colour', { exact: true }).fill('Ocean blue');
    await spools.getByRole('button', { name: 'Save spools' }).click();
    await spools.waitFor({ state: 'hidden' });
    await expect.poll(() => row.textContent()).toContain('PLA Ocean blue · 1,000 g');

    await page.screenshot({ path: 'test-results/printers-page.png', fullPage: true });

    await row.getByRole('button', { name: 'Pause' }).click();
    const confirm = page.getByRole('dialog', { name: 'Pause this printer?' });
    await confirm.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => row.textContent()).toContain('paused');
    await row.getByRole('button', { name: 'Resume' }).waitFor();

    const stored = await app.testApp.context.printers.list();
    expect(stored).toMatchObject([
      {
        name: 'E2E Sim',
        status: 'paused',
        lastState: { state: 'idle' },
        spools: [{ colourName: 'Ocean blue', loaded: true }],
      },
    ]);
  });

  it('keeps a power group, a printer’s materials, enclosure, group and own G-code, and clears the farm’s flag', async () => {
    const page = await newPage(browser, app, admin, { viewport: { width: 1366, height: 1000 } });
    await page.goto('/admin-printers');
    const groups = page.getByRole('region', { name: 'Power groups' });
    await groups.getByRole('button', { name: 'Add group' }).click();
    const groupDialog = page.getByRole('dialog', { name: 'Add a power group' });
    await groupDialog.getByLabel('Name').fill('Circuit 1');
    await groupDialog.getByLabel('Starts at most').fill('3');
    await groupDialog.getByLabel('Per seconds').fill('90');
    await groupDialog.getByRole('button', { name: 'Add group' }).click();
    await groupDialog.waitFor({ state: 'hidden' });
    await page.getByTestId('power-group-Circuit 1').getByText('at most 3 starts per 90 s').waitFor();

    await page.getByRole('button', { name: 'Add printer' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a printer' });
    await dialog.getByLabel('Name').fill('E2E Core One');
    await dialog.getByText('ABS, ASA, Nylon only go to enclosed printers.').waitFor();
    for (const material of ['TPU', 'Nylon']) await dialog.getByRole('checkbox', { name: material }).uncheck();
    await dialog.getByRole('switch', { name: 'Enclosed' }).check();
    await dialog.getByLabel('Power group').click();
    await page.getByRole('option', { name: /Circuit 1/ }).click();
    await dialog.getByLabel('Slicer profile').click();
    await page.getByRole('option', { name: 'My own start and end G-code' }).click();
    await dialog.getByLabel('Start G-code').fill('G28 ; home\nG29 ; mesh');
    await dialog.getByLabel('End G-code').fill('M104 S0');
    await page.screenshot({ path: 'test-results/printers-dialog-issue20.png' });
    await dialog.getByRole('button', { name: 'Add printer' }).click();
    await dialog.waitFor({ state: 'hidden' });

    const row = page.getByTestId('printer-E2E Core One');
    await expect.poll(() => row.textContent()).toContain('enclosed · Circuit 1');
    const [stored] = (await app.testApp.context.printers.list()).filter((p) => p.name === 'E2E Core One');
    expect(stored).toMatchObject({
      materials: ['PLA', 'PETG', 'ABS', 'ASA'],
      enclosed: true,
      slicerProfile: { kind: 'custom', startGcode: 'G28 ; home\nG29 ; mesh', endGcode: 'M104 S0' },
    });
    await page.getByTestId('power-group-Circuit 1').getByText('1 printer').waitFor();

    // The farm flags it (as its poller does on an answer it does not know); a person clears it.
    await app.testApp.context.printerRepository.flagAttention(
      stored!.id,
      'It answered “BOOTLOADER”, a state Layerline does not know',
    );
    await page.reload();
    const banner = page.getByTestId('printer-attention');
    await banner
      .getByText('Needs a person: It answered “BOOTLOADER”, a state Layerline does not know')
      .waitFor();
    await page.screenshot({ path: 'test-results/printers-attention.png', fullPage: true });
    await banner.getByRole('button', { name: 'Resolved — take jobs again' }).click();
    await banner.waitFor({ state: 'hidden' });
    expect((await app.testApp.context.printerRepository.find(stored!.id))!.attention).toBeNull();
  });
});
