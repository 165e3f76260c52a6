import type { OrderStatusBatchListener } from '../modules/orders/order-service.ts';
import type { WebhookDeliveryJob, WebhookDeliveryService } from '../modules/order-api/webhook-delivery-service.ts';
import { QUEUES, retryLimitOf, stableJobId, type JobQueue } from './job-queue.ts';

/**
 * The order API's webhooks on the job queue: every announced status change of an order whose
 * seller has an endpoint becomes one delivery row and one 'webhook-delivery' job (its id derived
 * from the delivery, so announcing a change again queues nothing new). A failed attempt is retried
 * with backoff by the queue's policy (job-queue.ts); after the last one the delivery is 'failed'
 * and the job goes to the dead-letter queue, where admins see it. A seller's resend queues a
 * fresh job for the same delivery.
 *
 * Every process that changes orders records and enqueues; only processes that work jobs deliver.
 */
export async function startWebhookDeliveryJobs(
  queue: JobQueue,
  deps: { orders: { onStatusChanges(listener: OrderStatusBatchListener): void }; deliveries: WebhookDeliveryService },
  options: { work: boolean; log: { error(obj: unknown, msg?: string): void } },
): Promise<void> {
  const enqueue = async (job: WebhookDeliveryJob, { resend }: { resend: boolean }): Promise<void> => {
    await queue.send<WebhookDeliveryJob>(QUEUES.webhookDelivery, job, resend ? {} : { id: stableJobId(QUEUES.webhookDelivery, job.deliveryId) });
  };
  deps.deliveries.connect(enqueue);
  // Changes arrive in batches (new orders) or one at a time (status changes): either way one query
  // per step and one statement for all their jobs, each with its stable id.
  deps.orders.onStatusChanges(async (changes) => {
    const jobs = await deps.deliveries.recordMany(changes);
    await queue.sendMany<WebhookDeliveryJob>(QUEUES.webhookDelivery, jobs.map((job) => ({ data: job, id: stableJobId(QUEUES.webhookDelivery, job.deliveryId) })));
  });
  if (options.work) {
    const retryLimit = retryLimitOf(QUEUES.webhookDelivery);
    // A batch at a time: one read of the deliveries and their endpoints, the POSTs side by side, one
    // statement recording every attempt; each job is settled on its own.
    await queue.workBatch<WebhookDeliveryJob>(QUEUES.webhookDelivery, async (jobs) => {
      const outcomes = await deps.deliveries.deliverMany(jobs.map((job) => ({ data: job.data, lastAttempt: job.retryCount >= retryLimit })));
      return outcomes.map((outcome, index) => {
        if (outcome instanceof Error) return outcome;
        // A plain 4xx is final: the seller's receiver refused this event; retrying would not help.
        const { ownerId, eventId } = jobs[index]!.data;
        if (outcome === 'refused') options.log.error({ ownerId, eventId }, 'webhook refused (4xx or URL no longer allowed); not retried');
        return null;
      });
    });
  }
}
