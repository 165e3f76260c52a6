import { Readable } from 'node:stream';
import type { AppContext } from './app-context.ts';
import { demoVaseStl } from './demo-model.ts';

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
}
