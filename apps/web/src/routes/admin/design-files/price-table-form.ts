import { ADD_ON_SERVICES, FILAMENT_TYPES, priceTableSchema, type PriceTable } from '@layerline/contracts';

/**
 * The price table as typed: one string per field, keyed "filament.PLA", "addOn.magnets" or the
 * top-level name, so every field has its own error message.
 */
export type PriceTableForm = Record<string, string>;

const TOP_LEVEL = ['fulfilmentUsdPerGram', 'machineRateUsdPerHour', 'minimumUsdPerPart'] as const;

export function priceTableToForm(table: PriceTable): PriceTableForm {
  const form: PriceTableForm = {};
  for (const filament of FILAMENT_TYPES)
    form[`filament.${filament}`] = String(table.filamentRateUsdPerGram[filament]);
  for (const key of TOP_LEVEL) form[key] = String(table[key]);
  for (const service of ADD_ON_SERVICES) form[`addOn.${service}`] = String(table.addOnUsd[service]);
  return form;
}

export type ParsedPriceTable =
  { ok: true; table: PriceTable } | { ok: false; errors: Record<string, string> };

export function priceTableFromForm(form: PriceTableForm): ParsedPriceTable {
  const errors: Record<string, string> = {};
  const number = (key: string): number => {
    const text = (form[key] ?? '').trim();
    if (!/^\d+(\.\d+)?$/.test(text)) {
      errors[key] = 'A number of 0 or more';
      return Number.NaN;
    }
    return Number(text);
  };
  const candidate = {
    filamentRateUsdPerGram: Object.fromEntries(FILAMENT_TYPES.map((f) => [f, number(`filament.${f}`)])),
    fulfilmentUsdPerGram: number('fulfilmentUsdPerGram'),
    machineRateUsdPerHour: number('machineRateUsdPerHour'),
    minimumUsdPerPart: number('minimumUsdPerPart'),
    addOnUsd: Object.fromEntries(ADD_ON_SERVICES.map((s) => [s, number(`addOn.${s}`)])),
  };
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  // The contract's own limits (e.g. at most $10/g) decide the rest.
  const result = priceTableSchema.safeParse(candidate);
  if (result.success) return { ok: true, table: result.data };
  for (const issue of result.error.issues) {
    const [group, name] = issue.path.map(String);
    const key =
      group === 'filamentRateUsdPerGram'
        ? `filament.${name}`
        : group === 'addOnUsd'
          ? `addOn.${name}`
          : (group ?? '');
    errors[key] =
      issue.code === 'too_big'
        ? `At most ${String((issue as { maximum?: unknown }).maximum ?? '')}`
        : issue.message;
  }
  return { ok: false, errors };
}
