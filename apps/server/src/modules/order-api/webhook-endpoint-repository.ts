import { eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { webhookEndpoint } from '../../db/schema.ts';

export interface WebhookEndpointRow {
  readonly id: string;
  readonly ownerId: string;
  readonly url: string;
  /** Sealed with the secret box (table webhook_endpoint, this row, its owner, 'signing_secret'). */
  readonly secretEnc: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

const columns = {
  id: webhookEndpoint.id,
  ownerId: webhookEndpoint.ownerId,
  url: webhookEndpoint.url,
  secretEnc: webhookEndpoint.secretEnc,
  createdAt: webhookEndpoint.createdAt,
  updatedAt: webhookEndpoint.updatedAt,
};

/** A seller's one webhook endpoint (owner is unique). */
export function createWebhookEndpointRepository(db: Database) {
  return {
    async findForOwner(ownerId: string): Promise<WebhookEndpointRow | undefined> {
      const [row] = await db.select(columns).from(webhookEndpoint).where(eq(webhookEndpoint.ownerId, ownerId));
      return row;
    },

    /** The endpoints of these sellers (one query for a batch of deliveries). */
    async findForOwners(ownerIds: readonly string[]): Promise<WebhookEndpointRow[]> {
      if (ownerIds.length === 0) return [];
      return db.select(columns).from(webhookEndpoint).where(inArray(webhookEndpoint.ownerId, [...ownerIds]));
    },

    /** Which of these sellers have an endpoint (one query for a batch of order changes). */
    async ownersWithEndpoint(ownerIds: readonly string[]): Promise<Set<string>> {
      if (ownerIds.length === 0) return new Set();
      const rows = await db.select({ ownerId: webhookEndpoint.ownerId }).from(webhookEndpoint).where(inArray(webhookEndpoint.ownerId, [...ownerIds]));
      return new Set(rows.map((row) => row.ownerId));
    },

    /**
     * Inserts the endpoint unless the owner has one already (a concurrent request may have won);
     * returns the inserted row, or undefined when one existed.
     */
    async insertIfAbsent(row: { id: string; ownerId: string; url: string; secretEnc: string }): Promise<WebhookEndpointRow | undefined> {
      const [inserted] = await db.insert(webhookEndpoint).values(row).onConflictDoNothing({ target: webhookEndpoint.ownerId }).returning(columns);
      return inserted;
    },

    async update(ownerId: string, changes: { url?: string; secretEnc?: string }): Promise<WebhookEndpointRow | undefined> {
      const [row] = await db
        .update(webhookEndpoint)
        .set({ ...changes, updatedAt: new Date() })
        .where(eq(webhookEndpoint.ownerId, ownerId))
        .returning(columns);
      return row;
    },

    async delete(ownerId: string): Promise<boolean> {
      const rows = await db.delete(webhookEndpoint).where(eq(webhookEndpoint.ownerId, ownerId)).returning({ id: webhookEndpoint.id });
      return rows.length > 0;
    },
  };
}

export type WebhookEndpointRepository = ReturnType<typeof createWebhookEndpointRepository>;
