import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  ORDER_STATUSES,
  calendarDaySchema,
  completeEtsyOrderInputSchema,
  etsyMetaStatusInputSchema,
  orderAddressChangeInputSchema,
  orderCancelInputSchema,
  orderListSchema,
  orderSchema,
  orderSettingsSchema,
  orderStatusChangeInputSchema,
  pageQueryFields,
  trackingInputSchema,
} from '@layerline/contracts';
import { AppError } from '../../errors.ts';
import { requireAdmin, requireViewer, subjectUserId } from '../../http/viewer.ts';
import type { OrderListOptions, OrderService, OrderViewer } from './order-service.ts';
import type { TrackingService } from './tracking-service.ts';

const idParams = z.object({ id: z.uuid('Not a valid id') }).strict();
const listQuery = z
  .object({
    status: z.enum(ORDER_STATUSES).optional(),
    search: z.string().trim().max(200).default(''),
    /** Placed on or after this day (UTC). */
    from: calendarDaySchema.optional(),
    /** Placed on or before this day (UTC). */
    to: calendarDaySchema.optional(),
    ...pageQueryFields(25),
    targetUserId: z.string().max(100).optional(),
  })
  .strict();
type ListQuery = z.infer<typeof listQuery>;

function options(q: ListQuery): OrderListOptions {
  return {
    status: q.status ?? null,
    search: q.search,
    from: q.from ?? null,
    to: q.to ? new Date(q.to.getTime() + 24 * 3600 * 1000) : null,
    cursor: q.cursor,
    limit: q.limit,
  };
}

function viewerOf(request: FastifyRequest): OrderViewer {
  const viewer = requireViewer(request);
  return { id: viewer.id, isAdmin: viewer.isAdmin, requestId: request.id };
}

/** Syncs every shop of a seller (for ?refresh=true); it may take no longer than the timeout. */
export type OwnerSync = (ownerId: string) => Promise<void>;

const REFRESH_TIMEOUT_MS = 20_000;

async function withTimeout(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new AppError('unavailable', 'The marketplaces are slow to answer; showing the orders we have', {
            retryAfterSeconds: 30,
          }),
        ),
      ms,
    );
  });
  try {
    await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function registerOrderRoutes(
  app: FastifyInstance,
  deps: { orders: OrderService; tracking: TrackingService; syncOwnerOrders: OwnerSync; refreshTimeoutMs?: number },
): void {
  const { orders, tracking } = deps;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/api/orders',
    {
      schema: {
        tags: ['orders'],
        summary: "The seller's orders (admins: any seller's with targetUserId)",
        querystring: listQuery,
        response: { 200: orderListSchema },
      },
    },
    async (request) => {
      const viewer = requireViewer(request);
      return orders.listForOwner(subjectUserId(viewer, request.query.targetUserId), options(request.query));
    },
  );

  api.get(
    '/api/admin/orders',
    {
      schema: {
        tags: ['orders'],
        summary: "Every seller's orders (admins)",
        querystring: listQuery.omit({ targetUserId: true }),
        response: { 200: orderListSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      return orders.listAll(options(request.query));
    },
  );

  api.get(
    '/api/makerforge/orders',
    {
      schema: {
        tags: ['orders'],
        summary: "getMakerforgeOrders: the seller's orders; ?refresh=true syncs every shop first",
        querystring: listQuery.extend({ refresh: z.enum(['true', 'false', '1', '0']).optional() }),
        response: { 200: orderListSchema },
      },
    },
    async (request) => {
      const viewer = requireViewer(request);
      const ownerId = subjectUserId(viewer, request.query.targetUserId);
      if (request.query.refresh === 'true' || request.query.refresh === '1') {
        try {
          await withTimeout(deps.syncOwnerOrders(ownerId), deps.refreshTimeoutMs ?? REFRESH_TIMEOUT_MS);
        } catch (error) {
          // A slow or failing marketplace must not hide the orders already here.
          request.log.warn({ err: error, ownerId }, 'order refresh incomplete');
        }
      }
      return orders.listForOwner(ownerId, options(request.query));
    },
  );

  api.get(
    '/api/orders/:id',
    {
      schema: {
        tags: ['orders'],
        summary: 'An order with its items and timeline',
        params: idParams,
        response: { 200: orderSchema },
      },
    },
    async (request) => orders.get(viewerOf(request), request.params.id),
  );

  api.post(
    '/api/orders/:id/status',
    {
      schema: {
        tags: ['orders'],
        summary:
          'Moves an order through its lifecycle (admins); a seller may cancel their own order before production',
        params: idParams,
        body: orderStatusChangeInputSchema,
        response: { 200: orderSchema },
      },
    },
    async (request) =>
      orders.changeStatus(viewerOf(request), request.params.id, request.body.to, request.body.reason),
  );

  api.post(
    '/api/etsy/meta-status',
    {
      schema: {
        tags: ['orders'],
        summary: "updateEtsyMetaStatus: changes the status of the seller's Etsy order with this receipt id",
        body: etsyMetaStatusInputSchema,
        response: { 200: orderSchema },
      },
    },
    async (request) => {
      const viewer = viewerOf(request);
      const ownerId = subjectUserId(requireViewer(request), request.body.targetUserId);
      return orders.updateEtsyMetaStatus(
        viewer,
        ownerId,
        request.body.receiptId,
        request.body.newStatus,
        request.body.reason,
      );
    },
  );

  api.post(
    '/api/orders/:id/tracking',
    {
      schema: {
        tags: ['orders'],
        summary: 'Send the tracking to the marketplace the order came from; a packed order becomes shipped (admins)',
        params: idParams,
        body: trackingInputSchema,
        response: { 200: orderSchema },
      },
    },
    async (request) => tracking.complete(viewerOf(request), request.params.id, request.body),
  );

  api.post(
    '/api/etsy/complete-order',
    {
      schema: {
        tags: ['orders'],
        summary: 'completeEtsyOrder: createReceiptShipment on Etsy for the seller’s receipt (admins; userId = the seller)',
        body: completeEtsyOrderInputSchema,
        response: { 200: orderSchema },
      },
    },
    async (request) => {
      const viewer = viewerOf(request);
      const { userId, receiptId, ...trackingInput } = request.body;
      return tracking.completeEtsyOrder(viewer, subjectUserId(requireViewer(request), userId), receiptId, trackingInput);
    },
  );

  // The change window (issue 24; docs/change-window.md): before release, a new address or a free cancellation.
  api.put(
    '/api/orders/:id/shipping-address',
    {
      schema: {
        tags: ['orders'],
        summary: 'Changes the shipping address of an order not yet released to production (the seller’s own; admins for them)',
        description: 'Refused with 409, saying why, once the order is released (or cancelled, or shipped).',
        params: idParams,
        body: orderAddressChangeInputSchema,
        response: { 200: orderSchema },
      },
    },
    async (request) => orders.changeAddress(viewerOf(request), request.params.id, request.body.shippingAddress),
  );

  api.post(
    '/api/orders/:id/cancel',
    {
      schema: {
        tags: ['orders'],
        summary: 'Cancels an order not yet released to production, at no cost: no print job made, nothing charged',
        description: 'Refused with 409, saying why, once the order is released (or already cancelled).',
        params: idParams,
        body: orderCancelInputSchema,
        response: { 200: orderSchema },
      },
    },
    async (request) => orders.cancelBeforeRelease(viewerOf(request), request.params.id, request.body.reason),
  );

  const settingsQuery = z.object({ targetUserId: z.string().max(100).optional() }).strict();
  api.get(
    '/api/order-settings',
    {
      schema: {
        tags: ['orders'],
        summary: 'The seller’s order settings: the change window (hours new orders wait before release)',
        querystring: settingsQuery,
        response: { 200: orderSettingsSchema },
      },
    },
    async (request) => orders.orderSettings(subjectUserId(requireViewer(request), request.query.targetUserId)),
  );

  api.put(
    '/api/order-settings',
    {
      schema: {
        tags: ['orders'],
        summary: 'Sets the change window: new orders wait 0–24 hours before release (0 releases them at once)',
        querystring: settingsQuery,
        body: orderSettingsSchema,
        response: { 200: orderSettingsSchema },
      },
    },
    async (request) => orders.setOrderSettings(viewerOf(request), subjectUserId(requireViewer(request), request.query.targetUserId), request.body),
  );
}
