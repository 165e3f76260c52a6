import { and, desc, eq, ilike, inArray, lt, sql } from 'drizzle-orm';
import type { EmailMessage, EmailMessageSummary, EmailStatus } from '@layerline/contracts';
import type { Database } from '../../db/client.ts';
import { emailMessage, notificationPreference, user } from '../../db/schema.ts';
import { pageFrom } from '../../platform/keyset-cursor.ts';
import { beforeTimeId, decodeTimeIdCursor, microsOf, timeIdKey } from '../../platform/time-id-keyset.ts';

export interface Recipient {
  readonly userId: string;
  readonly email: string;
  readonly name: string;
  readonly disabled: readonly string[];
}

export interface NewEmailMessage {
  readonly userId: string | null;
  readonly toAddress: string;
  readonly templateType: string;
  readonly subject: string;
  readonly html: string;
  readonly text: string;
  readonly unsubscribeUrl: string | null;
  readonly status: 'queued' | 'outbox';
  readonly dedupeKey: string | null;
  readonly createdBy: string | null;
}

export interface SendableMessage {
  readonly id: string;
  readonly toAddress: string;
  readonly subject: string;
  readonly html: string;
  readonly text: string;
  readonly unsubscribeUrl: string | null;
  readonly status: string;
  readonly attempts: number;
}

/** One seller's week, for the weekly summary. */
export interface WeeklyActivity {
  readonly userId: string;
  readonly ordersReceived: number;
  readonly ordersShipped: number;
  /** Charged (succeeded or later refunded) minus refunded, per currency. */
  readonly chargedCents: Readonly<Record<string, number>>;
}

const summaryColumns = {
  id: emailMessage.id,
  userId: emailMessage.userId,
  toAddress: emailMessage.toAddress,
  templateType: emailMessage.templateType,
  subject: emailMessage.subject,
  status: emailMessage.status,
  attempts: emailMessage.attempts,
  lastError: emailMessage.lastError,
  createdBy: emailMessage.createdBy,
  createdAt: emailMessage.createdAt,
  sentAt: emailMessage.sentAt,
};

interface SummaryRow {
  id: string;
  userId: string | null;
  toAddress: string;
  templateType: string;
  subject: string;
  status: string;
  attempts: number;
  lastError: string | null;
  createdBy: string | null;
  createdAt: Date;
  sentAt: Date | null;
}

function summaryDto(row: SummaryRow): EmailMessageSummary {
  return {
    id: row.id,
    userId: row.userId,
    toAddress: row.toAddress,
    templateType: row.templateType,
    subject: row.subject,
    status: row.status as EmailStatus,
    attempts: row.attempts,
    lastError: row.lastError,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    sentAt: row.sentAt?.toISOString() ?? null,
  };
}

/** Email messages (the outbox and the sent mail) and sellers' email preferences. */
export function createNotificationRepository(db: Database) {
  const recipientColumns = { userId: user.id, email: user.email, name: user.name, disabled: notificationPreference.disabled };
  const toRecipient = (row: { userId: string; email: string; name: string; disabled: string[] | null }): Recipient => ({ ...row, disabled: row.disabled ?? [] });

  return {
    async recipient(userId: string): Promise<Recipient | undefined> {
      const [row] = await db.select(recipientColumns).from(user).leftJoin(notificationPreference, eq(notificationPreference.userId, user.id)).where(eq(user.id, userId));
      return row && toRecipient(row);
    },

    async recipientByEmail(email: string): Promise<Recipient | undefined> {
      const [row] = await db.select(recipientColumns).from(user).leftJoin(notificationPreference, eq(notificationPreference.userId, user.id)).where(eq(user.email, email.toLowerCase()));
      return row && toRecipient(row);
    },

    /** The keys of these that a message was already made for. */
    async existingDedupeKeys(keys: readonly string[]): Promise<Set<string>> {
      if (keys.length === 0) return new Set();
      const rows = await db.select({ key: emailMessage.dedupeKey }).from(emailMessage).where(inArray(emailMessage.dedupeKey, [...keys]));
      return new Set(rows.flatMap((row) => (row.key ? [row.key] : [])));
    },

    /** Stores a message; null when one with the same dedupe key is there already (the same event, told twice). */
    async insert(message: NewEmailMessage): Promise<string | null> {
      const [row] = await db.insert(emailMessage).values(message).onConflictDoNothing({ target: emailMessage.dedupeKey }).returning({ id: emailMessage.id });
      return row?.id ?? null;
    },

    async sendable(id: string): Promise<SendableMessage | undefined> {
      const [row] = await db
        .select({
          id: emailMessage.id,
          toAddress: emailMessage.toAddress,
          subject: emailMessage.subject,
          html: emailMessage.html,
          text: emailMessage.text,
          unsubscribeUrl: emailMessage.unsubscribeUrl,
          status: emailMessage.status,
          attempts: emailMessage.attempts,
        })
        .from(emailMessage)
        .where(eq(emailMessage.id, id));
      return row;
    },

    async markSent(id: string): Promise<void> {
      await db
        .update(emailMessage)
        .set({ status: 'sent', attempts: sql`${emailMessage.attempts} + 1`, lastError: null, sentAt: new Date() })
        .where(and(eq(emailMessage.id, id), eq(emailMessage.status, 'queued')));
    },

    /** Counts a failed attempt; `final` marks the message failed. Answers the attempts made so far. */
    async markAttemptFailed(id: string, error: string, final: boolean): Promise<number> {
      const [row] = await db
        .update(emailMessage)
        .set({ status: final ? 'failed' : 'queued', attempts: sql`${emailMessage.attempts} + 1`, lastError: error.slice(0, 1000) })
        .where(and(eq(emailMessage.id, id), eq(emailMessage.status, 'queued')))
        .returning({ attempts: emailMessage.attempts });
      return row?.attempts ?? 0;
    },

    /** Messages waiting to be sent since before `olderThan` (their job may have been lost), oldest first. */
    async queuedBefore(olderThan: Date, limit: number): Promise<{ id: string; attempts: number }[]> {
      return db
        .select({ id: emailMessage.id, attempts: emailMessage.attempts })
        .from(emailMessage)
        .where(and(eq(emailMessage.status, 'queued'), lt(emailMessage.createdAt, olderThan)))
        .orderBy(emailMessage.createdAt)
        .limit(limit);
    },

    /** Every message, newest first, keyset-paged on (created_at, id) (email_message_created_idx). */
    async page(options: { cursor?: string | undefined; limit: number; status?: EmailStatus | undefined; search?: string | undefined }) {
      const after = decodeTimeIdCursor(options.cursor, 'uuid');
      const rows = await db
        .select({ ...summaryColumns, micros: microsOf(emailMessage.createdAt) })
        .from(emailMessage)
        .where(
          and(
            after ? beforeTimeId(emailMessage.createdAt, emailMessage.id, after) : undefined,
            options.status ? eq(emailMessage.status, options.status) : undefined,
            options.search ? ilike(emailMessage.toAddress, `%${options.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) : undefined,
          ),
        )
        .orderBy(desc(emailMessage.createdAt), desc(emailMessage.id))
        .limit(options.limit + 1);
      return pageFrom(rows, options.limit, (row) => timeIdKey(row.micros, row.id), ({ micros: _micros, ...row }) => summaryDto(row));
    },

    async detail(id: string): Promise<EmailMessage | undefined> {
      const [row] = await db
        .select({ ...summaryColumns, html: emailMessage.html, text: emailMessage.text, unsubscribeUrl: emailMessage.unsubscribeUrl })
        .from(emailMessage)
        .where(eq(emailMessage.id, id));
      if (!row) return undefined;
      const { html, text, unsubscribeUrl, ...summary } = row;
      return { ...summaryDto(summary), html, text, unsubscribeUrl };
    },

    async disabled(userId: string): Promise<string[]> {
      const [row] = await db.select({ disabled: notificationPreference.disabled }).from(notificationPreference).where(eq(notificationPreference.userId, userId));
      return row?.disabled ?? [];
    },

    async setDisabled(userId: string, disabled: readonly string[]): Promise<void> {
      await db
        .insert(notificationPreference)
        .values({ userId, disabled: [...disabled] })
        .onConflictDoUpdate({ target: notificationPreference.userId, set: { disabled: [...disabled], updatedAt: new Date() } });
    },

    /** Turns one kind off, in one statement (two unsubscribes at once both count). */
    async disable(userId: string, templateType: string): Promise<void> {
      const one = sql`jsonb_build_array(${templateType}::text)`;
      await db
        .insert(notificationPreference)
        .values({ userId, disabled: [templateType] })
        .onConflictDoUpdate({
          target: notificationPreference.userId,
          set: {
            disabled: sql`CASE WHEN ${notificationPreference.disabled} @> ${one} THEN ${notificationPreference.disabled} ELSE ${notificationPreference.disabled} || ${one} END`,
            updatedAt: new Date(),
          },
        });
    },

    /**
     * Each seller's week [from, to): orders received (created), orders shipped (status changes to
     * shipped) and charges made (net of refunds). Sellers with none of these are left out.
     */
    async weeklyActivity(from: Date, to: Date): Promise<WeeklyActivity[]> {
      const result = await db.execute(sql`
        SELECT owner_id, sum(received)::int AS received, sum(shipped)::int AS shipped, currency, sum(charged)::bigint AS charged
        FROM (
          SELECT o.owner_id, 1 AS received, 0 AS shipped, NULL::text AS currency, 0 AS charged
            FROM "order" o WHERE o.created_at >= ${from} AND o.created_at < ${to}
          UNION ALL
          SELECT o.owner_id, 0, 1, NULL, 0
            FROM order_event e JOIN "order" o ON o.id = e.order_id
            -- A step that changes no status (a claim on a shipped order, docs/claims.md) is no shipment.
            WHERE e.to_status = 'shipped' AND e.from_status IS DISTINCT FROM e.to_status AND e.created_at >= ${from} AND e.created_at < ${to}
          UNION ALL
          SELECT c.owner_id, 0, 0, c.currency, c.amount_cents - c.refunded_cents
            FROM charge c WHERE c.status IN ('succeeded', 'refunded') AND c.created_at >= ${from} AND c.created_at < ${to}
        ) activity
        GROUP BY owner_id, currency`);
      const byUser = new Map<string, { userId: string; ordersReceived: number; ordersShipped: number; chargedCents: Record<string, number> }>();
      for (const row of (result as unknown as { rows: { owner_id: string; received: number; shipped: number; currency: string | null; charged: string | number }[] }).rows) {
        const entry = byUser.get(row.owner_id) ?? { userId: row.owner_id, ordersReceived: 0, ordersShipped: 0, chargedCents: {} };
        entry.ordersReceived += Number(row.received);
        entry.ordersShipped += Number(row.shipped);
        if (row.currency) entry.chargedCents[row.currency] = (entry.chargedCents[row.currency] ?? 0) + Number(row.charged);
        byUser.set(row.owner_id, entry);
      }
      return [...byUser.values()];
    },
  };
}

export type NotificationRepository = ReturnType<typeof createNotificationRepository>;
