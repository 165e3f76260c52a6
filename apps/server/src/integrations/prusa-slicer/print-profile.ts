import type { FilamentType, PrinterSlicerProfile } from '@layerline/contracts';
import { bambulabMachine } from './bambulab-profiles.ts';
import { SlicerError } from './errors.ts';
import { FILAMENT_PROFILE_VENDOR, filamentSectionFor } from './material-profiles.ts';
import { findProfilesDir, loadVendorBundle, type BundleOptions } from './vendor-bundles.ts';
import { resolveSection } from './vendor-ini.ts';

/**
 * The one config PrusaSlicer gets (`--load`) for a farm printer, composed in layers, each
 * overriding the one before:
 * 1. Layerline's base profile (profile.ini: every key, so nothing a 3MF carries survives);
 * 2. the printer: a bundled printer preset resolved from its vendor bundle (bed, height, nozzle,
 *    start/end G-code, firmware flavour, retraction, machine limits), or the operator's own start
 *    and end G-code on the base printer settings with the printer's bed and nozzle, or, without a
 *    profile, Layerline's generic start and end G-code (GENERIC_START_GCODE);
 * 3. the material's filament profile from the PrusaResearch bundle (material-profiles.ts);
 * 4. what must never come from a bundle: no post-processing script.
 * The print configuration's own settings (layer height, infill, density) are passed as command
 * line options after it, so they stay on top.
 */

export interface ProfilePrinter {
  readonly nozzleMm: number;
  readonly bedMm: { readonly x: number; readonly y: number; readonly z: number };
  /** Null or absent: Layerline's generic start and end G-code. */
  readonly profile?: PrinterSlicerProfile | null;
}

/** Keys about managing presets in PrusaSlicer's GUI (and its print host), not about the G-code. */
const PRESET_BOOKKEEPING = new Set([
  'compatible_printers', 'compatible_printers_condition', 'compatible_prints', 'compatible_prints_condition',
  'renamed_from', 'default_print_profile', 'default_filament_profile', 'default_sla_print_profile', 'default_sla_material_profile',
  'octoprint_apikey', 'octoprint_host', 'print_host', 'printhost_apikey', 'printhost_cafile', 'host_type', 'serial_port', 'serial_speed',
]);

/** A bundle key goes into the config when the base profile has it or it is a filament override (`filament_retract_length`...). */
const belongs = (key: string, base: ReadonlyMap<string, string>) => !PRESET_BOOKKEEPING.has(key) && (base.has(key) || key.startsWith('filament_'));

/** Text as a value of PrusaSlicer's ini: one line, C-style escapes (as PrusaSlicer writes start_gcode). */
export const iniValue = (text: string) => text.replace(/\\/g, '\\\\').replace(/\r?\n/g, '\\n');

const mm = (n: number) => String(Number(n.toFixed(3)));

/**
 * For a printer without a profile: heats bed and nozzle to the material's first-layer temperatures
 * (PrusaSlicer fills in the placeholders), homes, and draws a purge line along the front edge.
 * It cannot level the bed: that needs the printer's own G-code (a bundled preset or custom).
 */
export function genericStartGcode(bedXMm: number): string {
  const purgeEnd = mm(Math.max(10, Math.min(100, bedXMm - 5)));
  return [
    '; Layerline generic start G-code: this printer has no printer profile, so no mesh bed levelling is done',
    'G90 ; absolute coordinates',
    'M83 ; relative extrusion',
    'M140 S[first_layer_bed_temperature] ; heat the bed',
    'M104 S[first_layer_temperature] ; heat the nozzle',
    'M190 S[first_layer_bed_temperature] ; wait for the bed',
    'M109 S[first_layer_temperature] ; wait for the nozzle',
    'G28 ; home all axes',
    'G1 Z5 F720',
    'G1 X5 Y5 F3000 ; to the front left corner',
    'G1 Z0.3 F720',
    'G92 E0',
    `G1 X${purgeEnd} E12 F1000 ; purge line`,
    'G92 E0',
    '',
  ].join('\n');
}

export const GENERIC_END_GCODE = [
  '; Layerline generic end G-code',
  'G1 Z{min(max_layer_z + 10, max_print_height)} F720 ; lift the nozzle off the part',
  'M104 S0 ; nozzle heater off',
  'M140 S0 ; bed heater off',
  'M107 ; fan off',
  'M84 ; motors off',
  '',
].join('\n');

const bedShape = (x: number, y: number) => `0x0,${mm(x)}x0,${mm(x)}x${mm(y)},0x${mm(y)}`;

/** The printer layer: its settings, the model the filament variant is chosen for, and its name in the G-code. */
async function printerLayer(printer: ProfilePrinter, dir: string | null): Promise<{ settings: Map<string, string>; printerModel: string | null; nozzleMm: number; id: string }> {
  const profile = printer.profile ?? null;
  if (profile?.kind === 'bundled') {
    const settings = resolveSection(await loadVendorBundle(requireDir(dir), profile.vendor), `printer:${profile.preset}`);
    if (settings.get('printer_technology') === 'SLA') throw new SlicerError('failed', `${profile.preset} is a resin printer: the farm slices for FFF printers only`);
    const nozzleMm = Number((settings.get('nozzle_diameter') ?? '').split(',')[0]);
    return { settings, printerModel: settings.get('printer_model') || null, nozzleMm: nozzleMm > 0 ? nozzleMm : printer.nozzleMm, id: profile.preset };
  }
  if (profile?.kind === 'bambulab') {
    const machine = bambulabMachine(profile.model);
    const settings = new Map([
      ['nozzle_diameter', '0.4'],
      ['bed_shape', machine.bedShape],
      ['max_print_height', machine.maxPrintHeight],
      ['start_gcode', iniValue(machine.startGcode)],
      ['end_gcode', iniValue(machine.endGcode)],
      // Bambu's firmware takes Marlin-style G-code with relative extrusion (fdm_bbl_3dp_001_common).
      ['gcode_flavor', 'marlin2'],
      ['use_relative_e_distances', '1'],
    ]);
    return { settings, printerModel: null, nozzleMm: 0.4, id: `Bambu Lab ${profile.model} 0.4 nozzle` };
  }
  const settings = new Map([
    ['nozzle_diameter', mm(printer.nozzleMm)],
    ['bed_shape', bedShape(printer.bedMm.x, printer.bedMm.y)],
    ['max_print_height', mm(printer.bedMm.z)],
    ['start_gcode', iniValue(profile ? profile.startGcode : genericStartGcode(printer.bedMm.x))],
    ['end_gcode', iniValue(profile ? profile.endGcode : GENERIC_END_GCODE)],
  ]);
  return { settings, printerModel: null, nozzleMm: printer.nozzleMm, id: profile ? 'Layerline custom G-code' : 'Layerline generic' };
}

function requireDir(dir: string | null): string {
  if (!dir) throw new SlicerError('failed', "PrusaSlicer's vendor profiles were not found (set PRUSASLICER_PROFILES_DIR to the directory holding PrusaResearch.ini)");
  return dir;
}

/** The config for `--load`: `key = value` lines, every key of the base profile and the layers over it. */
export async function composePrintProfile(input: {
  baseProfile: string;
  printer: ProfilePrinter;
  filament: FilamentType;
  bundles?: BundleOptions;
}): Promise<string> {
  const base = parseFlatIni(input.baseProfile);
  const dir = await findProfilesDir(input.bundles);
  const printer = await printerLayer(input.printer, dir);
  const filament = filamentSectionFor(await loadVendorBundle(requireDir(dir), FILAMENT_PROFILE_VENDOR), input.filament, printer);
  const merged = new Map(base);
  for (const layer of [printer.settings, filament.settings]) {
    for (const [key, value] of layer) if (belongs(key, base)) merged.set(key, value);
  }
  merged.set('printer_settings_id', printer.id);
  merged.set('filament_settings_id', `"${filament.name}"`); // a list option: quoted, as PrusaSlicer writes it
  merged.set('post_process', '');
  return [...merged].map(([key, value]) => `${key} = ${value}`).join('\n') + '\n';
}

/** A PrusaSlicer config export (no sections): its keys in order. */
function parseFlatIni(text: string): Map<string, string> {
  const keys = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const match = /^(\w+) =(?: (.*))?$/.exec(line);
    if (match) keys.set(match[1]!, match[2] ?? '');
  }
  return keys;
}
