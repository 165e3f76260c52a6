import { sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { AppError } from '../errors.ts';

/**
 * The sort key of a list's last row: the ordered columns' values, the unique id last. Key a
 * timestamp by its full precision (PostgreSQL keeps microseconds, a JS Date milliseconds: select
 * the column as text for the key), or rows sharing a millisecond are skipped or repeated.
 */
export type CursorKey = readonly (string | number)[];

const INVALID = 'cursor: this page link is not valid; start from the first page';

/** Makes the opaque cursor of the page after the row whose sort key this is. */
export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/**
 * Reads a cursor back into its sort key, checking it has the shape this list sorts by
 * ('string' or 'number' per column); anything else is the client's mistake (400), never a 500.
 */
export function decodeCursor(cursor: string | undefined, shape: readonly ('string' | 'number')[]): CursorKey | null {
  if (cursor === undefined) return null;
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new AppError('bad-request', INVALID);
  }
  const valid =
    Array.isArray(key) &&
    key.length === shape.length &&
    key.every((value, index) => typeof value === shape[index] && (typeof value !== 'number' || Number.isFinite(value)));
  if (!valid) throw new AppError('bad-request', INVALID);
  return key as CursorKey;
}

/**
 * The condition "after this key" for a list sorted by these columns, all descending or all
 * ascending: one row-value comparison, which PostgreSQL answers from a composite index on the
 * same columns in the same order.
 */
export function afterKey(columns: readonly (AnyColumn | SQL)[], key: CursorKey, direction: 'desc' | 'asc'): SQL {
  const left = sql.join(columns.map((column) => sql`${column}`), sql`, `);
  const right = sql.join(key.map((value) => sql`${value}`), sql`, `);
  return direction === 'desc' ? sql`(${left}) < (${right})` : sql`(${left}) > (${right})`;
}

/**
 * Cuts a result fetched with `limit + 1` rows into the page and the next cursor: the extra row
 * only says that there is a next page.
 */
export function pageFrom<Row, Item>(
  rows: readonly Row[],
  limit: number,
  keyOf: (row: Row) => CursorKey,
  toItem: (row: Row) => Item,
): { items: Item[]; nextCursor: string | null } {
  const pageRows = rows.slice(0, limit);
  const last = pageRows.at(-1);
  return {
    items: pageRows.map(toItem),
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor(keyOf(last)) : null,
  };
}
