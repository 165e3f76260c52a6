import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import { REDIRECTS, ROUTES, UNKNOWN_PATH_TARGET, type RouteDef } from '@layerline/contracts';
import { RootLayout } from '../shell/RootLayout.tsx';
import { RouteErrorPage } from './RouteErrorPage.tsx';
import type { RouteHandle } from './route-handle.ts';
import { ROUTE_PAGES } from './route-pages.ts';
import { RoutePage } from './RoutePage.tsx';

function tableRoute(route: RouteDef & { path: keyof typeof ROUTE_PAGES }): RouteObject {
  const handle: RouteHandle = { route };
  return { path: route.path, handle, element: <RoutePage route={route} Page={ROUTE_PAGES[route.path]} /> };
}

/** The whole route table (§2): every route with its guard, the fixed redirects and the catch-all. */
export function createAppRouter() {
  return createBrowserRouter([
    {
      element: <RootLayout />,
      children: [
        {
          errorElement: <RouteErrorPage />,
          children: [
            ...ROUTES.map(tableRoute),
            ...Object.entries(REDIRECTS).map(([from, to]) => ({
              path: from,
              element: <Navigate to={to} replace />,
            })),
            { path: '*', element: <Navigate to={UNKNOWN_PATH_TARGET} replace /> },
          ],
        },
      ],
    },
  ]);
}
