import { QueryClient } from '@tanstack/react-query';
import { ApiError } from '../api/client.ts';

/** Client errors (4xx) will not change on retry; network blips and 5xx get one more try. */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      // The app only talks to its own server, often on localhost or a farm's LAN, where the
      // browser's "offline" guess means nothing: with the default ('online') one offline event
      // silently parked every request and mutation. A request that cannot reach the server
      // fails and says so instead.
      queries: {
        networkMode: 'always',
        staleTime: 30_000,
        refetchOnWindowFocus: false,
        retry: (failureCount, error) =>
          !(error instanceof ApiError && error.status < 500) && failureCount < 1,
      },
      mutations: { networkMode: 'always', retry: false },
    },
  });
}
