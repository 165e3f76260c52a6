import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { requireBetaTester, requireViewer } from '../../http/viewer.ts';
import type { ApiKeyService } from './api-key-service.ts';
import { apiKeyCreateInputSchema, apiKeyListSchema, createdApiKeySchema } from './order-api-schemas.ts';

const idParams = z.object({ id: z.uuid('Not a valid id') }).strict();

/**
 * The seller's order API keys. Creating one is for beta testers (like /connect-store; admins
 * pass); listing and revoking never need the flag, so a seller taken out of the beta still sees
 * and revokes their own credentials. Always the caller's own.
 */
export function registerApiKeyRoutes(app: FastifyInstance, deps: { apiKeys: ApiKeyService }): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { apiKeys } = deps;

  api.post(
    '/api/api-keys',
    {
      schema: {
        tags: ['order-api-settings'],
        summary: 'Create an order API key; the key is in this response only',
        body: apiKeyCreateInputSchema,
        response: { 201: createdApiKeySchema },
      },
    },
    async (request, reply) => {
      const viewer = requireBetaTester(request);
      return reply.status(201).send(await apiKeys.create(viewer.id, request.body.name));
    },
  );

  api.get(
    '/api/api-keys',
    { schema: { tags: ['order-api-settings'], summary: 'Your order API keys (never the keys themselves)', response: { 200: apiKeyListSchema } } },
    async (request) => ({ items: await apiKeys.list(requireViewer(request).id) }),
  );

  api.delete(
    '/api/api-keys/:id',
    { schema: { tags: ['order-api-settings'], summary: 'Revoke an API key (at once, for good)', params: idParams, response: { 204: z.null() } } },
    async (request, reply) => {
      await apiKeys.revoke(requireViewer(request).id, request.params.id);
      return reply.status(204).send(null);
    },
  );
}
