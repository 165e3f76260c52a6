import { FILAMENT_DENSITY_G_PER_CM3, type FilamentType } from '@layerline/contracts';

/**
 * Print settings. Defaults are /work/shared/models/prusaslicer-profile.ini (PrusaSlicer
 * 2.5, Marlin 2, MK3S-like limits); names follow the ini keys they come from.
 */
export interface PrintSettings {
  filament: FilamentType;
  /** g/cm³; defaults to the filament's density from @layerline/contracts. */
  densityGPerCm3?: number;
  filamentDiameterMm: number;
  infillPercent: number; // fill_density
  layerHeightMm: number; // layer_height
  firstLayerHeightMm: number; // first_layer_height
  perimeters: number; // perimeters
  topLayers: number; // top_solid_layers
  bottomLayers: number; // bottom_solid_layers
  nozzleMm: number; // nozzle_diameter
  extrusionWidthMm: number; // extrusion_width / perimeter / infill widths
  firstLayerWidthMm: number; // first_layer_extrusion_width
  topWidthMm: number; // top_infill_extrusion_width
  solidInfillBelowAreaMm2: number; // solid_infill_below_area
  speeds: {
    perimeter: number;
    externalPerimeter: number;
    smallPerimeter: number;
    infill: number;
    solidInfill: number;
    topSolidInfill: number;
    bridge: number;
    firstLayer: number;
    travel: number;
    maxVolumetric: number; // filament_max_volumetric_speed, mm³/s
  };
  accel: {
    default: number;
    perimeter: number;
    infill: number;
    bridge: number;
    firstLayer: number;
    travel: number;
  };
  jerkMmS: number; // machine_max_jerk_x/y
  maxFeedrateZ: number;
  /**
   * The machine limits PrusaSlicer's time estimate applies (machine_limits_usage =
   * time_estimate_only; the first, "normal mode", values): per axis x/y, z, e.
   */
  machine: {
    maxFeedrateXY: number; // machine_max_feedrate_x/y
    maxFeedrateE: number; // machine_max_feedrate_e
    maxAccelXY: number; // machine_max_acceleration_x/y
    maxAccelZ: number; // machine_max_acceleration_z
    maxAccelE: number; // machine_max_acceleration_e
    maxAccelExtruding: number; // machine_max_acceleration_extruding
    maxAccelRetracting: number; // machine_max_acceleration_retracting
    jerkZ: number; // machine_max_jerk_z
    jerkE: number; // machine_max_jerk_e
  };
  /** wipe: the nozzle moves back along the path it printed while it retracts (95 % of the retraction). */
  wipe: boolean;
  retractLengthMm: number;
  retractSpeedMmS: number;
  retractLiftMm: number;
  retractBeforeTravelMm: number;
  minLayerTimeS: number; // slowdown_below_layer_time
  minPrintSpeedMmS: number; // min_print_speed
}

export const DEFAULT_PRINT_SETTINGS: Readonly<PrintSettings> = Object.freeze({
  filament: 'PLA',
  filamentDiameterMm: 1.75,
  infillPercent: 15,
  layerHeightMm: 0.2,
  firstLayerHeightMm: 0.2,
  perimeters: 2,
  topLayers: 3,
  bottomLayers: 4,
  nozzleMm: 0.4,
  extrusionWidthMm: 0.45,
  firstLayerWidthMm: 0.42,
  topWidthMm: 0.4,
  solidInfillBelowAreaMm2: 70,
  speeds: Object.freeze({
    perimeter: 45,
    externalPerimeter: 25,
    smallPerimeter: 25,
    infill: 80,
    solidInfill: 80,
    topSolidInfill: 40,
    bridge: 25,
    firstLayer: 20,
    travel: 180,
    maxVolumetric: 15,
  }),
  accel: Object.freeze({
    default: 1000,
    perimeter: 800,
    infill: 1250,
    bridge: 1000,
    firstLayer: 800,
    travel: 1500,
  }),
  jerkMmS: 8,
  maxFeedrateZ: 12,
  machine: Object.freeze({
    maxFeedrateXY: 200,
    maxFeedrateE: 120,
    maxAccelXY: 1000,
    maxAccelZ: 200,
    maxAccelE: 5000,
    maxAccelExtruding: 1250,
    maxAccelRetracting: 1250,
    jerkZ: 0.4,
    jerkE: 4.5,
  }),
  wipe: true,
  retractLengthMm: 0.8,
  retractSpeedMmS: 35,
  retractLiftMm: 0.4,
  retractBeforeTravelMm: 1,
  minLayerTimeS: 15,
  minPrintSpeedMmS: 15,
}) as Readonly<PrintSettings>;

export type PrintSettingsInput = Partial<Omit<PrintSettings, 'speeds' | 'accel' | 'machine'>> & {
  speeds?: Partial<PrintSettings['speeds']>;
  accel?: Partial<PrintSettings['accel']>;
  machine?: Partial<PrintSettings['machine']>;
};

export function resolveSettings(input: PrintSettingsInput = {}): PrintSettings {
  const d = DEFAULT_PRINT_SETTINGS;
  const s: PrintSettings = {
    ...d,
    ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)),
    speeds: { ...d.speeds, ...(input.speeds ?? {}) },
    accel: { ...d.accel, ...(input.accel ?? {}) },
    machine: { ...d.machine, ...(input.machine ?? {}) },
  } as PrintSettings;
  if (input.layerHeightMm !== undefined && input.firstLayerHeightMm === undefined)
    s.firstLayerHeightMm = input.layerHeightMm;
  if (input.nozzleMm !== undefined && input.extrusionWidthMm === undefined) {
    // PrusaSlicer's profile widths scale with the nozzle (0.45/0.42/0.40 for 0.4 mm).
    const k = input.nozzleMm / d.nozzleMm;
    s.extrusionWidthMm = d.extrusionWidthMm * k;
    s.firstLayerWidthMm = d.firstLayerWidthMm * k;
    s.topWidthMm = d.topWidthMm * k;
  }
  const bad = (name: string) => {
    throw new RangeError(`Invalid print setting: ${name}`);
  };
  if (!(s.infillPercent >= 0 && s.infillPercent <= 100)) bad('infillPercent (0-100)');
  if (!(s.layerHeightMm >= 0.04 && s.layerHeightMm <= 0.8 * s.nozzleMm + 1e-9))
    bad('layerHeightMm (0.04 to 0.8 x nozzle)');
  if (!(s.firstLayerHeightMm >= 0.04 && s.firstLayerHeightMm <= s.nozzleMm)) bad('firstLayerHeightMm');
  if (!(Number.isInteger(s.perimeters) && s.perimeters >= 0 && s.perimeters <= 20)) bad('perimeters (0-20)');
  if (!(Number.isInteger(s.topLayers) && s.topLayers >= 0 && s.topLayers <= 50)) bad('topLayers (0-50)');
  if (!(Number.isInteger(s.bottomLayers) && s.bottomLayers >= 0 && s.bottomLayers <= 50))
    bad('bottomLayers (0-50)');
  if (!(s.nozzleMm >= 0.1 && s.nozzleMm <= 2)) bad('nozzleMm (0.1-2)');
  if (!(s.densityGPerCm3 === undefined || (s.densityGPerCm3 > 0.5 && s.densityGPerCm3 < 3)))
    bad('densityGPerCm3');
  return s;
}

export function densityOf(s: PrintSettings): number {
  return s.densityGPerCm3 ?? FILAMENT_DENSITY_G_PER_CM3[s.filament];
}
