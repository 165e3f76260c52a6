import { and, desc } from 'drizzle-orm';
import type { ContactMessageInput, ContactMessageRecord } from '@layerline/contracts';
import type { Database } from '../../db/client.ts';
import { contactMessage } from '../../db/schema.ts';
import { pageFrom } from '../../platform/keyset-cursor.ts';
import { beforeTimeId, decodeTimeIdCursor, microsOf, timeIdKey } from '../../platform/time-id-keyset.ts';

export function createContactRepository(db: Database) {
  return {
    async insert(input: ContactMessageInput, userId: string | null): Promise<string> {
      const [row] = await db
        .insert(contactMessage)
        .values({ ...input, userId })
        .returning({ id: contactMessage.id });
      if (!row) throw new Error('insert returned no row');
      return row.id;
    },

    /** Newest first, keyset-paged on (created_at, id) (contact_message_created_id_idx). */
    async list(options: { cursor?: string | undefined; limit: number }): Promise<{ items: ContactMessageRecord[]; nextCursor: string | null }> {
      const after = decodeTimeIdCursor(options.cursor, 'uuid');
      const rows = await db
        .select({
          id: contactMessage.id,
          userId: contactMessage.userId,
          name: contactMessage.name,
          email: contactMessage.email,
          subject: contactMessage.subject,
          message: contactMessage.message,
          createdAt: contactMessage.createdAt,
          micros: microsOf(contactMessage.createdAt),
        })
        .from(contactMessage)
        .where(and(after ? beforeTimeId(contactMessage.createdAt, contactMessage.id, after) : undefined))
        .orderBy(desc(contactMessage.createdAt), desc(contactMessage.id))
        .limit(options.limit + 1);
      return pageFrom(rows, options.limit, (row) => timeIdKey(row.micros, row.id), ({ micros: _micros, ...row }) => ({
        ...row,
        createdAt: row.createdAt.toISOString(),
      }));
    },
  };
}

export type ContactRepository = ReturnType<typeof createContactRepository>;
