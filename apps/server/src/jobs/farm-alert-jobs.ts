import type { DeadLetterSource, FarmAlert, FarmAlerts } from '../modules/notifications/farm-alerts.ts';
import { QUEUES, stableJobId, type JobQueue } from './job-queue.ts';

/** How often job-working processes look for new dead letters to tell the farm about. */
const DEAD_LETTER_CHECK_MS = 60_000;

/**
 * The farm's Discord alerts on the job queue ('discord-alert'; docs/discord.md): every process queues
 * them, each with an id derived from what it is about (so a repeat is a no-op); job-working processes
 * send them, one at a time per process through the Discord client's rate limits, retried by the
 * queue's policy while Discord is away or rate limiting. They also look for dead letters on a timer
 * (unref'd). Returns a stop function.
 */
export async function startFarmAlertJobs(
  queue: JobQueue & DeadLetterSource,
  alerts: FarmAlerts,
  options: { work: boolean; log: { error(obj: unknown, msg?: string): void } },
): Promise<() => void> {
  alerts.connect(async (alert, key) => {
    await queue.send<{ alert: FarmAlert }>(
      QUEUES.discordAlert,
      { alert },
      key ? { id: stableJobId(QUEUES.discordAlert, key) } : {},
    );
  });
  if (!options.work) return () => undefined;
  await queue.work<{ alert: FarmAlert }>(QUEUES.discordAlert, async (data) => {
    await alerts.deliver(data.alert);
  });
  const check = () =>
    void alerts
      .checkDeadLetters(queue)
      .catch((error: unknown) =>
        options.log.error({ err: error }, 'could not check the dead letters for alerts'),
      );
  const timer = setInterval(check, DEAD_LETTER_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
