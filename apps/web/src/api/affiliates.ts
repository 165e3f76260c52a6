import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  AdminAffiliatesPage,
  AffiliateConnect,
  AffiliateEarningsPage,
  OnboardingLink,
  PayoutRun,
  UserAffiliates,
} from '@layerline/contracts';
import { apiFetch } from './client.ts';

/** Query keys of the affiliate pages (kept here: only these hooks use them). */
const affiliateKeys = {
  all: ['affiliates'] as const,
  me: ['affiliates', 'me'] as const,
  earnings: (affiliateId: string, cursor: string | undefined) =>
    ['affiliates', 'earnings', affiliateId, cursor] as const,
  connect: ['affiliates', 'connect'] as const,
  admin: (cursor: string | undefined) => ['affiliates', 'admin', cursor] as const,
  run: (period: string) => ['affiliates', 'admin', 'run', period] as const,
  periods: ['affiliates', 'admin', 'periods'] as const,
};

/** getUserAffiliates: the caller's code, share link, sign-ups, earnings and payouts account. */
export function useMyAffiliate() {
  return useQuery({
    queryKey: affiliateKeys.me,
    queryFn: () => apiFetch<UserAffiliates>('/api/affiliates/me'),
  });
}

/** getUserAffiliateEarnings(affiliateId): one page of the ledger. */
export function useAffiliateEarnings(affiliateId: string | undefined, cursor: string | undefined) {
  return useQuery({
    queryKey: affiliateKeys.earnings(affiliateId ?? '', cursor),
    queryFn: () => {
      const params = new URLSearchParams({ limit: '25' });
      if (cursor) params.set('cursor', cursor);
      return apiFetch<AffiliateEarningsPage>(
        `/api/affiliates/${encodeURIComponent(affiliateId!)}/earnings?${params}`,
      );
    },
    enabled: Boolean(affiliateId),
    placeholderData: keepPreviousData,
  });
}

/** updateUserAffiliateCode(affiliateCode). */
export function useUpdateAffiliateCode() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (affiliateCode: string) =>
      apiFetch<UserAffiliates>('/api/affiliates/me/code', { method: 'PUT', json: { affiliateCode } }),
    onSuccess: (saved) => client.setQueryData(affiliateKeys.me, saved),
  });
}

/** createStripeOnboardingLink: where the browser goes to set up payouts. */
export function useOnboardingLink() {
  return useMutation({
    mutationFn: () =>
      apiFetch<OnboardingLink>('/api/affiliates/connect/onboarding-link', { method: 'POST', json: {} }),
  });
}

/** The payouts account as Stripe sees it now (read when the browser comes back from onboarding). */
export function useConnectStatus(enabled: boolean) {
  const client = useQueryClient();
  return useQuery({
    queryKey: affiliateKeys.connect,
    queryFn: async () => {
      const status = await apiFetch<AffiliateConnect>('/api/affiliates/connect/status');
      void client.invalidateQueries({ queryKey: affiliateKeys.me });
      return status;
    },
    enabled,
  });
}

/** Test mode: the sandbox's onboarding page finished (complete, or with a detail failing). */
export function useCompleteSandboxOnboarding() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (outcome: 'complete' | 'restricted') =>
      apiFetch<AffiliateConnect>('/api/affiliates/connect/sandbox', { method: 'POST', json: { outcome } }),
    onSuccess: () => void client.invalidateQueries({ queryKey: affiliateKeys.all }),
  });
}

// ── admins ──

export function useAdminAffiliates(cursor: string | undefined) {
  return useQuery({
    queryKey: affiliateKeys.admin(cursor),
    queryFn: () => {
      const params = new URLSearchParams({ limit: '50' });
      if (cursor) params.set('cursor', cursor);
      return apiFetch<AdminAffiliatesPage>(`/api/admin/affiliates?${params}`);
    },
    placeholderData: keepPreviousData,
  });
}

export function useAdminChangeCode() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, affiliateCode }: { userId: string; affiliateCode: string }) =>
      apiFetch<void>(`/api/admin/affiliates/${encodeURIComponent(userId)}/code`, {
        method: 'PUT',
        json: { affiliateCode },
      }),
    onSuccess: () => void client.invalidateQueries({ queryKey: affiliateKeys.all }),
  });
}

export function useSetPayoutsHeld() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, held }: { userId: string; held: boolean }) =>
      apiFetch<void>(`/api/admin/affiliates/${encodeURIComponent(userId)}/${held ? 'hold' : 'unhold'}`, {
        method: 'POST',
      }),
    onSuccess: () => void client.invalidateQueries({ queryKey: affiliateKeys.all }),
  });
}

export function usePayoutRun(period: string) {
  return useQuery({
    queryKey: affiliateKeys.run(period),
    queryFn: () =>
      apiFetch<PayoutRun>(`/api/admin/affiliates/payout-runs?period=${encodeURIComponent(period)}`),
    enabled: /^\d{4}-\d{2}$/.test(period),
  });
}

export function usePayoutPeriods() {
  return useQuery({
    queryKey: affiliateKeys.periods,
    queryFn: () => apiFetch<{ periods: string[] }>('/api/admin/affiliates/payout-periods'),
  });
}

/** Proposes the month's payouts; the answer (with what was skipped, and why) is kept for the page. */
export function useProposePayoutRun() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (period: string) =>
      apiFetch<PayoutRun>('/api/admin/affiliates/payout-runs', { method: 'POST', json: { period } }),
    onSuccess: (run) => {
      client.setQueryData(affiliateKeys.run(run.period), run);
      void client.invalidateQueries({ queryKey: affiliateKeys.periods });
      void client.invalidateQueries({
        queryKey: ['affiliates', 'admin'],
        predicate: (query) => query.queryKey[2] !== 'run',
      });
    },
  });
}

/** Approves the month's proposed payouts: one transfer each. */
export function useApprovePayoutRun() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ period, payoutIds }: { period: string; payoutIds?: string[] }) =>
      apiFetch<PayoutRun>(`/api/admin/affiliates/payout-runs/${encodeURIComponent(period)}/approve`, {
        method: 'POST',
        json: payoutIds ? { payoutIds } : {},
      }),
    onSuccess: (run) => {
      client.setQueryData(affiliateKeys.run(run.period), run);
      void client.invalidateQueries({
        queryKey: ['affiliates', 'admin'],
        predicate: (query) => query.queryKey[2] !== 'run',
      });
    },
  });
}
