import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { decodeCursor, encodeCursor, pageFrom } from './keyset-cursor.ts';

describe('keyset cursors', () => {
  it('read back the key they were made from', () => {
    const key = ['2026-11-25 04:35:42.123456+00', 'b5d6c1de-6f1e-4a7e-9c55-3f0c4a0f9e11'];
    expect(decodeCursor(encodeCursor(key), ['string', 'string'])).toEqual(key);
    expect(decodeCursor(encodeCursor([12.5, 'x']), ['number', 'string'])).toEqual([12.5, 'x']);
    expect(decodeCursor(undefined, ['string'])).toBeNull();
  });

  it('refuse a cursor of another shape as the client’s mistake (400)', () => {
    const refused = (cursor: string, shape: ('string' | 'number')[]) => {
      try {
        decodeCursor(cursor, shape);
      } catch (error) {
        return error instanceof AppError && error.status === 400;
      }
      return false;
    };
    expect(refused('not-json', ['string'])).toBe(true);
    expect(refused(encodeCursor(['a']), ['string', 'string'])).toBe(true);
    expect(refused(encodeCursor([1, 'a']), ['string', 'string'])).toBe(true);
    expect(refused(Buffer.from('{"a":1}').toString('base64url'), ['string'])).toBe(true);
    expect(refused(Buffer.from('[null]').toString('base64url'), ['number'])).toBe(true);
  });

  it('cut the extra row into the next cursor, and give none on the last page', () => {
    const rows = [{ id: 'c' }, { id: 'b' }, { id: 'a' }];
    const first = pageFrom(rows, 2, (row) => [row.id], (row) => row.id);
    expect(first.items).toEqual(['c', 'b']);
    expect(decodeCursor(first.nextCursor ?? undefined, ['string'])).toEqual(['b']);
    const last = pageFrom(rows.slice(2), 2, (row) => [row.id], (row) => row.id);
    expect(last).toEqual({ items: ['a'], nextCursor: null });
  });
});
