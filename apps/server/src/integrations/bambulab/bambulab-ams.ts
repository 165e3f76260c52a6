import type { PlateFilament } from './bambulab-package.ts';
import type { PrintReport } from './bambulab-status.ts';

/**
 * Which AMS tray feeds the plate's filament (`project_file`'s `use_ams` and `ams_mapping`;
 * shared/contracts/printers/bambulab.md §3). The mapping is one entry per filament of the sliced
 * file, the value the absolute tray id (AMS unit × 4 + slot), as ha-bambulab sends it (cmd.py
 * L56–78, coord.py L687–716). A wrong mapping makes the printer pause instead of print, so a plate
 * whose material no tray holds is refused rather than started on whatever is loaded.
 * A printer without an AMS (or with empty trays) prints from its external spool: `use_ams` false
 * and no mapping (synman/bambu-printer-manager: a mapping with use_ams false raises HMS errors).
 */
export type AmsChoice =
  | { readonly useAms: false }
  | { readonly useAms: true; readonly mapping: readonly number[]; readonly tray: string }
  | { readonly problem: string };

/** Bambu's tray_type names for what PrusaSlicer calls the material (Layerline's Nylon prints as PA). */
const ALIASES: Readonly<Record<string, string>> = { NYLON: 'PA', FLEX: 'TPU' };
const canonical = (type: string) => {
  const upper = type.trim().toUpperCase();
  return ALIASES[upper] ?? upper;
};

const rgb = (hex: string): [number, number, number] => {
  const clean = hex.replace(/^#/, '').padEnd(6, '0');
  return [0, 2, 4].map((i) => Number.parseInt(clean.slice(i, i + 2), 16) || 0) as [number, number, number];
};
const distance = (a: string, b: string) => {
  const [x, y] = [rgb(a), rgb(b)];
  return (x[0] - y[0]) ** 2 + (x[1] - y[1]) ** 2 + (x[2] - y[2]) ** 2;
};

export function chooseAmsTray(ams: PrintReport['ams'], filament: PlateFilament | null): AmsChoice {
  const trays = (ams?.ams ?? []).flatMap((unit) =>
    unit.tray
      .filter((tray) => tray.tray_type)
      .map((tray) => ({
        id: Number(unit.id) * 4 + Number(tray.id),
        type: tray.tray_type!,
        // tray_color is RRGGBBAA
        colour: `#${(tray.tray_color ?? 'FFFFFFFF').slice(0, 6)}`,
      })),
  );
  if (trays.length === 0 || !filament) return { useAms: false };
  const wanted = canonical(filament.type);
  const matching = trays.filter((tray) => canonical(tray.type) === wanted);
  if (matching.length === 0) {
    const held = trays.map((t) => `${t.type} ${t.colour} in tray ${t.id + 1}`).join(', ');
    return { problem: `No AMS tray holds ${filament.type} (the AMS has ${held}): load it into the AMS, or update the printer's spools` };
  }
  const best = matching.reduce((a, b) => (distance(b.colour, filament.colour) < distance(a.colour, filament.colour) ? b : a));
  return { useAms: true, mapping: [best.id], tray: `${best.type} ${best.colour} in tray ${best.id + 1}` };
}
