import {
  printerConnectionSchema,
  type Printer,
  type PrinterConnection,
  type PrinterConnectionView,
  type PrinterSlicerProfile,
  type PrinterSpool,
  type PrinterStatus,
  type PrinterTestResult,
} from '@layerline/contracts';
import { z } from 'zod';
import { AppError, notFound } from '../../errors.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import type { BuildVolume, BuildVolumes } from '../designs/build-volume.ts';
import type { PrinterActor } from './printer-actor.ts';
import { clearingProblem } from './continuous-printing.ts';
import type { PrinterDriverFactory } from './printer-driver.ts';
import { createPrinterGroupService } from './printer-group-service.ts';
import { clearingOf, type PrinterFields, type PrinterRepository, type PrinterRow } from './printer-repository.ts';

/** The fields of an edit, where the connection's secret may be missing (kept from the stored one). */
export interface PrinterUpdate extends Omit<PrinterFields, 'connection'> {
  readonly connection: Record<string, unknown> & { kind: PrinterConnection['kind'] };
}

/** The connection without its secrets, and whether one is stored. */
export function connectionView(connection: PrinterConnection): {
  view: PrinterConnectionView;
  secretSet: boolean;
} {
  switch (connection.kind) {
    case 'octoprint':
      return { view: { kind: 'octoprint', baseUrl: connection.baseUrl }, secretSet: true };
    case 'moonraker':
      return {
        view: { kind: 'moonraker', baseUrl: connection.baseUrl },
        secretSet: connection.apiKey !== undefined,
      };
    case 'prusalink':
      return {
        view: {
          kind: 'prusalink',
          baseUrl: connection.baseUrl,
          storage: connection.storage,
          auth:
            connection.auth.kind === 'digest'
              ? { kind: 'digest', username: connection.auth.username }
              : { kind: 'api-key' },
        },
        secretSet: true,
      };
    case 'simulated':
      return { view: connection, secretSet: false };
    case 'bambulab': {
      const { accessCode: _sealed, ...view } = connection;
      return { view, secretSet: true };
    }
  }
}

/**
 * An edited connection with the stored secret put back where the form left it empty: same kind
 * (and, for PrusaLink, same auth kind) only. A changed kind needs its secret entered again.
 */
export function mergeConnection(
  stored: PrinterConnection,
  edited: PrinterUpdate['connection'],
): PrinterConnection {
  const next: Record<string, unknown> = { ...edited };
  const blank = (v: unknown) => v === undefined || v === '';
  if (stored.kind === edited.kind) {
    if (
      (stored.kind === 'octoprint' || stored.kind === 'moonraker') &&
      blank(next.apiKey) &&
      stored.apiKey !== undefined
    ) {
      next.apiKey = stored.apiKey;
    }
    if (stored.kind === 'prusalink' && next.auth && typeof next.auth === 'object') {
      const auth = { ...(next.auth as Record<string, unknown>) };
      if (auth.kind === stored.auth.kind) {
        if (stored.auth.kind === 'api-key' && blank(auth.apiKey)) auth.apiKey = stored.auth.apiKey;
        if (stored.auth.kind === 'digest' && blank(auth.password)) auth.password = stored.auth.password;
      }
      next.auth = auth;
    }
    if (stored.kind === 'bambulab' && blank(next.accessCode)) next.accessCode = stored.accessCode;
  }
  if (next.kind === 'moonraker' && next.apiKey === '') delete next.apiKey;
  const parsed = printerConnectionSchema.safeParse(next);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length > 0 ? `connection.${issue.path.join('.')}: ` : '';
    throw new AppError('unprocessable', `${where}${issue.message}`);
  }
  return parsed.data;
}

/**
 * The farm's printers for admins: list, add, edit, pause/resume, retire (never delete: jobs keep
 * naming it), spools, and "Test connection" through the printer's driver. Every write is audited
 * (action `printer.*`, detail without any secret). docs/printers.md, "The printers table".
 */
export function createPrinterService(deps: {
  repository: PrinterRepository;
  drivers: PrinterDriverFactory;
  audit: AuditRepository;
  /**
   * Why the printer host policy refuses an address, or null (checkPrinterHost). Checked when a
   * printer is saved as well as before each call (issue 21: a forbidden address was saved as active).
   */
  addressProblem?: (baseUrl: string) => Promise<string | null>;
}) {
  const { repository, drivers, audit } = deps;
  const groups = createPrinterGroupService({ repository: repository.groups, audit });

  /** A printer joins only a group that exists (422 in words, not a foreign key's 500). */
  async function checkGroup(groupId: string | null): Promise<void> {
    if (groupId !== null && !(await groups.exists(groupId)))
      throw new AppError('unprocessable', 'groupId: That printer group does not exist (it may have been deleted)');
  }

  function runnableClearing(fields: Pick<PrinterFields, 'clearing'>, connection: PrinterConnection): void {
    const problem = fields.clearing ? clearingProblem(fields.clearing, connection.kind) : null;
    if (problem) throw new AppError('unprocessable', problem);
  }

  async function allowedAddress(connection: PrinterConnection): Promise<void> {
    if (connection.kind === 'simulated') return; // in-process: no address
    // A Bambu Lab printer is named by its host alone (MQTT and FTPS, not HTTP); the policy is the same.
    const address = connection.kind === 'bambulab' ? `https://${connection.host.includes(':') ? `[${connection.host}]` : connection.host}` : connection.baseUrl;
    const problem = await deps.addressProblem?.(address);
    if (problem) throw new AppError('unprocessable', `connection.baseUrl: the printer's address is refused: ${problem}`);
  }

  function dto(row: PrinterRow): Printer {
    const { view, secretSet } = connectionView(repository.connection(row));
    return {
      id: row.id,
      name: row.name,
      model: row.model,
      buildVolumeMm: { x: row.buildXMm, y: row.buildYMm, z: row.buildZMm },
      nozzleMm: row.nozzleMm,
      status: row.status as Printer['status'],
      tags: row.tags,
      connection: view,
      secretSet,
      spools: row.spools as PrinterSpool[],
      materials: row.materials as PrinterSpool['material'][],
      enclosed: row.enclosed,
      groupId: row.groupId,
      slicerProfile: (row.slicerProfile as PrinterSlicerProfile | null) ?? null,
      attention: row.attention,
      attentionAt: row.attentionAt?.toISOString() ?? null,
      lastState: (row.lastState as PrinterStatus | null) ?? null,
      lastStateAt: row.lastStateAt?.toISOString() ?? null,
      lastError: row.lastError,
      certificateSha256: row.certificateSha256,
      bedConfirmedClear: row.bedConfirmedClear,
      bedConfirmedBy: row.bedConfirmedBy,
      bedConfirmedAt: row.bedConfirmedAt?.toISOString() ?? null,
      clearing: clearingOf(row),
      unattendedPlates: row.unattendedPlates,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  }

  async function existing(id: string): Promise<PrinterRow> {
    const row = await repository.find(id);
    if (!row) throw notFound('Printer');
    return row;
  }

  async function changeable(id: string): Promise<PrinterRow> {
    const row = await existing(id);
    if (row.status === 'retired')
      throw new AppError('conflict', `${row.name} is retired: it is kept for history and cannot be changed`);
    return row;
  }

  /** A guarded write changed nothing: the printer was retired (409) or removed (404) in between. */
  async function refusedMeanwhile(id: string): Promise<never> {
    await changeable(id);
    throw notFound('Printer');
  }

  const record = (
    actor: PrinterActor,
    action: string,
    row: PrinterRow,
    detail: Record<string, unknown> = {},
  ) =>
    audit.record({
      actorId: actor.id,
      targetUserId: null,
      action,
      detail: { printerId: row.id, name: row.name, kind: row.connectionKind, ...detail },
      requestId: actor.requestId,
    });

  return {
    groups,

    async list(): Promise<Printer[]> {
      return (await repository.list()).map(dto);
    },

    async get(id: string): Promise<Printer> {
      return dto(await existing(id));
    },

    async create(actor: PrinterActor, fields: PrinterFields): Promise<Printer> {
      await checkGroup(fields.groupId);
      runnableClearing(fields, fields.connection);
      await allowedAddress(fields.connection);
      const row = await repository.create(fields);
      await record(actor, 'printer.create', row);
      return dto(row);
    },

    async update(actor: PrinterActor, id: string, fields: PrinterUpdate): Promise<Printer> {
      const row = await changeable(id);
      await checkGroup(fields.groupId);
      const connection = mergeConnection(repository.connection(row), fields.connection);
      runnableClearing(fields, connection);
      await allowedAddress(connection);
      const updated = await repository.update(id, { ...fields, connection });
      if (!updated) return refusedMeanwhile(id);
      await record(actor, 'printer.update', updated, {
        secretChanged: connectionChangedSecret(repository.connection(row), connection),
      });
      return dto(updated);
    },

    async setStatus(actor: PrinterActor, id: string, to: 'active' | 'paused' | 'retired'): Promise<Printer> {
      const row = await changeable(id);
      if (row.status === to) return dto(row);
      const updated = await repository.setStatus(id, to);
      if (!updated) return refusedMeanwhile(id);
      const action =
        to === 'retired' ? 'printer.retire' : to === 'paused' ? 'printer.pause' : 'printer.resume';
      await record(actor, action, updated, { from: row.status });
      return dto(updated);
    },

    /** A person looked at a flagged printer: it takes jobs again (nothing to do when it was not flagged). */
    async clearAttention(actor: PrinterActor, id: string): Promise<Printer> {
      const row = await changeable(id);
      if (row.attention === null) return dto(row);
      if (await repository.clearAttention(id)) await record(actor, 'printer.clear-attention', row, { attention: row.attention });
      return dto(await existing(id));
    },

    async setSpools(actor: PrinterActor, id: string, spools: readonly PrinterSpool[]): Promise<Printer> {
      await changeable(id);
      const updated = await repository.setSpools(id, spools);
      if (!updated) return refusedMeanwhile(id);
      await record(actor, 'printer.spools', updated, { spools: spools.length });
      return dto(updated);
    },

    /**
     * Trust the printer's certificate again (a Bambu Lab printer that was replaced or reset shows a
     * new one, which the pin refuses): the pin is cleared, the next contact pins what it sees, and
     * a flag the refusal raised is cleared with it.
     */
    async trustCertificate(actor: PrinterActor, id: string): Promise<Printer> {
      const row = await changeable(id);
      const updated = await repository.forgetCertificate(id);
      if (!updated) return refusedMeanwhile(id);
      await record(actor, 'printer.trust-certificate', updated, { previous: row.certificateSha256 });
      return dto(updated);
    },

    /**
     * "Test connection": the driver's probe, then (when it answers) its status, which is kept as the
     * printer's last known state. A failure is an answer (200 with ok: false), not an error status.
     */
    async test(id: string): Promise<PrinterTestResult> {
      const row = await existing(id);
      const driver = drivers(row.id, repository.connection(row));
      const probe = await driver.probe();
      if (!probe.ok) {
        await repository.recordState(row.id, { error: probe.failure.message });
        return { ok: false, failure: probe.failure };
      }
      const status = await driver.status();
      if (status.ok) await repository.recordState(row.id, { status: status.value });
      return { ok: true, identity: probe.value, status: status.ok ? status.value : null };
    },
  };
}

function connectionChangedSecret(before: PrinterConnection, after: PrinterConnection): boolean {
  const secret = (c: PrinterConnection) =>
    c.kind === 'octoprint' || c.kind === 'moonraker'
      ? (c.apiKey ?? null)
      : c.kind === 'prusalink'
        ? c.auth.kind === 'digest'
          ? `${c.auth.username}:${c.auth.password}`
          : c.auth.apiKey
        : c.kind === 'bambulab'
          ? c.accessCode
          : null;
  return secret(before) !== secret(after);
}

/**
 * The designs module's BuildVolumes answered from the farm: the build volumes of the active
 * printers (a model is accepted when it fits one of them, turned as build-volume.ts allows), or the
 * configured maximum (MAX_BUILD_VOLUME_MM) while no printer is active.
 */
export function printerBuildVolumes(
  repository: Pick<PrinterRepository, 'volumes'>,
  configured: BuildVolume,
): BuildVolumes {
  return {
    async list() {
      const volumes = await repository.volumes();
      if (volumes.length === 0) return [configured];
      const unique = new Map(volumes.map((v) => [v.join('x'), v as BuildVolume]));
      return [...unique.values()];
    },
  };
}

export type PrinterService = ReturnType<typeof createPrinterService>;

/** The id route parameter. */
export const printerIdParams = z.object({ id: z.uuid('Not a valid printer id') }).strict();
