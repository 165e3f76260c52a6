import type { PrinterGroup } from '@layerline/contracts';
import { z } from 'zod';
import { AppError, notFound } from '../../errors.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import type { PrinterGroupFields, PrinterGroupRepository, PrinterGroupWithCount } from './printer-group-repository.ts';
import type { PrinterActor } from './printer-actor.ts';

/**
 * Power groups for admins (issue 20): list, add, edit, delete. Every write is audited
 * (`printer-group.*`). docs/printers.md, "Power groups".
 */
export function createPrinterGroupService(deps: { repository: PrinterGroupRepository; audit: AuditRepository }) {
  const { repository, audit } = deps;

  const dto = (row: PrinterGroupWithCount): PrinterGroup => ({
    id: row.id,
    name: row.name,
    maxStarts: row.maxStarts,
    perSeconds: row.perSeconds,
    printerCount: row.printerCount,
  });
  const nameTaken = (name: string) => new AppError('conflict', `A printer group named “${name}” exists already`);
  const record = (actor: PrinterActor, action: string, detail: Record<string, unknown>) =>
    audit.record({ actorId: actor.id, targetUserId: null, action, detail, requestId: actor.requestId });

  return {
    async list(): Promise<PrinterGroup[]> {
      return (await repository.list()).map(dto);
    },

    async create(actor: PrinterActor, fields: PrinterGroupFields): Promise<PrinterGroup> {
      const row = await repository.create(fields);
      if (!row) throw nameTaken(fields.name);
      await record(actor, 'printer-group.create', { groupId: row.id, ...fields });
      return dto(row);
    },

    async update(actor: PrinterActor, id: string, fields: PrinterGroupFields): Promise<PrinterGroup> {
      const before = await repository.find(id);
      if (!before) throw notFound('Printer group');
      const row = await repository.update(id, fields);
      if (row === null) throw nameTaken(fields.name);
      if (!row) throw notFound('Printer group');
      await record(actor, 'printer-group.update', {
        groupId: id,
        ...fields,
        from: { name: before.name, maxStarts: before.maxStarts, perSeconds: before.perSeconds },
      });
      return dto(row);
    },

    /** Its printers stay, in no group (their starts no longer staggered). */
    async remove(actor: PrinterActor, id: string): Promise<void> {
      const before = await repository.find(id);
      const row = await repository.remove(id);
      if (!row) throw notFound('Printer group');
      await record(actor, 'printer-group.delete', { groupId: id, name: row.name, printers: before?.printerCount ?? 0 });
    },

    /** Whether a group with this id exists (a printer may only join an existing group). */
    async exists(id: string): Promise<boolean> {
      return (await repository.find(id)) !== undefined;
    },
  };
}

export type PrinterGroupService = ReturnType<typeof createPrinterGroupService>;

/** The id route parameter. */
export const printerGroupIdParams = z.object({ id: z.uuid('Not a valid printer group id') }).strict();
