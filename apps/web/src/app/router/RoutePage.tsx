import { Suspense, useEffect, type ComponentType } from 'react';
import { Navigate } from 'react-router';
import { documentTitle, type RouteDef } from '@layerline/contracts';
import { recordPageView } from '../../api/analytics.ts';
import { LoadingSpinner } from '../../components/LoadingSpinner.tsx';
import { useAuth } from '../auth/AuthProvider.tsx';
import { decideAccess } from './access.ts';

/** One route of the table: its guard, then the (lazily loaded) page. */
export function RoutePage({ route, Page }: { route: RouteDef; Page: ComponentType }) {
  const auth = useAuth();
  const decision = decideAccess(route.access, auth);
  if (decision.kind === 'wait') return <LoadingSpinner label="Checking your session" testId="auth-spinner" />;
  if (decision.kind === 'redirect') return <Navigate to={decision.to} replace />;
  return (
    <Suspense fallback={<LoadingSpinner label="Loading page" />}>
      <PageView route={route} />
      <Page />
    </Suspense>
  );
}

/** Title and page-view analytics for a page the viewer actually sees (redirects do not count). */
function PageView({ route }: { route: RouteDef }) {
  useEffect(() => {
    const title = documentTitle(route.title);
    document.title = title;
    recordPageView({ title, path: route.path });
  }, [route.title, route.path]);
  return null;
}
