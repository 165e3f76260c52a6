import type { ShippingAddress } from '@layerline/contracts';
import { mapEbayOrder } from './ebay-mapping.ts';

/**
 * A raw eBay order (the Fulfillment API's Order, as getOrders/getOrder return it) built from the
 * sandbox shop's order, so a sandbox shop impersonating eBay sends its orders through the same
 * mapping as a real eBay shop. Only fields of eBay's Order schema are used (the contract test checks).
 */
export interface EbaySandboxOrderInput {
  readonly sequence: number;
  readonly placedAt: Date;
  readonly buyer: { readonly name: string; readonly address: ShippingAddress };
  readonly items: readonly { sku: string; title: string; quantity: number; unitPriceCents: number }[];
  readonly currency: string;
}

/** The sandbox maps the payload with the real eBay mapping. */
export const mapEbaySandboxOrder = mapEbayOrder;

const pad = (value: number, width: number): string => String(value).padStart(width, '0');
const money = (cents: number, currency: string) => ({ value: (cents / 100).toFixed(2), currency });

export const ebaySandboxOrderPayload = (input: EbaySandboxOrderInput): Record<string, unknown> => {
  const currency = input.currency.trim().toUpperCase();
  const sequence = Math.abs(Math.trunc(input.sequence));
  // eBay order ids look like 27-05121-83450.
  const orderId = `27-${pad(Math.floor(sequence / 100_000) % 100_000, 5)}-${pad(sequence % 100_000, 5)}`;
  const placed = input.placedAt.toISOString();
  const subtotalCents = input.items.reduce((sum, item) => sum + item.unitPriceCents * item.quantity, 0);
  const address = input.buyer.address;
  const username =
    input.buyer.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_|_$/g, '') || 'buyer';
  return {
    orderId,
    creationDate: placed,
    lastModifiedDate: placed,
    orderFulfillmentStatus: 'NOT_STARTED',
    orderPaymentStatus: 'PAID',
    sellerId: 'layerline_sandbox',
    buyer: { username },
    cancelStatus: { cancelState: 'NONE_REQUESTED', cancelRequests: [] },
    pricingSummary: {
      priceSubtotal: money(subtotalCents, currency),
      deliveryCost: money(0, currency),
      total: money(subtotalCents, currency),
    },
    fulfillmentStartInstructions: [
      {
        fulfillmentInstructionsType: 'SHIP_TO',
        ebaySupportedFulfillment: false,
        shippingStep: {
          shippingCarrierCode: 'USPS',
          shippingServiceCode: 'USPSPriority',
          shipTo: {
            fullName: address.name || input.buyer.name,
            ...(address.company ? { companyName: address.company } : {}),
            contactAddress: {
              addressLine1: address.line1,
              ...(address.line2 ? { addressLine2: address.line2 } : {}),
              city: address.city,
              ...(address.region ? { stateOrProvince: address.region } : {}),
              postalCode: address.postalCode,
              countryCode: address.country,
            },
            ...(address.phone ? { primaryPhone: { phoneNumber: address.phone } } : {}),
            ...(address.email ? { email: address.email } : {}),
          },
        },
      },
    ],
    lineItems: input.items.map((item, index) => ({
      lineItemId: String(10_000_000_000 + sequence * 100 + index + 1),
      legacyItemId: String(110_000_000_000 + index + 1),
      sku: item.sku,
      title: item.title,
      quantity: item.quantity,
      lineItemCost: money(item.unitPriceCents * item.quantity, currency),
      total: money(item.unitPriceCents * item.quantity, currency),
      soldFormat: 'FIXED_PRICE',
      listingMarketplaceId: 'EBAY_US',
      purchaseMarketplaceId: 'EBAY_US',
      lineItemFulfillmentStatus: 'NOT_STARTED',
      appliedPromotions: [],
      refunds: [],
      taxes: [],
    })),
  };
};
