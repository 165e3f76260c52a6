import { and, asc, count, desc, eq, gte, inArray, lt, lte, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { fulfillmentRecord, order, user } from '../../db/schema.ts';
import { microsOf } from '../../platform/time-id-keyset.ts';

const record = fulfillmentRecord;

export type FulfillmentItem = { sku: string; title: string; quantity: number };

/** A record as the history shows it: its columns and the seller's name. */
export interface FulfillmentRow {
  id: string;
  orderId: string | null;
  shipmentId: string | null;
  ownerId: string;
  sellerName: string;
  channel: string;
  orderNumber: string;
  buyerName: string;
  items: FulfillmentItem[];
  printCostCents: number;
  packagingCents: number;
  shippingCents: number;
  totalCents: number;
  currency: string;
  carrier: string;
  service: string;
  trackingNumber: string;
  trackingUrl: string;
  shippedAt: Date | null;
  deliveredAt: Date | null;
  createdAt: Date;
}

export type NewFulfillmentRecord = Omit<FulfillmentRow, 'id' | 'sellerName' | 'createdAt' | 'deliveredAt'>;

/** Which records: one seller's (or everyone's), created in a range, matching a search term. */
export interface FulfillmentFilter {
  /** null: every seller's. */
  ownerId: string | null;
  /** created_at on or after. */
  from: Date | null;
  /** created_at before (or at, when inclusive). */
  until: { at: Date; inclusive: boolean } | null;
  /** A substring of search_text (any case); '' searches nothing. */
  search: string;
}

export type Direction = 'asc' | 'desc';

/** How many of a list's first rows (in its order) a search walks before it asks the trigram index (see pageIds). */
const SEARCH_WINDOW = 4000;

/** What the searchTerm finds (fulfillment_record.search_text): lower-case, one field a line. */
export function searchTextOf(fields: { orderNumber: string; buyerName: string; skus: readonly string[]; trackingNumber: string }): string {
  return [fields.orderNumber, fields.buyerName, ...fields.skus, fields.trackingNumber]
    .filter((field) => field !== '')
    .join('\n')
    .toLowerCase();
}

const likePattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The fulfilment history's reads and the admins' manual records. Only this file touches fulfillment_record. */
export function createFulfillmentRepository(db: Database, options: { searchWindow?: number } = {}) {
  const searchWindow = options.searchWindow ?? SEARCH_WINDOW;
  const columns = {
    id: record.id,
    orderId: record.orderId,
    shipmentId: record.shipmentId,
    ownerId: record.ownerId,
    sellerName: sql<string>`coalesce(nullif(${user.businessName}, ''), ${user.email})`,
    channel: record.channel,
    orderNumber: record.orderNumber,
    buyerName: record.buyerName,
    items: record.items,
    printCostCents: record.printCostCents,
    packagingCents: record.packagingCents,
    shippingCents: record.shippingCents,
    totalCents: record.totalCents,
    currency: record.currency,
    carrier: record.carrier,
    service: record.service,
    trackingNumber: record.trackingNumber,
    trackingUrl: record.trackingUrl,
    shippedAt: record.shippedAt,
    deliveredAt: record.deliveredAt,
    createdAt: record.createdAt,
  };

  /** Every filter but the search: each has its index, (owner, created, id) or (created, id). */
  const scopeOf = (filter: FulfillmentFilter): SQL | undefined =>
    and(
      filter.ownerId === null ? undefined : eq(record.ownerId, filter.ownerId),
      filter.from ? gte(record.createdAt, filter.from) : undefined,
      filter.until ? (filter.until.inclusive ? lte : lt)(record.createdAt, filter.until.at) : undefined,
    );
  const matches = (searchText: AnyColumn | SQL.Aliased, search: string): SQL => sql`${searchText} ILIKE ${likePattern(search)}`;
  const whereOf = (filter: FulfillmentFilter): SQL | undefined =>
    and(scopeOf(filter), filter.search ? matches(record.searchText, filter.search) : undefined);
  /** (created_at, id) in the list's direction: the indexes' order, read forwards or backwards. */
  const orderOf = (direction: Direction, createdAt: AnyColumn | SQL.Aliased, id: AnyColumn | SQL.Aliased): SQL[] =>
    direction === 'desc' ? [desc(createdAt), desc(id)] : [asc(createdAt), asc(id)];

  /** The records with these ids, with their seller, in the list's order. */
  async function rowsOf(ids: readonly string[], direction: Direction): Promise<FulfillmentRow[]> {
    if (ids.length === 0) return [];
    return db
      .select(columns)
      .from(record)
      .innerJoin(user, eq(user.id, record.ownerId))
      .where(inArray(record.id, [...ids]))
      .orderBy(...orderOf(direction, record.createdAt, record.id));
  }

  /**
   * The ids of a searched page. A term that many records contain is found fastest by walking the
   * list's first records in order; a rare one by the trigram index. First the walk, bounded: when
   * the first SEARCH_WINDOW records hold the whole page, that is the page; otherwise the index.
   */
  async function searchedIds(filter: FulfillmentFilter, direction: Direction, offset: number, limit: number): Promise<string[]> {
    const scope = scopeOf(filter);
    if (offset + limit <= searchWindow) {
      const window = db
        .select({ id: record.id, createdAt: record.createdAt, searchText: record.searchText })
        .from(record)
        .where(scope)
        .orderBy(...orderOf(direction, record.createdAt, record.id))
        .limit(searchWindow)
        .as('first_records');
      const hits = await db
        .select({ id: window.id })
        .from(window)
        .where(matches(window.searchText, filter.search))
        .orderBy(...orderOf(direction, window.createdAt, window.id))
        .offset(offset)
        .limit(limit);
      if (hits.length === limit) return hits.map((hit) => hit.id);
    }
    // A rare term (or a page past the window): its matches from the trigram index, then the page of
    // them. OFFSET 0 keeps the planner from folding the page's order and limit into the match (it
    // would walk the created-at index instead whenever ANALYZE's sample makes the term look common).
    const matching = db
      .select({ id: record.id, createdAt: record.createdAt })
      .from(record)
      .where(and(scope, matches(record.searchText, filter.search)))
      .offset(0)
      .as('matching');
    const page = await db
      .select({ id: matching.id })
      .from(matching)
      .orderBy(...orderOf(direction, matching.createdAt, matching.id))
      .offset(offset)
      .limit(limit);
    return page.map((hit) => hit.id);
  }

  return {
    /**
     * `limit` records from `offset` in (created_at, id) order. Without a search the page's ids are
     * read from the index alone (a deep page skips index entries, not rows), then joined.
     */
    async page(filter: FulfillmentFilter, direction: Direction, offset: number, limit: number): Promise<FulfillmentRow[]> {
      if (filter.search) return rowsOf(await searchedIds(filter, direction, offset, limit), direction);
      const ids = db
        .select({ id: record.id })
        .from(record)
        .where(scopeOf(filter))
        .orderBy(...orderOf(direction, record.createdAt, record.id))
        .offset(offset)
        .limit(limit)
        .as('page_ids');
      return db
        .select(columns)
        .from(ids)
        .innerJoin(record, eq(record.id, ids.id))
        .innerJoin(user, eq(user.id, record.ownerId))
        .orderBy(...orderOf(direction, record.createdAt, record.id));
    },

    /** How many records match, counting no further than `cap` (a count of a million rows is a scan). */
    async countUpTo(filter: FulfillmentFilter, cap: number): Promise<number> {
      const matching = db.select({ one: sql`1` }).from(record).where(whereOf(filter)).limit(cap).as('matching');
      const [row] = await db.select({ n: count() }).from(matching);
      return row?.n ?? 0;
    },

    /** Shipments and spend per calendar month (UTC), oldest first. */
    async monthly(filter: FulfillmentFilter): Promise<{ month: string; shipments: number; spendCents: number }[]> {
      // The format is SQL text, not a parameter, so GROUP BY and SELECT are the same expression.
      const month = sql<string>`to_char(${record.createdAt} at time zone 'UTC', 'YYYY-MM')`;
      const rows = await db
        .select({ month, shipments: count(), spendCents: sql<string>`coalesce(sum(${record.totalCents}), 0)::text` })
        .from(record)
        .where(whereOf(filter))
        .groupBy(month)
        .orderBy(month);
      return rows.map((row) => ({ month: row.month, shipments: row.shipments, spendCents: Number(row.spendCents) }));
    },

    /**
     * Every matching record in order, `size` at a time (keyset on created_at's microseconds and id,
     * so each batch costs what the first does). The next batch is read while the caller handles
     * this one: at most two batches are held at once.
     */
    async *batches(filter: FulfillmentFilter, direction: Direction, size: number): AsyncGenerator<FulfillmentRow[]> {
      const where = whereOf(filter);
      type Batch = (FulfillmentRow & { micros: string })[];
      type Read = Promise<{ value: Batch } | { error: unknown }>;
      const read = (after: { micros: string; id: string } | null): Read => {
        const key = after && sql`timestamptz 'epoch' + ${after.micros}::float8 * interval '1 microsecond'`;
        const past = after && (direction === 'desc' ? sql`(${record.createdAt}, ${record.id}) < (${key}, ${after.id}::uuid)` : sql`(${record.createdAt}, ${record.id}) > (${key}, ${after.id}::uuid)`);
        const rows = db
          .select({ ...columns, micros: microsOf(record.createdAt) })
          .from(record)
          .innerJoin(user, eq(user.id, record.ownerId))
          .where(and(where, past ?? undefined))
          .orderBy(...orderOf(direction, record.createdAt, record.id))
          .limit(size);
        // Settled into a value at once: a read failing while the caller is still busy (or gone) must
        // not be an unhandled rejection; it is thrown where it is awaited.
        return rows.then((value) => ({ value }), (error: unknown) => ({ error }));
      };
      let next: Read | null = read(null);
      while (next) {
        const settled: { value: Batch } | { error: unknown } = await next;
        if ('error' in settled) throw settled.error;
        const rows: Batch = settled.value;
        const last = rows.at(-1);
        next = last && rows.length === size ? read({ micros: last.micros, id: last.id }) : null;
        if (rows.length > 0) yield rows;
      }
    },

    async find(id: string): Promise<FulfillmentRow | undefined> {
      const [row] = await rowsOf([id], 'desc');
      return row;
    },

    async insert(values: NewFulfillmentRecord, searchText: string): Promise<string> {
      const [row] = await db
        .insert(record)
        .values({ ...values, searchText })
        .returning({ id: record.id });
      return row!.id;
    },

    /** Whether this user exists (an admin records for a seller by id). */
    async userExists(userId: string): Promise<boolean> {
      const [row] = await db.select({ id: user.id }).from(user).where(eq(user.id, userId));
      return row !== undefined;
    },

    /** The owner of an order, or undefined when there is no such order. */
    async orderOwner(orderId: string): Promise<string | undefined> {
      const [row] = await db.select({ ownerId: order.ownerId }).from(order).where(eq(order.id, orderId));
      return row?.ownerId;
    },
  };
}

export type FulfillmentRepository = ReturnType<typeof createFulfillmentRepository>;
