import type { OrderStatusListener } from '../modules/orders/order-service.ts';
import type { WebhookDeliveryJob, WebhookDeliveryService } from '../modules/order-api/webhook-delivery-service.ts';
import { QUEUES, type JobQueue } from './job-queue.ts';

/**
 * The order API's webhooks on the job queue: every committed status change of an order whose
 * seller has an endpoint becomes one 'webhook-delivery' job (at least once; every attempt sends the
 * same event id). A failed attempt is retried with backoff by the queue's policy (job-queue.ts);
 * after the last one the job goes to the dead-letter queue, where admins see it.
 *
 * Every process that changes orders enqueues; only processes that work jobs deliver.
 */
export async function startWebhookDeliveryJobs(
  queue: JobQueue,
  deps: { orders: { onStatusChange(listener: OrderStatusListener): void }; deliveries: WebhookDeliveryService },
  options: { work: boolean; log: { error(obj: unknown, msg?: string): void } },
): Promise<void> {
  deps.orders.onStatusChange(async (change) => {
    const job = await deps.deliveries.jobFor(change);
    if (job) await queue.send<WebhookDeliveryJob>(QUEUES.webhookDelivery, job, { singletonKey: job.event.id });
  });
  if (options.work) {
    await queue.work<WebhookDeliveryJob>(QUEUES.webhookDelivery, async (data) => {
      const outcome = await deps.deliveries.deliver(data);
      // A plain 4xx is final: the seller's receiver refused this event; retrying would not help.
      if (outcome === 'rejected') options.log.error({ ownerId: data.ownerId, eventId: data.event.id }, 'webhook refused (4xx or URL no longer allowed); not retried');
    });
  }
}
