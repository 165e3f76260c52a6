import { createHash } from 'node:crypto';
import { PgBoss, fromPglite, type Job, type JobResult, type QueuePolicy } from 'pg-boss';
import pg from 'pg';
import type { DatabaseHandle } from '../db/client.ts';
import type { DeadLetterJob, DeadLetterRetry, QueueCounts } from '../modules/jobs-admin/jobs-admin-service.ts';
import { HEARTBEAT_REFRESH_SECONDS, HEARTBEAT_SECONDS, startOrphanRecovery, type OrphanRecovery } from './orphaned-jobs.ts';

/**
 * The durable job queue (pg-boss) in the application's own database. Jobs run at least once, so
 * every handler is idempotent. Retries back off; a job that keeps failing goes to the dead-letter
 * queue, where admins see it.
 */
export const QUEUES = {
  slicePrintConfig: 'slice-print-config',
  // The print farm's G-code: a configuration sliced for one printer profile (issue 11).
  slicePrintFile: 'slice-print-file',
  // A plate of several parts sliced for the printer it was assigned to (issue 22).
  slicePlate: 'slice-plate',
  // ── issue 4 queues: add here, with their policy in QUEUE_OPTIONS ──
  processWebhook: 'process-webhook',
  shopSync: 'shop-sync',
  webhookDelivery: 'webhook-delivery',
  // ── issue 11: the print farm's turn (poll printers, autopilot, dispatch, start) ──
  farmTick: 'farm-tick',
  // ── issue 12: labels for packed orders, tracking back to the channel, tracking updates ──
  buyLabel: 'buy-label',
  trackingWriteback: 'tracking-writeback',
  trackingPoll: 'tracking-poll',
  // ── issue 13: emails through SMTP (each message's own retries: notification-jobs.ts) ──
  sendEmail: 'send-email',
  // ── issue 13: the farm's alerts to its Discord channel (farm-alert-jobs.ts) ──
  discordAlert: 'discord-alert',
  // ── issue 24: listing images, rendered after a configuration's exact slice (listing-image-jobs.ts) ──
  renderListingImages: 'render-listing-images',
  deadLetter: 'dead-letter',
} as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** Per-queue policy: attempts, backoff and how long one attempt may run. */
const QUEUE_OPTIONS: Record<
  Exclude<QueueName, 'dead-letter'>,
  { retryLimit: number; retryDelay: number; expireInSeconds: number; policy?: QueuePolicy }
> = {
  'slice-print-config': { retryLimit: 2, retryDelay: 30, expireInSeconds: 15 * 60 },
  'slice-print-file': { retryLimit: 2, retryDelay: 30, expireInSeconds: 15 * 60 },
  'slice-plate': { retryLimit: 2, retryDelay: 30, expireInSeconds: 15 * 60 },
  // One queued and one running sync per shop (singletonKey = shop id): policy 'stately'.
  'shop-sync': { retryLimit: 4, retryDelay: 30, expireInSeconds: 10 * 60, policy: 'stately' },
  // Order API webhooks: 8 retries, jittered and doubling from ~30 s (a few hours in all, like Shopify's 8 over 4 h).
  'webhook-delivery': { retryLimit: 8, retryDelay: 15, expireInSeconds: 60 },
  // Stored marketplace webhooks (no marketplace calls, only our database): 5 retries from ~10 s, doubling, then dead-letter.
  'process-webhook': { retryLimit: 5, retryDelay: 10, expireInSeconds: 120 },
  // The farm's turn: one waiting and one running at most across every process ('stately'), so two ticks
  // never race; a tick that fails is not retried (the next one, a moment later, does the same work).
  'farm-tick': { retryLimit: 0, retryDelay: 1, expireInSeconds: 120, policy: 'stately' },
  // A packed order's label: retried while the provider is not answering (each retry looks the label up first).
  'buy-label': { retryLimit: 6, retryDelay: 30, expireInSeconds: 300 },
  // Tracking back to the marketplace: retried for about a day, then kept as failed for admins.
  'tracking-writeback': { retryLimit: 10, retryDelay: 60, expireInSeconds: 120 },
  // Reading labels in flight: like the farm's tick, one at a time across processes.
  'tracking-poll': { retryLimit: 0, retryDelay: 1, expireInSeconds: 600, policy: 'stately' },
  // A farm alert to Discord: retried from ~30 s, doubling, while Discord is away or rate limiting (an
  // attempt may wait up to 60 s for its rate-limit bucket); a deleted webhook is not retried.
  'discord-alert': { retryLimit: 6, retryDelay: 30, expireInSeconds: 180 },
  // An email's attempt: an SMTP refusal is retried by the message itself (EMAIL_RETRY_DELAY_S, EMAIL_MAX_ATTEMPTS);
  // these retries are for a job that failed otherwise (the database away), then dead-lettered.
  'send-email': { retryLimit: 3, retryDelay: 10, expireInSeconds: 120 },
  // Listing images: CPU on the model worker's threads, then storage; retried for storage or the database away.
  'render-listing-images': { retryLimit: 2, retryDelay: 30, expireInSeconds: 10 * 60 },
};

/** How many times a queue retries a failing job before dead-lettering it (the attempt with retryCount = this is the last). */
export function retryLimitOf(queue: Exclude<QueueName, 'dead-letter'>): number {
  return QUEUE_OPTIONS[queue].retryLimit;
}

/**
 * A job id derived from what the job is about (a UUID, as pg-boss wants), so queueing the same
 * thing twice (the first path and a sweep, or two sweeps) is a no-op in pg-boss — including after
 * the job was dead-lettered, so a poisoned one is not retried for ever by a sweep.
 */
export function stableJobId(queue: QueueName, key: string): string {
  const hex = createHash('sha256').update(`${queue}:${key}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Jobs one worker claims at once and runs side by side. pg-boss waits out the polling interval
 * after every fetch unless the batch came back full, so with one job per fetch a queue drains at
 * one job a second whatever its backlog; a full batch makes the worker fetch again at once
 * (burstWhenBatchFull). Each job of a batch is settled on its own (perJobResults): one failing
 * job never fails the others. Slicing stays one at a time (CPU-bound, minutes each).
 */
const WORKER_BATCH: Partial<Record<QueueName, number>> = {
  'slice-print-config': 1,
  'slice-print-file': 1,
  'shop-sync': 4,
  'webhook-delivery': 32,
  'farm-tick': 1,
  'tracking-poll': 1,
  // A render holds ~50 MB of pixels until it is encoded: one at a time per process.
  'render-listing-images': 1,
};
const DEFAULT_WORKER_BATCH = 4;

export interface JobQueue {
  /**
   * This process works the queue and found no other job-working process alive at its start: what
   * was left in flight (a charge, an announcement) was a dead process's, and sweeps can take it now.
   */
  readonly startedAlone: boolean;
  /** `id` (a UUID) makes sending the same job twice a no-op; `singletonKey` limits one per key; higher `priority` is fetched first. */
  send<T extends object>(
    queue: QueueName,
    data: T,
    options?: { singletonKey?: string; startAfter?: number | Date; id?: string; priority?: number },
  ): Promise<string | null>;
  /** Many jobs in one statement (each `id` a UUID: a job already there is skipped, as with send). */
  sendMany<T extends object>(queue: QueueName, jobs: readonly { data: T; id: string }[]): Promise<void>;
  work<T extends object>(queue: QueueName, handler: (data: T, job: Job<T>) => Promise<void>): Promise<void>;
  /**
   * Like work, but the handler takes the whole batch at once (one query for all its jobs) and answers
   * for each job, in order: null when it is done, else the error it failed with (retried by the
   * queue's policy, like a throw in work). If the handler itself throws, every job of the batch failed.
   */
  workBatch<T extends object>(queue: QueueName, handler: (jobs: readonly Job<T>[]) => Promise<readonly (Error | null)[]>): Promise<void>;
  /** Every queue's counts (pg-boss's cached counts, refreshed when over a minute old) and retry policy. */
  stats(): Promise<QueueCounts[]>;
  /** Jobs that ran out of attempts, newest first (up to `limit`), with the queue they failed on and their last error. */
  deadLetters(limit: number): Promise<{ jobs: DeadLetterJob[]; total: number }>;
  /** Re-creates a dead-lettered job on the queue it failed on (fresh attempts, same data) and removes it from the dead letters. */
  retryDeadLetter(id: string): Promise<DeadLetterRetry>;
  stop(): Promise<void>;
}

/** pg-boss runs its own migrations; two processes doing it at once deadlock, so they take turns. */
const START_LOCK_ID = 7_412_0002;

/**
 * Starts pg-boss and creates or updates every queue. `work`: this process will work the queue, so it
 * takes a lease and gives back to the queue, before any worker starts, the jobs dead processes left
 * active (orphaned-jobs.ts).
 */
export async function startJobQueue(
  database: DatabaseHandle,
  logger: { error(obj: unknown, msg?: string): void; info?(obj: unknown, msg?: string): void },
  options: { work: boolean },
): Promise<JobQueue> {
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
    for (const [name, policy] of Object.entries(QUEUE_OPTIONS)) {
      // Workers poll every second (see work()); LISTEN/NOTIFY would not wake them for retries that
      // come due, so it is not used.
      // heartbeatSeconds: workers refresh their jobs' heartbeat, which tells a live holder from a dead one.
      const settings = { ...policy, retryBackoff: true, deadLetter: QUEUES.deadLetter, heartbeatSeconds: HEARTBEAT_SECONDS };
      if (!existing.has(name)) await boss.createQueue(name, settings);
      else {
        // A queue's policy is fixed when it is created; the rest follows this file on every start.
        const { policy: _fixedAtCreation, ...changeable } = settings;
        await boss.updateQueue(name, changeable);
      }
    }
  });
  let recovery: OrphanRecovery | null = null;
  if (options.work) {
    try {
      recovery = await startOrphanRecovery(boss, backend, Object.keys(QUEUE_OPTIONS), logger);
    } catch (error) {
      await boss.stop({ graceful: false });
      throw error;
    }
  }

  async function workBatch<T extends object>(queue: QueueName, handler: (jobs: readonly Job<T>[]) => Promise<readonly (Error | null)[]>): Promise<void> {
    const batchSize = WORKER_BATCH[queue] ?? DEFAULT_WORKER_BATCH;
    const workOptions = {
      batchSize,
      pollingIntervalSeconds: 1,
      burstWhenBatchFull: batchSize > 1,
      perJobResults: true,
      heartbeatRefreshSeconds: HEARTBEAT_REFRESH_SECONDS,
    } as const;
    await boss.work<T>(queue, workOptions, async (jobs: Job<T>[]): Promise<JobResult[]> => {
      let errors: readonly (Error | null)[];
      try {
        errors = await handler(jobs);
      } catch (error) {
        errors = jobs.map(() => (error instanceof Error ? error : new Error(String(error))));
      }
      return jobs.map((job, index): JobResult => {
        const error = errors[index] ?? null;
        if (!error) return { id: job.id, status: 'completed' };
        // Stored as the job's output (serialized), so the dead-letter list can show it; retried by the queue's policy.
        logger.error({ err: error, queue, jobId: job.id, attempt: job.retryCount + 1 }, 'job attempt failed');
        return { id: job.id, status: 'failed', output: error };
      });
    });
  }

  return {
    startedAlone: recovery?.startedAlone ?? false,
    send: (queue, data, options = {}) => boss.send(queue, data, options),
    async sendMany(queue, jobs) {
      if (jobs.length > 0) await boss.insert(queue, jobs.map((job) => ({ id: job.id, data: job.data })));
    },
    async work<T extends object>(queue: QueueName, handler: (data: T, job: Job<T>) => Promise<void>) {
      await workBatch<T>(queue, async (jobs) =>
        Promise.all(
          jobs.map(async (job) => {
            try {
              await handler(job.data, job);
              return null;
            } catch (error) {
              return error instanceof Error ? error : new Error(String(error));
            }
          }),
        ),
      );
    },
    workBatch,
    async stats() {
      return Promise.all(
        Object.values(QUEUES).map(async (name): Promise<QueueCounts> => {
          // force: recount when the cached counts are over a minute old (pg-boss reuses a recount for a minute).
          const [counts] = await boss.getQueueStats(name, { force: true });
          const policy = name === QUEUES.deadLetter ? null : QUEUE_OPTIONS[name];
          return {
            name,
            queued: counts?.queuedCount ?? 0,
            deferred: counts?.deferredCount ?? 0,
            active: counts?.activeCount ?? 0,
            failed: counts?.failedCount ?? 0,
            total: counts?.totalCount ?? 0,
            countedAt: counts?.capturedOn ? new Date(counts.capturedOn).toISOString() : null,
            retry: policy
              ? { retryLimit: policy.retryLimit, retryDelaySeconds: policy.retryDelay, backoff: true, expireInSeconds: policy.expireInSeconds, policy: policy.policy ?? 'standard' }
              : null,
          };
        }),
      );
    },
    async deadLetters(limit) {
      // Waiting ones ('created'), and 'failed' ones: a retry that collided with a job already on its queue.
      const jobs = (await boss.findJobs<unknown>(QUEUES.deadLetter)).filter((job) => job.state === 'created' || job.state === 'retry' || job.state === 'failed');
      jobs.sort((a, b) => new Date(b.createdOn).getTime() - new Date(a.createdOn).getTime());
      return {
        total: jobs.length,
        jobs: jobs.slice(0, limit).map((job) => ({
          id: job.id,
          queue: job.sourceName,
          data: job.data,
          failedAt: new Date(job.createdOn).toISOString(),
          attempts: job.sourceRetryCount === null ? null : job.sourceRetryCount + 1,
          // pg-boss keeps the failed attempt's output (the thrown error, serialized) as sourceOutput.
          error: errorMessage(job.sourceOutput ?? (job.state === 'failed' ? null : job.output)),
          retryProblem: job.state === 'failed' ? errorMessage(job.output) : null,
        })),
      };
    },
    async retryDeadLetter(id) {
      const [job] = await boss.findJobs(QUEUES.deadLetter, { id });
      if (!job || !['created', 'retry', 'failed'].includes(job.state)) return { outcome: 'not-found' };
      if (!job.sourceName) return { outcome: 'conflict', message: 'This job does not say which queue it came from' };
      // A failed dead letter is one whose earlier retry collided; make it a candidate again first.
      if (job.state === 'failed') await boss.retry(QUEUES.deadLetter, id);
      // redrive: in one statement, a new job on the source queue (retry count 0, the queue's policy, same
      // data and singleton key) and the dead letter deleted; on a collision it stays, failed with the reason.
      const moved = await boss.redrive(QUEUES.deadLetter, { ids: [id], limit: 1 });
      if (moved === 1) return { outcome: 'retried', queue: job.sourceName };
      const [after] = await boss.findJobs(QUEUES.deadLetter, { id });
      if (!after) return { outcome: 'not-found' };
      return { outcome: 'conflict', message: errorMessage(after.output) ?? `Queue ${job.sourceName} refused the job` };
    },
    async stop() {
      await recovery?.stopSweeping();
      await boss.stop({ graceful: true, timeout: 10_000 });
      await recovery?.release();
    },
  };
}

/** The message of an error pg-boss stored as a job's output (serialize-error's shape), or a short dump. */
function errorMessage(output: unknown): string | null {
  if (output === null || output === undefined) return null;
  if (typeof output === 'object') {
    const { message, name } = output as { message?: unknown; name?: unknown };
    if (typeof message === 'string' && message) return typeof name === 'string' && name && name !== 'Error' ? `${name}: ${message}` : message;
    const text = JSON.stringify(output);
    return text === '{}' ? null : text.slice(0, 500);
  }
  return String(output).slice(0, 500);
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
