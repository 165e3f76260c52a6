import { z } from 'zod';
import type { ShippingAddress } from '@layerline/contracts';
import {
  MalformedOrderError,
  MarketplaceRejectedError,
  type MarketplaceListing,
  type MarketplaceOrder,
} from '../../modules/shops/connector.ts';

/**
 * Shopify payloads → connector types. Orders arrive two ways, which must agree on ids so ingestion
 * deduplicates them: the GraphQL poll (gid://shopify/Order/123) and the orders/* webhook (REST
 * JSON, where `id` can exceed 2^53, so the string `admin_graphql_api_id` is used). externalId is
 * the numeric part of the gid in both; line items likewise.
 */

/** "gid://shopify/Order/820982911946154508" → "820982911946154508". */
export const shopifyLegacyId = (gid: string): string => {
  const match = /^gid:\/\/shopify\/[A-Za-z]+\/(\d+)(\?.*)?$/.exec(gid);
  if (!match) throw new MarketplaceRejectedError(`Not a Shopify id: ${gid.slice(0, 80)}`, 422);
  return match[1]!;
};

export const shopifyOrderGid = (externalId: string): string => {
  if (!/^\d{1,20}$/.test(externalId))
    throw new MarketplaceRejectedError('A Shopify order id must be numeric', 400);
  return `gid://shopify/Order/${externalId}`;
};

/** A decimal string ("199.65") → cents, without floating-point error; null when not a number. */
export const shopifyMoneyToCents = (value: string | number | null | undefined): number | null => {
  if (value === null || value === undefined) return null;
  const text = String(value).trim();
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return null;
  const [, sign, whole, fraction = ''] = match;
  const padded = `${fraction}000`;
  let cents = Number(whole) * 100 + Number(padded.slice(0, 2));
  if (Number(padded[2]) >= 5) cents += 1;
  return sign === '-' ? -cents : cents;
};

const moneyBag = z
  .object({ shopMoney: z.object({ amount: z.string(), currencyCode: z.string() }) })
  .nullish();

export const shopifyShopResponse = z.object({
  shop: z.object({ id: z.string(), name: z.string(), myshopifyDomain: z.string(), currencyCode: z.string() }),
});

const pageInfo = z.object({ hasNextPage: z.boolean(), endCursor: z.string().nullish() });

const variantNode = z.object({
  id: z.string(),
  sku: z.string().nullish(),
  title: z.string().nullish(),
  price: z.string().nullish(),
  image: z.object({ url: z.string() }).nullish(),
  product: z.object({
    id: z.string(),
    title: z.string(),
    status: z.string(),
    onlineStoreUrl: z.string().nullish(),
    hasOnlyDefaultVariant: z.boolean().nullish(),
    featuredMedia: z
      .object({ preview: z.object({ image: z.object({ url: z.string() }).nullish() }).nullish() })
      .nullish(),
  }),
});
export type ShopifyVariantNode = z.infer<typeof variantNode>;

export const shopifyVariantsResponse = z.object({
  productVariants: z.object({ nodes: z.array(variantNode), pageInfo }),
});

const addressNode = z
  .object({
    name: z.string().nullish(),
    company: z.string().nullish(),
    address1: z.string().nullish(),
    address2: z.string().nullish(),
    city: z.string().nullish(),
    provinceCode: z.string().nullish(),
    province: z.string().nullish(),
    zip: z.string().nullish(),
    countryCodeV2: z.string().nullish(),
    phone: z.string().nullish(),
  })
  .nullish();

const orderNode = z.object({
  id: z.string(),
  name: z.string().nullish(),
  createdAt: z.string(),
  cancelledAt: z.string().nullish(),
  email: z.string().nullish(),
  currencyCode: z.string(),
  totalPriceSet: moneyBag,
  shippingAddress: addressNode,
  lineItems: z.object({
    nodes: z.array(
      z.object({
        id: z.string(),
        sku: z.string().nullish(),
        title: z.string(),
        quantity: z.number().int(),
        requiresShipping: z.boolean().nullish(),
        originalUnitPriceSet: moneyBag,
      }),
    ),
  }),
});
export type ShopifyOrderNode = z.infer<typeof orderNode>;

export const shopifyOrdersResponse = z.object({ orders: z.object({ nodes: z.array(orderNode), pageInfo }) });

export const shopifyFulfillmentOrdersResponse = z.object({
  order: z
    .object({
      id: z.string(),
      fulfillmentOrders: z.object({ nodes: z.array(z.object({ id: z.string(), status: z.string() })) }),
    })
    .nullable(),
});

export const shopifyFulfillmentCreateResponse = z.object({
  fulfillmentCreate: z
    .object({
      fulfillment: z.object({ id: z.string(), status: z.string() }).nullish(),
      userErrors: z.array(z.object({ field: z.array(z.string()).nullish(), message: z.string() })),
    })
    .nullable(),
});

export const shopifyWebhookSubscriptionCreateResponse = z.object({
  webhookSubscriptionCreate: z
    .object({
      webhookSubscription: z.object({ id: z.string(), topic: z.string(), uri: z.string() }).nullish(),
      userErrors: z.array(z.object({ field: z.array(z.string()).nullish(), message: z.string() })),
    })
    .nullable(),
});

const userErrors = z.array(z.object({ field: z.array(z.string()).nullish(), message: z.string() }));

export const shopifyCarrierServiceCreateResponse = z.object({
  carrierServiceCreate: z
    .object({
      carrierService: z.object({ id: z.string(), name: z.string().nullish(), callbackUrl: z.string().nullish(), active: z.boolean() }).nullish(),
      userErrors,
    })
    .nullable(),
});

export const shopifyCarrierServiceDeleteResponse = z.object({
  carrierServiceDelete: z.object({ deletedId: z.string().nullish(), userErrors }).nullable(),
});

export const shopifyTokenResponse = z.object({
  access_token: z.string().min(1),
  scope: z.string().optional(),
});

export const mapShopifyVariant = (
  variant: ShopifyVariantNode,
  currency: string | null,
): MarketplaceListing => ({
  externalListingId: shopifyLegacyId(variant.product.id),
  externalVariantId: variant.product.hasOnlyDefaultVariant ? '' : shopifyLegacyId(variant.id),
  title:
    variant.product.hasOnlyDefaultVariant || !variant.title
      ? variant.product.title
      : `${variant.product.title} – ${variant.title}`,
  sku: (variant.sku ?? '').trim(),
  priceCents: shopifyMoneyToCents(variant.price),
  currency,
  url: variant.product.onlineStoreUrl ?? null,
  imageUrl: variant.image?.url ?? variant.product.featuredMedia?.preview?.image?.url ?? null,
});

const str = (value: string | null | undefined): string => (value ?? '').trim();
const email = (value: string | null | undefined): string =>
  value && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) ? value : '';

/** The fields both Shopify order shapes (GraphQL and webhook) name alike. */
interface ShopifyAddressFields {
  company?: string | null;
  address1?: string | null;
  address2?: string | null;
  city?: string | null;
  province?: string | null;
  zip?: string | null;
  phone?: string | null;
}

/** Our shipping address from either shape; they differ only in how the region and country codes are named. */
function shippingAddress(
  name: string,
  address: ShopifyAddressFields | null | undefined,
  provinceCode: string | null | undefined,
  countryCode: string | null | undefined,
  orderEmail: string | null | undefined,
): ShippingAddress {
  return {
    name,
    company: str(address?.company),
    line1: str(address?.address1),
    line2: str(address?.address2),
    city: str(address?.city),
    region: str(provinceCode) || str(address?.province),
    postalCode: str(address?.zip),
    country: str(countryCode).toUpperCase(),
    phone: str(address?.phone),
    email: email(orderEmail),
  };
}

export const mapShopifyOrderNode = (order: ShopifyOrderNode): MarketplaceOrder => {
  const address = order.shippingAddress;
  const name = str(address?.name);
  return {
    externalId: shopifyLegacyId(order.id),
    placedAt: new Date(order.createdAt),
    customerName: name,
    shippingAddress: shippingAddress(
      name,
      address,
      address?.provinceCode,
      address?.countryCodeV2,
      order.email,
    ),
    currency: order.totalPriceSet?.shopMoney.currencyCode ?? order.currencyCode,
    totalCents: shopifyMoneyToCents(order.totalPriceSet?.shopMoney.amount),
    cancelled: Boolean(order.cancelledAt),
    items: order.lineItems.nodes
      .filter((item) => item.requiresShipping !== false)
      .map((item) => ({
        externalItemId: shopifyLegacyId(item.id),
        sku: str(item.sku),
        title: item.title,
        quantity: item.quantity,
        unitPriceCents: shopifyMoneyToCents(item.originalUnitPriceSet?.shopMoney.amount),
      })),
  };
};

/** The orders/create and orders/updated webhook body (REST JSON; the fields we read). */
const webhookAddress = z
  .object({
    name: z.string().nullish(),
    first_name: z.string().nullish(),
    last_name: z.string().nullish(),
    company: z.string().nullish(),
    address1: z.string().nullish(),
    address2: z.string().nullish(),
    city: z.string().nullish(),
    province: z.string().nullish(),
    province_code: z.string().nullish(),
    zip: z.string().nullish(),
    country_code: z.string().nullish(),
    phone: z.string().nullish(),
  })
  .nullish();

const webhookOrder = z.object({
  admin_graphql_api_id: z.string(),
  created_at: z.string(),
  cancelled_at: z.string().nullish(),
  email: z.string().nullish(),
  currency: z.string(),
  total_price: z.union([z.string(), z.number()]).nullish(),
  shipping_address: webhookAddress,
  line_items: z.array(
    z.object({
      admin_graphql_api_id: z.string(),
      sku: z.string().nullish(),
      title: z.string().nullish(),
      name: z.string().nullish(),
      quantity: z.number().int(),
      price: z.union([z.string(), z.number()]).nullish(),
      requires_shipping: z.boolean().nullish(),
    }),
  ),
});

/** Parses a verified orders/* webhook body (JSON already parsed) into an order. */
export const parseShopifyOrderWebhook = (body: unknown): MarketplaceOrder => {
  const result = webhookOrder.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new MalformedOrderError(
      `The Shopify order webhook has an unexpected shape${issue ? ` (${issue.path.join('.') || 'body'}: ${issue.message})` : ''}`,
    );
  }
  const order = result.data;
  const address = order.shipping_address;
  const name =
    str(address?.name) || [str(address?.first_name), str(address?.last_name)].filter(Boolean).join(' ');
  return {
    externalId: shopifyLegacyId(order.admin_graphql_api_id),
    placedAt: new Date(order.created_at),
    customerName: name,
    shippingAddress: shippingAddress(
      name,
      address,
      address?.province_code,
      address?.country_code,
      order.email,
    ),
    currency: order.currency,
    totalCents: shopifyMoneyToCents(order.total_price),
    cancelled: Boolean(order.cancelled_at),
    items: order.line_items
      .filter((item) => item.requires_shipping !== false)
      .map((item) => ({
        externalItemId: shopifyLegacyId(item.admin_graphql_api_id),
        sku: str(item.sku),
        title: item.title ?? item.name ?? '',
        quantity: item.quantity,
        unitPriceCents: shopifyMoneyToCents(item.price),
      })),
  };
};
