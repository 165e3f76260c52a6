import { asc, count, eq } from 'drizzle-orm';
import type { PrinterGroupInput } from '@layerline/contracts';
import type { Database } from '../../db/client.ts';
import { printer, printerGroup } from '../../db/schema.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';

export type PrinterGroupRow = typeof printerGroup.$inferSelect;
export type PrinterGroupFields = Required<PrinterGroupInput>;

/** A group with how many printers are in it. */
export interface PrinterGroupWithCount extends PrinterGroupRow {
  readonly printerCount: number;
}

/**
 * Power groups (circuits) of printers: the dispatcher staggers starts within each. Deleting one
 * leaves its printers ungrouped (the foreign key's ON DELETE SET NULL).
 */
export function createPrinterGroupRepository(db: Database) {
  const withCounts = async (rows: PrinterGroupRow[]): Promise<PrinterGroupWithCount[]> => {
    const counts = await db
      .select({ groupId: printer.groupId, printers: count() })
      .from(printer)
      .groupBy(printer.groupId);
    const byGroup = new Map(counts.map((c) => [c.groupId, Number(c.printers)]));
    return rows.map((row) => ({ ...row, printerCount: byGroup.get(row.id) ?? 0 }));
  };

  return {
    async list(): Promise<PrinterGroupWithCount[]> {
      return withCounts(await db.select().from(printerGroup).orderBy(asc(printerGroup.name)));
    },

    /** Every group's stagger, for the dispatcher (no counts: read at every decision). */
    async staggers(): Promise<{ id: string; maxStarts: number; perSeconds: number }[]> {
      return db
        .select({ id: printerGroup.id, maxStarts: printerGroup.maxStarts, perSeconds: printerGroup.perSeconds })
        .from(printerGroup);
    },

    async find(id: string): Promise<PrinterGroupWithCount | undefined> {
      const rows = await db.select().from(printerGroup).where(eq(printerGroup.id, id));
      return (await withCounts(rows))[0];
    },

    /** The new group, or null when another group has that name. */
    async create(fields: PrinterGroupFields): Promise<PrinterGroupWithCount | null> {
      try {
        const [row] = await db.insert(printerGroup).values(fields).returning();
        return { ...row!, printerCount: 0 };
      } catch (error) {
        if (isUniqueViolation(error)) return null;
        throw error;
      }
    },

    /** The changed group, undefined when it is gone, or null when another group has that name. */
    async update(id: string, fields: PrinterGroupFields): Promise<PrinterGroupWithCount | null | undefined> {
      try {
        const rows = await db.update(printerGroup).set(fields).where(eq(printerGroup.id, id)).returning();
        return (await withCounts(rows))[0];
      } catch (error) {
        if (isUniqueViolation(error)) return null;
        throw error;
      }
    },

    /** The deleted group, or undefined when it was gone already. */
    async remove(id: string): Promise<PrinterGroupRow | undefined> {
      const [row] = await db.delete(printerGroup).where(eq(printerGroup.id, id)).returning();
      return row;
    },
  };
}

export type PrinterGroupRepository = ReturnType<typeof createPrinterGroupRepository>;
