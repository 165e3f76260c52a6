import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { Me } from '@layerline/contracts';
import { fetchIsAdmin, fetchMe } from '../../api/me.ts';
import { signOut } from '../../api/auth.ts';
import { queryKeys } from '../../api/query-keys.ts';

/** The spec's auth state (§3): user, isAuthenticated, isAdmin, loading; plus the beta flag (§6). */
export interface AuthState {
  user: Me | null;
  isAuthenticated: boolean;
  isAdmin: boolean;
  isBetaTester: boolean;
  /** True until we know who is signed in (and, for a signed-in user, whether they are an admin). */
  loading: boolean;
}

export interface AuthApi extends AuthState {
  /** Re-reads the session after sign-in or sign-up; auth is "unknown" (loading) until it settles. */
  refresh(): Promise<void>;
  /** Signs out and clears every piece of user state. Failures are logged only (§8). */
  logout(): Promise<void>;
}

const AuthContext = createContext<AuthApi | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [refreshing, setRefreshing] = useState(false);

  const meQuery = useQuery({
    queryKey: queryKeys.me,
    queryFn: fetchMe,
    retry: 1,
    staleTime: 60_000,
  });
  const user = meQuery.data ?? null;

  // §4: on every sign-in change the admin check runs; on failure admin is false (and logged).
  const adminQuery = useQuery({
    queryKey: queryKeys.isAdmin(user?.id ?? 'signed-out'),
    queryFn: safeIsAdmin,
    enabled: user !== null,
    staleTime: Infinity,
  });

  useEffect(() => {
    if (meQuery.error)
      console.error('Could not read the signed-in user; treating the visitor as signed out', meQuery.error);
  }, [meQuery.error]);

  const refreshInFlight = useRef<Promise<void> | null>(null);
  const refresh = useCallback(async () => {
    if (refreshInFlight.current) return refreshInFlight.current;
    setRefreshing(true);
    const work = (async () => {
      try {
        const me = await queryClient.fetchQuery({ queryKey: queryKeys.me, queryFn: fetchMe, staleTime: 0 });
        if (me) await queryClient.prefetchQuery({ queryKey: queryKeys.isAdmin(me.id), queryFn: safeIsAdmin });
      } finally {
        refreshInFlight.current = null;
        setRefreshing(false);
      }
    })();
    refreshInFlight.current = work;
    return work;
  }, [queryClient]);

  const logout = useCallback(async () => {
    try {
      await signOut();
    } catch (error) {
      console.error('Sign-out failed', error);
    }
    // Drop everything cached for this user (admin lists, dashboard...) and mark the visitor signed out.
    // The `me` entry is overwritten rather than removed so its observer (this provider) hears about it.
    queryClient.setQueryData(queryKeys.me, null);
    queryClient.removeQueries({ predicate: (query) => !KEPT_AFTER_SIGN_OUT.has(String(query.queryKey[0])) });
  }, [queryClient]);

  const loading = refreshing || meQuery.isPending || (user !== null && adminQuery.isPending);
  const value = useMemo<AuthApi>(
    () => ({
      user,
      isAuthenticated: user !== null,
      isAdmin: user !== null && adminQuery.data === true,
      isBetaTester: user?.isBetaTester === true,
      loading,
      refresh,
      logout,
    }),
    [user, adminQuery.data, loading, refresh, logout],
  );

  return <AuthContext value={value}>{children}</AuthContext>;
}

/** Cache entries that do not belong to a user and survive sign-out. */
const KEPT_AFTER_SIGN_OUT = new Set<string>([queryKeys.me[0], queryKeys.config[0]]);

async function safeIsAdmin(): Promise<boolean> {
  try {
    return await fetchIsAdmin();
  } catch (error) {
    console.error('Admin check failed; treating the user as a non-admin', error);
    return false;
  }
}

export function useAuth(): AuthApi {
  const context = useContext(AuthContext);
  if (!context) throw new Error('useAuth must be used within an AuthProvider');
  return context;
}
