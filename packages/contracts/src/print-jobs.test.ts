import { describe, expect, it } from 'vitest';
import {
  MAX_PRINT_ATTEMPTS,
  PRINT_JOB_ON_PRINTER,
  PRINT_JOB_STATUSES,
  PRINT_JOB_TERMINAL,
  PRINT_JOB_TRANSITIONS,
  PrintJobTransitionError,
  afterPrintFailure,
  assertPrintJobTransition,
  canPrintJobTransition,
  type PrintJobStatus,
} from './print-jobs.ts';

const reachableFrom = (start: PrintJobStatus) => {
  const seen = new Set<PrintJobStatus>([start]);
  const queue = [start];
  while (queue.length) {
    for (const next of PRINT_JOB_TRANSITIONS[queue.shift()!]) {
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(next);
    }
  }
  return seen;
};

describe('the print-job lifecycle', () => {
  it('covers every status, and ends only in qc_passed, qc_failed, failed or cancelled', () => {
    expect(Object.keys(PRINT_JOB_TRANSITIONS).sort()).toEqual([...PRINT_JOB_STATUSES].sort());
    const terminal = PRINT_JOB_STATUSES.filter((s) => PRINT_JOB_TRANSITIONS[s].length === 0);
    expect(terminal.sort()).toEqual([...PRINT_JOB_TERMINAL].sort());
    expect(terminal.sort()).toEqual(['cancelled', 'failed', 'qc_failed', 'qc_passed']);
  });

  it('reaches every status from queued, and every job can end from every live status', () => {
    expect([...reachableFrom('queued')].sort()).toEqual([...PRINT_JOB_STATUSES].sort());
    for (const status of PRINT_JOB_STATUSES) {
      const ends = [...reachableFrom(status)].filter((s) => PRINT_JOB_TERMINAL.includes(s));
      expect(ends.length, status).toBeGreaterThan(0);
    }
  });

  it('follows the happy path step by step and skips nothing', () => {
    const path: PrintJobStatus[] = ['queued', 'assigned', 'uploading', 'printing', 'printed', 'qc_passed'];
    for (let i = 1; i < path.length; i++) expect(canPrintJobTransition(path[i - 1]!, path[i]!)).toBe(true);
    expect(canPrintJobTransition('queued', 'printing')).toBe(false);
    expect(canPrintJobTransition('assigned', 'printing')).toBe(false);
    expect(canPrintJobTransition('printing', 'qc_passed')).toBe(false);
    expect(canPrintJobTransition('uploading', 'printed')).toBe(false);
  });

  it('returns a job to the queue only before anything was printed', () => {
    const backToQueue = PRINT_JOB_STATUSES.filter((s) => canPrintJobTransition(s, 'queued'));
    expect(backToQueue.sort()).toEqual(['assigned', 'uploading']);
    expect(canPrintJobTransition('printing', 'queued')).toBe(false);
    expect(canPrintJobTransition('failed', 'queued')).toBe(false);
    expect(canPrintJobTransition('qc_failed', 'queued')).toBe(false);
  });

  it('a job holds a printer only while assigned, uploading or printing, and each of them can let it go', () => {
    expect([...PRINT_JOB_ON_PRINTER].sort()).toEqual(['assigned', 'printing', 'uploading']);
    for (const status of PRINT_JOB_ON_PRINTER) {
      expect(PRINT_JOB_TRANSITIONS[status].some((s) => !PRINT_JOB_ON_PRINTER.includes(s))).toBe(true);
    }
  });

  it('cancels anything not yet finished, and nothing finished', () => {
    for (const status of PRINT_JOB_STATUSES) {
      expect(canPrintJobTransition(status, 'cancelled'), status).toBe(!PRINT_JOB_TERMINAL.includes(status));
    }
  });

  it('refuses a forbidden change with an error naming both statuses', () => {
    expect(() => assertPrintJobTransition('qc_passed', 'queued')).toThrow(PrintJobTransitionError);
    expect(() => assertPrintJobTransition('qc_passed', 'queued')).toThrow(
      'A print job that is passed qc cannot become queued',
    );
    expect(() => assertPrintJobTransition('printing', 'printed')).not.toThrow();
  });
});

describe('after a failed print', () => {
  const job = (attempt: number, status: PrintJobStatus = 'failed') => ({
    id: `job-${attempt}`,
    status,
    attempt,
    partName: 'Benchy hull',
    failureReason: 'spaghetti at layer 40',
  });

  it('reprints as a new job linked to the failed one while attempts remain', () => {
    expect(afterPrintFailure(job(1))).toEqual({ kind: 'reprint', attempt: 2, reprintOf: 'job-1' });
    expect(afterPrintFailure(job(2, 'qc_failed'))).toEqual({
      kind: 'reprint',
      attempt: 3,
      reprintOf: 'job-2',
    });
  });

  it(`holds the order after ${MAX_PRINT_ATTEMPTS} attempts, saying which part and why`, () => {
    const held = afterPrintFailure(job(MAX_PRINT_ATTEMPTS, 'qc_failed'));
    expect(held.kind).toBe('hold_order');
    if (held.kind !== 'hold_order') return;
    expect(held.reason).toContain('“Benchy hull” failed 3 times');
    expect(held.reason).toContain('spaghetti at layer 40');
  });

  it('honours another limit, and a limit of 1 means no reprint at all', () => {
    expect(afterPrintFailure(job(4), 5).kind).toBe('reprint');
    expect(afterPrintFailure(job(1), 1)).toMatchObject({
      kind: 'hold_order',
      reason: expect.stringContaining('failed 1 time ('),
    });
  });

  it('says something useful when no reason was given', () => {
    const held = afterPrintFailure({ ...job(3, 'qc_failed'), failureReason: '  ' });
    expect(held).toMatchObject({ kind: 'hold_order', reason: expect.stringContaining('(last: failed QC)') });
  });

  it('refuses to reprint a job that did not fail, or a nonsense attempt', () => {
    expect(() => afterPrintFailure(job(1, 'qc_passed'))).toThrow(/Only a failed or QC-failed job/);
    expect(() => afterPrintFailure(job(1, 'printing'))).toThrow(/Only a failed or QC-failed job/);
    expect(() => afterPrintFailure(job(0))).toThrow(/counts from 1/);
  });
});
