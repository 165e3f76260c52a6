import type { AdminUser, AdminUserFlags, AdminUserList, AdminUserListQuery, ChangeEmailInput, Me, UnlockSignInResult, UpdateAccountInput } from '@layerline/contracts';
import { AppError, notFound } from '../../errors.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import type { LoginThrottle } from './login-throttle.ts';
import type { AdminUserFields, UserRepository } from './user-repository.ts';

export interface AccountServiceDeps {
  readonly users: UserRepository;
  readonly audit: AuditRepository;
  /** Checks a user's current password (re-authentication before sensitive changes). */
  readonly verifyCurrentPassword: (userId: string, password: string) => Promise<boolean>;
  /** The per-account sign-in throttle: shown to admins, who can end an episode. */
  readonly signInThrottle: Pick<LoginThrottle, 'throttledUntil' | 'unlock'>;
}

export interface ActorContext {
  readonly actorId: string;
  readonly requestId: string;
}

export function createAccountService({ users, audit, verifyCurrentPassword, signInThrottle }: AccountServiceDeps) {
  async function withThrottle(found: readonly AdminUserFields[]): Promise<AdminUser[]> {
    const until = await signInThrottle.throttledUntil(found.map((u) => u.email));
    return found.map((u) => ({ ...u, signInThrottledUntil: until.get(u.email.toLowerCase())?.toISOString() ?? null }));
  }

  async function adminUser(id: string): Promise<AdminUser> {
    const found = await users.findAdminUser(id);
    if (!found) throw notFound('User');
    return (await withThrottle([found]))[0]!;
  }

  async function me(userId: string): Promise<Me> {
    const found = await users.findMe(userId);
    if (!found) throw notFound('User');
    return found;
  }

  return {
    me,

    async updateAccount(userId: string, input: UpdateAccountInput): Promise<Me> {
      await users.updateProfile(userId, input);
      return me(userId);
    },

    async changeEmail(userId: string, input: ChangeEmailInput, context: ActorContext): Promise<Me> {
      if (!(await verifyCurrentPassword(userId, input.currentPassword))) {
        throw new AppError('forbidden', 'Your current password is not correct');
      }
      const email = input.newEmail.toLowerCase();
      if (await users.emailTaken(email, userId)) {
        throw new AppError('conflict', 'That email address is already used by another account');
      }
      const before = await me(userId);
      await users.updateProfile(userId, { email });
      await audit.record({
        actorId: context.actorId,
        targetUserId: userId,
        action: 'account.email-changed',
        detail: { from: before.email, to: email },
        requestId: context.requestId,
      });
      return me(userId);
    },

    async listUsers(query: AdminUserListQuery): Promise<AdminUserList> {
      const page = await users.list(query);
      return { ...page, items: await withThrottle(page.items) };
    },

    /**
     * Ends a sign-in throttling episode for an account (its owner asked an admin, e.g. on an install
     * without SMTP_URL where no sign-in link can be mailed). Audited with how many failures it forgot.
     */
    async unlockSignIn(targetId: string, context: ActorContext): Promise<UnlockSignInResult> {
      const target = await adminUser(targetId);
      const failuresCleared = await signInThrottle.unlock(target.email);
      await audit.record({
        actorId: context.actorId,
        targetUserId: targetId,
        action: 'user.sign-in-unlocked',
        detail: { failuresCleared, wasThrottledUntil: target.signInThrottledUntil },
        requestId: context.requestId,
      });
      return { user: await adminUser(targetId), failuresCleared };
    },

    async setUserFlags(targetId: string, flags: AdminUserFlags, context: ActorContext): Promise<AdminUser> {
      const before = await users.findAdminUser(targetId);
      if (!before) throw notFound('User');
      if (flags.isAdmin === false && before.role === 'admin' && (await users.countAdmins()) <= 1) {
        throw new AppError('conflict', 'At least one admin must remain');
      }
      await users.setFlags(targetId, flags);
      const after = await adminUser(targetId);
      await audit.record({
        actorId: context.actorId,
        targetUserId: targetId,
        action: 'user.flags-changed',
        detail: {
          before: { isAdmin: before.role === 'admin', isBetaTester: before.isBetaTester, isInternal: before.isInternal },
          after: { isAdmin: after.role === 'admin', isBetaTester: after.isBetaTester, isInternal: after.isInternal },
        },
        requestId: context.requestId,
      });
      return after;
    },

    /** Makes the configured ADMIN_EMAILS admins (at boot, and from the CLI). */
    async grantConfiguredAdmins(emails: readonly string[]): Promise<number> {
      const changed = await users.promoteToAdmin(emails);
      for (const id of changed) {
        await audit.record({ actorId: null, targetUserId: id, action: 'user.admin-granted-by-operator' });
      }
      return changed.length;
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
