import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Device cookies (OWASP's "slow down online guessing attacks with device cookies"): after each
 * successful sign-in the browser gets a long-lived signed cookie naming the account it signed in
 * to. When an account is throttled because of failures from unknown clients, a request carrying a
 * valid device cookie for that account is still evaluated — the owner signs in from a device they
 * used before — and that cookie has its own small failure budget (login-throttle.ts), so a stolen
 * cookie is no way around the limit either.
 *
 * Value: `v1.<device id>.<account>.<issued at, seconds>.<HMAC-SHA256>`, where `<account>` is a
 * truncated SHA-256 of the lower-cased email (the cookie names no one in clear) and the key is
 * derived from APP_SECRET (HKDF), so a cookie cannot be made without the server's secret.
 */
export const DEVICE_COOKIE_NAME = 'layerline.device';
export const DEVICE_COOKIE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

export interface DeviceCookie {
  readonly deviceId: string;
}

export function createDeviceCookies(appSecret: string, options: { secure: boolean; now?: () => Date }) {
  const key = Buffer.from(hkdfSync('sha256', appSecret, 'layerline', 'device-cookie v1', 32));
  const now = options.now ?? (() => new Date());
  const account = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('base64url').slice(0, 22);
  const sign = (body: string) => createHmac('sha256', key).update(body).digest('base64url');

  return {
    /** A Set-Cookie header value for a fresh device cookie bound to this account. */
    issue(email: string): string {
      const body = `v1.${randomBytes(16).toString('base64url')}.${account(email)}.${Math.floor(now().getTime() / 1000)}`;
      const attributes = [`Max-Age=${DEVICE_COOKIE_MAX_AGE_SECONDS}`, 'Path=/api/auth', 'HttpOnly', 'SameSite=Lax'];
      if (options.secure) attributes.push('Secure');
      return [`${DEVICE_COOKIE_NAME}=${body}.${sign(body)}`, ...attributes].join('; ');
    },

    /** The device behind a Cookie header, when it carries a valid, unexpired cookie for this account. */
    verify(cookieHeader: string | undefined, email: string): DeviceCookie | null {
      const value = readCookie(cookieHeader, DEVICE_COOKIE_NAME);
      if (!value) return null;
      const parts = value.split('.');
      if (parts.length !== 5 || parts[0] !== 'v1') return null;
      const [, deviceId, subject, issuedAt, signature] = parts as [string, string, string, string, string];
      const expected = Buffer.from(sign(parts.slice(0, 4).join('.')));
      const given = Buffer.from(signature);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
      if (subject !== account(email)) return null;
      const ageSeconds = now().getTime() / 1000 - Number(issuedAt);
      if (!Number.isFinite(ageSeconds) || ageSeconds < -60 || ageSeconds > DEVICE_COOKIE_MAX_AGE_SECONDS) return null;
      return { deviceId };
    },
  };
}

export type DeviceCookies = ReturnType<typeof createDeviceCookies>;

function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index < 0) continue;
    if (part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}
