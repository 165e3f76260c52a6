import { z } from 'zod';
import type { ShippingAddress } from '@layerline/contracts';
import {
  MalformedOrderError,
  MarketplaceRejectedError,
  type MarketplaceListing,
  type MarketplaceOrder,
} from '../../modules/shops/connector.ts';

/**
 * WooCommerce REST API v3 payloads (the parts we read; contract:
 * /work/shared/contracts/woocommerce/woocommerce-openapi-3.0.x.yml, a community file) and their
 * translation into the connector's types. Lenient on purpose: real stores send null where the file
 * says string (date_paid of an unpaid order), plugins add fields, and line items' product_id is an
 * integer on real stores but declared a string in the file.
 */

const text = z.string().nullish();
const id = z.number().int().nonnegative();
/** Money is a decimal string ("19.99"); line-item `price` is a number. */
const amount = z.union([z.string(), z.number()]).nullish();

/** GET /data/currencies/current. */
export const wooCurrentCurrency = z.object({ code: z.string() });

const wooImage = z.object({ src: text }).nullish();

export const wooProduct = z.object({
  id,
  name: text,
  type: text,
  status: text,
  sku: text,
  price: amount,
  permalink: text,
  images: z.array(z.object({ src: text })).nullish(),
});
export type WooProduct = z.infer<typeof wooProduct>;

export const wooVariation = z.object({
  id,
  sku: text,
  price: amount,
  status: text,
  permalink: text,
  image: wooImage,
  attributes: z.array(z.object({ name: text, option: text })).nullish(),
});
export type WooVariation = z.infer<typeof wooVariation>;

export const wooProductsPage = z.array(wooProduct);
export const wooVariationsPage = z.array(wooVariation);

const wooAddress = z
  .object({
    first_name: text,
    last_name: text,
    company: text,
    address_1: text,
    address_2: text,
    city: text,
    state: text,
    postcode: text,
    country: text,
    email: text,
    phone: text,
  })
  .nullish();

const wooLineItem = z.object({
  id: id.nullish(),
  name: text,
  sku: text,
  quantity: z.number().int().nullish(),
  subtotal: amount,
  price: amount,
});

/** The shop_order schema: GET /orders, GET /orders/{id} and every order.* webhook body. */
export const wooOrder = z.object({
  id: id.nullish(),
  number: text,
  status: text,
  currency: text,
  date_created: text,
  date_created_gmt: text,
  date_paid_gmt: text,
  total: amount,
  customer_note: text,
  billing: wooAddress,
  shipping: wooAddress,
  line_items: z.array(wooLineItem).nullish(),
});
export type WooOrder = z.infer<typeof wooOrder>;

export const wooOrdersPage = z.array(z.unknown());

export const wooOrderStatus = z.object({ id, status: text });

export const wooOrderNote = z.object({ id, note: text, customer_note: z.boolean().nullish() });
export const wooOrderNotes = z.array(wooOrderNote);

export const wooWebhook = z.object({
  id,
  topic: text,
  status: text,
  delivery_url: text,
  name: text,
});
export const wooWebhooks = z.array(wooWebhook);

/**
 * The JSON WooCommerce POSTs to our callback_url after a seller approves the app on
 * /wc-auth/v1/authorize (woocommerce-rest-api-docs, "Auto generating API keys"): `user_id` is the
 * value we sent (our state), not a WordPress user.
 */
const wooKeyDelivery = z.object({
  key_id: z.number().int(),
  user_id: z.union([z.string(), z.number()]).transform(String),
  consumer_key: z.string().regex(/^ck_[A-Za-z0-9]+$/),
  consumer_secret: z.string().regex(/^cs_[A-Za-z0-9]+$/),
  key_permissions: z.enum(['read', 'write', 'read_write']),
});
export type WooKeyDelivery = z.infer<typeof wooKeyDelivery>;

/**
 * Parses the key delivery. Refuses a shape we do not know and keys without read_write: we read
 * orders and write notes, statuses and webhooks, so a narrower key would fail later instead of now.
 */
export const parseWooKeyDelivery = (body: unknown): WooKeyDelivery => {
  const result = wooKeyDelivery.safeParse(body);
  if (!result.success)
    throw new MarketplaceRejectedError('The WooCommerce key delivery has an unexpected shape', 400);
  if (result.data.key_permissions !== 'read_write')
    throw new MarketplaceRejectedError(
      `WooCommerce granted ${result.data.key_permissions} access; Layerline needs read/write`,
      400,
    );
  return result.data;
};

/** A decimal amount ("199.65", 16.5) → cents, without floating-point error; null when not a number. */
export const wooMoneyToCents = (value: string | number | null | undefined): number | null => {
  if (value === null || value === undefined) return null;
  const raw = typeof value === 'number' ? (Number.isFinite(value) ? value.toFixed(6) : '') : value.trim();
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(raw);
  if (!match) return null;
  const [, sign, whole, fraction = ''] = match;
  const padded = `${fraction}000`;
  let cents = Number(whole) * 100 + Number(padded.slice(0, 2));
  if (Number(padded[2]) >= 5) cents += 1;
  return sign === '-' ? -cents : cents;
};

const str = (value: string | null | undefined): string => (value ?? '').trim();
const email = (value: string | null | undefined): string =>
  value && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value.trim()) ? value.trim() : '';

/** Product types a seller ships themselves; grouped products are containers, external ones sold elsewhere. */
const LISTED_TYPES = new Set(['simple', 'variable']);

export const isVariableProduct = (product: WooProduct): boolean => product.type === 'variable';

/** A simple product as one listing; other types than simple/variable are not listed (null). */
export const mapWooSimpleProduct = (
  product: WooProduct,
  currency: string | null,
): MarketplaceListing | null => {
  if (!LISTED_TYPES.has(product.type ?? 'simple') || isVariableProduct(product)) return null;
  return {
    externalListingId: String(product.id),
    externalVariantId: '',
    title: str(product.name),
    sku: str(product.sku),
    priceCents: wooMoneyToCents(product.price),
    currency,
    url: product.permalink ?? null,
    imageUrl: product.images?.[0]?.src ?? null,
  };
};

/** One listing per variation, titled "<product> – <attribute options>". */
export const mapWooVariation = (
  product: WooProduct,
  variation: WooVariation,
  currency: string | null,
): MarketplaceListing => {
  const options = (variation.attributes ?? []).map((a) => str(a.option)).filter(Boolean);
  const name = str(product.name);
  return {
    externalListingId: String(product.id),
    externalVariantId: String(variation.id),
    title: options.length > 0 ? `${name} – ${options.join(', ')}` : name,
    sku: str(variation.sku),
    priceCents: wooMoneyToCents(variation.price),
    currency,
    url: variation.permalink ?? product.permalink ?? null,
    imageUrl: variation.image?.src ?? product.images?.[0]?.src ?? null,
  };
};

/**
 * Which orders we take in. `processing` is paid and waiting to be shipped. `cancelled` and
 * `refunded` are taken only when the order had been paid (date_paid_gmt set): they cancel an order
 * we already have, while WooCommerce also cancels every abandoned unpaid checkout, which we never
 * want to see. `pending`, `on-hold` (awaiting payment) and `failed` wait until they become
 * processing; `completed` was fulfilled already (by the seller, or by our own tracking push);
 * `trash`, `checkout-draft` and plugin statuses are not orders to print.
 */
export const wooOrderDisposition = (order: WooOrder): 'import' | 'cancelled' | 'skip' => {
  const status = str(order.status).toLowerCase();
  if (status === 'processing') return 'import';
  if ((status === 'cancelled' || status === 'refunded') && str(order.date_paid_gmt)) return 'cancelled';
  return 'skip';
};

/** "2017-03-22T16:28:02" (GMT without a zone, as WooCommerce sends *_gmt) → a Date. */
const gmtDate = (value: string | null | undefined): Date | null => {
  const raw = str(value);
  if (!raw) return null;
  const date = new Date(/(Z|[+-]\d{2}:?\d{2})$/i.test(raw) ? raw : `${raw}Z`);
  return Number.isNaN(date.getTime()) ? null : date;
};

type WooAddress = z.infer<typeof wooAddress>;

const hasAddress = (address: WooAddress): boolean =>
  Boolean(str(address?.address_1) && str(address?.country));

const fullName = (address: WooAddress): string =>
  [str(address?.first_name), str(address?.last_name)].filter(Boolean).join(' ');

/**
 * An order → our order, or null when its status is not one we take in (wooOrderDisposition).
 * Refused (MalformedOrderError) when it has no id, no date, no line items or no address. The
 * shipping address is used; an order without one (WooCommerce leaves it empty when the buyer ships
 * to the billing address on some checkouts) falls back to the billing address.
 */
export const mapWooOrder = (order: WooOrder): MarketplaceOrder | null => {
  const disposition = wooOrderDisposition(order);
  if (disposition === 'skip') return null;
  if (order.id === null || order.id === undefined || order.id === 0)
    throw new MalformedOrderError('The order has no id');
  const placedAt = gmtDate(order.date_created_gmt) ?? gmtDate(order.date_created);
  if (!placedAt) throw new MalformedOrderError(`Order ${order.id} has no creation date`);
  const lines = order.line_items ?? [];
  if (lines.length === 0) throw new MalformedOrderError(`Order ${order.id} has no line items`);
  const address = hasAddress(order.shipping)
    ? order.shipping
    : hasAddress(order.billing)
      ? order.billing
      : null;
  if (!address) throw new MalformedOrderError(`Order ${order.id} has no shipping address`);
  const name = fullName(address) || fullName(order.billing);
  const shippingAddress: ShippingAddress = {
    name,
    company: str(address.company),
    line1: str(address.address_1),
    line2: str(address.address_2),
    city: str(address.city),
    region: str(address.state),
    postalCode: str(address.postcode),
    country: str(address.country).toUpperCase(),
    phone: str(address.phone) || str(order.billing?.phone),
    email: email(order.billing?.email),
  };
  const currency = str(order.currency).toUpperCase();
  const note = str(order.customer_note);
  return {
    externalId: String(order.id),
    placedAt,
    customerName: name,
    shippingAddress,
    currency: /^[A-Z]{3}$/.test(currency) ? currency : 'XXX',
    totalCents: wooMoneyToCents(order.total),
    cancelled: disposition === 'cancelled',
    ...(note ? { note } : {}),
    items: lines.map((line, index) => {
      if (line.id === null || line.id === undefined)
        throw new MalformedOrderError(`Order ${order.id}: line item ${index + 1} has no id`);
      const quantity = line.quantity ?? 0;
      if (quantity <= 0)
        throw new MalformedOrderError(`Order ${order.id}: line item ${line.id} has no quantity`);
      const subtotalCents = wooMoneyToCents(line.subtotal);
      return {
        externalItemId: String(line.id),
        sku: str(line.sku),
        title: str(line.name),
        quantity,
        // The subtotal is before coupons; `price` (after them) when there is none.
        unitPriceCents:
          subtotalCents !== null ? Math.round(subtotalCents / quantity) : wooMoneyToCents(line.price),
      };
    }),
  };
};

/**
 * A raw payload (an order.* webhook body, GET /orders/{id}, the sandbox's) → order, or null when
 * its status is not taken in. MalformedOrderError with the reason when it is not a readable order.
 */
export const parseWooOrder = (payload: unknown): MarketplaceOrder | null => {
  const result = wooOrder.safeParse(payload);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.join('.') || 'body';
    throw new MalformedOrderError(`Not a WooCommerce order (${where}: ${issue?.message ?? 'invalid'})`);
  }
  return mapWooOrder(result.data);
};
