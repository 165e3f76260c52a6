import { and, asc, desc, eq, gte, inArray, isNotNull, lt, or, sql } from 'drizzle-orm';
import {
  PRINT_JOB_ON_PRINTER,
  type PrintJobStatus,
} from '@layerline/contracts';
import type { Database } from '../../db/client.ts';
import {
  design,
  order,
  orderItem,
  printConfiguration,
  plateFile,
  printFile,
  printJob,
  printer,
  product,
  productionEvent,
  productVariant,
  user,
  variantPart,
} from '../../db/schema.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';

export type PrintJobRow = typeof printJob.$inferSelect;
export type NewPrintJob = typeof printJob.$inferInsert;
export type PrintFileRow = typeof printFile.$inferSelect;
export type PlateFileRow = typeof plateFile.$inferSelect;

/** One part of one item of an order, with what the farm needs to print it. */
export interface OrderPartRow {
  readonly itemId: string;
  readonly itemQuantity: number;
  readonly partId: string;
  readonly partQuantity: number;
  readonly productName: string;
  readonly variantName: string;
  readonly config: typeof printConfiguration.$inferSelect;
  readonly design: { id: string; name: string; storageKey: string; format: string; bboxMm: [number, number, number] };
}

/** A job as the dispatcher's kept queue holds it: the planner's columns, and whether it may be placed now. */
export interface QueueEntryRow {
  readonly id: string;
  readonly seq: number;
  readonly placeable: boolean;
  readonly fileKind: string | null;
  readonly material: string;
  readonly colour: string;
  readonly nozzleMm: number;
  readonly sizeXMm: number;
  readonly sizeYMm: number;
  readonly sizeZMm: number;
  readonly printSeconds: number;
  readonly grams: number;
  readonly placedAt: Date;
  readonly dueAt: Date | null;
  readonly rush: boolean;
  readonly pinnedPrinterId: string | null;
  readonly manualKey: number | null;
  /** Parts of the same print configuration share settings, so they may share a plate. */
  readonly printConfigId: string;
  /** A plate it was on could not be sliced: it prints alone from now on. */
  readonly printsAlone: boolean;
}

export interface ProductionEventInput {
  readonly kind: string;
  readonly jobId?: string | null;
  readonly printerId?: string | null;
  readonly orderId?: string | null;
  readonly actorKind: 'admin' | 'system' | 'autopilot' | 'printer';
  readonly actorId?: string | null;
  readonly detail?: string;
}

/** A job with the names the board shows beside it. */
export interface JobWithNames {
  readonly job: PrintJobRow;
  readonly orderNumber: string;
  readonly sellerName: string;
  readonly printerName: string | null;
}

const ON_PRINTER = [...PRINT_JOB_ON_PRINTER];
/** The print jobs table and the production event log: the only SQL of the farm's work. */
export function createPrintJobRepository(db: Database) {
  const withNames = () =>
    db
      .select({
        job: printJob,
        orderNumber: order.externalId,
        sellerName: sql<string>`coalesce(nullif(${user.businessName}, ''), ${user.email})`,
        printerName: printer.name,
      })
      .from(printJob)
      .innerJoin(order, eq(order.id, printJob.orderId))
      .innerJoin(user, eq(user.id, printJob.ownerId))
      .leftJoin(printer, eq(printer.id, printJob.printerId));

  // Read for every order announced accepted (each ingested order): prepared once per connection.
  const partsQuery = db
    .select({
      orderId: orderItem.orderId,
      itemId: orderItem.id,
      itemQuantity: orderItem.quantity,
      partId: variantPart.id,
      partQuantity: variantPart.quantity,
      productName: product.name,
      variantName: productVariant.name,
      config: printConfiguration,
      design: {
        id: design.id,
        name: design.name,
        storageKey: design.storageKey,
        format: design.format,
        bboxMm: design.bboxMm,
      },
    })
    .from(orderItem)
    .innerJoin(productVariant, eq(productVariant.id, orderItem.variantId))
    .innerJoin(product, eq(product.id, productVariant.productId))
    .innerJoin(variantPart, eq(variantPart.variantId, productVariant.id))
    .innerJoin(printConfiguration, eq(printConfiguration.id, variantPart.printConfigId))
    .innerJoin(design, eq(design.id, printConfiguration.designId))
    .where(sql`${orderItem.orderId} = ANY(${sql.placeholder('orderIds')}::uuid[])`)
    .orderBy(asc(orderItem.id), asc(variantPart.id))
    .prepare('print_parts_of_orders');

  async function partsOfOrders(orderIds: readonly string[]): Promise<Map<string, OrderPartRow[]>> {
    const byOrder = new Map<string, OrderPartRow[]>();
    if (orderIds.length === 0) return byOrder;
    for (const { orderId, ...part } of await partsQuery.execute({ orderIds: [...orderIds] })) {
      const parts = byOrder.get(orderId);
      if (parts) parts.push(part);
      else byOrder.set(orderId, [part]);
    }
    return byOrder;
  }

  return {
    /** Every part of every matched item of an order, in a stable order (the part index is its place). */
    async partsOfOrder(orderId: string): Promise<OrderPartRow[]> {
      return (await partsOfOrders([orderId])).get(orderId) ?? [];
    },

    /** partsOfOrder for many orders in one query (an announced batch); orders with no parts are left out. */
    partsOfOrders,

    /** Inserts jobs; one that exists already (same item, part, copy and attempt) is skipped. Returns the new ones. */
    async insert(jobs: readonly NewPrintJob[]): Promise<PrintJobRow[]> {
      if (jobs.length === 0) return [];
      return db.insert(printJob).values([...jobs]).onConflictDoNothing().returning();
    },

    async find(id: string): Promise<PrintJobRow | undefined> {
      const [row] = await db.select().from(printJob).where(eq(printJob.id, id));
      return row;
    },

    async findWithNames(id: string): Promise<JobWithNames | undefined> {
      const [row] = await withNames().where(eq(printJob.id, id));
      return row;
    },

    async ofOrder(orderId: string): Promise<PrintJobRow[]> {
      return db.select().from(printJob).where(eq(printJob.orderId, orderId)).orderBy(asc(printJob.seq));
    },

    async ofOrders(orderIds: readonly string[]): Promise<PrintJobRow[]> {
      if (orderIds.length === 0) return [];
      return db
        .select()
        .from(printJob)
        .where(inArray(printJob.orderId, [...orderIds]))
        .orderBy(asc(printJob.seq));
    },

    /**
     * What the dispatcher's kept queue needs of jobs (the planner's columns only): every queued job
     * it may place (file ready, order accepted or in production) when `changedSince` is null, else
     * every job changed since then, whatever its status, with whether it may be placed now.
     */
    async queueEntries(changedSince: Date | null): Promise<QueueEntryRow[]> {
      const placeable = and(
        eq(printJob.status, 'queued'),
        isNotNull(printJob.fileKind),
        or(
          inArray(order.status, ['accepted', 'in_production']),
          // A claim's reprint (docs/claims.md) prints for an order already shipped or delivered; nothing
          // else is queued for one.
          and(inArray(order.status, ['shipped', 'delivered']), isNotNull(printJob.reprintOf)),
        ),
      );
      return db
        .select({
          id: printJob.id,
          seq: printJob.seq,
          placeable: changedSince === null ? sql<boolean>`true` : sql<boolean>`coalesce(${placeable}, false)`,
          fileKind: printJob.fileKind,
          material: printJob.material,
          colour: printJob.colour,
          nozzleMm: printJob.nozzleMm,
          sizeXMm: printJob.sizeXMm,
          sizeYMm: printJob.sizeYMm,
          sizeZMm: printJob.sizeZMm,
          printSeconds: printJob.printSeconds,
          grams: printJob.grams,
          placedAt: printJob.placedAt,
          dueAt: printJob.dueAt,
          rush: printJob.rush,
          pinnedPrinterId: printJob.pinnedPrinterId,
          manualKey: printJob.manualKey,
          printConfigId: printJob.printConfigId,
          printsAlone: printJob.printsAlone,
        })
        .from(printJob)
        .innerJoin(order, eq(order.id, printJob.orderId))
        .where(changedSince === null ? placeable : gte(printJob.updatedAt, changedSince));
    },

    /** Printers that hold a job now (assigned, uploading or printing). */
    async busyPrinters(): Promise<Set<string>> {
      const rows = await db
        .select({ printerId: printJob.printerId })
        .from(printJob)
        .where(and(inArray(printJob.status, ON_PRINTER), isNotNull(printJob.printerId)));
      return new Set(rows.map((r) => r.printerId!));
    },

    /** An order's queued jobs are looked at again by the dispatcher (the order was released from hold). */
    async touchQueuedOf(orderId: string): Promise<void> {
      await db
        .update(printJob)
        .set({ updatedAt: new Date() })
        .where(and(eq(printJob.orderId, orderId), eq(printJob.status, 'queued')));
    },

    /** Jobs on a printer (assigned, uploading, printing), with names. */
    async onPrinters(): Promise<JobWithNames[]> {
      return withNames().where(inArray(printJob.status, ON_PRINTER)).orderBy(asc(printJob.seq));
    },

    async withStatus(status: PrintJobStatus, limit: number): Promise<JobWithNames[]> {
      return withNames().where(eq(printJob.status, status)).orderBy(asc(printJob.seq)).limit(limit);
    },

    async countWithStatus(status: PrintJobStatus): Promise<number> {
      const [row] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(printJob)
        .where(eq(printJob.status, status));
      return row?.n ?? 0;
    },

    /**
     * Puts a queued job on a printer, in one statement with the printer's start time and the event,
     * if the job is still queued, its order still in the farm's hands, and the printer holds no
     * other job (the partial unique index settles two dispatchers racing for one printer).
     * False: lost the race, or the order is on hold or cancelled now.
     */
    async assign(
      jobId: string,
      printerId: string,
      spoolChange: { material: string; colour: string } | null,
      at: Date,
      detail: string,
    ): Promise<boolean> {
      try {
        const result = await db.execute(sql`
          WITH assigned AS (
            UPDATE print_job SET status = 'assigned', printer_id = ${printerId}::uuid,
                   spool_change = ${spoolChange === null ? null : JSON.stringify(spoolChange)}::jsonb,
                   assigned_at = ${at.toISOString()}::timestamptz, updated_at = ${at.toISOString()}::timestamptz
            WHERE id = ${jobId}::uuid AND status = 'queued'
              AND EXISTS (SELECT 1 FROM "order" o WHERE o.id = print_job.order_id AND (o.status IN ('accepted', 'in_production')
                OR (o.status IN ('shipped', 'delivered') AND print_job.reprint_of IS NOT NULL)))
            RETURNING id, order_id
          ), started AS (
            UPDATE printer SET last_started_at = ${at.toISOString()}::timestamptz
            WHERE id = ${printerId}::uuid AND EXISTS (SELECT 1 FROM assigned)
          ), recorded AS (
            INSERT INTO production_event (kind, job_id, printer_id, order_id, actor_kind, detail)
            SELECT 'assigned', assigned.id, ${printerId}::uuid, assigned.order_id, 'system', ${detail} FROM assigned
          )
          SELECT id FROM assigned`);
        return (result as unknown as { rows: unknown[] }).rows.length === 1;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },

    /**
     * Puts queued jobs on the plate of `leadId`, assigned to its printer (issue 22), in one
     * statement: each only while it is still queued and its order in the farm's hands, and only
     * while the lead is assigned to that printer. A part that moved on meanwhile is left out (the
     * layout of the others stays valid) and the others close up behind it, so the indices are
     * 0, 1, 2, …: a part's index is its object id in the plate's G-code and in a Bambu package, which
     * number the objects in order. The lead becomes index 0 when any joined. Returns the ids that joined.
     */
    async joinPlate(leadId: string, printerId: string, parts: readonly { id: string; index: number }[], at: Date): Promise<string[]> {
      if (parts.length === 0) return [];
      const result = await db.execute(sql`
        WITH lead AS (
          SELECT id FROM print_job WHERE id = ${leadId}::uuid AND status = 'assigned' AND printer_id = ${printerId}::uuid
        ), joined AS (
          UPDATE print_job SET status = 'assigned', printer_id = ${printerId}::uuid, plate_lead_id = ${leadId}::uuid,
                 plate_index = v.idx, assigned_at = ${at.toISOString()}::timestamptz, updated_at = ${at.toISOString()}::timestamptz
          FROM (
            SELECT w.id, (row_number() OVER (ORDER BY w.idx))::int AS idx
            FROM unnest(${`{${parts.map((p) => p.id).join(',')}}`}::uuid[], ${`{${parts.map((p) => p.index).join(',')}}`}::int[]) AS w(id, idx)
            JOIN print_job j ON j.id = w.id AND j.status = 'queued'
            JOIN "order" o ON o.id = j.order_id AND o.status IN ('accepted', 'in_production')
          ) AS v
          WHERE print_job.id = v.id AND print_job.status = 'queued' AND EXISTS (SELECT 1 FROM lead)
          RETURNING print_job.id, print_job.order_id, v.idx
        ), led AS (
          UPDATE print_job SET plate_index = 0 WHERE id = ${leadId}::uuid AND EXISTS (SELECT 1 FROM joined)
        ), recorded AS (
          INSERT INTO production_event (kind, job_id, printer_id, order_id, actor_kind, detail)
          SELECT 'assigned', joined.id, ${printerId}::uuid, joined.order_id, 'system', 'Assigned to a plate (part ' || (joined.idx + 1) || ')' FROM joined
        )
        SELECT id FROM joined`);
      return (result as unknown as { rows: { id: string }[] }).rows.map((r) => r.id);
    },

    /** Every part of the plate led by `leadId` (the lead too), whatever their status, in plate order. */
    async plateParts(leadId: string): Promise<PrintJobRow[]> {
      return db
        .select()
        .from(printJob)
        .where(sql`${printJob.id} = ${leadId}::uuid OR ${printJob.plateLeadId} = ${leadId}::uuid`)
        .orderBy(asc(printJob.plateIndex));
    },

    /** Compare-and-set of a job's status, with the fields that change with it. False: it moved on meanwhile. */
    async move(
      jobId: string,
      from: PrintJobStatus,
      to: PrintJobStatus,
      fields: Partial<Pick<NewPrintJob, 'printerId' | 'progress' | 'secondsLeft' | 'failureReason' | 'qcBy' | 'qcNote' | 'startedAt' | 'finishedAt' | 'spoolChange' | 'assignedAt' | 'plateLeadId' | 'plateIndex'>> = {},
    ): Promise<PrintJobRow | undefined> {
      const [row] = await db
        .update(printJob)
        .set({ ...fields, status: to, updatedAt: new Date() })
        .where(and(eq(printJob.id, jobId), eq(printJob.status, from)))
        .returning();
      return row;
    },

    /** Progress of a printing job (no status change). */
    async setProgress(jobId: string, progress: number | null, secondsLeft: number | null): Promise<void> {
      await db
        .update(printJob)
        .set({ progress, secondsLeft })
        .where(and(eq(printJob.id, jobId), eq(printJob.status, 'printing')));
    },

    async setSpoolChange(jobId: string, spoolChange: { material: string; colour: string } | null): Promise<PrintJobRow | undefined> {
      const [row] = await db
        .update(printJob)
        .set({ spoolChange, updatedAt: new Date() })
        .where(eq(printJob.id, jobId))
        .returning();
      return row;
    },

    async setPin(jobId: string, pinnedPrinterId: string | null): Promise<PrintJobRow | undefined> {
      const [row] = await db
        .update(printJob)
        .set({ pinnedPrinterId, updatedAt: new Date() })
        .where(and(eq(printJob.id, jobId), eq(printJob.status, 'queued')))
        .returning();
      return row;
    },

    async setManualKey(jobId: string, manualKey: number | null): Promise<PrintJobRow | undefined> {
      const [row] = await db
        .update(printJob)
        .set({ manualKey, updatedAt: new Date() })
        .where(and(eq(printJob.id, jobId), eq(printJob.status, 'queued')))
        .returning();
      return row;
    },

    /**
     * Cancels every job of an order that has not ended; returns the ones that were on their printer
     * (assigned, uploading or printing), whose print the printer must stop. A printed job is not
     * returned: its printer may be printing the next plate already (continuous printing).
     */
    async cancelOfOrder(orderId: string): Promise<PrintJobRow[]> {
      const onPrinters = await db
        .select({ id: printJob.id })
        .from(printJob)
        .where(and(eq(printJob.orderId, orderId), inArray(printJob.status, ['assigned', 'uploading', 'printing'])));
      const wasOnPrinter = new Set(onPrinters.map((r) => r.id));
      const rows = await db
        .update(printJob)
        .set({ status: 'cancelled', finishedAt: new Date(), updatedAt: new Date() })
        .where(
          and(
            eq(printJob.orderId, orderId),
            inArray(printJob.status, ['queued', 'assigned', 'uploading', 'printing', 'printed']),
          ),
        )
        .returning();
      return rows.filter((r) => r.printerId !== null && wasOnPrinter.has(r.id));
    },

    /** Printed jobs older than `before` (the autopilot's QC). */
    async printedBefore(before: Date, limit: number): Promise<PrintJobRow[]> {
      return db
        .select()
        .from(printJob)
        .where(and(eq(printJob.status, 'printed'), lt(printJob.finishedAt, before)))
        .orderBy(asc(printJob.finishedAt))
        .limit(limit);
    },

    /** Assigned jobs waiting for a spool change confirmed before `before` (the autopilot loads spools). */
    async awaitingSpoolBefore(before: Date): Promise<PrintJobRow[]> {
      return db
        .select()
        .from(printJob)
        .where(
          and(eq(printJob.status, 'assigned'), isNotNull(printJob.spoolChange), lt(printJob.assignedAt, before)),
        );
    },

    /** When each printer last finished a job (the autopilot clears beds a while after). */
    async lastFinishedOn(printerIds: readonly string[]): Promise<Map<string, Date>> {
      if (printerIds.length === 0) return new Map();
      const rows = await db
        .select({ printerId: printJob.printerId, at: sql<string>`max(${printJob.finishedAt})` })
        .from(printJob)
        .where(inArray(printJob.printerId, [...printerIds]))
        .groupBy(printJob.printerId);
      return new Map(
        rows.flatMap((r) => (r.printerId && r.at ? [[r.printerId, new Date(r.at)] as const] : [])),
      );
    },

    async record(event: ProductionEventInput): Promise<void> {
      await db.insert(productionEvent).values({
        kind: event.kind,
        jobId: event.jobId ?? null,
        printerId: event.printerId ?? null,
        orderId: event.orderId ?? null,
        actorKind: event.actorKind,
        actorId: event.actorId ?? null,
        detail: event.detail ?? '',
      });
    },

    /** Orders printed and not yet packed, oldest first. */
    /**
     * Orders still accepted or in production whose every part's newest attempt passed QC: the
     * process that passed the last one died before moving the order on (the tick finishes it).
     */
    async ordersPassedNotMoved(limit: number): Promise<string[]> {
      const result = await db.execute(sql`
        SELECT o.id FROM "order" o
         WHERE o.status IN ('accepted', 'in_production')
           AND EXISTS (SELECT 1 FROM print_job j WHERE j.order_id = o.id)
           AND NOT EXISTS (
             SELECT 1 FROM print_job j
              WHERE j.order_id = o.id AND j.status <> 'qc_passed'
                AND NOT EXISTS (SELECT 1 FROM print_job n WHERE n.order_item_id = j.order_item_id AND n.part_index = j.part_index
                                  AND n.copy = j.copy AND n.attempt > j.attempt))
         LIMIT ${limit}`);
      return (result as unknown as { rows: { id: string }[] }).rows.map((row) => row.id);
    },

    async ordersAwaitingPacking(limit: number) {
      return db
        .select({
          id: order.id,
          externalId: order.externalId,
          customerName: order.customerName,
          ownerId: order.ownerId,
          updatedAt: order.updatedAt,
          sellerName: sql<string>`coalesce(nullif(${user.businessName}, ''), ${user.email})`,
        })
        .from(order)
        .innerJoin(user, eq(user.id, order.ownerId))
        .where(eq(order.status, 'printed'))
        .orderBy(asc(order.updatedAt))
        .limit(limit);
    },

    /** Orders on hold that the farm put there (they have print jobs), newest first. */
    async heldOrders(limit: number) {
      return db
        .select({
          id: order.id,
          externalId: order.externalId,
          holdReason: order.holdReason,
          sellerName: sql<string>`coalesce(nullif(${user.businessName}, ''), ${user.email})`,
        })
        .from(order)
        .innerJoin(user, eq(user.id, order.ownerId))
        .where(
          and(
            eq(order.status, 'on_hold'),
            sql`EXISTS (SELECT 1 FROM ${printJob} WHERE ${printJob.orderId} = ${order.id})`,
          ),
        )
        .orderBy(desc(order.updatedAt))
        .limit(limit);
    },

    /** A configuration's file for a printer profile, if it was asked for. */
    async printFile(configId: string, settingsVersion: number, profileKey: string): Promise<PrintFileRow | undefined> {
      const [row] = await db
        .select()
        .from(printFile)
        .where(
          and(
            eq(printFile.printConfigId, configId),
            eq(printFile.settingsVersion, settingsVersion),
            eq(printFile.profileKey, profileKey),
          ),
        );
      return row;
    },

    /** Asks for a configuration's file for a printer profile; true when this call asked first (it queues the slicing). */
    async claimPrintFile(configId: string, settingsVersion: number, profileKey: string): Promise<boolean> {
      const rows = await db
        .insert(printFile)
        .values({ printConfigId: configId, settingsVersion, profileKey })
        .onConflictDoNothing()
        .returning({ id: printFile.id });
      return rows.length === 1;
    },

    async finishPrintFile(
      configId: string,
      settingsVersion: number,
      profileKey: string,
      result: { gcodeKey: string; grams: number; printSeconds: number } | { error: string },
    ): Promise<void> {
      await db
        .update(printFile)
        .set({ ...('error' in result ? { status: 'failed', error: result.error } : { status: 'done', ...result }), updatedAt: new Date() })
        .where(
          and(
            eq(printFile.printConfigId, configId),
            eq(printFile.settingsVersion, settingsVersion),
            eq(printFile.profileKey, profileKey),
          ),
        );
    },

    /** A plate's file (plate-slicing), if it was asked for. */
    async plateFile(id: string): Promise<PlateFileRow | undefined> {
      const [row] = await db.select().from(plateFile).where(eq(plateFile.id, id));
      return row;
    },

    /** Asks for a plate's file; true when this call asked first (it queues the slicing). */
    async claimPlateFile(id: string, leadJobId: string): Promise<boolean> {
      const rows = await db.insert(plateFile).values({ id, leadJobId }).onConflictDoNothing().returning({ id: plateFile.id });
      return rows.length === 1;
    },

    /** Forgets every plate file a job led (its print ended); returns the G-code keys to delete from storage. */
    async dropPlateFiles(leadJobId: string): Promise<string[]> {
      const rows = await db.delete(plateFile).where(eq(plateFile.leadJobId, leadJobId)).returning({ gcodeKey: plateFile.gcodeKey });
      return rows.flatMap((r) => (r.gcodeKey ? [r.gcodeKey] : []));
    },

    /** Records a plate's file or refusal; false when the plate was dropped meanwhile (its print ended or was cancelled). */
    async finishPlateFile(
      id: string,
      result: { gcodeKey: string; grams: number; printSeconds: number; objects: { index: number; label: string }[] } | { error: string },
    ): Promise<boolean> {
      const rows = await db
        .update(plateFile)
        .set({ ...('error' in result ? { status: 'failed', error: result.error } : { status: 'done', ...result }), updatedAt: new Date() })
        .where(eq(plateFile.id, id))
        .returning({ id: plateFile.id });
      return rows.length === 1;
    },

    /**
     * A plate that cannot be printed as one (its slicing failed) splits back into single parts, in
     * one statement: its lead stays assigned to the printer and prints alone; the others, still
     * assigned, go back to the queue. Every part is marked to print alone from now on (the next
     * decision would otherwise put them on a plate again), and the reason goes on each timeline.
     */
    async splitPlate(leadId: string, reason: string, at: Date): Promise<void> {
      const when = at.toISOString();
      await db.execute(sql`
        WITH lead AS (
          UPDATE print_job SET plate_index = NULL, prints_alone = true, updated_at = ${when}::timestamptz
          WHERE id = ${leadId}::uuid AND status = 'assigned' AND plate_lead_id IS NULL
          RETURNING id, printer_id, order_id
        ), others AS (
          UPDATE print_job SET status = 'queued', printer_id = NULL, spool_change = NULL, plate_lead_id = NULL, plate_index = NULL,
                 prints_alone = true, failure_reason = ${reason}, updated_at = ${when}::timestamptz
          FROM lead
          WHERE print_job.plate_lead_id = lead.id AND print_job.status = 'assigned'
          RETURNING print_job.id, print_job.order_id, lead.printer_id
        )
        INSERT INTO production_event (kind, job_id, printer_id, order_id, actor_kind, detail)
        SELECT 'plate_split', id, printer_id, order_id, 'system', ${`${reason}; it prints alone on this printer`} FROM lead
        UNION ALL
        SELECT 'requeued', id, printer_id, order_id, 'system', ${`${reason}; it prints alone`} FROM others`);
    },

    /** The item lines of orders with each variant's packaging (the pick list). */
    async pickLines(orderIds: readonly string[]) {
      if (orderIds.length === 0) return [];
      return db
        .select({
          orderId: orderItem.orderId,
          itemId: orderItem.id,
          sku: orderItem.sku,
          title: orderItem.title,
          quantity: orderItem.quantity,
          packaging: sql<string>`coalesce(${productVariant.packaging}, 'standard')`,
        })
        .from(orderItem)
        .leftJoin(productVariant, eq(productVariant.id, orderItem.variantId))
        .where(inArray(orderItem.orderId, [...orderIds]))
        .orderBy(asc(orderItem.id));
    },

    /** The bed is clear (confirmed by a person or the autopilot), or needs clearing after a print. */
    async setBedClear(printerId: string, clear: boolean, by: string | null): Promise<boolean> {
      const rows = await db
        .update(printer)
        .set(
          clear
            ? // A person (or the autopilot) looked: the count of plates printed without one starts again.
              { bedConfirmedClear: true, bedConfirmedBy: by, bedConfirmedAt: new Date(), unattendedPlates: 0 }
            : { bedConfirmedClear: false, bedConfirmedBy: null, bedConfirmedAt: null },
        )
        .where(eq(printer.id, printerId))
        .returning({ id: printer.id });
      return rows.length === 1;
    },
  };
}

export type PrintJobRepository = ReturnType<typeof createPrintJobRepository>;
