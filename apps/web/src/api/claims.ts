import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Claim, ClaimDecisionInput, ClaimKind, ClaimList, ClaimOptions, ClaimStats, ClaimStatus } from '@layerline/contracts';
import { apiFetch } from './client.ts';
import { orderKeys } from './orders.ts';

/** Query keys of the claims (kept here: only these hooks use them). */
const claimKeys = {
  all: ['claims'] as const,
  list: (scope: 'mine' | 'admin', status: ClaimStatus | '') => ['claims', scope, status] as const,
  options: (orderId: string) => ['claims', 'options', orderId] as const,
  stats: ['claims', 'stats'] as const,
};

/** The seller's own claims, or (admins) the queue of everyone's. */
export function useClaims(scope: 'mine' | 'admin', status: ClaimStatus | '' = '') {
  return useQuery({
    queryKey: claimKeys.list(scope, status),
    queryFn: () => apiFetch<ClaimList>(`${scope === 'admin' ? '/api/admin/claims' : '/api/claims'}${status ? `?status=${status}` : ''}`),
  });
}

/** What a claim on this order may name now (the order page's claim form). */
export function useClaimOptions(orderId: string | null) {
  return useQuery({
    queryKey: claimKeys.options(orderId ?? ''),
    queryFn: () => apiFetch<ClaimOptions>(`/api/orders/${orderId}/claim-options`),
    enabled: orderId !== null,
  });
}

export function useClaimStats() {
  return useQuery({ queryKey: claimKeys.stats, queryFn: () => apiFetch<ClaimStats>('/api/admin/claims/stats') });
}

export interface NewClaim {
  orderId: string;
  kind: ClaimKind;
  description: string;
  partIds: readonly string[];
  photos: readonly File[];
}

/** Files a claim: a multipart form (the photos are checked and stored by the server). */
export function useFileClaim() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (claim: NewClaim) => {
      const form = new FormData();
      form.append('kind', claim.kind);
      form.append('description', claim.description);
      for (const partId of claim.partIds) form.append('partIds', partId);
      for (const photo of claim.photos) form.append('photos', photo, photo.name);
      return apiFetch<Claim>(`/api/orders/${claim.orderId}/claims`, { method: 'POST', body: form });
    },
    onSuccess: (claim) => {
      void client.invalidateQueries({ queryKey: claimKeys.all });
      void client.invalidateQueries({ queryKey: orderKeys.detail(claim.orderId) });
    },
  });
}

/** An admin's decision on a claim. */
export function useDecideClaim() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ claimId, decision }: { claimId: string; decision: ClaimDecisionInput }) =>
      apiFetch<Claim>(`/api/admin/claims/${claimId}/decision`, { method: 'POST', json: decision }),
    onSuccess: (claim) => {
      void client.invalidateQueries({ queryKey: claimKeys.all });
      void client.invalidateQueries({ queryKey: orderKeys.detail(claim.orderId) });
    },
  });
}
