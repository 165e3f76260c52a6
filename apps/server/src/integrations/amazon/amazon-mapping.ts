import { z } from 'zod';
import {
  MalformedOrderError,
  type MarketplaceListing,
  type MarketplaceOrder,
} from '../../modules/shops/connector.ts';

/**
 * Selling Partner API payloads (the parts we read) and their translation into the connector's
 * types. Shapes follow /work/shared/contracts/amazon-sp-api/ordersV0.json (Order, OrderItem,
 * GetOrdersResponse, GetOrderItemsResponse) and listingsItems_2021-08-01.json (ItemSearchResults).
 * Schemas are lenient (Amazon omits most fields depending on the order's state and the app's
 * roles); what an order cannot do without is checked in mapAmazonOrder.
 */

const money = z.object({ CurrencyCode: z.string().nullish(), Amount: z.string().nullish() }).nullish();
type AmazonMoney = z.infer<typeof money>;

const address = z.object({
  Name: z.string().nullish(),
  CompanyName: z.string().nullish(),
  AddressLine1: z.string().nullish(),
  AddressLine2: z.string().nullish(),
  AddressLine3: z.string().nullish(),
  City: z.string().nullish(),
  StateOrRegion: z.string().nullish(),
  PostalCode: z.string().nullish(),
  CountryCode: z.string().nullish(),
  Phone: z.string().nullish(),
});

export const amazonOrder = z.object({
  AmazonOrderId: z.string(),
  PurchaseDate: z.string(),
  LastUpdateDate: z.string().nullish(),
  OrderStatus: z.string(),
  FulfillmentChannel: z.string().nullish(),
  MarketplaceId: z.string().nullish(),
  OrderTotal: money,
  ShippingAddress: address.nullish(),
  BuyerInfo: z.object({ BuyerEmail: z.string().nullish(), BuyerName: z.string().nullish() }).nullish(),
});
export type AmazonOrder = z.infer<typeof amazonOrder>;

export const amazonOrderItem = z.object({
  OrderItemId: z.string(),
  SellerSKU: z.string().nullish(),
  Title: z.string().nullish(),
  QuantityOrdered: z.number().int(),
  QuantityShipped: z.number().int().nullish(),
  ItemPrice: money,
});
export type AmazonOrderItem = z.infer<typeof amazonOrderItem>;

/**
 * A page of getOrders. Orders are kept as raw values here and parsed one by one, so one unreadable
 * order is reported (MalformedOrderError) instead of failing the whole page.
 */
export const amazonOrdersPage = z.object({
  payload: z.object({ Orders: z.array(z.unknown()), NextToken: z.string().nullish() }),
});

export const amazonOrderResponse = z.object({ payload: z.unknown() });

export const amazonOrderItemsPage = z.object({
  payload: z.object({ OrderItems: z.array(z.unknown()), NextToken: z.string().nullish() }),
});

export const amazonLwaTokenResponse = z.object({
  access_token: z.string().min(1),
  refresh_token: z.string().nullish(),
  token_type: z.string().nullish(),
  expires_in: z.number().nullish(),
});

export const amazonLwaErrorResponse = z.object({
  error: z.string(),
  error_description: z.string().nullish(),
});

/** CreateRestrictedDataTokenResponse (Tokens API 2021-03-01; its model is not in contracts/). */
export const amazonRestrictedDataTokenResponse = z.object({
  restrictedDataToken: z.string().min(1),
  expiresIn: z.number().nullish(),
});

/** SP-API ErrorList: `{ errors: [{ code, message, details }] }`. */
export const amazonErrorList = z.object({
  errors: z
    .array(
      z.object({ code: z.string().nullish(), message: z.string().nullish(), details: z.string().nullish() }),
    )
    .nullish(),
});

const listingsItem = z.object({
  sku: z.string(),
  summaries: z
    .array(
      z.object({
        marketplaceId: z.string(),
        asin: z.string().nullish(),
        itemName: z.string().nullish(),
        mainImage: z.object({ link: z.string().nullish() }).nullish(),
      }),
    )
    .nullish(),
  offers: z
    .array(
      z.object({
        marketplaceId: z.string(),
        offerType: z.string().nullish(),
        price: z.object({ currencyCode: z.string().nullish(), amount: z.string().nullish() }).nullish(),
      }),
    )
    .nullish(),
});
export type AmazonListingsItem = z.infer<typeof listingsItem>;

export const amazonListingsPage = z.object({
  items: z.array(listingsItem),
  pagination: z.object({ nextToken: z.string().nullish() }).nullish(),
});

/** Amazon money is a decimal string ("11.01"); we store amount × 100, rounded. Odd values give null. */
export const amazonAmountToCents = (amount: string | null | undefined): number | null => {
  const text = (amount ?? '').trim();
  if (!/^-?\d+(\.\d+)?$/.test(text)) return null;
  return Math.round(Number(text) * 100);
};

const currencyOf = (
  value: AmazonMoney | { currencyCode?: string | null } | null | undefined,
): string | null => {
  if (!value) return null;
  const raw =
    'CurrencyCode' in value ? value.CurrencyCode : 'currencyCode' in value ? value.currencyCode : null;
  const code = (raw ?? '').trim().toUpperCase();
  return /^[A-Z]{3}$/.test(code) ? code : null;
};

const clean = (value: string | null | undefined): string => (value ?? '').trim();

const looksLikeEmail = (value: string | null | undefined): string =>
  value && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value.trim()) ? value.trim() : '';

/** Statuses with nothing to ship yet: payment not authorised, so no items' prices and no address. */
export const AMAZON_NOT_YET_PAYABLE = new Set(['Pending', 'PendingAvailability']);

/** Parses one raw order of a getOrders page or a getOrder answer; unreadable → MalformedOrderError. */
export const parseAmazonOrder = (raw: unknown): AmazonOrder => {
  const result = amazonOrder.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new MalformedOrderError(
      `Amazon order is not readable: ${issue ? `${issue.path.join('.') || 'order'} ${issue.message}` : 'unknown shape'}`,
    );
  }
  return result.data;
};

export const parseAmazonOrderItems = (orderId: string, raw: readonly unknown[]): AmazonOrderItem[] =>
  raw.map((item, index) => {
    const result = amazonOrderItem.safeParse(item);
    if (!result.success) {
      const issue = result.error.issues[0];
      throw new MalformedOrderError(
        `Amazon order ${orderId} item ${index + 1} is not readable: ${issue ? `${issue.path.join('.')} ${issue.message}` : 'unknown shape'}`,
      );
    }
    return result.data;
  });

/**
 * An order and its items → a MarketplaceOrder. Amazon's `Canceled` marks a cancelled order; its
 * address may already be gone, so a cancelled order is not refused for it (it is never printed).
 * Any other order needs an id, a purchase date, a ship-to name, street, city and country (the
 * Restricted Data Token is what makes Amazon send them), and at least one item still ordered.
 * `ItemPrice` is the line's price (unit price × quantity), so the unit price is divided back out.
 */
export const mapAmazonOrder = (order: AmazonOrder, items: readonly AmazonOrderItem[]): MarketplaceOrder => {
  const id = clean(order.AmazonOrderId);
  if (!id) throw new MalformedOrderError('Amazon order has no AmazonOrderId');
  const placedMs = Date.parse(order.PurchaseDate);
  if (Number.isNaN(placedMs)) throw new MalformedOrderError(`Amazon order ${id} has no valid PurchaseDate`);
  const cancelled = order.OrderStatus === 'Canceled';

  const ship = order.ShippingAddress ?? {};
  const name = clean(ship.Name);
  // Some addresses carry the street on line 2 when line 1 is a company or c/o line.
  const lines = [ship.AddressLine1, ship.AddressLine2, ship.AddressLine3].map(clean).filter(Boolean);
  const country = clean(ship.CountryCode).toUpperCase();
  const city = clean(ship.City);
  if (!cancelled) {
    const missing = [
      !name && 'name',
      lines.length === 0 && 'street',
      !city && 'city',
      !/^[A-Z]{2}$/.test(country) && 'country',
    ].filter(Boolean);
    if (missing.length > 0)
      throw new MalformedOrderError(
        `Amazon order ${id} has no shipping ${missing.join(', ')} (restricted data not granted?)`,
      );
  }

  const lineItems = items
    .filter((item) => cancelled || item.QuantityOrdered > 0)
    .map((item) => {
      const lineCents = amazonAmountToCents(item.ItemPrice?.Amount);
      return {
        externalItemId: clean(item.OrderItemId),
        sku: clean(item.SellerSKU),
        title: clean(item.Title),
        quantity: item.QuantityOrdered,
        unitPriceCents:
          lineCents !== null && item.QuantityOrdered > 0
            ? Math.round(lineCents / item.QuantityOrdered)
            : null,
      };
    });
  if (!cancelled && lineItems.length === 0) throw new MalformedOrderError(`Amazon order ${id} has no items`);
  if (lineItems.some((item) => !item.externalItemId))
    throw new MalformedOrderError(`Amazon order ${id} has an item without OrderItemId`);

  const buyer = order.BuyerInfo ?? {};
  return {
    externalId: id,
    placedAt: new Date(placedMs),
    customerName: clean(buyer.BuyerName) || name,
    shippingAddress: {
      name,
      company: clean(ship.CompanyName),
      line1: lines[0] ?? '',
      line2: lines.slice(1).join(', '),
      city,
      region: clean(ship.StateOrRegion),
      postalCode: clean(ship.PostalCode),
      country,
      phone: clean(ship.Phone),
      email: looksLikeEmail(buyer.BuyerEmail),
    },
    currency: currencyOf(order.OrderTotal) ?? currencyOf(items[0]?.ItemPrice) ?? 'XXX',
    totalCents: amazonAmountToCents(order.OrderTotal?.Amount),
    cancelled,
    items: lineItems,
  };
};

/**
 * A listings item → one listing (Amazon keys a seller's listing by SKU; a variation is its own
 * SKU). Title, image and price are the ones for `marketplaceId` (the shop's primary marketplace).
 */
export const mapAmazonListing = (item: AmazonListingsItem, marketplaceId: string): MarketplaceListing => {
  const summary =
    item.summaries?.find((s) => s.marketplaceId === marketplaceId) ?? item.summaries?.[0] ?? null;
  const offers = item.offers?.filter((o) => o.marketplaceId === marketplaceId) ?? [];
  const offer = offers.find((o) => o.offerType === 'B2C') ?? offers[0] ?? null;
  return {
    externalListingId: item.sku.trim(),
    externalVariantId: '',
    title: clean(summary?.itemName),
    sku: item.sku.trim(),
    priceCents: amazonAmountToCents(offer?.price?.amount),
    currency: currencyOf(offer?.price),
    url: null,
    imageUrl: summary?.mainImage?.link ?? null,
  };
};
