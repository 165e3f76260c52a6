import { formatCents, type ChargeDto, type ChargeState } from '@layerline/contracts';

/** How a charge's state reads for a seller. */
export const CHARGE_STATUS_LABELS: Readonly<Record<ChargeState, string>> = {
  pending: 'Pending',
  processing: 'Processing',
  requires_action: 'Needs authentication',
  succeeded: 'Paid',
  failed: 'Failed',
  refunded: 'Refunded',
};

export function chargeStatusColor(status: ChargeState): 'default' | 'success' | 'warning' | 'error' | 'info' {
  switch (status) {
    case 'succeeded':
      return 'success';
    case 'requires_action':
      return 'warning';
    case 'failed':
      return 'error';
    case 'refunded':
      return 'default';
    default:
      return 'info';
  }
}

export const chargeMoney = (charge: Pick<ChargeDto, 'currency'>, cents: number): string =>
  formatCents(cents, charge.currency);

/** What is left to refund of a paid charge (0 when nothing is). */
export const refundableCents = (charge: ChargeDto): number =>
  charge.status === 'succeeded' ? Math.max(0, charge.amountCents - charge.refundedCents) : 0;

/** "Visa •••• 4242 · expires 04/31". */
export function cardLine(card: { brand: string; last4: string; expMonth: number; expYear: number }): string {
  const brand = card.brand ? card.brand.charAt(0).toUpperCase() + card.brand.slice(1) : 'Card';
  return `${brand} •••• ${card.last4} · expires ${String(card.expMonth).padStart(2, '0')}/${String(card.expYear % 100).padStart(2, '0')}`;
}

export const plural = (count: number, one: string, many = `${one}s`): string => `${count} ${count === 1 ? one : many}`;
