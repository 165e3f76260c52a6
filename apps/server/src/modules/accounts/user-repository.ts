import { and, count, desc, eq, ilike, inArray, or, sql } from 'drizzle-orm';
import type { AdminUser, AdminUserFlags, Address, Me, Page, Role } from '@layerline/contracts';
import type { Database } from '../../db/client.ts';
import { account, user } from '../../db/schema.ts';
import { pageFrom } from '../../platform/keyset-cursor.ts';
import { beforeTimeId, decodeTimeIdCursor, microsOf, timeIdKey } from '../../platform/time-id-keyset.ts';

const EMPTY_ADDRESS: Address = {
  name: '',
  company: '',
  line1: '',
  line2: '',
  city: '',
  region: '',
  postalCode: '',
  country: '',
  phone: '',
};

const userColumns = {
  id: user.id,
  email: user.email,
  name: user.name,
  businessName: user.businessName,
  role: user.role,
  isBetaTester: user.isBetaTester,
  isInternal: user.isInternal,
  affiliateRef: user.affiliateRef,
  returnAddress: user.returnAddress,
  createdAt: user.createdAt,
};
interface UserRow {
  id: string;
  email: string;
  name: string;
  businessName: string;
  role: string;
  isBetaTester: boolean;
  isInternal: boolean;
  affiliateRef: string | null;
  returnAddress: Address | null;
  createdAt: Date;
}

const asRole = (role: string): Role => (role === 'admin' ? 'admin' : 'seller');

function toMe(row: UserRow): Me {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    businessName: row.businessName,
    role: asRole(row.role),
    isAdmin: row.role === 'admin',
    isBetaTester: row.isBetaTester,
    isInternal: row.isInternal,
    affiliateRef: row.affiliateRef,
    returnAddress: { ...EMPTY_ADDRESS, ...row.returnAddress },
    createdAt: row.createdAt.toISOString(),
  };
}

/** An admin's view of a user, without the sign-in throttle (which the account service adds). */
export type AdminUserFields = Omit<AdminUser, 'signInThrottledUntil'>;

function toAdminUser(row: UserRow): AdminUserFields {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    businessName: row.businessName,
    role: asRole(row.role),
    isBetaTester: row.isBetaTester,
    isInternal: row.isInternal,
    createdAt: row.createdAt.toISOString(),
  };
}

export function createUserRepository(db: Database) {
  async function findRow(id: string): Promise<UserRow | undefined> {
    const [row] = await db.select(userColumns).from(user).where(eq(user.id, id));
    return row;
  }

  return {
    async findMe(id: string): Promise<Me | undefined> {
      const row = await findRow(id);
      return row && toMe(row);
    },

    async findAdminUser(id: string): Promise<AdminUserFields | undefined> {
      const row = await findRow(id);
      return row && toAdminUser(row);
    },

    async emailTaken(email: string, exceptUserId: string): Promise<boolean> {
      const [row] = await db
        .select({ id: user.id })
        .from(user)
        .where(and(eq(user.email, email.toLowerCase()), sql`${user.id} <> ${exceptUserId}`));
      return row !== undefined;
    },

    async updateProfile(
      id: string,
      changes: { name?: string; businessName?: string; returnAddress?: Address; email?: string },
    ): Promise<void> {
      await db
        .update(user)
        .set({ ...changes, updatedAt: new Date() })
        .where(eq(user.id, id));
    },

    /** Newest accounts first, keyset-paged on (created_at, id) (index user_created_id_idx). */
    async list(options: { search: string; cursor?: string | undefined; limit: number }): Promise<Page<AdminUserFields>> {
      const after = decodeTimeIdCursor(options.cursor, 'text');
      const pattern = `%${options.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const rows = await db
        .select({ ...userColumns, micros: microsOf(user.createdAt) })
        .from(user)
        .where(
          and(
            options.search
              ? or(ilike(user.email, pattern), ilike(user.name, pattern), ilike(user.businessName, pattern))
              : undefined,
            after ? beforeTimeId(user.createdAt, user.id, after) : undefined,
          ),
        )
        .orderBy(desc(user.createdAt), desc(user.id))
        .limit(options.limit + 1);
      return pageFrom(rows, options.limit, (row) => timeIdKey(row.micros, row.id), toAdminUser);
    },

    async setFlags(id: string, flags: AdminUserFlags): Promise<void> {
      const { isAdmin, ...rest } = flags;
      await db
        .update(user)
        .set({ ...rest, ...(isAdmin === undefined ? {} : { role: isAdmin ? 'admin' : 'seller' }), updatedAt: new Date() })
        .where(eq(user.id, id));
    },

    async countAdmins(): Promise<number> {
      const [row] = await db.select({ n: count() }).from(user).where(eq(user.role, 'admin'));
      return row?.n ?? 0;
    },

    /** Grants admin to the configured emails; returns the ids it changed. */
    async promoteToAdmin(emails: readonly string[]): Promise<string[]> {
      if (emails.length === 0) return [];
      const rows = await db
        .update(user)
        .set({ role: 'admin', updatedAt: new Date() })
        .where(and(inArray(user.email, [...emails]), sql`${user.role} <> 'admin'`))
        .returning({ id: user.id });
      return rows.map((row) => row.id);
    },

    async passwordHash(userId: string): Promise<string | undefined> {
      const [row] = await db
        .select({ password: account.password })
        .from(account)
        .where(and(eq(account.userId, userId), eq(account.providerId, 'credential')));
      return row?.password ?? undefined;
    },

    async findIdByEmail(email: string): Promise<string | undefined> {
      const [row] = await db.select({ id: user.id }).from(user).where(eq(user.email, email.toLowerCase()));
      return row?.id;
    },
  };
}

export type UserRepository = ReturnType<typeof createUserRepository>;
