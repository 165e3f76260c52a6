import { describe, expect, it } from 'vitest';
import { alertKey, alertText, plain, type FarmAlertLookups } from './farm-alerts.ts';

/** The words of the farm's alerts (the api test sends them through Discord; this covers the long and the odd). */

const lookups = (count: number): FarmAlertLookups => ({
  orders: async (ids) =>
    new Map(
      ids
        .slice(0, count)
        .map((id) => [id, { number: `LL-${id.padStart(6, '0')}`, channel: 'Ada’s *Etsy* shop' }]),
    ),
  printerName: async () => null,
});

describe('farm alert text', () => {
  it('names a batch of 50 new orders in one message under Discord’s 2,000 characters, with how many more', async () => {
    const ids = Array.from({ length: 50 }, (_, i) => String(i + 1));
    const text = await alertText({ kind: 'new_orders', orderIds: ids }, lookups(50));
    expect(text.length).toBeLessThanOrEqual(2000);
    expect(text).toMatch(/^50 new orders: #LL-000001 \(Ada’s \\\*Etsy\\\* shop\), #LL-000002 /);
    const named = text.match(/#LL-\d+/g) ?? [];
    expect(named.length).toBeLessThan(50);
    expect(text.endsWith(` and ${50 - named.length} more.`)).toBe(true);
  });

  it('says so when an order was removed before its alert went', async () => {
    expect(await alertText({ kind: 'new_orders', orderIds: ['1', '2'] }, lookups(1))).toBe(
      '2 new orders: #LL-000001 (Ada’s \\*Etsy\\* shop), an order since removed.',
    );
  });

  it('escapes Discord markdown in data and keeps keys stable whatever the order of a batch', () => {
    expect(plain('a_b *c* `d` [x](y) > q | ~s~')).toBe('a\\_b \\*c\\* \\`d\\` \\[x\\](y) \\> q \\| \\~s\\~');
    expect(alertKey({ kind: 'new_orders', orderIds: ['b', 'a'] })).toBe(
      alertKey({ kind: 'new_orders', orderIds: ['a', 'b'] }),
    );
    expect(alertKey({ kind: 'payment_failed', orderNumber: null, sellerName: 'x', reason: 'y' })).toBeNull();
  });
});
