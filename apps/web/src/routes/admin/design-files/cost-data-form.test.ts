import { describe, expect, it } from 'vitest';
import { costDataFromForm } from './cost-data-form.ts';

describe('costDataFromForm', () => {
  it('turns the typed form into cost data', () => {
    expect(costDataFromForm({ grams: '42.5', printTime: '1:30', costUsd: '', note: ' checked ' })).toEqual({
      ok: true,
      costData: { grams: 42.5, printSeconds: 5400, note: 'checked' },
    });
    expect(costDataFromForm({ grams: '10', printTime: '45m', costUsd: '3.20', note: '' })).toEqual({
      ok: true,
      costData: { grams: 10, printSeconds: 2700, costUsd: 3.2 },
    });
  });

  it('names each field that is wrong', () => {
    const result = costDataFromForm({ grams: '-1', printTime: 'later', costUsd: 'free', note: '' });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(Object.keys(result.errors).sort()).toEqual(['costUsd', 'grams', 'printTime']);
  });
});
