/** How often a job-working process releases orders whose change window has ended. */
const RELEASE_SWEEP_EVERY_MS = 60 * 1000;

interface ReleasingOrders {
  releaseDue(): Promise<number>;
}

/**
 * The change window's release (docs/change-window.md): orders held for the seller's review wait
 * `received` until their `release_at`; this sweep (in job-working processes, a timer, unref'd)
 * accepts them then, at most a minute late, which makes their print jobs and charges them. It
 * runs once at start, so orders whose window ended while no process ran are released at once.
 * Returns a function that stops the timer.
 */
export function startOrderReleaseSweep(
  orders: ReleasingOrders,
  options: { work: boolean; log: { error(obj: unknown, msg?: string): void }; everyMs?: number },
): () => void {
  if (!options.work) return () => undefined;
  const sweep = () => void orders.releaseDue().catch((error: unknown) => options.log.error({ err: error }, 'order release sweep failed'));
  sweep();
  const timer = setInterval(sweep, options.everyMs ?? RELEASE_SWEEP_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
