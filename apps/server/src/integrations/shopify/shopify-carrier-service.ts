import { z } from 'zod';
import type { CheckoutRate } from '@layerline/contracts';
import type { CarrierCallbackFormat, CheckoutRateRequest } from '../../modules/checkout-rates/checkout-rates-service.ts';

/*
 * Shopify's carrier service callback (CarrierService), as Shopify publishes it in the description of
 * `DeliveryCarrierService` in its Admin schema 2026-01 — quoted in carrier-service-callback.md beside
 * this file, which the contract test (shopify-carrier-service.contract.test.ts) reads back.
 */

const nullableText = z.string().nullish();

/** The address fields Shopify sends; only address1, address2, city, zip/postal_code, province and country are filled for API-created services. */
const rateAddressSchema = z.object({
  country: z.string(),
  postal_code: nullableText,
  province: nullableText,
  city: nullableText,
  name: nullableText,
  address1: nullableText,
  address2: nullableText,
  address3: nullableText,
  phone: nullableText,
  fax: nullableText,
  email: nullableText,
  address_type: nullableText,
  company_name: nullableText,
});

/** The request body Shopify POSTs to the callback URL at checkout (its example request). */
export const shopifyRateRequestSchema = z.object({
  rate: z.object({
    origin: rateAddressSchema,
    destination: rateAddressSchema,
    items: z.array(
      z.object({
        name: z.string(),
        sku: nullableText,
        quantity: z.number().int().min(1),
        grams: z.number(),
        /** In the shop currency's subunits. */
        price: z.number(),
        vendor: nullableText,
        requires_shipping: z.boolean(),
        taxable: z.boolean().optional(),
        fulfillment_service: nullableText,
        properties: z.unknown().optional(),
        product_id: z.number().nullish(),
        variant_id: z.number().nullish(),
      }),
    ),
    currency: z.string(),
    locale: z.string().optional(),
  }),
});
export type ShopifyRateRequest = z.infer<typeof shopifyRateRequestSchema>;

/** One rate of the answer: the published "Response fields" (required: service_name, description, service_code, currency, total_price). */
export const shopifyRateSchema = z
  .object({
    service_name: z.string().min(1),
    description: z.string(),
    service_code: z.string().min(1),
    currency: z.string().regex(/^[A-Z]{3}$/),
    /** Subunits, as a string of digits (the example answers "1295"). */
    total_price: z.string().regex(/^\d+$/),
    phone_required: z.boolean().optional(),
    min_delivery_date: z.string().optional(),
    max_delivery_date: z.string().optional(),
  })
  .strict();

export const shopifyRateResponseSchema = z.object({ rates: z.array(shopifyRateSchema) }).strict();
export type ShopifyRateResponse = z.infer<typeof shopifyRateResponseSchema>;

/** A day as Shopify's example dates are written ("2013-04-12 14:48:45 -0400"): noon UTC of that day. */
const shopifyDate = (day: string) => `${day} 12:00:00 +0000`;

export const shopifyCarrierCallback: CarrierCallbackFormat = {
  parse(body: unknown): CheckoutRateRequest {
    const parsed = shopifyRateRequestSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`Not a Shopify rate request: ${issue.path.join('.') || 'body'}: ${issue.message}`);
    }
    const { destination, items } = parsed.data.rate;
    return {
      destination: {
        name: destination.name ?? '',
        company: destination.company_name ?? '',
        line1: destination.address1 ?? '',
        line2: destination.address2 ?? '',
        city: destination.city ?? '',
        region: destination.province ?? '',
        postalCode: destination.postal_code ?? '',
        country: destination.country.toUpperCase(),
        phone: destination.phone ?? '',
        email: destination.email ?? '',
      },
      // An item without a SKU is no product of ours: it makes the cart one we cannot ship.
      items: items.map((item) => ({ sku: (item.sku ?? '').trim(), quantity: item.quantity, requiresShipping: item.requires_shipping })),
    };
  },

  answer(rates: readonly CheckoutRate[]): ShopifyRateResponse {
    return {
      rates: rates.map((rate) => ({
        service_name: rate.serviceName,
        description: rate.description,
        service_code: rate.serviceCode,
        currency: rate.currency,
        total_price: String(rate.totalCents),
        ...(rate.minDeliveryDate ? { min_delivery_date: shopifyDate(rate.minDeliveryDate) } : {}),
        ...(rate.maxDeliveryDate ? { max_delivery_date: shopifyDate(rate.maxDeliveryDate) } : {}),
      })),
    };
  },
};
