import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { webhookDeliveryListSchema, webhookDeliverySchema } from '@layerline/contracts';
import { requireBetaTester, requireViewer } from '../../http/viewer.ts';
import { webhookEndpointInputSchema, webhookEndpointSchema } from './order-api-schemas.ts';
import type { WebhookDeliveryService } from './webhook-delivery-service.ts';
import type { WebhookEndpointService } from './webhook-endpoint-service.ts';

const idParams = z.object({ id: z.uuid('Not a valid id') }).strict();

/**
 * The seller's webhook endpoint for order status changes, and what became of each delivery.
 * Setting it, rotating its secret and resending are for beta testers (admins pass); seeing it,
 * its deliveries, and removing it never need the flag (an owner out of the beta can still stop it).
 */
export function registerWebhookEndpointRoutes(
  app: FastifyInstance,
  deps: { webhookEndpoints: WebhookEndpointService; webhookDeliveries: WebhookDeliveryService },
): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { webhookEndpoints, webhookDeliveries } = deps;

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
    async (request) => webhookEndpoints.get(requireViewer(request).id),
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
      await webhookEndpoints.remove(requireViewer(request).id);
      return reply.status(204).send(null);
    },
  );

  api.get(
    '/api/webhook-endpoint/deliveries',
    {
      schema: {
        tags: ['order-api-settings'],
        summary: 'Your latest 50 webhook deliveries, newest first: the event, its attempts and the receiver’s last answer',
        response: { 200: webhookDeliveryListSchema },
      },
    },
    async (request) => ({ items: await webhookDeliveries.list(requireViewer(request).id) }),
  );

  api.post(
    '/api/webhook-endpoint/deliveries/:id/resend',
    {
      schema: {
        tags: ['order-api-settings'],
        summary: 'Send a settled delivery again (same event id and body, a fresh round of attempts); 409 while it is still being sent',
        params: idParams,
        response: { 202: webhookDeliverySchema },
      },
    },
    async (request, reply) => reply.status(202).send(await webhookDeliveries.resend(requireBetaTester(request).id, request.params.id)),
  );
}
