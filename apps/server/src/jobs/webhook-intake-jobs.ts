import type { WebhookIntakeService } from '../modules/shops/webhook-intake-service.ts';
import { QUEUES, stableJobId, type JobQueue } from './job-queue.ts';

/** One stored marketplace webhook to act on (the inbound_webhook row id). */
export interface ProcessWebhookJob {
  id: string;
}

/** How often the worker looks for stored deliveries that were never queued (or lost their job). */
export const WEBHOOK_SWEEP_EVERY_MS = 60 * 1000;
/** A delivery unprocessed this long after it arrived is queued again by the sweep. */
export const WEBHOOK_SWEEP_AGE_MS = 60 * 1000;

/** The job id for a stored delivery (see stableJobId). */
export function processWebhookJobId(inboundId: string): string {
  return stableJobId(QUEUES.processWebhook, inboundId);
}

export async function enqueueWebhook(queue: JobQueue, inboundId: string): Promise<void> {
  await queue.send<ProcessWebhookJob>(
    QUEUES.processWebhook,
    { id: inboundId },
    { singletonKey: inboundId, id: processWebhookJobId(inboundId) },
  );
}

/** Queues every delivery stored over WEBHOOK_SWEEP_AGE_MS ago and still unprocessed; returns how many. */
export async function sweepUnprocessedWebhooks(
  queue: JobQueue,
  intake: WebhookIntakeService,
  olderThanMs = WEBHOOK_SWEEP_AGE_MS,
): Promise<number> {
  const ids = await intake.unprocessed(olderThanMs);
  for (const id of ids) await enqueueWebhook(queue, id);
  return ids.length;
}

/**
 * Marketplace webhooks on the job queue (WH-2, WH-7):
 * - every process that receives webhooks queues each newly stored delivery ('process-webhook'),
 *   before the request is answered;
 * - processes that work jobs act on them (idempotent: a processed row is skipped); a failure is
 *   thrown, so pg-boss retries with backoff and, out of attempts, dead-letters it for admins;
 * - and run the sweep (a timer, unref'd): deliveries stored but never queued (the queue failed
 *   after the row was written) are queued after a minute.
 * Returns a function that stops the sweep timer.
 */
export async function startWebhookIntakeJobs(
  queue: JobQueue,
  intake: WebhookIntakeService,
  options: { work: boolean; log: { error(obj: unknown, msg?: string): void }; sweepEveryMs?: number },
): Promise<() => void> {
  intake.onStored((id) => enqueueWebhook(queue, id));
  if (!options.work) return () => undefined;
  await queue.work<ProcessWebhookJob>(QUEUES.processWebhook, async (data) => {
    await intake.process(data.id);
  });
  const timer = setInterval(() => {
    void sweepUnprocessedWebhooks(queue, intake).catch((error: unknown) =>
      options.log.error({ err: error }, 'webhook sweep failed'),
    );
  }, options.sweepEveryMs ?? WEBHOOK_SWEEP_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** The queue, whose stop() first runs `stopAlso` (so a timer started with the workers ends with them). */
export function stoppingAlso(queue: JobQueue, stopAlso: () => void): JobQueue {
  return {
    ...queue,
    async stop() {
      stopAlso();
      await queue.stop();
    },
  };
}
