import { describe, expect, it } from 'vitest';
import { createSecretBox, SecretBoxError } from './secret-box.ts';

const box = createSecretBox('a test app secret that is long enough to use');
const context = { table: 'shop_connection', rowId: 'row-1', ownerId: 'user-a', purpose: 'access_token' };

describe('the secret box (SEC-1, SEC-2)', () => {
  it('round-trips, and never shows the plaintext', () => {
    const sealed = box.seal('shpat_live_secret_token', context);
    expect(sealed).not.toContain('shpat');
    expect(box.open(sealed, context)).toBe('shpat_live_secret_token');
  });

  it('refuses a value moved to another row, user or purpose', () => {
    const sealed = box.seal('token', context);
    for (const other of [{ ...context, rowId: 'row-2' }, { ...context, ownerId: 'user-b' }, { ...context, purpose: 'refresh_token' }]) {
      expect(() => box.open(sealed, other)).toThrow(SecretBoxError);
    }
  });

  it('detects a single flipped bit', () => {
    const sealed = box.seal('token', context);
    const parts = sealed.split('.');
    const body = Buffer.from(parts[2]!, 'base64url');
    body[0] = body[0]! ^ 1;
    parts[2] = body.toString('base64url');
    expect(() => box.open(parts.join('.'), context)).toThrow(SecretBoxError);
  });

  it('uses a fresh nonce every time', () => {
    const nonces = new Set(Array.from({ length: 10_000 }, () => box.seal('same', context).split('.')[1]));
    expect(nonces.size).toBe(10_000);
  });

  it('cannot be opened with another app secret', () => {
    const sealed = box.seal('token', context);
    expect(() => createSecretBox('another secret entirely, also long enough').open(sealed, context)).toThrow(SecretBoxError);
  });
});
