/**
 * Business constants of the specification (§9) shared by the earnings calculator,
 * the quote engine and the CLI. Money is in US dollars.
 */
export const FILAMENT_TYPES = ['PLA', 'PETG', 'ABS', 'ASA', 'TPU', 'Nylon'] as const;
export type FilamentType = (typeof FILAMENT_TYPES)[number];

/** Per-gram filament rate in USD (§9: 0.04 by default; ABS/ASA 0.05; TPU/Nylon 0.06). */
export const FILAMENT_RATE_USD_PER_GRAM: Readonly<Record<FilamentType, number>> = {
  PLA: 0.04,
  PETG: 0.04,
  ABS: 0.05,
  ASA: 0.05,
  TPU: 0.06,
  Nylon: 0.06,
};

/** Flat per-gram fulfilment charge added to every filament rate (§9). */
export const FULFILMENT_USD_PER_GRAM = 0.036;

/** Material densities in g/cm³ used to turn extruded volume into grams. */
export const FILAMENT_DENSITY_G_PER_CM3: Readonly<Record<FilamentType, number>> = {
  PLA: 1.24,
  PETG: 1.27,
  ABS: 1.04,
  ASA: 1.07,
  TPU: 1.21,
  Nylon: 1.14,
};

/** Fulfilment cost of a print of `grams` grams in `filament`, per §9. */
export function fulfilmentCostUsd(filament: FilamentType, grams: number): number {
  return FILAMENT_RATE_USD_PER_GRAM[filament] * grams + FULFILMENT_USD_PER_GRAM * grams;
}

/** The earnings calculator of the landing page (§2, §5, §9). */
export const CALCULATOR = {
  salePrice: { min: 1, max: 100, default: 20 },
  dailySales: { min: 0, max: 50, default: 1 },
  grams: { min: 0, max: 1000, default: 134 },
  defaultFilament: 'PLA' as FilamentType,
  footnote: 'Cost excludes shipping fees and taxes.',
} as const;

/** Monthly earnings = max(0, price − cost) × daily sales × 30 (§9). */
export function monthlyEarningsUsd(salePrice: number, fulfilmentCost: number, dailySales: number): number {
  return Math.max(0, salePrice - fulfilmentCost) * dailySales * 30;
}

export function isFilamentType(value: string): value is FilamentType {
  return (FILAMENT_TYPES as readonly string[]).includes(value);
}
