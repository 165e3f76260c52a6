import { and, eq, ne } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { session } from '../../db/schema.ts';

/**
 * The few session writes better-auth cannot do once tokens are stored hashed: ending a user's
 * sessions by id (never by token, which the server no longer knows for other sessions).
 */
export function createSessionRepository(db: Database) {
  return {
    /** Ends one of the user's sessions; false when the user has no session with that id. */
    async deleteOwn(userId: string, sessionId: string): Promise<boolean> {
      const deleted = await db
        .delete(session)
        .where(and(eq(session.userId, userId), eq(session.id, sessionId)))
        .returning({ id: session.id });
      return deleted.length > 0;
    },

    /** Ends every session of the user except the one given (revoke-other-sessions). */
    async deleteOthers(userId: string, keepSessionId: string): Promise<number> {
      const deleted = await db
        .delete(session)
        .where(and(eq(session.userId, userId), ne(session.id, keepSessionId)))
        .returning({ id: session.id });
      return deleted.length;
    },

    /** Ends every session of the user (used after seeding demo accounts: nobody holds those). */
    async deleteAllOf(userId: string): Promise<void> {
      await db.delete(session).where(eq(session.userId, userId));
    },
  };
}

export type SessionRepository = ReturnType<typeof createSessionRepository>;
