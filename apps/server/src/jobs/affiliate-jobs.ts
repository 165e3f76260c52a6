/** How often a job-working process fills in what a crash left out of the affiliate ledger. */
const SWEEP_EVERY_MS = 5 * 60 * 1000;

interface Sweepable {
  sweep(): Promise<unknown>;
}

/**
 * The affiliates' sweep (docs/affiliates.md): sign-ups not attached to their affiliate, succeeded
 * charges with no earning, refunds with no reversal, delivered orders whose entries have no payable
 * date. Each is written by a statement a unique index makes idempotent, so the sweep and a late
 * listener never write one twice. A timer in job-working processes, unref'd; returns its stop.
 */
export function startAffiliateSweep(
  affiliates: Sweepable,
  options: { work: boolean; log: { error(obj: unknown, msg?: string): void } },
): () => void {
  if (!options.work) return () => undefined;
  const timer = setInterval(() => {
    void affiliates
      .sweep()
      .catch((error: unknown) => options.log.error({ err: error }, 'affiliate ledger sweep failed'));
  }, SWEEP_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
