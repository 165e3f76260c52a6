import type { PublicConfig } from '@layerline/contracts';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import { createAuth } from './modules/accounts/auth.ts';
import { createAccountService } from './modules/accounts/account-service.ts';
import { createLoginThrottle } from './modules/accounts/login-throttle.ts';
import { verifyPassword } from './modules/accounts/passwords.ts';
import { createUserRepository } from './modules/accounts/user-repository.ts';
import { createPageViewRepository } from './modules/analytics/page-view-repository.ts';
import { createAuditRepository } from './modules/audit/audit-repository.ts';
import { createDashboardService } from './modules/dashboard/dashboard-service.ts';
import { createContactRepository } from './modules/site/contact-repository.ts';
import { createDesignRepository } from './modules/designs/design-repository.ts';
import { createDesignService, type SlicingScheduler } from './modules/designs/design-service.ts';
import type { FileStorage } from './modules/designs/file-storage.ts';
import { createModelWorker } from './modules/designs/model-worker.ts';
import { createPriceTableRepository } from './modules/quotes/price-table-repository.ts';

/**
 * Wires configuration, the database and every module together, once. The HTTP server, the CLI
 * and the tests all start from here, so they run the same code.
 */
export function createAppContext(config: Config, db: Database, runtime: { slicing: SlicingScheduler; storage: FileStorage }) {
  const users = createUserRepository(db);
  const audit = createAuditRepository(db);
  const accounts = createAccountService({
    users,
    audit,
    verifyCurrentPassword: async (userId, password) => {
      const hash = await users.passwordHash(userId);
      return hash !== undefined && (await verifyPassword({ hash, password }));
    },
  });
  const { storage } = runtime;
  const designRepository = createDesignRepository(db);
  const prices = createPriceTableRepository(db);
  const modelWorker = createModelWorker();
  const designs = createDesignService({
    designs: designRepository,
    storage,
    worker: modelWorker,
    prices,
    audit,
    slicing: runtime.slicing,
    limits: { maxUploadBytes: config.maxUploadBytes, quotaBytes: config.storageQuotaBytes },
  });
  // ── issue 4 modules: each adds its construction here (one block per module) ──
  const publicConfig: PublicConfig = {
    mode: config.mode,
    sentryDsn: config.sentryDsn,
    analyticsKey: config.analyticsKey,
    stripePublishableKey: config.stripePublishableKey,
    // The spec's sample rates (§7): session 20 %, replay 10 %, trace 20 %.
    monitoringSampleRates: { session: 0.2, replay: 0.1, trace: 0.2 },
  };
  return {
    config,
    db,
    auth: createAuth(config, db),
    loginThrottle: createLoginThrottle(db),
    users,
    audit,
    accounts,
    contacts: createContactRepository(db),
    pageViews: createPageViewRepository(db),
    dashboard: createDashboardService({ designs: designRepository.countForOwner }),
    publicConfig,
    storage,
    prices,
    designs,
    // ── issue 4 modules: each adds its exported services here ──
    /** Stops background threads; the database is closed by whoever opened it. */
    close: () => modelWorker.close(),
  };
}

export type AppContext = ReturnType<typeof createAppContext>;
