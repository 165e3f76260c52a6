import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { apiOrderInputSchema } from '@layerline/contracts';
import { AppError } from '../../errors.ts';
import { registerApiKeyRoutes } from './api-key-routes.ts';
import type { ApiKeyPrincipal, ApiKeyService } from './api-key-service.ts';
import { registerManualOrderRoutes } from './manual-order-routes.ts';
import { publicOrderListQuerySchema, publicOrderListSchema, publicOrderSchema } from './order-api-schemas.ts';
import type { OrderApiService } from './order-api-service.ts';
import type { WebhookDeliveryService } from './webhook-delivery-service.ts';
import { registerWebhookEndpointRoutes } from './webhook-endpoint-routes.ts';
import type { WebhookEndpointService } from './webhook-endpoint-service.ts';

/** The OpenAPI security scheme of the order API (declared in http/app.ts's swagger components). */
export const ORDER_API_SECURITY = [{ apiKey: [] }];

const errorSchema = z.object({ error: z.string() });
const idParams = z.object({ id: z.uuid('Not a valid order id') }).strict();

declare module 'fastify' {
  interface FastifyRequest {
    orderApiKey: ApiKeyPrincipal | null;
  }
}

function principal(request: FastifyRequest): ApiKeyPrincipal {
  if (!request.orderApiKey) throw new AppError('unauthenticated', 'Invalid API key');
  return request.orderApiKey;
}

/**
 * /api/v1: the seller's own order API. Authenticated by API key only: the session the app
 * resolves for every /api request (cookie or session bearer token) is ignored here.
 */
async function registerOrderApiV1(scope: FastifyInstance, deps: { apiKeys: ApiKeyService; orderApi: OrderApiService }) {
  scope.decorateRequest('orderApiKey', null);
  // onRequest: the key, its owner's beta flag and its rate limit are checked before the body is
  // even parsed or validated.
  scope.addHook('onRequest', async (request) => {
    request.orderApiKey = await deps.apiKeys.authenticate(request.headers.authorization);
  });
  const api = scope.withTypeProvider<ZodTypeProvider>();
  const common = { tags: ['order-api'], security: ORDER_API_SECURITY };
  const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 429: errorSchema };

  api.post(
    '/api/v1/orders',
    {
      schema: {
        ...common,
        summary: 'Send an order. 201 when created; 200 with the same order when this externalId was sent before',
        description:
          'Idempotent on `externalId` per seller: repeats (retries, duplicates, concurrent sends) return the order stored the first time, and the first body wins. Items are matched to your product variants by SKU; an unmatched SKU puts the order on hold with the reason (still 201).',
        body: apiOrderInputSchema,
        response: { 200: publicOrderSchema, 201: publicOrderSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { order, created } = await deps.orderApi.submitApiOrder(principal(request).ownerId, request.body);
      return reply.status(created ? 201 : 200).send(order);
    },
  );

  api.get(
    '/api/v1/orders/:id',
    { schema: { ...common, summary: 'One of your orders, with its timeline', params: idParams, response: { 200: publicOrderSchema, ...errors } } },
    async (request) => deps.orderApi.getOrder(principal(request).ownerId, request.params.id),
  );

  api.get(
    '/api/v1/orders',
    {
      schema: {
        ...common,
        summary: 'Your orders from every channel, newest first; page with `cursor` = the previous `nextCursor`',
        querystring: publicOrderListQuerySchema,
        response: { 200: publicOrderListSchema, ...errors },
      },
    },
    async (request) => deps.orderApi.listOrders(principal(request).ownerId, request.query),
  );
}

/** Everything of this module: /api/v1 (API keys), key and webhook settings, manual orders. */
export async function registerOrderApiRoutes(
  app: FastifyInstance,
  deps: {
    apiKeys: ApiKeyService;
    orderApi: OrderApiService;
    webhookEndpoints: WebhookEndpointService;
    webhookDeliveries: WebhookDeliveryService;
  },
): Promise<void> {
  await app.register(async (scope) => registerOrderApiV1(scope, deps));
  registerApiKeyRoutes(app, deps);
  registerWebhookEndpointRoutes(app, deps);
  registerManualOrderRoutes(app, deps);
}
