import { z } from 'zod';

/**
 * Keyset (cursor) paging, shared by every list API and page. A page answers its items and the
 * cursor of the next page (null on the last), so reading page 1,000 costs what page 1 costs:
 * offset paging made the database walk every row before the page.
 * A cursor is opaque to clients: base64url text the server made from the last row's sort key.
 */
export const cursorSchema = z
  .string()
  .max(512)
  .regex(/^[A-Za-z0-9_-]+$/, 'This page link is not valid; start from the first page');

/** The query fields every list takes: `cursor` (absent for the first page) and `limit`. */
export const pageQueryFields = (defaultLimit: number, maxLimit = 100) => ({
  cursor: cursorSchema.optional(),
  limit: z.coerce.number().int().min(1).max(maxLimit).default(defaultLimit),
});

/** One page of a list. */
export const pageSchema = <Item extends z.ZodType>(item: Item) =>
  z.object({ items: z.array(item), nextCursor: z.string().nullable() });

export interface Page<Item> {
  items: Item[];
  nextCursor: string | null;
}
