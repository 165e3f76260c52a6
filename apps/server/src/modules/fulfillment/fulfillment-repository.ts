import { and, asc, count, desc, eq, gte, inArray, lt, lte, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { charge, fulfillmentRecord, order, user } from '../../db/schema.ts';
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
  /** The order's charges less refunds (payments); null when it was never charged. */
  chargedCents: number | null;
}

export type NewFulfillmentRecord = Omit<FulfillmentRow, 'id' | 'sellerName' | 'createdAt' | 'deliveredAt' | 'chargedCents'>;

/** A record as the CSV export writes it: its times as ISO text (UTC, milliseconds), no ids. */
export interface ExportRow extends Omit<FulfillmentRow, 'id' | 'orderId' | 'shipmentId' | 'ownerId' | 'createdAt' | 'shippedAt' | 'deliveredAt'> {
  createdAt: string;
  shippedAt: string | null;
  deliveredAt: string | null;
}
/** With the keyset of the next batch: created_at's microseconds (text) and the id. */
type KeyedExportRow = ExportRow & { micros: string; id: string };

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

/** How many of a list's first records (in its order) a search for a common term walks for its page (see searchedPage). */
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
    // What the seller paid for the order (issue 13): its charges less their refunds; null when never charged.
    chargedCents: sql<number | null>`(SELECT sum(${charge.amountCents} - ${charge.refundedCents})::int FROM ${charge} WHERE ${charge.orderId} = ${record.orderId} AND ${charge.status} IN ('succeeded', 'refunded'))`,
  };

  /** Every filter but the search: each has its index, (owner, created, id) or (created, id). */
  const scopeOf = (filter: FulfillmentFilter): SQL | undefined =>
    and(
      filter.ownerId === null ? undefined : eq(record.ownerId, filter.ownerId),
      filter.from ? gte(record.createdAt, filter.from) : undefined,
      filter.until ? (filter.until.inclusive ? lte : lt)(record.createdAt, filter.until.at) : undefined,
    );
  // search_text is lower-case already: LIKE against the lower-cased term (ILIKE folds every row's text again, 2.5 times slower).
  const matches = (searchText: AnyColumn | SQL.Aliased, search: string): SQL => sql`${searchText} LIKE lower(${likePattern(search)})`;
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
   * A page of the search's matches by the trigram index, and how many match: all of them sorted,
   * or (with `bound`) the first `bound` found, in no order, when there are that many (then only the
   * count is of use). The matches are materialised, so the planner cannot fold the page's order
   * and limit into the match: it would walk the created-at index instead (a buyer's name, 277
   * records: 236 ms instead of 12).
   */
  async function indexedPage(filter: FulfillmentFilter, direction: Direction, offset: number, limit: number, bound: number | null) {
    const result = await db.execute(sql`
      WITH matching AS MATERIALIZED (
        SELECT ${record.id} AS id, ${record.createdAt} AS created_at FROM ${record}
        WHERE ${whereOf(filter)}
        ${bound === null ? sql`` : sql`LIMIT ${bound}`}
      )
      SELECT c.matched, p.id
      FROM (SELECT count(*)::int AS matched FROM matching) c
      LEFT JOIN LATERAL (
        SELECT id FROM matching ORDER BY created_at ${sql.raw(direction)}, id ${sql.raw(direction)} OFFSET ${offset} LIMIT ${limit}
      ) p ON true`);
    const rows = (result as unknown as { rows: { matched: number; id: string | null }[] }).rows;
    return { ids: rows.flatMap((row) => (row.id === null ? [] : [row.id])), matched: Number(rows[0]?.matched ?? 0) };
  }

  /**
   * A searched page's ids and how many records match (counted up to `countCap`). A rare term is
   * found fastest by the trigram index: its matches are few, sorted and counted in one statement.
   * A term that more than `countCap` records contain is found fastest by walking the list's first
   * records in order (bounded: the first SEARCH_WINDOW of them); only when they do not hold the
   * whole page are all its matches read from the index and sorted.
   */
  async function searchedPage(filter: FulfillmentFilter, direction: Direction, offset: number, limit: number, countCap: number): Promise<{ ids: string[]; matched: number }> {
    const first = await indexedPage(filter, direction, offset, limit, countCap);
    if (first.matched < countCap) return first;
    if (offset + limit <= searchWindow) {
      const window = db
        .select({ id: record.id, createdAt: record.createdAt, searchText: record.searchText })
        .from(record)
        .where(scopeOf(filter))
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
      if (hits.length === limit) return { ids: hits.map((hit) => hit.id), matched: countCap };
    }
    const all = await indexedPage(filter, direction, offset, limit, null);
    return { ids: all.ids, matched: Math.min(all.matched, countCap) };
  }

  return {
    /**
     * `limit` records from `offset` in (created_at, id) order. A search also answers how many
     * records match, counted up to `countCap` (its index reads them anyway); a list without one
     * answers null (countUpTo counts it from an index alone). Without a search the page's ids are
     * read from the index alone (a deep page skips index entries, not rows), then joined.
     */
    async page(filter: FulfillmentFilter, direction: Direction, offset: number, limit: number, countCap: number): Promise<{ rows: FulfillmentRow[]; matched: number | null }> {
      if (filter.search) {
        const { ids, matched } = await searchedPage(filter, direction, offset, limit, countCap);
        return { rows: await rowsOf(ids, direction), matched };
      }
      const ids = db
        .select({ id: record.id })
        .from(record)
        .where(scopeOf(filter))
        .orderBy(...orderOf(direction, record.createdAt, record.id))
        .offset(offset)
        .limit(limit)
        .as('page_ids');
      const rows = await db
        .select(columns)
        .from(ids)
        .innerJoin(record, eq(record.id, ids.id))
        .innerJoin(user, eq(user.id, record.ownerId))
        .orderBy(...orderOf(direction, record.createdAt, record.id));
      return { rows, matched: null };
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
     * so each batch costs what the first does), as the export writes them: times already ISO text
     * and no object mapping, since every row of a million is written once and thrown away (a Date
     * per time and drizzle's mapping were half the export's time). The next batch is read while the
     * caller writes this one: at most two batches are held at once.
     */
    async *exportBatches(filter: FulfillmentFilter, direction: Direction, size: number): AsyncGenerator<ExportRow[]> {
      const where = whereOf(filter);
      const iso = (column: AnyColumn) => sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
      const read = (after: { micros: string; id: string } | null): Promise<{ rows: KeyedExportRow[] } | { error: unknown }> => {
        const key = after && sql`timestamptz 'epoch' + ${after.micros}::float8 * interval '1 microsecond'`;
        const past = after && sql`(${record.createdAt}, ${record.id}) ${sql.raw(direction === 'desc' ? '<' : '>')} (${key}, ${after.id}::uuid)`;
        const rows = db.execute(sql`
          SELECT ${iso(record.createdAt)} AS "createdAt", coalesce(nullif(${user.businessName}, ''), ${user.email}) AS "sellerName",
                 ${record.channel} AS channel, ${record.orderNumber} AS "orderNumber", ${record.buyerName} AS "buyerName", ${record.items} AS items,
                 ${record.printCostCents} AS "printCostCents", ${record.packagingCents} AS "packagingCents", ${record.shippingCents} AS "shippingCents",
                 ${record.totalCents} AS "totalCents", ${record.currency} AS currency, ${record.carrier} AS carrier, ${record.service} AS service,
                 ${record.trackingNumber} AS "trackingNumber", ${record.trackingUrl} AS "trackingUrl",
                 ${iso(record.shippedAt)} AS "shippedAt", ${iso(record.deliveredAt)} AS "deliveredAt",
                 ${microsOf(record.createdAt)} AS micros, ${record.id}::text AS id
          FROM ${record} JOIN ${user} ON ${user.id} = ${record.ownerId}
          WHERE ${and(where, past ?? undefined) ?? sql`true`}
          ORDER BY ${sql.join(orderOf(direction, record.createdAt, record.id), sql`, `)}
          LIMIT ${size}`);
        // Settled into a value at once: a read failing while the caller is still busy (or gone) must
        // not be an unhandled rejection; it is thrown where it is awaited.
        return rows.then((result) => ({ rows: (result as unknown as { rows: KeyedExportRow[] }).rows }), (error: unknown) => ({ error }));
      };
      let next: ReturnType<typeof read> | null = read(null);
      while (next) {
        const settled: { rows: KeyedExportRow[] } | { error: unknown } = await next;
        if ('error' in settled) throw settled.error;
        const last = settled.rows.at(-1);
        next = last && settled.rows.length === size ? read({ micros: last.micros, id: last.id }) : null;
        if (settled.rows.length > 0) yield settled.rows;
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
