import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { productInputSchema, productListQuerySchema, productListSchema, productSchema } from '@layerline/contracts';
import { requireViewer, subjectUserId } from '../../http/viewer.ts';
import type { Actor, ProductService } from './product-service.ts';

const idParams = z.object({ id: z.uuid('Not a valid id') }).strict();
/** Routes on one product take targetUserId only to refuse it from non-admins (AC-2); the product's owner decides. */
const actingQuery = z.object({ targetUserId: z.string().max(100).optional() }).strict();

function actorOf(request: FastifyRequest): Actor {
  const viewer = requireViewer(request);
  return { id: viewer.id, isAdmin: viewer.isAdmin, requestId: request.id };
}

/** Checks who is asking and refuses targetUserId from anyone but an admin; returns the subject. */
function subjectOf(request: FastifyRequest, targetUserId: string | undefined): string {
  return subjectUserId(requireViewer(request), targetUserId);
}

export function registerProductRoutes(app: FastifyInstance, deps: { products: ProductService }): void {
  const { products } = deps;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/api/products',
    {
      schema: {
        tags: ['products'],
        summary: 'The seller’s products with their variants, SKUs and unit costs (admins: another seller’s with targetUserId)',
        querystring: productListQuerySchema,
        response: { 200: productListSchema },
      },
    },
    async (request) => {
      const ownerId = subjectOf(request, request.query.targetUserId);
      const { search, cursor, limit } = request.query;
      return products.list(actorOf(request), { ownerId, search, cursor, limit });
    },
  );

  api.post(
    '/api/products',
    {
      schema: {
        tags: ['products'],
        summary: 'Create a product: variants with SKUs, each made of print configurations × quantity',
        querystring: actingQuery,
        body: productInputSchema,
        response: { 201: productSchema },
      },
    },
    async (request, reply) => {
      const ownerId = subjectOf(request, request.query.targetUserId);
      return reply.status(201).send(await products.create(actorOf(request), ownerId, request.body));
    },
  );

  api.get(
    '/api/products/:id',
    { schema: { tags: ['products'], summary: 'A product with its variants and unit costs', params: idParams, querystring: actingQuery, response: { 200: productSchema } } },
    async (request) => {
      subjectOf(request, request.query.targetUserId);
      return products.get(actorOf(request), request.params.id);
    },
  );

  api.put(
    '/api/products/:id',
    {
      schema: {
        tags: ['products'],
        summary: 'Replace a product’s name, description and variants (variants sent with their id are kept)',
        params: idParams,
        querystring: actingQuery,
        body: productInputSchema,
        response: { 200: productSchema },
      },
    },
    async (request) => {
      subjectOf(request, request.query.targetUserId);
      return products.update(actorOf(request), request.params.id, request.body);
    },
  );

  api.delete(
    '/api/products/:id',
    {
      schema: {
        tags: ['products'],
        summary: 'Delete a product and its variants (linked listings become unlinked)',
        params: idParams,
        querystring: actingQuery,
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      subjectOf(request, request.query.targetUserId);
      await products.delete(actorOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );
}
