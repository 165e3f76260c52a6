import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';

/**
 * Turn tags for fair exact slicing (docs/jobs.md, "Fair slicing"): the queue runs the lowest tag
 * first (a request's tag is its pg-boss priority, negated), and
 *
 *   tag = max(clock + 1, the seller's previous tag + 2)
 *
 * where the clock is the tag of the request most recently started. A seller with a backlog gets
 * every other number (previous + 2); a seller with nothing waiting gets clock + 1, below the next
 * request of the running request's seller (clock + 2 or more). So with two sellers it runs right
 * after the run in progress; with more, at most one request of each other seller whose tag ties
 * (ties go in arrival order) comes first. Two sellers with backlogs alternate; a seller sending one request
 * after another while others wait takes every other run, never all of them. (With steps of 1, a
 * seller served in the same round as the running request tied with the backlog's next one and
 * waited behind it: measured, the bench's second cube came after the first seller's second slice.)
 * Both numbers live in `slicing_turn` (the clock is the row with owner '') and change in single
 * statements, so several processes share one order.
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
        VALUES (${ownerId}, COALESCE((SELECT c.last_tag FROM slicing_turn c WHERE c.owner_key = ${CLOCK}), 0) + 1)
        ON CONFLICT (owner_key) DO UPDATE
          SET last_tag = GREATEST(t.last_tag + 2, COALESCE((SELECT c.last_tag FROM slicing_turn c WHERE c.owner_key = ${CLOCK}), 0) + 1)
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
