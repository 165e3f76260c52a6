import { useMutation, useQuery } from '@tanstack/react-query';
import type { DiscordMessageInput, DiscordSendResult, DiscordStatus } from '@layerline/contracts';
import { apiFetch } from './client.ts';
import { queryKeys } from './query-keys.ts';

/** Whether the farm's Discord webhook is configured (admins). */
export function useDiscordStatus() {
  return useQuery({
    queryKey: queryKeys.discordStatus,
    queryFn: () => apiFetch<DiscordStatus>('/api/notifications/discord'),
  });
}

/** The spec's sendDiscordNotification: an admin's message to the farm's channel. */
export function useSendDiscordMessage() {
  return useMutation({
    mutationFn: (input: DiscordMessageInput) =>
      apiFetch<DiscordSendResult>('/api/notifications/discord', { method: 'POST', json: input }),
  });
}
