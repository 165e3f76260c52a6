import { z } from 'zod';
import type { MarketplaceListing, MarketplaceOrder } from '../../modules/shops/connector.ts';

/**
 * Etsy Open API v3 payloads (the parts we read) and their translation into the connector's types.
 * Schemas are lenient on purpose: Etsy marks most fields nullable, and the mock answers with the
 * spec's placeholder examples ("string", divisor 0), which must map without throwing.
 */

const money = z.object({ amount: z.number(), divisor: z.number(), currency_code: z.string() }).nullish();
type EtsyMoney = z.infer<typeof money>;

export const etsyTokenResponse = z.object({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: z.number().optional(),
  refresh_token: z.string().nullish(),
});

export const etsyMe = z.object({ user_id: z.number().int(), shop_id: z.number().int().nullish() });

export const etsyShop = z.object({
  shop_id: z.number().int(),
  shop_name: z.string(),
  currency_code: z.string().nullish(),
  url: z.string().nullish(),
});

const etsyListing = z.object({
  listing_id: z.number().int(),
  title: z.string().nullish(),
  state: z.string().nullish(),
  url: z.string().nullish(),
  price: money,
  images: z
    .array(z.object({ url_570xN: z.string().nullish(), url_fullxfull: z.string().nullish() }))
    .nullish(),
});
export type EtsyListing = z.infer<typeof etsyListing>;

export const etsyListingsPage = z.object({ count: z.number().nullish(), results: z.array(etsyListing) });

const etsyInventoryProduct = z.object({
  product_id: z.number().int(),
  sku: z.string().nullish(),
  is_deleted: z.boolean().nullish(),
  offerings: z
    .array(z.object({ price: money, is_enabled: z.boolean().nullish(), is_deleted: z.boolean().nullish() }))
    .nullish(),
});

export const etsyInventory = z.object({ products: z.array(etsyInventoryProduct) });
export type EtsyInventory = z.infer<typeof etsyInventory>;

const etsyTransaction = z.object({
  transaction_id: z.number().int(),
  title: z.string().nullish(),
  quantity: z.number().int().nullish(),
  sku: z.string().nullish(),
  is_digital: z.boolean().nullish(),
  price: money,
});

const etsyReceipt = z.object({
  receipt_id: z.number().int(),
  name: z.string().nullish(),
  first_line: z.string().nullish(),
  second_line: z.string().nullish(),
  city: z.string().nullish(),
  state: z.string().nullish(),
  zip: z.string().nullish(),
  country_iso: z.string().nullish(),
  buyer_email: z.string().nullish(),
  status: z.string().nullish(),
  create_timestamp: z.number().nullish(),
  created_timestamp: z.number().nullish(),
  grandtotal: money,
  transactions: z.array(etsyTransaction).nullish(),
});
export type EtsyReceipt = z.infer<typeof etsyReceipt>;

/** createReceiptShipment answers with the updated receipt; we only check that it is one. */
export const etsyReceiptShipmentResponse = z.object({ receipt_id: z.number().int() });

export const etsyReceiptsPage = z.object({ count: z.number().nullish(), results: z.array(etsyReceipt) });

/**
 * Etsy money is {amount, divisor}: 1999 / 100 = 19.99. We store minor units × 100 ("cents"), so
 * cents = amount × 100 / divisor, rounded. A missing or non-positive divisor gives null, not NaN.
 */
export const etsyMoneyToCents = (value: EtsyMoney): number | null => {
  if (!value || !Number.isFinite(value.amount) || !Number.isFinite(value.divisor) || value.divisor <= 0)
    return null;
  return Math.round((value.amount * 100) / value.divisor);
};

/** An ISO 4217 code, or null when Etsy sent something else. */
const currencyOf = (value: EtsyMoney): string | null => {
  const code = value?.currency_code.trim().toUpperCase() ?? '';
  return /^[A-Z]{3}$/.test(code) ? code : null;
};

/** One listing per inventory product (Etsy keeps SKUs on products, not on listings). */
export const mapEtsyListing = (listing: EtsyListing, inventory: EtsyInventory): MarketplaceListing[] => {
  const products = inventory.products.filter((product) => product.is_deleted !== true);
  const single = products.length === 1;
  const image = listing.images?.[0];
  return products.map((product) => {
    const offering =
      product.offerings?.find((o) => o.is_enabled !== false && o.is_deleted !== true) ??
      product.offerings?.[0] ??
      null;
    const price = offering?.price ?? listing.price;
    return {
      externalListingId: String(listing.listing_id),
      externalVariantId: single ? '' : String(product.product_id),
      title: listing.title ?? '',
      sku: (product.sku ?? '').trim(),
      priceCents: etsyMoneyToCents(price),
      currency: currencyOf(price),
      url: listing.url ?? null,
      imageUrl: image?.url_570xN ?? image?.url_fullxfull ?? null,
    };
  });
};

const looksLikeEmail = (value: string | null | undefined): string =>
  value && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) ? value : '';

/**
 * A receipt → an order. Digital transactions are dropped (nothing to print); a receipt with only
 * digital items maps to null. Etsy's status "Canceled" marks a cancelled order.
 */
export const mapEtsyReceipt = (
  receipt: EtsyReceipt,
  fallbackCurrency: string | null,
): MarketplaceOrder | null => {
  const physical = (receipt.transactions ?? []).filter((t) => t.is_digital !== true);
  if (physical.length === 0) return null;
  const createdSeconds = receipt.created_timestamp ?? receipt.create_timestamp ?? 0;
  const name = (receipt.name ?? '').trim();
  const status = (receipt.status ?? '').trim().toLowerCase();
  return {
    externalId: String(receipt.receipt_id),
    placedAt: new Date(createdSeconds * 1000),
    customerName: name,
    shippingAddress: {
      name,
      company: '',
      line1: (receipt.first_line ?? '').trim(),
      line2: (receipt.second_line ?? '').trim(),
      city: (receipt.city ?? '').trim(),
      region: (receipt.state ?? '').trim(),
      postalCode: (receipt.zip ?? '').trim(),
      country: (receipt.country_iso ?? '').trim().toUpperCase(),
      phone: '',
      email: looksLikeEmail(receipt.buyer_email),
    },
    currency: currencyOf(receipt.grandtotal) ?? fallbackCurrency ?? 'XXX',
    totalCents: etsyMoneyToCents(receipt.grandtotal),
    cancelled: status === 'canceled' || status === 'cancelled',
    items: physical.map((t) => ({
      externalItemId: String(t.transaction_id),
      sku: (t.sku ?? '').trim(),
      title: t.title ?? '',
      quantity: t.quantity ?? 0,
      unitPriceCents: etsyMoneyToCents(t.price),
    })),
  };
};
