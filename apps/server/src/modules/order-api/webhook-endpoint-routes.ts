import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { requireBetaTester } from '../../http/viewer.ts';
import { webhookEndpointInputSchema, webhookEndpointSchema } from './order-api-schemas.ts';
import type { WebhookEndpointService } from './webhook-endpoint-service.ts';

/** The seller's webhook endpoint for order status changes (beta; admins pass). */
export function registerWebhookEndpointRoutes(app: FastifyInstance, deps: { webhookEndpoints: WebhookEndpointService }): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { webhookEndpoints } = deps;

  api.put(
    '/api/webhook-endpoint',
    {
      schema: {
        tags: ['order-api-settings'],
        summary: 'Set where order status changes are sent; the first time, the signing secret comes back (once)',
        body: webhookEndpointInputSchema,
        response: { 200: webhookEndpointSchema },
      },
    },
    async (request) => webhookEndpoints.set(requireBetaTester(request).id, request.body.url),
  );

  api.get(
    '/api/webhook-endpoint',
    { schema: { tags: ['order-api-settings'], summary: 'Your webhook endpoint (without its secret); 404 when none', response: { 200: webhookEndpointSchema } } },
    async (request) => webhookEndpoints.get(requireBetaTester(request).id),
  );

  api.post(
    '/api/webhook-endpoint/rotate-secret',
    {
      schema: {
        tags: ['order-api-settings'],
        summary: 'Replace the signing secret; the new one comes back once and signs every delivery from now on',
        response: { 200: webhookEndpointSchema },
      },
    },
    async (request) => webhookEndpoints.rotateSecret(requireBetaTester(request).id),
  );

  api.delete(
    '/api/webhook-endpoint',
    { schema: { tags: ['order-api-settings'], summary: 'Stop sending webhooks', response: { 204: z.null() } } },
    async (request, reply) => {
      await webhookEndpoints.remove(requireBetaTester(request).id);
      return reply.status(204).send(null);
    },
  );
}
