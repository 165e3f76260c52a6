import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { bambulabConnectionSchema, SPOOL_MATERIALS, type PrinterClearing, type PrinterSpool } from '@layerline/contracts';
import type { AppContext } from './app-context.ts';
import { demoVaseStl } from './demo-model.ts';
import { SANDBOX_MATCHABLE_SKUS } from './integrations/sandbox-shop/sandbox-connector.ts';

/**
 * Demo accounts for a local install. Never created in production (see config.seedDemoData). Their
 * passwords are not in the source: each installation generates its own (demoPasswords).
 */
export const DEMO_ACCOUNTS = {
  seller: { email: 'seller@demo.layerline.local', name: 'Dana Demo', businessName: 'Demo Prints Co.' },
  admin: { email: 'admin@demo.layerline.local', name: 'Alex Admin', businessName: 'Layerline Farm' },
} as const;

export type DemoRole = keyof typeof DEMO_ACCOUNTS;
export type DemoPasswords = Record<DemoRole, string>;

/** The file, in the data directory, that keeps this installation's demo passwords (mode 0600). */
export const DEMO_PASSWORDS_FILE = 'demo-accounts.json';

const DEMO_ROLES = Object.keys(DEMO_ACCOUNTS) as DemoRole[];

/** This installation's demo passwords as they were generated, or undefined before the first start (tests, e2e). */
export function readDemoPasswords(dataDir: string): DemoPasswords | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(path.join(dataDir, DEMO_PASSWORDS_FILE), 'utf8'));
  } catch {
    return undefined;
  }
  const record = parsed as Partial<Record<DemoRole, unknown>> | null;
  if (!record || DEMO_ROLES.some((role) => typeof record[role] !== 'string' || (record[role] as string).length < 16)) return undefined;
  return Object.fromEntries(DEMO_ROLES.map((role) => [role, record[role] as string])) as DemoPasswords;
}

/**
 * This installation's demo passwords: generated at random (120 bits each) at the first start, kept in
 * DATA_DIR/demo-accounts.json readable by the owner only, and the same at every later start. A missing
 * or damaged file gets new passwords (seedDemoData then moves the accounts to them).
 */
export function demoPasswords(dataDir: string): DemoPasswords {
  const file = path.join(dataDir, DEMO_PASSWORDS_FILE);
  const existing = readDemoPasswords(dataDir);
  if (existing) {
    fs.chmodSync(file, 0o600);
    return existing;
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const fresh = Object.fromEntries(DEMO_ROLES.map((role) => [role, crypto.randomBytes(15).toString('base64url')])) as DemoPasswords;
  const temporary = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
  fs.writeFileSync(temporary, `${JSON.stringify(fresh, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  fs.renameSync(temporary, file);
  return fresh;
}

/** Whether any demo account exists in this database (whether or not this start seeds them). */
export async function demoAccountsExist(context: AppContext): Promise<boolean> {
  for (const role of DEMO_ROLES) if (await context.users.findIdByEmail(DEMO_ACCOUNTS[role].email)) return true;
  return false;
}

/**
 * Creates the demo accounts with this installation's passwords, or moves existing ones to them: an
 * install from before per-installation passwords (whose demo passwords were public), or a database
 * kept while the data directory was replaced. Moving a password ends the account's sessions.
 */
export async function seedDemoData(context: AppContext, passwords: DemoPasswords): Promise<void> {
  for (const role of DEMO_ROLES) {
    const demo = DEMO_ACCOUNTS[role];
    const password = passwords[role];
    const existingId = await context.users.findIdByEmail(demo.email);
    if (existingId) {
      await takeDemoPassword(context, existingId, password);
      continue;
    }
    const created = await context.auth.api.signUpEmail({
      body: { email: demo.email, password, name: demo.name, businessName: demo.businessName },
    });
    // Sign-up also signs in; nobody holds the seeder's session, so it ends now (demo accounts get
    // sessions only by signing in, which expire like any other).
    await context.sessions.deleteAllOf(created.user.id);
  }
  await context.accounts.grantConfiguredAdmins([DEMO_ACCOUNTS.admin.email]);
  await seedDemoFarm(context);
  await runDemoBambuPrinter(context);
  const sellerId = await context.users.findIdByEmail(DEMO_ACCOUNTS.seller.email);
  if (!sellerId) return;
  await seedDemoSeller(context, sellerId);
  await seedDemoBranding(context, sellerId);
  await seedReferredSeller(context, sellerId);
}

/**
 * The demo seller's parcel branding (issue 24, point 4): an SVG logo (it goes through the same
 * sanitising and rasterising as an upload), an insert message and the thank-you card, so the demo
 * order's packing slip shows them. Only while the seller has set none, so a restart changes nothing.
 */
const DEMO_LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="420" height="120" viewBox="0 0 420 120">
  <rect x="8" y="14" width="92" height="92" rx="20" fill="#0f766e"/>
  <rect x="26" y="72" width="56" height="12" rx="4" fill="#99f6e4"/>
  <rect x="32" y="56" width="44" height="12" rx="4" fill="#5eead4"/>
  <rect x="38" y="40" width="32" height="12" rx="4" fill="#ccfbf1"/>
  <text x="118" y="70" font-family="DejaVu Sans, sans-serif" font-size="28" font-weight="bold" fill="#134e4a">Demo Prints Co.</text>
</svg>`;

async function seedDemoBranding(context: AppContext, sellerId: string): Promise<void> {
  const current = await context.branding.get(sellerId);
  if (current.logo || current.insertMessage) return;
  const actor = { id: sellerId, requestId: 'demo-data' };
  await context.branding.uploadLogo(actor, sellerId, Buffer.from(DEMO_LOGO_SVG));
  await context.branding.saveInsert(actor, sellerId, {
    insertMessage: 'Thank you for supporting a small studio! Every piece is printed to order. Share a photo and tag us @demoprints.',
    thankYouCard: true,
  });
}

/**
 * A demo seller's start: beta tester, the demo vase, a sandbox test card (4242…: the demo's orders are
 * charged when they enter production, as real ones are; the sandbox moves no money), and the sandbox
 * shop with its first order.
 */
async function seedDemoSeller(context: AppContext, sellerId: string): Promise<void> {
  await context.users.setFlags(sellerId, { isBetaTester: true });
  if ((await context.designs.countForOwner(sellerId)) === 0) {
    await context.designs.upload({ id: sellerId, isAdmin: false, requestId: 'demo-data' }, sellerId, {
      fileName: 'twisted-vase.stl',
      name: 'Twisted vase (demo)',
      stream: Readable.from([demoVaseStl()]),
    });
  }
  const billing = await context.payments.billing(sellerId);
  const card = context.sandboxCards?.({ cardNumber: '4242424242424242', expMonth: 12, expYear: new Date().getUTCFullYear() + 5, cvc: '123' });
  if (!billing.card && card?.ok) await context.payments.storeDefaultPaymentMethod(sellerId, card.card.paymentMethodId);
  await seedDemoWallet(context, sellerId);
  await seedDemoShop(context, sellerId);
  await seedDemoCheckoutRates(context, sellerId);
}

/**
 * The demo seller's wallet (issue 24; docs/wallet.md): $100 topped up by the test card (once: the request
 * id names the top-up; enough for both first orders, whichever is charged first) and auto-recharge of $50
 * below $10, so the demo's orders are paid from the balance
 * and Billing shows the ledger, receipts and a statement from the first start.
 */
async function seedDemoWallet(context: AppContext, sellerId: string): Promise<void> {
  const seller = { id: sellerId, isAdmin: false };
  const current = await context.wallet.wallet(seller, undefined);
  if (!current.hasCard) return;
  await context.wallet.topUp(seller, { amountCents: 10_000, requestId: 'demo-wallet-first-top-up' });
  if (!current.autoRecharge) await context.wallet.setAutoRecharge(seller, { enabled: true, thresholdCents: 1000, amountCents: 5000 });
}

/** The demo affiliate's referral (issue 13): a seller who signed up with the demo seller's code. */
export const DEMO_REFERRED_SELLER = { email: 'referred@demo.layerline.local', name: 'Riley Referred', businessName: 'Referred Makers (demo)' } as const;

/**
 * A second seller who came through the demo seller's affiliate link (`?ref=CODE`), with a card and the
 * sandbox shop: their first order is charged, and the demo seller earns on it (Affiliate Links). Not
 * an account to sign in to: its password is random and kept nowhere.
 */
async function seedReferredSeller(context: AppContext, affiliateId: string): Promise<void> {
  if (await context.users.findIdByEmail(DEMO_REFERRED_SELLER.email)) return;
  const affiliate = await context.affiliates.ensure({ id: affiliateId, name: DEMO_ACCOUNTS.seller.businessName });
  const created = await context.auth.api.signUpEmail({
    body: { ...DEMO_REFERRED_SELLER, password: crypto.randomBytes(24).toString('base64url'), affiliateRef: affiliate.code },
  });
  await context.sessions.deleteAllOf(created.user.id);
  await seedDemoSeller(context, created.user.id);
}

/**
 * The demo seller's sandbox shop (issue 4): a product whose variants carry the sandbox's SKUs, the
 * shop connected with its listings imported and linked by SKU (one stays unmatched on purpose),
 * and a first order. Only when the seller has no shop yet, so a restart adds nothing.
 */
async function seedDemoShop(context: AppContext, sellerId: string): Promise<void> {
  if ((await context.shops.list(sellerId)).length > 0) return;
  const actor = { id: sellerId, isAdmin: false, requestId: 'demo-data' };
  const skus = [...SANDBOX_MATCHABLE_SKUS];
  const existing = await context.products.findVariantsBySkus(sellerId, skus);
  if (existing.size === 0) {
    const designs = await context.designs.list(actor, { ownerId: sellerId, search: '', limit: 10 });
    const configId = designs.items[0]?.printConfigs[0]?.id;
    if (configId) {
      await context.products.create(actor, sellerId, {
        name: 'Sandbox shop range (demo)',
        description: 'Sold on the sandbox shop.',
        variants: skus.map((sku) => ({
          name: sku.replace(/^LL-/, '').toLowerCase().replaceAll('-', ' '),
          sku,
          packaging: 'standard',
          parts: [{ printConfigId: configId, quantity: 1 }],
        })),
      });
    }
  }
  const shop = await context.shops.connectSandbox(sellerId);
  await context.shops.sync(shop.id, { listings: false, orders: true });
  await context.shops.simulateOrder(actor, shop.id, false);
}

/**
 * Checkout rates on the demo (issue 24): a sandbox shop acting as Shopify with its rates turned on, so
 * Connect Store's "Shipping rates at checkout" card has a shop to preview. Only when the seller has
 * no such shop yet, so a restart adds nothing.
 */
async function seedDemoCheckoutRates(context: AppContext, sellerId: string): Promise<void> {
  if ((await context.checkoutRates.list(sellerId)).items.length > 0) return;
  const shop = await context.shops.connectSandboxForCheckoutRates(sellerId);
  await context.checkoutRates.setEnabled({ id: sellerId, isAdmin: false, requestId: 'demo-data' }, shop.id, true);
}

/**
 * The demo print farm (issue 11): five simulated printers of mixed build volumes with spools of
 * mixed materials and colours, so the admin's /admin-printers is not empty and uploads are checked
 * against a real farm. Only when the farm has no printer at all, so a restart (or an admin who
 * retired them) adds nothing.
 */
export const DEMO_PRINTERS = [
  { name: 'Mini 1', model: 'Simulated 180', size: [180, 180, 180], nozzle: 0.4, tags: ['small'], speed: 600, spool: ['PLA', 'Signal white', '#f4f4f4', 820] },
  { name: 'MK4 1', model: 'Simulated MK4', size: [250, 210, 220], nozzle: 0.4, tags: [], speed: 600, spool: ['PLA', 'Galaxy black', '#1c1c1e', 640] },
  { name: 'MK4 2', model: 'Simulated MK4', size: [250, 210, 220], nozzle: 0.4, tags: [], speed: 600, spool: ['PETG', 'Ocean blue', '#1e88e5', 450] },
  { name: 'Core 256', model: 'Simulated 256', size: [256, 256, 256], nozzle: 0.4, tags: ['enclosed'], speed: 600, spool: ['ASA', 'Traffic red', '#c62828', 900] },
  { name: 'Big 350', model: 'Simulated 350', size: [350, 350, 350], nozzle: 0.6, tags: ['large', 'enclosed'], speed: 600, spool: ['PETG', 'Forest green', '#2e7d32', 210] },
] as const;

/**
 * Continuous printing in the demo (issue 22): MK4 2 ejects its own parts (the bed cools to 30 °C,
 * then the toolhead pushes the part off the front), so the board shows a printer that goes on to
 * its next plate without a person.
 */
const DEMO_SELF_CLEARING: Readonly<Record<string, PrinterClearing>> = {
  'MK4 2': {
    kind: 'eject_gcode',
    gcode: 'G1 Z100 F600 ; above the part\nG1 X125 Y210 F6000 ; behind it\nG1 Z1 F600\nG1 Y0 F1500 ; push it off the front\nG1 Z50 F600',
    releaseTempC: 30,
    maxUnattendedPlates: 10,
  },
};

async function seedDemoFarm(context: AppContext): Promise<void> {
  if ((await context.printerRepository.count()) > 0) return;
  const adminId = await context.users.findIdByEmail(DEMO_ACCOUNTS.admin.email);
  const actor = { id: adminId ?? 'demo-data', requestId: 'demo-data' };
  for (const p of DEMO_PRINTERS) {
    const created = await context.printers.create(actor, {
      name: p.name,
      model: p.model,
      buildVolumeMm: { x: p.size[0], y: p.size[1], z: p.size[2] },
      nozzleMm: p.nozzle,
      tags: [...p.tags],
      materials: [...SPOOL_MATERIALS],
      enclosed: (p.tags as readonly string[]).includes('enclosed'),
      groupId: null,
      slicerProfile: null,
      ...(DEMO_SELF_CLEARING[p.name] ? { clearing: DEMO_SELF_CLEARING[p.name] } : {}),
      connection: { kind: 'simulated', speedFactor: p.speed, offline: false, nozzleTargetC: 215, bedTargetC: 60, model: p.model },
    });
    const [material, colourName, colourHex, gramsLeft] = p.spool;
    await context.printers.setSpools(actor, created.id, [
      { material, colourName, colourHex, gramsLeft, loaded: true },
      // The spare spool beside it (an AMS or a shelf): the demo designs' default colour, so the autopilot's spool change loads a named spool.
      { material: 'PLA', colourName: 'Signal orange', colourHex: '#f97316', gramsLeft: 1000, loaded: false },
    ]);
  }
  // The demo's Bambu Lab printer; runDemoBambuPrinter gives it its simulator's address and code on every start.
  const bambu = await context.printerRepository.create({
    name: DEMO_BAMBU_PRINTER.name,
    model: 'Bambu Lab P1S',
    buildVolumeMm: { x: 256, y: 256, z: 250 },
    nozzleMm: 0.4,
    tags: ['bambu', 'enclosed'],
    materials: [...SPOOL_MATERIALS],
    enclosed: true,
    groupId: null,
    slicerProfile: { kind: 'bambulab', model: DEMO_BAMBU_PRINTER.model },
    connection: bambulabConnectionSchema.parse({ kind: 'bambulab', host: '127.0.0.1', serial: '01S00C000000001', accessCode: '00000000', model: DEMO_BAMBU_PRINTER.model }),
  });
  await context.printers.setSpools(actor, bambu.id, [
    { material: 'PLA', colourName: 'Signal orange', colourHex: '#f97316', gramsLeft: 1000, loaded: true },
  ]);
}

/**
 * The demo's Bambu Lab printer (issue 22): a simulated P1S in LAN mode (bambulab-simulator.ts: MQTT
 * over TLS and FTPS, on loopback) that this process runs, so the printers page shows what a Bambu
 * printer needs and Test connection, the certificate pin and a print work against it. Like a real
 * printer it waits for a person (bed clear, QC): the autopilot acts on `simulated` printers only.
 * Made with the demo farm; on every start its simulator is started again, on new ports with a new
 * access code, which are written into its connection.
 */
export const DEMO_BAMBU_PRINTER = { name: 'Bambu P1S (simulated)', model: 'P1S' as const, printSeconds: 300 };

async function runDemoBambuPrinter(context: AppContext): Promise<void> {
  if (context.inProcessPrinters.endpoints.size > 0) return; // already running in this process
  const row = (await context.printerRepository.list()).find((p) => p.name === DEMO_BAMBU_PRINTER.name && p.status !== 'retired');
  if (!row) return;
  // The simulator's broker (aedes) is a development dependency: the demo never runs in production.
  const { startBambulabSimulator } = await import('./integrations/bambulab/bambulab-simulator.ts');
  const sim = await startBambulabSimulator({ model: DEMO_BAMBU_PRINTER.model, printSeconds: DEMO_BAMBU_PRINTER.printSeconds });
  const connection = bambulabConnectionSchema.parse(sim.connection());
  context.inProcessPrinters.endpoints.add(`${connection.host}:${connection.mqttPort}`);
  context.inProcessPrinters.stops.push(() => sim.stop());
  // Its loopback address is refused for any printer an admin enters (the host policy); this one is
  // the process's own, so its connection is written by the repository, not the admin service.
  await context.printerRepository.update(row.id, {
    name: row.name,
    model: row.model,
    buildVolumeMm: { x: row.buildXMm, y: row.buildYMm, z: row.buildZMm },
    nozzleMm: row.nozzleMm,
    tags: row.tags,
    materials: row.materials as PrinterSpool['material'][],
    enclosed: row.enclosed,
    groupId: row.groupId,
    slicerProfile: { kind: 'bambulab', model: DEMO_BAMBU_PRINTER.model },
    connection,
  });
}

async function takeDemoPassword(context: AppContext, userId: string, password: string): Promise<void> {
  const auth = await context.auth.$context;
  const stored = await context.users.passwordHash(userId);
  if (stored && (await auth.password.verify({ hash: stored, password }))) return;
  const hash = await auth.password.hash(password);
  if (stored) await auth.internalAdapter.updatePassword(userId, hash);
  else await auth.internalAdapter.linkAccount({ userId, providerId: 'credential', accountId: userId, password: hash });
  await auth.internalAdapter.deleteUserSessions(userId);
}
