import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  AdminUser,
  AdminUserFlags,
  AdminUserList,
  AuditEntry,
  ContactMessageRecord,
  PageViewStats,
  UnlockSignInResult,
} from '@layerline/contracts';
import { apiFetch } from './client.ts';
import { queryKeys } from './query-keys.ts';

export function useAdminUsers(search: string, cursor: string | undefined, limit: number) {
  return useQuery({
    queryKey: queryKeys.adminUsers(search, cursor, limit),
    queryFn: () => {
      const query = new URLSearchParams({ search, limit: String(limit) });
      if (cursor) query.set('cursor', cursor);
      return apiFetch<AdminUserList>(`/api/admin/users?${query}`);
    },
    placeholderData: keepPreviousData,
  });
}


function withFlags(user: AdminUser, flags: AdminUserFlags): AdminUser {
  const { isAdmin, ...others } = flags;
  return { ...user, ...others, ...(isAdmin === undefined ? {} : { role: isAdmin ? 'admin' : 'seller' }) };
}

/**
 * PATCH a user's flags. The switch flips at once (optimistic update) and flips back if the
 * server refuses; the lists and the audit log are re-read either way.
 */
export function useUpdateUserFlags() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ userId, flags }: { userId: string; flags: AdminUserFlags }) =>
      apiFetch<AdminUser>(`/api/admin/users/${encodeURIComponent(userId)}`, { method: 'PATCH', json: flags }),
    onMutate: async ({ userId, flags }) => {
      await queryClient.cancelQueries({ queryKey: queryKeys.adminUsersAll });
      const previous = queryClient.getQueriesData<AdminUserList>({ queryKey: queryKeys.adminUsersAll });
      queryClient.setQueriesData<AdminUserList>({ queryKey: queryKeys.adminUsersAll }, (list) =>
        list
          ? { ...list, items: list.items.map((user) => (user.id === userId ? withFlags(user, flags) : user)) }
          : list,
      );
      return { previous };
    },
    onError: (_error, _input, context) => {
      for (const [key, list] of context?.previous ?? []) queryClient.setQueryData(key, list);
    },
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.adminUsersAll });
      void queryClient.invalidateQueries({ queryKey: queryKeys.adminAuditAll });
    },
  });
}

/** Ends a user's sign-in throttling (audited); the lists and the audit log are re-read. */
export function useUnlockSignIn() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (userId: string) =>
      apiFetch<UnlockSignInResult>(`/api/admin/users/${encodeURIComponent(userId)}/unlock-sign-in`, { method: 'POST' }),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.adminUsersAll });
      void queryClient.invalidateQueries({ queryKey: queryKeys.adminAuditAll });
    },
  });
}

/** One page of the audit log, newest first (`cursor` undefined for the first page). */
export function useAuditLog(limit: number, cursor: string | undefined) {
  return useQuery({
    queryKey: queryKeys.adminAudit(limit, cursor),
    queryFn: () => {
      const query = new URLSearchParams({ limit: String(limit) });
      if (cursor) query.set('cursor', cursor);
      return apiFetch<{ entries: AuditEntry[]; nextCursor: string | null }>(`/api/admin/audit?${query}`);
    },
    placeholderData: keepPreviousData,
  });
}

/** One page of the contact messages, newest first (`cursor` undefined for the first page). */
export function useContactMessages(limit: number, cursor: string | undefined) {
  return useQuery({
    queryKey: queryKeys.adminContactMessages(cursor),
    queryFn: () => {
      const query = new URLSearchParams({ limit: String(limit) });
      if (cursor) query.set('cursor', cursor);
      return apiFetch<{ messages: ContactMessageRecord[]; nextCursor: string | null }>(`/api/admin/contact-messages?${query}`);
    },
    placeholderData: keepPreviousData,
  });
}

export function usePageViewStats(days: number) {
  return useQuery({
    queryKey: queryKeys.adminPageViews(days),
    queryFn: () => apiFetch<PageViewStats>(`/api/admin/analytics/page-views?days=${days}`),
  });
}
