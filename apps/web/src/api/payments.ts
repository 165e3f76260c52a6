import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  BillingSettings,
  ChargeAuthentication,
  ChargeDto,
  ChargePage,
  ChargeStoredCardInput,
  SandboxCardInput,
  SetupIntent,
  StoredCardDto,
} from '@layerline/contracts';
import { ApiError, apiFetch } from './client.ts';
import { orderKeys } from './orders.ts';

/**
 * Payments (docs/payments.md): the seller's stored card, their charges and refunds, the
 * authentication of a charge the bank wants confirmed, and the admins' manual charge and refund.
 */

/** What the sandbox answers for a card it accepts (its stand-in for Stripe Elements' createPaymentMethod). */
export interface SandboxPaymentMethod {
  paymentMethodId: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

/** Query keys of payments (kept here: only these hooks use them). */
export const paymentKeys = {
  all: ['payments'] as const,
  billing: (targetUserId: string | undefined) => ['payments', 'billing', targetUserId ?? 'me'] as const,
  charges: (filter: ChargeFilter) => ['payments', 'charges', filter] as const,
  authentication: (chargeId: string) => ['payments', 'authentication', chargeId] as const,
};

export interface ChargeFilter {
  targetUserId?: string;
  orderId?: string;
  cursor?: string;
  limit: number;
}

const enc = encodeURIComponent;

/**
 * The spec's fallback words when the server never answered (offline, a proxy's HTML page): an
 * answer from the server keeps its own text.
 */
async function orFallback<T>(call: Promise<T>, fallback: string): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new Error(fallback, { cause: error });
  }
}

/** A payment write re-reads payments and orders (a card releases held orders; a charge moves one). */
function usePaymentMutation<Input, Output>(call: (input: Input) => Promise<Output>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: orderKeys.all });
      return queryClient.invalidateQueries({ queryKey: paymentKeys.all });
    },
  });
}

/* ---------- The stored card (Account settings → Billing) ---------- */

export function useBillingSettings(targetUserId?: string) {
  return useQuery({
    queryKey: paymentKeys.billing(targetUserId),
    queryFn: () =>
      apiFetch<BillingSettings>(
        targetUserId ? `/api/payments/billing?${new URLSearchParams({ targetUserId })}` : '/api/payments/billing',
      ),
  });
}

/** The spec's createSetupIntent: a fresh one per card entered. */
export function createSetupIntent(): Promise<SetupIntent> {
  return orFallback(apiFetch<SetupIntent>('/api/payments/setup-intent', { method: 'POST' }), 'Failed to create setup intent');
}

export type SandboxCardField = 'number' | 'expiry' | 'cvc';

/** A card the sandbox refused, with the field at fault so the form can say it under that field. */
export class SandboxCardError extends ApiError {
  readonly field: SandboxCardField | null;
  constructor(message: string, status: number, field: SandboxCardField | null) {
    super(message, status);
    this.field = field;
  }
}

/**
 * The sandbox's card check (test mode only), its stand-in for Stripe Elements' createPaymentMethod.
 * A refused card answers 400 `{ error, field }`; apiFetch keeps only the text, so this reads the body itself.
 */
export async function createSandboxPaymentMethod(input: SandboxCardInput): Promise<SandboxPaymentMethod> {
  const response = await fetch('/api/payments/sandbox/payment-methods', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
    body: JSON.stringify(input),
  });
  const body = (await response.json().catch(() => null)) as
    | (SandboxPaymentMethod & { error?: unknown; field?: unknown })
    | null;
  if (response.ok && body) return body;
  const message = typeof body?.error === 'string' && body.error ? body.error : response.statusText || 'The card was not accepted';
  const field = body?.field === 'number' || body?.field === 'expiry' || body?.field === 'cvc' ? body.field : null;
  throw new SandboxCardError(message, response.status, field);
}

/** The spec's storeDefaultPaymentMethod: the card becomes the one orders are charged to. */
export function useStoreDefaultPaymentMethod() {
  return usePaymentMutation((paymentMethodId: string) =>
    orFallback(
      apiFetch<StoredCardDto>('/api/payments/default-payment-method', { method: 'POST', json: { paymentMethodId } }),
      'Failed to store default payment method',
    ),
  );
}

/* ---------- Charges and refunds ---------- */

function chargesPath(filter: ChargeFilter): string {
  const params = new URLSearchParams({ limit: String(filter.limit) });
  if (filter.cursor) params.set('cursor', filter.cursor);
  if (filter.targetUserId) params.set('targetUserId', filter.targetUserId);
  if (filter.orderId) params.set('orderId', filter.orderId);
  return `/api/payments/charges?${params.toString()}`;
}

/** A charge the provider is still deciding moves by itself: its list follows along. */
const isSettling = (charge: ChargeDto): boolean => charge.status === 'pending' || charge.status === 'processing';

export function useCharges(filter: ChargeFilter, enabled = true) {
  return useQuery({
    queryKey: paymentKeys.charges(filter),
    queryFn: () => apiFetch<ChargePage>(chargesPath(filter)),
    enabled,
    placeholderData: (previous) => previous,
    refetchInterval: (query) => (query.state.data?.items.some(isSettling) ? 3000 : false),
  });
}

export function useChargeAuthentication(chargeId: string) {
  return useQuery({
    queryKey: paymentKeys.authentication(chargeId),
    queryFn: () => apiFetch<ChargeAuthentication>(`/api/payments/charges/${enc(chargeId)}/authentication`),
    retry: false,
    refetchInterval: (query) => (query.state.data && isSettling(query.state.data.charge) ? 3000 : false),
  });
}

/** After the seller authenticated with their bank (the sandbox: approved or refused on our page). */
export function useConfirmCharge() {
  return usePaymentMutation(({ chargeId, sandboxOutcome }: { chargeId: string; sandboxOutcome?: 'approve' | 'refuse' }) =>
    apiFetch<ChargeDto>(`/api/payments/charges/${enc(chargeId)}/confirm`, {
      method: 'POST',
      json: sandboxOutcome ? { sandboxOutcome } : {},
    }),
  );
}

/** The spec's chargeStoredCard (admins): the amount in dollars; one requestId per dialog, so a double click charges once. */
export function useChargeStoredCard() {
  return usePaymentMutation((input: ChargeStoredCardInput) =>
    orFallback(
      apiFetch<ChargeDto>('/api/payments/charge-stored-card', { method: 'POST', json: input }),
      'Failed to charge stored card',
    ),
  );
}

/** Refunds what is left of a charge (admins); one requestId per dialog, so a double click refunds once. */
export function useRefundCharge() {
  return usePaymentMutation(({ chargeId, reason, requestId }: { chargeId: string; reason: string; requestId: string }) =>
    apiFetch<ChargeDto>(`/api/payments/charges/${enc(chargeId)}/refund`, { method: 'POST', json: { reason, requestId } }),
  );
}
