import { createHash } from 'node:crypto';
import type { ShippingAddress } from '@layerline/contracts';
import { MalformedOrderError, type MarketplaceOrder } from '../../modules/shops/connector.ts';
import { mapAmazonOrder, parseAmazonOrder, parseAmazonOrderItems } from './amazon-mapping.ts';

/**
 * What the sandbox shop hands to the Amazon mapping when it impersonates Amazon: an order as
 * getOrders/getOrder answer it with a Restricted Data Token (ordersV0.json `Order`, with
 * ShippingAddress and BuyerInfo), and its items as getOrderItems answers them (`OrderItem`).
 * Amazon sends the two in separate responses, so the payload holds both.
 */
export interface AmazonSandboxOrderInput {
  readonly sequence: number;
  readonly placedAt: Date;
  readonly buyer: { readonly name: string; readonly address: ShippingAddress };
  readonly items: readonly { sku: string; title: string; quantity: number; unitPriceCents: number }[];
  readonly currency: string;
  /** Amazon's `Canceled` status (the sandbox's cancelled orders). */
  readonly cancelled?: boolean;
}

export interface AmazonSandboxOrderPayload {
  readonly order: Record<string, unknown>;
  readonly orderItems: readonly Record<string, unknown>[];
}

const amount = (cents: number): string => (cents / 100).toFixed(2);

/** Digits derived from a seed, so the same input always gives the same ids. */
const digits = (seed: string, length: number): string => {
  const hex = createHash('sha256').update(seed).digest('hex');
  let out = '';
  for (let i = 0; out.length < length; i += 1) out += String(Number.parseInt(hex[i % hex.length]!, 16) % 10);
  return out;
};

const optional = (key: string, value: string): Record<string, string> => (value ? { [key]: value } : {});

export const amazonSandboxOrderPayload = (input: AmazonSandboxOrderInput): AmazonSandboxOrderPayload => {
  const orderId = `114-${String(input.sequence % 10_000_000).padStart(7, '0')}-${digits(`order-${input.sequence}`, 7)}`;
  const placed = input.placedAt.toISOString();
  const totalCents = input.items.reduce((sum, item) => sum + item.unitPriceCents * item.quantity, 0);
  const address = input.buyer.address;
  return {
    order: {
      AmazonOrderId: orderId,
      PurchaseDate: placed,
      LastUpdateDate: placed,
      OrderStatus: input.cancelled ? 'Canceled' : 'Unshipped',
      FulfillmentChannel: 'MFN',
      SalesChannel: 'Amazon.com',
      OrderTotal: { CurrencyCode: input.currency, Amount: amount(totalCents) },
      NumberOfItemsShipped: 0,
      NumberOfItemsUnshipped: input.items.reduce((sum, item) => sum + item.quantity, 0),
      PaymentMethod: 'Other',
      MarketplaceId: 'ATVPDKIKX0DER',
      OrderType: 'StandardOrder',
      IsBusinessOrder: false,
      IsPrime: false,
      ShippingAddress: {
        Name: address.name,
        ...optional('CompanyName', address.company),
        AddressLine1: address.line1,
        ...optional('AddressLine2', address.line2),
        City: address.city,
        ...optional('StateOrRegion', address.region),
        PostalCode: address.postalCode,
        CountryCode: address.country,
        ...optional('Phone', address.phone),
      },
      BuyerInfo: { BuyerName: input.buyer.name, ...optional('BuyerEmail', address.email) },
    },
    orderItems: input.items.map((item, index) => ({
      ASIN: `B0${digits(`asin-${item.sku}`, 8)}`,
      SellerSKU: item.sku,
      OrderItemId: digits(`${orderId}-item-${index}`, 14),
      Title: item.title,
      QuantityOrdered: item.quantity,
      QuantityShipped: 0,
      ItemPrice: { CurrencyCode: input.currency, Amount: amount(item.unitPriceCents * item.quantity) },
    })),
  };
};

/**
 * The mapping the sandbox calls on such a payload (typed `unknown`, as the sandbox's impersonators
 * hand payloads over): the same parsing and mapping real Amazon orders go through.
 */
export const mapAmazonSandboxOrder = (payload: unknown): MarketplaceOrder => {
  const { order: rawOrder, orderItems } = (payload ?? {}) as { order?: unknown; orderItems?: unknown };
  if (!Array.isArray(orderItems))
    throw new MalformedOrderError('Amazon sandbox payload has no orderItems list');
  const order = parseAmazonOrder(rawOrder);
  return mapAmazonOrder(order, parseAmazonOrderItems(order.AmazonOrderId, orderItems));
};
