import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  CreateFulfillmentRecordInput,
  FulfillmentHistoryPage,
  FulfillmentMonthly,
  FulfillmentRecord,
} from '@layerline/contracts';
import { apiFetch } from './client.ts';

/** What the history shows: the spec's filters ('' = not set). */
export interface FulfillmentFilter {
  searchTerm: string;
  /** YYYY-MM-DD; endDate includes its whole day. */
  startDate: string;
  endDate: string;
  orderDirection: 'desc' | 'asc';
  /** Admins: one seller's records. */
  sellerId: string;
}

/** The seller's own history (getUserFulfillmentHistory) or, for admins, everyone's (getFulfillmentHistory). */
export type FulfillmentScope = 'mine' | 'admin';

/** Query keys of the fulfilment history (kept here: only these hooks use them). */
const fulfillmentKeys = {
  all: ['fulfillment'] as const,
  page: (scope: FulfillmentScope, filter: FulfillmentFilter, page: number, limit: number) => ['fulfillment', 'page', scope, filter, page, limit] as const,
  monthly: (scope: FulfillmentScope, filter: FulfillmentFilter) => ['fulfillment', 'monthly', scope, filter] as const,
};

/** The filters as query parameters; a seller's scope never names a seller. */
function filterParams(scope: FulfillmentScope, filter: FulfillmentFilter, withOrder: boolean): URLSearchParams {
  const params = new URLSearchParams();
  if (filter.searchTerm) params.set('searchTerm', filter.searchTerm);
  if (filter.startDate) params.set('startDate', filter.startDate);
  if (filter.endDate) params.set('endDate', filter.endDate);
  if (withOrder) {
    params.set('orderBy', 'createdAt');
    params.set('orderDirection', filter.orderDirection);
  }
  if (scope === 'admin' && filter.sellerId) params.set('sellerId', filter.sellerId);
  return params;
}

export function useFulfillmentHistory(scope: FulfillmentScope, filter: FulfillmentFilter, page: number, limit: number) {
  return useQuery({
    queryKey: fulfillmentKeys.page(scope, filter, page, limit),
    queryFn: () => {
      const params = filterParams(scope, filter, true);
      params.set('page', String(page));
      params.set('limit', String(limit));
      const path = scope === 'admin' ? '/api/fulfillment-history' : '/api/fulfillment-history/user';
      return apiFetch<FulfillmentHistoryPage>(`${path}?${params}`);
    },
    placeholderData: keepPreviousData,
  });
}

export function useFulfillmentMonthly(scope: FulfillmentScope, filter: FulfillmentFilter) {
  return useQuery({
    queryKey: fulfillmentKeys.monthly(scope, filter),
    queryFn: () => apiFetch<FulfillmentMonthly>(`/api/fulfillment-history/monthly?${filterParams(scope, filter, false)}`),
    placeholderData: keepPreviousData,
  });
}

/** Where the browser downloads the filtered view as CSV (the server streams it as an attachment). */
export function fulfillmentCsvUrl(scope: FulfillmentScope, filter: FulfillmentFilter): string {
  const params = filterParams(scope, filter, true).toString();
  return `/api/fulfillment-history/export.csv${params ? `?${params}` : ''}`;
}

/** createFulfillmentHistoryRecord (admins): a shipment made outside the farm's labels. */
export function useCreateFulfillmentRecord() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateFulfillmentRecordInput) =>
      apiFetch<FulfillmentRecord>('/api/admin/fulfillment-history', { method: 'POST', json: input }),
    onSuccess: () => void client.invalidateQueries({ queryKey: fulfillmentKeys.all }),
  });
}
