import type { Order } from '@layerline/contracts';
import { AppError, forbidden, notFound } from '../../errors.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import { MarketplaceRejectedError, MarketplaceUnavailableError, type TrackingUpdate } from '../shops/connector.ts';
import type { OrderRepository } from './order-repository.ts';
import type { OrderService, OrderViewer } from './order-service.ts';

export interface TrackingServiceDeps {
  readonly orders: OrderService;
  readonly repository: OrderRepository;
  /** The shops module's pushTracking: the marketplace the order came from learns its tracking. */
  readonly pushToMarketplace: (shopId: string, externalOrderId: string, tracking: TrackingUpdate) => Promise<void>;
  readonly audit: AuditRepository;
}

/**
 * Telling the marketplace an order has shipped (the spec's completeEtsyOrder, for any marketplace):
 * the tracking goes to the shop the order came from, and a packed order becomes shipped. Only the
 * print farm (admins) ships orders.
 */
export function createTrackingService({ orders, repository, pushToMarketplace, audit }: TrackingServiceDeps) {
  async function complete(viewer: OrderViewer, orderId: string, tracking: TrackingUpdate): Promise<Order> {
    if (!viewer.isAdmin) throw forbidden('Only the print farm marks orders as shipped');
    const order = await repository.find(orderId);
    if (!order) throw notFound('Order');
    if (order.status === 'cancelled') throw new AppError('conflict', 'This order was cancelled');
    if (order.shopId) {
      try {
        await pushToMarketplace(order.shopId, order.externalId, tracking);
      } catch (error) {
        if (error instanceof MarketplaceRejectedError) {
          throw new AppError('unprocessable', `The marketplace refused the tracking: ${error.message}`, { cause: error });
        }
        if (error instanceof MarketplaceUnavailableError) {
          throw new AppError('unavailable', 'The marketplace is not answering; try again shortly', {
            retryAfterSeconds: error.retryAfterSeconds ?? 60,
            cause: error,
          });
        }
        throw error;
      }
    }
    const reason = `Shipped with ${tracking.carrierName.toUpperCase()} ${tracking.trackingNumber}${order.shopId ? '; tracking sent to the marketplace' : ''}`;
    if (order.status === 'packed') await orders.tryTransition(order, 'shipped', reason, { kind: 'admin', id: viewer.id });
    await audit.record({
      actorId: viewer.id,
      targetUserId: order.ownerId,
      action: 'order.tracking-sent',
      detail: { orderId, platform: order.platform, externalId: order.externalId, ...tracking },
      requestId: viewer.requestId,
    });
    return orders.get(viewer, orderId);
  }

  return {
    complete,

    /** The spec's completeEtsyOrder(userId, receiptId, trackingNumber, carrierName = usps). */
    async completeEtsyOrder(viewer: OrderViewer, ownerId: string, receiptId: string, tracking: TrackingUpdate): Promise<Order> {
      if (!viewer.isAdmin) throw forbidden('Only the print farm marks orders as shipped');
      const found = await repository.findByPlatformExternalId(ownerId, 'etsy', receiptId);
      if (!found) throw notFound('Etsy order');
      return complete(viewer, found.id, tracking);
    },
  };
}

export type TrackingService = ReturnType<typeof createTrackingService>;
