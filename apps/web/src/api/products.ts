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
import { designKeys, listQuery } from './designs.ts';
import { queryKeys } from './query-keys.ts';

/** Query keys of products. */
export const productKeys = {
  all: ['products'] as const,
  lists: ['products', 'list'] as const,
  list: (search: string, cursor: string | undefined, limit: number) =>
    ['products', 'list', { search, cursor, limit }] as const,
  detail: (id: string) => ['products', 'detail', id] as const,
};

const id = encodeURIComponent;

/** A product changed: every list is stale, and so is the dashboard's product count. */
function invalidateProducts(queryClient: QueryClient) {
  void queryClient.invalidateQueries({ queryKey: productKeys.all });
  void queryClient.invalidateQueries({ queryKey: queryKeys.dashboard });
}

export function useProducts(search: string, cursor: string | undefined, limit: number) {
  return useQuery({
    queryKey: productKeys.list(search, cursor, limit),
    queryFn: () => apiFetch<ProductList>(`/api/products?${listQuery(search, cursor, limit)}`),
    placeholderData: keepPreviousData,
  });
}

/** The seller's designs to build parts from: the most recent 100 (the API's page limit). */
export function useDesignsForParts(enabled: boolean) {
  return useQuery({
    queryKey: designKeys.list('', undefined, 100),
    queryFn: () => apiFetch<DesignList>('/api/designs?limit=100'),
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
