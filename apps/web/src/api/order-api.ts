import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  ManualOrderInput,
  Order,
  ProductList,
  ShippingAddress,
  WebhookDelivery,
  WebhookDeliveryList,
} from '@layerline/contracts';
import { ApiError, apiFetch } from './client.ts';

/*
 * The order API's settings (API keys, the webhook endpoint) and manual orders. The response
 * types mirror apps/server/src/modules/order-api/order-api-schemas.ts.
 */

export interface ApiKey {
  id: string;
  name: string;
  /** The key's first 12 characters. */
  prefix: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  createdAt: string;
}

/** Only the creation response carries the whole key. */
export interface CreatedApiKey extends ApiKey {
  key: string;
}

export interface WebhookEndpoint {
  url: string;
  createdAt: string;
  updatedAt: string;
  /** Only right after creation or a rotation. */
  secret?: string;
}

/** A variant the seller can order, flattened from their products. */
export interface OrderableVariant {
  variantId: string;
  sku: string;
  label: string;
}

export const orderApiKeys = {
  apiKeys: ['order-api', 'api-keys'] as const,
  webhookEndpoint: ['order-api', 'webhook-endpoint'] as const,
  webhookDeliveries: ['order-api', 'webhook-deliveries'] as const,
  orderableVariants: ['order-api', 'orderable-variants'] as const,
};

export function useApiKeys() {
  return useQuery({
    queryKey: orderApiKeys.apiKeys,
    queryFn: async () => (await apiFetch<{ items: ApiKey[] }>('/api/api-keys')).items,
  });
}

export function useCreateApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) =>
      apiFetch<CreatedApiKey>('/api/api-keys', { method: 'POST', json: { name } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: orderApiKeys.apiKeys }),
  });
}

export function useRevokeApiKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      apiFetch<void>(`/api/api-keys/${encodeURIComponent(id)}`, { method: 'DELETE' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: orderApiKeys.apiKeys }),
  });
}

/** The seller's endpoint, or null when none is set (the API answers 404). */
export function useWebhookEndpoint() {
  return useQuery({
    queryKey: orderApiKeys.webhookEndpoint,
    queryFn: async () => {
      try {
        return await apiFetch<WebhookEndpoint>('/api/webhook-endpoint');
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
  });
}

function useEndpointMutation<T>(call: (input: T) => Promise<WebhookEndpoint | undefined>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: (endpoint) => {
      // Keep the secret out of the cache: it is shown once by the component that asked for it.
      if (endpoint) {
        const { secret: _secret, ...withoutSecret } = endpoint;
        queryClient.setQueryData(orderApiKeys.webhookEndpoint, withoutSecret);
      } else queryClient.setQueryData(orderApiKeys.webhookEndpoint, null);
    },
  });
}

export function useSetWebhookEndpoint() {
  return useEndpointMutation((url: string) =>
    apiFetch<WebhookEndpoint>('/api/webhook-endpoint', { method: 'PUT', json: { url } }),
  );
}

export function useRotateWebhookSecret() {
  return useEndpointMutation(() =>
    apiFetch<WebhookEndpoint>('/api/webhook-endpoint/rotate-secret', { method: 'POST' }),
  );
}

export function useRemoveWebhookEndpoint() {
  return useEndpointMutation(async () => {
    await apiFetch<void>('/api/webhook-endpoint', { method: 'DELETE' });
    return undefined;
  });
}

/** The seller's latest webhook deliveries: polled every 10 s, and every 3 s while one is still being sent. */
export function useWebhookDeliveries() {
  return useQuery({
    queryKey: orderApiKeys.webhookDeliveries,
    queryFn: async () => (await apiFetch<WebhookDeliveryList>('/api/webhook-endpoint/deliveries')).items,
    refetchInterval: (query) => (query.state.data?.some((d) => d.state === 'pending') ? 3000 : 10_000),
  });
}

export function useResendWebhookDelivery() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      apiFetch<WebhookDelivery>(`/api/webhook-endpoint/deliveries/${encodeURIComponent(id)}/resend`, { method: 'POST' }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: orderApiKeys.webhookDeliveries }),
  });
}

/**
 * The seller's product variants to pick from on /submit-order (first 100 products). Resolves
 * null when the products API is not available on this server.
 */
export function useOrderableVariants() {
  return useQuery({
    queryKey: orderApiKeys.orderableVariants,
    queryFn: async (): Promise<OrderableVariant[] | null> => {
      try {
        const list = await apiFetch<ProductList>('/api/products?limit=100');
        return list.items.flatMap((product) =>
          product.variants.map((variant) => ({
            variantId: variant.id,
            sku: variant.sku,
            label: product.variants.length > 1 ? `${product.name} — ${variant.name}` : product.name,
          })),
        );
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
  });
}

export type ManualOrderRequest = Omit<ManualOrderInput, 'note' | 'shippingAddress'> & {
  note: string;
  shippingAddress: ShippingAddress;
};

export function useSubmitManualOrder() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: ManualOrderRequest) =>
      apiFetch<Order>('/api/orders/manual', { method: 'POST', json: input }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['orders'] }),
  });
}
