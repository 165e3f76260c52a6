import {
  keepPreviousData,
  useMutation,
  useQueries,
  useQuery,
  useQueryClient,
  type QueryClient,
} from '@tanstack/react-query';
import type { Design, DesignList, Product, ProductInput, ProductList } from '@layerline/contracts';
import { apiFetch } from './client.ts';
import { designKeys } from './designs.ts';
import { queryKeys } from './query-keys.ts';

/** Query keys of products. */
export const productKeys = {
  all: ['products'] as const,
  lists: ['products', 'list'] as const,
  list: (search: string, page: number, limit: number) => ['products', 'list', { search, page, limit }] as const,
  detail: (id: string) => ['products', 'detail', id] as const,
};

const id = encodeURIComponent;

/** A product changed: every list is stale, and so is the dashboard's product count. */
function invalidateProducts(queryClient: QueryClient) {
  void queryClient.invalidateQueries({ queryKey: productKeys.all });
  void queryClient.invalidateQueries({ queryKey: queryKeys.dashboard });
}

export function useProducts(search: string, page: number, limit: number) {
  return useQuery({
    queryKey: productKeys.list(search, page, limit),
    queryFn: () =>
      apiFetch<ProductList>(
        `/api/products?${new URLSearchParams({ search, page: String(page), limit: String(limit) })}`,
      ),
    placeholderData: keepPreviousData,
  });
}

/** The seller's designs to build parts from: the most recent 100 (the API's page limit). */
export function useDesignsForParts(enabled: boolean) {
  return useQuery({
    queryKey: designKeys.list('', 1, 100),
    queryFn: () => apiFetch<DesignList>('/api/designs?page=1&limit=100'),
    enabled,
  });
}

/** Several designs by id (the ones just uploaded on /create-product). */
export function useDesignsByIds(designIds: readonly string[]) {
  return useQueries({
    queries: designIds.map((designId) => ({
      queryKey: designKeys.detail(designId),
      queryFn: () => apiFetch<Design>(`/api/designs/${id(designId)}`),
    })),
  });
}

export function useCreateProduct() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: ProductInput) => apiFetch<Product>('/api/products', { method: 'POST', json: input }),
    onSuccess: () => invalidateProducts(queryClient),
  });
}

export function useUpdateProduct() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ productId, input }: { productId: string; input: ProductInput }) =>
      apiFetch<Product>(`/api/products/${id(productId)}`, { method: 'PUT', json: input }),
    onSuccess: () => invalidateProducts(queryClient),
  });
}

export function useDeleteProduct() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (productId: string) => apiFetch<void>(`/api/products/${id(productId)}`, { method: 'DELETE' }),
    onSuccess: () => invalidateProducts(queryClient),
  });
}
