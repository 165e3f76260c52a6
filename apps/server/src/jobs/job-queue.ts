import { PgBoss, fromPglite, type Job, type QueuePolicy } from 'pg-boss';
import pg from 'pg';
import type { DatabaseHandle } from '../db/client.ts';

/**
 * The durable job queue (pg-boss) in the application's own database. Jobs run at least once, so
 * every handler is idempotent. Retries back off; a job that keeps failing goes to the dead-letter
 * queue, where admins see it.
 */
export const QUEUES = {
  slicePrintConfig: 'slice-print-config',
  // ── issue 4 queues: add here, with their policy in QUEUE_OPTIONS ──
  shopSync: 'shop-sync',
  webhookDelivery: 'webhook-delivery',
  deadLetter: 'dead-letter',
} as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** Per-queue policy: attempts, backoff and how long one attempt may run. */
const QUEUE_OPTIONS: Record<
  Exclude<QueueName, 'dead-letter'>,
  { retryLimit: number; retryDelay: number; expireInSeconds: number; policy?: QueuePolicy }
> = {
  'slice-print-config': { retryLimit: 2, retryDelay: 30, expireInSeconds: 15 * 60 },
  // One queued and one running sync per shop (singletonKey = shop id): policy 'stately'.
  'shop-sync': { retryLimit: 4, retryDelay: 30, expireInSeconds: 10 * 60, policy: 'stately' },
  // Order API webhooks: 8 retries, jittered and doubling from ~30 s (a few hours in all, like Shopify's 8 over 4 h).
  'webhook-delivery': { retryLimit: 8, retryDelay: 15, expireInSeconds: 60 },
};

export interface JobQueue {
  send<T extends object>(queue: QueueName, data: T, options?: { singletonKey?: string; startAfter?: number | Date }): Promise<string | null>;
  work<T extends object>(queue: QueueName, handler: (data: T, job: Job<T>) => Promise<void>): Promise<void>;
  /** Jobs that ran out of attempts, newest first. */
  deadLetters(limit: number): Promise<{ id: string; queue: string; data: unknown; failedAt: string }[]>;
  stop(): Promise<void>;
}

/** pg-boss runs its own migrations; two processes doing it at once deadlock, so they take turns. */
const START_LOCK_ID = 7_412_0002;

export async function startJobQueue(database: DatabaseHandle, logger: { error(obj: unknown, msg?: string): void }): Promise<JobQueue> {
  const backend = database.jobBackend;
  const boss =
    backend.kind === 'pglite'
      ? new PgBoss({ db: fromPglite(backend.client), backend: 'pglite', schedule: false, maintenanceIntervalSeconds: 30 })
      : new PgBoss({ connectionString: backend.connectionString, max: 4, schedule: false, maintenanceIntervalSeconds: 30 });
  boss.on('error', (error) => logger.error({ err: error }, 'job queue error'));

  await withStartLock(backend, async () => {
    await boss.start();
    const existing = new Set((await boss.getQueues()).map((q) => q.name));
    if (!existing.has(QUEUES.deadLetter)) await boss.createQueue(QUEUES.deadLetter);
    for (const [name, options] of Object.entries(QUEUE_OPTIONS)) {
      // notify: workers wake on LISTEN/NOTIFY instead of waiting for their next poll.
      const settings = { ...options, retryBackoff: true, deadLetter: QUEUES.deadLetter, notify: true };
      if (existing.has(name)) await boss.updateQueue(name, settings);
      else await boss.createQueue(name, settings);
    }
  });

  return {
    send: (queue, data, options = {}) => boss.send(queue, data, options),
    async work(queue, handler) {
      await boss.work(queue, { batchSize: 1, pollingIntervalSeconds: 1 }, async (jobs: Job<never>[]) => {
        for (const job of jobs) await handler(job.data, job);
      });
    },
    async deadLetters(limit) {
      const jobs = await boss.findJobs(QUEUES.deadLetter);
      return jobs.slice(0, limit).map((job) => ({
        id: job.id,
        queue: job.name,
        data: job.data,
        failedAt: new Date(job.createdOn).toISOString(),
      }));
    },
    stop: () => boss.stop({ graceful: true, timeout: 10_000 }),
  };
}

async function withStartLock(backend: DatabaseHandle['jobBackend'], start: () => Promise<void>): Promise<void> {
  if (backend.kind === 'pglite') return start(); // one process per data directory already
  const client = new pg.Client({ connectionString: backend.connectionString });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [START_LOCK_ID]);
    await start();
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [START_LOCK_ID]).catch(() => undefined);
    await client.end();
  }
}
