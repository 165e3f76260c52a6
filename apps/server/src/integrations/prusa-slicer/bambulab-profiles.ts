import { readFileSync } from 'node:fs';
import type { BambulabModel } from '@layerline/contracts';

/**
 * The Bambu Lab machines' bed shapes and start/end G-code for PrusaSlicer (issue 22).
 * `bambulab-machine-profiles.json` is Bambu Studio's BBL bundle v01.09.00.23, 0.4 mm nozzle,
 * inheritance resolved, copied verbatim with its licence (AGPL-3.0) and source
 * (shared/contracts/printers/bambulab-machine-profiles.json; docs/slicing-profiles.md).
 *
 * Bambu Studio's G-code is written in its own placeholder names; PrusaSlicer has the same macro
 * language with other names, so each is translated to PrusaSlicer's (or, where PrusaSlicer has no
 * such setting, to the value Layerline prints with, noted below). The G-code is otherwise as Bambu
 * ships it: the printer's own levelling, purge and calibration moves.
 */
interface MachineProfile {
  readonly printable_area: readonly string[];
  readonly printable_height: string;
  readonly machine_start_gcode: string;
  readonly machine_end_gcode: string;
}

const PROFILES_PATH = new URL('./bambulab-machine-profiles.json', import.meta.url);
let profiles: Readonly<Record<BambulabModel, MachineProfile>> | null = null;
const profileOf = (model: BambulabModel): MachineProfile => {
  profiles ??= (JSON.parse(readFileSync(PROFILES_PATH, 'utf8')) as { printers: Record<BambulabModel, MachineProfile> }).printers;
  return profiles[model];
};

/**
 * Bambu Studio name → PrusaSlicer's, longest first so a name is never replaced inside a longer one.
 * Without a PrusaSlicer equivalent: the outer wall's volumetric speed (Bambu's calibration lines
 * use it) is 12 mm³/s, Bambu's PLA default; the plate is the Textured PEI plate the P1S, X1 Carbon
 * and A1 ship with; first-layer scanning (X1 lidar) is off.
 */
const PLACEHOLDERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\[bed_temperature_initial_layer_single\]/g, '{first_layer_bed_temperature[0]}'],
  [/\bbed_temperature_initial_layer_single\b/g, 'first_layer_bed_temperature[0]'],
  [/\bnozzle_temperature_initial_layer\b/g, 'first_layer_temperature'],
  [/\bbed_temperature_initial_layer\b/g, 'first_layer_bed_temperature'],
  [/\bnozzle_temperature_range_high\b/g, 'temperature'],
  [/\bnozzle_temperature\b/g, 'temperature'],
  [/\binitial_no_support_extruder\b/g, 'initial_extruder'],
  [/\bouter_wall_volumetric_speed\b/g, '12'],
  [/\bouter_wall_acceleration\b/g, 'perimeter_acceleration'],
  [/\bretraction_length\b/g, 'retract_length'],
  [/\bfirst_layer_center_no_wipe_tower\b/g, 'first_layer_print_min'],
  [/\bspiral_mode\b/g, 'spiral_vase'],
  [/print_sequence != "by object"/g, '!complete_objects'],
  [/\bcurr_bed_type\b/g, '"Textured PEI Plate"'],
  [/\bscan_first_layer\b/g, 'false'],
];

/** Bambu Studio's G-code with PrusaSlicer's placeholder names. */
export function toPrusaSlicerGcode(gcode: string): string {
  let text = gcode;
  for (const [name, replacement] of PLACEHOLDERS) text = text.replace(name, replacement);
  // `[initial_extruder]` alone prints the tool number; PrusaSlicer writes it the same way.
  return text;
}

/** A Bambu Lab machine as print-profile.ts layers it: bed, height, and G-code in PrusaSlicer's names. */
export function bambulabMachine(model: BambulabModel): { bedShape: string; maxPrintHeight: string; startGcode: string; endGcode: string } {
  const profile = profileOf(model);
  return {
    bedShape: profile.printable_area.join(','),
    maxPrintHeight: profile.printable_height,
    startGcode: toPrusaSlicerGcode(profile.machine_start_gcode),
    endGcode: toPrusaSlicerGcode(profile.machine_end_gcode),
  };
}
