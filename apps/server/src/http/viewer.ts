import type { FastifyRequest } from 'fastify';
import { AppError, forbidden, notSignedIn } from '../errors.ts';

/** Who is asking: resolved once per request from the session cookie or bearer token. */
export interface Viewer {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly isAdmin: boolean;
  readonly isBetaTester: boolean;
  readonly isInternal: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    viewer: Viewer | null;
  }
}

export function requireViewer(request: FastifyRequest): Viewer {
  if (!request.viewer) throw notSignedIn();
  return request.viewer;
}

export function requireAdmin(request: FastifyRequest): Viewer {
  const viewer = requireViewer(request);
  if (!viewer.isAdmin) throw forbidden('Only admins may do that');
  return viewer;
}

export function requireBetaTester(request: FastifyRequest): Viewer {
  const viewer = requireViewer(request);
  if (!viewer.isBetaTester && !viewer.isAdmin) throw forbidden('This feature is open to beta testers only');
  return viewer;
}

/**
 * The spec's targetUserId: a caller acts for themselves unless an admin names another user.
 * Anyone else naming a user other than themselves is refused, whatever the route.
 */
export function subjectUserId(viewer: Viewer, targetUserId: string | undefined | null): string {
  if (!targetUserId || targetUserId === viewer.id) return viewer.id;
  if (!viewer.isAdmin) throw new AppError('forbidden', 'Only admins may act for another user');
  return targetUserId;
}

/**
 * Refuses a targetUserId naming someone else, in the query or a JSON body, unless an admin sent it.
 * A caller with neither a session nor a key is left to the route, which answers 401 (no route acts for
 * anyone without one); an order API key never acts for another seller.
 */
export function refuseForeignTarget(request: FastifyRequest): void {
  if (request.viewer?.isAdmin || (!request.viewer && !request.headers.authorization)) return;
  const fromQuery = (request.query as Record<string, unknown> | undefined)?.targetUserId;
  const body = request.body;
  const fromBody = body && typeof body === 'object' && !Buffer.isBuffer(body) ? (body as Record<string, unknown>).targetUserId : undefined;
  for (const target of [fromQuery, fromBody]) {
    if (target === undefined || target === null || target === '') continue;
    if (target !== request.viewer?.id) throw new AppError('forbidden', 'Only admins may act for another user');
  }
}

/**
 * An admin's targetUserId must name a user who exists: a route acting for nobody would write rows that
 * point at no user (the database refuses them: a 500 instead of an answer). Checked once for every
 * route, like refuseForeignTarget; a value that is not a string is left to the route's validation.
 */
export async function refuseUnknownTarget(request: FastifyRequest, userExists: (id: string) => Promise<boolean>): Promise<void> {
  if (!request.viewer?.isAdmin) return;
  const fromQuery = (request.query as Record<string, unknown> | undefined)?.targetUserId;
  const body = request.body;
  const fromBody = body && typeof body === 'object' && !Buffer.isBuffer(body) ? (body as Record<string, unknown>).targetUserId : undefined;
  for (const target of [fromQuery, fromBody]) {
    if (typeof target !== 'string' || target === '' || target === request.viewer.id) continue;
    if (!(await userExists(target))) throw new AppError('not-found', 'targetUserId: no such user');
  }
}
