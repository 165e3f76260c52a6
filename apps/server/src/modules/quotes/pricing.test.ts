import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ADD_ON_SERVICES, FILAMENT_TYPES, fulfilmentCostUsd, type AddOns } from '@layerline/contracts';
import { DEFAULT_PRICE_TABLE, partShares, priceQuote } from './pricing.ts';

const NO_ADD_ONS = Object.fromEntries(ADD_ON_SERVICES.map((s) => [s, 0])) as AddOns;
const base = { basis: 'estimate' as const, basisNote: 'test', printSeconds: 3600, addOns: NO_ADD_ONS, table: DEFAULT_PRICE_TABLE };

describe('priceQuote', () => {
  it('is the specification’s formula with the default table, for every filament', () => {
    for (const filament of FILAMENT_TYPES) {
      const quote = priceQuote({ ...base, grams: 134, parts: [{ filament, share: 1 }] });
      expect(quote.costUsd).toBeCloseTo(fulfilmentCostUsd(filament, 134), 1);
    }
    expect(priceQuote({ ...base, grams: 134, parts: [{ filament: 'PLA', share: 1 }] }).costUsd).toBe(10.18);
  });

  it('adds machine time, minimums and add-ons from the admin table', () => {
    const table = { ...DEFAULT_PRICE_TABLE, machineRateUsdPerHour: 2, minimumUsdPerPart: 0 };
    const quote = priceQuote({
      ...base,
      table,
      grams: 10,
      printSeconds: 5400,
      parts: [{ filament: 'PETG', share: 1 }],
      addOns: { ...NO_ADD_ONS, magnets: 4, customPackaging: 1 },
    });
    expect(quote.breakdown.map((l) => l.amountUsd)).toEqual([0.4, 0.36, 3, 1.4, 1.5]);
    expect(quote.costUsd).toBe(6.66);

    const small = priceQuote({ ...base, table: { ...DEFAULT_PRICE_TABLE, minimumUsdPerPart: 2 }, grams: 5, parts: [{ filament: 'PLA', share: 1 }] });
    expect(small.costUsd).toBe(2);
    expect(small.breakdown.at(-1)!.label).toMatch(/Minimum/);
  });

  it('prices each part of a multi-part print with its own filament', () => {
    const shares = partShares({ filament: 'PLA', isMultipart: true, parts: [{ filament: 'PLA' }, { filament: 'TPU' }] }, [300, -100]);
    expect(shares).toEqual([
      { filament: 'PLA', share: 0.75 },
      { filament: 'TPU', share: 0.25 },
    ]);
    const quote = priceQuote({ ...base, grams: 100, parts: shares });
    expect(quote.costUsd).toBe(cents(75 * 0.04 + 25 * 0.06 + 100 * 0.036));
  });

  it('lets an admin override the print price while add-ons still apply', () => {
    const quote = priceQuote({ ...base, grams: 50, parts: [{ filament: 'PLA', share: 1 }], costOverrideUsd: 7.25, addOns: { ...NO_ADD_ONS, gluing: 2 } });
    expect(quote.costUsd).toBe(8.25);
  });

  it('always adds up: the total is the sum of the lines, in whole cents (S-37)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 5000, noNaN: true }),
        fc.double({ min: 0, max: 500_000, noNaN: true }),
        fc.constantFrom(...FILAMENT_TYPES),
        fc.record(Object.fromEntries(ADD_ON_SERVICES.map((s) => [s, fc.integer({ min: 0, max: 20 })])) as Record<keyof AddOns, fc.Arbitrary<number>>),
        (grams, seconds, filament, addOns) => {
          const quote = priceQuote({ ...base, table: { ...DEFAULT_PRICE_TABLE, machineRateUsdPerHour: 1.5, minimumUsdPerPart: 1 }, grams, printSeconds: seconds, parts: [{ filament, share: 1 }], addOns });
          const sum = quote.breakdown.reduce((s, l) => s + Math.round(l.amountUsd * 100), 0);
          expect(Math.round(quote.costUsd * 100)).toBe(sum);
          expect(Number.isInteger(Math.round(quote.costUsd * 100))).toBe(true);
          expect(quote.costUsd).toBeGreaterThanOrEqual(1);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

function cents(usd: number): number {
  return Math.round(usd * 100) / 100;
}
