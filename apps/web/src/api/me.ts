import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ChangeEmailInput, Me, UpdateAccountInput } from '@layerline/contracts';
import { ApiError, apiFetch } from './client.ts';
import { queryKeys } from './query-keys.ts';

/** GET /api/me; a 401 means "signed out" and is answered with null rather than an error. */
export async function fetchMe(): Promise<Me | null> {
  try {
    return await apiFetch<Me>('/api/me');
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

/** POST /api/check-user: the spec's admin check (§4). */
export async function fetchIsAdmin(): Promise<boolean> {
  const answer = await apiFetch<{ isAdmin: boolean }>('/api/check-user', { method: 'POST' });
  return answer.isAdmin === true;
}

export function useUpdateAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: UpdateAccountInput) => apiFetch<Me>('/api/me', { method: 'PATCH', json: input }),
    onSuccess: (me) => {
      queryClient.setQueryData(queryKeys.me, me);
      void queryClient.invalidateQueries({ queryKey: queryKeys.dashboard });
    },
  });
}

export function useChangeEmail() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: ChangeEmailInput) => apiFetch<Me>('/api/me/email', { method: 'POST', json: input }),
    onSuccess: (me) => queryClient.setQueryData(queryKeys.me, me),
  });
}
