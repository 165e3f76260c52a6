import { describe, expect, it } from 'vitest';
import type { PriceTable } from '@layerline/contracts';
import { priceTableFromForm, priceTableToForm } from './price-table-form.ts';

const table: PriceTable = {
  filamentRateUsdPerGram: { PLA: 0.04, PETG: 0.04, ABS: 0.05, ASA: 0.05, TPU: 0.06, Nylon: 0.06 },
  fulfilmentUsdPerGram: 0.036,
  machineRateUsdPerHour: 1.5,
  minimumUsdPerPart: 2,
  addOnUsd: {
    gluing: 1,
    threadedInserts: 0.5,
    mechanicalFasteners: 0.3,
    magnets: 0.4,
    electronics: 5,
    customPackaging: 1.2,
    multipartAssembly: 2,
  },
};

describe('price table form', () => {
  it('round-trips a table', () => {
    expect(priceTableFromForm(priceTableToForm(table))).toEqual({ ok: true, table });
  });

  it('flags non-numbers and values over the contract limits, field by field', () => {
    const form = {
      ...priceTableToForm(table),
      'filament.PLA': 'abc',
      'addOn.magnets': '-1',
      'filament.TPU': '',
    };
    const parsed = priceTableFromForm(form);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok)
      expect(Object.keys(parsed.errors).sort()).toEqual(['addOn.magnets', 'filament.PLA', 'filament.TPU']);
    const tooBig = priceTableFromForm({ ...priceTableToForm(table), 'filament.ABS': '11' });
    expect(tooBig).toEqual({ ok: false, errors: { 'filament.ABS': 'At most 10' } });
  });
});
