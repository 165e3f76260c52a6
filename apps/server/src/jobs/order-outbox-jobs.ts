/** How often a job-working process looks for status changes left unannounced. */
const OUTBOX_SWEEP_EVERY_MS = 60 * 1000;
/** A change unannounced this long after its commit is announced again by the sweep. */
const OUTBOX_SWEEP_AGE_MS = 60 * 1000;
/** Announcements per sweep (the next sweep takes the rest). */
const OUTBOX_SWEEP_BATCH = 500;
/** Announced changes are kept this long, then dropped. */
const OUTBOX_KEEP_MS = 7 * 24 * 60 * 60 * 1000;

interface OutboxOrders {
  announcePending(olderThanMs: number, limit: number): Promise<number>;
  pruneAnnounced(before: Date): Promise<number>;
}

/** One sweep: announces what is overdue, then forgets old announcements; returns how many it announced. */
export async function sweepOrderOutbox(orders: OutboxOrders, olderThanMs = OUTBOX_SWEEP_AGE_MS): Promise<number> {
  const announced = await orders.announcePending(olderThanMs, OUTBOX_SWEEP_BATCH);
  await orders.pruneAnnounced(new Date(Date.now() - OUTBOX_KEEP_MS));
  return announced;
}

/**
 * The orders' outbox sweep (ING-2): a status change is committed together with its announcement,
 * and announced right after; when the process died in between, or a subscriber failed, the
 * announcement stays pending and this sweep (in job-working processes, a timer, unref'd) makes it
 * a minute later. Returns a function that stops the timer.
 */
export function startOrderOutboxSweep(
  orders: OutboxOrders,
  options: { work: boolean; log: { error(obj: unknown, msg?: string): void }; everyMs?: number; catchUpNow?: boolean },
): () => void {
  if (!options.work) return () => undefined;
  // Started alone after a crash: what the dead process left unannounced is announced now, not minutes later.
  if (options.catchUpNow) void sweepOrderOutbox(orders, 0).catch((error: unknown) => options.log.error({ err: error }, 'order outbox sweep failed'));
  const timer = setInterval(() => {
    void sweepOrderOutbox(orders).catch((error: unknown) => options.log.error({ err: error }, 'order outbox sweep failed'));
  }, options.everyMs ?? OUTBOX_SWEEP_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
