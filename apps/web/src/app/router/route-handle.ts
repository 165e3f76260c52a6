import type { RouteDef } from '@layerline/contracts';

/**
 * What each route of the table carries for the shell: its definition (guard, title, nav area). Set by
 * app-router.tsx, read by RootLayout.tsx through useMatches; its own file so the router (which renders
 * the layout) and the layout do not import each other.
 */
export interface RouteHandle {
  route: RouteDef;
}
