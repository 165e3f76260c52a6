import type {
  CreateFulfillmentRecordInput,
  FulfillmentHistoryPage,
  FulfillmentHistoryQuery,
  FulfillmentMonthly,
  FulfillmentRecord,
} from '@layerline/contracts';
import { AppError, forbidden, notFound } from '../../errors.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import { CSV_BOM, csvHeader, csvLine } from './fulfillment-csv.ts';
import { searchTextOf, type Direction, type FulfillmentFilter, type FulfillmentRepository, type FulfillmentRow } from './fulfillment-repository.ts';

/** Who is asking, as the routes resolve it. */
export interface FulfillmentViewer {
  readonly id: string;
  readonly isAdmin: boolean;
  readonly requestId?: string;
}

/** The list's filters without its paging (the chart and the CSV export take these). */
export type FulfillmentFilters = Pick<FulfillmentHistoryQuery, 'startDate' | 'endDate' | 'searchTerm' | 'sellerId'>;

/**
 * Totals are counted up to here: past it a count costs a scan of every match, for a number nobody
 * pages through. A search's matches are each checked against the record's text (the trigram index
 * only narrows them down), so its count stops sooner: 10,000 checks of a first name took 40–60 ms.
 */
export const TOTAL_CAP = 10_000;
export const SEARCH_TOTAL_CAP = 1_000;
/**
 * Records read per statement while exporting: enough to amortise each statement's planning and
 * round trip (5,000 wrote 5–10 % more rows a second than 2,000), few enough that the two batches
 * held at once stay a few MB.
 */
const EXPORT_BATCH = 5_000;
/**
 * Text written to the socket at a time. Small pieces die young (a scavenge frees them); a batch's
 * whole text (1.6 MB) went to V8's large-object space, freed only by full collections, and the
 * process grew by 100 MB over a million-row export before one came.
 */
const CHUNK_CHARS = 64 * 1024;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 24 * 3600 * 1000;

/**
 * The created-at range of startDate and endDate (ISO, checked by the contract): a day means the
 * whole day (UTC), so an endDate day includes everything created on it.
 */
function rangeOf(startDate: string | undefined, endDate: string | undefined): Pick<FulfillmentFilter, 'from' | 'until'> {
  const from = startDate === undefined ? null : new Date(DAY.test(startDate) ? `${startDate}T00:00:00Z` : startDate);
  const until =
    endDate === undefined
      ? null
      : DAY.test(endDate)
        ? { at: new Date(Date.parse(`${endDate}T00:00:00Z`) + DAY_MS), inclusive: false }
        : { at: new Date(endDate), inclusive: true };
  if (from && until && (until.inclusive ? from > until.at : from >= until.at)) {
    throw new AppError('bad-request', 'startDate must be on or before endDate');
  }
  return { from, until };
}

/** Whose records a viewer reads: admins anyone's (all, or the sellerId's); sellers only their own. */
function ownerFor(viewer: FulfillmentViewer, sellerId: string | undefined): string | null {
  if (viewer.isAdmin) return sellerId ?? null;
  if (sellerId !== undefined && sellerId !== viewer.id) throw forbidden("Only admins may see another seller's fulfilment history");
  return viewer.id;
}

const filterOf = (ownerId: string | null, filters: FulfillmentFilters): FulfillmentFilter => ({
  ownerId,
  ...rangeOf(filters.startDate, filters.endDate),
  search: filters.searchTerm?.trim() ?? '',
});

export function toFulfillmentRecord(row: FulfillmentRow): FulfillmentRecord {
  return {
    ...row,
    labelUrl: row.shipmentId ? `/api/shipping/shipments/${row.shipmentId}/label` : null,
    shippedAt: row.shippedAt?.toISOString() ?? null,
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The fulfilment history (the spec's getFulfillmentHistory, getUserFulfillmentHistory, createFulfillmentHistoryRecord). */
export function createFulfillmentService(deps: { repository: FulfillmentRepository; audit: AuditRepository }) {
  const { repository, audit } = deps;

  /** One page (page-based, as the spec asks), with the total counted up to TOTAL_CAP (SEARCH_TOTAL_CAP for a search). */
  async function pageOf(ownerId: string | null, query: FulfillmentHistoryQuery): Promise<FulfillmentHistoryPage> {
    const filter = filterOf(ownerId, query);
    const offset = (query.page - 1) * query.limit;
    // One more than the page: whether another page follows.
    const cap = filter.search ? SEARCH_TOTAL_CAP : TOTAL_CAP;
    const { rows, matched } = await repository.page(filter, query.orderDirection, offset, query.limit + 1, cap + 1);
    const hasMore = rows.length > query.limit;
    // A search counts its matches on the way; the last page of a list (not past it) tells its total.
    const known = matched ?? (!hasMore && (rows.length > 0 || offset === 0) ? offset + rows.length : null);
    const counted = known ?? (await repository.countUpTo(filter, cap + 1));
    return {
      items: rows.slice(0, query.limit).map(toFulfillmentRecord),
      page: query.page,
      limit: query.limit,
      total: Math.min(counted, cap),
      totalCapped: counted > cap,
      hasMore,
    };
  }

  return {
    /** getFulfillmentHistory: sellers their own, admins everyone's (or one seller's with sellerId). */
    history: (viewer: FulfillmentViewer, query: FulfillmentHistoryQuery) => pageOf(ownerFor(viewer, query.sellerId), query),

    /** getUserFulfillmentHistory: always the viewer's own, admins included. */
    userHistory: (viewer: FulfillmentViewer, query: Omit<FulfillmentHistoryQuery, 'sellerId'>) => pageOf(viewer.id, query),

    /** Shipments and spend per month of what the list shows (the chart). */
    async monthly(viewer: FulfillmentViewer, filters: FulfillmentFilters): Promise<FulfillmentMonthly> {
      return { months: await repository.monthly(filterOf(ownerFor(viewer, filters.sellerId), filters)) };
    },

    /**
     * The whole filtered list as CSV lines, read in batches as the reader takes them (nothing is
     * held but the batch being written). The filters are checked here, before the first line, so a
     * bad request is a 400 and not a broken download.
     */
    exportCsv(viewer: FulfillmentViewer, filters: FulfillmentFilters & { orderDirection: Direction }): { filename: string; chunks: AsyncIterable<string> } {
      const filter = filterOf(ownerFor(viewer, filters.sellerId), filters);
      async function* chunks(): AsyncGenerator<string> {
        yield CSV_BOM + csvHeader();
        for await (const rows of repository.exportBatches(filter, filters.orderDirection, EXPORT_BATCH)) {
          let text = '';
          for (const row of rows) {
            text += csvLine(row);
            if (text.length >= CHUNK_CHARS) {
              yield text;
              text = '';
            }
          }
          if (text) yield text;
        }
      }
      return { filename: `fulfillment-history-${new Date().toISOString().slice(0, 10)}.csv`, chunks: chunks() };
    },

    /** createFulfillmentHistoryRecord (admins): a shipment made outside the farm's labels, for a seller; audited. */
    async create(admin: FulfillmentViewer, input: CreateFulfillmentRecordInput): Promise<FulfillmentRecord> {
      if (!admin.isAdmin) throw forbidden('Only admins may record a shipment');
      if (!(await repository.userExists(input.targetUserId))) throw notFound('Seller');
      if (input.orderId !== undefined && (await repository.orderOwner(input.orderId)) !== input.targetUserId) {
        throw new AppError('bad-request', 'That order is not one of this seller’s orders');
      }
      const { targetUserId, orderId, shippedAt, ...fields } = input;
      const totalCents = input.printCostCents + input.packagingCents + input.shippingCents;
      const id = await repository.insert(
        {
          ...fields,
          orderId: orderId ?? null,
          shipmentId: null,
          ownerId: targetUserId,
          totalCents,
          shippedAt: shippedAt === undefined ? new Date() : new Date(DAY.test(shippedAt) ? `${shippedAt}T00:00:00Z` : shippedAt),
        },
        searchTextOf({ orderNumber: input.orderNumber, buyerName: input.buyerName, skus: input.items.map((item) => item.sku), trackingNumber: input.trackingNumber }),
      );
      await audit.record({
        actorId: admin.id,
        targetUserId,
        action: 'fulfillment.record',
        detail: { recordId: id, orderNumber: input.orderNumber, totalCents },
        requestId: admin.requestId,
      });
      const created = await repository.find(id);
      if (!created) throw new Error('fulfilment record vanished after its insert');
      return toFulfillmentRecord(created);
    },
  };
}

export type FulfillmentService = ReturnType<typeof createFulfillmentService>;
