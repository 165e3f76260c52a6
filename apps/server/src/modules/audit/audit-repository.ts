import { and, desc, eq } from 'drizzle-orm';
import type { AuditEntry } from '@layerline/contracts';
import type { Database } from '../../db/client.ts';
import { auditLog, user } from '../../db/schema.ts';
import { pageFrom } from '../../platform/keyset-cursor.ts';
import { beforeTimeId, decodeTimeIdCursor, microsOf, timeIdKey } from '../../platform/time-id-keyset.ts';

export interface AuditRecord {
  readonly actorId: string | null;
  readonly targetUserId: string | null;
  readonly action: string;
  readonly detail?: Record<string, unknown>;
  readonly requestId?: string;
}

/** The audit trail: who did what to whom. Written only by the server, never from client input. */
export function createAuditRepository(db: Database) {
  /** Newest first, keyset-paged on (created_at, id) (audit_log_created_id_idx). */
  async function page(options: { cursor?: string | undefined; limit: number }): Promise<{ items: AuditEntry[]; nextCursor: string | null }> {
    const after = decodeTimeIdCursor(options.cursor, 'uuid');
    const rows = await db
      .select({
        id: auditLog.id,
        actorId: auditLog.actorId,
        actorEmail: user.email,
        targetUserId: auditLog.targetUserId,
        action: auditLog.action,
        detail: auditLog.detail,
        createdAt: auditLog.createdAt,
        micros: microsOf(auditLog.createdAt),
      })
      .from(auditLog)
      .leftJoin(user, eq(user.id, auditLog.actorId))
      .where(and(after ? beforeTimeId(auditLog.createdAt, auditLog.id, after) : undefined))
      .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
      .limit(options.limit + 1);
    return pageFrom(rows, options.limit, (row) => timeIdKey(row.micros, row.id), ({ micros: _micros, ...row }) => ({
      ...row,
      createdAt: row.createdAt.toISOString(),
    }));
  }

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
      return (await page({ limit })).items;
    },

    page,
  };
}

export type AuditRepository = ReturnType<typeof createAuditRepository>;
