import { sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { AppError } from '../errors.ts';
import { decodeCursor, type CursorKey } from './keyset-cursor.ts';

/**
 * Keyset paging for the lists sorted newest first: (created_at DESC, id DESC). The time is keyed
 * by its exact microseconds since 1970 (PostgreSQL keeps microseconds; a JS Date only
 * milliseconds), as a number, so rows sharing a millisecond are neither skipped nor repeated.
 * The cursor's values are checked before they reach SQL: a made-up cursor is a 400, never a
 * database error (500).
 */
export interface TimeIdKey {
  micros: number;
  id: string;
}

const INVALID = 'cursor: this page link is not valid; start from the first page';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Select this with the row: the column's microseconds since 1970, exact, as text (a bigint). */
export const microsOf = (column: AnyColumn): SQL<string> =>
  sql<string>`((extract(epoch from ${column}) * 1000000)::bigint)::text`;

/** The cursor key of a row whose time was selected with `microsOf`. */
export const timeIdKey = (micros: string, id: string): CursorKey => [Number(micros), id];

/** Reads a (time, id) cursor; `idKind` 'uuid' also checks the id is one. */
export function decodeTimeIdCursor(cursor: string | undefined, idKind: 'uuid' | 'text'): TimeIdKey | null {
  const key = decodeCursor(cursor, ['number', 'string']);
  if (key === null) return null;
  const [micros, id] = key as [number, string];
  if (!Number.isSafeInteger(micros)) throw new AppError('bad-request', INVALID);
  if (idKind === 'uuid') assertCursorUuid(id);
  return { micros, id };
}

/**
 * "After this key" in (time DESC, id DESC) order: one row-value comparison, answered from an
 * index on (…, time, id) read backwards.
 */
export function beforeTimeId(timeColumn: AnyColumn, idColumn: AnyColumn, key: TimeIdKey): SQL {
  return sql`(${timeColumn}, ${idColumn}) < (timestamptz 'epoch' + ${key.micros}::float8 * interval '1 microsecond', ${key.id})`;
}

/** Checks a cursor's id is a uuid before it is compared with a uuid column (else a 500). */
export function assertCursorUuid(id: string): void {
  if (!UUID.test(id)) throw new AppError('bad-request', INVALID);
}
