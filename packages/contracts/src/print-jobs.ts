/**
 * The print-job lifecycle (docs/print-farm.md): one job is one part printed once on one printer.
 * The transitions table is the only place a job's status changes; the server runs every change
 * through `assertPrintJobTransition` with compare-and-set, as it does for orders.
 *
 *   queued ─> assigned ─> uploading ─> printing ─> printed ─┬─> qc_passed
 *     ^          │            │            │                └─> qc_failed ─┐
 *     └──────────┴────────────┘            └─> failed ──────────────────────┤
 *   (printer lost before the print began:                                  v
 *    back to the queue, no attempt used)        a reprint: a NEW job linked to this one,
 *                                               up to MAX_PRINT_ATTEMPTS, then the order goes on hold
 *   any status before qc_passed / qc_failed / failed ─> cancelled
 */
export const PRINT_JOB_STATUSES = [
  'queued',
  'assigned',
  'uploading',
  'printing',
  'printed',
  'qc_passed',
  'qc_failed',
  'failed',
  'cancelled',
] as const;
export type PrintJobStatus = (typeof PRINT_JOB_STATUSES)[number];

export const PRINT_JOB_STATUS_LABELS: Readonly<Record<PrintJobStatus, string>> = {
  queued: 'Queued',
  assigned: 'Assigned',
  uploading: 'Uploading',
  printing: 'Printing',
  printed: 'Awaiting QC',
  qc_passed: 'Passed QC',
  qc_failed: 'Failed QC',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

export const PRINT_JOB_TRANSITIONS: Readonly<Record<PrintJobStatus, readonly PrintJobStatus[]>> = {
  queued: ['assigned', 'cancelled'],
  // Back to `queued` when the printer goes away (offline, paused, retired) before anything was printed.
  assigned: ['uploading', 'queued', 'cancelled'],
  // Back to `queued` when the upload fails or the printer refuses the file: nothing was printed yet.
  uploading: ['printing', 'queued', 'failed', 'cancelled'],
  // Once plastic is on the bed a job never goes back to the queue: it ends, and a reprint is a new job.
  printing: ['printed', 'failed', 'cancelled'],
  printed: ['qc_passed', 'qc_failed', 'cancelled'],
  qc_passed: [],
  qc_failed: [],
  failed: [],
  cancelled: [],
};

/** Statuses a job ends in. `failed` and `qc_failed` lead to a reprint (a new job) or an order on hold. */
export const PRINT_JOB_TERMINAL: readonly PrintJobStatus[] = [
  'qc_passed',
  'qc_failed',
  'failed',
  'cancelled',
];

/** A job holds (or is about to hold) a printer in these statuses: at most one such job per printer. */
export const PRINT_JOB_ON_PRINTER: readonly PrintJobStatus[] = ['assigned', 'uploading', 'printing'];

/**
 * How many times one part may be printed (the first print and its reprints) before the order goes
 * on hold for a person to look at it. Three: one bad print is normal, two in a row is rare, a third
 * means the model, the profile or the printer needs a person.
 */
export const MAX_PRINT_ATTEMPTS = 3;

export class PrintJobTransitionError extends Error {
  readonly from: PrintJobStatus;
  readonly to: PrintJobStatus;
  constructor(from: PrintJobStatus, to: PrintJobStatus) {
    super(
      `A print job that is ${PRINT_JOB_STATUS_LABELS[from].toLowerCase()} cannot become ${PRINT_JOB_STATUS_LABELS[to].toLowerCase()}`,
    );
    this.name = 'PrintJobTransitionError';
    this.from = from;
    this.to = to;
  }
}

export function canPrintJobTransition(from: PrintJobStatus, to: PrintJobStatus): boolean {
  return PRINT_JOB_TRANSITIONS[from].includes(to);
}

export function assertPrintJobTransition(from: PrintJobStatus, to: PrintJobStatus): void {
  if (!canPrintJobTransition(from, to)) throw new PrintJobTransitionError(from, to);
}

/** What a failed or QC-failed job leads to. */
export type AfterPrintFailure =
  { kind: 'reprint'; attempt: number; reprintOf: string } | { kind: 'hold_order'; reason: string };

/**
 * The consequence of a job ending in `failed` or `qc_failed`: a reprint (a new queued job with
 * `attempt + 1`, linked to this one by `reprintOf`) while attempts remain, else the order goes on
 * hold with a reason a person understands. `attempt` counts from 1 (the first print).
 */
export function afterPrintFailure(
  job: { id: string; status: PrintJobStatus; attempt: number; partName: string; failureReason: string },
  maxAttempts: number = MAX_PRINT_ATTEMPTS,
): AfterPrintFailure {
  if (job.status !== 'failed' && job.status !== 'qc_failed') {
    throw new Error(`Only a failed or QC-failed job is reprinted (this one is ${job.status})`);
  }
  if (!Number.isInteger(job.attempt) || job.attempt < 1)
    throw new Error(`A job's attempt counts from 1 (got ${job.attempt})`);
  if (job.attempt < maxAttempts) return { kind: 'reprint', attempt: job.attempt + 1, reprintOf: job.id };
  const last = job.failureReason.trim() || (job.status === 'qc_failed' ? 'failed QC' : 'the print failed');
  return {
    kind: 'hold_order',
    reason:
      `The part “${job.partName}” failed ${job.attempt} time${job.attempt === 1 ? '' : 's'} (last: ${last}). ` +
      'It is not reprinted again by itself: check the model, the printer and the material, then release the order.',
  };
}
