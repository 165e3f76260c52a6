import { describe, expect, it } from 'vitest';
import { affiliateCodeProblem, updateAffiliateCodeInputSchema } from './affiliates.ts';

describe('affiliate codes', () => {
  it.each(['abc', 'Ada-Prints', 'a1-b2-c3', 'x'.repeat(32), 'ADMIN2'])('accepts %s', (code) => {
    expect(affiliateCodeProblem(code)).toBeNull();
  });

  it.each([
    ['ab', '3 to 32 characters'],
    ['x'.repeat(33), '3 to 32 characters'],
    ['two words', 'letters, digits and single dashes'],
    ['-lead', 'letters, digits and single dashes'],
    ['trail-', 'letters, digits and single dashes'],
    ['dou--ble', 'letters, digits and single dashes'],
    ['under_score', 'letters, digits and single dashes'],
    ['café', 'letters, digits and single dashes'],
    ['Stripe', 'reserved'],
    ['LAYERLINE', 'reserved'],
  ])('refuses %s', (code, words) => {
    expect(affiliateCodeProblem(code)).toContain(words);
  });

  it('the request schema trims, checks the rule and refuses unknown fields', () => {
    expect(updateAffiliateCodeInputSchema.parse({ affiliateCode: '  my-code ' })).toEqual({
      affiliateCode: 'my-code',
    });
    expect(updateAffiliateCodeInputSchema.safeParse({ affiliateCode: 'no' }).error?.issues[0]?.message).toBe(
      'A code is 3 to 32 characters long',
    );
    expect(
      updateAffiliateCodeInputSchema.safeParse({ affiliateCode: 'fine-code', userId: 'x' }).success,
    ).toBe(false);
  });
});
