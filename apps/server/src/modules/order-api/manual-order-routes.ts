import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { manualOrderInputSchema, orderSchema } from '@layerline/contracts';
import { requireViewer, subjectUserId } from '../../http/viewer.ts';
import type { OrderApiService } from './order-api-service.ts';

/** /submit-order: a seller's manual order (admins: for a seller with targetUserId, audited). */
export function registerManualOrderRoutes(app: FastifyInstance, deps: { orderApi: OrderApiService }): void {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/api/orders/manual',
    {
      schema: {
        tags: ['orders'],
        summary: 'Place a manual order for your own products (every SKU must be one of your variants)',
        body: manualOrderInputSchema,
        response: { 201: orderSchema },
      },
    },
    async (request, reply) => {
      const viewer = requireViewer(request);
      const ownerId = subjectUserId(viewer, request.body.targetUserId);
      const { targetUserId: _target, ...input } = request.body;
      const order = await deps.orderApi.submitManualOrder({ id: viewer.id, isAdmin: viewer.isAdmin, requestId: request.id }, ownerId, input);
      return reply.status(201).send(order);
    },
  );
}
