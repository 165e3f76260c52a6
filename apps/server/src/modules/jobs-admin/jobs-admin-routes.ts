import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { requireAdmin } from '../../http/viewer.ts';
import type { JobsAdminService } from './jobs-admin-service.ts';

const queueSchema = z.object({
  name: z.string(),
  queued: z.number().int(),
  deferred: z.number().int(),
  active: z.number().int(),
  failed: z.number().int(),
  total: z.number().int(),
  countedAt: z.string().nullable(),
  retry: z
    .object({
      retryLimit: z.number().int(),
      retryDelaySeconds: z.number(),
      backoff: z.boolean(),
      expireInSeconds: z.number(),
      policy: z.string(),
    })
    .nullable(),
});

const deadLetterSchema = z.object({
  id: z.string(),
  queue: z.string().nullable(),
  data: z.unknown(),
  failedAt: z.string(),
  attempts: z.number().int().nullable(),
  error: z.string().nullable(),
  retryProblem: z.string().nullable(),
});

export const jobsOverviewSchema = z.object({
  queues: z.array(queueSchema),
  deadLetterTotal: z.number().int(),
  deadLetters: z.array(deadLetterSchema),
});

/** Admin only: the job queues, their dead letters, and retrying one. */
export function registerJobsAdminRoutes(app: FastifyInstance, deps: { jobsAdmin: JobsAdminService }) {
  const { jobsAdmin } = deps;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/api/admin/jobs',
    {
      schema: {
        tags: ['admin'],
        summary: 'Background job queues: counts, retry policy and the dead-lettered jobs (payloads redacted)',
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) }).strict(),
        response: { 200: jobsOverviewSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      return jobsAdmin.overview(request.query.limit);
    },
  );

  api.post(
    '/api/admin/jobs/dead-letters/:id/retry',
    {
      schema: {
        tags: ['admin'],
        summary: 'Send a dead-lettered job again to the queue it failed on, with fresh attempts (audited)',
        params: z.object({ id: z.uuid() }).strict(),
        response: { 200: z.object({ id: z.string(), queue: z.string() }) },
      },
    },
    async (request) => {
      const admin = requireAdmin(request);
      return jobsAdmin.retryDeadLetter(request.params.id, { actorId: admin.id, requestId: request.id });
    },
  );
}
