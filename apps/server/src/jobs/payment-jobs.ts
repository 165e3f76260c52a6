/** How often a job-working process looks for charges, refunds and webhooks a crash left unsettled. */
const RECOVER_EVERY_MS = 60 * 1000;

interface Recoverable {
  recover(olderThanMs?: number): Promise<unknown>;
}

/**
 * The payments sweep (PAY-2): charges asked of the provider whose answer was never stored, refunds
 * likewise, and webhook events stored but not processed are settled a minute or two later — each
 * asked again with its own idempotency key, so nothing is charged twice. A timer in job-working
 * processes, unref'd; `catchUpNow` (a process that started alone after a crash: nothing else is in
 * flight) settles everything pending at once. Returns a function that stops it.
 */
export function startPaymentRecovery(
  payments: Recoverable,
  options: { work: boolean; log: { error(obj: unknown, msg?: string): void }; catchUpNow?: boolean },
): () => void {
  if (!options.work) return () => undefined;
  if (options.catchUpNow) void payments.recover(0).catch((error: unknown) => options.log.error({ err: error }, 'payments recovery sweep failed'));
  const timer = setInterval(() => {
    void payments.recover().catch((error: unknown) => options.log.error({ err: error }, 'payments recovery sweep failed'));
  }, RECOVER_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
