import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { apiOrderInputSchema, orderAddressChangeInputSchema, orderCancelInputSchema } from '@layerline/contracts';
import { AppError } from '../../errors.ts';
import { registerApiKeyRoutes } from './api-key-routes.ts';
import type { ApiKeyPrincipal, ApiKeyService } from './api-key-service.ts';
import { registerManualOrderRoutes } from './manual-order-routes.ts';
import {
  createdOrderExamples,
  errorExamples,
  orderExamples,
  orderInputExamples,
  orderListExamples,
  repeatedOrderExamples,
} from './order-api-examples.ts';
import { documented } from './order-api-reference.ts';
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

/** Where the caller reaches this server, for the links in its answers: PUBLIC_URL, else the request's own origin. */
const siteUrlOf = (request: FastifyRequest, publicUrl: string | undefined): string =>
  publicUrl ?? `${request.protocol}://${request.host}`;

function principal(request: FastifyRequest): ApiKeyPrincipal {
  if (!request.orderApiKey) throw new AppError('unauthenticated', 'Invalid API key');
  return request.orderApiKey;
}

/**
 * /api/v1: the seller's own order API. Authenticated by API key only: the session the app
 * resolves for every /api request (cookie or session bearer token) is ignored here.
 */
async function registerOrderApiV1(
  scope: FastifyInstance,
  deps: { apiKeys: ApiKeyService; orderApi: OrderApiService; publicUrl: string | undefined },
) {
  scope.decorateRequest('orderApiKey', null);
  // onRequest: the key, its owner's beta flag and its rate limit are checked before the body is
  // even parsed or validated.
  scope.addHook('onRequest', async (request) => {
    request.orderApiKey = await deps.apiKeys.authenticate(request.headers.authorization);
  });
  const api = scope.withTypeProvider<ZodTypeProvider>();
  const common = { tags: ['order-api'], security: ORDER_API_SECURITY };
  // Every answer of the reference, with what the API really says (order-api-examples.ts).
  const errors = {
    400: documented(errorSchema, 'The body or the query is invalid: the first problem, with the field’s path', errorExamples[400]),
    401: documented(errorSchema, 'No API key, or not a valid one (checked before the body is read)', errorExamples[401]),
    403: documented(errorSchema, 'The key is valid but its owner is no longer in the beta', errorExamples[403]),
    404: documented(errorSchema, 'No order of yours has this id (another seller’s order answers the same)', errorExamples[404]),
    429: documented(errorSchema, 'Over the key’s 120 requests a minute; `Retry-After` says in how many seconds to come back', errorExamples[429]),
  };

  api.post(
    '/api/v1/orders',
    {
      schema: {
        ...common,
        summary: 'Send an order',
        description: [
          'Send each order once, with your own order number as `externalId` (1–200 characters). `items`: 1–100 lines of `{ sku, quantity }` (quantity 1–1000). `shippingAddress`: `name`, `line1`, `city`, `postalCode` and `country` (an assigned ISO 3166-1 alpha-2 code, in capitals) are required; `company`, `line2`, `region`, `phone` and `email` may be left out (they are then empty). A field not named here is refused with `400` and nothing is stored.',
          'Idempotent on `externalId` for each seller: a repeat (a retry, a duplicate, two sends at once) answers `200` with the order stored the first time, as it is now; the first body wins.',
          'Items are matched to your product variants by SKU. An order with a SKU that matches none is still created (`201`), `on_hold` with `holdReason` naming the SKU; it is released once you add that SKU to a product or link the listing.',
        ].join('\n\n'),
        body: documented(apiOrderInputSchema, 'The order, as your storefront knows it', orderInputExamples),
        response: {
          200: documented(publicOrderSchema, 'This externalId was sent before: the order stored then', repeatedOrderExamples),
          201: documented(publicOrderSchema, 'The order was created', createdOrderExamples),
          ...errors,
          413: documented(errorSchema, 'The body is over 1 MB; nothing is stored', { tooLarge: { summary: 'Too large', value: { error: 'Request body is too large' } } }),
          415: documented(errorSchema, 'The body is not JSON (e.g. a form post); nothing is stored', {
            notJson: { summary: 'A form post', value: { error: 'Unsupported Media Type' } },
          }),
        },
      },
    },
    async (request, reply) => {
      const { order, created } = await deps.orderApi.submitApiOrder(
        principal(request).ownerId,
        request.body,
        siteUrlOf(request, deps.publicUrl),
      );
      return reply.status(created ? 201 : 200).send(order);
    },
  );

  api.get(
    '/api/v1/orders/:id',
    {
      schema: {
        ...common,
        summary: 'Read one of your orders',
        description: 'The order as it is now: its status, its items (matched to your variants or not), its whole timeline (`events`) and its parcels’ tracking (`shipments`, empty until shipped). The same shape as `data.order` in every webhook.',
        params: idParams,
        response: { 200: documented(publicOrderSchema, 'The order', orderExamples), ...errors },
      },
    },
    async (request) =>
      deps.orderApi.getOrder(principal(request).ownerId, request.params.id, siteUrlOf(request, deps.publicUrl)),
  );

  // The change window (issue 24; docs/change-window.md): before release, a new address or a free cancellation.
  const windowClosed = documented(errorSchema, 'The order is released to production (or cancelled, or shipped): the answer says why, and nothing changed', {
    released: {
      summary: 'Released',
      value: {
        error:
          'This order was released to production on 2025-03-17 09:12 UTC and the print farm is making it, so its address can no longer be changed and it can no longer be cancelled at no cost. Contact the print farm if something is wrong.',
      },
    },
  });

  api.put(
    '/api/v1/orders/:id/shipping-address',
    {
      schema: {
        ...common,
        summary: 'Change an order’s shipping address before release',
        description:
          'Until the order is released to production (see your change window in Settings: new orders wait 0–24 hours before release) its shipping address can be replaced, with the same rules as when sending an order. Your endpoints hear `order.address_changed`. After release: `409`, saying why.',
        params: idParams,
        body: documented(orderAddressChangeInputSchema, 'The new address', {
          moved: { summary: 'A new address', value: { shippingAddress: { name: 'Ada Buyer', line1: '2 New Street', city: 'Springfield', postalCode: '12345', country: 'US' } } },
        }),
        response: { 200: documented(publicOrderSchema, 'The order with its new address', orderExamples), ...errors, 409: windowClosed },
      },
    },
    async (request) =>
      deps.orderApi.changeAddress(principal(request).ownerId, request.params.id, request.body.shippingAddress, siteUrlOf(request, deps.publicUrl)),
  );

  api.post(
    '/api/v1/orders/:id/cancel',
    {
      schema: {
        ...common,
        summary: 'Cancel an order before release, at no cost',
        description:
          'Until the order is released to production it can be cancelled: no print job is made and nothing is charged. `reason` (up to 500 characters, optional) goes into its timeline. Your endpoints hear `order.status_changed` and `order.cancelled`. After release: `409`, saying why.',
        params: idParams,
        body: documented(orderCancelInputSchema, 'Why (optional)', { reason: { summary: 'With a reason', value: { reason: 'The buyer changed their mind' } } }),
        response: { 200: documented(publicOrderSchema, 'The cancelled order', orderExamples), ...errors, 409: windowClosed },
      },
    },
    async (request) =>
      deps.orderApi.cancelOrder(principal(request).ownerId, request.params.id, request.body.reason, siteUrlOf(request, deps.publicUrl)),
  );

  api.get(
    '/api/v1/orders',
    {
      schema: {
        ...common,
        summary: 'List your orders',
        description:
          'Your orders from every channel (marketplaces, this API, manual orders), newest first, `limit` at a time (1–100, 25 by default), optionally of one `status`. For the next page pass the answer’s `nextCursor` as `cursor`; it is null on the last page.',
        querystring: publicOrderListQuerySchema,
        response: { 200: documented(publicOrderListSchema, 'A page of orders', orderListExamples), ...errors },
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
    /** PUBLIC_URL: the base of the absolute links in /api/v1's answers (else the request's origin). */
    publicUrl: string | undefined;
  },
): Promise<void> {
  await app.register(async (scope) => registerOrderApiV1(scope, deps));
  registerApiKeyRoutes(app, deps);
  registerWebhookEndpointRoutes(app, deps);
  registerManualOrderRoutes(app, deps);
}
