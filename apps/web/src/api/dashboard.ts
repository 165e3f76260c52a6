import { useQuery } from '@tanstack/react-query';
import type { DashboardOverview } from '@layerline/contracts';
import { apiFetch } from './client.ts';
import { queryKeys } from './query-keys.ts';

export function useDashboardOverview() {
  return useQuery({
    queryKey: queryKeys.dashboard,
    queryFn: () => apiFetch<DashboardOverview>('/api/dashboard'),
  });
}
