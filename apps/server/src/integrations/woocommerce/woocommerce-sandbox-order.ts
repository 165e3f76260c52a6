import { createHash } from 'node:crypto';
import type { ShippingAddress } from '@layerline/contracts';
import type { MarketplaceOrder } from '../../modules/shops/connector.ts';
import { parseWooOrder } from './woocommerce-mapping.ts';

/**
 * A sandbox order as a WooCommerce store would send it (GET /orders/{id} and the order.* webhook
 * body: the contract's shop_order schema), so a sandbox shop impersonating WooCommerce goes through
 * the real mapping. Fields follow what WooCommerce core returns: GMT dates without a zone, money as
 * decimal strings, line-item `price` as a number, `product_id` as an integer (the contract file says
 * string; WooCommerce's REST docs and every store say integer).
 */
export interface WooSandboxOrderInput {
  readonly sequence: number;
  readonly placedAt: Date;
  readonly buyer: { readonly name: string; readonly address: ShippingAddress };
  readonly items: readonly { sku: string; title: string; quantity: number; unitPriceCents: number }[];
  readonly currency: string;
  /** The buyer cancelled after paying: status `cancelled` (still with its payment date). */
  readonly cancelled?: boolean;
}

const money = (cents: number): string => {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(Math.round(cents));
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
};

/** "2026-11-21T12:00:00" — WooCommerce's *_gmt format (no zone, no milliseconds). */
const wooDate = (date: Date): string => date.toISOString().slice(0, 19);

const stableNumber = (text: string, modulo: number): number =>
  (createHash('sha256').update(text).digest().readUInt32BE(0) % modulo) + 1;

export const wooCommerceSandboxOrderPayload = (input: WooSandboxOrderInput): Record<string, unknown> => {
  const id = Math.max(1, Math.trunc(input.sequence));
  const words = input.buyer.name.trim().split(/\s+/);
  const firstName = words.length > 1 ? words.slice(0, -1).join(' ') : (words[0] ?? '');
  const lastName = words.length > 1 ? words.at(-1)! : '';
  const address = input.buyer.address;
  const postal = {
    first_name: firstName,
    last_name: lastName,
    company: address.company,
    address_1: address.line1,
    address_2: address.line2,
    city: address.city,
    state: address.region,
    postcode: address.postalCode,
    country: address.country,
  };
  const totalCents = input.items.reduce((sum, item) => sum + item.unitPriceCents * item.quantity, 0);
  const date = wooDate(input.placedAt);
  return {
    id,
    parent_id: 0,
    number: String(id),
    order_key: `wc_order_${createHash('sha256').update(`order:${id}`).digest('hex').slice(0, 13)}`,
    created_via: 'checkout',
    status: input.cancelled ? 'cancelled' : 'processing',
    currency: input.currency,
    date_created: date,
    date_created_gmt: date,
    date_modified: date,
    date_modified_gmt: date,
    discount_total: '0.00',
    discount_tax: '0.00',
    shipping_total: '0.00',
    shipping_tax: '0.00',
    cart_tax: '0.00',
    total: money(totalCents),
    total_tax: '0.00',
    prices_include_tax: false,
    customer_id: 0,
    customer_ip_address: '',
    customer_user_agent: '',
    customer_note: '',
    billing: { ...postal, email: address.email, phone: address.phone },
    shipping: { ...postal, phone: address.phone },
    payment_method: 'stripe',
    payment_method_title: 'Credit card',
    transaction_id: '',
    date_paid: date,
    date_paid_gmt: date,
    cart_hash: '',
    meta_data: [],
    line_items: input.items.map((item, index) => ({
      id: id * 100 + index + 1,
      name: item.title,
      product_id: stableNumber(`product:${item.sku}`, 90_000),
      variation_id: 0,
      quantity: item.quantity,
      tax_class: '',
      subtotal: money(item.unitPriceCents * item.quantity),
      subtotal_tax: '0.00',
      total: money(item.unitPriceCents * item.quantity),
      total_tax: '0.00',
      taxes: [],
      meta_data: [],
      sku: item.sku,
      price: item.unitPriceCents / 100,
    })),
    tax_lines: [],
    shipping_lines: [],
    fee_lines: [],
    coupon_lines: [],
    refunds: [],
  };
};

/** What the sandbox calls on the payload: the same mapping a real store's orders go through. */
export const mapWooCommerceSandboxOrder = (payload: unknown): MarketplaceOrder => {
  const order = parseWooOrder(payload);
  // The sandbox only builds processing or paid-cancelled orders, which always map.
  if (!order) throw new Error('The WooCommerce sandbox payload has a status that is not taken in');
  return order;
};
