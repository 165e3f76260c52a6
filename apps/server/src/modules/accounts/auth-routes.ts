import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fromNodeHeaders } from 'better-auth/node';
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { CLIENT_IP_HEADER, type Auth } from './auth.ts';
import type { LoginThrottle } from './login-throttle.ts';
import { passwordProblem } from './passwords.ts';

/** The better-auth endpoints the product uses; the rest of its surface stays closed. */
const OPEN_AUTH_PATHS = new Set([
  'sign-up/email',
  'sign-in/email',
  'sign-out',
  'get-session',
  'change-password',
  'list-sessions',
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

/**
 * Mounts better-auth under /api/auth, adding what it lacks: our password rules, the per-account
 * failed-login limit, the real client address for its rate limits, and `{ error }` bodies.
 */
export function registerAuthRoutes(app: FastifyInstance, deps: { auth: Auth; loginThrottle: LoginThrottle }) {
  app.route({
    method: ['GET', 'POST'],
    url: '/api/auth/*',
    config: { rateLimit: false },
    handler: async (request, reply) => {
      const action = (request.params as { '*': string })['*'].split('?')[0] ?? '';
      if (!OPEN_AUTH_PATHS.has(action)) throw new AppError('not-found', 'Not found');
      await checkBeforeAuth(action, request, deps.loginThrottle);
      const response = await deps.auth.handler(toFetchRequest(request));
      await recordAfterAuth(action, request, response, deps.loginThrottle);
      return sendFetchResponse(reply, response);
    },
  });
}

async function checkBeforeAuth(action: string, request: FastifyRequest, throttle: LoginThrottle): Promise<void> {
  if (action === 'sign-up/email') {
    const body = parseBody(signUpBody, request.body);
    const problem = passwordProblem(body.password);
    if (problem) throw new AppError('bad-request', problem);
  } else if (action === 'change-password') {
    const problem = passwordProblem(parseBody(changePasswordBody, request.body).newPassword);
    if (problem) throw new AppError('bad-request', problem);
  } else if (action === 'sign-in/email') {
    const { email } = parseBody(signInBody, request.body);
    const retryAfterSeconds = await throttle.retryAfterSeconds(email);
    if (retryAfterSeconds > 0) {
      request.log.warn({ event: 'auth.sign-in.throttled', email }, 'sign-in refused: too many failures');
      throw new AppError('rate-limited', 'Too many failed sign-in attempts for this account. Try again later.', {
        retryAfterSeconds,
      });
    }
  }
}

async function recordAfterAuth(
  action: string,
  request: FastifyRequest,
  response: Response,
  throttle: LoginThrottle,
): Promise<void> {
  if (action !== 'sign-in/email') return;
  const { email } = parseBody(signInBody, request.body);
  if (response.status === 401) {
    await throttle.recordFailure(email);
    request.log.warn({ event: 'auth.sign-in.failure', email }, 'sign-in failed');
  } else if (response.ok) {
    await throttle.clear(email);
    request.log.info({ event: 'auth.sign-in.success', email }, 'signed in');
  }
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

async function sendFetchResponse(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.status(response.status);
  response.headers.forEach((value, key) => {
    if (key !== 'set-cookie' && key !== 'content-length') reply.header(key, value);
  });
  const cookies = response.headers.getSetCookie();
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
