import { describe, expect, it } from 'vitest';
import crypto from 'node:crypto';
import { secretStrength } from './secret-strength.ts';

describe('secretStrength', () => {
  it('prices random characters by the classes used: 4 bits a hex digit, about 6 for base64url', () => {
    expect(secretStrength('9f').bits).toBe(8);
    const base64url = secretStrength(crypto.randomBytes(48).toString('base64url'));
    expect(base64url.bits).toBeGreaterThan(300);
  });

  it('finds the pieces a guesser tries first, and prices each far below its length', () => {
    const cases: Array<[string, string, number]> = [
      ['password', 'word', 4],
      ['qwertyuiopzxcvbnm', 'word', 40], // both rows are themselves common passwords
      ['zxcvfr', 'keyboard walk', 25],
      ['13579', 'sequence', 10],
      ['abcabcabcabc', 'repetition', 16],
    ];
    for (const [secret, kind, maxBits] of cases) {
      const { bits, pieces } = secretStrength(secret);
      expect(pieces.map((piece) => piece.kind), secret).toContain(kind);
      expect(bits, secret).toBeLessThan(maxBits);
    }
  });

  it('gives capitals a bit, not a free pass', () => {
    expect(secretStrength('Password').bits - secretStrength('password').bits).toBe(1);
    expect(secretStrength('PaSsWoRd').bits).toBeGreaterThan(secretStrength('Password').bits);
  });

  it('never prices a secret above its characters guessed one by one', () => {
    for (let i = 0; i < 200; i++) {
      const secret = crypto.randomBytes(16).toString('hex');
      expect(secretStrength(secret).bits).toBeLessThanOrEqual(128);
    }
  });

  it('stays quick on long, repetitive input', () => {
    const started = performance.now();
    secretStrength('ab'.repeat(5000));
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
