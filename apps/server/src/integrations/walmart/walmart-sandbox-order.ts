import type { ShippingAddress } from '@layerline/contracts';
import { mapWalmartOrder, WALMART_ALPHA3_TO_ALPHA2 } from './walmart-mapping.ts';

/**
 * A purchase order exactly as getAllOrders returns one (`list.elements.order[]` in
 * walmart-marketplace-orders-openapi-original.yml), built from the sandbox shop's order, so the
 * sandbox can impersonate Walmart through the real mapping (walmartSandboxOrderToMarketplaceOrder).
 */
export interface WalmartSandboxOrderInput {
  readonly sequence: number;
  readonly placedAt: Date;
  readonly buyer: { readonly name: string; readonly address: ShippingAddress };
  readonly items: readonly { sku: string; title: string; quantity: number; unitPriceCents: number }[];
  readonly currency: string;
}

/** Walmart writes countries as ISO alpha-3 (the inverse of the mapping's table). */
const ALPHA2_TO_ALPHA3: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(WALMART_ALPHA3_TO_ALPHA2).map(([alpha3, alpha2]) => [alpha2, alpha3]),
);

const DAY_MS = 24 * 60 * 60 * 1000;

export const walmartSandboxOrderPayload = (input: WalmartSandboxOrderInput) => {
  const placedMs = input.placedAt.getTime();
  const { address } = input.buyer;
  const currency = input.currency.toUpperCase();
  const purchaseOrderId = String(1_700_000_000_000 + input.sequence);
  return {
    purchaseOrderId,
    customerOrderId: String(5_200_000_000_000 + input.sequence),
    customerEmailId: address.email || `sandbox-${input.sequence}@relay.walmart.com`,
    orderType: 'REGULAR',
    orderDate: placedMs,
    shippingInfo: {
      phone: address.phone,
      estimatedDeliveryDate: placedMs + 5 * DAY_MS,
      estimatedShipDate: placedMs + 2 * DAY_MS,
      methodCode: 'Standard',
      postalAddress: {
        name: input.buyer.name,
        address1: address.line1,
        ...(address.line2 ? { address2: address.line2 } : {}),
        city: address.city,
        state: address.region,
        postalCode: address.postalCode,
        country: ALPHA2_TO_ALPHA3[address.country] ?? address.country,
        addressType: 'RESIDENTIAL',
      },
    },
    orderLines: {
      orderLine: input.items.map((item, index) => ({
        lineNumber: String(index + 1),
        item: { productName: item.title, sku: item.sku },
        charges: {
          charge: [
            {
              chargeType: 'PRODUCT',
              chargeName: 'ItemPrice',
              chargeAmount: { currency, amount: item.unitPriceCents / 100 },
            },
          ],
        },
        orderLineQuantity: { unitOfMeasurement: 'EACH', amount: String(item.quantity) },
        statusDate: placedMs,
        orderLineStatuses: {
          orderLineStatus: [
            {
              status: 'Created',
              statusQuantity: { unitOfMeasurement: 'EACH', amount: String(item.quantity) },
            },
          ],
        },
        fulfillment: { fulfillmentOption: 'S2H', shipMethod: 'STANDARD' },
      })),
    },
  };
};

/** The mapping the sandbox calls on walmartSandboxOrderPayload's result (the connector's own). */
export const walmartSandboxOrderToMarketplaceOrder = mapWalmartOrder;
