import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ProductListingImages } from '@layerline/contracts';
import { apiFetch } from './client.ts';

/** Query keys of listing images. */
export const listingImageKeys = { product: (productId: string) => ['listing-images', productId] as const };

const id = encodeURIComponent;

/** True while some image of the product is still to come (its slice, its render, or a request to render). */
const waiting = (images: ProductListingImages | undefined) =>
  images?.variants.some((variant) => variant.sets.some((set) => set.status === 'pending' || set.status === 'rendering')) ?? false;

/** A product's listing images (while shown); polled every 3 s while some are still to come. */
export function useListingImages(productId: string, enabled: boolean) {
  return useQuery({
    queryKey: listingImageKeys.product(productId),
    queryFn: () => apiFetch<ProductListingImages>(`/api/products/${id(productId)}/listing-images`),
    enabled,
    refetchInterval: (query) => (waiting(query.state.data) ? 3000 : false),
  });
}

/** Asks the server to render the product's missing, stale or failed images. */
export function useRequestListingImages(productId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiFetch<ProductListingImages>(`/api/products/${id(productId)}/listing-images`, { method: 'POST' }),
    onSuccess: (images) => queryClient.setQueryData(listingImageKeys.product(productId), images),
  });
}
