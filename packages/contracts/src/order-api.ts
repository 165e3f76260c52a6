import { z } from 'zod';
import { ORDER_STATUSES } from './orders.ts';

/**
 * What became of an order event sent to a seller's webhook endpoint:
 * - pending: queued, or retrying after a failed attempt (5xx, 408, 429, a network error);
 * - delivered: the receiver answered 2xx;
 * - refused: the receiver answered a final 4xx (not retried), or the URL is no longer allowed;
 * - failed: out of attempts, or the endpoint was removed before it could be sent.
 */
/**
 * The events a seller's webhook endpoint receives (docs/order-api.md): every status change, and, for
 * the moments a shop acts on, their own events: the order charged, its price adjusted after its exact
 * quote, money refunded, shipped (with its tracking), delivered. Each carries its order's sequence number.
 */
export const WEBHOOK_EVENT_TYPES = [
  'order.status_changed',
  'order.charged',
  'order.adjusted',
  'order.refunded',
  'order.shipped',
  'order.delivered',
  'order.claim_filed',
  'order.claim_decided',
  'order.cancelled',
  'order.address_changed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const WEBHOOK_EVENT_LABELS: Readonly<Record<Exclude<WebhookEventType, 'order.status_changed'>, string>> = {
  'order.charged': 'Charged',
  'order.adjusted': 'Price adjusted',
  'order.refunded': 'Refunded',
  'order.shipped': 'Shipped, with tracking',
  'order.delivered': 'Delivered',
  'order.claim_filed': 'Claim filed',
  'order.claim_decided': 'Claim decided',
  'order.cancelled': 'Cancelled',
  'order.address_changed': 'Address changed',
};

export const WEBHOOK_DELIVERY_STATES = ['pending', 'delivered', 'refused', 'failed'] as const;
export type WebhookDeliveryState = (typeof WEBHOOK_DELIVERY_STATES)[number];

export const webhookDeliverySchema = z.object({
  id: z.string(),
  /** The `webhook-id` every attempt (and a resend) carries. */
  eventId: z.string(),
  type: z.enum(WEBHOOK_EVENT_TYPES),
  orderId: z.string(),
  /** The order's number on its channel (the marketplace's or the seller's own). */
  orderExternalId: z.string(),
  fromStatus: z.enum(ORDER_STATUSES).nullable(),
  toStatus: z.enum(ORDER_STATUSES),
  state: z.enum(WEBHOOK_DELIVERY_STATES),
  attempts: z.number().int(),
  /** The receiver's HTTP status on the last attempt; null when it never answered. */
  lastStatusCode: z.number().int().nullable(),
  /** Why the last attempt did not deliver ('' when it did). */
  lastError: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  deliveredAt: z.string().nullable(),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

export const webhookDeliveryListSchema = z.object({ items: z.array(webhookDeliverySchema) });
export type WebhookDeliveryList = z.infer<typeof webhookDeliveryListSchema>;
