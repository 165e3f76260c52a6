import { z } from 'zod';
import {
  MalformedOrderError,
  type MarketplaceListing,
  type MarketplaceOrder,
} from '../../modules/shops/connector.ts';

/**
 * TikTok Shop payloads (the parts we read; field lists in /work/shared/contracts/tiktok-shop/*.spec.json)
 * and their translation into the connector's types. Every field is optional in TikTok's lists, so
 * the schemas are lenient and the mapping decides what an order cannot do without.
 */

/** Every Open API answer: `code` 0 is success; anything else is an error whatever the HTTP status. */
export const tiktokEnvelope = z.object({
  code: z.number(),
  message: z.string().nullish(),
  request_id: z.string().nullish(),
  data: z.unknown().optional(),
});

/** token/get and token/refresh (`access_token_expire_in` is a Unix time, not a duration). */
export const tiktokTokenData = z.object({
  access_token: z.string().min(1),
  access_token_expire_in: z.number().nullish(),
  refresh_token: z.string().nullish(),
  refresh_token_expire_in: z.number().nullish(),
  open_id: z.string().nullish(),
  seller_name: z.string().nullish(),
  seller_base_region: z.string().nullish(),
  granted_scopes: z.array(z.string()).nullish(),
});

export const tiktokAuthorizedShops = z.object({
  shops: z
    .array(
      z.object({
        id: z.string().min(1),
        name: z.string().nullish(),
        region: z.string().nullish(),
        seller_type: z.string().nullish(),
        cipher: z.string().min(1),
        code: z.string().nullish(),
      }),
    )
    .nullish(),
});

const tiktokSku = z.object({
  id: z.string(),
  seller_sku: z.string().nullish(),
  price: z
    .object({
      currency: z.string().nullish(),
      tax_exclusive_price: z.string().nullish(),
      sale_price: z.string().nullish(),
    })
    .nullish(),
});

const tiktokProduct = z.object({
  id: z.string(),
  title: z.string().nullish(),
  status: z.string().nullish(),
  skus: z.array(tiktokSku).nullish(),
});
export type TikTokProduct = z.infer<typeof tiktokProduct>;

export const tiktokProductsPage = z.object({
  products: z.array(tiktokProduct).nullish(),
  next_page_token: z.string().nullish(),
  total_count: z.number().nullish(),
});

const tiktokLineItem = z.object({
  id: z.string().nullish(),
  sku_id: z.string().nullish(),
  seller_sku: z.string().nullish(),
  product_name: z.string().nullish(),
  sku_name: z.string().nullish(),
  sale_price: z.string().nullish(),
  display_status: z.string().nullish(),
  package_id: z.string().nullish(),
});

const tiktokRecipientAddress = z.object({
  name: z.string().nullish(),
  first_name: z.string().nullish(),
  last_name: z.string().nullish(),
  phone_number: z.string().nullish(),
  address_line1: z.string().nullish(),
  address_line2: z.string().nullish(),
  address_line3: z.string().nullish(),
  address_line4: z.string().nullish(),
  address_detail: z.string().nullish(),
  postal_code: z.string().nullish(),
  region_code: z.string().nullish(),
  post_town: z.string().nullish(),
  district_info: z
    .array(
      z.object({
        address_level_name: z.string().nullish(),
        address_name: z.string().nullish(),
        address_level: z.string().nullish(),
      }),
    )
    .nullish(),
});

const tiktokOrder = z.object({
  id: z.string().min(1),
  status: z.string().nullish(),
  create_time: z.number().nullish(),
  update_time: z.number().nullish(),
  buyer_message: z.string().nullish(),
  delivery_option_id: z.string().nullish(),
  payment: z.object({ currency: z.string().nullish(), total_amount: z.string().nullish() }).nullish(),
  recipient_address: tiktokRecipientAddress.nullish(),
  packages: z.array(z.object({ id: z.string().nullish() })).nullish(),
  line_items: z.array(tiktokLineItem).nullish(),
});
export type TikTokOrder = z.infer<typeof tiktokOrder>;

/** Get Order List (202309) and Get Order Detail (202507) share the order object (same field list). */
export const tiktokOrdersPage = z.object({
  orders: z.array(z.unknown()).nullish(),
  next_page_token: z.string().nullish(),
  total_count: z.number().nullish(),
});

export const tiktokShippingProviders = z.object({
  shipping_providers: z.array(z.object({ id: z.string().min(1), name: z.string().nullish() })).nullish(),
});

/** Statuses that are not yet an order to make: unpaid, or paid but still cancellable at will. */
export const TIKTOK_NOT_YET_ORDERS: ReadonlySet<string> = new Set(['UNPAID', 'ON_HOLD']);

/** A decimal amount string ("19.99") → minor units × 100 ("cents"); null when it is not a number. */
export const tiktokAmountToCents = (value: string | null | undefined): number | null => {
  const text = (value ?? '').trim();
  if (!/^-?\d+(\.\d+)?$/.test(text)) return null;
  return Math.round(Number(text) * 100);
};

const currencyCode = (value: string | null | undefined): string | null => {
  const code = (value ?? '').trim().toUpperCase();
  return /^[A-Z]{3}$/.test(code) ? code : null;
};

/** One listing per SKU; a product with a single SKU is a listing without variations. */
export const mapTikTokProduct = (product: TikTokProduct): MarketplaceListing[] => {
  const skus = product.skus ?? [];
  const single = skus.length === 1;
  return skus.map((sku) => {
    const price = sku.price?.tax_exclusive_price ?? sku.price?.sale_price;
    return {
      externalListingId: product.id,
      externalVariantId: single ? '' : sku.id,
      title: product.title ?? '',
      sku: (sku.seller_sku ?? '').trim(),
      priceCents: tiktokAmountToCents(price),
      currency: currencyCode(sku.price?.currency),
      url: null,
      imageUrl: null,
    };
  });
};

const text = (value: string | null | undefined): string => (value ?? '').trim();

/**
 * District levels (L0 country … L4): L1 is the state/province, the deepest of L2/L3 the city.
 * The UK's post town wins where TikTok gives one.
 */
const districts = (address: z.infer<typeof tiktokRecipientAddress>): { region: string; city: string } => {
  const byLevel = new Map<string, string>();
  for (const entry of address.district_info ?? []) {
    const level = text(entry.address_level).toUpperCase();
    const name = text(entry.address_name);
    if (level && name) byLevel.set(level, name);
  }
  return {
    region: byLevel.get('L1') ?? '',
    city: text(address.post_town) || byLevel.get('L3') || byLevel.get('L2') || '',
  };
};

/** Parsed, or MalformedOrderError naming what is wrong (a webhook delivery is stored as failed with it). */
export const parseTikTokOrder = (payload: unknown): TikTokOrder => {
  const result = tiktokOrder.safeParse(payload);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new MalformedOrderError(
      `The TikTok Shop order is not readable (${issue ? `${issue.path.join('.') || 'order'}: ${issue.message}` : 'invalid'})`,
    );
  }
  return result.data;
};

/**
 * A TikTok Shop order → our order. TikTok has no quantity: every unit is its own line item, so
 * line items of one SKU at one price become one item with a quantity (its id the smallest line
 * item id, stable whatever order TikTok lists them in). Line items cancelled on their own are
 * dropped; a cancelled order keeps them all and is marked cancelled.
 */
export const mapTikTokOrder = (payload: unknown): MarketplaceOrder => {
  const order = parseTikTokOrder(payload);
  const status = text(order.status).toUpperCase();
  const cancelled = status === 'CANCELLED';
  const address = order.recipient_address;
  if (!address) throw new MalformedOrderError(`TikTok Shop order ${order.id} has no recipient address`);
  const name =
    text(address.name) || [text(address.first_name), text(address.last_name)].filter(Boolean).join(' ');
  const line1 = text(address.address_line1) || text(address.address_detail);
  const country = text(address.region_code).toUpperCase();
  if (!name || !line1 || !/^[A-Z]{2}$/.test(country))
    throw new MalformedOrderError(`TikTok Shop order ${order.id} has an incomplete recipient address`);
  const { region, city } = districts(address);

  const lines = (order.line_items ?? []).filter(
    (line) => cancelled || text(line.display_status).toUpperCase() !== 'CANCELLED',
  );
  if (lines.length === 0) throw new MalformedOrderError(`TikTok Shop order ${order.id} has no line items`);
  const groups = new Map<
    string,
    { ids: string[]; sku: string; title: string; price: string; count: number }
  >();
  for (const line of lines) {
    const id = text(line.id);
    if (!id) throw new MalformedOrderError(`TikTok Shop order ${order.id} has a line item without an id`);
    const price = text(line.sale_price);
    const key = `${text(line.sku_id) || text(line.seller_sku) || id}\u0000${price}`;
    const group = groups.get(key);
    if (group) {
      group.ids.push(id);
      group.count += 1;
    } else {
      const title = [text(line.product_name), text(line.sku_name)].filter(Boolean).join(' - ');
      groups.set(key, { ids: [id], sku: text(line.seller_sku), title, price, count: 1 });
    }
  }
  const smallest = (ids: string[]): string =>
    ids.reduce((a, b) => (a.length < b.length || (a.length === b.length && a < b) ? a : b));

  const currency = currencyCode(order.payment?.currency) ?? 'XXX';
  const line2 = [address.address_line2, address.address_line3, address.address_line4]
    .map(text)
    .filter(Boolean)
    .join(', ');
  return {
    externalId: order.id,
    placedAt: new Date((order.create_time ?? 0) * 1000),
    customerName: name,
    shippingAddress: {
      name,
      company: '',
      line1,
      line2,
      city,
      region,
      postalCode: text(address.postal_code),
      country,
      phone: text(address.phone_number).slice(0, 40),
      // buyer_email is an anonymised relay TikTok asks apps not to write to directly.
      email: '',
    },
    currency,
    totalCents: tiktokAmountToCents(order.payment?.total_amount),
    cancelled,
    ...(text(order.buyer_message) ? { note: text(order.buyer_message) } : {}),
    items: [...groups.values()].map((group) => ({
      externalItemId: smallest(group.ids),
      sku: group.sku,
      title: group.title,
      quantity: group.count,
      unitPriceCents: tiktokAmountToCents(group.price),
    })),
  };
};

/** True for an order we do not take in yet (UNPAID, ON_HOLD): a later status change brings it. */
export const isTikTokOrderPending = (payload: unknown): boolean => {
  if (typeof payload !== 'object' || payload === null) return false;
  const status = (payload as { status?: unknown }).status;
  return typeof status === 'string' && TIKTOK_NOT_YET_ORDERS.has(status.toUpperCase());
};
