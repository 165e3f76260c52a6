import { randomInt } from 'node:crypto';
import type { PgBoss } from 'pg-boss';
import pg from 'pg';
import type { DatabaseHandle } from '../db/client.ts';

/**
 * Jobs a dead process held (docs/jobs.md, "Orphaned jobs"). pg-boss leaves a job `active` until its
 * expiry (minutes) when the process running it dies; this gives it back to the queue within seconds.
 *
 * Which active jobs are a dead process's:
 * - Every job-working process holds a **lease**: on PostgreSQL a session advisory lock on its own
 *   connection, which PostgreSQL drops the moment the process dies (its socket closes); with PGlite
 *   the data directory's lock already makes this process the only one. A process starting with no
 *   other lease held knows every active job was its predecessor's, and requeues them all at once,
 *   before it registers a worker.
 * - With a live peer, it cannot tell whose jobs are whose, so it goes by pg-boss's **heartbeat**:
 *   every worker refreshes `heartbeat_on` of the jobs it runs every HEARTBEAT_REFRESH_SECONDS; a job
 *   not refreshed for STALE_AFTER_SECONDS is a dead process's. Each job-working process sweeps for
 *   those every SWEEP_EVERY_MS, so a peer's death costs seconds too.
 *
 * A requeued job starts again at once (no backoff) and its attempt is not counted: a crash is not
 * the job's fault, and a slice killed three times by restarts would otherwise be dead-lettered. The
 * crashes are counted in the job's output instead, so a job that kills its process is not retried
 * for ever: the MAX_CRASHES-th time it is failed to the dead letters. A `stately` job whose waiting
 * place is taken by a newer job of the same key is cancelled: the waiting one does its work.
 */

/** pg-boss's smallest allowed heartbeat: a job not refreshed this long is failed by pg-boss itself. */
export const HEARTBEAT_SECONDS = 10;
/** How often a worker refreshes the heartbeat of the jobs it runs. */
export const HEARTBEAT_REFRESH_SECONDS = 2;
/** A job whose heartbeat is older than this is a dead process's (four missed refreshes). */
const STALE_AFTER_SECONDS = 8;
/** How often a job-working process looks for stale jobs (with PostgreSQL, where peers may die). */
const SWEEP_EVERY_MS = 2_000;
/** Advisory-lock class of the job workers' leases (the second key is the process's own). */
const LEASE_CLASS_ID = 7_412_0021;

/** A job whose process dies under it this many times is not given back again (it may be what kills it). */
const MAX_CRASHES = 5;

const ORPHAN_MESSAGE = 'The process running this job died; it was given back to the queue';

interface Orphan {
  id: string;
  name: string;
  retryCount: number;
  retryLimit: number;
  /** How many times before a process died under this job (kept in its output; a failed attempt's error resets it). */
  crashes: number;
}

export interface OrphanRecovery {
  /** No other job-working process was alive when this one started: whatever was left in flight was a dead process's. */
  readonly startedAlone: boolean;
  /** Stops the sweep (before the queue stops: it reads through the queue's connections). */
  stopSweeping(): Promise<void>;
  /** Gives up the lease (last: until its jobs are settled, peers must see this process alive). */
  release(): Promise<void>;
}

/**
 * Takes this process's lease, recovers what its predecessors left active, and (on PostgreSQL) keeps
 * sweeping for jobs whose holder died. Call before registering any worker: the first recovery
 * treats every active job as a dead process's when no peer holds a lease.
 */
export async function startOrphanRecovery(
  boss: PgBoss,
  backend: DatabaseHandle['jobBackend'],
  queues: readonly string[],
  logger: { error(obj: unknown, msg?: string): void; info?(obj: unknown, msg?: string): void },
): Promise<OrphanRecovery> {
  const lease = backend.kind === 'postgres' ? await takeLease(backend.connectionString, logger) : null;
  const db = boss.getDb();

  async function recover(everyActive: boolean): Promise<number> {
    const { rows } = await db.executeSql(
      `SELECT id, name, retry_count AS "retryCount", retry_limit AS "retryLimit",
              CASE WHEN jsonb_typeof(output -> 'crashes') = 'number' THEN (output ->> 'crashes')::int ELSE 0 END AS crashes
         FROM pgboss.job
        WHERE state = 'active' AND name = ANY($1::text[])
          AND ($2::boolean OR (heartbeat_seconds IS NOT NULL
               AND COALESCE(heartbeat_on, started_on) < pgboss.job_now() - $3::int * interval '1 second'))`,
      [queues, everyActive, STALE_AFTER_SECONDS],
    );
    const orphans = rows as Orphan[];
    if (orphans.length === 0) return 0;
    const attemptOf = (job: Orphan) => `${job.id}:${job.retryCount}`;
    const again = orphans.filter((job) => job.crashes + 1 < MAX_CRASHES).map(attemptOf);
    // Back to the queue, due now, the attempt not counted (started_on cleared, as pg-boss's restore does)
    // and the crash counted in its output. Fenced on the attempt (id:retry_count) and `active`, so a job
    // its holder settled meanwhile is left alone; a stately one whose waiting place is taken is skipped here.
    await db.executeSql(
      `UPDATE pgboss.job j
          SET state = (CASE WHEN j.retry_limit = 0 THEN 'created' ELSE 'retry' END)::pgboss.job_state,
              started_on = NULL, start_after = pgboss.job_now(), heartbeat_on = NULL,
              output = jsonb_build_object('message', $2::text,
                'crashes', 1 + CASE WHEN jsonb_typeof(j.output -> 'crashes') = 'number' THEN (j.output ->> 'crashes')::int ELSE 0 END)
        WHERE j.state = 'active' AND (j.id::text || ':' || j.retry_count::text) = ANY($1::text[])
          AND NOT (j.policy = 'stately' AND EXISTS (
                SELECT 1 FROM pgboss.job s
                 WHERE s.name = j.name AND s.policy = 'stately' AND s.id <> j.id
                   AND s.state = (CASE WHEN j.retry_limit = 0 THEN 'created' ELSE 'retry' END)::pgboss.job_state
                   AND COALESCE(s.singleton_key, '') = COALESCE(j.singleton_key, '')))`,
      [again, ORPHAN_MESSAGE],
    );
    // Stately orphans with a newer job of their key already waiting: that job does the same work.
    await db.executeSql(
      `UPDATE pgboss.job j SET state = 'cancelled', completed_on = pgboss.job_now(), heartbeat_on = NULL,
              output = jsonb_build_object('message', $2::text)
        WHERE j.state = 'active' AND (j.id::text || ':' || j.retry_count::text) = ANY($1::text[]) AND j.policy = 'stately'`,
      [again, ORPHAN_MESSAGE],
    );
    // A job whose process died under it MAX_CRASHES times: failed to the dead letters, its attempts spent.
    for (const job of orphans.filter((orphan) => orphan.crashes + 1 >= MAX_CRASHES)) {
      await db.executeSql(`UPDATE pgboss.job SET retry_count = retry_limit WHERE id = $1 AND state = 'active' AND retry_count = $2`, [job.id, job.retryCount]);
      await boss.fail(job.name, { id: job.id, retryCount: job.retryLimit }, { message: `The process running this job died under it ${MAX_CRASHES} times` });
    }
    logger.info?.({ jobs: orphans.length, queues: [...new Set(orphans.map((job) => job.name))] }, 'requeued jobs a dead process held');
    return orphans.length;
  }

  let startedAlone: boolean;
  try {
    startedAlone = lease ? !(await lease.peerAlive()) : true;
    await recover(startedAlone);
  } catch (error) {
    await lease?.release();
    throw error;
  }

  let sweeping: Promise<unknown> = Promise.resolve();
  const timer = lease
    ? setInterval(() => {
        sweeping = recover(false).catch((error: unknown) => logger.error({ err: error }, 'orphaned-job sweep failed'));
      }, SWEEP_EVERY_MS)
    : null;
  timer?.unref();

  return {
    startedAlone,
    async stopSweeping() {
      if (timer) clearInterval(timer);
      await sweeping;
    },
    release: async () => lease?.release(),
  };
}

interface Lease {
  peerAlive(): Promise<boolean>;
  release(): Promise<void>;
}

/**
 * A session advisory lock on a connection of its own, held for the process's life: PostgreSQL
 * releases it when the connection ends, which a killed process's does at once. If the connection
 * is lost while the process lives, peers starting meanwhile may requeue its running jobs (each runs
 * again: handlers are idempotent, and pg-boss refuses the stale attempt's settle).
 */
async function takeLease(connectionString: string, logger: { error(obj: unknown, msg?: string): void }): Promise<Lease> {
  const client = new pg.Client({ connectionString, application_name: 'layerline-jobs' });
  client.on('error', (error) => logger.error({ err: error }, 'job lease connection lost'));
  await client.connect();
  await client.query('SELECT pg_advisory_lock($1, $2)', [LEASE_CLASS_ID, randomInt(2 ** 31 - 1)]);
  return {
    async peerAlive() {
      const { rows } = await client.query<{ peers: number }>(
        `SELECT count(*)::int AS peers FROM pg_locks
          WHERE locktype = 'advisory' AND granted AND classid = $1::int::oid AND pid <> pg_backend_pid()
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        [LEASE_CLASS_ID],
      );
      return rows[0]!.peers > 0;
    },
    async release() {
      await client.end().catch(() => undefined);
    },
  };
}
