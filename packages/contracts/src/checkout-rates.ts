import { z } from 'zod';

/* ---------- Checkout rates (issue 24; docs/checkout-rates.md) ---------- */

/** One Shopify shop's checkout rates, as the seller's page shows them. */
export const checkoutRatesSettingsSchema = z.object({
  shopId: z.string(),
  shopName: z.string(),
  platform: z.string(),
  enabled: z.boolean(),
  /** The callback Shopify calls (with its secret); null while off. */
  callbackUrl: z.string().nullable(),
  carrierServiceId: z.string().nullable(),
  registeredAt: z.string().nullable(),
  /** Why turning them on failed, in the marketplace's words ('' when it did not). */
  lastError: z.string(),
});
export type CheckoutRatesSettings = z.infer<typeof checkoutRatesSettingsSchema>;

export const checkoutRatesListSchema = z.object({ items: z.array(checkoutRatesSettingsSchema) });
export type CheckoutRatesList = z.infer<typeof checkoutRatesListSchema>;

export const checkoutRatesInputSchema = z.object({ enabled: z.boolean() }).strict();
export type CheckoutRatesInput = z.infer<typeof checkoutRatesInputSchema>;

/** A rate offered at checkout: what the buyer pays for shipping and when it arrives. */
export const checkoutRateSchema = z.object({
  serviceName: z.string(),
  /** Stable across requests: the carrier's code and its service's. */
  serviceCode: z.string(),
  description: z.string(),
  totalCents: z.number().int(),
  currency: z.string(),
  /** YYYY-MM-DD (UTC); null when the carrier gives no transit time. */
  minDeliveryDate: z.string().nullable(),
  maxDeliveryDate: z.string().nullable(),
});
export type CheckoutRate = z.infer<typeof checkoutRateSchema>;

/** The seller's preview of their checkout rates: a destination and a cart of their SKUs. */
export const checkoutRatesPreviewInputSchema = z
  .object({
    destination: z
      .object({
        country: z.string().trim().regex(/^[A-Z]{2}$/, 'Country must be a two-letter ISO code like US'),
        postalCode: z.string().trim().min(1, 'Postal code is required').max(32),
        region: z.string().trim().max(120).default(''),
        city: z.string().trim().max(120).default(''),
      })
      .strict(),
    items: z
      .array(z.object({ sku: z.string().trim().min(1).max(100), quantity: z.number().int().min(1).max(1000) }).strict())
      .min(1)
      .max(100),
  })
  .strict();
export type CheckoutRatesPreviewInput = z.infer<typeof checkoutRatesPreviewInputSchema>;

export const checkoutRatesPreviewSchema = z.object({
  rates: z.array(checkoutRateSchema),
  /** Why there are none, in words ('' when there are). */
  reason: z.string(),
  elapsedMs: z.number(),
});
export type CheckoutRatesPreview = z.infer<typeof checkoutRatesPreviewSchema>;
