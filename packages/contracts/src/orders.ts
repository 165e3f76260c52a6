import { z } from 'zod';
import { isCountryCode } from './countries.ts';
import { pageSchema } from './paging.ts';
import { orderProductionSchema } from './production.ts';
import { shipmentSchema } from './shipments.ts';

/**
 * The order lifecycle (docs/order-lifecycle.md). The server's transitions table is the only place
 * a status changes; this list and the labels are shared with the web app.
 */
export const ORDER_STATUSES = [
  'received',
  'on_hold',
  'accepted',
  'in_production',
  'printed',
  'packed',
  'shipped',
  'delivered',
  'cancelled',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const ORDER_STATUS_LABELS: Readonly<Record<OrderStatus, string>> = {
  received: 'Received',
  on_hold: 'On hold',
  accepted: 'Accepted',
  in_production: 'In production',
  printed: 'Printed',
  packed: 'Packed',
  shipped: 'Shipped',
  delivered: 'Delivered',
  cancelled: 'Cancelled',
};

export const shippingAddressSchema = z
  .object({
    name: z.string().trim().min(1, 'Recipient name is required').max(120),
    company: z.string().trim().max(120).default(''),
    line1: z.string().trim().min(1, 'Street address is required').max(200),
    line2: z.string().trim().max(200).default(''),
    city: z.string().trim().min(1, 'City is required').max(120),
    region: z.string().trim().max(120).default(''),
    postalCode: z.string().trim().min(1, 'Postal code is required').max(32),
    country: z.string().trim().regex(/^[A-Z]{2}$/, 'Country must be a two-letter ISO code like US'),
    phone: z.string().trim().max(40).default(''),
    email: z.union([z.email(), z.literal('')]).default(''),
  })
  .strict();
export type ShippingAddress = z.infer<typeof shippingAddressSchema>;

/**
 * An address someone sends us (the order API, a manual order): the country must be an assigned
 * ISO 3166-1 alpha-2 code. Stored and marketplace addresses are read with the looser shape above.
 */
export const shippingAddressInputSchema = shippingAddressSchema.extend({
  country: z
    .string()
    .trim()
    .regex(/^[A-Z]{2}$/, 'Country must be a two-letter ISO code like US')
    .refine(isCountryCode, 'Country must be an ISO 3166-1 alpha-2 code like US (XX and other unassigned codes are refused)'),
});

export const orderItemInputSchema = z
  .object({
    sku: z.string().trim().min(1, 'Each item needs a SKU').max(100),
    quantity: z.number().int().min(1).max(1000),
  })
  .strict();

/** The order API's body (POST /api/v1/orders). */
export const apiOrderInputSchema = z
  .object({
    externalId: z.string().trim().min(1).max(200),
    items: z.array(orderItemInputSchema).min(1).max(100),
    shippingAddress: shippingAddressInputSchema,
  })
  .strict();
export type ApiOrderInput = z.infer<typeof apiOrderInputSchema>;

/** A manual order from /submit-order. */
export const manualOrderInputSchema = z
  .object({
    items: z.array(orderItemInputSchema).min(1).max(100),
    shippingAddress: shippingAddressInputSchema,
    note: z.string().trim().max(1000).default(''),
    targetUserId: z.string().max(100).optional(),
  })
  .strict();
export type ManualOrderInput = z.infer<typeof manualOrderInputSchema>;

export const orderEventSchema = z.object({
  id: z.string(),
  fromStatus: z.enum(ORDER_STATUSES).nullable(),
  toStatus: z.enum(ORDER_STATUSES),
  actorKind: z.enum(['user', 'admin', 'system', 'marketplace']),
  actorEmail: z.string().nullable(),
  reason: z.string(),
  createdAt: z.string(),
});
export type OrderEvent = z.infer<typeof orderEventSchema>;

export const orderSchema = z.object({
  id: z.string(),
  ownerId: z.string(),
  ownerEmail: z.string().optional(),
  platform: z.string(),
  shopId: z.string().nullable(),
  shopName: z.string().nullable(),
  externalId: z.string(),
  status: z.enum(ORDER_STATUSES),
  holdReason: z.string().nullable(),
  customerName: z.string(),
  note: z.string(),
  shippingAddress: shippingAddressSchema,
  currency: z.string(),
  totalCents: z.number().int().nullable(),
  items: z.array(
    z.object({
      id: z.string(),
      sku: z.string(),
      title: z.string(),
      quantity: z.number().int(),
      unitPriceCents: z.number().int().nullable(),
      variantId: z.string().nullable(),
      productName: z.string().nullable(),
    }),
  ),
  events: z.array(orderEventSchema),
  /** The print farm's progress on it (parts printed of the total), null before it has print jobs. */
  production: orderProductionSchema.nullable(),
  /** Its labels, newest attempt last (empty until the farm buys one). */
  shipments: z.array(shipmentSchema),
  placedAt: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** When the seller's change window ends and the order is released (null: no window). */
  releaseAt: z.string().nullable(),
  /** When it was released to production (print jobs made, charged); null before. */
  releasedAt: z.string().nullable(),
  /** Null while the address can be changed and the order cancelled at no cost; else why not, in words. */
  changeWindowClosedReason: z.string().nullable(),
});
export type Order = z.infer<typeof orderSchema>;

/* ---------- Lists, status changes and the spec's helpers (issue 4, orders core) ---------- */

/** An order in a list: no items or events, but how many items it has. */
export const orderSummarySchema = orderSchema.omit({ items: true, events: true, production: true, shipments: true }).extend({
  ownerEmail: z.string(),
  itemCount: z.number().int(),
});
export type OrderSummary = z.infer<typeof orderSummarySchema>;

/**
 * A page of orders, newest placed first (keyset paging: pass `nextCursor` back as `cursor`). No
 * total: counting a million rows for every page would cost more than the page (docs/order-lifecycle.md).
 */
export const orderListSchema = pageSchema(orderSummarySchema);
export type OrderList = z.infer<typeof orderListSchema>;

/** POST /api/orders/:id/status. */
export const orderStatusChangeInputSchema = z
  .object({
    to: z.enum(ORDER_STATUSES),
    reason: z.string().trim().max(500).default(''),
  })
  .strict();
export type OrderStatusChangeInput = z.infer<typeof orderStatusChangeInputSchema>;

/** POST /api/etsy/meta-status: the spec's updateEtsyMetaStatus(targetUserId, receiptId, newStatus). */
export const etsyMetaStatusInputSchema = z
  .object({
    targetUserId: z.string().max(100).optional(),
    receiptId: z.string().trim().min(1).max(100),
    newStatus: z.enum(ORDER_STATUSES),
    reason: z.string().trim().max(500).default(''),
  })
  .strict();
export type EtsyMetaStatusInput = z.infer<typeof etsyMetaStatusInputSchema>;

export const trackingInputSchema = z
  .object({
    trackingNumber: z.string().trim().min(3, 'Enter the tracking number').max(100),
    /** The carrier as the marketplace names it (Etsy: usps, ups, fedex, dhl…). */
    carrierName: z.string().trim().min(2).max(60).default('usps'),
  })
  .strict();
export type TrackingInput = z.infer<typeof trackingInputSchema>;

/** The spec's completeEtsyOrder: userId (the seller, for admins), receiptId, trackingNumber, carrierName. */
export const completeEtsyOrderInputSchema = trackingInputSchema
  .extend({ userId: z.string().max(100).optional(), receiptId: z.string().trim().min(1).max(100) })
  .strict();

/** Statuses from which the seller may still cancel an order themselves (before production). */
export const SELLER_CANCELLABLE_STATUSES: readonly OrderStatus[] = ['received', 'on_hold', 'accepted'];

/* ---------- The change window (issue 24; docs/change-window.md) ---------- */

/** A new shipping address for an order not yet released (the app and the order API). */
export const orderAddressChangeInputSchema = z
  .object({ shippingAddress: shippingAddressInputSchema })
  .strict();
export type OrderAddressChangeInput = z.infer<typeof orderAddressChangeInputSchema>;

/** Cancelling an order not yet released; `reason` goes into its timeline. */
export const orderCancelInputSchema = z
  .object({ reason: z.string().trim().max(500).default('') })
  .strict();
export type OrderCancelInput = z.infer<typeof orderCancelInputSchema>;

/** How long new orders wait before release, so the seller can review them (0 releases at once). */
export const CHANGE_WINDOW_MAX_HOURS = 24;
export const orderSettingsSchema = z
  .object({
    changeWindowHours: z
      .number()
      .int('Whole hours only')
      .min(0, 'The change window is 0 to 24 hours')
      .max(CHANGE_WINDOW_MAX_HOURS, 'The change window is 0 to 24 hours'),
  })
  .strict();
export type OrderSettings = z.infer<typeof orderSettingsSchema>;
