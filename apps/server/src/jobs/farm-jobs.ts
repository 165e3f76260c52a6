import type { FarmDispatcher } from '../modules/production/farm-dispatcher.ts';
import type { ProductionService } from '../modules/production/production-service.ts';
import { QUEUES, type JobQueue } from './job-queue.ts';

/** Jobs waiting for their sliced file are looked at this often. */
const SWEEP_EVERY_MS = 10_000;

/**
 * The print farm on the job queue (docs/print-farm.md, "The dispatcher"): in job-working processes a
 * timer asks for a farm tick every `tickMs`; the queue's 'stately' policy keeps at most one waiting
 * and one running across every process, so a farm of 300 printers is polled and dispatched by one
 * worker at a time, and a tick lost with its process is simply the next one. Returns a stop function.
 */
export async function startFarmJobs(
  queue: JobQueue,
  farm: { dispatcher: FarmDispatcher; production: ProductionService },
  options: { work: boolean; tickMs: number; log: { error(obj: unknown, msg?: string): void } },
): Promise<() => void> {
  if (!options.work) return () => undefined;
  const { log } = options;
  let sweepDueAt = 0;
  await queue.work(QUEUES.farmTick, async () => {
    try {
      if (Date.now() >= sweepDueAt) {
        sweepDueAt = Date.now() + SWEEP_EVERY_MS;
        await farm.production.refreshFiles();
      }
      await farm.dispatcher.tick();
    } catch (error) {
      // Logged, not thrown: the next tick does the same work, and a failed tick is no dead letter.
      log.error({ err: error }, 'farm tick failed');
    }
  });
  const ask = () => void queue.send(QUEUES.farmTick, {}).catch((error: unknown) => log.error({ err: error }, 'could not queue a farm tick'));
  ask();
  const timer = setInterval(ask, options.tickMs);
  timer.unref();
  return () => clearInterval(timer);
}
