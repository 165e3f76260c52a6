import { describe, expect, it } from 'vitest';
import { EXAMPLE_GRAMS, formatPerGram, priceRows } from './price-table.ts';

describe('priceRows', () => {
  it('lists every filament with the §9 rates plus the $0.036/g fulfilment charge', () => {
    const rows = priceRows().map((row) => [
      row.filament,
      formatPerGram(row.filamentPerGram),
      formatPerGram(row.totalPerGram),
    ]);
    expect(rows).toEqual([
      ['PLA', '$0.04', '$0.076'],
      ['PETG', '$0.04', '$0.076'],
      ['ABS', '$0.05', '$0.086'],
      ['ASA', '$0.05', '$0.086'],
      ['TPU', '$0.06', '$0.096'],
      ['Nylon', '$0.06', '$0.096'],
    ]);
  });

  it('prices the 134 g worked example: $10.18 in PLA', () => {
    expect(EXAMPLE_GRAMS).toBe(134);
    const pla = priceRows().find((row) => row.filament === 'PLA');
    expect(pla?.exampleCost).toBeCloseTo(10.184, 10);
  });
});

describe('formatPerGram', () => {
  it('keeps the third decimal only when it means something', () => {
    expect(formatPerGram(0.04)).toBe('$0.04');
    expect(formatPerGram(0.036)).toBe('$0.036');
    expect(formatPerGram(0.04 + 0.036)).toBe('$0.076');
  });
});
