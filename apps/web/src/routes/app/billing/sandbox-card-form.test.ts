import { describe, expect, it } from 'vitest';
import { formatCardNumber, formatExpiry, parseCardDraft } from './sandbox-card-form.ts';

describe('the sandbox card form', () => {
  it('groups the card number in fours and keeps digits only', () => {
    expect(formatCardNumber('4242424242424242')).toBe('4242 4242 4242 4242');
    expect(formatCardNumber('4000-0025 0000x3155')).toBe('4000 0025 0000 3155');
    expect(formatCardNumber('4242')).toBe('4242');
    expect(formatCardNumber('12345678901234567890123')).toBe('1234 5678 9012 3456 789');
  });

  it('puts the slash in the expiry once the month is typed, and takes it out again on delete', () => {
    expect(formatExpiry('1', '')).toBe('1');
    expect(formatExpiry('12', '1')).toBe('12 / ');
    expect(formatExpiry('12 / 3', '12 / ')).toBe('12 / 3');
    expect(formatExpiry('12 /', '12 / ')).toBe('1');
    expect(formatExpiry('1234567', '')).toBe('12 / 34');
  });

  it('sends the digits, the month and the four-digit year', () => {
    expect(parseCardDraft({ number: '4242 4242 4242 4242', expiry: '04 / 31', cvc: '123' })).toEqual({
      ok: true,
      input: { cardNumber: '4242424242424242', expMonth: 4, expYear: 2031, cvc: '123' },
    });
    expect(parseCardDraft({ number: '4242424242424242', expiry: '4/2031', cvc: '1234' })).toMatchObject({
      ok: true,
      input: { expMonth: 4, expYear: 2031, cvc: '1234' },
    });
  });

  it('says what is missing under each field', () => {
    expect(parseCardDraft({ number: '4242', expiry: '13 / 30', cvc: '12' })).toEqual({
      ok: false,
      errors: {
        number: 'Enter the card number',
        expiry: 'Enter the expiry as MM / YY',
        cvc: 'Enter the 3 or 4 digit CVC',
      },
    });
    expect(parseCardDraft({ number: '4242 4242 4242 4242', expiry: '', cvc: '123' })).toEqual({
      ok: false,
      errors: { expiry: 'Enter the expiry as MM / YY' },
    });
  });
});
