import type { CreateFulfillmentRecordInput } from '@layerline/contracts';

/** The "Record a shipment" dialog's fields, as typed (money as decimals). */
export interface RecordFormState {
  sellerId: string;
  orderNumber: string;
  channel: string;
  buyerName: string;
  items: { sku: string; title: string; quantity: string }[];
  printCost: string;
  packaging: string;
  shipping: string;
  carrier: string;
  service: string;
  trackingNumber: string;
  trackingUrl: string;
  /** YYYY-MM-DD. */
  shippedAt: string;
}

export const emptyItem = () => ({ sku: '', title: '', quantity: '1' });

export const emptyRecordForm = (today: string): RecordFormState => ({
  sellerId: '',
  orderNumber: '',
  channel: 'manual',
  buyerName: '',
  items: [emptyItem()],
  printCost: '',
  packaging: '',
  shipping: '',
  carrier: '',
  service: '',
  trackingNumber: '',
  trackingUrl: '',
  shippedAt: today,
});

/** "12.5" → 1250 cents; empty is 0; anything but a plain amount with at most two decimals is null. */
export function centsOf(text: string): number | null {
  const value = text.trim().replace(/^\$/, '');
  if (value === '') return 0;
  const match = /^(\d{1,9})(?:\.(\d{0,2}))?$/.exec(value);
  if (!match) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

const MONEY_FIELDS = [
  ['printCost', 'print cost'],
  ['packaging', 'packaging'],
  ['shipping', 'shipping'],
] as const;

/**
 * The request body, or what to fix first. Money is turned into cents here; everything else is
 * checked by the server, whose messages the dialog shows.
 */
export function recordBody(form: RecordFormState): { body: CreateFulfillmentRecordInput } | { error: string } {
  const cents: Record<(typeof MONEY_FIELDS)[number][0], number> = { printCost: 0, packaging: 0, shipping: 0 };
  for (const [field, label] of MONEY_FIELDS) {
    const value = centsOf(form[field]);
    if (value === null) return { error: `Enter the ${label} as an amount, like 12.50` };
    cents[field] = value;
  }
  if (!form.sellerId) return { error: 'Choose the seller' };
  const items = form.items
    .filter((item) => item.sku.trim() !== '' || item.title.trim() !== '')
    .map((item) => ({ sku: item.sku.trim(), title: item.title.trim(), quantity: Number(item.quantity) }));
  if (items.some((item) => !Number.isInteger(item.quantity) || item.quantity < 1)) {
    return { error: 'Each item needs a quantity of 1 or more' };
  }
  return {
    body: {
      targetUserId: form.sellerId,
      orderNumber: form.orderNumber.trim(),
      channel: form.channel.trim() || 'manual',
      buyerName: form.buyerName.trim(),
      items,
      printCostCents: cents.printCost,
      packagingCents: cents.packaging,
      shippingCents: cents.shipping,
      currency: 'USD',
      carrier: form.carrier.trim(),
      service: form.service.trim(),
      trackingNumber: form.trackingNumber.trim(),
      trackingUrl: form.trackingUrl.trim(),
      ...(form.shippedAt ? { shippedAt: form.shippedAt } : {}),
    },
  };
}
