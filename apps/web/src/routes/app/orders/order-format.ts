import { ORDER_STATUS_LABELS, type OrderStatus } from '@layerline/contracts';

export const statusLabel = (status: OrderStatus): string => ORDER_STATUS_LABELS[status];

export function statusColor(
  status: OrderStatus,
): 'default' | 'success' | 'warning' | 'error' | 'info' | 'primary' {
  switch (status) {
    case 'on_hold':
      return 'warning';
    case 'cancelled':
      return 'error';
    case 'shipped':
    case 'delivered':
      return 'success';
    case 'accepted':
      return 'primary';
    default:
      return 'info';
  }
}

export function money(cents: number | null, currency: string): string {
  if (cents === null) return '—';
  return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(cents / 100);
}

export const dateTime = (iso: string): string => new Date(iso).toLocaleString();
export const date = (iso: string): string => new Date(iso).toLocaleDateString();
