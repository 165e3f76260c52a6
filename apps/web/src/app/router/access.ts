import { GUARD_TARGET, type AppPath, type RouteAccess } from '@layerline/contracts';

interface Viewer {
  loading: boolean;
  isAuthenticated: boolean;
  isAdmin: boolean;
  isBetaTester: boolean;
}

export type AccessDecision = { kind: 'allow' } | { kind: 'wait' } | { kind: 'redirect'; to: AppPath };

const ALLOW: AccessDecision = { kind: 'allow' };
const WAIT: AccessDecision = { kind: 'wait' };

/**
 * Whether a viewer may see a route of the given access level (§2, §6). Gated routes wait
 * while auth is unknown; refusals go to GUARD_TARGET (so a visitor at an admin page goes to
 * /dashboard, whose own guard then sends them on to /login).
 */
export function decideAccess(access: RouteAccess, viewer: Viewer): AccessDecision {
  if (access === 'public') return ALLOW;
  if (viewer.loading) return WAIT;
  const allowed =
    access === 'logged-out-only'
      ? !viewer.isAuthenticated
      : access === 'signed-in'
        ? viewer.isAuthenticated
        : access === 'beta'
          ? viewer.isAuthenticated && viewer.isBetaTester
          : viewer.isAuthenticated && viewer.isAdmin;
  return allowed ? ALLOW : { kind: 'redirect', to: GUARD_TARGET[access] };
}
