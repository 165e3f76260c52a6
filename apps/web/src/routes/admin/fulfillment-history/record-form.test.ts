import { describe, expect, it } from 'vitest';
import { createFulfillmentRecordInputSchema } from '@layerline/contracts';
import { centsOf, emptyRecordForm, recordBody } from './record-form.ts';

describe('centsOf', () => {
  it('reads amounts as integer cents, without binary fractions', () => {
    expect(centsOf('')).toBe(0);
    expect(centsOf('12')).toBe(1200);
    expect(centsOf('12.5')).toBe(1250);
    expect(centsOf('0.29')).toBe(29);
    expect(centsOf(' $4.05 ')).toBe(405);
    expect(centsOf('12.')).toBe(1200);
  });

  it('refuses anything but a plain amount', () => {
    for (const text of ['-1', '1.234', '1,50', 'abc', '1e3', '.5']) expect(centsOf(text), text).toBeNull();
  });
});

describe('recordBody', () => {
  const filled = () => ({
    ...emptyRecordForm('2026-04-02'),
    sellerId: 'seller-1',
    orderNumber: ' R-1 ',
    buyerName: 'Ada Lovelace',
    items: [
      { sku: 'SKU-1', title: 'Vase', quantity: '2' },
      { sku: '', title: '', quantity: '1' },
    ],
    printCost: '12.50',
    packaging: '0.75',
    shipping: '6.9',
    trackingNumber: '1Z999',
  });

  it('makes a body the contract accepts, money in cents and empty item rows left out', () => {
    const result = recordBody(filled());
    expect('body' in result).toBe(true);
    if (!('body' in result)) return;
    expect(result.body).toMatchObject({
      targetUserId: 'seller-1',
      orderNumber: 'R-1',
      channel: 'manual',
      items: [{ sku: 'SKU-1', title: 'Vase', quantity: 2 }],
      printCostCents: 1250,
      packagingCents: 75,
      shippingCents: 690,
      shippedAt: '2026-04-02',
    });
    expect(createFulfillmentRecordInputSchema.safeParse(result.body).success).toBe(true);
  });

  it('says what to fix first', () => {
    expect(recordBody({ ...filled(), shipping: '6,90' })).toEqual({ error: 'Enter the shipping as an amount, like 12.50' });
    expect(recordBody({ ...filled(), sellerId: '' })).toEqual({ error: 'Choose the seller' });
    expect(recordBody({ ...filled(), items: [{ sku: 'X', title: '', quantity: '0' }] })).toEqual({ error: 'Each item needs a quantity of 1 or more' });
  });
});
