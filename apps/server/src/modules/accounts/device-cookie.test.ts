import { describe, expect, it } from 'vitest';
import { createDeviceCookies, DEVICE_COOKIE_MAX_AGE_SECONDS, DEVICE_COOKIE_NAME } from './device-cookie.ts';

const SECRET = 'a-test-secret-of-at-least-32-characters!';
const cookieHeader = (setCookie: string) => setCookie.split(';')[0]!;

describe('device cookies', () => {
  it('are HttpOnly, SameSite=Lax, scoped to /api/auth, long-lived, and Secure when asked', () => {
    const plain = createDeviceCookies(SECRET, { secure: false }).issue('Owner@Example.test');
    expect(plain).toMatch(new RegExp(`^${DEVICE_COOKIE_NAME.replace('.', '\\.')}=v1\\.`));
    expect(plain).toContain(`Max-Age=${DEVICE_COOKIE_MAX_AGE_SECONDS}`);
    expect(plain).toContain('Path=/api/auth');
    expect(plain).toContain('HttpOnly');
    expect(plain).toContain('SameSite=Lax');
    expect(plain).not.toContain('Secure');
    expect(createDeviceCookies(SECRET, { secure: true }).issue('o@example.test')).toMatch(/; Secure$/);
    // The email is not in the cookie in clear.
    expect(plain.toLowerCase()).not.toContain('owner@example.test');
  });

  it('verify only for the account they were issued to, with the same secret, unaltered and unexpired', () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const cookies = createDeviceCookies(SECRET, { secure: false, now: () => now });
    const header = cookieHeader(cookies.issue('owner@example.test'));
    const device = cookies.verify(`other=1; ${header}`, 'OWNER@example.test ');
    expect(device?.deviceId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(cookies.verify(header, 'someone@example.test')).toBeNull();
    expect(createDeviceCookies(`${SECRET}x`, { secure: false, now: () => now }).verify(header, 'owner@example.test')).toBeNull();
    expect(cookies.verify(header.replace('=v1.', '=v2.'), 'owner@example.test')).toBeNull();
    const [name, value] = header.split('=') as [string, string];
    const parts = value.split('.');
    parts[1] = 'AAAAAAAAAAAAAAAAAAAAAA';
    expect(cookies.verify(`${name}=${parts.join('.')}`, 'owner@example.test')).toBeNull();
    expect(cookies.verify(undefined, 'owner@example.test')).toBeNull();
    expect(cookies.verify(`${name}=garbage`, 'owner@example.test')).toBeNull();

    now = new Date(now.getTime() + (DEVICE_COOKIE_MAX_AGE_SECONDS - 60) * 1000);
    expect(cookies.verify(header, 'owner@example.test')).not.toBeNull();
    now = new Date(now.getTime() + 120 * 1000);
    expect(cookies.verify(header, 'owner@example.test')).toBeNull();
  });
});
