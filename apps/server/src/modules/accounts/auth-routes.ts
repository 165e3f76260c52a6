import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fromNodeHeaders } from 'better-auth/node';
import { z } from 'zod';
import { AppError, notSignedIn } from '../../errors.ts';
import { CLIENT_IP_HEADER, type Auth } from './auth.ts';
import type { DeviceCookie, DeviceCookies } from './device-cookie.ts';
import type { LoginThrottle } from './login-throttle.ts';
import { passwordProblem } from './passwords.ts';
import type { SessionRepository } from './session-repository.ts';

/** The better-auth endpoints the product uses; the rest of its surface stays closed. */
const OPEN_AUTH_PATHS = new Set([
  'sign-up/email',
  'sign-in/email',
  'sign-in/email-link',
  'sign-in/email-link/verify',
  'sign-out',
  'get-session',
  'change-password',
  'list-sessions',
  'revoke-session',
  'revoke-other-sessions',
]);

/** Sign-up takes exactly these fields: anything else (a role, a flag) is refused, not ignored. */
const signUpBody = z
  .object({
    email: z.string(),
    password: z.string(),
    name: z.string().trim().min(1, 'Name is required').max(120),
    businessName: z.string().trim().max(120).optional(),
    affiliateRef: z.string().trim().max(64).optional(),
    rememberMe: z.boolean().optional(),
    callbackURL: z.string().optional(),
  })
  .strict();
const signInBody = z.object({ email: z.string() }).loose();
const changePasswordBody = z.object({ newPassword: z.string() }).loose();
/** Another session is named by its id: the server no longer knows other sessions' tokens. */
const revokeSessionBody = z.object({ id: z.string().min(1).max(200) }).strict();

export interface AuthRouteDeps {
  readonly auth: Auth;
  readonly loginThrottle: LoginThrottle;
  readonly sessions: SessionRepository;
  readonly deviceCookies: DeviceCookies;
}

/**
 * Mounts better-auth under /api/auth, adding what it lacks: our password rules, the per-account
 * failed-login limit with device cookies, the real client address for its rate limits, session
 * lists without tokens, revoking a session by id, and `{ error }` bodies.
 */
export function registerAuthRoutes(app: FastifyInstance, deps: AuthRouteDeps) {
  app.route({
    method: ['GET', 'POST'],
    url: '/api/auth/*',
    config: { rateLimit: false },
    schema: {
      tags: ['accounts'],
      summary: 'Sign-up, sign-in and sessions (better-auth)',
      description: `Only these actions answer; any other is 404: ${[...OPEN_AUTH_PATHS].map((path) => `\`${path}\``).join(', ')}.`,
    },
    handler: async (request, reply) => {
      const action = (request.params as { '*': string })['*'].split('?')[0] ?? '';
      if (!OPEN_AUTH_PATHS.has(action)) throw new AppError('not-found', 'Not found');
      if (action === 'revoke-session' || action === 'revoke-other-sessions') {
        if (request.method !== 'POST') throw new AppError('not-found', 'Not found');
        return revokeSessions(action, request, deps);
      }
      const device = await checkBeforeAuth(action, request, deps);
      const response = await deps.auth.handler(toFetchRequest(request));
      const extraCookies = await recordAfterAuth(action, request, response, deps, device);
      if (action === 'list-sessions' && response.ok) return sendFetchResponse(reply, await withoutTokens(request, response, deps.auth));
      return sendFetchResponse(reply, response, extraCookies);
    },
  });
}

/** The caller's session, from its cookie or bearer token. */
async function currentSession(request: FastifyRequest, auth: Auth) {
  const found = await auth.api.getSession({ headers: fromNodeHeaders(request.headers) });
  if (!found) throw notSignedIn();
  return found;
}

async function revokeSessions(action: string, request: FastifyRequest, deps: AuthRouteDeps): Promise<{ status: true }> {
  const { session } = await currentSession(request, deps.auth);
  if (action === 'revoke-other-sessions') {
    await deps.sessions.deleteOthers(session.userId, session.id);
    return { status: true };
  }
  const { id } = parseBody(revokeSessionBody, request.body);
  if (!(await deps.sessions.deleteOwn(session.userId, id))) throw new AppError('not-found', 'Session not found');
  return { status: true };
}

/**
 * better-auth's list-sessions, without any token: each session has its id (to revoke it by) and
 * `current` for the caller's own.
 */
async function withoutTokens(request: FastifyRequest, response: Response, auth: Auth): Promise<Response> {
  const { session: mine } = await currentSession(request, auth);
  const listed = (await response.json()) as Array<Record<string, unknown>>;
  const body = listed.map(({ token: _token, ...rest }) => ({ ...rest, current: rest.id === mine.id }));
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(body), { status: response.status, headers });
}

/**
 * Our rules before better-auth sees the request. For a password sign-in, returns the device
 * cookie the request carries for that account when it is valid and within its own failure budget:
 * such a request is evaluated even while the account is throttled for unknown clients.
 */
async function checkBeforeAuth(action: string, request: FastifyRequest, deps: AuthRouteDeps): Promise<DeviceCookie | null> {
  const throttle = deps.loginThrottle;
  if (action === 'sign-up/email') {
    const body = parseBody(signUpBody, request.body);
    const problem = passwordProblem(body.password);
    if (problem) throw new AppError('bad-request', problem);
  } else if (action === 'change-password') {
    const problem = passwordProblem(parseBody(changePasswordBody, request.body).newPassword);
    if (problem) throw new AppError('bad-request', problem);
  } else if (action === 'sign-in/email') {
    const { email } = parseBody(signInBody, request.body);
    const device = deps.deviceCookies.verify(request.headers.cookie, email);
    if (device && (await throttle.deviceRetryAfterSeconds(device.deviceId)) === 0) return device;
    const addressRetryAfterSeconds = await throttle.addressRetryAfterSeconds(email, request.ip);
    if (addressRetryAfterSeconds > 0) {
      request.log.warn({ event: 'auth.sign-in.address-throttled', email }, 'sign-in refused: too many failures from this address');
      throw new AppError(
        'rate-limited',
        'Too many failed sign-in attempts for this account from your network. Sign in from a browser you have used before, use "Email me a sign-in link", or try again later.',
        { retryAfterSeconds: addressRetryAfterSeconds },
      );
    }
    const retryAfterSeconds = await throttle.retryAfterSeconds(email);
    if (retryAfterSeconds > 0) {
      request.log.warn({ event: 'auth.sign-in.throttled', email }, 'sign-in refused: too many failures');
      throw new AppError(
        'rate-limited',
        'Too many failed sign-in attempts for this account from new browsers. Sign in from a browser you have used before, use "Email me a sign-in link", or try again later.',
        { retryAfterSeconds },
      );
    }
  }
  return null;
}

/** Counts failures and clears them on success; returns cookies to add (a fresh device cookie). */
async function recordAfterAuth(
  action: string,
  request: FastifyRequest,
  response: Response,
  deps: AuthRouteDeps,
  device: DeviceCookie | null,
): Promise<string[]> {
  const throttle = deps.loginThrottle;
  if (action === 'sign-in/email-link/verify' && response.ok) {
    const { user } = (await response.clone().json()) as { user: { email: string } };
    request.log.info({ event: 'auth.sign-in.link', email: user.email }, 'signed in with an emailed link');
    return [deps.deviceCookies.issue(user.email)];
  }
  if (action !== 'sign-in/email') return [];
  const { email } = parseBody(signInBody, request.body);
  if (response.status === 401) {
    if (device) {
      await throttle.recordDeviceFailure(device.deviceId);
    } else {
      try {
        await throttle.recordFailure(email, request.ip);
      } catch (error) {
        // The owner's alert could not be sent: the failure is counted, the answer stays a 401.
        request.log.error({ err: error, event: 'auth.sign-in.alert-failed', email }, 'could not alert the account owner');
      }
    }
    request.log.warn({ event: 'auth.sign-in.failure', email, knownDevice: device !== null }, 'sign-in failed');
  } else if (response.ok) {
    if (device) await throttle.clearDevice(device.deviceId);
    else await throttle.clear(email, request.ip);
    request.log.info({ event: 'auth.sign-in.success', email, knownDevice: device !== null }, 'signed in');
    return [deps.deviceCookies.issue(email)];
  }
  return [];
}

function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const message =
      issue?.code === 'unrecognized_keys'
        ? `Unknown field: ${issue.keys.join(', ')}`
        : `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`;
    throw new AppError('bad-request', message);
  }
  return parsed.data;
}

function toFetchRequest(request: FastifyRequest): Request {
  const headers = fromNodeHeaders(request.headers);
  headers.delete(CLIENT_IP_HEADER);
  headers.set(CLIENT_IP_HEADER, request.ip);
  const url = new URL(request.url, `${request.protocol}://${request.host}`);
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  return new Request(url, {
    method: request.method,
    headers,
    body: hasBody ? JSON.stringify(request.body ?? {}) : undefined,
  });
}

async function sendFetchResponse(reply: FastifyReply, response: Response, extraCookies: string[] = []): Promise<FastifyReply> {
  reply.status(response.status);
  response.headers.forEach((value, key) => {
    if (key !== 'set-cookie' && key !== 'content-length') reply.header(key, value);
  });
  const cookies = [...response.headers.getSetCookie(), ...extraCookies];
  if (cookies.length > 0) reply.header('set-cookie', cookies);
  const text = await response.text();
  if (response.status >= 400) {
    return reply.type('application/json').send({ error: errorMessage(text, response.statusText) });
  }
  return reply.send(text);
}

function errorMessage(text: string, fallback: string): string {
  try {
    const body = JSON.parse(text) as { message?: unknown; error?: unknown };
    if (typeof body.message === 'string' && body.message) return body.message;
    if (typeof body.error === 'string' && body.error) return body.error;
  } catch {
    // not JSON
  }
  return fallback || 'Authentication failed';
}
