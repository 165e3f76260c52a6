import type { OrderStatusListener } from '../modules/orders/order-service.ts';
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
  deps: { orders: { onStatusChange(listener: OrderStatusListener): void }; deliveries: WebhookDeliveryService },
  options: { work: boolean; log: { error(obj: unknown, msg?: string): void } },
): Promise<void> {
  const enqueue = async (job: WebhookDeliveryJob, { resend }: { resend: boolean }): Promise<void> => {
    await queue.send<WebhookDeliveryJob>(QUEUES.webhookDelivery, job, resend ? {} : { id: stableJobId(QUEUES.webhookDelivery, job.deliveryId) });
  };
  deps.deliveries.connect(enqueue);
  deps.orders.onStatusChange(async (change) => {
    const job = await deps.deliveries.record(change);
    if (job) await enqueue(job, { resend: false });
  });
  if (options.work) {
    const retryLimit = retryLimitOf(QUEUES.webhookDelivery);
    await queue.work<WebhookDeliveryJob>(QUEUES.webhookDelivery, async (data, job) => {
      const outcome = await deps.deliveries.deliver(data, { lastAttempt: job.retryCount >= retryLimit });
      // A plain 4xx is final: the seller's receiver refused this event; retrying would not help.
      if (outcome === 'refused') options.log.error({ ownerId: data.ownerId, eventId: data.eventId }, 'webhook refused (4xx or URL no longer allowed); not retried');
    });
  }
}
