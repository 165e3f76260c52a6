import { z } from 'zod';
import {
  MalformedOrderError,
  type MarketplaceListing,
  type MarketplaceOrder,
} from '../../modules/shops/connector.ts';

/**
 * Walmart Marketplace payloads (the parts we read) and their translation into the connector's
 * types. Shapes follow /work/shared/contracts/walmart/*.yml; where the contract disagrees with
 * itself (getAnOrder's schema says `orderDate` is a date-time string and the order is not wrapped,
 * its own example and getAllOrders say epoch milliseconds inside `{order}`) both are accepted.
 */

/** POST /v3/token (Walmart's Authentication API; not in contracts/, see docs/marketplaces/walmart.md). */
export const walmartTokenResponse = z.object({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: z.number().optional(),
});

const money = z.object({ currency: z.string().nullish(), amount: z.number().nullish() }).nullish();
type WalmartMoney = z.infer<typeof money>;

const quantity = z
  .object({ unitOfMeasurement: z.string().nullish(), amount: z.union([z.string(), z.number()]).nullish() })
  .nullish();

const orderLineStatus = z.object({
  status: z.string().nullish(),
  statusQuantity: quantity,
});

const orderLine = z.object({
  lineNumber: z.union([z.string(), z.number()]).nullish(),
  item: z.object({ productName: z.string().nullish(), sku: z.string().nullish() }).nullish(),
  charges: z
    .object({
      charge: z
        .array(
          z.object({
            chargeType: z.string().nullish(),
            chargeName: z.string().nullish(),
            chargeAmount: money,
          }),
        )
        .nullish(),
    })
    .nullish(),
  orderLineQuantity: quantity,
  orderLineStatuses: z.object({ orderLineStatus: z.array(orderLineStatus).nullish() }).nullish(),
});
export type WalmartOrderLine = z.infer<typeof orderLine>;

/** A purchase order as getAllOrders, getAnOrder, acknowledge and shipping return it. */
export const walmartOrder = z.object({
  purchaseOrderId: z.union([z.string(), z.number()]).nullish(),
  customerOrderId: z.union([z.string(), z.number()]).nullish(),
  customerEmailId: z.string().nullish(),
  orderDate: z.union([z.number(), z.string()]).nullish(),
  shippingInfo: z
    .object({
      phone: z.string().nullish(),
      postalAddress: z
        .object({
          name: z.string().nullish(),
          address1: z.string().nullish(),
          address2: z.string().nullish(),
          city: z.string().nullish(),
          state: z.string().nullish(),
          postalCode: z.string().nullish(),
          country: z.string().nullish(),
        })
        .nullish(),
    })
    .nullish(),
  orderLines: z.object({ orderLine: z.array(orderLine).nullish() }).nullish(),
});
export type WalmartOrder = z.infer<typeof walmartOrder>;

/** getAllOrders: `list.elements.order[]`, paged by `list.meta.nextCursor` (a query string). */
export const walmartOrdersPage = z.object({
  list: z.object({
    meta: z
      .object({
        totalCount: z.number().nullish(),
        limit: z.number().nullish(),
        nextCursor: z.string().nullish(),
      })
      .nullish(),
    elements: z.object({ order: z.array(z.unknown()).nullish() }).nullish(),
  }),
});

/** getAnOrder / acknowledgeOrders / shippingUpdates answer `{order}` (the examples; see above). */
export const walmartOrderEnvelope = z.union([z.object({ order: z.unknown() }), walmartOrder]);

const walmartItem = z.object({
  sku: z.string(),
  wpid: z.string().nullish(),
  productName: z.string().nullish(),
  price: money,
  lifecycleStatus: z.string().nullish(),
  publishedStatus: z.string().nullish(),
});
export type WalmartItem = z.infer<typeof walmartItem>;

/** getAllItems: `ItemResponse[]`, `totalItems`, `nextCursor`. */
export const walmartItemsPage = z.object({
  ItemResponse: z.array(walmartItem).nullish(),
  totalItems: z.number().nullish(),
  nextCursor: z.string().nullish(),
});

/** createSubscription answers with the events it created (the schema says `event`, its example `events`). */
export const walmartSubscriptionResponse = z.object({}).loose();

const ISO_CURRENCY = /^[A-Z]{3}$/;

/** Walmart money is a decimal amount ("amount": 9.99); we store cents. */
export const walmartMoneyToCents = (value: WalmartMoney): number | null =>
  value && typeof value.amount === 'number' && Number.isFinite(value.amount)
    ? Math.round(value.amount * 100)
    : null;

const currencyOf = (value: WalmartMoney): string | null => {
  const code = (value?.currency ?? '').trim().toUpperCase();
  return ISO_CURRENCY.test(code) ? code : null;
};

export const mapWalmartItem = (item: WalmartItem): MarketplaceListing => ({
  externalListingId: item.wpid?.trim() || item.sku,
  externalVariantId: '',
  title: item.productName ?? '',
  sku: item.sku.trim(),
  priceCents: walmartMoneyToCents(item.price),
  currency: currencyOf(item.price),
  url: null,
  imageUrl: null,
});

/**
 * Walmart addresses carry ISO 3166 alpha-3 codes ("USA" in every example). The markets the US
 * Marketplace ships to are listed; a two-letter code is taken as is.
 */
export const WALMART_ALPHA3_TO_ALPHA2: Readonly<Record<string, string>> = {
  USA: 'US',
  PRI: 'PR',
  GUM: 'GU',
  VIR: 'VI',
  ASM: 'AS',
  MNP: 'MP',
  UMI: 'UM',
  CAN: 'CA',
  MEX: 'MX',
  CHL: 'CL',
};

const countryOf = (value: string | null | undefined): string => {
  const code = (value ?? '').trim().toUpperCase();
  if (/^[A-Z]{2}$/.test(code)) return code;
  const alpha2 = WALMART_ALPHA3_TO_ALPHA2[code];
  if (!alpha2) throw new MalformedOrderError(`Walmart order has an unknown country "${code.slice(0, 10)}"`);
  return alpha2;
};

const quantityOf = (value: z.infer<typeof quantity>): number => {
  const amount = Number(value?.amount ?? Number.NaN);
  return Number.isFinite(amount) && amount > 0 ? Math.floor(amount) : 0;
};

const statusesOf = (line: WalmartOrderLine) => line.orderLineStatuses?.orderLineStatus ?? [];

/** Units of a line still to fulfil: ordered minus the units Walmart reports as cancelled. */
const openQuantity = (line: WalmartOrderLine): number => {
  const cancelled = statusesOf(line)
    .filter((s) => s.status === 'Cancelled')
    .reduce((sum, s) => sum + quantityOf(s.statusQuantity), 0);
  return Math.max(0, quantityOf(line.orderLineQuantity) - cancelled);
};

/** True when any line is still "Created": the order has not been acknowledged yet. */
export const walmartOrderNeedsAcknowledgement = (order: WalmartOrder): boolean =>
  (order.orderLines?.orderLine ?? []).some((line) => statusesOf(line).some((s) => s.status === 'Created'));

const placedAtOf = (value: number | string | null | undefined): Date => {
  const date =
    typeof value === 'number' ? new Date(value) : typeof value === 'string' ? new Date(value) : null;
  if (!date || Number.isNaN(date.getTime()))
    throw new MalformedOrderError('Walmart order has no readable orderDate');
  return date;
};

const looksLikeEmail = (value: string | null | undefined): string =>
  value && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) ? value : '';

const idOf = (value: string | number | null | undefined): string =>
  value === null || value === undefined ? '' : String(value).trim();

/**
 * A purchase order → an order. The unit price is the line's PRODUCT charge (chargeName
 * "ItemPrice"); the order total is left null because the contract does not say whether a line's
 * charges are per unit or per line, so a sum could be off by the quantity.
 * Lines whose every unit is cancelled are dropped; an order with no open line is `cancelled`.
 * Throws MalformedOrderError for anything that is not a shippable order.
 */
export const mapWalmartOrder = (payload: unknown): MarketplaceOrder => {
  const parsed = walmartOrder.safeParse(payload);
  if (!parsed.success || payload === null || typeof payload !== 'object')
    throw new MalformedOrderError('Walmart order payload is not an order object');
  const order = parsed.data;
  const externalId = idOf(order.purchaseOrderId);
  if (!/^[A-Za-z0-9-]{1,40}$/.test(externalId))
    throw new MalformedOrderError('Walmart order has no purchaseOrderId');
  const address = order.shippingInfo?.postalAddress;
  if (!address) throw new MalformedOrderError(`Walmart order ${externalId} has no shipping address`);
  const name = (address.name ?? '').trim();
  const line1 = (address.address1 ?? '').trim();
  const city = (address.city ?? '').trim();
  const postalCode = (address.postalCode ?? '').trim();
  if (!name || !line1 || !city || !postalCode)
    throw new MalformedOrderError(`Walmart order ${externalId} has an incomplete shipping address`);

  const lines = order.orderLines?.orderLine ?? [];
  if (lines.length === 0) throw new MalformedOrderError(`Walmart order ${externalId} has no order lines`);
  const mapped = lines.map((line) => {
    const lineNumber = idOf(line.lineNumber);
    if (!lineNumber)
      throw new MalformedOrderError(`Walmart order ${externalId} has a line without lineNumber`);
    const product = line.charges?.charge?.find((c) => (c.chargeType ?? '').toUpperCase() === 'PRODUCT');
    return {
      open: openQuantity(line),
      currency: currencyOf(product?.chargeAmount),
      item: {
        externalItemId: lineNumber,
        sku: (line.item?.sku ?? '').trim(),
        title: line.item?.productName ?? '',
        quantity: quantityOf(line.orderLineQuantity),
        unitPriceCents: walmartMoneyToCents(product?.chargeAmount),
      },
    };
  });
  const open = mapped.filter((m) => m.open > 0);
  const cancelled = open.length === 0;
  const items = (cancelled ? mapped : open).map((m) => ({
    ...m.item,
    quantity: cancelled ? m.item.quantity : m.open,
  }));

  return {
    externalId,
    placedAt: placedAtOf(order.orderDate),
    customerName: name,
    shippingAddress: {
      name,
      company: '',
      line1,
      line2: (address.address2 ?? '').trim(),
      city,
      region: (address.state ?? '').trim(),
      postalCode,
      country: countryOf(address.country),
      phone: (order.shippingInfo?.phone ?? '').trim().slice(0, 40),
      email: looksLikeEmail(order.customerEmailId),
    },
    currency: mapped.find((m) => m.currency)?.currency ?? 'USD',
    totalCents: null,
    cancelled,
    items,
  };
};

/** `{order: …}` or a bare order (see the header comment) → the order object inside. */
export const unwrapWalmartOrder = (body: unknown): unknown =>
  body !== null && typeof body === 'object' && 'order' in body ? (body as { order: unknown }).order : body;

/**
 * Our carrier names → Walmart's `carrierName.carrier` enum (contract: shippingUpdates). Anything
 * else goes as `otherCarrier`, which Walmart accepts only with a trackingURL.
 */
const WALMART_CARRIERS: Readonly<Record<string, string>> = {
  ups: 'UPS',
  usps: 'USPS',
  fedex: 'FedEx',
  fedex_smartpost: 'FEDEXSP',
  dhl: 'DHL',
  dhl_express: 'DHL',
  dhl_ecommerce: 'DHL Ecommerce - US',
  ontrac: 'OnTrac',
  lasership: 'LS',
  lso: 'LSO',
  canada_post: 'Canada Post',
  royal_mail: 'Royal Mail',
  gls: 'GLS',
  asendia: 'Asendia',
  sendle: 'Sendle',
  deutsche_post: 'Deutsche Post',
  postnord: 'PostNord Sweden',
};

export const walmartCarrierName = (carrierName: string): { carrier: string } | { otherCarrier: string } => {
  const key = carrierName
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  const carrier = WALMART_CARRIERS[key];
  return carrier ? { carrier } : { otherCarrier: carrierName.trim() || 'Other' };
};

/** The buyer-facing tracking page for the carriers whose URL pattern is public and stable. */
export const walmartTrackingUrl = (carrierName: string, trackingNumber: string): string => {
  const number = encodeURIComponent(trackingNumber);
  switch (carrierName.trim().toLowerCase()) {
    case 'ups':
      return `https://www.ups.com/track?tracknum=${number}`;
    case 'usps':
      return `https://tools.usps.com/go/TrackConfirmAction?tLabels=${number}`;
    case 'fedex':
      return `https://www.fedex.com/fedextrack/?trknbr=${number}`;
    case 'dhl':
    case 'dhl_express':
      return `https://www.dhl.com/en/express/tracking.html?AWB=${number}`;
    default:
      // Walmart requires a trackingURL with otherCarrier; a carrier-agnostic lookup page.
      return `https://t.17track.net/en#nums=${number}`;
  }
};
