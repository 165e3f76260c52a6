import { z } from 'zod';
import {
  MalformedOrderError,
  type MarketplaceListing,
  type MarketplaceOrder,
} from '../../modules/shops/connector.ts';

/**
 * eBay Sell API payloads (the parts we read) and their translation into the connector's types.
 * Contracts: /work/shared/contracts/ebay/sell_fulfillment_v1_oas3.json (Order, LineItem, …) and
 * sell_inventory_v1_oas3.json (InventoryItems, Offers). eBay's schemas mark no field required, so
 * everything here is optional and the mapping decides what an order cannot do without.
 */

const text = z.string().nullish();
const amount = z.object({ value: text, currency: text }).nullish();
type EbayAmount = z.infer<typeof amount>;

/** The token endpoint's answer (authorization_code and refresh_token grants; not in the OpenAPI files). */
export const ebayTokenResponse = z.object({
  access_token: z.string().min(1),
  expires_in: z.number().nullish(),
  refresh_token: z.string().nullish(),
  refresh_token_expires_in: z.number().nullish(),
  token_type: z.string().nullish(),
});

/** Commerce Identity getUser (not in our contracts; eBay's documented UserResponse). */
export const ebayIdentityUser = z.object({ userId: z.string().min(1), username: text });

const address = z
  .object({
    addressLine1: text,
    addressLine2: text,
    city: text,
    stateOrProvince: text,
    postalCode: text,
    countryCode: text,
  })
  .nullish();

const contact = z
  .object({
    fullName: text,
    companyName: text,
    email: text,
    primaryPhone: z.object({ phoneNumber: text }).nullish(),
    contactAddress: address,
  })
  .nullish();

const lineItem = z.object({
  lineItemId: text,
  sku: text,
  title: text,
  quantity: z.number().nullish(),
  lineItemCost: amount,
  lineItemFulfillmentStatus: text,
});

export const ebayOrder = z.object({
  orderId: text,
  creationDate: text,
  lastModifiedDate: text,
  orderFulfillmentStatus: text,
  orderPaymentStatus: text,
  buyer: z.object({ username: text }).nullish(),
  buyerCheckoutNotes: text,
  cancelStatus: z.object({ cancelState: text }).nullish(),
  pricingSummary: z.object({ total: amount }).nullish(),
  fulfillmentStartInstructions: z
    .array(z.object({ shippingStep: z.object({ shipTo: contact }).nullish() }))
    .nullish(),
  lineItems: z.array(lineItem).nullish(),
});
export type EbayOrder = z.infer<typeof ebayOrder>;

/** getOrders: the page's orders stay unknown until each is read, so one bad order cannot sink the page. */
export const ebayOrdersPage = z.object({
  orders: z.array(z.unknown()).nullish(),
  total: z.number().nullish(),
  limit: z.number().nullish(),
  offset: z.number().nullish(),
});

export const ebayInventoryItem = z.object({
  sku: text,
  groupIds: z.array(z.string()).nullish(),
  inventoryItemGroupKeys: z.array(z.string()).nullish(),
  product: z.object({ title: text, imageUrls: z.array(z.string()).nullish() }).nullish(),
});
export type EbayInventoryItem = z.infer<typeof ebayInventoryItem>;

export const ebayInventoryPage = z.object({
  inventoryItems: z.array(ebayInventoryItem).nullish(),
  next: text,
  total: z.number().nullish(),
});

export const ebayOffer = z.object({
  offerId: text,
  sku: text,
  status: text,
  listing: z.object({ listingId: text, listingStatus: text }).nullish(),
  pricingSummary: z.object({ price: amount }).nullish(),
});
export type EbayOffer = z.infer<typeof ebayOffer>;

export const ebayOffersPage = z.object({ offers: z.array(ebayOffer).nullish() });

/**
 * eBay amounts are decimal strings in the currency's major unit ("19.99"). We store major × 100
 * ("cents"); anything that is not a plain decimal gives null rather than NaN.
 */
export const ebayAmountToCents = (value: EbayAmount): number | null => {
  const raw = value?.value?.trim() ?? '';
  if (!/^-?\d+(\.\d+)?$/.test(raw)) return null;
  return Math.round(Number(raw) * 100);
};

const currencyOf = (value: EbayAmount): string | null => {
  const code = value?.currency?.trim().toUpperCase() ?? '';
  return /^[A-Z]{3}$/.test(code) ? code : null;
};

const looksLikeEmail = (value: string | null | undefined): string =>
  value && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value.trim()) ? value.trim() : '';

const clean = (value: string | null | undefined): string => (value ?? '').trim();

/**
 * One order of getOrders/getOrder (unknown JSON) → an order, or MalformedOrderError saying why.
 * Cancelled: eBay's cancelState CANCELED, or an order refunded in full before it was shipped.
 */
export const mapEbayOrder = (payload: unknown): MarketplaceOrder => {
  const parsed = ebayOrder.safeParse(payload);
  if (!parsed.success)
    throw new MalformedOrderError(
      `eBay order is not readable: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
    );
  const order = parsed.data;
  const orderId = clean(order.orderId);
  if (!orderId) throw new MalformedOrderError('eBay order has no orderId');
  const placedAtMs = Date.parse(clean(order.creationDate));
  if (Number.isNaN(placedAtMs))
    throw new MalformedOrderError(`eBay order ${orderId} has no valid creationDate`);

  const lines = order.lineItems ?? [];
  if (lines.length === 0) throw new MalformedOrderError(`eBay order ${orderId} has no line items`);
  const items = lines.map((line, index) => {
    const lineItemId = clean(line.lineItemId);
    if (!lineItemId)
      throw new MalformedOrderError(`eBay order ${orderId} line ${index + 1} has no lineItemId`);
    const quantity = line.quantity ?? 0;
    if (!Number.isInteger(quantity) || quantity < 1)
      throw new MalformedOrderError(`eBay order ${orderId} line ${lineItemId} has no valid quantity`);
    // lineItemCost is the unit price × quantity, before discounts (Fulfillment API LineItem).
    const lineCents = ebayAmountToCents(line.lineItemCost);
    return {
      externalItemId: lineItemId,
      sku: clean(line.sku),
      title: clean(line.title),
      quantity,
      unitPriceCents: lineCents === null ? null : Math.round(lineCents / quantity),
    };
  });

  const shipTo = order.fulfillmentStartInstructions?.find((f) => f.shippingStep?.shipTo)?.shippingStep
    ?.shipTo;
  const where = shipTo?.contactAddress;
  const country = clean(where?.countryCode).toUpperCase();
  if (!shipTo || !clean(where?.addressLine1) || !clean(where?.city) || !/^[A-Z]{2}$/.test(country))
    throw new MalformedOrderError(`eBay order ${orderId} has no shipping address (street, city and country)`);
  const name = clean(shipTo.fullName) || clean(order.buyer?.username);
  if (!name) throw new MalformedOrderError(`eBay order ${orderId} has no recipient name`);

  const total = order.pricingSummary?.total;
  const cancelState = clean(order.cancelStatus?.cancelState).toUpperCase();
  const refundedUnshipped =
    clean(order.orderPaymentStatus).toUpperCase() === 'FULLY_REFUNDED' &&
    clean(order.orderFulfillmentStatus).toUpperCase() !== 'FULFILLED';
  const note = clean(order.buyerCheckoutNotes);
  return {
    externalId: orderId,
    placedAt: new Date(placedAtMs),
    customerName: name,
    shippingAddress: {
      name,
      company: clean(shipTo.companyName),
      line1: clean(where?.addressLine1),
      line2: clean(where?.addressLine2),
      city: clean(where?.city),
      region: clean(where?.stateOrProvince),
      postalCode: clean(where?.postalCode),
      country,
      phone: clean(shipTo.primaryPhone?.phoneNumber),
      email: looksLikeEmail(shipTo.email),
    },
    currency: currencyOf(total) ?? currencyOf(lines[0]?.lineItemCost) ?? 'XXX',
    totalCents: ebayAmountToCents(total),
    cancelled: cancelState === 'CANCELED' || refundedUnshipped,
    ...(note ? { note } : {}),
    items,
  };
};

/**
 * An inventory item and its offers → one listing per published offer. Items of a multi-variation
 * listing (an inventory item group) share the listing id, so their SKU tells them apart.
 */
export const mapEbayListing = (
  item: EbayInventoryItem,
  offers: readonly EbayOffer[],
  itemUrlBase: string,
): MarketplaceListing[] => {
  const sku = clean(item.sku);
  if (!sku) return [];
  const inGroup = (item.groupIds?.length ?? 0) > 0 || (item.inventoryItemGroupKeys?.length ?? 0) > 0;
  return offers
    .filter((offer) => clean(offer.status).toUpperCase() === 'PUBLISHED' && clean(offer.listing?.listingId))
    .map((offer) => {
      const listingId = clean(offer.listing?.listingId);
      const price = offer.pricingSummary?.price;
      return {
        externalListingId: listingId,
        externalVariantId: inGroup ? sku : '',
        title: clean(item.product?.title),
        sku,
        priceCents: ebayAmountToCents(price),
        currency: currencyOf(price),
        url: /^\d+$/.test(listingId) ? `${itemUrlBase}/itm/${listingId}` : null,
        imageUrl: item.product?.imageUrls?.[0] ?? null,
      };
    });
};

/**
 * Our carrier names → eBay's ShippingCarrierCodeType values (Trading API GeteBayDetails
 * ShippingCarrierDetails; the Fulfillment contract points there). Anything else is "Other".
 */
const EBAY_CARRIERS: Readonly<Record<string, string>> = {
  usps: 'USPS',
  ups: 'UPS',
  fedex: 'FedEx',
  dhl: 'DHL',
  dhl_express: 'DHL',
  dhl_ecommerce: 'DHL',
  deutsche_post: 'DeutschePost',
  hermes: 'Hermes',
  chronopost: 'Chronopost',
  correos: 'Correos',
  seur: 'Seur',
};

export const ebayCarrierCode = (carrierName: string): string =>
  EBAY_CARRIERS[
    carrierName
      .trim()
      .toLowerCase()
      .replace(/[\s-]+/g, '_')
  ] ?? 'Other';
