import type { OrderStatus } from '@layerline/contracts';

/**
 * The order lifecycle as a transitions table: the only statuses an order can move to from each
 * status. Every status change goes through `assertTransition`, and is recorded as an order event.
 *
 *   received ─┬─> accepted ─> in_production ─> printed ─> packed ─> shipped ─> delivered
 *             └─> on_hold ──> accepted (once the problem is fixed)
 *   on_hold ─> received: fixed while the seller's change window is still open (released when it ends)
 *   packed ─> on_hold ─> packed: the carrier refused the address (fixed, the label is bought again)
 *   shipped ─> packed: its label was voided before the parcel travelled (a new label is bought)
 *   any status before shipped ─> cancelled
 */
export const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  received: ['accepted', 'on_hold', 'cancelled'],
  on_hold: ['accepted', 'received', 'packed', 'cancelled'],
  accepted: ['in_production', 'on_hold', 'cancelled'],
  in_production: ['printed', 'on_hold', 'cancelled'],
  printed: ['packed', 'cancelled'],
  packed: ['shipped', 'on_hold', 'cancelled'],
  shipped: ['delivered', 'packed'],
  delivered: [],
  cancelled: [],
};

export class TransitionError extends Error {
  readonly from: OrderStatus;
  readonly to: OrderStatus;
  constructor(from: OrderStatus, to: OrderStatus) {
    super(`An order that is ${from.replace('_', ' ')} cannot become ${to.replace('_', ' ')}`);
    this.name = 'TransitionError';
    this.from = from;
    this.to = to;
  }
}

export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return ORDER_TRANSITIONS[from].includes(to);
}

export function assertTransition(from: OrderStatus, to: OrderStatus): void {
  if (!canTransition(from, to)) throw new TransitionError(from, to);
}

/** The status a new order starts in once its items are matched: accepted, or on hold with the reason. */
export function initialStatus(unmatchedSkus: readonly string[]): { status: OrderStatus; holdReason: string | null } {
  if (unmatchedSkus.length === 0) return { status: 'accepted', holdReason: null };
  return {
    status: 'on_hold',
    holdReason: `No product variant has the SKU ${unmatchedSkus.map((s) => `“${s}”`).join(', ')}. Link the listing or add the SKU to a product.`,
  };
}
