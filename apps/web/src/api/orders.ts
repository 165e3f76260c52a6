import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Order, OrderList, OrderSettings, OrderStatus, ShippingAddress } from '@layerline/contracts';
import { apiFetch } from './client.ts';

export interface OrderFilter {
  status: OrderStatus | '';
  search: string;
  from: string;
  to: string;
  /** The page's cursor (keyset paging; undefined: the first page). */
  cursor: string | undefined;
  limit: number;
}

/** Query keys of orders (kept here: only these hooks use them). */
export const orderKeys = {
  all: ['orders'] as const,
  list: (scope: 'mine' | 'admin', filter: OrderFilter) => ['orders', scope, filter] as const,
  detail: (id: string) => ['orders', 'detail', id] as const,
};

function query(filter: OrderFilter): string {
  const params = new URLSearchParams({ limit: String(filter.limit) });
  if (filter.cursor) params.set('cursor', filter.cursor);
  if (filter.status) params.set('status', filter.status);
  if (filter.search) params.set('search', filter.search);
  if (filter.from) params.set('from', filter.from);
  if (filter.to) params.set('to', filter.to);
  return params.toString();
}

export function useOrders(filter: OrderFilter, scope: 'mine' | 'admin' = 'mine') {
  return useQuery({
    queryKey: orderKeys.list(scope, filter),
    queryFn: () =>
      apiFetch<OrderList>(`${scope === 'admin' ? '/api/admin/orders' : '/api/orders'}?${query(filter)}`),
    placeholderData: (previous) => previous,
  });
}

/** Statuses in which the print farm moves an order by itself: its page follows along while open. */
const FARM_AT_WORK: readonly OrderStatus[] = ['accepted', 'in_production', 'printed'];

export function useOrder(id: string | null) {
  return useQuery({
    queryKey: orderKeys.detail(id ?? ''),
    queryFn: () => apiFetch<Order>(`/api/orders/${id}`),
    enabled: Boolean(id),
    refetchInterval: (query) => (query.state.data && FARM_AT_WORK.includes(query.state.data.status) ? 5000 : false),
  });
}

export function useChangeOrderStatus() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { orderId: string; to: OrderStatus; reason: string }) =>
      apiFetch<Order>(`/api/orders/${input.orderId}/status`, {
        method: 'POST',
        json: { to: input.to, reason: input.reason },
      }),
    onSuccess: (order) => {
      client.setQueryData(orderKeys.detail(order.id), order);
      void client.invalidateQueries({ queryKey: orderKeys.all });
      void client.invalidateQueries({ queryKey: ['dashboard'] });
    },
  });
}

/* ---------- The change window (issue 24; docs/change-window.md) ---------- */

function useOrderChange<I extends { orderId: string }>(request: (input: I) => Promise<Order>) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: request,
    onSuccess: (order) => {
      client.setQueryData(orderKeys.detail(order.id), order);
      void client.invalidateQueries({ queryKey: orderKeys.all });
    },
  });
}

/** A new shipping address for an order not yet released. */
export function useChangeOrderAddress() {
  return useOrderChange((input: { orderId: string; shippingAddress: ShippingAddress }) =>
    apiFetch<Order>(`/api/orders/${input.orderId}/shipping-address`, { method: 'PUT', json: { shippingAddress: input.shippingAddress } }),
  );
}

/** Cancels an order not yet released, at no cost. */
export function useCancelOrder() {
  return useOrderChange((input: { orderId: string; reason: string }) =>
    apiFetch<Order>(`/api/orders/${input.orderId}/cancel`, { method: 'POST', json: { reason: input.reason } }),
  );
}

const orderSettingsKey = ['order-settings'] as const;

export function useOrderSettings() {
  return useQuery({ queryKey: orderSettingsKey, queryFn: () => apiFetch<OrderSettings>('/api/order-settings') });
}

export function useSaveOrderSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (settings: OrderSettings) => apiFetch<OrderSettings>('/api/order-settings', { method: 'PUT', json: settings }),
    onSuccess: (saved) => client.setQueryData(orderSettingsKey, saved),
  });
}
