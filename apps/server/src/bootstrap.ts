import os from 'node:os';
import path from 'node:path';
import type { Config } from './config.ts';
import { openDatabase } from './db/client.ts';
import { createAppContext, type AppContext } from './app-context.ts';
import { createPrusaSlicer } from './integrations/prusa-slicer/slicer-adapter.ts';
import { createSlicingTurns } from './modules/designs/slicing-turn-repository.ts';
import { createLocalDiskStorage } from './integrations/local-disk-storage/local-disk-storage.ts';
import { createS3Storage } from './integrations/s3-storage/s3-storage.ts';
import { startJobQueue, type JobQueue } from './jobs/job-queue.ts';
import { printFileScheduler, slicingScheduler, workPlateFileJobs, workPrintFileJobs, workSlicingJobs } from './jobs/slicing-jobs.ts';
import { workShopSyncJobs } from './jobs/shop-sync-jobs.ts';
import { startOrderOutboxSweep } from './jobs/order-outbox-jobs.ts';
import { startOrderReleaseSweep } from './jobs/order-release-jobs.ts';
import { startPaymentRecovery } from './jobs/payment-jobs.ts';
import { startWebhookIntakeJobs, stoppingAlso } from './jobs/webhook-intake-jobs.ts';
import { startWebhookDeliveryJobs } from './jobs/webhook-delivery-jobs.ts';
import { startFarmJobs } from './jobs/farm-jobs.ts';
import { startShippingJobs } from './jobs/shipping-jobs.ts';
import { startFarmAlertJobs } from './jobs/farm-alert-jobs.ts';
import { startNotificationJobs } from './jobs/notification-jobs.ts';
import { startAffiliateSweep } from './jobs/affiliate-jobs.ts';
import { startListingImageJobs } from './jobs/listing-image-jobs.ts';

export interface Running {
  readonly context: AppContext;
  readonly databaseKind: 'pglite' | 'postgres';
  readonly jobs: JobQueue;
  readonly slicerAvailable: boolean;
  close(): Promise<void>;
}

/**
 * Everything but HTTP: the database, the job queue, the slicer (when installed and wanted) and
 * the modules. `workJobs` makes this process work the queue too (the web process by default, and
 * the worker process always).
 */
export async function bootstrap(config: Config, logger: { error(obj: unknown, msg?: string): void }, options: { workJobs: boolean }): Promise<Running> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }, logger);
  let jobs: JobQueue | undefined;
  try {
    jobs = await startJobQueue(database, logger, { work: options.workJobs });
    const slicer =
      config.slicing === 'off'
        ? null
        : await createPrusaSlicer({ binaryPath: config.prusaSlicerPath, scratchRoot: path.join(os.tmpdir(), 'layerline-slicer'), limits: config.slicerLimits });
    const storage = config.s3 ? await createS3Storage(config.s3) : createLocalDiskStorage(config.storageDir);
    const turns = createSlicingTurns(database.db);
    const context = createAppContext(config, database.db, { slicing: slicingScheduler(jobs, slicer, turns), printFiles: printFileScheduler(jobs), storage });
    if (options.workJobs && slicer) {
      await workSlicingJobs(jobs, slicer, context.designs, turns, (configId, version) => context.listingImages.afterSlice(configId, version));
      await workPrintFileJobs(jobs, slicer, context.designs, context.printJobs);
      await workPlateFileJobs(jobs, slicer, context.designs, context.printJobs, storage);
    }
    // ── issue 4 job workers: each module starts its workers here when options.workJobs ──
    // Marketplace webhooks: every process queues what it stores; job-working processes act on them and sweep
    // (the sweep's timer stops when the queue does, in close()).
    jobs = stoppingAlso(jobs, await startWebhookIntakeJobs(jobs, context.webhookIntake, { work: options.workJobs, log: logger }));
    // Jobs admin: the admin page reads queue counts and dead letters from, and retries through, this queue.
    context.jobsAdmin.connect(jobs);
    // Shop syncs (issue 4, shops core): the 'shop-sync' worker and the periodic check (a timer, unref'd).
    const stopShopSyncTimer = options.workJobs ? await workShopSyncJobs(jobs, context.shops, logger) : () => undefined;
    // Order API webhooks: every process enqueues on status changes; job-working processes deliver.
    await startWebhookDeliveryJobs(jobs, { orders: context.orders, deliveries: context.webhookDeliveries }, { work: options.workJobs, log: logger });
    // The orders' outbox: status changes a crash or a failing subscriber left unannounced are announced by the sweep.
    jobs = stoppingAlso(jobs, startOrderOutboxSweep(context.orders, { work: options.workJobs, log: logger, catchUpNow: jobs.startedAlone }));
    // The change window (issue 24): orders held for the seller's review are released when it ends.
    jobs = stoppingAlso(jobs, startOrderReleaseSweep(context.orders, { work: options.workJobs, log: logger }));
    // Payments (issue 13): charges, refunds and webhooks a crash left unsettled are settled by a sweep.
    jobs = stoppingAlso(jobs, startPaymentRecovery(context.payments, { work: options.workJobs, log: logger, catchUpNow: jobs.startedAlone }));
    // The wallet (issue 24): top-ups whose answer was lost are asked again with their key by the same sweep.
    jobs = stoppingAlso(jobs, startPaymentRecovery(context.wallet, { work: options.workJobs, log: logger, catchUpNow: jobs.startedAlone }));
    // Affiliates (issue 13): earnings, reversals, payable dates and referrals a crash left out are filled in by a sweep.
    jobs = stoppingAlso(jobs, startAffiliateSweep(context.affiliates, { work: options.workJobs, log: logger }));
    // The print farm (issue 11): a tick on the queue polls printers, runs the autopilot and dispatches.
    const stopFarmTimer = await startFarmJobs(jobs, context.farmDispatcher, { work: options.workJobs, tickMs: config.farm.tickMs, log: logger });
    // Shipping (issue 12): label purchases and tracking write-backs on the queue, and the tracking pass on a timer.
    await context.shipping.settings.ensureDefaultProfile();
    const stopTrackingTimer = await startShippingJobs(jobs, context.shipping, {
      work: options.workJobs,
      trackingPollMs: config.shipping.trackingPollMs,
      log: logger,
      catchUpNow: jobs.startedAlone,
    });
    // Emails (issue 13): sent through SMTP from the queue; a timer sweeps for lost sends and mails the weekly summaries.
    const stopNotificationTimer = await startNotificationJobs(jobs, context.notifications, { work: options.workJobs, timerMs: config.email.timerMs, log: logger });
    // The farm's Discord alerts (issue 13): queued by every process, sent by job-working ones, which also look for dead letters.
    const stopFarmAlertTimer = await startFarmAlertJobs(jobs, context.farmAlerts, { work: options.workJobs, log: logger });
    // Listing images (issue 24): queued after each exact slice, rendered by job-working processes.
    const stopListingImageSweep = await startListingImageJobs(jobs, context.listingImages, { work: options.workJobs, log: logger });
    const queue = jobs;
    return {
      context,
      databaseKind: database.kind,
      jobs: queue,
      slicerAvailable: slicer !== null,
      async close() {
        stopShopSyncTimer();
        stopFarmTimer();
        stopTrackingTimer();
        stopFarmAlertTimer();
        stopNotificationTimer();
        stopListingImageSweep();
        await queue.stop();
        await context.close();
        await database.close();
      },
    };
  } catch (error) {
    await jobs?.stop();
    await database.close();
    throw error;
  }
}
