import { afterPrintFailure, type OrderStatus, type PrintJobStatus } from '@layerline/contracts';
import type { EventActor, OrderRow } from '../orders/order-repository.ts';
import type { PrintJobRepository, PrintJobRow } from './print-job-repository.ts';

/** What production needs of the orders module: read an order, move it through its lifecycle. */
export interface FarmOrders {
  find(orderId: string): Promise<OrderRow | undefined>;
  /** The orders module's compare-and-set transition (false: the order moved on meanwhile). */
  tryTransition(current: OrderRow, to: OrderStatus, reason: string, actor: EventActor): Promise<boolean>;
}

/** A part that failed again: its job (the failed attempt), the order, and what follows. */
export interface RepeatedPrintFailure {
  readonly jobId: string;
  readonly orderId: string;
  readonly partName: string;
  readonly attempt: number;
  readonly reason: string;
  readonly printerId: string | null;
  /** Printed once more (attempts remain), or the order went on hold. */
  readonly reprinted: boolean;
}

export type FarmActor =
  | { readonly kind: 'admin'; readonly id: string }
  | { readonly kind: 'autopilot' }
  | { readonly kind: 'system' }
  | { readonly kind: 'printer' };

export const orderActorOf = (actor: FarmActor): EventActor =>
  actor.kind === 'admin' ? { kind: 'admin', id: actor.id } : { kind: 'system', id: null };

export const actorIdOf = (actor: FarmActor): string | null => (actor.kind === 'admin' ? actor.id : null);

/** The key of one printed copy of one part: its reprints share it. */
const partKey = (job: Pick<PrintJobRow, 'orderItemId' | 'partIndex' | 'copy'>) =>
  `${job.orderItemId}:${job.partIndex}:${job.copy}`;

/** The newest attempt of every copy of every part of an order. */
export function latestAttempts(jobs: readonly PrintJobRow[]): PrintJobRow[] {
  const latest = new Map<string, PrintJobRow>();
  for (const job of jobs) {
    const seen = latest.get(partKey(job));
    if (!seen || job.attempt > seen.attempt) latest.set(partKey(job), job);
  }
  return [...latest.values()];
}

/**
 * What follows a job's change, for its order and its part: the shared rules of the dispatcher
 * (printer events) and the people's actions (QC): the order moves by itself, a failed print is
 * reprinted or puts the order on hold. Every step is idempotent (compare-and-set underneath).
 */
export function createJobOutcomes(deps: {
  jobs: PrintJobRepository;
  orders: FarmOrders;
  /** Told when a part's second (or later) attempt failed (the farm's Discord alert); must not throw. */
  onRepeatedFailure?: (failure: RepeatedPrintFailure) => Promise<void>;
  log?: { error(obj: unknown, msg?: string): void };
}) {
  const { jobs, orders } = deps;

  async function moveOrder(orderId: string, from: readonly OrderStatus[], to: OrderStatus, reason: string, actor: FarmActor) {
    const current = await orders.find(orderId);
    if (!current || !from.includes(current.status as OrderStatus)) return false;
    return orders.tryTransition(current, to, reason, orderActorOf(actor));
  }

  return {
    moveOrder,

    /** The first job of an order started: the order is in production. */
    async jobStarted(job: PrintJobRow): Promise<void> {
      await moveOrder(job.orderId, ['accepted'], 'in_production', `Printing started (${job.partName})`, { kind: 'system' });
    },

    /**
     * A job passed QC: when the newest attempt of every part of the order has, the order is printed.
     * (An order still `accepted` here was printed before the first start was recorded: it goes
     * through in_production so its timeline shows both steps.)
     */
    async jobPassed(job: PrintJobRow, actor: FarmActor): Promise<void> {
      const all = latestAttempts(await jobs.ofOrder(job.orderId));
      if (all.length === 0 || !all.every((j) => j.status === 'qc_passed')) return;
      await moveOrder(job.orderId, ['accepted'], 'in_production', 'Printing started', { kind: 'system' });
      await moveOrder(job.orderId, ['in_production'], 'printed', `Every part passed QC (${all.length})`, actor);
    },

    /**
     * A job ended in `failed` or `qc_failed`: a reprint (a new queued job linked to it) while
     * attempts remain, else the order goes on hold with the reason in words.
     */
    async jobFailed(job: PrintJobRow, actor: FarmActor): Promise<void> {
      const outcome = afterPrintFailure({
        id: job.id,
        status: job.status as PrintJobStatus,
        attempt: job.attempt,
        partName: job.partName,
        failureReason: job.failureReason ?? '',
      });
      if (job.attempt >= 2) {
        await deps.onRepeatedFailure?.({
          jobId: job.id,
          orderId: job.orderId,
          partName: job.partName,
          attempt: job.attempt,
          reason: job.failureReason ?? (job.status === 'qc_failed' ? 'failed QC' : 'the print failed'),
          printerId: job.printerId,
          reprinted: outcome.kind === 'reprint',
        });
      }
      if (outcome.kind === 'reprint') {
        const [reprint] = await jobs.insert([reprintOf(job, outcome.attempt)]);
        if (reprint) {
          await jobs.record({
            kind: 'reprint',
            jobId: reprint.id,
            orderId: job.orderId,
            actorKind: actor.kind,
            actorId: actorIdOf(actor),
            detail: `Reprint ${outcome.attempt} of “${job.partName}” after: ${job.failureReason ?? 'a failure'}`,
          });
        }
        return;
      }
      await moveOrder(job.orderId, ['accepted', 'in_production'], 'on_hold', outcome.reason, actor);
    },
  };
}

export type JobOutcomes = ReturnType<typeof createJobOutcomes>;

/** A new queued job that prints the same part again. */
export function reprintOf(job: PrintJobRow, attempt: number) {
  return {
    orderId: job.orderId,
    orderItemId: job.orderItemId,
    ownerId: job.ownerId,
    partIndex: job.partIndex,
    copy: job.copy,
    attempt,
    reprintOf: job.id,
    partName: job.partName,
    designId: job.designId,
    printConfigId: job.printConfigId,
    modelKey: job.modelKey,
    material: job.material,
    colour: job.colour,
    nozzleMm: job.nozzleMm,
    sizeXMm: job.sizeXMm,
    sizeYMm: job.sizeYMm,
    sizeZMm: job.sizeZMm,
    grams: job.grams,
    printSeconds: job.printSeconds,
    layerCount: job.layerCount,
    fileKey: job.fileKey,
    fileKind: job.fileKind,
    pinnedPrinterId: null,
    rush: job.rush,
    placedAt: job.placedAt,
    dueAt: job.dueAt,
  };
}
