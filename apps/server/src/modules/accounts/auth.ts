import { betterAuth } from 'better-auth';
import { drizzleAdapter } from 'better-auth/adapters/drizzle';
import { bearer } from 'better-auth/plugins';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import * as schema from '../../db/schema.ts';
import type { Mailer } from '../notifications/mailer.ts';
import { emailLink } from './email-link.ts';
import type { LoginThrottle } from './login-throttle.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { hashSessionTokens } from './session-token-hashing.ts';

/** The header our HTTP layer fills with the real client address; any client-sent value is replaced. */
export const CLIENT_IP_HEADER = 'x-layerline-client-ip';

const DAY_SECONDS = 24 * 60 * 60;

export interface AuthDeps {
  readonly mailer: Mailer;
  readonly loginThrottle: LoginThrottle;
  /** Told once an account is stored (the welcome email); its failure never fails the sign-up. */
  readonly onUserCreated?: ((user: { id: string; name: string }) => Promise<void>) | undefined;
}

/**
 * Where emailed links point: PUBLIC_URL; without it (a local install) the browser's own origin
 * when that is a loopback address, so a request with a forged Origin cannot make the server mail
 * a link to someone else's site.
 */
export function linkOrigin(config: Config, requestOrigin: string | null): string {
  if (config.publicUrl) return config.publicUrl;
  try {
    if (requestOrigin) {
      const url = new URL(requestOrigin);
      if (['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) && /^https?:$/.test(url.protocol)) return url.origin;
    }
  } catch {
    // not a URL
  }
  return `http://localhost:${config.port}`;
}

/**
 * better-auth, hardened as the stack guide asks: argon2id hashes, database-backed rate limits,
 * stateful sessions (logout and password changes take effect at once) whose tokens are stored
 * hashed, bearer tokens for API clients, emailed one-time sign-in links, and admin rights granted
 * only from configuration or by another admin.
 */
export function createAuth(config: Config, db: Database, deps: AuthDeps) {
  const adminEmails = new Set(config.adminEmails);
  const secure = config.publicUrl?.startsWith('https://') ?? false;
  return betterAuth({
    appName: 'Layerline',
    secret: config.appSecret,
    baseURL: config.publicUrl,
    basePath: '/api/auth',
    trustedOrigins: config.publicUrl ? [config.publicUrl] : [],
    // Session tokens are stored as SHA-256 only (session-token-hashing.ts).
    database: hashSessionTokens(drizzleAdapter(db, { provider: 'pg', schema })),
    telemetry: { enabled: false },
    // Without PUBLIC_URL the origin comes from each request (any port on a developer's machine);
    // better-auth warns about that on every start, which is noise for a local install.
    logger: { level: config.publicUrl ? 'warn' : 'error' },
    emailAndPassword: {
      enabled: true,
      autoSignIn: true,
      // Length and common-password rules are ours (passwords.ts, counted in code points);
      // these bounds only stop absurd input before hashing.
      minPasswordLength: 8,
      maxPasswordLength: 512,
      password: { hash: hashPassword, verify: verifyPassword },
    },
    session: {
      expiresIn: 7 * DAY_SECONDS,
      updateAge: DAY_SECONDS,
      freshAge: 15 * 60,
    },
    user: {
      additionalFields: {
        role: { type: 'string', required: false, defaultValue: 'seller', input: false },
        businessName: { type: 'string', required: false, defaultValue: '', input: true },
        isBetaTester: { type: 'boolean', required: false, defaultValue: false, input: false },
        isInternal: { type: 'boolean', required: false, defaultValue: false, input: false },
        affiliateRef: { type: 'string', required: false, input: true },
      },
    },
    databaseHooks: {
      user: {
        create: {
          before: async (user) => ({
            data: {
              ...user,
              email: user.email.toLowerCase(),
              role: adminEmails.has(user.email.toLowerCase()) ? 'admin' : 'seller',
              isBetaTester: config.newUsersBeta,
            },
          }),
          after: async (user) => {
            await deps.onUserCreated?.({ id: user.id, name: user.name }).catch((error: unknown) => {
              console.error('after sign-up:', error);
            });
          },
        },
      },
    },
    rateLimit: {
      enabled: config.authRateLimit,
      storage: 'database',
      modelName: 'rateLimit',
      window: 60,
      max: 100,
      customRules: {
        '/sign-in/email': { window: 10, max: 3 },
        '/sign-up/email': { window: 60, max: 5 },
        '/change-password': { window: 60, max: 5 },
        '/sign-in/email-link': { window: 60, max: 3 },
        '/sign-in/email-link/verify': { window: 60, max: 10 },
      },
    },
    advanced: {
      cookiePrefix: 'layerline',
      useSecureCookies: secure,
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
      defaultCookieAttributes: { sameSite: 'lax', httpOnly: true },
    },
    plugins: [
      bearer(),
      emailLink({
        mailer: deps.mailer,
        // The address auth-routes put in CLIENT_IP_HEADER (the one the server saw, through trusted proxies only).
        takeLinkSend: (email, headers) => deps.loginThrottle.takeLinkSend(email, headers?.get(CLIENT_IP_HEADER) ?? 'unknown'),
        linkOrigin: (origin) => linkOrigin(config, origin),
      }),
    ],
  });
}

export type Auth = ReturnType<typeof createAuth>;
