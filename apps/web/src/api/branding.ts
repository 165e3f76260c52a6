import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Branding, BrandingInput } from '@layerline/contracts';
import { apiFetch } from './client.ts';

/** Query keys of the seller's parcel branding. */
export const brandingKeys = { mine: ['branding'] as const };

/** Where the stored logo is served; `version` (its upload time) makes a new logo a new address. */
export const logoUrl = (version: string) => `/api/branding/logo.png?v=${encodeURIComponent(version)}`;

export function useBranding() {
  return useQuery({ queryKey: brandingKeys.mine, queryFn: () => apiFetch<Branding>('/api/branding') });
}

function useBrandingMutation<T>(call: (input: T) => Promise<Branding>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: (branding) => queryClient.setQueryData(brandingKeys.mine, branding),
  });
}

export function useSaveBranding() {
  return useBrandingMutation((input: BrandingInput) => apiFetch<Branding>('/api/branding', { method: 'PUT', json: input }));
}

export function useUploadLogo() {
  return useBrandingMutation((file: File) => {
    const form = new FormData();
    form.append('file', file, file.name);
    return apiFetch<Branding>('/api/branding/logo', { method: 'PUT', body: form });
  });
}

export function useRemoveLogo() {
  return useBrandingMutation(() => apiFetch<Branding>('/api/branding/logo', { method: 'DELETE' }));
}
