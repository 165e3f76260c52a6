import {
  PRINT_JOB_ON_PRINTER,
  shippingAddressSchema,
  type BoardPrinter,
  type OrderProduction,
  type PackingOrder,
  type PrintJob,
  type PrintJobStatus,
  type PrinterSpool,
  type PrinterStatus,
  type ProductionBoard,
  type QcInput,
  type SkipPartInput,
} from '@layerline/contracts';
import { AppError, notFound } from '../../errors.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import type { OrderStatusChangeEvent } from '../orders/order-service.ts';
import { ANY_COLOUR, priorityKey, unplaceable, type PlannerPrinter } from './dispatch-planner.ts';
import { plannerJobOf, plannerPrinterOf, type FarmDispatcher } from './farm-dispatcher.ts';
import { actorIdOf, latestAttempts, reprintOf, type FarmActor, type FarmOrders, type JobOutcomes } from './job-outcomes.ts';
import type { PackingSlipInput } from './packing-slip.ts';
import type { JobWithNames, NewPrintJob, OrderPartRow, PrintJobRepository } from './print-job-repository.ts';
import { boardClearing } from './continuous-printing.ts';
import { clearingOf, type PrinterRepository } from './printer-repository.ts';

/** The quotes' nozzle (their PrusaSlicer profile): a job's nozzle unless only another nozzle's printers can take it. */
export const SLICED_NOZZLE_MM = 0.4;
/** The board shows this many queued jobs (and says how many there are in all). */
const BOARD_QUEUE_LIMIT = 200;

/** What the packing slip needs of the seller. */
export interface FarmSellers {
  find(userId: string): Promise<{ email: string; businessName: string; returnAddress: PackingSlipInput['seller']['returnAddress'] } | undefined>;
  /** The seller's logo, insert message and thank-you card (the branding module; docs/branding.md). */
  branding(userId: string): Promise<PackingSlipInput['branding']>;
}

/** The figures a configuration is printed with: an admin's, else the slicer's, else the estimate. */
function figuresOf(config: OrderPartRow['config']): { grams: number; printSeconds: number } {
  return config.adminCost ?? config.sliced ?? config.estimate ?? { grams: 0, printSeconds: 0 };
}

const partNameOf = (part: OrderPartRow, partsInVariant: number) =>
  [part.productName, part.variantName, partsInVariant > 1 ? part.config.name : null].filter(Boolean).join(' / ');

/**
 * The print farm's work for people and for the orders module (docs/print-farm.md): an accepted
 * order becomes print jobs, admins run the board (beds, spools, pins, order of the queue, QC,
 * packing), and sellers see their order's progress.
 */
export function createProductionService(deps: {
  jobs: PrintJobRepository;
  printers: PrinterRepository;
  orders: FarmOrders;
  outcomes: JobOutcomes;
  dispatcher: FarmDispatcher;
  /** Whether PrusaSlicer is installed: without it, jobs get simulation files (simulated printers only). */
  slicerAvailable: boolean;
  sellers: FarmSellers;
  audit: AuditRepository;
  autopilot: boolean;
  /** Of these orders, those that may be printed (paid); absent: all. */
  printable?: (orderIds: readonly string[]) => Promise<Set<string>>;
  log?: { error(obj: unknown, msg?: string): void };
}) {
  const { jobs, printers, orders, outcomes, dispatcher, audit } = deps;

  /**
   * The nozzle a new job is made for: the quotes' (0.4 mm) when a printer of the farm with it can take
   * the part, else the nearest nozzle of the farm that can (a part only a 0.6 mm printer's bed fits).
   * Its G-code is sliced for the printer it lands on (farm-dispatcher.ts, fileFor).
   */
  function nozzleFor(size: { x: number; y: number; z: number }, material: string, farm: readonly PlannerPrinter[]): number {
    const nozzles = [...new Set(farm.map((p) => p.nozzleMm))].sort(
      (a, b) => Math.abs(a - SLICED_NOZZLE_MM) - Math.abs(b - SLICED_NOZZLE_MM) || a - b,
    );
    const probe = { id: '', size, material, colour: ANY_COLOUR, printSeconds: 0, orderPlacedAt: 0, dueAt: null, sellerPriority: 0, rush: false, pinnedPrinterId: null };
    return nozzles.find((nozzleMm) => unplaceable({ ...probe, nozzleMm }, farm) === null) ?? SLICED_NOZZLE_MM;
  }

  /**
   * Makes the jobs an accepted order still needs (called when the order is announced accepted: the
   * orders' outbox announces again whatever a crash or a failure here left unannounced): one per part × quantity for every part with no
   * job, and a new attempt for every part whose newest attempt failed (an order released from hold).
   * Idempotent (unique per item, part, copy and attempt). A part no printer of the farm can ever
   * take puts the order on hold with the reason in words.
   */
  async function createJobsForOrder(orderId: string, partsRead?: readonly OrderPartRow[]): Promise<number> {
    // Most orders' first read (done for a whole batch by onOrderStatusChanges): an order whose items
    // have no printed parts needs nothing more.
    const parts = partsRead ?? (await jobs.partsOfOrder(orderId));
    if (parts.length === 0) return 0;
    const current = await orders.find(orderId);
    if (!current || current.status !== 'accepted') return 0;
    // Printed only once paid (payments charges the order when it is released; a decline holds it).
    if (deps.printable && !(await deps.printable([orderId])).has(orderId)) return 0;
    // Released from hold: its waiting jobs are placeable again, so the dispatcher's kept queue rereads them.
    await jobs.touchQueuedOf(orderId);
    const latest = new Map(latestAttempts(await jobs.ofOrder(orderId)).map((j) => [`${j.orderItemId}:${j.partIndex}:${j.copy}`, j]));
    const partsPerItem = new Map<string, number>();
    for (const part of parts) partsPerItem.set(part.itemId, (partsPerItem.get(part.itemId) ?? 0) + 1);
    const indexInItem = new Map<string, number>();
    const farm = (await printers.list()).filter((row) => row.status !== 'retired').map((row) => plannerPrinterOf(row, false));
    const fresh: NewPrintJob[] = [];
    for (const part of parts) {
      const partIndex = indexInItem.get(part.itemId) ?? 0;
      indexInItem.set(part.itemId, partIndex + 1);
      const copies = part.itemQuantity * part.partQuantity;
      const [x, y, z] = part.design.bboxMm;
      const figures = figuresOf(part.config);
      for (let copy = 1; copy <= copies; copy++) {
        const last = latest.get(`${part.itemId}:${partIndex}:${copy}`);
        if (last && last.status !== 'failed' && last.status !== 'qc_failed') continue;
        if (last) {
          fresh.push(reprintOf(last, last.attempt + 1));
          continue;
        }
        fresh.push({
          orderId,
          orderItemId: part.itemId,
          ownerId: current.ownerId,
          partIndex,
          copy,
          partName: partNameOf(part, partsPerItem.get(part.itemId) ?? 1),
          designId: part.design.id,
          printConfigId: part.config.id,
          modelKey: part.design.storageKey,
          material: part.config.filament,
          colour: part.config.colour.toLowerCase(),
          nozzleMm: nozzleFor({ x, y, z }, part.config.filament, farm),
          sizeXMm: x,
          sizeYMm: y,
          sizeZMm: z,
          grams: figures.grams,
          printSeconds: figures.printSeconds,
          // Sliced for each printer profile it meets (the dispatcher asks), or a simulation file without PrusaSlicer.
          fileKind: deps.slicerAvailable ? 'sliced' : 'simulation',
          fileKey: deps.slicerAvailable ? null : `simulation:${part.config.id}`,
          placedAt: current.placedAt,
        });
      }
    }
    const created = await jobs.insert(fresh);
    for (const job of created) {
      await jobs.record({ kind: 'queued', jobId: job.id, orderId, actorKind: 'system', detail: `Queued ${job.partName} (copy ${job.copy}, attempt ${job.attempt})` });
    }
    // A farm with no printer yet holds nothing: the jobs wait on the board until printers are added.
    for (const job of farm.length > 0 ? created : []) {
      const reason = unplaceable(plannerJobOf(job), farm);
      if (reason) {
        await outcomes.moveOrder(orderId, ['accepted'], 'on_hold', `${job.partName}: ${reason}`, { kind: 'system' });
        break;
      }
    }
    return created.length;
  }

  function jobDto(row: JobWithNames): PrintJob {
    const { job } = row;
    return {
      id: job.id,
      orderId: job.orderId,
      orderNumber: row.orderNumber,
      ownerId: job.ownerId,
      sellerName: row.sellerName,
      partName: job.partName,
      designId: job.designId,
      printConfigId: job.printConfigId,
      copy: job.copy,
      material: job.material,
      colour: job.colour,
      nozzleMm: job.nozzleMm,
      sizeMm: { x: job.sizeXMm, y: job.sizeYMm, z: job.sizeZMm },
      grams: job.grams,
      printSeconds: job.printSeconds,
      status: job.status as PrintJobStatus,
      attempt: job.attempt,
      reprintOf: job.reprintOf,
      printerId: job.printerId,
      printerName: row.printerName,
      pinnedPrinterId: job.pinnedPrinterId,
      fileReady: job.fileKind !== null,
      spoolChange: job.spoolChange ?? null,
      progress: job.progress,
      secondsLeft: job.secondsLeft,
      failureReason: job.failureReason,
      qcNote: job.qcNote,
      qcBy: job.qcBy,
      rush: job.rush,
      placedAt: job.placedAt.toISOString(),
      createdAt: job.createdAt.toISOString(),
      startedAt: job.startedAt?.toISOString() ?? null,
      finishedAt: job.finishedAt?.toISOString() ?? null,
      plate: job.plateIndex === null ? null : { leadId: job.plateLeadId ?? job.id, index: job.plateIndex },
      printsAlone: job.printsAlone,
    };
  }

  async function existingJob(id: string): Promise<JobWithNames> {
    const row = await jobs.findWithNames(id);
    if (!row) throw notFound('Print job');
    return row;
  }

  async function afterChange(id: string): Promise<PrintJob> {
    return jobDto(await existingJob(id));
  }

  async function packingOrders(orderRows: Awaited<ReturnType<PrintJobRepository['ordersAwaitingPacking']>>): Promise<PackingOrder[]> {
    const ids = orderRows.map((o) => o.id);
    const [lines, orderJobs] = await Promise.all([jobs.pickLines(ids), jobs.ofOrders(ids)]);
    return orderRows.map((o) => ({
      orderId: o.id,
      orderNumber: o.externalId,
      sellerName: o.sellerName,
      customerName: o.customerName,
      pickList: lines
        .filter((l) => l.orderId === o.id)
        .map((l) => {
          const parts = new Map<string, number>();
          for (const job of latestAttempts(orderJobs.filter((j) => j.orderItemId === l.itemId)))
            parts.set(job.partName, (parts.get(job.partName) ?? 0) + 1);
          return {
            sku: l.sku,
            title: l.title,
            quantity: l.quantity,
            packaging: l.packaging,
            parts: [...parts].map(([name, quantity]) => ({ name, quantity })),
          };
        }),
      printedAt: o.updatedAt.toISOString(),
    }));
  }

  const admin = (id: string): FarmActor => ({ kind: 'admin', id });

  /**
   * A claim decided as a reprint (docs/claims.md): each named part (a job of the order) printed once
   * more as a new attempt linked to it, queued like any reprint. Idempotent: a part whose newer attempt
   * exists already is not queued again. Returns the claimed job id → its reprint's id.
   */
  async function reprintParts(orderId: string, jobIds: readonly string[], actor: FarmActor, reason: string): Promise<Map<string, string>> {
    const ofOrder = await jobs.ofOrder(orderId);
    const latest = new Map(latestAttempts(ofOrder).map((j) => [`${j.orderItemId}:${j.partIndex}:${j.copy}`, j]));
    const reprints = new Map<string, string>();
    for (const jobId of jobIds) {
      const job = ofOrder.find((j) => j.id === jobId);
      if (!job) throw notFound('Print job');
      const newest = latest.get(`${job.orderItemId}:${job.partIndex}:${job.copy}`)!;
      if (newest.id !== job.id && newest.reprintOf === job.id) {
        reprints.set(jobId, newest.id);
        continue;
      }
      const [reprint] = await jobs.insert([reprintOf(job, newest.attempt + 1)]);
      if (!reprint) continue;
      reprints.set(jobId, reprint.id);
      await jobs.record({ kind: 'reprint', jobId: reprint.id, orderId, actorKind: actor.kind, actorId: actorIdOf(actor), detail: `Reprint of “${job.partName}” for a claim: ${reason}` });
    }
    return reprints;
  }

  return {
    createJobsForOrder,
    reprintParts,

    /**
     * The orders module's announcements, a batch at a time (new orders are announced up to 50 at a
     * time): accepted orders get their jobs (the parts of every accepted order of the batch in one
     * query), cancelled ones lose theirs (a job on a printer is cancelled there too). Every order
     * is attempted; if any failed, this throws (so the batch stays unannounced and the sweep announces
     * each again; job creation is idempotent).
     */
    async onOrderStatusChanges(events: readonly OrderStatusChangeEvent[]): Promise<void> {
      const accepted = [...new Set(events.filter((event) => event.to === 'accepted').map((event) => event.orderId))];
      const parts = await jobs.partsOfOrders(accepted);
      const outcomes = await Promise.allSettled(
        events.map(async (event) => {
          if (event.to === 'accepted') await createJobsForOrder(event.orderId, parts.get(event.orderId) ?? []);
          if (event.to === 'cancelled') {
            for (const job of await jobs.cancelOfOrder(event.orderId)) await dispatcher.cancelOnPrinter(job);
          }
        }),
      );
      const failed = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
      if (failed.length > 0) throw new AggregateError(failed, `The print farm could not act on ${failed.length} of ${events.length} order changes`);
    },

    async board(): Promise<ProductionBoard> {
      const [rows, onPrinters, queued, queuedTotal, awaitingQc, packing, held] = await Promise.all([
        printers.list(),
        jobs.onPrinters(),
        jobs.withStatus('queued', 5000),
        jobs.countWithStatus('queued'),
        jobs.withStatus('printed', 200),
        jobs.ordersAwaitingPacking(100),
        jobs.heldOrders(100),
      ]);
      // A printer's job, or the first part of its plate (the others are on the plate with it).
      const jobOn = new Map<string, string>();
      for (const { job } of [...onPrinters].sort((a, b) => (b.job.plateIndex ?? 0) - (a.job.plateIndex ?? 0)))
        if (job.printerId) jobOn.set(job.printerId, job.id);
      const boardPrinters: BoardPrinter[] = rows
        .filter((r) => r.status !== 'retired')
        .map((r) => ({
          id: r.id,
          name: r.name,
          model: r.model,
          adminStatus: r.status as BoardPrinter['adminStatus'],
          buildVolumeMm: { x: r.buildXMm, y: r.buildYMm, z: r.buildZMm },
          nozzleMm: r.nozzleMm,
          state: (r.lastState as PrinterStatus | null) ?? null,
          stateAt: r.lastStateAt?.toISOString() ?? null,
          connectionLost: r.lastError !== null,
          lastError: r.lastError,
          loadedSpool: (r.spools as PrinterSpool[]).find((s) => s.loaded) ?? null,
          bedConfirmedClear: r.bedConfirmedClear,
          clearing: boardClearing(clearingOf(r), r.unattendedPlates),
          attention: r.attention === null ? null : { reason: r.attention, since: r.attentionAt?.toISOString() ?? null },
          jobId: jobOn.get(r.id) ?? null,
        }));
      // The queue in the dispatcher's order: pinned first, then by its priority key, first in first out.
      const order = queued
        .map((q) => ({ q, pinned: q.job.pinnedPrinterId !== null, key: priorityKey(plannerJobOf(q.job)) }))
        .sort((a, b) => Number(b.pinned) - Number(a.pinned) || a.key - b.key || a.q.job.seq - b.q.job.seq)
        .slice(0, BOARD_QUEUE_LIMIT);
      return {
        printers: boardPrinters,
        queued: order.map((o) => jobDto(o.q)),
        queuedTotal,
        active: onPrinters.map(jobDto),
        awaitingQc: awaitingQc.map(jobDto),
        awaitingPacking: await packingOrders(packing),
        onHold: held.map((h) => ({ orderId: h.id, orderNumber: h.externalId, sellerName: h.sellerName, holdReason: h.holdReason ?? '' })),
        autopilot: deps.autopilot,
        generatedAt: new Date().toISOString(),
      };
    },

    async confirmBedClear(adminId: string, printerId: string): Promise<void> {
      const row = await printers.find(printerId);
      if (!row || row.status === 'retired') throw notFound('Printer');
      const onIt = (await jobs.onPrinters()).find((j) => j.job.printerId === printerId);
      if (onIt?.job.status === 'printing' || onIt?.job.status === 'uploading')
        throw new AppError('conflict', `${row.name} is printing: its bed is not clear`);
      await dispatcher.confirmBedClear(printerId, admin(adminId));
    },

    async spoolLoaded(adminId: string, jobId: string): Promise<PrintJob> {
      const { job } = await existingJob(jobId);
      if (job.status !== 'assigned' || !job.spoolChange) throw new AppError('conflict', 'This job is not waiting for a spool');
      await dispatcher.loadSpool(job, admin(adminId));
      await dispatcher.startJob(job.id);
      return afterChange(jobId);
    },

    /** A part of a plate fails mid-print: its printer skips it and finishes the others (issue 22). */
    async skipPart(adminId: string, jobId: string, input: SkipPartInput): Promise<PrintJob> {
      const { job } = await existingJob(jobId);
      if (job.status !== 'printing' || job.plateIndex === null)
        throw new AppError('conflict', 'Only a part printing on a plate of several can be skipped; a part printed alone is cancelled or failed at QC');
      const outcome = await dispatcher.skipPart(job, input.reason, admin(adminId));
      if ('refused' in outcome) throw new AppError('conflict', outcome.refused);
      return afterChange(jobId);
    },

    /** QC by a person: pass, or fail with a reason (a reprint, or the order on hold after the last attempt). */
    async qc(adminId: string, jobId: string, input: QcInput): Promise<PrintJob> {
      const { job } = await existingJob(jobId);
      if (job.status !== 'printed') throw new AppError('conflict', `This job is ${job.status.replace('_', ' ')}, not waiting for QC`);
      const to = input.result === 'pass' ? 'qc_passed' : 'qc_failed';
      const moved = await jobs.move(job.id, 'printed', to, {
        qcBy: adminId,
        ...(input.result === 'fail' ? { failureReason: `Failed QC: ${input.reason}` } : {}),
      });
      if (!moved) throw new AppError('conflict', 'Someone checked this job meanwhile; reload the board');
      await jobs.record({
        kind: input.result === 'pass' ? 'qc_pass' : 'qc_fail',
        jobId,
        orderId: job.orderId,
        actorKind: 'admin',
        actorId: adminId,
        detail: input.result === 'pass' ? 'Passed QC' : input.reason,
      });
      if (input.result === 'pass') await outcomes.jobPassed(moved, admin(adminId));
      else await outcomes.jobFailed(moved, admin(adminId));
      return afterChange(jobId);
    },

    async pin(adminId: string, jobId: string, printerId: string | null): Promise<PrintJob> {
      const { job } = await existingJob(jobId);
      if (printerId !== null) {
        const row = await printers.find(printerId);
        if (!row || row.status === 'retired') throw notFound('Printer');
        const farm = [plannerPrinterOf(row, false)];
        const reason = unplaceable({ ...plannerJobOf(job), pinnedPrinterId: null }, farm);
        if (reason) throw new AppError('unprocessable', `${row.name} cannot print this part: ${reason}`);
      }
      if (!(await jobs.setPin(jobId, printerId))) throw new AppError('conflict', 'Only a queued job can be pinned');
      await audit.record({ actorId: adminId, targetUserId: job.ownerId, action: 'print-job.pin', detail: { jobId, printerId } });
      return afterChange(jobId);
    },

    /** Drag to reorder: the job takes a place just before another queued job (or the end of the queue). */
    async move(adminId: string, jobId: string, beforeJobId: string | null): Promise<PrintJob> {
      const { job } = await existingJob(jobId);
      if (job.status !== 'queued') throw new AppError('conflict', 'Only a queued job can be moved');
      let key: number;
      if (beforeJobId === null) {
        const last = (await jobs.withStatus('queued', 5000)).reduce((max, q) => Math.max(max, priorityKey(plannerJobOf(q.job))), 0);
        key = last + 1000;
      } else {
        const before = await jobs.find(beforeJobId);
        if (!before || before.status !== 'queued') throw new AppError('conflict', 'The job it should go before is no longer queued');
        key = priorityKey(plannerJobOf(before)) - 1;
      }
      if (!(await jobs.setManualKey(jobId, key))) throw new AppError('conflict', 'Only a queued job can be moved');
      await audit.record({ actorId: adminId, targetUserId: job.ownerId, action: 'print-job.move', detail: { jobId, beforeJobId } });
      return afterChange(jobId);
    },

    /** Packing confirmed by a person: the order is packed. */
    async pack(adminId: string, orderId: string, message: string): Promise<void> {
      const current = await orders.find(orderId);
      if (!current) throw notFound('Order');
      if (current.status !== 'printed')
        throw new AppError('conflict', `This order is ${current.status.replace('_', ' ')}: only a printed order can be packed`);
      const moved = await outcomes.moveOrder(orderId, ['printed'], 'packed', message ? `Packed. Note: ${message}` : 'Packed', admin(adminId));
      if (!moved) throw new AppError('conflict', 'The order changed meanwhile; reload the board');
      await jobs.record({ kind: 'packed', orderId, actorKind: 'admin', actorId: adminId, detail: message || 'Packed' });
    },

    /** What the packing slip shows of an order (printed or later). */
    async packingSlip(orderId: string, message: string): Promise<PackingSlipInput> {
      const current = await orders.find(orderId);
      if (!current) throw notFound('Order');
      const [seller, branding] = await Promise.all([deps.sellers.find(current.ownerId), deps.sellers.branding(current.ownerId)]);
      const [packing] = await packingOrders([
        {
          id: current.id,
          externalId: current.externalId,
          customerName: current.customerName,
          ownerId: current.ownerId,
          updatedAt: current.updatedAt,
          sellerName: seller?.businessName || seller?.email || '',
        },
      ]);
      return {
        orderId: current.id,
        orderNumber: current.externalId,
        placedAt: current.placedAt,
        seller: {
          businessName: seller?.businessName ?? '',
          email: seller?.email ?? '',
          returnAddress: seller?.returnAddress ?? null,
        },
        shipTo: shippingAddressSchema.parse(current.shippingAddress),
        pickList: packing!.pickList,
        message,
        branding,
        generatedAt: new Date(),
      };
    },

    /** What a seller sees of production on their orders (null for an order with no job yet). */
    async progressOf(orderIds: readonly string[]): Promise<Map<string, OrderProduction>> {
      const all = await jobs.ofOrders(orderIds);
      const out = new Map<string, OrderProduction>();
      for (const [orderId, list] of Map.groupBy(all, (j) => j.orderId)) {
        const latest = latestAttempts(list).filter((j) => j.status !== 'cancelled');
        out.set(orderId, {
          partsTotal: latest.length,
          partsDone: latest.filter((j) => j.status === 'qc_passed').length,
          partsPrinting: latest.filter((j) => (PRINT_JOB_ON_PRINTER as readonly string[]).includes(j.status)).length,
          jobs: list.map((j) => ({
            id: j.id,
            partName: j.partName,
            copy: j.copy,
            status: j.status as PrintJobStatus,
            attempt: j.attempt,
            progress: j.progress,
          })),
        });
      }
      return out;
    },
  };
}

export type ProductionService = ReturnType<typeof createProductionService>;
