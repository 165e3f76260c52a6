import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../test/test-app.ts';
import { LOGIN_FAILURE_LIMIT } from '../modules/accounts/login-throttle.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** Every state-changing route the foundation has, with a body that would otherwise be accepted. */
const STATE_CHANGING: Array<[string, string, unknown]> = [
  ['PATCH', '/api/me', { name: 'Forged' }],
  ['POST', '/api/me/email', { newEmail: 'forged@example.test', currentPassword: 'x' }],
  ['POST', '/api/check-user', {}],
  ['POST', '/api/contact', { name: 'F', email: 'f@example.test', subject: 'S', message: 'forged message body' }],
  ['POST', '/api/analytics/page-views', { title: 'T', path: '/' }],
  ['POST', '/api/auth/sign-out', {}],
  ['POST', '/api/auth/change-password', { currentPassword: 'x', newPassword: 'forged passphrase!' }],
];

describe('cross-site request forgery (CSRF-1, S-23)', () => {
  it('refuses cross-site state changes that carry the session cookie, and changes nothing', async () => {
    const seller = await t.signUp({ name: 'Original' });
    const cookie = seller.cookieHeader();
    const attacks: Array<Record<string, string>> = [
      { cookie, 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' },
      { cookie, 'sec-fetch-site': '', origin: 'https://evil.example' },
      { cookie, 'sec-fetch-site': '', origin: 'null' },
      { cookie, 'sec-fetch-site': '', origin: '', 'content-type': 'application/x-www-form-urlencoded' },
    ];
    for (const [method, path, body] of STATE_CHANGING) {
      for (const headers of attacks) {
        const client = t.client();
        const response =
          headers['content-type'] === 'application/x-www-form-urlencoded'
            ? await fetch(new URL(path, t.baseUrl), { method, headers, body: 'name=Forged' })
            : await client.request(method, path, body, headers);
        expect(response.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(403);
      }
    }
    const me = (await seller.get('/api/me')).body;
    expect(me.name).toBe('Original');
    expect((await seller.get('/api/me')).status).toBe(200); // still signed in: sign-out was refused too
  });

  it('lets same-origin browsers and bearer-token clients through', async () => {
    const seller = await t.signUp();
    expect((await seller.patch('/api/me', { name: 'Same Origin' })).status).toBe(200);
    const login = await t.client().post('/api/auth/sign-in/email', { email: seller.email, password: seller.password });
    const api = t.client();
    api.bearer = login.headers.get('set-auth-token')!;
    const response = await api.request('PATCH', '/api/me', { name: 'Bearer' }, { origin: '', 'sec-fetch-site': '' });
    expect(response.status).toBe(200);
  });
});

describe('headers (HDR-1, HDR-2, S-24)', () => {
  it('sends the security headers on every kind of response, and no-store on the API', async () => {
    const seller = await t.signUp();
    const responses = [
      await seller.get('/api/me'),
      await t.client().get('/api/me'),
      await t.client().get('/api/nope'),
      await seller.patch('/api/me', { name: '' }),
      await t.client().get('/dashboard'),
      await t.client().get('/api/docs'),
    ];
    for (const response of responses) {
      const h = response.headers;
      // This server is reached over plain http with no PUBLIC_URL: no HSTS (see "HSTS only over https").
      expect(h.get('strict-transport-security')).toBeNull();
      expect(h.get('content-security-policy')).toContain("object-src 'none'");
      expect(h.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(h.get('x-frame-options')).toBe('DENY');
      expect(h.get('x-content-type-options')).toBe('nosniff');
      expect(h.get('referrer-policy')).toBe('no-referrer');
    }
    for (const response of responses.slice(0, 4)) expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('sends HSTS only over https: an https PUBLIC_URL, or a trusted proxy that says https; never over plain http', async () => {
    const crawl = async (app: TestApp, headers: Record<string, string> = {}) =>
      Promise.all(['/api/me', '/api/nope', '/dashboard', '/api/docs'].map(async (url) => (await app.client().get(url, headers)).headers));
    // A local install over http: none, whatever a client claims in X-Forwarded-Proto (no proxy is trusted).
    for (const h of await crawl(t, { 'x-forwarded-proto': 'https' })) expect(h.get('strict-transport-security')).toBeNull();

    // Behind a TLS-terminating proxy: PUBLIC_URL is https, and the one trusted proxy says how each request came.
    const proxied = await startTestApp({ PUBLIC_URL: 'https://print.example.com', TRUST_PROXY_HOPS: '1' });
    try {
      for (const h of [...(await crawl(proxied, { 'x-forwarded-proto': 'https' })), ...(await crawl(proxied))]) {
        expect(h.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
        expect(h.get('x-frame-options')).toBe('DENY');
      }
      // The trusted proxy says this one came over plain http.
      for (const h of await crawl(proxied, { 'x-forwarded-proto': 'http' })) expect(h.get('strict-transport-security')).toBeNull();
    } finally {
      await proxied.close();
    }
  });

  it('answers unknown API paths and malformed bodies with JSON errors', async () => {
    const missing = await t.client().get('/api/does-not-exist');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Not found' });
    const seller = await t.signUp();
    const malformed = await fetch(new URL('/api/me', t.baseUrl), {
      method: 'PATCH',
      headers: { cookie: seller.cookieHeader(), origin: t.baseUrl, 'content-type': 'application/json' },
      body: '{"name": ',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ error: expect.any(String) });
    const wrongType = await fetch(new URL('/api/contact', t.baseUrl), {
      method: 'POST',
      headers: { origin: t.baseUrl, 'content-type': 'text/xml' },
      body: '<x/>',
    });
    expect(wrongType.status).toBe(415);
  });
});

describe('brute force (AUTH-4, AUTH-5)', () => {
  it('stops evaluating passwords for an account after the failure limit, with Retry-After', async () => {
    const seller = await t.signUp();
    // From many addresses: one address counts at most ADDRESS_FAILURE_LIMIT times (sign-in-security.api.test.ts).
    for (let i = 0; i < LOGIN_FAILURE_LIMIT; i++) await t.context.loginThrottle.recordFailure(seller.email, `198.51.100.${i}`);
    const refused = await t.client().post('/api/auth/sign-in/email', { email: seller.email, password: seller.password });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body.error).toMatch(/Too many failed sign-in attempts/);
  });

  it('counts real failures and clears them on success', async () => {
    const seller = await t.signUp();
    for (let i = 0; i < 3; i++) {
      const wrong = await t.client().post('/api/auth/sign-in/email', { email: seller.email, password: 'wrong password guess' });
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual({ error: expect.any(String) });
    }
    const ok = await t.client().post('/api/auth/sign-in/email', { email: seller.email, password: seller.password });
    expect(ok.status).toBe(200);
    expect(await t.context.loginThrottle.retryAfterSeconds(seller.email)).toBe(0);
  });

  it('rate-limits sign-in per client address, which a spoofed X-Forwarded-For cannot reset', async () => {
    const limited = await startTestApp({ AUTH_RATE_LIMIT: 'true' });
    try {
      const seller = await limited.signUp();
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const response = await limited
          .client()
          .post('/api/auth/sign-in/email', { email: seller.email, password: 'wrong password guess' }, { 'x-forwarded-for': `203.0.113.${i}` });
        statuses.push(response.status);
      }
      expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
      expect(statuses[3]).toBe(429);
    } finally {
      await limited.close();
    }
  });
});
