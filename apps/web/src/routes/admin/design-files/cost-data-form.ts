import type { CostDataInput } from '@layerline/contracts';
import { parsePrintTime } from '../../app/designs/design-format.ts';

/** The cost-data form as typed (strings), and its validation into the API's shape. */
export interface CostDataForm {
  grams: string;
  printTime: string;
  costUsd: string;
  note: string;
}

const MAX_SECONDS = 60 * 60 * 24 * 30;

export type ParsedCostData =
  | { ok: true; costData: CostDataInput['costData'] }
  | { ok: false; errors: Partial<Record<keyof CostDataForm, string>> };

function decimal(text: string): number | null {
  const trimmed = text.trim();
  if (!/^\d+(\.\d+)?$/.test(trimmed)) return null;
  return Number(trimmed);
}

export function costDataFromForm(form: CostDataForm): ParsedCostData {
  const errors: Partial<Record<keyof CostDataForm, string>> = {};
  const grams = decimal(form.grams);
  if (grams === null || grams > 100_000) errors.grams = 'Grams from 0 to 100,000';
  const printSeconds = parsePrintTime(form.printTime);
  if (printSeconds === null || printSeconds > MAX_SECONDS)
    errors.printTime = 'Like 1:30 (h:mm), at most 30 days';
  let costUsd: number | undefined;
  if (form.costUsd.trim()) {
    const value = decimal(form.costUsd);
    if (value === null || value > 100_000) errors.costUsd = 'Dollars from 0 to 100,000, or leave empty';
    else costUsd = value;
  }
  if (form.note.length > 500) errors.note = 'At most 500 characters';
  if (Object.keys(errors).length > 0 || grams === null || printSeconds === null) return { ok: false, errors };
  const note = form.note.trim();
  return {
    ok: true,
    costData: {
      grams,
      printSeconds,
      ...(costUsd === undefined ? {} : { costUsd }),
      ...(note ? { note } : {}),
    },
  };
}
