import { z } from 'zod';
import { PRINT_JOB_STATUSES } from './print-jobs.ts';
import { CLEARING_KINDS, PRINTER_ADMIN_STATUSES, printerStatusSchema, spoolSchema } from './printers.ts';

/**
 * The print farm at work (issue 11, items 2-5): print jobs, the production board, QC and packing.
 * The admin API lives under /api/admin/production; the seller sees a summary on each order.
 * docs/print-farm.md describes the rules; these are the shapes the server and the pages share.
 */

const boxSchema = z.object({ x: z.number(), y: z.number(), z: z.number() });

/** One part printed once: what the board, QC and the order page show of a print job. */
export const printJobSchema = z.object({
  id: z.string(),
  orderId: z.string(),
  /** The order's number as the seller's shop knows it. */
  orderNumber: z.string(),
  ownerId: z.string(),
  /** The seller's business name, else their email (admins only see this). */
  sellerName: z.string(),
  /** The part as people call it: the product, the variant and the part ("Planter / Large / base"). */
  partName: z.string(),
  designId: z.string(),
  printConfigId: z.string(),
  /** Which copy of the part this is (1..quantity), so two copies of one part are two jobs. */
  copy: z.number().int(),
  material: z.string(),
  /** The print configuration's colour as lower-case hex (matched against spools' colourHex), or "any". */
  colour: z.string(),
  nozzleMm: z.number(),
  /** The part's bounding box as printed, mm. */
  sizeMm: boxSchema,
  grams: z.number(),
  printSeconds: z.number(),
  status: z.enum(PRINT_JOB_STATUSES),
  /** 1 for the first print of this part, 2 for its first reprint, and so on. */
  attempt: z.number().int(),
  reprintOf: z.string().nullable(),
  printerId: z.string().nullable(),
  printerName: z.string().nullable(),
  pinnedPrinterId: z.string().nullable(),
  /** Whether the sliced file is ready (a job is dispatched only once it is). */
  fileReady: z.boolean(),
  /** The spool to load before this job starts, when the dispatcher chose a spool change. */
  spoolChange: z.object({ material: z.string(), colour: z.string() }).nullable(),
  /** While printing: 0..1 and the printer's estimate of the seconds left. */
  progress: z.number().nullable(),
  secondsLeft: z.number().nullable(),
  /** Why it failed (the printer's words, or the QC reason), or why it went back to the queue. */
  failureReason: z.string().nullable(),
  /** What QC should check closely: the printer could not tell how this print ended. */
  qcNote: z.string().nullable(),
  /** Who passed or failed it ("autopilot" when the farm autopilot did). */
  qcBy: z.string().nullable(),
  rush: z.boolean(),
  placedAt: z.string(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  /**
   * On a plate of several parts (issue 22): the plate's lead job (its own id for the lead) and the
   * part's index on the plate (0 for the lead). Null: printed alone.
   */
  plate: z.object({ leadId: z.string(), index: z.number().int() }).nullable(),
  /** A plate it was on could not be sliced (failureReason says why): it is never put on a plate again. */
  printsAlone: z.boolean(),
});
export type PrintJob = z.infer<typeof printJobSchema>;

/** A printer as the production board shows it: its state now, the job on it and its spool. */
export const boardPrinterSchema = z.object({
  id: z.string(),
  name: z.string(),
  model: z.string(),
  adminStatus: z.enum(PRINTER_ADMIN_STATUSES),
  buildVolumeMm: boxSchema,
  nozzleMm: z.number(),
  /** What the printer reported last (null before the first poll). */
  state: printerStatusSchema.nullable(),
  stateAt: z.string().nullable(),
  /** The connection is lost (the last poll failed): shown, never silently retried as a new print. */
  connectionLost: z.boolean(),
  lastError: z.string().nullable(),
  loadedSpool: spoolSchema.nullable(),
  bedConfirmedClear: z.boolean(),
  /** How its bed is cleared; `clearsItself`: it goes on to the next plate without a person (continuous printing). */
  clearing: z.object({
    kind: z.enum(CLEARING_KINDS),
    clearsItself: z.boolean(),
    unattendedPlates: z.number().int(),
    maxUnattendedPlates: z.number().int().nullable(),
  }),
  /** The farm's flag for a person (it takes no job until cleared), in words and since when; null when fine. */
  attention: z.object({ reason: z.string(), since: z.string().nullable() }).nullable(),
  /** The job on it (assigned, uploading or printing), or null. */
  jobId: z.string().nullable(),
});
export type BoardPrinter = z.infer<typeof boardPrinterSchema>;

/** An order that is printed and waits to be packed, with its pick list. */
export const packingOrderSchema = z.object({
  orderId: z.string(),
  orderNumber: z.string(),
  sellerName: z.string(),
  customerName: z.string(),
  /** What to put in the box: each item with its parts (and how many of each). */
  pickList: z.array(
    z.object({
      sku: z.string(),
      title: z.string(),
      quantity: z.number().int(),
      packaging: z.string(),
      parts: z.array(z.object({ name: z.string(), quantity: z.number().int() })),
    }),
  ),
  printedAt: z.string(),
});
export type PackingOrder = z.infer<typeof packingOrderSchema>;

/** An order the farm cannot go on with by itself, with the reason in words. */
export const heldOrderSchema = z.object({
  orderId: z.string(),
  orderNumber: z.string(),
  sellerName: z.string(),
  holdReason: z.string(),
});
export type HeldOrder = z.infer<typeof heldOrderSchema>;

/** GET /api/admin/production/board: everything the production board shows, in one read. */
export const productionBoardSchema = z.object({
  printers: z.array(boardPrinterSchema),
  /** Queued jobs in the order the dispatcher will consider them (pinned first, then priority). */
  queued: z.array(printJobSchema),
  /** How many jobs are queued in all (`queued` holds the first 200). */
  queuedTotal: z.number().int(),
  /** Assigned, uploading and printing. */
  active: z.array(printJobSchema),
  /** Printed, waiting for QC. */
  awaitingQc: z.array(printJobSchema),
  awaitingPacking: z.array(packingOrderSchema),
  onHold: z.array(heldOrderSchema),
  /** Whether the farm autopilot confirms beds, QC and packing by itself (FARM_AUTOPILOT). */
  autopilot: z.boolean(),
  generatedAt: z.string(),
});
export type ProductionBoard = z.infer<typeof productionBoardSchema>;

/** POST /api/admin/production/jobs/:id/qc */
export const qcInputSchema = z.discriminatedUnion('result', [
  z.object({ result: z.literal('pass') }).strict(),
  z
    .object({
      result: z.literal('fail'),
      reason: z
        .string({ message: 'Say why the part failed QC' })
        .trim()
        .min(3, 'Say why the part failed QC (at least 3 characters)')
        .max(500),
    })
    .strict(),
]);
export type QcInput = z.infer<typeof qcInputSchema>;

/** POST /api/admin/production/jobs/:id/skip: a part failing mid-print on a plate of several (issue 22). */
export const skipPartInputSchema = z
  .object({
    reason: z
      .string({ message: 'Say why the part failed' })
      .trim()
      .min(3, 'Say why the part failed (at least 3 characters)')
      .max(500),
  })
  .strict();
export type SkipPartInput = z.infer<typeof skipPartInputSchema>;

/** POST /api/admin/production/jobs/:id/pin: run this job on that printer next (null: any printer). */
export const pinInputSchema = z.object({ printerId: z.string().uuid('Choose a printer').nullable() }).strict();
export type PinInput = z.infer<typeof pinInputSchema>;

/** POST /api/admin/production/jobs/:id/move: place a queued job just before another (null: at the end). */
export const moveInputSchema = z.object({ beforeJobId: z.string().uuid().nullable() }).strict();
export type MoveInput = z.infer<typeof moveInputSchema>;

/** POST /api/admin/production/orders/:id/pack */
export const packInputSchema = z.object({ message: z.string().trim().max(500).default('') }).strict();
export type PackInput = z.input<typeof packInputSchema>;

/** What a seller sees of production on their order: parts printed of the total, and each job. */
export const orderProductionSchema = z.object({
  /** Parts the order needs in all (each part × quantity). */
  partsTotal: z.number().int(),
  /** Parts printed and passed QC. */
  partsDone: z.number().int(),
  /** Parts printing now. */
  partsPrinting: z.number().int(),
  jobs: z.array(
    z.object({
      id: z.string(),
      partName: z.string(),
      copy: z.number().int(),
      status: z.enum(PRINT_JOB_STATUSES),
      attempt: z.number().int(),
      progress: z.number().nullable(),
    }),
  ),
});
export type OrderProduction = z.infer<typeof orderProductionSchema>;
