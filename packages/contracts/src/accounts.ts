import { z } from 'zod';
import { pageQueryFields, pageSchema } from './paging.ts';

export const ROLES = ['seller', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export const addressSchema = z
  .object({
    name: z.string().trim().max(120).default(''),
    company: z.string().trim().max(120).default(''),
    line1: z.string().trim().max(200).default(''),
    line2: z.string().trim().max(200).default(''),
    city: z.string().trim().max(120).default(''),
    region: z.string().trim().max(120).default(''),
    postalCode: z.string().trim().max(32).default(''),
    country: z
      .string()
      .trim()
      .regex(/^([A-Z]{2})?$/, 'Country must be a two-letter ISO code')
      .default(''),
    phone: z.string().trim().max(40).default(''),
  })
  .strict();
export type Address = z.infer<typeof addressSchema>;

/** What the web app knows about the signed-in user (the spec's auth state, §3). */
export const meSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  businessName: z.string(),
  role: z.enum(ROLES),
  isAdmin: z.boolean(),
  isBetaTester: z.boolean(),
  isInternal: z.boolean(),
  affiliateRef: z.string().nullable(),
  returnAddress: addressSchema,
  createdAt: z.string(),
});
export type Me = z.infer<typeof meSchema>;

export const updateAccountSchema = z
  .object({
    name: z.string().trim().min(1, 'Name is required').max(120),
    businessName: z.string().trim().max(120),
    returnAddress: addressSchema,
  })
  .partial()
  .strict();
export type UpdateAccountInput = z.infer<typeof updateAccountSchema>;

/** The spec's checkUser call: answers whether the caller is an admin. */
export const checkUserResponseSchema = z.object({ isAdmin: z.boolean() });

export const adminUserSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  businessName: z.string(),
  role: z.enum(ROLES),
  isBetaTester: z.boolean(),
  isInternal: z.boolean(),
  createdAt: z.string(),
  /**
   * While sign-ins with a password from new browsers are paused for this account (too many failures
   * in the last hour), when the pause ends; null otherwise. An admin can end it (unlock-sign-in).
   */
  signInThrottledUntil: z.string().nullable(),
});
export type AdminUser = z.infer<typeof adminUserSchema>;

/** POST /api/admin/users/:id/unlock-sign-in: the user, and how many failed sign-ins were forgotten. */
export const unlockSignInResultSchema = z.object({ user: adminUserSchema, failuresCleared: z.number().int() });
export type UnlockSignInResult = z.infer<typeof unlockSignInResultSchema>;

/** GET /api/admin/users: newest accounts first, keyset-paged (no total: counting every account is a scan). */
export const adminUserListQuerySchema = z
  .object({ search: z.string().trim().max(200).default(''), ...pageQueryFields(20) })
  .strict();
export type AdminUserListQuery = z.infer<typeof adminUserListQuerySchema>;

export const adminUserListSchema = pageSchema(adminUserSchema);
export type AdminUserList = z.infer<typeof adminUserListSchema>;

export const adminUserFlagsSchema = z
  .object({
    isBetaTester: z.boolean(),
    isInternal: z.boolean(),
    isAdmin: z.boolean(),
  })
  .partial()
  .strict();
export type AdminUserFlags = z.infer<typeof adminUserFlagsSchema>;

export const auditEntrySchema = z.object({
  id: z.string(),
  actorId: z.string().nullable(),
  actorEmail: z.string().nullable(),
  targetUserId: z.string().nullable(),
  action: z.string(),
  detail: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

export const changeEmailSchema = z
  .object({
    newEmail: z.email('Please enter a valid email address').max(254),
    currentPassword: z.string().min(1, 'Enter your current password to confirm'),
  })
  .strict();
export type ChangeEmailInput = z.infer<typeof changeEmailSchema>;

/** The dashboard's overview of what exists for this seller (later capabilities fill in their counts). */
export const dashboardOverviewSchema = z.object({
  designs: z.number().int(),
  products: z.number().int(),
  openOrders: z.number().int(),
  connectedShops: z.number().int(),
  accountComplete: z.boolean(),
  checklist: z.array(
    z.object({ id: z.string(), label: z.string(), done: z.boolean(), href: z.string(), available: z.boolean() }),
  ),
});
export type DashboardOverview = z.infer<typeof dashboardOverviewSchema>;
