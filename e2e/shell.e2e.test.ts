import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  documentTitle,
  REDIRECTS,
  ROUTES,
  TOUR_STEPS,
  UNKNOWN_PATH_TARGET,
  type AppPath,
  type RouteAccess,
} from '@layerline/contracts';
import { makeUser, newBrowser, newPage, startApp, type Credentials, type RunningApp } from './harness.ts';

/**
 * The web shell in a real browser: the route table with its guards and redirects for every
 * role, titles, header and side nav per role, the theme, the tour and toasts.
 */
type Role = 'visitor' | 'seller' | 'beta' | 'admin';
const ROLES: readonly Role[] = ['visitor', 'seller', 'beta', 'admin'];

/** §2: where each role ends up on a route of each access level ('self' = it may stay). */
const EXPECTED_LANDING: Record<Role, Record<RouteAccess, 'self' | AppPath>> = {
  visitor: { public: 'self', 'logged-out-only': 'self', 'signed-in': '/login', beta: '/', admin: '/login' },
  seller: {
    public: 'self',
    'logged-out-only': '/dashboard',
    'signed-in': 'self',
    beta: '/',
    admin: '/dashboard',
  },
  beta: {
    public: 'self',
    'logged-out-only': '/dashboard',
    'signed-in': 'self',
    beta: 'self',
    admin: '/dashboard',
  },
  admin: { public: 'self', 'logged-out-only': '/dashboard', 'signed-in': 'self', beta: '/', admin: 'self' },
};

const titleOf = (path: string): string => {
  const route = ROUTES.find((candidate) => candidate.path === path);
  if (!route) throw new Error(`no route ${path}`);
  return documentTitle(route.title);
};

function expectedLanding(role: Role, path: string): string {
  const route = ROUTES.find((candidate) => candidate.path === path);
  if (!route) {
    const redirect = REDIRECTS[path];
    return redirect ? expectedLanding(role, redirect) : expectedLanding(role, UNKNOWN_PATH_TARGET);
  }
  const target = EXPECTED_LANDING[role][route.access];
  return target === 'self' ? path : target;
}

let app: RunningApp;
let browser: Browser;
const users = {} as Record<Exclude<Role, 'visitor'>, Credentials>;

beforeAll(async () => {
  [app, browser] = await Promise.all([startApp(), newBrowser()]);
  users.seller = await makeUser(app, { role: 'seller', name: 'Sam Seller' });
  users.beta = await makeUser(app, { role: 'beta', name: 'Bea Beta' });
  users.admin = await makeUser(app, { role: 'admin', name: 'Ada Admin' });
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

function pageFor(role: Role, options: Parameters<Browser['newContext']>[0] = {}): Promise<Page> {
  return newPage(browser, app, role === 'visitor' ? undefined : users[role], options);
}

/** Waits until the app shows `path` with its title: the guard let the viewer in and the page rendered. */
async function waitForPage(page: Page, path: string): Promise<void> {
  await page.waitForFunction(
    ([expectedPath, expectedTitle]) =>
      window.location.pathname === expectedPath && document.title === expectedTitle,
    [path, titleOf(path)] as const,
    { timeout: 10_000 },
  );
}

describe('route table', () => {
  const paths = [...ROUTES.map((route) => route.path), ...Object.keys(REDIRECTS), '/no-such-page/at-all'];

  for (const role of ROLES) {
    it(`${role}: every route, redirect and unknown path lands where the table says, with its title`, async () => {
      const page = await pageFor(role);
      const wrong: string[] = [];
      for (const path of paths) {
        const expected = expectedLanding(role, path);
        await page.goto(path);
        try {
          await waitForPage(page, expected);
        } catch {
          wrong.push(
            `${path}: expected ${expected} "${titleOf(expected)}", got ${new URL(page.url()).pathname} "${await page.title()}"`,
          );
        }
      }
      expect(wrong).toEqual([]);
      await page.context().close();
    });
  }

  it('a gated route shows a spinner while the session is being checked', async () => {
    const page = await pageFor('seller');
    let releaseMe: () => void = () => undefined;
    const meHeld = new Promise<void>((resolve) => (releaseMe = resolve));
    await page.route('**/api/me', async (route) => {
      await meHeld;
      await route.continue();
    });
    await page.goto('/dashboard');
    await page.getByTestId('auth-spinner').waitFor();
    expect(await page.getByRole('progressbar').count()).toBeGreaterThan(0);
    releaseMe();
    await waitForPage(page, '/dashboard');
    expect(await page.getByTestId('auth-spinner').count()).toBe(0);
    await page.context().close();
  });
});

describe('header and navigation', () => {
  async function headerItems(page: Page): Promise<string[]> {
    return (await page.getByTestId('header-nav').locator('a, button').allInnerTexts()).map((text) =>
      text.trim(),
    );
  }

  it('shows the links of each role exactly as the spec lists them', async () => {
    const expected: Record<Role, string[]> = {
      visitor: ['Our Story', 'How it works', 'Pricing', 'Contact Us', "Let's Gooooo!"],
      seller: ['Dashboard', 'How it works', 'Pricing', 'Contact Us', 'Logout'],
      beta: ['Dashboard', 'How it works', 'Pricing', 'Contact Us', 'Logout'],
      admin: ['Dashboard', 'Admin', 'Logout'],
    };
    for (const role of ROLES) {
      const page = await pageFor(role, { viewport: { width: 1366, height: 900 } });
      await page.goto('/pricing');
      await waitForPage(page, '/pricing');
      await expect.poll(() => headerItems(page)).toEqual(expected[role]);
      const box = await page.getByTestId('site-header').boundingBox();
      expect(box?.height).toBeCloseTo(125, 1);
      if (role === 'visitor') {
        await page.getByTestId('header-nav').getByRole('link', { name: "Let's Gooooo!" }).click();
        await waitForPage(page, '/get-started');
      }
      await page.context().close();
    }
  });

  it('the mobile drawer (240 px) mirrors the header and carries the side nav', async () => {
    const page = await pageFor('seller', { viewport: { width: 390, height: 844 } });
    await page.goto('/dashboard');
    await waitForPage(page, '/dashboard');
    expect(await page.getByTestId('header-nav').isVisible()).toBe(false);
    await page.getByTestId('mobile-menu-button').click();
    const drawer = page.getByTestId('mobile-drawer');
    await drawer.waitFor();
    expect((await drawer.boundingBox())?.width).toBeCloseTo(240, 1);
    const main = drawer.getByRole('navigation', { name: 'Main' });
    expect((await main.locator('a, [role=button]').allInnerTexts()).map((text) => text.trim())).toEqual([
      'Dashboard',
      'How it works',
      'Pricing',
      'Contact Us',
      'Logout',
    ]);
    await drawer
      .getByRole('navigation', { name: 'Your pages' })
      .getByRole('link', { name: 'Account Settings' })
      .click();
    await waitForPage(page, '/account-settings');
    await page.context().close();
  });

  it('the side nav lists the seller pages, the beta extras, and the admin pages', async () => {
    const sideNav = async (role: Role, path: string) => {
      const page = await pageFor(role, { viewport: { width: 1366, height: 900 } });
      await page.goto(path);
      await waitForPage(page, path);
      const links = (await page.getByTestId('side-nav').getByRole('link').allInnerTexts()).map((text) =>
        text.trim(),
      );
      const hrefs = await page
        .getByTestId('side-nav')
        .getByRole('link')
        .evaluateAll((anchors) => anchors.map((anchor) => anchor.getAttribute('href')));
      await page.context().close();
      return { links, hrefs };
    };
    const seller = [
      'Dashboard',
      'Create Product',
      'My Designs',
      'Products',
      'Orders',
      'Submit Order',
      'Fulfillment History',
      'Billing',
      'Claims',
      'Account Settings',
    ];
    expect((await sideNav('seller', '/dashboard')).links).toEqual(seller);
    expect((await sideNav('beta', '/dashboard')).links).toEqual([
      ...seller,
      'Connect Store',
      'Link Listings',
      'Affiliate Links',
    ]);
    const admin = await sideNav('admin', '/admin');
    expect(admin.links).toEqual([
      'Admin',
      'Orders',
      'Production',
      'Printers',
      'Shipping Profiles',
      'Fulfillment History',
      'Design Files',
      'Affiliates',
      'Email Outbox',
      'Claims',
    ]);
    expect(admin.hrefs).toEqual([
      '/admin',
      '/admin-orders',
      '/admin-production',
      '/admin-printers',
      '/shipping-profiles',
      '/admin-fulfillment-history',
      '/admin-print-configs',
      '/affiliates',
      '/admin-outbox',
      '/admin-claims',
    ]);
  });

  it('scrolls to the top on every route change', async () => {
    const page = await pageFor('seller', { viewport: { width: 1366, height: 500 } });
    await page.goto('/account-settings');
    await waitForPage(page, '/account-settings');
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
    await page.getByTestId('side-nav').getByRole('link', { name: 'Products' }).click();
    await waitForPage(page, '/products');
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
    await page.context().close();
  });
});

describe('theme', () => {
  it('is dark by default, toggles to light and keeps the choice across a reload', async () => {
    const page = await pageFor('visitor');
    await page.goto('/pricing');
    await waitForPage(page, '/pricing');
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const dark = await background();
    expect(await page.getByTestId('theme-toggle').getAttribute('data-mode')).toBe('dark');
    await page.getByTestId('theme-toggle').click();
    await expect.poll(() => page.evaluate(() => localStorage.getItem('themeMode'))).toBe('light');
    const light = await background();
    expect(light).not.toBe(dark);
    await page.reload();
    await waitForPage(page, '/pricing');
    expect(await page.getByTestId('theme-toggle').getAttribute('data-mode')).toBe('light');
    expect(await background()).toBe(light);
    await page.context().close();
  });
});

describe('guided tour', () => {
  it('walks the seven steps, navigating to each, and Finish resets it to the first step', async () => {
    const page = await pageFor('seller');
    await page.goto('/dashboard');
    await waitForPage(page, '/dashboard');
    await page.getByTestId('start-tour').click();
    const dialog = page.getByTestId('tour-dialog');
    await dialog.getByText('Step 1 of 7').waitFor();
    expect(await dialog.getByRole('button', { name: 'Previous' }).isDisabled()).toBe(true);

    for (const [index, step] of TOUR_STEPS.entries()) {
      await dialog.getByText(`Step ${index + 1} of ${TOUR_STEPS.length}`).waitFor();
      await dialog.getByRole('heading', { name: new RegExp(step.title) }).waitFor();
      await waitForPage(page, step.path);
      if (index < TOUR_STEPS.length - 1) {
        expect(await dialog.getByRole('button', { name: 'Finish' }).count()).toBe(0);
        await dialog.getByRole('button', { name: 'Next' }).click();
      }
    }
    expect(await dialog.getByRole('button', { name: 'Next' }).count()).toBe(0);
    await dialog.getByRole('button', { name: 'Previous' }).click();
    await waitForPage(page, TOUR_STEPS[TOUR_STEPS.length - 2]!.path);
    await dialog.getByRole('button', { name: 'Next' }).click();
    await dialog.getByRole('button', { name: 'Finish' }).click();
    await dialog.waitFor({ state: 'hidden' });

    await page.getByTestId('start-tour').click();
    await dialog.getByText('Step 1 of 7').waitFor();
    await dialog.getByRole('button', { name: 'Next' }).click();
    await waitForPage(page, '/create-product');
    await dialog.getByRole('button', { name: 'Close tour' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.goto('/dashboard');
    await waitForPage(page, '/dashboard');
    await page.getByTestId('start-tour').click();
    await dialog.getByText('Step 1 of 7').waitFor();
    await page.context().close();
  });

  it('auto-advances when switched on', async () => {
    const page = await pageFor('seller');
    await page.goto('/dashboard');
    await waitForPage(page, '/dashboard');
    await page.getByTestId('start-tour').click();
    const dialog = page.getByTestId('tour-dialog');
    await dialog.getByLabel(/Auto-advance/).check();
    await dialog.getByText('Step 2 of 7').waitFor({ timeout: 8_000 });
    await waitForPage(page, '/create-product');
    await page.context().close();
  });
});

describe('toasts', () => {
  it('appear bottom-left with the server outcome and dismiss themselves', async () => {
    const page = await pageFor('seller', { viewport: { width: 1280, height: 800 } });
    await page.goto('/account-settings');
    await waitForPage(page, '/account-settings');

    await page.getByTestId('profile-section').getByLabel('Business name').fill('Sam Prints');
    await page.getByRole('button', { name: 'Save profile' }).click();
    const success = page.getByTestId('toast').filter({ hasText: 'Profile saved' });
    await success.waitFor();
    expect(await success.getAttribute('data-severity')).toBe('success');
    // Polled: the toast grows in from its centre, so its box settles only after the animation.
    await expect.poll(async () => (await success.boundingBox())?.x).toBeLessThan(40);
    const box = await success.boundingBox();
    expect(box!.y + box!.height).toBeGreaterThan(800 - 60);
    await success.waitFor({ state: 'detached', timeout: 8_000 });

    // A server refusal is shown with the server's own words, as an error toast.
    const email = page.getByTestId('email-section');
    await email.getByLabel('New email').fill(`moved-${Date.now()}@example.test`);
    await email.getByLabel('Current password').fill('not my password at all');
    await page.getByRole('button', { name: 'Change email' }).click();
    const failure = page.getByTestId('toast').and(page.locator('[data-severity="error"]'));
    await failure.waitFor();
    expect((await failure.innerText()).trim().length).toBeGreaterThan(0);
    await page.context().close();
  });
});

describe('analytics', () => {
  it('records a page view per route change and shows them to admins', async () => {
    const page = await pageFor('admin');
    await page.goto('/our-story');
    await waitForPage(page, '/our-story');
    await page.goto('/admin');
    await waitForPage(page, '/admin');
    const topPaths = page.getByTestId('admin-page-views').getByTestId('top-path');
    await expect
      .poll(() => topPaths.allInnerTexts(), { timeout: 10_000 })
      .toEqual(expect.arrayContaining([expect.stringContaining('/our-story')]));
    await page.context().close();
  });
});

describe('admin overview', () => {
  it('finds a user, toggles their beta flag, and asks before granting admin', async () => {
    const target = await makeUser(app, { name: 'Toggle Target' });
    const page = await pageFor('admin', { viewport: { width: 1366, height: 900 } });
    await page.goto('/admin');
    await waitForPage(page, '/admin');
    await page.getByLabel('Search users').fill(target.email);
    const row = page.locator(`[data-testid="admin-user-row"][data-email="${target.email}"]`);
    await row.waitFor();
    await expect.poll(() => page.getByTestId('admin-user-row').count()).toBe(1);

    await row.getByLabel(`Beta tester: ${target.email}`).check();
    await page
      .getByTestId('toast')
      .filter({ hasText: `Beta tester granted to ${target.email}` })
      .waitFor();

    await row.getByLabel(`Admin: ${target.email}`).click();
    const confirm = page.getByRole('dialog', { name: 'Make this user an admin?' });
    await confirm.waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    expect(await row.getByLabel(`Admin: ${target.email}`).isChecked()).toBe(false);

    // The change is on the account: the target now reaches a beta-only page.
    const betaPage = await newPage(browser, app, target);
    await betaPage.goto('/connect-store');
    await waitForPage(betaPage, '/connect-store');
    await betaPage.context().close();

    await page.getByTestId('admin-audit').getByText(/beta/i).first().waitFor();
    await page.context().close();
  });
});
