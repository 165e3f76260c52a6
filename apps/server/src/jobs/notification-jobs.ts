import { weekStart, type NotificationService } from '../modules/notifications/notification-service.ts';
import { QUEUES, stableJobId, type JobQueue } from './job-queue.ts';

/** Messages still queued this long after they were stored are queued again (their job was lost). */
const SWEEP_AGE_MS = 10 * 60 * 1000;

/**
 * Emails on the job queue (docs/notifications.md): every process queues the messages it stores; job-working
 * processes send them ('send-email', one job per message and attempt, so queueing an attempt twice is one
 * job), and on a timer sweep for lost jobs and mail last week's summaries (each once per seller and week,
 * whichever process gets there first). Returns a stop function.
 */
export async function startNotificationJobs(
  queue: JobQueue,
  notifications: NotificationService,
  options: { work: boolean; timerMs: number; log: { error(obj: unknown, msg?: string): void } },
): Promise<() => void> {
  notifications.connectQueue({
    async send(messageId, attempt, startAfter) {
      await queue.send(QUEUES.sendEmail, { messageId }, { id: stableJobId(QUEUES.sendEmail, `${messageId}:${attempt}`), ...(startAfter ? { startAfter } : {}) });
    },
  });
  if (!options.work) return () => undefined;
  const { log } = options;
  await queue.work<{ messageId: string }>(QUEUES.sendEmail, async (data) => {
    await notifications.deliver(data.messageId);
  });
  let summaryWeek: string | null = null;
  const tick = async () => {
    try {
      await notifications.sweep(SWEEP_AGE_MS);
      // The summaries' query reads the whole week; once a process has done a week it waits for the next.
      const thisWeek = weekStart(new Date()).toISOString();
      if (summaryWeek !== thisWeek) {
        await notifications.sendWeeklySummaries();
        summaryWeek = thisWeek;
      }
    } catch (error) {
      // Logged, not thrown: the next tick does the same work.
      log.error({ err: error }, 'notifications timer failed');
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), options.timerMs);
  timer.unref();
  return () => clearInterval(timer);
}
