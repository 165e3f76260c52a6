import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { pageViewSchema, pageViewStatsSchema } from '@layerline/contracts';
import { requireAdmin } from '../../http/viewer.ts';
import type { PageViewRepository } from './page-view-repository.ts';

export function registerAnalyticsRoutes(app: FastifyInstance, deps: { pageViews: PageViewRepository }) {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/api/analytics/page-views',
    {
      schema: {
        tags: ['analytics'],
        summary: 'Record a page view (title and path), signed in or not',
        body: pageViewSchema,
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      await deps.pageViews.record(request.body, request.viewer?.id ?? null);
      return reply.status(204).send(null);
    },
  );

  api.get(
    '/api/admin/analytics/page-views',
    {
      schema: {
        tags: ['admin'],
        summary: 'Page views per day and top paths',
        querystring: z.object({ days: z.coerce.number().int().min(1).max(365).default(30) }).strict(),
        response: { 200: pageViewStatsSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      return deps.pageViews.stats(request.query.days);
    },
  );
}
