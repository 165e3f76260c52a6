import { describe, expect, it } from 'vitest';
import { CALCULATOR, fulfilmentCostUsd, monthlyEarningsUsd } from '@layerline/contracts';
import { CALCULATOR_FIELDS, clampToField, formatUsd, parseTypedNumber } from './calculator.ts';

describe('clampToField', () => {
  it('keeps values inside the §5 ranges', () => {
    expect(clampToField(0, CALCULATOR_FIELDS.salePrice)).toBe(1);
    expect(clampToField(250, CALCULATOR_FIELDS.salePrice)).toBe(100);
    expect(clampToField(-3, CALCULATOR_FIELDS.dailySales)).toBe(0);
    expect(clampToField(51, CALCULATOR_FIELDS.dailySales)).toBe(50);
    expect(clampToField(1000.4, CALCULATOR_FIELDS.grams)).toBe(1000);
  });

  it('rounds to the precision of each field', () => {
    expect(clampToField(24.999, CALCULATOR_FIELDS.salePrice)).toBe(25);
    expect(clampToField(24.994, CALCULATOR_FIELDS.salePrice)).toBe(24.99);
    expect(clampToField(2.6, CALCULATOR_FIELDS.dailySales)).toBe(3);
    expect(clampToField(134.56, CALCULATOR_FIELDS.grams)).toBe(134.6);
  });

  it('leaves the defaults untouched', () => {
    expect(clampToField(CALCULATOR.salePrice.default, CALCULATOR_FIELDS.salePrice)).toBe(20);
    expect(clampToField(CALCULATOR.dailySales.default, CALCULATOR_FIELDS.dailySales)).toBe(1);
    expect(clampToField(CALCULATOR.grams.default, CALCULATOR_FIELDS.grams)).toBe(134);
  });
});

describe('parseTypedNumber', () => {
  it('reads plain numbers, decimals, a leading dollar sign and thousands separators', () => {
    expect(parseTypedNumber('42')).toBe(42);
    expect(parseTypedNumber(' 24.99 ')).toBe(24.99);
    expect(parseTypedNumber('$19.5')).toBe(19.5);
    expect(parseTypedNumber('1,000')).toBe(1000);
    expect(parseTypedNumber('.5')).toBe(0.5);
  });

  it('gives null while the text is not a number yet', () => {
    for (const text of ['', ' ', '.', '-', 'abc', '12abc', '1.2.3', 'Infinity'])
      expect(parseTypedNumber(text)).toBeNull();
  });
});

describe('formatUsd', () => {
  it('shows dollars to the cent', () => {
    expect(formatUsd(10.184)).toBe('$10.18');
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(29_694)).toBe('$29,694.00');
  });

  it('gives the §9 worked example: 134 g of PLA costs $10.18 and a $20 sale a day earns $294.48 a month', () => {
    const cost = fulfilmentCostUsd('PLA', 134);
    expect(formatUsd(cost)).toBe('$10.18');
    expect(formatUsd(monthlyEarningsUsd(20, cost, 1))).toBe('$294.48');
  });
});
