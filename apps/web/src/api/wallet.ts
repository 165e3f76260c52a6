import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  AutoRechargeInput,
  BusinessDetails,
  BusinessDetailsState,
  ReceiptPage,
  TopUpDto,
  WalletAdjustmentInput,
  WalletDto,
  WalletEntryDto,
  WalletEntryPage,
} from '@layerline/contracts';
import { apiFetch } from './client.ts';
import { paymentKeys } from './payments.ts';

/** The wallet (docs/wallet.md): the prepaid balance, top-ups, auto-recharge, the ledger, receipts and statements. */

export const walletKeys = {
  all: ['wallet'] as const,
  wallet: (targetUserId: string | undefined) => ['wallet', 'balance', targetUserId ?? 'me'] as const,
  entries: (targetUserId: string | undefined, cursor: string | undefined) => ['wallet', 'entries', targetUserId ?? 'me', cursor ?? ''] as const,
  receipts: (targetUserId: string | undefined, cursor: string | undefined) => ['wallet', 'receipts', targetUserId ?? 'me', cursor ?? ''] as const,
  businessDetails: ['wallet', 'business-details'] as const,
};

/** `path?targetUserId=…&…` with the parameters that are set. */
export function walletPath(path: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value) query.set(key, value);
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

export function useWallet(targetUserId?: string) {
  return useQuery({
    queryKey: walletKeys.wallet(targetUserId),
    queryFn: () => apiFetch<WalletDto>(walletPath('/api/wallet', { targetUserId })),
  });
}

export function useWalletEntries(targetUserId: string | undefined, cursor: string | undefined, limit: number) {
  return useQuery({
    queryKey: walletKeys.entries(targetUserId, cursor),
    queryFn: () => apiFetch<WalletEntryPage>(walletPath('/api/wallet/entries', { targetUserId, cursor, limit: String(limit) })),
    placeholderData: (previous) => previous,
  });
}

export function useReceipts(targetUserId: string | undefined, cursor: string | undefined, limit: number) {
  return useQuery({
    queryKey: walletKeys.receipts(targetUserId, cursor),
    queryFn: () => apiFetch<ReceiptPage>(walletPath('/api/wallet/receipts', { targetUserId, cursor, limit: String(limit) })),
    placeholderData: (previous) => previous,
  });
}

/** A wallet write re-reads the wallet and the charges (an order may have been paid from the balance). */
function useWalletMutation<Input, Output>(call: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: paymentKeys.all });
      return queryClient.invalidateQueries({ queryKey: walletKeys.all });
    },
  });
}

/** A top-up by the card on file; one requestId per dialog, so a double click tops up once. */
export function useTopUp() {
  return useWalletMutation((input: { amountCents: number; requestId: string }) =>
    apiFetch<TopUpDto>('/api/wallet/top-ups', { method: 'POST', json: input }),
  );
}

export function useSetAutoRecharge() {
  return useWalletMutation((input: AutoRechargeInput) => apiFetch<WalletDto>('/api/wallet/auto-recharge', { method: 'PUT', json: input }));
}

/** Admins: a credit or debit of a seller's balance with its reason. */
export function useAdjustWallet() {
  return useWalletMutation((input: WalletAdjustmentInput) =>
    apiFetch<WalletEntryDto>('/api/wallet/adjustments', { method: 'POST', json: input }),
  );
}

export function useBusinessDetails(enabled: boolean) {
  return useQuery({
    queryKey: walletKeys.businessDetails,
    queryFn: () => apiFetch<BusinessDetailsState>('/api/admin/site/business-details'),
    enabled,
  });
}

export function useSetBusinessDetails() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (details: BusinessDetails) =>
      apiFetch<BusinessDetailsState>('/api/admin/site/business-details', { method: 'PUT', json: details }),
    onSuccess: (state) => queryClient.setQueryData(walletKeys.businessDetails, state),
  });
}
