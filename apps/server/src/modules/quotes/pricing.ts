import {
  ADD_ON_LABELS,
  ADD_ON_SERVICES,
  FILAMENT_RATE_USD_PER_GRAM,
  FULFILMENT_USD_PER_GRAM,
  type AddOns,
  type FilamentType,
  type PriceTable,
  type Quote,
  type QuoteBasis,
} from '@layerline/contracts';

/**
 * The default price table is the specification's formula (§9): per-filament rate × grams +
 * 0.036 × grams, nothing else. Machine time and minimums are 0 until an admin sets them.
 * The add-on prices are our own (the spec names the services, not their prices; see docs/pricing.md).
 */
export const DEFAULT_PRICE_TABLE: PriceTable = {
  filamentRateUsdPerGram: { ...FILAMENT_RATE_USD_PER_GRAM },
  fulfilmentUsdPerGram: FULFILMENT_USD_PER_GRAM,
  machineRateUsdPerHour: 0,
  minimumUsdPerPart: 0,
  addOnUsd: {
    gluing: 0.5,
    threadedInserts: 0.4,
    mechanicalFasteners: 0.25,
    magnets: 0.35,
    electronics: 3,
    customPackaging: 1.5,
    multipartAssembly: 1,
  },
};

export interface QuoteInput {
  readonly basis: QuoteBasis;
  readonly basisNote: string;
  readonly grams: number;
  readonly printSeconds: number;
  /** Each printed part's filament and its share of the plastic (shares sum to 1). */
  readonly parts: readonly { filament: FilamentType; share: number }[];
  readonly addOns: AddOns;
  readonly table: PriceTable;
  /** An admin's fixed price, replacing the computed print cost (add-ons still apply). */
  readonly costOverrideUsd?: number | null;
  readonly now?: Date;
}

const cents = (usd: number): number => Math.round(usd * 100) / 100;

/**
 * Prices a print. Every line is rounded to cents and the total is the sum of the rounded lines,
 * so the breakdown a seller sees always adds up to the price.
 */
export function priceQuote(input: QuoteInput): Quote {
  const { table, grams } = input;
  const lines: { label: string; amountUsd: number }[] = [];
  if (input.costOverrideUsd != null) {
    lines.push({ label: 'Print (price set by the print farm)', amountUsd: cents(input.costOverrideUsd) });
  } else {
    const byFilament = new Map<FilamentType, number>();
    for (const part of input.parts) byFilament.set(part.filament, (byFilament.get(part.filament) ?? 0) + part.share);
    for (const [filament, share] of byFilament) {
      const partGrams = grams * share;
      lines.push({
        label: `${filament} filament (${partGrams.toFixed(1)} g × $${table.filamentRateUsdPerGram[filament]}/g)`,
        amountUsd: cents(partGrams * table.filamentRateUsdPerGram[filament]),
      });
    }
    lines.push({
      label: `Fulfilment (${grams.toFixed(1)} g × $${table.fulfilmentUsdPerGram}/g)`,
      amountUsd: cents(grams * table.fulfilmentUsdPerGram),
    });
    if (table.machineRateUsdPerHour > 0) {
      const hours = input.printSeconds / 3600;
      lines.push({
        label: `Machine time (${hours.toFixed(2)} h × $${table.machineRateUsdPerHour}/h)`,
        amountUsd: cents(hours * table.machineRateUsdPerHour),
      });
    }
    const minimum = cents(table.minimumUsdPerPart * Math.max(1, input.parts.length));
    const printCost = lines.reduce((sum, line) => sum + line.amountUsd, 0);
    if (printCost < minimum) {
      lines.push({ label: 'Minimum charge per part', amountUsd: cents(minimum - printCost) });
    }
  }
  for (const service of ADD_ON_SERVICES) {
    const quantity = input.addOns[service];
    if (quantity > 0) {
      lines.push({
        label: `${ADD_ON_LABELS[service]} (${quantity} × $${table.addOnUsd[service]})`,
        amountUsd: cents(quantity * table.addOnUsd[service]),
      });
    }
  }
  return {
    basis: input.basis,
    basisNote: input.basisNote,
    grams: Math.round(grams * 100) / 100,
    printSeconds: Math.round(input.printSeconds),
    costUsd: cents(lines.reduce((sum, line) => sum + line.amountUsd, 0)),
    breakdown: lines,
    computedAt: (input.now ?? new Date()).toISOString(),
  };
}

/** Splits the plastic between a configuration's parts by each part's volume. */
export function partShares(
  config: { filament: FilamentType; isMultipart: boolean; parts: readonly { filament: FilamentType }[] },
  partVolumesMm3: readonly number[],
): { filament: FilamentType; share: number }[] {
  if (!config.isMultipart || partVolumesMm3.length <= 1) return [{ filament: config.filament, share: 1 }];
  const volumes = partVolumesMm3.map((v) => Math.abs(v));
  const total = volumes.reduce((sum, v) => sum + v, 0);
  return volumes.map((volume, i) => ({
    filament: config.parts[i]?.filament ?? config.filament,
    share: total > 0 ? volume / total : 1 / volumes.length,
  }));
}
