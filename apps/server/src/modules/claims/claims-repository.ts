import { and, asc, count, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { claim, claimPart, claimPhoto, order, printer, printJob, user } from '../../db/schema.ts';

export type ClaimRow = typeof claim.$inferSelect;

/** A claim as the lists show it: its columns, its order's number and the seller's name. */
export interface ClaimListRow extends ClaimRow {
  orderNumber: string;
  sellerName: string;
}

export interface ClaimPartRow {
  claimId: string;
  printJobId: string;
  partName: string;
  material: string;
  colour: string;
  printerId: string | null;
  printerName: string;
  qcBy: string | null;
  printedAt: Date | null;
  reprintJobId: string | null;
}

export type ClaimPhotoRow = typeof claimPhoto.$inferSelect;

/** What filing a claim needs to know of its order: whose it is, where it stands, when it shipped and arrived. */
export interface ClaimableOrderRow {
  id: string;
  ownerId: string;
  externalId: string;
  status: string;
  shippedAt: Date | null;
  deliveredAt: Date | null;
  /** When its parcels were due: each label's ship date plus the carrier's estimated days, the latest. */
  promisedAt: Date | null;
}

/** A print job of an order as a claim names it: its place in the order, where and from what it was printed. */
export interface OrderJobRow {
  id: string;
  orderItemId: string;
  partIndex: number;
  copy: number;
  attempt: number;
  status: string;
  partName: string;
  material: string;
  colour: string;
  printerId: string | null;
  printerName: string | null;
  sizeMm: { x: number; y: number; z: number };
  grams: number;
}

export interface NewClaim {
  orderId: string;
  ownerId: string;
  kind: string;
  description: string;
  parts: readonly { printJobId: string; printerId: string | null; printerName: string; material: string }[];
  photos: readonly { storageKey: string; width: number; height: number; sizeBytes: number }[];
}

/** The claims tables: the only SQL of the claims module. */
export function createClaimsRepository(db: Database) {
  const qcByName = sql<string | null>`CASE WHEN ${printJob.qcBy} IS NULL THEN NULL ELSE coalesce((SELECT coalesce(nullif(u.name, ''), u.email) FROM "user" u WHERE u.id = ${printJob.qcBy}), ${printJob.qcBy}) END`;

  async function listRows(where: SQL | undefined): Promise<ClaimListRow[]> {
    const rows = await db
      .select({
        claim,
        orderNumber: order.externalId,
        sellerName: sql<string>`coalesce(nullif(${user.businessName}, ''), ${user.email})`,
      })
      .from(claim)
      .innerJoin(order, eq(order.id, claim.orderId))
      .innerJoin(user, eq(user.id, claim.ownerId))
      .where(where)
      .orderBy(desc(claim.createdAt), desc(claim.id))
      .limit(500);
    return rows.map((row) => ({ ...row.claim, orderNumber: row.orderNumber, sellerName: row.sellerName }));
  }

  return {
    async claimableOrder(orderId: string): Promise<ClaimableOrderRow | undefined> {
      const [row] = await db
        .select({
          id: order.id,
          ownerId: order.ownerId,
          externalId: order.externalId,
          status: order.status,
          // Raw names: inside a subquery drizzle would leave the outer order's columns unqualified.
          shippedAt: sql<Date | null>`(SELECT extract(epoch FROM min(ev.created_at)) * 1000 FROM order_event ev WHERE ev.order_id = "order".id AND ev.to_status = 'shipped')`.mapWith(nullableDate),
          deliveredAt: sql<Date | null>`(SELECT extract(epoch FROM min(ev.created_at)) * 1000 FROM order_event ev WHERE ev.order_id = "order".id AND ev.to_status = 'delivered')`.mapWith(nullableDate),
          promisedAt: sql<Date | null>`(SELECT extract(epoch FROM max(coalesce(s.shipped_at, s.created_at) + coalesce((s.rate->>'estimatedDays')::int, 0) * interval '1 day')) * 1000 FROM shipment s WHERE s.order_id = "order".id AND s.status IN ('purchased', 'in_transit', 'delivered'))`.mapWith(nullableDate),
        })
        .from(order)
        .where(eq(order.id, orderId));
      return row;
    },

    /** Every print job of an order, with its printer's name. */
    async jobsOfOrder(orderId: string): Promise<OrderJobRow[]> {
      return db
        .select({
          id: printJob.id,
          orderItemId: printJob.orderItemId,
          partIndex: printJob.partIndex,
          copy: printJob.copy,
          attempt: printJob.attempt,
          status: printJob.status,
          partName: printJob.partName,
          material: printJob.material,
          colour: printJob.colour,
          printerId: printJob.printerId,
          printerName: printer.name,
          sizeMm: { x: printJob.sizeXMm, y: printJob.sizeYMm, z: printJob.sizeZMm },
          grams: printJob.grams,
        })
        .from(printJob)
        .leftJoin(printer, eq(printer.id, printJob.printerId))
        .where(eq(printJob.orderId, orderId))
        .orderBy(asc(printJob.seq));
    },

    /** The claim, its parts and photos in one transaction; null when the order already has an open claim. */
    async insert(input: NewClaim): Promise<string | null> {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .insert(claim)
          .values({ orderId: input.orderId, ownerId: input.ownerId, kind: input.kind, description: input.description })
          .onConflictDoNothing()
          .returning({ id: claim.id });
        if (!row) return null;
        await tx.insert(claimPart).values(input.parts.map((part) => ({ ...part, claimId: row.id })));
        if (input.photos.length > 0)
          await tx.insert(claimPhoto).values(input.photos.map((photo, position) => ({ ...photo, position, claimId: row.id })));
        return row.id;
      });
    },

    async hasOpenClaim(orderId: string): Promise<boolean> {
      const [row] = await db.select({ id: claim.id }).from(claim).where(and(eq(claim.orderId, orderId), eq(claim.status, 'open')));
      return row !== undefined;
    },

    async list(filter: { ownerId: string | null; status?: string; orderId?: string }): Promise<ClaimListRow[]> {
      return listRows(
        and(
          filter.ownerId === null ? undefined : eq(claim.ownerId, filter.ownerId),
          filter.status ? eq(claim.status, filter.status) : undefined,
          filter.orderId ? eq(claim.orderId, filter.orderId) : undefined,
        ),
      );
    },

    async find(id: string): Promise<ClaimListRow | undefined> {
      const [row] = await listRows(eq(claim.id, id));
      return row;
    },

    async partsOf(claimIds: readonly string[]): Promise<ClaimPartRow[]> {
      if (claimIds.length === 0) return [];
      return db
        .select({
          claimId: claimPart.claimId,
          printJobId: claimPart.printJobId,
          partName: printJob.partName,
          material: claimPart.material,
          colour: printJob.colour,
          printerId: claimPart.printerId,
          printerName: claimPart.printerName,
          qcBy: qcByName,
          printedAt: printJob.finishedAt,
          reprintJobId: claimPart.reprintJobId,
        })
        .from(claimPart)
        .innerJoin(printJob, eq(printJob.id, claimPart.printJobId))
        .where(inArray(claimPart.claimId, [...claimIds]))
        .orderBy(asc(printJob.seq));
    },

    async photosOf(claimIds: readonly string[]): Promise<ClaimPhotoRow[]> {
      if (claimIds.length === 0) return [];
      return db.select().from(claimPhoto).where(inArray(claimPhoto.claimId, [...claimIds])).orderBy(asc(claimPhoto.position));
    },

    async photo(claimId: string, photoId: string): Promise<ClaimPhotoRow | undefined> {
      const [row] = await db.select().from(claimPhoto).where(and(eq(claimPhoto.claimId, claimId), eq(claimPhoto.id, photoId)));
      return row;
    },

    /**
     * Compare-and-set from open to the decision: only one decision of a claim is ever taken, however
     * many admins click at once. Null when it was decided meanwhile.
     */
    async decide(
      id: string,
      decision: { status: string; note: string; refundCents: number | null; decidedBy: string },
    ): Promise<ClaimRow | null> {
      const [row] = await db
        .update(claim)
        .set({
          status: decision.status,
          decisionNote: decision.note,
          refundCents: decision.refundCents,
          decidedBy: decision.decidedBy,
          decidedAt: new Date(),
          updatedAt: new Date(),
        })
        .where(and(eq(claim.id, id), eq(claim.status, 'open')))
        .returning();
      return row ?? null;
    },

    /** Undoes a decision whose side effect failed, so the claim waits again (compare-and-set on the decision). */
    async reopen(id: string, from: string): Promise<void> {
      await db
        .update(claim)
        .set({ status: 'open', decisionNote: '', refundCents: null, decidedBy: null, decidedAt: null, updatedAt: new Date() })
        .where(and(eq(claim.id, id), eq(claim.status, from)));
    },

    async setReprintJobs(claimId: string, reprints: ReadonlyMap<string, string>): Promise<void> {
      for (const [printJobId, reprintJobId] of reprints)
        await db.update(claimPart).set({ reprintJobId }).where(and(eq(claimPart.claimId, claimId), eq(claimPart.printJobId, printJobId)));
    },

    async setRefund(claimId: string, refundCents: number): Promise<void> {
      await db.update(claim).set({ refundCents, updatedAt: new Date() }).where(eq(claim.id, claimId));
    },

    async setReplacementShipment(claimId: string, shipmentId: string): Promise<void> {
      await db.update(claim).set({ replacementShipmentId: shipmentId, updatedAt: new Date() }).where(eq(claim.id, claimId));
    },

    /** Claims per printer and per material (every claim but the declined: those were not the farm's fault). */
    async stats(): Promise<{ total: number; open: number; byPrinter: { printerId: string | null; printerName: string; claims: number }[]; byMaterial: { material: string; claims: number }[] }> {
      const counted = sql`${claim.status} <> 'declined'`;
      const [totals] = await db
        .select({ total: count(), open: sql<number>`count(*) FILTER (WHERE ${claim.status} = 'open')`.mapWith(Number) })
        .from(claim);
      const claimsCount = sql<number>`count(DISTINCT ${claimPart.claimId})`.mapWith(Number);
      const byPrinter = await db
        .select({ printerId: claimPart.printerId, printerName: sql<string>`coalesce(${printer.name}, nullif(${claimPart.printerName}, ''), 'No printer recorded')`, claims: claimsCount })
        .from(claimPart)
        .innerJoin(claim, eq(claim.id, claimPart.claimId))
        .leftJoin(printer, eq(printer.id, claimPart.printerId))
        .where(counted)
        .groupBy(claimPart.printerId, printer.name, claimPart.printerName)
        .orderBy(desc(claimsCount));
      const byMaterial = await db
        .select({ material: claimPart.material, claims: claimsCount })
        .from(claimPart)
        .innerJoin(claim, eq(claim.id, claimPart.claimId))
        .where(counted)
        .groupBy(claimPart.material)
        .orderBy(desc(claimsCount));
      return { total: totals?.total ?? 0, open: totals?.open ?? 0, byPrinter, byMaterial };
    },
  };
}

/** A time read as epoch milliseconds (the same from PostgreSQL and PGlite, whatever their text form). */
const nullableDate = (value: unknown): Date | null => (value === null || value === undefined ? null : new Date(Number(value)));

export type ClaimsRepository = ReturnType<typeof createClaimsRepository>;
