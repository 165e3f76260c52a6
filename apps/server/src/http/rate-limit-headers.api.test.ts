import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uniqueEmail, type TestApp } from '../../test/test-app.ts';

/**
 * Every 429 says when to come back in the standard `Retry-After` header (RFC 9110), whichever
 * limiter answered: the per-address limit of every API route, and better-auth's per-address limits
 * on sign-up, sign-in and sign-in links (which name it `X-Retry-After`). The others are tested where
 * they live: the order API's per-key limit in order-api.api.test.ts, the per-account sign-in
 * throttle in accounts/sign-in-security.api.test.ts and security.api.test.ts, and a seller's full
 * model queue in designs/model-work.api.test.ts.
 */

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ AUTH_RATE_LIMIT: 'true' }, { apiPerMinute: 20, contactPer10Minutes: 10_000 });
});
afterAll(async () => {
  await t?.close();
});

describe('Retry-After on every 429', () => {
  it('from better-auth’s sign-up limit (5 a minute per address): Retry-After, not X-Retry-After', async () => {
    const client = t.client();
    let limited: Awaited<ReturnType<typeof client.post>> | undefined;
    for (let i = 0; i < 8 && !limited; i++) {
      const response = await client.post('/api/auth/sign-up/email', { email: uniqueEmail('limit'), password: 'a sturdy test passphrase', name: 'Limit' });
      if (response.status === 429) limited = response;
    }
    expect(limited, 'the sign-up limit never answered 429').toBeDefined();
    const seconds = Number(limited!.headers.get('retry-after'));
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(limited!.headers.get('x-retry-after')).toBeNull();
  });

  it('from better-auth’s sign-in and sign-in-link limits (3 per address): Retry-After, not X-Retry-After', async () => {
    const limits: Array<[string, () => unknown]> = [
      ['/api/auth/sign-in/email', () => ({ email: uniqueEmail('nobody'), password: 'not the right passphrase' })],
      ['/api/auth/sign-in/email-link', () => ({ email: uniqueEmail('nobody') })],
    ];
    for (const [path, body] of limits) {
      const client = t.client();
      let limited: Awaited<ReturnType<typeof client.post>> | undefined;
      for (let i = 0; i < 6 && !limited; i++) {
        const response = await client.post(path, body());
        if (response.status === 429) limited = response;
      }
      expect(limited, `${path}: the limit never answered 429`).toBeDefined();
      const seconds = Number(limited!.headers.get('retry-after'));
      expect(seconds, path).toBeGreaterThan(0);
      expect(seconds, path).toBeLessThanOrEqual(60);
      expect(limited!.headers.get('x-retry-after'), path).toBeNull();
    }
  });

  it('from the per-address limit of every API route: Retry-After, not X-Retry-After', async () => {
    let limited: Response | undefined;
    for (let i = 0; i < 30 && !limited; i++) {
      const response = await fetch(new URL('/api/health', t.baseUrl));
      if (response.status === 429) limited = response;
    }
    expect(limited, 'the per-address limit never answered 429').toBeDefined();
    expect(await limited!.json()).toEqual({ error: 'Too many requests. Please slow down and try again shortly.' });
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited!.headers.get('x-retry-after')).toBeNull();
  });
});
