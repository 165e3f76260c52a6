import type { OrderPriceRepository, OrderPriceRow } from './order-price-repository.ts';

/** A printed part the order will ship: its box (mm) and weight (g), as the parcel plan takes it. */
export interface ExpectedPart {
  readonly sizeMm: { readonly x: number; readonly y: number; readonly z: number };
  readonly grams: number;
}

export interface OrderPriceDeps {
  readonly repository: OrderPriceRepository;
  readonly order: (orderId: string) => Promise<{ ownerId: string; items: readonly { sku: string; variantId: string | null; quantity: number }[] } | null>;
  /** Each variant's unit cost in dollars and whether all its parts' quotes are exact; null while a part has no quote. */
  readonly unitQuotes: (variantIds: readonly string[]) => Promise<Map<string, { costUsd: number; exact: boolean } | null>>;
  /** Every copy of every part the order will print. */
  readonly expectedParts: (orderId: string) => Promise<ExpectedPart[]>;
  /** The shipping module's estimate for those parts; null when it cannot be told now. */
  readonly estimateShipping: (orderId: string, parts: readonly ExpectedPart[]) => Promise<{ shippingCents: number; packagingCents: number } | null>;
}

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

/** The items' cost the seller pays: the exact slices' when they changed it, else the first price's. */
export const itemsCentsOf = (price: OrderPriceRow): number => price.adjustedItemsCents ?? price.itemsCents;
export const totalCentsOf = (price: OrderPriceRow): number => itemsCentsOf(price) + price.packagingCents + price.shippingCents;

/**
 * One price per order (docs/payments.md): made once, the first time anything needs it (the charge at
 * release, or the label when orders are not charged), and stored; every later reader takes the stored
 * row. Before, the charge and the fulfilment record each re-read the live quotes, so an exact slice
 * landing in between priced the same parts twice (the demo's $8.39 charged against $8.33 recorded).
 */
export function createOrderPrices(deps: OrderPriceDeps) {
  /** The items' lines at today's quotes; null while one has no quote. */
  async function quoteLines(items: readonly { sku: string; variantId: string | null; quantity: number }[]) {
    const quotes = await deps.unitQuotes(items.flatMap((item) => (item.variantId ? [item.variantId] : [])));
    const lines: OrderPriceRow['lines'] = [];
    for (const item of items) {
      const quote = item.variantId ? quotes.get(item.variantId) : null;
      if (!quote) return null;
      lines.push({ sku: item.sku, quantity: item.quantity, unitCents: Math.round(quote.costUsd * 100), exact: quote.exact });
    }
    return lines;
  }
  const itemsCentsOfLines = (lines: OrderPriceRow['lines']) => lines.reduce((sum, line) => sum + line.unitCents * line.quantity, 0);

  return {
    /** The order's stored price, made now if it has none; null while an item's price is not known (a part without a quote). */
    async priceOf(orderId: string): Promise<OrderPriceRow | null> {
      const stored = await deps.repository.find(orderId);
      if (stored) return stored;
      const order = await deps.order(orderId);
      if (!order) return null;
      const lines = await quoteLines(order.items);
      if (!lines) return null;
      const estimate = await deps.estimateShipping(orderId, await deps.expectedParts(orderId));
      return deps.repository.insertOnce({
        orderId,
        ownerId: order.ownerId,
        lines,
        itemsCents: itemsCentsOfLines(lines),
        packagingCents: estimate?.packagingCents ?? 0,
        shippingCents: estimate?.shippingCents ?? 0,
        currency: 'USD',
      });
    },

    /**
     * Once per order, when its parts are printed (packed): a price made while some part was only
     * estimated is quoted again; if every part is now exact and the items cost differently, the new
     * cost is recorded with its reason (the caller charges or refunds the difference). Answers the row
     * as settled, or null when the order has no price.
     */
    async settleExact(orderId: string, options: { minIncreaseCents: number }): Promise<OrderPriceRow | null> {
      const price = await deps.repository.find(orderId);
      if (!price || price.settledAt) return price ?? null;
      if (price.lines.every((line) => line.exact)) return deps.repository.settle(orderId, null);
      const order = await deps.order(orderId);
      const lines = order ? await quoteLines(order.items) : null;
      // Still estimated (no slicer, or its slice failed): the price stands as charged.
      if (!lines || !lines.every((line) => line.exact)) return deps.repository.settle(orderId, null);
      const itemsCents = itemsCentsOfLines(lines);
      if (itemsCents === price.itemsCents) return deps.repository.settle(orderId, null);
      const reason = `The exact quote (sliced, or set by the print farm) changed the print cost from ${dollars(price.itemsCents)} (estimated) to ${dollars(itemsCents)}`;
      // More than was charged, but less than a card can be charged: the farm keeps the first price (said so).
      if (itemsCents > price.itemsCents && itemsCents - price.itemsCents < options.minIncreaseCents)
        return deps.repository.settle(orderId, { itemsCents: price.itemsCents, reason: `${reason}; the difference is below the smallest card charge and is not charged` });
      return deps.repository.settle(orderId, { itemsCents, reason });
    },
  };
}

export type OrderPrices = ReturnType<typeof createOrderPrices>;
