import type { OrderAmount } from './payment-service.ts';

/** A printed part the order will ship: its box (mm) and weight (g), as the parcel plan takes it. */
export interface ExpectedPart {
  readonly sizeMm: { readonly x: number; readonly y: number; readonly z: number };
  readonly grams: number;
}

export interface OrderAmountDeps {
  readonly items: (orderId: string) => Promise<readonly { variantId: string | null; quantity: number }[] | null>;
  /** Each variant's unit cost in dollars (its parts' quotes × quantities); null while a part has no quote. */
  readonly unitCosts: (variantIds: readonly string[]) => Promise<Map<string, number | null>>;
  /** Every copy of every part the order will print. */
  readonly expectedParts: (orderId: string) => Promise<ExpectedPart[]>;
  /** The shipping module's estimate for those parts; null when it cannot be told now. */
  readonly estimateShipping: (orderId: string, parts: readonly ExpectedPart[]) => Promise<{ shippingCents: number; packagingCents: number } | null>;
}

/**
 * What an order costs the seller when it enters production: its items at their quoted unit cost, and
 * the boxes and shipping the farm expects to buy for them (the difference to the real label is settled
 * on the fulfilment record). Null while an item's price is not known (a part without a quote).
 */
export function createOrderAmount(deps: OrderAmountDeps): (orderId: string) => Promise<OrderAmount> {
  return async (orderId) => {
    const items = await deps.items(orderId);
    if (!items) return null;
    const costs = await deps.unitCosts(items.flatMap((item) => (item.variantId ? [item.variantId] : [])));
    let itemsDollars = 0;
    for (const item of items) {
      const unit = item.variantId ? costs.get(item.variantId) : null;
      if (unit === null || unit === undefined) return null;
      itemsDollars += unit * item.quantity;
    }
    const estimate = await deps.estimateShipping(orderId, await deps.expectedParts(orderId));
    return {
      itemsCents: Math.round(itemsDollars * 100),
      packagingCents: estimate?.packagingCents ?? 0,
      shippingCents: estimate?.shippingCents ?? 0,
      currency: 'USD',
    };
  };
}
