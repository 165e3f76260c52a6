import type { ChargeKind, ChargeState } from '@layerline/contracts';

/**
 * What the payments module tells other modules after a change is committed (affiliates' ledger,
 * seller webhooks, emails, the farm's Discord). A listener that fails is logged and does not undo
 * the change; listeners must be idempotent (a change may be told again after a restart) and anything
 * that must not be lost also has a sweep of its own over the tables.
 */
export interface ChargeChangedEvent {
  readonly chargeId: string;
  readonly ownerId: string;
  readonly orderId: string | null;
  readonly orderNumber: string | null;
  readonly kind: ChargeKind;
  readonly from: ChargeState | null;
  readonly to: ChargeState;
  readonly amountCents: number;
  readonly refundedCents: number;
  readonly currency: string;
  readonly failureReason: string | null;
  /** Where the seller authenticates (absolute when PUBLIC_URL is set, else a path of this site). */
  readonly actionUrl: string | null;
}

export interface RefundSucceededEvent {
  readonly refundId: string;
  readonly chargeId: string;
  readonly ownerId: string;
  readonly orderId: string | null;
  readonly orderNumber: string | null;
  /** Why, in the seller's words: a cancellation, an adjustment after the exact quote, the farm's reason. */
  readonly reason: string;
  readonly amountCents: number;
  readonly currency: string;
  /** The money went back into the seller's prepaid balance (a charge paid from it), not to a card. */
  readonly toBalance: boolean;
}

export interface PaymentEventListeners {
  onChargeChanged(listener: (event: ChargeChangedEvent) => Promise<void>): void;
  onRefundSucceeded(listener: (event: RefundSucceededEvent) => Promise<void>): void;
}
