import type { FilamentType } from '@layerline/contracts';
import { SlicerError } from './errors.ts';
import { resolveSection, type VendorIni } from './vendor-ini.ts';

/**
 * Each material's filament profile in PrusaSlicer's PrusaResearch bundle (temperatures, fans,
 * retraction, max volumetric speed), as /work/shared/contracts/printers/materials.md chose them from
 * the 2.5 bundle (PrusaResearch.ini 1.5.1): a Generic profile where the bundle has one, else the
 * closest bundled one (it has no Generic ASA or PA).
 */
export const FILAMENT_PROFILE_VENDOR = 'PrusaResearch';

export const FILAMENT_SECTIONS: Readonly<Record<FilamentType, string>> = {
  PLA: 'Generic PLA', // PrusaResearch.ini L2700
  PETG: 'Generic PETG', // L2152
  ABS: 'Generic ABS', // L2115
  ASA: 'Prusament ASA', // L1970: the bundle has no Generic ASA
  TPU: 'Generic FLEX', // L2800
  Nylon: 'Fiberlogy Nylon PA12', // L4175: the bundle has no Generic PA
};

/** What the variant rule needs of the printer: its `printer_model` (null without a bundled preset) and nozzle. */
export interface FilamentFor {
  readonly printerModel: string | null;
  readonly nozzleMm: number;
}

/**
 * The bundle names variants after the printer they are tuned for (`Generic PETG @MINI`, `Generic
 * PLA @0.8 nozzle`, `Generic PETG @0.6 nozzle MINI`; e.g. L4766, L5096, L4867). Instead of
 * evaluating each section's `compatible_printers_condition`, the most specific of these names the
 * bundle has is taken:
 *   `<name> @<nozzle> nozzle <model>`, `<name> @<model>`, `<name> @<nozzle> nozzle`, `<name>`.
 * Multi-material (`@MMU2`) variants are never chosen: the farm prints one material per job.
 */
export function filamentSectionFor(ini: VendorIni, material: FilamentType, printer: FilamentFor): { name: string; settings: Map<string, string> } {
  const base = FILAMENT_SECTIONS[material];
  const nozzle = `${Number(printer.nozzleMm.toFixed(2))} nozzle`;
  const model = printer.printerModel;
  const candidates = [...(model ? [`${base} @${nozzle} ${model}`, `${base} @${model}`] : []), `${base} @${nozzle}`, base];
  const name = candidates.find((candidate) => ini.sections.has(`filament:${candidate}`));
  if (!name) throw new SlicerError('failed', `PrusaSlicer's ${FILAMENT_PROFILE_VENDOR} profiles have no “${base}” filament profile for ${material}`);
  return { name, settings: resolveSection(ini, `filament:${name}`) };
}
