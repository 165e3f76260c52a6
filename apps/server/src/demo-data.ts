import { Readable } from 'node:stream';
import type { AppContext } from './app-context.ts';
import { demoVaseStl } from './demo-model.ts';
import { SANDBOX_MATCHABLE_SKUS } from './integrations/sandbox-shop/sandbox-connector.ts';

/** Demo accounts for a local install. Never created in production (see config.seedDemoData). */
export const DEMO_ACCOUNTS = {
  seller: { email: 'seller@demo.layerline.local', password: 'demo-seller-print-farm', name: 'Dana Demo', businessName: 'Demo Prints Co.' },
  admin: { email: 'admin@demo.layerline.local', password: 'demo-admin-print-farm', name: 'Alex Admin', businessName: 'Layerline Farm' },
} as const;

export async function seedDemoData(context: AppContext): Promise<void> {
  for (const demo of Object.values(DEMO_ACCOUNTS)) {
    if (await context.users.findIdByEmail(demo.email)) continue;
    await context.auth.api.signUpEmail({
      body: { email: demo.email, password: demo.password, name: demo.name, businessName: demo.businessName },
    });
  }
  await context.accounts.grantConfiguredAdmins([DEMO_ACCOUNTS.admin.email]);
  const sellerId = await context.users.findIdByEmail(DEMO_ACCOUNTS.seller.email);
  if (!sellerId) return;
  await context.users.setFlags(sellerId, { isBetaTester: true });
  if ((await context.designs.countForOwner(sellerId)) === 0) {
    await context.designs.upload({ id: sellerId, isAdmin: false, requestId: 'demo-data' }, sellerId, {
      fileName: 'twisted-vase.stl',
      name: 'Twisted vase (demo)',
      stream: Readable.from([demoVaseStl()]),
    });
  }
  await seedDemoShop(context, sellerId);
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
    const designs = await context.designs.list(actor, { ownerId: sellerId, search: '', page: 1, limit: 10 });
    const configId = designs.designs[0]?.printConfigs[0]?.id;
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
