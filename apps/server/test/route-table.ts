import fs from 'node:fs';
import path from 'node:path';
import type { TestApp } from './test-app.ts';

/**
 * The route table of the real server, for the authorization matrix (AC-1: every route has a
 * reviewed entry).
 *
 * Where it comes from: http/app.ts records every route as it is added (an `onRoute` hook registered
 * before anything else, exposed read-only as `app.routeTable`). We chose that small production hook
 * over parsing `app.printRoutes()`: printRoutes prints the router's radix tree, which merges
 * parameter names of sibling routes (`/api/shops/:platform|:id/sync`) and splits wildcards from
 * their prefix (`/api/auth/*` shows as `*`), so the exact URL pattern of a route cannot be read back
 * from it. The hook is what @fastify/swagger itself does, costs one array entry per route at start-up
 * and nothing per request.
 */
export interface RouteKey {
  readonly method: string;
  readonly url: string;
}

export interface Excluded extends RouteKey {
  readonly reason: string;
}

export const routeId = (route: RouteKey): string => `${route.method} ${route.url}`;

/**
 * The routes to review, and the ones left out with the reason. Left out, and only these:
 * - HEAD routes that Fastify adds for every GET (a HEAD with no GET twin stays in);
 * - the files of the built web app, one route per file from @fastify/static (`wildcard: false`):
 *   exactly the files under WEB_DIST_DIR, nothing else outside /api. (The SPA fallback is the
 *   not-found handler, not a route.)
 */
export function collectRouteTable(t: TestApp): { routes: RouteKey[]; excluded: Excluded[] } {
  const table = t.app.routeTable;
  if (!Array.isArray(table) || table.length === 0) throw new Error('app.routeTable is missing: is the onRoute hook in http/app.ts?');
  const staticFiles = new Set(listFiles(t.context.config.webDistDir).map((file) => `/${file.split(path.sep).join('/')}`));
  const gets = new Set(table.filter((r) => r.method === 'GET').map((r) => r.url));
  const routes: RouteKey[] = [];
  const excluded: Excluded[] = [];
  const seen = new Set<string>();
  for (const route of table) {
    const id = routeId(route);
    if (seen.has(id)) continue;
    seen.add(id);
    if (route.method === 'HEAD' && gets.has(route.url)) excluded.push({ ...route, reason: 'HEAD twin of a GET' });
    else if (staticFiles.has(route.url)) excluded.push({ ...route, reason: 'static web app file' });
    else routes.push({ method: route.method, url: route.url });
  }
  return { routes, excluded };
}

function listFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((file) => fs.statSync(path.join(dir, file)).isFile());
}
