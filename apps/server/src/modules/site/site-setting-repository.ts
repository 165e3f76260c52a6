import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { siteSetting } from '../../db/schema.ts';

export interface SiteSettingRow {
  readonly value: unknown;
  readonly updatedAt: Date;
}

/** The operator's public-site content, one JSON value per key. */
export function createSiteSettingRepository(db: Database) {
  return {
    async get(key: string): Promise<SiteSettingRow | undefined> {
      const [row] = await db.select({ value: siteSetting.value, updatedAt: siteSetting.updatedAt }).from(siteSetting).where(eq(siteSetting.key, key));
      return row;
    },

    async set(key: string, value: unknown, updatedBy: string): Promise<SiteSettingRow> {
      const updatedAt = new Date();
      await db
        .insert(siteSetting)
        .values({ key, value, updatedBy, updatedAt })
        .onConflictDoUpdate({ target: siteSetting.key, set: { value, updatedBy, updatedAt } });
      return { value, updatedAt };
    },

    /** true when there was a value to remove. */
    async remove(key: string): Promise<boolean> {
      const removed = await db.delete(siteSetting).where(eq(siteSetting.key, key)).returning({ key: siteSetting.key });
      return removed.length > 0;
    },
  };
}

export type SiteSettingRepository = ReturnType<typeof createSiteSettingRepository>;
