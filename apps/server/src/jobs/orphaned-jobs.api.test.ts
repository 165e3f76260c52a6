import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../config.ts';
import { bootstrap, type Running } from '../bootstrap.ts';
import { createScratchDatabase } from '../../test/test-app.ts';
import { QUEUES } from './job-queue.ts';

/**
 * A crash costs seconds (issue 21, docs/jobs.md "Orphaned jobs"): jobs a killed process held are
 * given back to the queue when a process starts, not left active until their expiry (minutes).
 * The killed holder is made the way pg-boss's own fetch marks a claim (state active, started_on
 * and heartbeat_on now), in a database whose process then goes away without settling them.
 */
const silent = { error: () => undefined };
const openProcesses = new Set<Running>();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const running of [...openProcesses].reverse()) await stop(running);
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function scratchConfig(): Promise<Config> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'layerline-orphans-'));
  const postgres = process.env.DATABASE_URL ? await createScratchDatabase(process.env.DATABASE_URL) : undefined;
  cleanups.push(async () => {
    await postgres?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'silent', SLICING: 'off', ...(postgres ? { DATABASE_URL: postgres.url } : {}) });
}

async function start(config: Config, workJobs: boolean): Promise<Running> {
  const running = await bootstrap(config, silent, { workJobs });
  openProcesses.add(running);
  return running;
}

async function stop(running: Running): Promise<void> {
  openProcesses.delete(running);
  await running.close();
}

interface JobRow {
  state: string;
  retryCount: number;
}

async function jobState(running: Running, id: string): Promise<JobRow | undefined> {
  const result = (await running.context.db.execute(
    sql`SELECT state::text AS state, retry_count AS "retryCount" FROM pgboss.job WHERE id = ${id}::uuid`,
  )) as unknown as { rows: JobRow[] };
  return result.rows[0];
}

/** Marks jobs claimed as pg-boss's fetch does, by a holder that then never refreshes or settles them. */
async function claimAsDeadHolder(running: Running, ids: string[], heartbeatAgeSeconds = 0): Promise<void> {
  for (const id of ids) {
    await running.context.db.execute(
      sql`UPDATE pgboss.job SET state = 'active', started_on = now() - make_interval(secs => ${heartbeatAgeSeconds}),
            heartbeat_on = now() - make_interval(secs => ${heartbeatAgeSeconds}) WHERE id = ${id}::uuid`,
    );
  }
}

async function waitFor<T>(what: string, check: () => Promise<T | null | undefined | false>, timeoutMs: number): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('jobs a killed process held', () => {
  it('run again within seconds of the restart, each once, the attempt not counted; the fifth crash under a job dead-letters it', async () => {
    const config = await scratchConfig();
    // The process that dies: it queued an email attempt and a farm tick and was running both.
    const before = await start(config, false);
    const emailJob = await before.jobs.send(QUEUES.sendEmail, { messageId: randomUUID() }, { id: randomUUID() });
    const tickJob = await before.jobs.send(QUEUES.farmTick, {});
    expect(emailJob).toBeTruthy();
    expect(tickJob).toBeTruthy();
    // A job its process has died under four times already (the count pg-boss keeps in its output).
    const poisonJob = await before.jobs.send(QUEUES.sendEmail, { messageId: randomUUID() }, { id: randomUUID() });
    await claimAsDeadHolder(before, [emailJob!, tickJob!, poisonJob!]);
    await before.context.db.execute(sql`UPDATE pgboss.job SET output = '{"crashes": 4}'::jsonb WHERE id = ${poisonJob!}::uuid`);
    await stop(before);

    const restartedAt = Date.now();
    const after = await start(config, true);
    const done = await waitFor(
      'both orphaned jobs to complete',
      async () => {
        const email = await jobState(after, emailJob!);
        const tick = await jobState(after, tickJob!);
        // The farm tick is stately: a newer tick already waiting makes the orphan's cancellation correct too.
        const tickSettled = tick?.state === 'completed' || tick?.state === 'cancelled';
        return email?.state === 'completed' && tickSettled ? { email, tick } : null;
      },
      10_000,
    );
    // Without the recovery they stay active until their expiry: 2 minutes for both queues.
    expect(Date.now() - restartedAt).toBeLessThan(10_000);
    // A crash is not the job's fault: the dead attempt is not counted against its retries.
    expect(done.email.retryCount).toBe(0);
    // The fifth crash under the same job: it may be what kills the process, so it is not run again.
    expect((await jobState(after, poisonJob!))?.state).toBe('failed');
    const deadLetters = await after.jobs.deadLetters(10);
    expect(deadLetters.jobs.map((job) => [job.queue, job.error])).toContainEqual([QUEUES.sendEmail, 'The process running this job died under it 5 times']);
  }, 60_000);

  it.runIf(process.env.DATABASE_URL)('with a live peer: its fresh jobs are left alone, a dead holder’s stale ones are taken', async () => {
    const config = await scratchConfig();
    const peer = await start(config, true); // a live job-working process: holds its lease
    const liveJob = await peer.jobs.send(QUEUES.sendEmail, { messageId: randomUUID() }, { id: randomUUID(), startAfter: 3600 });
    const deadJob = await peer.jobs.send(QUEUES.sendEmail, { messageId: randomUUID() }, { id: randomUUID(), startAfter: 3600 });
    // The live holder's job keeps a fresh heartbeat (refreshed below, as its worker would); the dead
    // holder's stopped 20 s ago.
    await claimAsDeadHolder(peer, [liveJob!]);
    await claimAsDeadHolder(peer, [deadJob!], 20);
    let refreshing = true;
    const refresher = (async () => {
      while (refreshing) {
        await peer.context.db.execute(sql`UPDATE pgboss.job SET heartbeat_on = now() WHERE id = ${liveJob!}::uuid AND state = 'active'`);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    })();
    try {
      const restartedAt = Date.now();
      const restarted = await start(config, true);
      await waitFor('the dead holder’s job to complete', async () => (await jobState(restarted, deadJob!))?.state === 'completed', 10_000);
      expect(Date.now() - restartedAt).toBeLessThan(10_000);
      // Past the staleness limit (8 s) and two sweeps of both processes: the live holder's job is still its own.
      await new Promise((resolve) => setTimeout(resolve, 12_000));
      expect(await jobState(restarted, liveJob!)).toEqual({ state: 'active', retryCount: 0 });
    } finally {
      refreshing = false;
      await refresher;
    }
  }, 90_000);
});
