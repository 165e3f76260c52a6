import { desc, eq } from 'drizzle-orm';
import type { AuditEntry } from '@layerline/contracts';
import type { Database } from '../../db/client.ts';
import { auditLog, user } from '../../db/schema.ts';

export interface AuditRecord {
  readonly actorId: string | null;
  readonly targetUserId: string | null;
  readonly action: string;
  readonly detail?: Record<string, unknown>;
  readonly requestId?: string;
}

/** The audit trail: who did what to whom. Written only by the server, never from client input. */
export function createAuditRepository(db: Database) {
  return {
    async record(entry: AuditRecord): Promise<void> {
      await db.insert(auditLog).values({
        actorId: entry.actorId,
        targetUserId: entry.targetUserId,
        action: entry.action,
        detail: entry.detail ?? {},
        requestId: entry.requestId ?? null,
      });
    },

    async list(limit: number): Promise<AuditEntry[]> {
      const rows = await db
        .select({
          id: auditLog.id,
          actorId: auditLog.actorId,
          actorEmail: user.email,
          targetUserId: auditLog.targetUserId,
          action: auditLog.action,
          detail: auditLog.detail,
          createdAt: auditLog.createdAt,
        })
        .from(auditLog)
        .leftJoin(user, eq(user.id, auditLog.actorId))
        .orderBy(desc(auditLog.createdAt))
        .limit(limit);
      return rows.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() }));
    },
  };
}

export type AuditRepository = ReturnType<typeof createAuditRepository>;
