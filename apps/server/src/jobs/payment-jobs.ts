/** How often a job-working process looks for charges, refunds and webhooks a crash left unsettled. */
const RECOVER_EVERY_MS = 60 * 1000;

interface Recoverable {
  recover(): Promise<unknown>;
}

/**
 * The payments sweep (PAY-2): charges asked of the provider whose answer was never stored, refunds
 * likewise, and webhook events stored but not processed are settled a minute or two later — each
 * asked again with its own idempotency key, so nothing is charged twice. A timer in job-working
 * processes, unref'd. Returns a function that stops it.
 */
export function startPaymentRecovery(payments: Recoverable, options: { work: boolean; log: { error(obj: unknown, msg?: string): void } }): () => void {
  if (!options.work) return () => undefined;
  const timer = setInterval(() => {
    void payments.recover().catch((error: unknown) => options.log.error({ err: error }, 'payments recovery sweep failed'));
  }, RECOVER_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
