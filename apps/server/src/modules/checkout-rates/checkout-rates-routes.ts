import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  checkoutRatesInputSchema,
  checkoutRatesListSchema,
  checkoutRatesPreviewInputSchema,
  checkoutRatesPreviewSchema,
  checkoutRatesSettingsSchema,
} from '@layerline/contracts';
import { requireViewer, subjectUserId } from '../../http/viewer.ts';
import type { CheckoutRatesService, CheckoutRatesViewer } from './checkout-rates-service.ts';

const shopParams = z.object({ shopId: z.uuid('Not a valid shop id') }).strict();
const listQuery = z.object({ targetUserId: z.string().max(100).optional() }).strict();

function viewerOf(request: FastifyRequest): CheckoutRatesViewer {
  const viewer = requireViewer(request);
  return { id: viewer.id, isAdmin: viewer.isAdmin, requestId: request.id };
}

/** Checkout rates (issue 24; docs/checkout-rates.md): the seller's settings per Shopify shop, and Shopify's callback. */
export function registerCheckoutRatesRoutes(app: FastifyInstance, deps: { checkoutRates: CheckoutRatesService }): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['checkout-rates'];

  api.get(
    '/api/checkout-rates',
    { schema: { tags, summary: 'The seller’s Shopify shops with their checkout rates (admins: `targetUserId`)', querystring: listQuery, response: { 200: checkoutRatesListSchema } } },
    async (request) => deps.checkoutRates.list(subjectUserId(requireViewer(request), request.query.targetUserId)),
  );

  api.get(
    '/api/checkout-rates/:shopId',
    { schema: { tags, summary: 'One shop’s checkout rates', params: shopParams, response: { 200: checkoutRatesSettingsSchema } } },
    async (request) => deps.checkoutRates.get(viewerOf(request), request.params.shopId),
  );

  api.put(
    '/api/checkout-rates/:shopId',
    {
      schema: {
        tags,
        summary: 'Turns checkout rates on (registers Layerline as the shop’s carrier service with Shopify) or off (removes it)',
        params: shopParams,
        body: checkoutRatesInputSchema,
        response: { 200: checkoutRatesSettingsSchema },
      },
    },
    async (request) => deps.checkoutRates.setEnabled(viewerOf(request), request.params.shopId, request.body.enabled),
  );

  api.post(
    '/api/checkout-rates/:shopId/preview',
    {
      schema: {
        tags,
        summary: 'The rates a checkout would get for a cart of the seller’s SKUs and a destination, and how long they took',
        params: shopParams,
        body: checkoutRatesPreviewInputSchema,
        response: { 200: checkoutRatesPreviewSchema },
      },
    },
    async (request) => deps.checkoutRates.preview(viewerOf(request), request.params.shopId, request.body),
  );

  // Shopify's carrier service callback: no session; the secret in the URL says which shop it is for.
  app.post<{ Params: { shopId: string; token: string } }>(
    '/api/checkout-rates/shopify/:shopId/:token',
    {
      schema: {
        tags,
        summary: 'Shopify’s rate request at checkout (CarrierService callback): `{ rate }` in, `{ rates }` out; 404 for a wrong secret, 503 when the quote is late (Shopify then shows backup rates)',
      },
    },
    async (request, reply) => {
      const answer = await deps.checkoutRates.answerShopify(request.params.shopId, request.params.token, request.body);
      return reply.status(answer.status).send(answer.body);
    },
  );
}
