import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { makeUser, newBrowser, newPage, startApp, type Credentials, type RunningApp } from './harness.ts';

/**
 * Continuous printing (issue 22, point 3) in a real browser: on /admin-printers an admin gives a
 * printer an eject G-code with its release temperature and its cap of plates without a person (a
 * wrong temperature is refused in the server's words), sees "Clears itself" in the list, turns it
 * into a plate changer, and the production board shows how its bed is cleared.
 */
let app: RunningApp;
let browser: Browser;
let admin: Credentials;

beforeAll(async () => {
  app = await startApp({ FARM_TICK_S: '300' });
  browser = await newBrowser();
  admin = await makeUser(app, { role: 'admin', name: 'Farm Admin' });
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe('the bed clearing setting on the printers page', () => {
  it('makes a printer clear itself by eject G-code, then by a plate changer, and the board shows it', async () => {
    const page = await newPage(browser, app, admin, { viewport: { width: 1366, height: 1100 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto('/admin-printers');

    await page.getByRole('button', { name: 'Add printer' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a printer' });
    await dialog.getByLabel('Name').fill('E2E Ejector');
    await dialog.getByLabel('Bed clearing').click();
    await page.getByRole('option', { name: 'Eject G-code (clears itself)' }).click();
    await dialog.getByText('After each print the bed cools, then your G-code sweeps the part off').waitFor();
    await dialog.getByLabel('Eject G-code').fill('G1 Z200 F600\nG1 Y0 F3000');
    await dialog.getByLabel('Release temperature (°C)').fill('95');
    await dialog.getByLabel('Plates without a person').fill('4');
    await dialog.getByRole('button', { name: 'Add printer' }).click();
    // The server's words for a temperature a part never lets go at.
    await dialog.getByText('clearing.releaseTempC: The release temperature must be between 15 and 80 °C').waitFor();
    await dialog.getByLabel('Release temperature (°C)').fill('32');
    await page.screenshot({ path: 'test-results/continuous-printing-dialog.png' });
    await dialog.getByRole('button', { name: 'Add printer' }).click();
    await dialog.waitFor({ state: 'hidden' });

    const row = page.getByTestId('printer-E2E Ejector');
    await expect
      .poll(() => row.textContent())
      .toContain('Clears itself by eject G-code (32 °C) · 0 of 4 plates without a person');
    const stored = (await app.testApp.context.printers.list()).find((p) => p.name === 'E2E Ejector');
    expect(stored).toMatchObject({
      name: 'E2E Ejector',
      clearing: { kind: 'eject_gcode', gcode: 'G1 Z200 F600\nG1 Y0 F3000', releaseTempC: 32, maxUnattendedPlates: 4 },
    });

    // The edit dialog starts from what is stored; a plate changer needs no G-code.
    await row.getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit E2E Ejector' });
    expect(await edit.getByLabel('Eject G-code').inputValue()).toBe('G1 Z200 F600\nG1 Y0 F3000');
    await edit.getByLabel('Bed clearing').click();
    await page.getByRole('option', { name: 'Plate changer (clears itself)' }).click();
    expect(await edit.getByLabel('Eject G-code').count()).toBe(0);
    await edit.getByLabel('Plates without a person').fill('12');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'hidden' });
    await expect.poll(() => row.textContent()).toContain('Clears itself by plate changer · 0 of 12 plates without a person');

    await page.goto('/admin-production');
    const card = page.getByTestId('board-printer-E2E Ejector');
    await expect.poll(() => card.textContent(), { timeout: 20_000 }).toContain('Clears itself · plate changer · 0/12 plates');
    await page.screenshot({ path: 'test-results/continuous-printing-board.png' });

    // Back to a person: the list says nothing more, the board says who clears it.
    await page.goto('/admin-printers');
    await row.getByRole('button', { name: 'Edit' }).click();
    await edit.getByLabel('Bed clearing').click();
    await page.getByRole('option', { name: 'A person clears the bed' }).click();
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'hidden' });
    await expect.poll(() => row.textContent()).not.toContain('Clears itself');
    expect((await app.testApp.context.printers.list()).find((p) => p.name === 'E2E Ejector')!.clearing).toEqual({ kind: 'person' });
    await page.goto('/admin-production');
    await expect.poll(() => card.textContent(), { timeout: 20_000 }).toContain('Cleared by a person');
    expect(pageErrors).toEqual([]);
  });
});
