import { AppError, notFound } from '../../errors.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';

/** How one queue retries (its policy as configured), for the admin page. */
export interface QueuePolicySummary {
  readonly retryLimit: number;
  /** Seconds before the first retry; later ones double (with jitter) when `backoff`. */
  readonly retryDelaySeconds: number;
  readonly backoff: boolean;
  readonly expireInSeconds: number;
  readonly policy: string;
}

/** One queue's counts, as the job queue last counted them (at most about a minute old). */
export interface QueueCounts {
  readonly name: string;
  /** Waiting to run: created or retry, including deferred ones. */
  readonly queued: number;
  /** Of `queued`, those waiting for a later start (a retry's backoff, a Retry-After). */
  readonly deferred: number;
  readonly active: number;
  /** Failed for good and still retained. */
  readonly failed: number;
  readonly total: number;
  /** When these counts were taken; null when the queue was never counted. */
  readonly countedAt: string | null;
  /** Null for the dead-letter queue, which nothing works. */
  readonly retry: QueuePolicySummary | null;
}

/** A job that ran out of attempts and waits in the dead-letter queue. */
export interface DeadLetterJob {
  /** Its id in the dead-letter queue. */
  readonly id: string;
  /** The queue it failed on; null for a job dead-lettered before pg-boss recorded it. */
  readonly queue: string | null;
  /** Its payload as it was sent. */
  readonly data: unknown;
  /** When it was dead-lettered. */
  readonly failedAt: string;
  /** How many attempts it had: its retries + 1 (null when unknown). */
  readonly attempts: number | null;
  /** The last error its handler threw. */
  readonly error: string | null;
  /** Why an earlier retry from here did not go through (a conflicting job on its queue), if it did not. */
  readonly retryProblem: string | null;
}

export type DeadLetterRetry =
  | { readonly outcome: 'retried'; readonly queue: string }
  | { readonly outcome: 'not-found' }
  | { readonly outcome: 'conflict'; readonly message: string };

/** What this module needs from the job queue (jobs/job-queue.ts implements it). */
export interface JobsAdminPort {
  stats(): Promise<QueueCounts[]>;
  /** Dead letters, newest first, and how many there are in all. */
  deadLetters(limit: number): Promise<{ jobs: DeadLetterJob[]; total: number }>;
  /** Sends the job again to the queue it failed on (same data, a fresh set of attempts) and removes it from the dead letters. */
  retryDeadLetter(id: string): Promise<DeadLetterRetry>;
}

/** Key names whose values are never shown, whatever the job (payloads should hold ids only). */
const SECRET_KEY = /token|secret|key|password|passphrase|authorization|cookie|signature|credential/i;
export const REDACTED = '[redacted]';

/** A copy of a job payload with every value under a secret-looking key replaced. */
export function redactPayload(value: unknown, depth = 0): unknown {
  if (depth > 20) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactPayload(item, depth + 1));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, inner]) => [
        key,
        SECRET_KEY.test(key) ? REDACTED : redactPayload(inner, depth + 1),
      ]),
    );
  }
  return value;
}

/**
 * Background jobs for admins: how full each queue is, the jobs that ran out of attempts (with the
 * queue they failed on and their last error), and retrying one of those, audited with the admin
 * as the actor. Callers check that the viewer is an admin.
 */
export function createJobsAdminService(deps: { audit: AuditRepository }) {
  let queue: JobsAdminPort | null = null;
  const port = (): JobsAdminPort => {
    if (!queue) throw new AppError('unavailable', 'The job queue is not running in this process');
    return queue;
  };

  return {
    /** The running job queue; bootstrap connects it once it has started. */
    connect(jobQueue: JobsAdminPort): void {
      queue = jobQueue;
    },

    async overview(limit: number) {
      const [queues, deadLetters] = await Promise.all([port().stats(), port().deadLetters(limit)]);
      return {
        queues,
        deadLetterTotal: deadLetters.total,
        deadLetters: deadLetters.jobs.map((job) => ({ ...job, data: redactPayload(job.data) })),
      };
    },

    async retryDeadLetter(id: string, context: { actorId: string; requestId?: string }): Promise<{ id: string; queue: string }> {
      const result = await port().retryDeadLetter(id);
      if (result.outcome === 'not-found') throw notFound('Dead-lettered job');
      if (result.outcome === 'conflict') throw new AppError('conflict', result.message);
      await deps.audit.record({
        actorId: context.actorId,
        targetUserId: null,
        action: 'job.dead-letter-retried',
        detail: { jobId: id, queue: result.queue },
        requestId: context.requestId,
      });
      return { id, queue: result.queue };
    },
  };
}

export type JobsAdminService = ReturnType<typeof createJobsAdminService>;
