import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  EmailMessage,
  EmailOutboxPage,
  EmailStatus,
  EmailTemplateType,
  NotificationPreferences,
  SendCustomEmailInput,
  UnsubscribeStatus,
} from '@layerline/contracts';
import { apiFetch } from './client.ts';

/** Query keys of the email notifications (kept here: only these hooks use them). */
const notificationKeys = {
  preferences: ['notifications', 'preferences'] as const,
  outboxAll: ['notifications', 'outbox'] as const,
  outbox: (filter: OutboxFilter, cursor: string | undefined, limit: number) => ['notifications', 'outbox', filter, cursor, limit] as const,
  message: (id: string) => ['notifications', 'outbox', 'message', id] as const,
  unsubscribe: (token: string) => ['notifications', 'unsubscribe', token] as const,
};

/** The signed-in seller's email preferences: the kinds turned off. */
export function useNotificationPreferences() {
  return useQuery({
    queryKey: notificationKeys.preferences,
    queryFn: () => apiFetch<NotificationPreferences>('/api/notifications/preferences'),
  });
}

export function useUpdateNotificationPreferences() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (disabled: EmailTemplateType[]) =>
      apiFetch<NotificationPreferences>('/api/notifications/preferences', { method: 'PUT', json: { disabled } }),
    onSuccess: (saved) => client.setQueryData(notificationKeys.preferences, saved),
  });
}

/** The admins' outbox filters ('' = any). */
export interface OutboxFilter {
  status: EmailStatus | '';
  search: string;
}

export function useEmailOutbox(filter: OutboxFilter, cursor: string | undefined, limit: number) {
  return useQuery({
    queryKey: notificationKeys.outbox(filter, cursor, limit),
    queryFn: () => {
      const params = new URLSearchParams({ limit: String(limit) });
      if (cursor) params.set('cursor', cursor);
      if (filter.status) params.set('status', filter.status);
      if (filter.search) params.set('search', filter.search);
      return apiFetch<EmailOutboxPage>(`/api/notifications/outbox?${params}`);
    },
    placeholderData: keepPreviousData,
  });
}

export function useEmailMessage(id: string | null) {
  return useQuery({
    queryKey: notificationKeys.message(id ?? ''),
    queryFn: () => apiFetch<EmailMessage>(`/api/notifications/outbox/${encodeURIComponent(id!)}`),
    enabled: id !== null,
  });
}

/** sendCustomEmail (admins). */
export function useSendCustomEmail() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: SendCustomEmailInput) =>
      apiFetch<EmailMessage>('/api/notifications/send-custom-email', { method: 'POST', json: input }),
    onSuccess: () => void client.invalidateQueries({ queryKey: notificationKeys.outboxAll }),
  });
}

/** What an unsubscribe link is about (public: the token is the key). */
export function useUnsubscribeStatus(token: string) {
  return useQuery({
    queryKey: notificationKeys.unsubscribe(token),
    queryFn: () => apiFetch<UnsubscribeStatus>(`/api/notifications/unsubscribe?token=${encodeURIComponent(token)}`),
    enabled: token !== '',
    retry: false,
  });
}

export function useUnsubscribe(token: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () =>
      apiFetch<UnsubscribeStatus>(`/api/notifications/unsubscribe?token=${encodeURIComponent(token)}`, { method: 'POST' }),
    onSuccess: (status) => {
      client.setQueryData(notificationKeys.unsubscribe(token), status);
      void client.invalidateQueries({ queryKey: notificationKeys.preferences });
    },
  });
}
