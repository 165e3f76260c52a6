import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';

/**
 * Turn tags for fair exact slicing (start-time fair queueing; docs/jobs.md, "Fair slicing").
 *
 * A request's tag is max(clock, the seller's previous tag + 1), where the clock is the tag of the
 * request most recently started. The queue serves the lowest tag first (the tag is the job's
 * priority, negated), so a seller with nothing waiting gets the clock's tag and goes before every
 * queued request of a seller with a backlog (whose tags are above it), and two sellers with
 * backlogs alternate. Both numbers live in `slicing_turn` (the clock is the row with owner '') and
 * change in single statements, so several processes share one order.
 */
export interface SlicingTurns {
  /** The tag of a new slicing request of this seller (consumed even if the request turns out to be a duplicate). */
  next(ownerId: string): Promise<number>;
  /** A request with this tag starts: the clock moves up to it (never back, so a retried old request changes nothing). */
  started(tag: number): Promise<void>;
}

const CLOCK = '';
const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

export function createSlicingTurns(db: Database): SlicingTurns {
  return {
    async next(ownerId) {
      if (ownerId === CLOCK) throw new Error('a seller id is never empty');
      const result = await db.execute(sql`
        INSERT INTO slicing_turn AS t (owner_key, last_tag)
        VALUES (${ownerId}, COALESCE((SELECT c.last_tag FROM slicing_turn c WHERE c.owner_key = ${CLOCK}), 0))
        ON CONFLICT (owner_key) DO UPDATE
          SET last_tag = GREATEST(t.last_tag + 1, COALESCE((SELECT c.last_tag FROM slicing_turn c WHERE c.owner_key = ${CLOCK}), 0))
        RETURNING last_tag`);
      return Number(rowsOf<{ last_tag: number | string }>(result)[0]!.last_tag);
    },
    async started(tag) {
      await db.execute(sql`
        INSERT INTO slicing_turn AS t (owner_key, last_tag) VALUES (${CLOCK}, ${tag})
        ON CONFLICT (owner_key) DO UPDATE SET last_tag = GREATEST(t.last_tag, EXCLUDED.last_tag)`);
    },
  };
}
