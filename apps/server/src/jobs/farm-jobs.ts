import type { FarmDispatcher } from '../modules/production/farm-dispatcher.ts';
import { QUEUES, type JobQueue } from './job-queue.ts';

/**
 * The print farm on the job queue (docs/print-farm.md, "The dispatcher"): in job-working processes a
 * timer asks for a farm tick every `tickMs`; the queue's 'stately' policy keeps at most one waiting
 * and one running across every process, so a farm of 300 printers is polled and dispatched by one
 * worker at a time, and a tick lost with its process is simply the next one. Returns a stop function.
 */
export async function startFarmJobs(
  queue: JobQueue,
  dispatcher: FarmDispatcher,
  options: { work: boolean; tickMs: number; log: { error(obj: unknown, msg?: string): void } },
): Promise<() => void> {
  if (!options.work) return () => undefined;
  const { log } = options;
  await queue.work(QUEUES.farmTick, async () => {
    try {
      await dispatcher.tick();
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
