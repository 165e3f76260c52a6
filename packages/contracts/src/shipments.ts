import { z } from 'zod';

/**
 * A parcel's label as an order shows it (issue 12; docs/shipping.md). Apart from shipping.ts so the
 * order schema can carry its shipments without an import cycle.
 */

export const SHIPPING_INTEGRATIONS = ['sandbox', 'shipstation', 'shippo'] as const;
export type ShippingIntegration = (typeof SHIPPING_INTEGRATIONS)[number];

export const parcelPlanSchema = z.object({
  parcelId: z.string(),
  name: z.string(),
  lengthMm: z.number(),
  widthMm: z.number(),
  heightMm: z.number(),
  weightGrams: z.number(),
  /** The print jobs (parts) that go in this parcel. */
  partCount: z.number().int(),
});
export type ParcelPlan = z.infer<typeof parcelPlanSchema>;

export const SHIPMENT_STATUSES = ['purchasing', 'purchased', 'in_transit', 'delivered', 'voided', 'failed'] as const;
export type ShipmentStatus = (typeof SHIPMENT_STATUSES)[number];
export const WRITEBACK_STATUSES = ['none', 'pending', 'sent', 'failed'] as const;

export const shipmentSchema = z.object({
  id: z.string(),
  orderId: z.string(),
  provider: z.enum(SHIPPING_INTEGRATIONS),
  /** 1 for the first label of this parcel; a void and re-buy is attempt 2. */
  attempt: z.number().int(),
  parcelIndex: z.number().int(),
  parcelCount: z.number().int(),
  parcel: parcelPlanSchema,
  status: z.enum(SHIPMENT_STATUSES),
  carrier: z.string().nullable(),
  service: z.string().nullable(),
  trackingNumber: z.string().nullable(),
  trackingUrl: z.string().nullable(),
  /** Where the label PDF is served (null until bought). */
  labelUrl: z.string().nullable(),
  costCents: z.number().int().nullable(),
  currency: z.string(),
  /** The last tracking status in words ("In transit: Memphis, TN"). */
  trackingStatus: z.string().nullable(),
  /** Whether the marketplace (or API webhook) has the tracking. */
  writeback: z.enum(WRITEBACK_STATUSES),
  writebackError: z.string().nullable(),
  error: z.string().nullable(),
  shippedAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  createdAt: z.string(),
});
export type Shipment = z.infer<typeof shipmentSchema>;

/** The words that start every hold the shipping step puts on an order (buying the label again releases it). */
export const SHIPPING_HOLD_PREFIX = 'Shipping:';
