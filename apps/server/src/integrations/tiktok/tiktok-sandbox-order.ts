import { createHash } from 'node:crypto';
import type { ShippingAddress } from '@layerline/contracts';
import { mapTikTokOrder } from './tiktok-mapping.ts';

/**
 * A raw TikTok Shop order (one element of Get Order Detail 202507's `data.orders`), built for the
 * sandbox shop impersonating TikTok: it goes through the same mapping as a real order
 * (`mapTikTokSandboxOrder`), so the whole path runs without an account. Deterministic from the
 * input: the same sequence gives the same ids.
 */
export interface TikTokSandboxOrderInput {
  readonly sequence: number;
  readonly placedAt: Date;
  readonly buyer: { readonly name: string; readonly address: ShippingAddress };
  readonly items: readonly { sku: string; title: string; quantity: number; unitPriceCents: number }[];
  readonly currency: string;
}

/** TikTok ids are long decimal strings; ours are derived from a hash so they never collide with a sequence. */
const numericId = (seed: string): string => {
  const digits = BigInt(`0x${createHash('sha256').update(seed).digest('hex').slice(0, 15)}`).toString();
  return `57${digits.padStart(16, '0')}`;
};

const amount = (cents: number): string => (cents / 100).toFixed(2);

export const tiktokSandboxOrderPayload = (input: TikTokSandboxOrderInput): Record<string, unknown> => {
  const orderId = numericId(`order:${input.sequence}`);
  const seconds = Math.floor(input.placedAt.getTime() / 1000);
  const subtotalCents = input.items.reduce((sum, item) => sum + item.quantity * item.unitPriceCents, 0);
  const address = input.buyer.address;
  // TikTok lists every unit as its own line item.
  const lineItems = input.items.flatMap((item, itemIndex) =>
    Array.from({ length: Math.max(0, item.quantity) }, (_, unit) => ({
      id: numericId(`line:${input.sequence}:${itemIndex}:${unit}`),
      sku_id: numericId(`sku:${item.sku}`),
      product_id: numericId(`product:${item.sku}`),
      product_name: item.title,
      seller_sku: item.sku,
      original_price: amount(item.unitPriceCents),
      sale_price: amount(item.unitPriceCents),
      platform_discount: '0',
      seller_discount: '0',
      currency: input.currency,
      display_status: 'AWAITING_SHIPMENT',
      is_gift: false,
    })),
  );
  const districts = [
    { address_level_name: 'Country', address_name: address.country, address_level: 'L0' },
    ...(address.region
      ? [{ address_level_name: 'State', address_name: address.region, address_level: 'L1' }]
      : []),
    { address_level_name: 'City', address_name: address.city, address_level: 'L3' },
  ];
  return {
    id: orderId,
    status: 'AWAITING_SHIPMENT',
    create_time: seconds,
    update_time: seconds,
    paid_time: seconds,
    fulfillment_type: 'FULFILLMENT_BY_SELLER',
    shipping_type: 'SELLER',
    delivery_type: 'HOME_DELIVERY',
    delivery_option_id: numericId('delivery-option'),
    delivery_option_name: 'Standard Shipping',
    is_cod: false,
    is_on_hold_order: false,
    is_sample_order: false,
    payment: {
      currency: input.currency,
      sub_total: amount(subtotalCents),
      shipping_fee: '0.00',
      seller_discount: '0',
      platform_discount: '0',
      tax: '0.00',
      total_amount: amount(subtotalCents),
      original_total_product_price: amount(subtotalCents),
      original_shipping_fee: '0.00',
    },
    recipient_address: {
      full_address: [address.line1, address.line2, address.city, address.region, address.postalCode]
        .filter(Boolean)
        .join(', '),
      phone_number: address.phone,
      name: input.buyer.name,
      address_line1: address.line1,
      address_line2: address.line2,
      postal_code: address.postalCode,
      region_code: address.country,
      district_info: districts,
    },
    packages: [],
    line_items: lineItems,
  };
};

/** What the sandbox calls on the payload: the mapping a real TikTok order goes through. */
export const mapTikTokSandboxOrder = mapTikTokOrder;
