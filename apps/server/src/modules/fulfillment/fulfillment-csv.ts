import type { FulfillmentRecord } from '@layerline/contracts';

/**
 * The fulfilment history as CSV (RFC 4180: comma-separated, CRLF line ends, quoted where needed),
 * one line per record, money as decimals of the record's currency.
 */

/** Excel reads a UTF-8 file as such only when it starts with a byte-order mark (buyers' names are not ASCII). */
export const CSV_BOM = '\uFEFF';

type Column =
  | { readonly header: string; readonly text: (r: FulfillmentRecord) => string }
  | { readonly header: string; readonly cents: (r: FulfillmentRecord) => number };

const COLUMNS: readonly Column[] = [
  { header: 'Created', text: (r) => r.createdAt },
  { header: 'Seller', text: (r) => r.sellerName },
  { header: 'Channel', text: (r) => r.channel },
  { header: 'Order', text: (r) => r.orderNumber },
  { header: 'Buyer', text: (r) => r.buyerName },
  { header: 'Items', text: (r) => r.items.map((item) => `${item.quantity} × ${item.sku}${item.title ? ` (${item.title})` : ''}`).join('; ') },
  { header: 'Print cost', cents: (r) => r.printCostCents },
  { header: 'Packaging', cents: (r) => r.packagingCents },
  { header: 'Shipping', cents: (r) => r.shippingCents },
  { header: 'Total', cents: (r) => r.totalCents },
  { header: 'Currency', text: (r) => r.currency },
  { header: 'Carrier', text: (r) => r.carrier },
  { header: 'Service', text: (r) => r.service },
  { header: 'Tracking number', text: (r) => r.trackingNumber },
  { header: 'Tracking URL', text: (r) => r.trackingUrl },
  { header: 'Shipped', text: (r) => r.shippedAt ?? '' },
  { header: 'Delivered', text: (r) => r.deliveredAt ?? '' },
];

/** Integer cents as a decimal: 1205 → "12.05" (string arithmetic: no binary fractions). */
export function decimal(cents: number): string {
  const abs = Math.abs(cents);
  return `${cents < 0 ? '-' : ''}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

const NEEDS_QUOTES = /[",\r\n]/;
/** Spreadsheets run a cell starting with one of these as a formula (CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A text cell: a leading formula character made literal with an apostrophe, then quoted if needed. */
export function csvCell(value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export const csvHeader = (): string => `${COLUMNS.map((column) => csvCell(column.header)).join(',')}\r\n`;

/** One record's line. Money is our own number, not anyone's text, so it is written unguarded. */
export function csvLine(record: FulfillmentRecord): string {
  return `${COLUMNS.map((column) => ('cents' in column ? decimal(column.cents(record)) : csvCell(column.text(record)))).join(',')}\r\n`;
}
