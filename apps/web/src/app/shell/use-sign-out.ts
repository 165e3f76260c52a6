import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import { useAuth } from '../auth/AuthProvider.tsx';

/** Logout (§2): sign out, clear state, then go to /login whatever the server answered. */
export function useSignOut(): () => Promise<void> {
  const { logout } = useAuth();
  const navigate = useNavigate();
  return useCallback(async () => {
    await logout();
    await navigate('/login', { replace: true });
  }, [logout, navigate]);
}
