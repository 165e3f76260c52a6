import { describe, expect, it } from 'vitest';
import { REDACTED, redactPayload } from './jobs-admin-service.ts';

describe('redactPayload', () => {
  it('hides every value under a secret-looking key, at any depth, and keeps the rest', () => {
    const payload = {
      shopId: 'shop_1',
      accessToken: 'tok',
      nested: { refresh_token: 'r', apiKey: 'k', list: [{ clientSecret: 's', sku: 'CUBE' }], Authorization: 'Bearer x' },
      count: 3,
    };
    expect(redactPayload(payload)).toEqual({
      shopId: 'shop_1',
      accessToken: REDACTED,
      nested: { refresh_token: REDACTED, apiKey: REDACTED, list: [{ clientSecret: REDACTED, sku: 'CUBE' }], Authorization: REDACTED },
      count: 3,
    });
    expect(payload.accessToken).toBe('tok');
  });

  it('passes plain values through', () => {
    expect(redactPayload(null)).toBeNull();
    expect(redactPayload('x')).toBe('x');
    expect(redactPayload([1, { password: 'p' }])).toEqual([1, { password: REDACTED }]);
  });
});
