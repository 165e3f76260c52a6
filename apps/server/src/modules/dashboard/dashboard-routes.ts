import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { dashboardOverviewSchema } from '@layerline/contracts';
import { requireViewer } from '../../http/viewer.ts';
import type { AccountService } from '../accounts/account-service.ts';
import type { DashboardService } from './dashboard-service.ts';

export function registerDashboardRoutes(
  app: FastifyInstance,
  deps: { dashboard: DashboardService; accounts: AccountService },
) {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/dashboard',
    {
      schema: {
        tags: ['accounts'],
        summary: 'The seller’s overview: counts and the onboarding checklist',
        response: { 200: dashboardOverviewSchema },
      },
    },
    async (request) => deps.dashboard.overview(await deps.accounts.me(requireViewer(request).id)),
  );
}
