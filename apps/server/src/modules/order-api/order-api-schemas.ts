import { z } from 'zod';
import { CLAIM_KINDS, CLAIM_STATUSES, ORDER_STATUSES, shippingAddressSchema } from '@layerline/contracts';

/*
 * Request and response shapes of the order API and its settings (API keys, webhook endpoint).
 * The web app mirrors the response types in apps/web/src/api/order-api.ts.
 */

export const apiKeyCreateInputSchema = z.object({ name: z.string().trim().min(1, 'Give the key a name').max(80) }).strict();

export const apiKeySchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The key's first 12 characters, to recognise it; the key itself is never shown again. */
  prefix: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type ApiKeyDto = z.infer<typeof apiKeySchema>;

export const createdApiKeySchema = apiKeySchema.extend({
  /** The whole key: shown in this response only. */
  key: z.string(),
});
export type CreatedApiKeyDto = z.infer<typeof createdApiKeySchema>;

export const apiKeyListSchema = z.object({ items: z.array(apiKeySchema) });

export const webhookEndpointInputSchema = z.object({ url: z.string().trim().min(1, 'Enter the URL').max(2000) }).strict();

export const webhookEndpointSchema = z.object({
  url: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** The signing secret: only when it was just created or rotated, never again. */
  secret: z.string().optional(),
});
export type WebhookEndpointDto = z.infer<typeof webhookEndpointSchema>;

/**
 * An order as the order API and its webhooks show it: no internal ids of people, no e-mail
 * addresses of Layerline staff; items say whether their SKU matched one of the seller's variants.
 */
export const publicOrderSchema = z.object({
  id: z.string(),
  externalId: z.string(),
  platform: z.string(),
  status: z.enum(ORDER_STATUSES),
  holdReason: z.string().nullable(),
  customerName: z.string(),
  shippingAddress: shippingAddressSchema,
  items: z.array(
    z.object({
      sku: z.string(),
      quantity: z.number().int(),
      matched: z.boolean(),
      productName: z.string().nullable(),
    }),
  ),
  events: z.array(
    z.object({
      fromStatus: z.enum(ORDER_STATUSES).nullable(),
      toStatus: z.enum(ORDER_STATUSES),
      reason: z.string(),
      createdAt: z.string(),
    }),
  ),
  /** Its parcels' labels and tracking (empty until shipped; a voided label is left out). */
  shipments: z.array(
    z.object({
      carrier: z.string(),
      service: z.string(),
      trackingNumber: z.string(),
      trackingUrl: z.string(),
      status: z.enum(['purchased', 'in_transit', 'delivered']),
      shippedAt: z.string().nullable(),
      deliveredAt: z.string().nullable(),
    }),
  ),
  placedAt: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type PublicOrder = z.infer<typeof publicOrderSchema>;

export const publicOrderSummarySchema = z.object({
  id: z.string(),
  externalId: z.string(),
  platform: z.string(),
  status: z.enum(ORDER_STATUSES),
  holdReason: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type PublicOrderSummary = z.infer<typeof publicOrderSummarySchema>;

export const publicOrderListSchema = z.object({
  items: z.array(publicOrderSummarySchema),
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type PublicOrderList = z.infer<typeof publicOrderListSchema>;

export const publicOrderListQuerySchema = z
  .object({
    status: z.enum(ORDER_STATUSES).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(25),
    cursor: z.uuid('Not a valid cursor').optional(),
  })
  .strict();

/** A parcel's tracking, as `order.shipped` tells it. */
export const webhookTrackingSchema = z.object({
  carrier: z.string(),
  service: z.string(),
  trackingNumber: z.string(),
  trackingUrl: z.string(),
});

/**
 * What every event has: its id (the `webhook-id` of each attempt), its type, its order's sequence
 * number (1 for the order's creation, then one more for each event of the order, in the order they
 * happened; send order follows it) and when it was made.
 */
const eventFields = <T extends string>(type: T) => ({
  id: z.string(),
  type: z.literal(type),
  sequence: z.number().int().min(1),
  createdAt: z.string(),
});

/** A claim on an order as its webhooks tell it (docs/claims.md). */
const webhookClaimSchema = z.object({
  id: z.string(),
  kind: z.enum(CLAIM_KINDS),
  status: z.enum(CLAIM_STATUSES),
  description: z.string(),
  /** The print jobs (parts) claimed. */
  partIds: z.array(z.string()),
  /** The admin's words with the decision ('' while open). */
  decisionNote: z.string(),
  refundCents: z.number().int().nullable(),
});

/** The body of every webhook we send, by `type` (docs/order-api.md). */
export const webhookEventSchema = z.discriminatedUnion('type', [
  z.object({
    ...eventFields('order.status_changed'),
    data: z.object({
      previousStatus: z.enum(ORDER_STATUSES).nullable(),
      status: z.enum(ORDER_STATUSES),
      order: publicOrderSchema,
    }),
  }),
  z.object({
    ...eventFields('order.charged'),
    data: z.object({
      charge: z.object({ id: z.string(), amountCents: z.number().int(), currency: z.string(), kind: z.enum(['order', 'manual']) }),
      order: publicOrderSchema,
    }),
  }),
  z.object({
    ...eventFields('order.adjusted'),
    data: z.object({
      adjustment: z.object({ chargeId: z.string(), amountCents: z.number().int(), currency: z.string(), reason: z.string() }),
      order: publicOrderSchema,
    }),
  }),
  z.object({
    ...eventFields('order.refunded'),
    data: z.object({
      refund: z.object({ id: z.string(), chargeId: z.string(), amountCents: z.number().int(), currency: z.string(), reason: z.string() }),
      order: publicOrderSchema,
    }),
  }),
  z.object({
    ...eventFields('order.shipped'),
    data: z.object({ tracking: z.array(webhookTrackingSchema), order: publicOrderSchema }),
  }),
  z.object({
    ...eventFields('order.delivered'),
    data: z.object({ deliveredAt: z.string(), order: publicOrderSchema }),
  }),
  z.object({
    ...eventFields('order.claim_filed'),
    data: z.object({ claim: webhookClaimSchema, order: publicOrderSchema }),
  }),
  z.object({
    ...eventFields('order.claim_decided'),
    data: z.object({ claim: webhookClaimSchema, order: publicOrderSchema }),
  }),
  z.object({
    ...eventFields('order.cancelled'),
    data: z.object({ reason: z.string(), order: publicOrderSchema }),
  }),
  z.object({
    ...eventFields('order.address_changed'),
    data: z.object({ previousAddress: shippingAddressSchema, order: publicOrderSchema }),
  }),
]);
export type WebhookEvent = z.infer<typeof webhookEventSchema>;
