import { useMutation } from '@tanstack/react-query';
import type { ContactMessageInput } from '@layerline/contracts';
import { apiFetch } from '../../../api/client.ts';

/** POST /api/contact: works signed in or not; the server answers 201 with the message id. */
export function useSendContactMessage() {
  return useMutation({
    mutationFn: (message: ContactMessageInput) =>
      apiFetch<{ id: string }>('/api/contact', { method: 'POST', json: message }),
  });
}
