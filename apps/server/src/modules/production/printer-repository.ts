import { and, asc, eq, isNotNull, isNull, ne, or } from 'drizzle-orm';
import {
  printerClearingSchema,
  printerConnectionSchema,
  type PrinterClearing,
  type PrinterConnection,
  type PrinterSlicerProfile,
  type PrinterSpool,
  type PrinterStatus,
} from '@layerline/contracts';
import type { Database } from '../../db/client.ts';
import { printer } from '../../db/schema.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import { createPrinterGroupRepository } from './printer-group-repository.ts';

export type PrinterRow = typeof printer.$inferSelect;

export interface PrinterFields {
  readonly name: string;
  readonly model: string;
  readonly buildVolumeMm: { readonly x: number; readonly y: number; readonly z: number };
  readonly nozzleMm: number;
  readonly tags: readonly string[];
  readonly materials: readonly PrinterSpool['material'][];
  readonly enclosed: boolean;
  readonly groupId: string | null;
  readonly slicerProfile: PrinterSlicerProfile | null;
  /** Absent: a new printer is cleared by a person, an edited one keeps its clearing. */
  readonly clearing?: PrinterClearing;
  readonly connection: PrinterConnection;
}

/**
 * The farm's printers. The connection is sealed as one JSON value with the secret box, bound to
 * the table, the row and its purpose (printers have no owner: the farm is the owner), like shop
 * tokens: a sealed value copied to another row does not open.
 */
export function createPrinterRepository(db: Database, box: SecretBox) {
  /**
   * Writes by admins touch a printer only while it is not retired, in the same statement: a retire
   * racing an edit or a resume cannot bring a retired printer back. No row back means "retired (or
   * gone) by now".
   */
  const notRetired = (id: string) => and(eq(printer.id, id), ne(printer.status, 'retired'));
  const context = (rowId: string) => ({ table: 'printer', rowId, ownerId: 'farm', purpose: 'connection' });
  const seal = (rowId: string, connection: PrinterConnection) =>
    box.seal(JSON.stringify(connection), context(rowId));
  const columns = (fields: PrinterFields) => ({
    name: fields.name,
    model: fields.model,
    buildXMm: fields.buildVolumeMm.x,
    buildYMm: fields.buildVolumeMm.y,
    buildZMm: fields.buildVolumeMm.z,
    nozzleMm: fields.nozzleMm,
    tags: [...fields.tags],
    materials: [...fields.materials],
    enclosed: fields.enclosed,
    groupId: fields.groupId,
    slicerProfile: fields.slicerProfile,
    ...(fields.clearing ? { clearing: fields.clearing } : {}),
    connectionKind: fields.connection.kind,
  });

  return {
    /** The power groups printers belong to. */
    groups: createPrinterGroupRepository(db),

    async list(): Promise<PrinterRow[]> {
      return db.select().from(printer).orderBy(asc(printer.name), asc(printer.id));
    },

    async find(id: string): Promise<PrinterRow | undefined> {
      const [row] = await db.select().from(printer).where(eq(printer.id, id));
      return row;
    },

    async create(fields: PrinterFields, spools: readonly PrinterSpool[] = []): Promise<PrinterRow> {
      const id = crypto.randomUUID();
      const [row] = await db
        .insert(printer)
        .values({ id, ...columns(fields), connectionEnc: seal(id, fields.connection), spools: [...spools] })
        .returning();
      return row!;
    },

    async update(id: string, fields: PrinterFields): Promise<PrinterRow | undefined> {
      const [row] = await db
        .update(printer)
        .set({ ...columns(fields), connectionEnc: seal(id, fields.connection), updatedAt: new Date() })
        .where(notRetired(id))
        .returning();
      return row;
    },

    async setStatus(id: string, status: 'active' | 'paused' | 'retired'): Promise<PrinterRow | undefined> {
      const [row] = await db
        .update(printer)
        .set({ status, updatedAt: new Date() })
        .where(notRetired(id))
        .returning();
      return row;
    },

    async setSpools(id: string, spools: readonly PrinterSpool[]): Promise<PrinterRow | undefined> {
      const [row] = await db
        .update(printer)
        .set({ spools: [...spools], updatedAt: new Date() })
        .where(notRetired(id))
        .returning();
      return row;
    },

    /** The certificate fingerprint pinned for a Bambu Lab printer, or null before first contact. */
    async certificatePin(id: string): Promise<string | null> {
      const [row] = await db.select({ sha256: printer.certificateSha256 }).from(printer).where(eq(printer.id, id));
      return row?.sha256 ?? null;
    },

    /** Pins on first use only: a pin already there is never replaced here (an admin clears it). */
    async pinCertificate(id: string, sha256: string): Promise<void> {
      await db
        .update(printer)
        .set({ certificateSha256: sha256 })
        .where(and(eq(printer.id, id), isNull(printer.certificateSha256)));
    },

    /** An admin trusts the printer's next certificate (a replaced or reset printer). */
    async forgetCertificate(id: string): Promise<PrinterRow | undefined> {
      const [row] = await db
        .update(printer)
        .set({ certificateSha256: null, attention: null, attentionAt: null, updatedAt: new Date() })
        .where(notRetired(id))
        .returning();
      return row;
    },

    /** What the printer said last: a status (and no error), or an error in words (the state kept). */
    async recordState(
      id: string,
      state: { status: PrinterStatus } | { error: string },
    ): Promise<PrinterRow | undefined> {
      const set =
        'status' in state
          ? { lastState: state.status, lastStateAt: new Date(), lastError: null }
          : { lastError: state.error, lastStateAt: new Date() };
      const [row] = await db.update(printer).set(set).where(eq(printer.id, id)).returning();
      return row;
    },

    /**
     * The farm asks a person to look at the printer (an answer it does not know, a key that may not
     * print): no job goes to it until cleared. A flag repeated with the same reason (every poll)
     * keeps the time it was first raised.
     */
    async flagAttention(printerId: string, reason: string): Promise<void> {
      await db
        .update(printer)
        .set({ attention: reason, attentionAt: new Date() })
        .where(and(eq(printer.id, printerId), or(isNull(printer.attention), ne(printer.attention, reason))));
    },

    /** A person looked: the printer takes jobs again. False when it was not flagged (or is gone). */
    async clearAttention(printerId: string): Promise<boolean> {
      const rows = await db
        .update(printer)
        .set({ attention: null, attentionAt: null })
        .where(and(eq(printer.id, printerId), isNotNull(printer.attention)))
        .returning({ id: printer.id });
      return rows.length > 0;
    },

    /**
     * The printer cleared its own bed after a good print (continuous printing): the bed is clear
     * for the next plate and one more plate counts as unattended. Compare-and-set on the count
     * read and on no flag raised meanwhile, so two ticks settling the same finish count it once.
     */
    async clearedItself(printerId: string, unattendedPlatesBefore: number): Promise<boolean> {
      const rows = await db
        .update(printer)
        .set({
          bedConfirmedClear: true,
          bedConfirmedBy: null,
          bedConfirmedAt: new Date(),
          unattendedPlates: unattendedPlatesBefore + 1,
        })
        .where(
          and(
            eq(printer.id, printerId),
            eq(printer.unattendedPlates, unattendedPlatesBefore),
            eq(printer.bedConfirmedClear, false),
            isNull(printer.attention),
          ),
        )
        .returning({ id: printer.id });
      return rows.length === 1;
    },

    /** The stored connection, opened (throws SecretBoxError when it does not belong to this row). */
    connection(row: PrinterRow): PrinterConnection {
      return printerConnectionSchema.parse(JSON.parse(box.open(row.connectionEnc, context(row.id))));
    },

    /** Build volumes of the active printers (for the designs module's BuildVolumes). */
    async volumes(): Promise<[number, number, number][]> {
      const rows = await db
        .select({ x: printer.buildXMm, y: printer.buildYMm, z: printer.buildZMm })
        .from(printer)
        .where(eq(printer.status, 'active'));
      return rows.map((r) => [r.x, r.y, r.z]);
    },

    async count(): Promise<number> {
      return (await db.select({ id: printer.id }).from(printer)).length;
    },
  };
}

export type PrinterRepository = ReturnType<typeof createPrinterRepository>;

/** How the printer's bed is cleared; a value stored before continuous printing reads as a person. */
export const clearingOf = (row: Pick<PrinterRow, 'clearing'>): PrinterClearing => {
  const parsed = printerClearingSchema.safeParse(row.clearing);
  return parsed.success ? parsed.data : { kind: 'person' };
};
