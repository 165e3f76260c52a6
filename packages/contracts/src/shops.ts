import { z } from 'zod';
import { pageSchema } from './paging.ts';

/** Marketplaces and other order channels. */
export const PLATFORMS = [
  'sandbox',
  'etsy',
  'shopify',
  'api',
  'woocommerce',
  'ebay',
  'amazon',
  'walmart',
  'tiktok',
] as const;
export type Platform = (typeof PLATFORMS)[number];

export const PLATFORM_LABELS: Readonly<Record<Platform, string>> = {
  sandbox: 'Sandbox shop',
  etsy: 'Etsy',
  shopify: 'Shopify',
  api: 'Order API',
  woocommerce: 'WooCommerce',
  ebay: 'eBay',
  amazon: 'Amazon',
  walmart: 'Walmart',
  tiktok: 'TikTok Shop',
};

export const shopConnectionSchema = z.object({
  id: z.string(),
  platform: z.enum(PLATFORMS),
  name: z.string(),
  externalShopId: z.string(),
  status: z.enum(['connected', 'error', 'disconnected']),
  statusMessage: z.string().nullable(),
  lastSyncedAt: z.string().nullable(),
  listingCount: z.number().int(),
  createdAt: z.string(),
});
export type ShopConnection = z.infer<typeof shopConnectionSchema>;

export const listingSchema = z.object({
  id: z.string(),
  shopId: z.string(),
  shopName: z.string(),
  platform: z.enum(PLATFORMS),
  externalListingId: z.string(),
  externalVariantId: z.string(),
  title: z.string(),
  sku: z.string(),
  priceCents: z.number().int().nullable(),
  currency: z.string().nullable(),
  url: z.string().nullable(),
  imageUrl: z.string().nullable(),
  linkedVariantId: z.string().nullable(),
  linkedVariantLabel: z.string().nullable(),
  linkSource: z.enum(['sku', 'manual']).nullable(),
});
export type Listing = z.infer<typeof listingSchema>;

/* ---------- Connecting, syncing and linking (issue 4, shops core) ---------- */

/**
 * GET /api/listings: the seller's listings by title (then id), keyset-paged. `total`: the seller's
 * listings matching the filters (one seller's rows: cheap to count).
 */
export const listingListSchema = pageSchema(listingSchema).extend({ total: z.number().int() });
export type ListingList = z.infer<typeof listingListSchema>;

/** The marketplaces a sandbox shop can impersonate: its orders arrive in that marketplace's shape. */
export const IMPERSONATED_PLATFORMS = ['woocommerce', 'ebay', 'amazon', 'walmart', 'tiktok'] as const;
export type ImpersonatedPlatform = (typeof IMPERSONATED_PLATFORMS)[number];

/**
 * POST /api/shops/:platform/connect. `shopHost` is the Shopify store domain; `storeUrl` a
 * WooCommerce store's address (its authorisation page); `credentials` the values a marketplace
 * connected by pasted keys asks for (its `fields`); `impersonate` makes a sandbox shop send its
 * orders in another marketplace's shape.
 */
export const shopConnectInputSchema = z
  .object({
    shopHost: z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^[a-z0-9][a-z0-9-]*\.myshopify\.com$/, 'Enter your store domain, like my-store.myshopify.com')
      .optional(),
    storeUrl: z
      .string()
      .trim()
      .max(300)
      .regex(/^https:\/\/[^\s/?#]+(\/[^\s?#]*)?$/i, 'Enter your store address, like https://shop.example.com')
      .optional(),
    credentials: z
      .record(z.string().max(64), z.string().trim().min(1, 'Fill in every field').max(500))
      .optional(),
    impersonate: z.enum(IMPERSONATED_PLATFORMS).optional(),
  })
  .strict();
export type ShopConnectInput = z.infer<typeof shopConnectInputSchema>;

/** A value a seller types to connect a marketplace by pasted keys. */
export const connectFieldSchema = z.object({
  name: z.string(),
  label: z.string(),
  secret: z.boolean(),
  placeholder: z.string().optional(),
  help: z.string().optional(),
});
export type ConnectField = z.infer<typeof connectFieldSchema>;

/**
 * Which platforms can be connected on this server, and how: `oauth` (sent to the marketplace to
 * approve), `fields` (keys pasted; empty when there are none). A platform not listed is not
 * configured on this server.
 */
export const shopPlatformsSchema = z.object({
  platforms: z.array(
    z.object({
      platform: z.enum(PLATFORMS),
      label: z.string(),
      oauth: z.boolean(),
      fields: z.array(connectFieldSchema),
    }),
  ),
});
export type ShopPlatforms = z.infer<typeof shopPlatformsSchema>;

/**
 * GET /api/admin/marketplace-deliveries/failed: marketplace webhook deliveries that could not be
 * read as what their topic says (kept with the reason; never retried), newest first.
 */
export const failedDeliverySchema = z.object({
  id: z.string(),
  platform: z.string(),
  topic: z.string(),
  shopId: z.string().nullable(),
  shopName: z.string().nullable(),
  reason: z.string(),
  receivedAt: z.string(),
});
export type FailedDelivery = z.infer<typeof failedDeliverySchema>;

export const shopSyncResultSchema = z.object({
  listings: z.number().int(),
  linked: z.number().int(),
  ordersReceived: z.number().int(),
  ordersCreated: z.number().int(),
});
export type ShopSyncResult = z.infer<typeof shopSyncResultSchema>;

export const listingLinkInputSchema = z.object({ variantId: z.uuid('Choose a product variant') }).strict();

/** A product variant the seller can link a listing to. */
export const variantOptionSchema = z.object({
  id: z.string(),
  sku: z.string(),
  productName: z.string(),
  variantName: z.string(),
});
export type VariantOption = z.infer<typeof variantOptionSchema>;
