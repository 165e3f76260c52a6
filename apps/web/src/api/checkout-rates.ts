import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CheckoutRatesList, CheckoutRatesPreview, CheckoutRatesPreviewInput, CheckoutRatesSettings } from '@layerline/contracts';
import { apiFetch } from './client.ts';

/** Checkout rates per Shopify shop (issue 24; docs/checkout-rates.md). */
const checkoutRatesKey = ['checkout-rates'] as const;

export function useCheckoutRates() {
  return useQuery({ queryKey: checkoutRatesKey, queryFn: () => apiFetch<CheckoutRatesList>('/api/checkout-rates') });
}

export function useSetCheckoutRates() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { shopId: string; enabled: boolean }) =>
      apiFetch<CheckoutRatesSettings>(`/api/checkout-rates/${input.shopId}`, { method: 'PUT', json: { enabled: input.enabled } }),
    onSuccess: () => void client.invalidateQueries({ queryKey: checkoutRatesKey }),
  });
}

export function usePreviewCheckoutRates() {
  return useMutation({
    mutationFn: (input: { shopId: string } & CheckoutRatesPreviewInput) =>
      apiFetch<CheckoutRatesPreview>(`/api/checkout-rates/${input.shopId}/preview`, {
        method: 'POST',
        json: { destination: input.destination, items: input.items },
      }),
  });
}
