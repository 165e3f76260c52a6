import { z } from 'zod';
import { isoDateOrTimeSchema } from './dates.ts';
import { shippingAddressSchema } from './orders.ts';
import { parcelPlanSchema, SHIPPING_INTEGRATIONS, type ShippingIntegration } from './shipments.ts';

/**
 * Shipping and fulfilment history (issue 12; docs/shipping.md). Labels are bought on the seller's own
 * shipping account (ShipStation or Shippo) or, on the embedded default and the demo, from the built-in
 * sandbox carrier. These are the shapes the server and the pages share.
 */

export const SHIPPING_INTEGRATION_LABELS: Readonly<Record<ShippingIntegration, string>> = {
  sandbox: 'Sandbox carrier (test labels)',
  shipstation: 'ShipStation',
  shippo: 'Shippo',
};

/** ShipStation's classic API (key + secret, Basic auth) or its v2 API (one API key). */
export const SHIPSTATION_API_VERSIONS = ['v1', 'v2'] as const;
export type ShipStationApiVersion = (typeof SHIPSTATION_API_VERSIONS)[number];

/** The spec's storeShipStationKeys (apiKey, apiSecret); v2 keys have no secret. */
export const storeShipStationKeysInputSchema = z
  .object({
    apiKey: z.string().trim().min(8, 'Enter the ShipStation API key').max(200),
    apiSecret: z.string().trim().max(200).default(''),
    apiVersion: z.enum(SHIPSTATION_API_VERSIONS).default('v1'),
    targetUserId: z.string().optional(),
  })
  .strict()
  .refine((input) => input.apiVersion === 'v2' || input.apiSecret.length >= 8, {
    message: 'Enter the ShipStation API secret (the classic API needs the key and the secret)',
    path: ['apiSecret'],
  });
export type StoreShipStationKeysInput = z.infer<typeof storeShipStationKeysInputSchema>;

/** The spec's getShipStationKeys: whether keys exist and their last 4 characters, never the keys. */
export const shipStationKeysSchema = z.object({
  configured: z.boolean(),
  apiVersion: z.enum(SHIPSTATION_API_VERSIONS).nullable(),
  apiKeyLast4: z.string().nullable(),
  apiSecretLast4: z.string().nullable(),
  updatedAt: z.string().nullable(),
});
export type ShipStationKeys = z.infer<typeof shipStationKeysSchema>;

/** The spec's checkShippoConnection. */
export const shippoConnectionSchema = z.object({
  /** Whether this server has Shippo app credentials (SHIPPO_CLIENT_ID/SECRET or SHIPPO_API_TOKEN). */
  available: z.boolean(),
  connected: z.boolean(),
  connectedAt: z.string().nullable(),
});
export type ShippoConnection = z.infer<typeof shippoConnectionSchema>;

/** The spec's exchangeShippoToken: the code and the state from Shippo's redirect. */
export const exchangeShippoTokenInputSchema = z
  .object({ code: z.string().trim().min(1, 'The authorisation code is missing').max(500), state: z.string().trim().min(1, 'The authorisation state is missing').max(200) })
  .strict();

/** The spec's setShippingIntegration. */
export const setShippingIntegrationInputSchema = z
  .object({ integration: z.enum(SHIPPING_INTEGRATIONS), targetUserId: z.string().optional() })
  .strict();

/** A seller's shipping settings (Account settings → Shipping). */
export const shippingSettingsSchema = z.object({
  integration: z.enum(SHIPPING_INTEGRATIONS),
  /** Whether this server has the sandbox carrier (SHIPPING_SANDBOX; off in production by default). */
  sandboxAvailable: z.boolean(),
  shipStation: shipStationKeysSchema,
  shippo: shippoConnectionSchema,
  /** The shipping profile that applies to this seller's orders (their delivery promise). */
  profile: z.object({ id: z.string(), name: z.string(), promise: z.string() }),
  /** Where the seller points ShipStation's SHIP_NOTIFY webhook (Settings → Integrations → Webhooks in ShipStation). */
  shipStationWebhookUrl: z.string(),
});
export type ShippingSettings = z.infer<typeof shippingSettingsSchema>;

/* ---------- Shipping profiles (admin, /shipping-profiles) ---------- */

export const SHIPPING_ZONES = ['domestic', 'international'] as const;
export type ShippingZone = (typeof SHIPPING_ZONES)[number];

const mm = z.number().positive().max(2000);

export const parcelSizeSchema = z
  .object({
    id: z.string().trim().min(1).max(40),
    name: z.string().trim().min(1, 'Name the parcel').max(80),
    /** Inside dimensions, mm. */
    lengthMm: mm,
    widthMm: mm,
    heightMm: mm,
    /** The empty box and its filling, grams. */
    tareGrams: z.number().min(0).max(20_000),
    /** The most it may weigh packed, grams. */
    maxGrams: z.number().positive().max(70_000),
    /** What the box and filling cost, cents (the fulfilment record's packaging). */
    costCents: z.number().int().min(0).max(100_000),
  })
  .strict();
export type ParcelSize = z.infer<typeof parcelSizeSchema>;

export const zoneServiceSchema = z
  .object({
    zone: z.enum(SHIPPING_ZONES),
    /** Carrier and service codes to prefer in this zone ('' = any). */
    carrier: z.string().trim().max(60).default(''),
    service: z.string().trim().max(80).default(''),
  })
  .strict();

export const shippingProfileInputSchema = z
  .object({
    name: z.string().trim().min(1, 'Name the profile').max(80),
    /** Working days between packing and handing over to the carrier. */
    handlingDays: z.number().int().min(0).max(30),
    /** The seller's delivery promise: delivered within this many days of packing. */
    promiseLabel: z.string().trim().min(1, 'Name the promise, e.g. Standard').max(60),
    promiseDays: z.number().int().min(1).max(60),
    /** Where parcels ship from (the farm). */
    origin: shippingAddressSchema,
    parcels: z.array(parcelSizeSchema).min(1, 'Add at least one parcel size').max(20),
    zoneServices: z.array(zoneServiceSchema).max(10).default([]),
    isDefault: z.boolean().default(false),
  })
  .strict();
export type ShippingProfileInput = z.infer<typeof shippingProfileInputSchema>;

export const shippingProfileSchema = shippingProfileInputSchema.safeExtend({
  id: z.string(),
  /** How many sellers this profile is assigned to (others use the default). */
  sellerCount: z.number().int(),
  updatedAt: z.string(),
});
export type ShippingProfile = z.infer<typeof shippingProfileSchema>;

export const assignShippingProfileInputSchema = z.object({ profileId: z.uuid('Not a shipping profile id').nullable(), targetUserId: z.string() }).strict();

/* ---------- Rates, labels and shipments ---------- */

export const shippingRateSchema = z.object({
  /** The provider's rate id (or ours for the sandbox), passed back to buy this rate. */
  rateId: z.string(),
  provider: z.enum(SHIPPING_INTEGRATIONS),
  carrier: z.string(),
  service: z.string(),
  serviceCode: z.string(),
  amountCents: z.number().int(),
  currency: z.string(),
  /** Transit days the carrier estimates, null when it gives none. */
  estimatedDays: z.number().int().nullable(),
  /** Handling + transit within the seller's delivery promise. */
  meetsPromise: z.boolean(),
  /** The one the farm buys unless a person picks another: the cheapest that meets the promise. */
  recommended: z.boolean(),
});
export type ShippingRate = z.infer<typeof shippingRateSchema>;

/** What the packing station sees before buying: the parcel plan and each parcel's rates. */
export const orderRatesSchema = z.object({
  orderId: z.string(),
  integration: z.enum(SHIPPING_INTEGRATIONS),
  promise: z.string(),
  parcels: z.array(z.object({ parcel: parcelPlanSchema, rates: z.array(shippingRateSchema) })),
});
export type OrderRates = z.infer<typeof orderRatesSchema>;

export const buyLabelInputSchema = z
  .object({
    /** One chosen rate per parcel, in the plan's order; absent: the recommended ones. */
    rateIds: z.array(z.string().min(1).max(4000)).max(20).optional(),
  })
  .strict();

export const trackingEventSchema = z.object({
  status: z.string(),
  description: z.string(),
  location: z.string(),
  occurredAt: z.string(),
});

/* ---------- The spec's provider calls (ShipStation, Shippo) ---------- */

/** Rate data as ShipStation's getrates takes it (the spec's getShipStationRates), plus targetUserId. */
export const shipStationRatesInputSchema = z
  .object({
    targetUserId: z.string().optional(),
    carrierCode: z.string().trim().max(60).optional(),
    serviceCode: z.string().trim().max(80).optional(),
    fromPostalCode: z.string().trim().min(1).max(32),
    toCountry: z.string().trim().regex(/^[A-Z]{2}$/),
    toPostalCode: z.string().trim().min(1).max(32),
    toState: z.string().trim().max(60).optional(),
    toCity: z.string().trim().max(120).optional(),
    weight: z.object({ value: z.number().positive(), units: z.enum(['ounces', 'grams', 'pounds']) }).strict(),
    dimensions: z
      .object({ length: z.number().positive(), width: z.number().positive(), height: z.number().positive(), units: z.enum(['inches', 'centimeters']) })
      .strict()
      .optional(),
    residential: z.boolean().optional(),
  })
  .strict();

/** The spec's createShipStationLabel / createShipStationLabelForOrder: label data for one of our orders. */
export const shipStationLabelInputSchema = z
  .object({
    targetUserId: z.string().optional(),
    /** Our order (its address and parcel plan are used). */
    orderId: z.uuid('Not a valid order id'),
    /** A rate from getShipStationRates (carrier + service); absent: the recommended rate. */
    rateId: z.string().min(1).max(4000).optional(),
    testLabel: z.boolean().default(false),
  })
  .strict();

/** The spec's createShipStationLabelForOrder: a label for an order that lives in ShipStation. */
export const shipStationLabelForOrderInputSchema = z
  .object({
    targetUserId: z.string().optional(),
    /** ShipStation's own order id. */
    shipStationOrderId: z.number().int().positive(),
    carrierCode: z.string().trim().min(1).max(60),
    serviceCode: z.string().trim().min(1).max(80),
    packageCode: z.string().trim().max(60).default('package'),
    weight: z.object({ value: z.number().positive(), units: z.enum(['ounces', 'grams', 'pounds']) }).strict(),
    testLabel: z.boolean().default(false),
  })
  .strict();

/** The spec's markShipStationOrderShipped. */
export const markShipStationOrderShippedInputSchema = z
  .object({
    targetUserId: z.string().optional(),
    shipStationOrderId: z.number().int().positive(),
    carrierCode: z.string().trim().min(1).max(60),
    trackingNumber: z.string().trim().min(3).max(100),
    shipDate: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional(),
    notifyCustomer: z.boolean().default(true),
    notifySalesChannel: z.boolean().default(true),
  })
  .strict();

/** The spec's getShippoRates (targetUserId, shippingInfo). */
export const shippoRatesInputSchema = z
  .object({
    targetUserId: z.string().optional(),
    shippingInfo: z
      .object({
        /** Our order: its address and parcel plan. */
        orderId: z.uuid('Not a valid order id'),
      })
      .strict(),
  })
  .strict();

/** The spec's purchaseShippoLabel (label data): an order and the rate chosen. */
export const purchaseShippoLabelInputSchema = z
  .object({
    targetUserId: z.string().optional(),
    orderId: z.uuid('Not a valid order id'),
    rateId: z.string().min(1).max(4000).optional(),
  })
  .strict();

/** An order in the seller's Shippo account (the spec's fetchShippoOrders). */
export const shippoOrderSchema = z.object({
  objectId: z.string(),
  orderNumber: z.string(),
  status: z.string(),
  placedAt: z.string().nullable(),
  toName: z.string(),
  toCountry: z.string(),
  itemCount: z.number().int(),
});

/* ---------- Fulfilment history ---------- */

export const fulfillmentRecordSchema = z.object({
  id: z.string(),
  orderId: z.string().nullable(),
  shipmentId: z.string().nullable(),
  ownerId: z.string(),
  /** The seller's business name, else their email. */
  sellerName: z.string(),
  channel: z.string(),
  orderNumber: z.string(),
  buyerName: z.string(),
  items: z.array(z.object({ sku: z.string(), title: z.string(), quantity: z.number().int() })),
  printCostCents: z.number().int(),
  packagingCents: z.number().int(),
  shippingCents: z.number().int(),
  totalCents: z.number().int(),
  currency: z.string(),
  carrier: z.string(),
  service: z.string(),
  trackingNumber: z.string(),
  trackingUrl: z.string(),
  labelUrl: z.string().nullable(),
  shippedAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  createdAt: z.string(),
  /**
   * What the seller paid for the order: its charges less refunds (issue 13; null when never charged).
   * Charged when it entered production with a shipping estimate; `totalCents` is what the label cost.
   */
  chargedCents: z.number().int().nullable(),
});
export type FulfillmentRecord = z.infer<typeof fulfillmentRecordSchema>;

/** The spec's fulfilment history query: page (1), limit (50), startDate, endDate, searchTerm, orderBy, orderDirection. */
export const fulfillmentHistoryQuerySchema = z
  .object({
    page: z.coerce.number().int().min(1, 'page starts at 1').max(100_000).default(1),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    startDate: isoDateOrTimeSchema.optional(),
    endDate: isoDateOrTimeSchema.optional(),
    searchTerm: z.string().trim().max(100).optional(),
    /** The spec names createdAt; it is the only order kept indexed for a million rows. */
    orderBy: z.enum(['createdAt']).default('createdAt'),
    orderDirection: z.enum(['asc', 'desc']).default('desc'),
    /** Admins: one seller's records. */
    sellerId: z.string().max(100).optional(),
  })
  .strict();
export type FulfillmentHistoryQuery = z.infer<typeof fulfillmentHistoryQuerySchema>;

export const fulfillmentHistoryPageSchema = z.object({
  items: z.array(fulfillmentRecordSchema),
  page: z.number().int(),
  limit: z.number().int(),
  /** Matching records, counted up to 10,000, or 1,000 with a searchTerm (`totalCapped` says the real number is larger). */
  total: z.number().int(),
  totalCapped: z.boolean(),
  hasMore: z.boolean(),
});
export type FulfillmentHistoryPage = z.infer<typeof fulfillmentHistoryPageSchema>;

/** Monthly volume and spend for the chart (same filters as the list). */
export const fulfillmentMonthlySchema = z.object({
  months: z.array(z.object({ month: z.string(), shipments: z.number().int(), spendCents: z.number().int() })),
});
export type FulfillmentMonthly = z.infer<typeof fulfillmentMonthlySchema>;

/** The spec's createFulfillmentHistoryRecord (admins): a shipment made outside the farm's own labels. */
export const createFulfillmentRecordInputSchema = z
  .object({
    targetUserId: z.string().min(1, 'Choose the seller'),
    orderId: z.uuid('Not a valid order id').optional(),
    channel: z.string().trim().min(1).max(40).default('manual'),
    orderNumber: z.string().trim().min(1, 'Enter the order number').max(100),
    buyerName: z.string().trim().max(120).default(''),
    items: z.array(z.object({ sku: z.string().trim().max(100), title: z.string().trim().max(200).default(''), quantity: z.number().int().min(1).max(10_000) }).strict()).max(200).default([]),
    printCostCents: z.number().int().min(0).max(100_000_000).default(0),
    packagingCents: z.number().int().min(0).max(10_000_000).default(0),
    shippingCents: z.number().int().min(0).max(10_000_000).default(0),
    currency: z.string().regex(/^[A-Z]{3}$/).default('USD'),
    carrier: z.string().trim().max(60).default(''),
    service: z.string().trim().max(80).default(''),
    trackingNumber: z.string().trim().max(100).default(''),
    trackingUrl: z.union([z.url({ protocol: /^https?$/, error: 'The tracking URL must be a web address (https://…)' }), z.literal('')]).default(''),
    shippedAt: isoDateOrTimeSchema.optional(),
  })
  .strict();
export type CreateFulfillmentRecordInput = z.infer<typeof createFulfillmentRecordInputSchema>;

/** Tracking write-backs that failed for good: admins see them and can retry. */
export const failedWritebackSchema = z.object({
  shipmentId: z.string(),
  orderId: z.string(),
  orderNumber: z.string(),
  platform: z.string(),
  trackingNumber: z.string(),
  error: z.string(),
  attempts: z.number().int(),
  updatedAt: z.string(),
});
