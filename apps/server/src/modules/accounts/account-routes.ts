import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  adminUserFlagsSchema,
  adminUserListQuerySchema,
  adminUserListSchema,
  adminUserSchema,
  auditEntrySchema,
  changeEmailSchema,
  checkUserResponseSchema,
  meSchema,
  pageQueryFields,
  unlockSignInResultSchema,
  updateAccountSchema,
} from '@layerline/contracts';
import { requireAdmin, requireViewer } from '../../http/viewer.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import type { AccountService } from './account-service.ts';

export function registerAccountRoutes(app: FastifyInstance, deps: { accounts: AccountService; audit: AuditRepository }) {
  const { accounts, audit } = deps;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/api/me',
    { schema: { tags: ['accounts'], summary: 'The signed-in user', response: { 200: meSchema } } },
    async (request) => accounts.me(requireViewer(request).id),
  );

  api.patch(
    '/api/me',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Update account settings (name, business name, return address)',
        body: updateAccountSchema,
        response: { 200: meSchema },
      },
    },
    async (request) => accounts.updateAccount(requireViewer(request).id, request.body),
  );

  api.post(
    '/api/me/email',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Change the account email (needs the current password)',
        body: changeEmailSchema,
        response: { 200: meSchema },
      },
    },
    async (request) => {
      const viewer = requireViewer(request);
      return accounts.changeEmail(viewer.id, request.body, { actorId: viewer.id, requestId: request.id });
    },
  );

  api.post(
    '/api/check-user',
    {
      schema: {
        tags: ['accounts'],
        summary: "The spec's checkUser: whether the caller is an admin",
        response: { 200: checkUserResponseSchema },
      },
    },
    async (request) => ({ isAdmin: requireViewer(request).isAdmin }),
  );

  api.get(
    '/api/admin/users',
    {
      schema: {
        tags: ['admin'],
        summary: 'Search users',
        querystring: adminUserListQuerySchema,
        response: { 200: adminUserListSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      return accounts.listUsers(request.query);
    },
  );

  api.patch(
    '/api/admin/users/:id',
    {
      schema: {
        tags: ['admin'],
        summary: 'Set a user’s beta tester, internal and admin flags (audited)',
        params: z.object({ id: z.string().min(1).max(100) }),
        body: adminUserFlagsSchema,
        response: { 200: adminUserSchema },
      },
    },
    async (request) => {
      const admin = requireAdmin(request);
      return accounts.setUserFlags(request.params.id, request.body, { actorId: admin.id, requestId: request.id });
    },
  );

  api.post(
    '/api/admin/users/:id/unlock-sign-in',
    {
      schema: {
        tags: ['admin'],
        summary: 'End a user’s sign-in throttling at once: forgets the failed sign-ins counted against the account (audited)',
        // User ids are better-auth's (letters and digits); anything else is refused before the database sees it.
        params: z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'Not a valid user id') }).strict(),
        response: { 200: unlockSignInResultSchema },
      },
    },
    async (request) => {
      const admin = requireAdmin(request);
      return accounts.unlockSignIn(request.params.id, { actorId: admin.id, requestId: request.id });
    },
  );

  api.get(
    '/api/admin/audit',
    {
      schema: {
        tags: ['admin'],
        summary: 'The audit log, newest first',
        querystring: z.object(pageQueryFields(50, 500)).strict(),
        response: { 200: z.object({ entries: z.array(auditEntrySchema), nextCursor: z.string().nullable() }) },
      },
    },
    async (request) => {
      requireAdmin(request);
      const page = await audit.page(request.query);
      return { entries: page.items, nextCursor: page.nextCursor };
    },
  );
}
