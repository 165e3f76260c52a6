import { desc } from 'drizzle-orm';
import type { ContactMessageInput, ContactMessageRecord } from '@layerline/contracts';
import type { Database } from '../../db/client.ts';
import { contactMessage } from '../../db/schema.ts';

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

    async list(limit: number): Promise<ContactMessageRecord[]> {
      const rows = await db
        .select({
          id: contactMessage.id,
          userId: contactMessage.userId,
          name: contactMessage.name,
          email: contactMessage.email,
          subject: contactMessage.subject,
          message: contactMessage.message,
          createdAt: contactMessage.createdAt,
        })
        .from(contactMessage)
        .orderBy(desc(contactMessage.createdAt))
        .limit(limit);
      return rows.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() }));
    },
  };
}

export type ContactRepository = ReturnType<typeof createContactRepository>;
