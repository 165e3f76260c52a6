import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import type { AppPath } from '@layerline/contracts';
import { useAuth } from '../../app/auth/AuthProvider.tsx';

/**
 * After a successful sign-in or sign-up: go to the destination while the session is re-read.
 * Navigating first matters: the login/register guard would otherwise see the new session and
 * send the user to /dashboard before we could send them to /welcome. Auth counts as "unknown"
 * until the re-read settles, so the destination's guard shows its spinner meanwhile.
 */
export function useCompleteSignIn(): (destination: AppPath) => Promise<void> {
  const { refresh } = useAuth();
  const navigate = useNavigate();
  return useCallback(
    async (destination) => {
      const settled = refresh();
      await navigate(destination, { replace: true });
      await settled;
    },
    [refresh, navigate],
  );
}
