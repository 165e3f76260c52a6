import type { ShippingModule } from '../modules/shipping/shipping-module.ts';
import { QUEUES, retryLimitOf, stableJobId, type JobQueue } from './job-queue.ts';

/** Pending write-backs older than this are queued again by the tracking pass (a lost job is not a lost tracking). */
const WRITEBACK_SWEEP_AGE_MS = 10 * 60 * 1000;

/**
 * Shipping on the job queue (docs/shipping.md): every process can queue label purchases and tracking
 * write-backs; job-working processes buy, write back, and run the tracking pass on a timer ('stately':
 * one at a time across processes), which also queues write-backs left pending. Returns a stop function.
 */
export async function startShippingJobs(
  queue: JobQueue,
  shipping: ShippingModule,
  options: { work: boolean; trackingPollMs: number; log: { error(obj: unknown, msg?: string): void }; catchUpNow?: boolean },
): Promise<() => void> {
  shipping.connectQueue({
    // One purchase job per order and packing: a repeat of the announcement is the same job.
    buyLabels: async (orderIds) => {
      for (const orderId of orderIds) await queue.send(QUEUES.buyLabel, { orderId }, { singletonKey: orderId });
    },
    writeback: async (shipmentId, attempt) => {
      await queue.send(QUEUES.trackingWriteback, { shipmentId }, { id: stableJobId(QUEUES.trackingWriteback, `${shipmentId}:${attempt}`) });
    },
  });
  if (!options.work) return () => undefined;
  const { log } = options;
  // Started alone after a crash: the purchases the dead process left open (the job requeued at once
  // with them) are taken over now, not when their 3-minute lease runs out; each is looked up first.
  if (options.catchUpNow) await shipping.releaseDeadPurchaseLeases();
  await queue.work<{ orderId: string }>(QUEUES.buyLabel, async (data) => {
    await shipping.labels.autoBuy(data.orderId);
  });
  await queue.work<{ shipmentId: string }>(QUEUES.trackingWriteback, async (data, job) => {
    const outcome = await shipping.tracking.pushTracking(data.shipmentId, job.retryCount >= retryLimitOf(QUEUES.trackingWriteback));
    if (outcome === 'retry') throw new Error('The marketplace did not take the tracking yet; retrying');
  });
  await queue.work(QUEUES.trackingPoll, async () => {
    try {
      await shipping.trackingPass(options.trackingPollMs / 2, WRITEBACK_SWEEP_AGE_MS);
    } catch (error) {
      // Logged, not thrown: the next pass does the same work.
      log.error({ err: error }, 'tracking pass failed');
    }
  });
  const ask = () => void queue.send(QUEUES.trackingPoll, {}).catch((error: unknown) => log.error({ err: error }, 'could not queue a tracking pass'));
  ask();
  const timer = setInterval(ask, options.trackingPollMs);
  timer.unref();
  return () => clearInterval(timer);
}
