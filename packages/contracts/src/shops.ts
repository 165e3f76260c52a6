import { z } from 'zod';

/** Marketplaces and other order channels. */
export const PLATFORMS = ['sandbox', 'etsy', 'shopify', 'api', 'woocommerce', 'ebay', 'amazon', 'walmart', 'tiktok'] as const;
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
