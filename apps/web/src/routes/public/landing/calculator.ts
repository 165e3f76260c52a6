import { CALCULATOR } from '@layerline/contracts';

/** One numeric input of the earnings calculator: its range, slider step and how precise a typed value may be. */
export interface CalculatorField {
  readonly min: number;
  readonly max: number;
  readonly step: number;
  readonly decimals: number;
}

/** §5: price 1–100 (typed prices may have cents), daily sales 0–50 whole orders, grams 0–1000. */
export const CALCULATOR_FIELDS = {
  salePrice: { min: CALCULATOR.salePrice.min, max: CALCULATOR.salePrice.max, step: 1, decimals: 2 },
  dailySales: { min: CALCULATOR.dailySales.min, max: CALCULATOR.dailySales.max, step: 1, decimals: 0 },
  grams: { min: CALCULATOR.grams.min, max: CALCULATOR.grams.max, step: 1, decimals: 1 },
} as const satisfies Record<string, CalculatorField>;

/** Keeps a value inside the field's range and rounds it to the field's precision. */
export function clampToField(value: number, field: CalculatorField): number {
  const factor = 10 ** field.decimals;
  const rounded = Math.round(value * factor) / factor;
  return Math.min(field.max, Math.max(field.min, rounded));
}

/**
 * Reads what someone typed into a number box. Blank or unreadable text gives null (the
 * calculator keeps its last value while the visitor is still typing).
 */
export function parseTypedNumber(text: string): number | null {
  const trimmed = text.trim().replace(/^\$/, '').replace(/,/g, '');
  if (trimmed === '' || !/^-?\d*\.?\d*$/.test(trimmed) || trimmed === '.' || trimmed === '-') return null;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : null;
}

const USD = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** US dollars to the cent: 10.184 → "$10.18". */
export function formatUsd(amount: number): string {
  return USD.format(amount);
}
