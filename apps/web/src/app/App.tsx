import { useState } from 'react';
import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router/dom';
import { AuthProvider } from './auth/AuthProvider.tsx';
import { createQueryClient } from './query-client.ts';
import { createAppRouter } from './router/app-router.tsx';
import { ThemeModeProvider } from './theme/ThemeModeProvider.tsx';
import { ToastProvider } from './toast/ToastProvider.tsx';

/** The providers every page relies on, outermost first: data, theme, toasts, auth, then the router. */
export function App() {
  const [queryClient] = useState(createQueryClient);
  const [router] = useState(createAppRouter);
  return (
    <QueryClientProvider client={queryClient}>
      <ThemeModeProvider>
        <ToastProvider>
          <AuthProvider>
            <RouterProvider router={router} />
          </AuthProvider>
        </ToastProvider>
      </ThemeModeProvider>
    </QueryClientProvider>
  );
}
