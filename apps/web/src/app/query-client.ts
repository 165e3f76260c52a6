import { QueryClient } from '@tanstack/react-query';
import { ApiError } from '../api/client.ts';

/** Client errors (4xx) will not change on retry; network blips and 5xx get one more try. */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        refetchOnWindowFocus: false,
        retry: (failureCount, error) =>
          !(error instanceof ApiError && error.status < 500) && failureCount < 1,
      },
      mutations: { retry: false },
    },
  });
}
