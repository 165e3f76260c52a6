import { count, desc, gte, sql } from 'drizzle-orm';
import type { PageViewInput, PageViewStats } from '@layerline/contracts';
import type { Database } from '../../db/client.ts';
import { pageView } from '../../db/schema.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

export function createPageViewRepository(db: Database) {
  return {
    async record(view: PageViewInput, userId: string | null): Promise<void> {
      await db.insert(pageView).values({ ...view, userId });
    },

    /** Views per day (every day of the window, zeros included) and the most viewed paths. */
    async stats(days: number, now = new Date()): Promise<PageViewStats> {
      const since = new Date(now.getTime() - (days - 1) * DAY_MS);
      since.setUTCHours(0, 0, 0, 0);
      const day = sql<string>`to_char(${pageView.createdAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
      const perDay = await db
        .select({ day, views: count() })
        .from(pageView)
        .where(gte(pageView.createdAt, since))
        .groupBy(day);
      const topPaths = await db
        .select({ path: pageView.path, views: count() })
        .from(pageView)
        .where(gte(pageView.createdAt, since))
        .groupBy(pageView.path)
        .orderBy(desc(count()), pageView.path)
        .limit(10);
      const byDay = new Map(perDay.map((row) => [row.day, row.views]));
      const series = Array.from({ length: days }, (_, i) => {
        const key = new Date(since.getTime() + i * DAY_MS).toISOString().slice(0, 10);
        return { day: key, views: byDay.get(key) ?? 0 };
      });
      return { days: series, topPaths, total: series.reduce((sum, d) => sum + d.views, 0) };
    },
  };
}

export type PageViewRepository = ReturnType<typeof createPageViewRepository>;
