import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  Listing,
  ListingList,
  ShopConnectInput,
  ShopConnection,
  ShopPlatforms,
  ShopSyncResult,
  VariantOption,
} from '@layerline/contracts';
import { apiFetch } from './client.ts';

/** Query keys of shops and listings (kept here: only these hooks use them). */
export const shopKeys = {
  all: ['shops'] as const,
  platforms: ['shops', 'platforms'] as const,
  list: ['shops', 'list'] as const,
  listings: (filter: ListingFilter) => ['shops', 'listings', filter] as const,
  variantOptions: (search: string) => ['shops', 'variant-options', search] as const,
};

export interface ListingFilter {
  link: 'all' | 'unmatched' | 'linked';
  search: string;
  shopId: string;
  /** The page's cursor; undefined for the first page. */
  cursor: string | undefined;
  limit: number;
}

export function useShopPlatforms() {
  return useQuery({
    queryKey: shopKeys.platforms,
    queryFn: () => apiFetch<ShopPlatforms>('/api/shops/platforms'),
  });
}

export function useShops() {
  return useQuery({ queryKey: shopKeys.list, queryFn: () => apiFetch<ShopConnection[]>('/api/shops') });
}

export function useListings(filter: ListingFilter) {
  const params = new URLSearchParams({
    link: filter.link,
    limit: String(filter.limit),
  });
  if (filter.cursor) params.set('cursor', filter.cursor);
  if (filter.search) params.set('search', filter.search);
  if (filter.shopId) params.set('shopId', filter.shopId);
  return useQuery({
    queryKey: shopKeys.listings(filter),
    queryFn: () => apiFetch<ListingList>(`/api/listings?${params.toString()}`),
    placeholderData: (previous) => previous,
  });
}

export function useVariantOptions(search: string, enabled: boolean) {
  return useQuery({
    queryKey: shopKeys.variantOptions(search),
    queryFn: () =>
      apiFetch<VariantOption[]>(`/api/listings/variant-options?search=${encodeURIComponent(search)}`),
    enabled,
  });
}

function useInvalidateShops() {
  const client = useQueryClient();
  return () => {
    void client.invalidateQueries({ queryKey: shopKeys.all });
    void client.invalidateQueries({ queryKey: ['orders'] });
    void client.invalidateQueries({ queryKey: ['dashboard'] });
  };
}

export function useConnectShop() {
  const invalidate = useInvalidateShops();
  return useMutation({
    mutationFn: ({ platform, ...input }: { platform: string } & ShopConnectInput) =>
      apiFetch<{ authorizeUrl: string | null; shop: ShopConnection | null }>(
        `/api/shops/${platform}/connect`,
        {
          method: 'POST',
          json: input,
        },
      ),
    onSuccess: invalidate,
  });
}

export function useDisconnectShop() {
  const invalidate = useInvalidateShops();
  return useMutation({
    mutationFn: (shopId: string) => apiFetch<void>(`/api/shops/${shopId}`, { method: 'DELETE' }),
    onSuccess: invalidate,
  });
}

export function useSyncShop() {
  const invalidate = useInvalidateShops();
  return useMutation({
    mutationFn: (shopId: string) =>
      apiFetch<ShopSyncResult>(`/api/shops/${shopId}/sync`, { method: 'POST', json: {} }),
    onSettled: invalidate,
  });
}

export function useSimulateOrder() {
  const invalidate = useInvalidateShops();
  return useMutation({
    mutationFn: (input: { shopId: string; includeUnmatched?: boolean }) =>
      apiFetch<{ orderId: string; created: boolean }>(`/api/shops/${input.shopId}/sandbox/simulate-order`, {
        method: 'POST',
        json: { includeUnmatched: input.includeUnmatched ?? false },
      }),
    onSuccess: invalidate,
  });
}

export function useLinkListing() {
  const invalidate = useInvalidateShops();
  return useMutation({
    mutationFn: (input: { listingId: string; variantId: string | null }) =>
      input.variantId
        ? apiFetch<Listing>(`/api/listings/${input.listingId}/link`, {
            method: 'POST',
            json: { variantId: input.variantId },
          })
        : apiFetch<Listing>(`/api/listings/${input.listingId}/link`, { method: 'DELETE' }),
    onSuccess: invalidate,
  });
}
