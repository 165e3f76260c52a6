import {
  FILAMENT_RATE_USD_PER_GRAM,
  FILAMENT_TYPES,
  FULFILMENT_USD_PER_GRAM,
  fulfilmentCostUsd,
  type FilamentType,
} from '@layerline/contracts';

export interface PriceRow {
  filament: FilamentType;
  filamentPerGram: number;
  fulfilmentPerGram: number;
  totalPerGram: number;
  /** The cost of the worked example's 134 g print in this filament. */
  exampleCost: number;
}

/** The worked example of §9: a 134 g print. */
export const EXAMPLE_GRAMS = 134;

/** §9: one row per filament, every number derived from the shared constants. */
export function priceRows(): PriceRow[] {
  return FILAMENT_TYPES.map((filament) => ({
    filament,
    filamentPerGram: FILAMENT_RATE_USD_PER_GRAM[filament],
    fulfilmentPerGram: FULFILMENT_USD_PER_GRAM,
    totalPerGram: FILAMENT_RATE_USD_PER_GRAM[filament] + FULFILMENT_USD_PER_GRAM,
    exampleCost: fulfilmentCostUsd(filament, EXAMPLE_GRAMS),
  }));
}

/** A per-gram rate with the precision it needs: 0.04 → "$0.04", 0.036 → "$0.036", 0.076 → "$0.076". */
export function formatPerGram(usd: number): string {
  const rounded = Math.round(usd * 1000) / 1000;
  return `$${rounded.toFixed(3).replace(/0$/, '')}`;
}
