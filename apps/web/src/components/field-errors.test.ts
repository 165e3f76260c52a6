import { describe, expect, it } from 'vitest';
import { testimonialSchema, updateAccountSchema } from '@layerline/contracts';
import { firstErrorPerField } from './field-errors.ts';

describe('firstErrorPerField', () => {
  it('keeps the first problem of each listed field and ignores the rest', () => {
    const parsed = testimonialSchema.safeParse({ quote: 'short', author: '', shopName: '', shopUrl: 'http://x' });
    expect(parsed.success).toBe(false);
    const errors = firstErrorPerField(parsed.error!, ['quote', 'shopUrl']);
    expect(errors).toEqual({ quote: 'Write at least 10 characters', shopUrl: 'Enter the shop’s https:// address' });
  });

  it('names fields one level down for a form that edits a nested object', () => {
    const parsed = updateAccountSchema.safeParse({ returnAddress: { name: 'x'.repeat(121), city: 'Springfield', country: 'usa' } });
    expect(parsed.success).toBe(false);
    const errors = firstErrorPerField(parsed.error!, ['name', 'city', 'country'], 1);
    expect(errors).toEqual({ name: expect.any(String), country: 'Country must be a two-letter ISO code' });
  });
});
