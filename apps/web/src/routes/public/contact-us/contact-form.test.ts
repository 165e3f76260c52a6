import { describe, expect, it } from 'vitest';
import { EMPTY_CONTACT_MESSAGE, validateContactMessage } from './contact-form.ts';

describe('validateContactMessage', () => {
  it('accepts a complete message and trims it', () => {
    const result = validateContactMessage({
      name: '  Ada ',
      email: 'ada@example.com',
      subject: ' Quote ',
      message: ' A question about PETG parts. ',
    });
    expect(result).toEqual({
      ok: true,
      message: {
        name: 'Ada',
        email: 'ada@example.com',
        subject: 'Quote',
        message: 'A question about PETG parts.',
      },
    });
  });

  it('names the problem of each field in words a visitor understands', () => {
    const result = validateContactMessage(EMPTY_CONTACT_MESSAGE);
    expect(result).toEqual({
      ok: false,
      errors: {
        name: 'Please tell us your name',
        email: 'Please enter a valid email address',
        subject: 'Please add a subject',
        message: 'Please write at least 10 characters',
      },
    });
  });

  it('rejects an address that is not an email', () => {
    const result = validateContactMessage({
      name: 'Ada',
      email: 'not-an-email',
      subject: 'Hi',
      message: 'Long enough message',
    });
    expect(result).toEqual({ ok: false, errors: { email: 'Please enter a valid email address' } });
  });
});
