import type { FulfillmentRecord } from '@layerline/contracts';

/**
 * The fulfilment history as CSV (RFC 4180: comma-separated, CRLF line ends, quoted where needed),
 * one line per record, money as decimals of the record's currency.
 */

/** Excel reads a UTF-8 file as such only when it starts with a byte-order mark (buyers' names are not ASCII). */
export const CSV_BOM = '\uFEFF';

/** What a line shows of a record (no ids: the label and the order are found by order number). */
export type CsvRecord = Omit<FulfillmentRecord, 'id' | 'orderId' | 'shipmentId' | 'ownerId' | 'labelUrl'>;

const HEADERS = [
  'Created', 'Seller', 'Channel', 'Order', 'Buyer', 'Items', 'Print cost', 'Packaging', 'Shipping', 'Total',
  'Currency', 'Carrier', 'Service', 'Tracking number', 'Tracking URL', 'Shipped', 'Delivered',
] as const;

const itemsText = (items: CsvRecord['items']): string =>
  items.map((item) => `${item.quantity} × ${item.sku}${item.title ? ` (${item.title})` : ''}`).join('; ');

/** Integer cents as a decimal: 1205 → "12.05" (string arithmetic: no binary fractions). */
function decimal(cents: number): string {
  const abs = Math.abs(cents);
  return `${cents < 0 ? '-' : ''}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Spreadsheets run a cell starting with = + - @ (or a tab or return) as a formula (CSV injection); quotes, commas and line breaks need quoting. */
const SPECIAL = /^[=+\-@\t\r]|[",\r\n]/;
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** A text cell: a leading formula character made literal with an apostrophe, then quoted if needed. */
function csvCell(value: string): string {
  // Most cells have nothing special: one test (this runs for every cell of a million-row export).
  if (!SPECIAL.test(value)) return value;
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export const csvHeader = (): string => `${HEADERS.join(',')}\r\n`;

/**
 * One record's line, its cells in HEADERS' order (written out rather than looped over: this is
 * the export's hot path). Money is our own number, not anyone's text, so it is written unguarded;
 * times are ISO 8601 (UTC).
 */
export function csvLine(r: CsvRecord): string {
  return (
    `${csvCell(r.createdAt)},${csvCell(r.sellerName)},${csvCell(r.channel)},${csvCell(r.orderNumber)},${csvCell(r.buyerName)},` +
    `${csvCell(itemsText(r.items))},${decimal(r.printCostCents)},${decimal(r.packagingCents)},${decimal(r.shippingCents)},${decimal(r.totalCents)},` +
    `${csvCell(r.currency)},${csvCell(r.carrier)},${csvCell(r.service)},${csvCell(r.trackingNumber)},${csvCell(r.trackingUrl)},` +
    `${csvCell(r.shippedAt ?? '')},${csvCell(r.deliveredAt ?? '')}\r\n`
  );
}
