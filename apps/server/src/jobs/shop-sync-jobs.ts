import type { Job } from 'pg-boss';
import { MarketplaceRejectedError, MarketplaceUnavailableError } from '../modules/shops/connector.ts';
import type { ShopService } from '../modules/shops/shop-service.ts';
import { QUEUES, type JobQueue } from './job-queue.ts';

/** One sync of one shop (listings and orders since its cursor). */
export interface ShopSyncJob {
  shopId: string;
  /** How many times a marketplace asked us to come back later (Retry-After) for this sync. */
  deferrals?: number;
}

/** A marketplace may ask us to wait this many times in a row before the sync counts as failed. */
const MAX_DEFERRALS = 5;
/** How often the worker looks for shops due a sync. */
export const PERIODIC_SYNC_CHECK_MS = 5 * 60 * 1000;
/** How old a shop's last sync may be before the periodic check syncs it (per platform). */
const SYNC_EVERY_MS: Record<string, number> = { sandbox: 60 * 60 * 1000 };
const DEFAULT_SYNC_EVERY_MS = 5 * 60 * 1000;

/** Queues a sync of the shop; at most one is queued per shop (the queue is 'stately' by shop id). */
export async function enqueueShopSync(
  queue: JobQueue,
  shopId: string,
  startAfterSeconds?: number,
  deferrals = 0,
): Promise<void> {
  await queue.send<ShopSyncJob>(
    QUEUES.shopSync,
    { shopId, deferrals },
    { singletonKey: shopId, ...(startAfterSeconds ? { startAfter: startAfterSeconds } : {}) },
  );
}

/**
 * Works the 'shop-sync' queue:
 * - MarketplaceUnavailableError with a Retry-After: the sync is queued again to start after it
 *   (up to MAX_DEFERRALS times), and this attempt ends quietly;
 * - MarketplaceUnavailableError without one, or any other error: thrown, so pg-boss retries with
 *   backoff and, out of attempts, moves it to the dead-letter queue admins see;
 * - MarketplaceRejectedError (a 4xx a retry will not fix, a revoked grant): the connection is
 *   marked 'error' with the message for the seller, and it is not retried.
 * A shop deleted meanwhile is skipped.
 *
 * Also starts the periodic check (a timer in this worker): every PERIODIC_SYNC_CHECK_MS, every
 * connected shop whose last sync is older than its platform's interval gets a sync queued.
 * Returns a function that stops the timer.
 */
export async function workShopSyncJobs(
  queue: JobQueue,
  shops: ShopService,
  logger: { error(obj: unknown, msg?: string): void },
  options: { periodicCheckMs?: number } = {},
): Promise<() => void> {
  await queue.work<ShopSyncJob>(QUEUES.shopSync, async (data: ShopSyncJob, _job: Job<ShopSyncJob>) => {
    try {
      await shops.sync(data.shopId, { listings: true, orders: true });
    } catch (error) {
      if ((error as { code?: string }).code === 'not-found') return;
      if (error instanceof MarketplaceRejectedError) {
        await shops.markError(data.shopId, error.message);
        return;
      }
      const deferrals = data.deferrals ?? 0;
      if (
        error instanceof MarketplaceUnavailableError &&
        error.retryAfterSeconds !== null &&
        deferrals < MAX_DEFERRALS
      ) {
        await enqueueShopSync(
          queue,
          data.shopId,
          Math.max(1, Math.ceil(error.retryAfterSeconds)),
          deferrals + 1,
        );
        return;
      }
      throw error;
    }
  });

  const intervalMs = options.periodicCheckMs ?? PERIODIC_SYNC_CHECK_MS;
  const timer = setInterval(() => {
    void enqueueDueSyncs(queue, shops).catch((error: unknown) =>
      logger.error({ err: error }, 'periodic shop sync failed'),
    );
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Queues a sync for every connected shop that is due one. */
export async function enqueueDueSyncs(
  queue: JobQueue,
  shops: ShopService,
  now = Date.now(),
): Promise<number> {
  let queued = 0;
  for (const shop of await shops.listConnected()) {
    const every = SYNC_EVERY_MS[shop.platform] ?? DEFAULT_SYNC_EVERY_MS;
    if (shop.lastSyncedAt && now - shop.lastSyncedAt.getTime() < every) continue;
    await enqueueShopSync(queue, shop.id);
    queued += 1;
  }
  return queued;
}
