import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filamentSectionFor } from './material-profiles.ts';
import { composePrintProfile, genericStartGcode } from './print-profile.ts';
import { PROFILE_PATH } from './prusa-slicer.ts';
import { DEBIAN_PROFILES_DIR, findProfilesDir, listPrinterPresets, loadVendorBundle } from './vendor-bundles.ts';

/** Small bundles in PrusaSlicer's format, written for these tests (not copied from PrusaSlicer's). */
const PRUSA = `[vendor]
name = Test
[filament:*common*]
cooling = 1
filament_retract_length = nil
compatible_printers_condition = nozzle_diameter[0]!=0.8
[filament:Generic PETG]
inherits = *common*
first_layer_temperature = 230
temperature = 240
first_layer_bed_temperature = 85
bed_temperature = 90
filament_type = PETG
filament_retract_length = 1
[filament:Generic PETG @MINI]
inherits = Generic PETG
filament_max_volumetric_speed = 7
[filament:Generic PETG @0.6 nozzle MINI]
inherits = Generic PETG @MINI
temperature = 245
[filament:Generic PETG @0.8 nozzle]
inherits = Generic PETG
temperature = 250
[printer:*common*]
printer_technology = FFF
bed_shape = 0x0,250x0,250x210,0x210
max_print_height = 210
nozzle_diameter = 0.4
start_gcode = G28 W ; home\\nG80 ; mesh bed leveling
end_gcode = M84
printer_model = MK9
octoprint_host = printer.local
post_process = /bin/sh evil.sh
[printer:Test MK9]
inherits = *common*
[printer:Test MINI 0.6 nozzle]
inherits = *common*
bed_shape = -2x-2,178x-2,178x178,-2x178
max_print_height = 180
nozzle_diameter = 0.6
printer_model = MINI
[printer:Test Resin]
printer_technology = SLA
bed_shape = 0x0,120x0,120x68,0x68
max_print_height = 150
[printer:Broken]
inherits = *gone*
`;
const OTHER = '[printer:Other Printer]\nbed_shape = 0x0,300x0,300x300,0x300\nmax_print_height = 400\nnozzle_diameter = 0.4,0.4\n';

const BASE = readFileSync(PROFILE_PATH, 'utf8');
const keys = (ini: string) => Object.fromEntries(ini.trim().split('\n').map((line) => [line.slice(0, line.indexOf(' = ')), line.slice(line.indexOf(' = ') + 3)]));

describe('printer and material profiles from vendor bundles', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'layerline-bundles-test-'));
    await writeFile(path.join(dir, 'PrusaResearch.ini'), PRUSA);
    await writeFile(path.join(dir, 'Other.ini'), OTHER);
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));
  const compose = (printer: Parameters<typeof composePrintProfile>[0]['printer'], filament: 'PETG' | 'PLA' = 'PETG') =>
    composePrintProfile({ baseProfile: BASE, printer, filament, bundles: { profilesDir: dir } }).then(keys);

  it('lists FFF printer presets with their bed, height and nozzle; abstract, resin and broken ones left out', async () => {
    expect(await listPrinterPresets({ profilesDir: dir })).toEqual({
      available: true,
      presets: [
        { vendor: 'Other', preset: 'Other Printer', bedMm: { x: 300, y: 300 }, maxHeightMm: 400, nozzleMm: 0.4 },
        { vendor: 'PrusaResearch', preset: 'Test MK9', bedMm: { x: 250, y: 210 }, maxHeightMm: 210, nozzleMm: 0.4 },
        { vendor: 'PrusaResearch', preset: 'Test MINI 0.6 nozzle', bedMm: { x: 180, y: 180 }, maxHeightMm: 180, nozzleMm: 0.6 },
      ],
    });
    expect(await listPrinterPresets({ profilesDir: path.join(dir, 'nowhere') })).toEqual({ available: false, presets: [] });
  });

  it('a bundled preset: its printer settings, the material over it, never its post-processing or print host', async () => {
    const ini = await compose({ nozzleMm: 0.4, bedMm: { x: 100, y: 100, z: 100 }, profile: { kind: 'bundled', vendor: 'PrusaResearch', preset: 'Test MK9' } });
    expect(ini).toMatchObject({
      bed_shape: '0x0,250x0,250x210,0x210', // the preset's, not the row's
      start_gcode: 'G28 W ; home\\nG80 ; mesh bed leveling',
      printer_settings_id: 'Test MK9',
      filament_settings_id: '"Generic PETG"',
      first_layer_temperature: '230',
      temperature: '240',
      first_layer_bed_temperature: '85',
      bed_temperature: '90',
      filament_type: 'PETG',
      filament_retract_length: '1',
      post_process: '',
      layer_height: '0.2', // the print settings stay Layerline's
    });
    expect(ini).not.toHaveProperty('octoprint_host');
    expect(ini).not.toHaveProperty('compatible_printers_condition');
    expect(Object.keys(ini).length).toBeGreaterThanOrEqual(261); // every key of the base profile is still there
  });

  it('picks the material variant named for the printer model and nozzle, else the plain profile', async () => {
    const ini = await loadVendorBundle(dir, 'PrusaResearch');
    const pick = (printerModel: string | null, nozzleMm: number) => filamentSectionFor(ini, 'PETG', { printerModel, nozzleMm }).name;
    expect(pick('MINI', 0.6)).toBe('Generic PETG @0.6 nozzle MINI');
    expect(pick('MINI', 0.4)).toBe('Generic PETG @MINI');
    expect(pick('MK9', 0.8)).toBe('Generic PETG @0.8 nozzle');
    expect(pick(null, 0.8)).toBe('Generic PETG @0.8 nozzle');
    expect(pick('MK9', 0.4)).toBe('Generic PETG');
    expect(filamentSectionFor(ini, 'PETG', { printerModel: 'MINI', nozzleMm: 0.6 }).settings.get('temperature')).toBe('245');
    expect(() => filamentSectionFor(ini, 'PLA', { printerModel: null, nozzleMm: 0.4 })).toThrow("PrusaSlicer's PrusaResearch profiles have no “Generic PLA” filament profile for PLA");
  });

  it('custom G-code goes in as written (escaped onto one line) with the printer’s own bed and nozzle', async () => {
    const ini = await compose({ nozzleMm: 0.6, bedMm: { x: 250, y: 210, z: 220 }, profile: { kind: 'custom', startGcode: 'M140 S[first_layer_bed_temperature]\nG28 ; home \\ all\nG29', endGcode: 'M84\n' } });
    expect(ini).toMatchObject({
      start_gcode: 'M140 S[first_layer_bed_temperature]\\nG28 ; home \\\\ all\\nG29',
      end_gcode: 'M84\\n',
      bed_shape: '0x0,250x0,250x210,0x210',
      max_print_height: '220',
      nozzle_diameter: '0.6',
      printer_settings_id: 'Layerline custom G-code',
      temperature: '240',
    });
  });

  it('no profile: the generic start G-code heats to the first-layer temperatures, homes and purges', async () => {
    const ini = await compose({ nozzleMm: 0.4, bedMm: { x: 180, y: 180, z: 180 } });
    expect(ini.start_gcode).toBe(genericStartGcode(180).replace(/\n/g, '\\n'));
    expect(ini.printer_settings_id).toBe('Layerline generic');
    const lines = genericStartGcode(180).split('\n');
    expect(lines).toEqual(expect.arrayContaining([
      'M190 S[first_layer_bed_temperature] ; wait for the bed',
      'M109 S[first_layer_temperature] ; wait for the nozzle',
      'G28 ; home all axes',
      'G1 X100 E12 F1000 ; purge line',
    ]));
    expect(lines[0]).toMatch(/no mesh bed levelling/);
    expect(genericStartGcode(60)).toContain('G1 X55 E12 F1000 ; purge line'); // stays on a small bed
  });

  it('a bundled preset the bundle cannot resolve, or a bundle not installed, is refused in words', async () => {
    await expect(compose({ nozzleMm: 0.4, bedMm: { x: 250, y: 210, z: 210 }, profile: { kind: 'bundled', vendor: 'PrusaResearch', preset: 'Broken' } }))
      .rejects.toThrow('The slicer profile [printer:Broken] inherits *gone*, which its bundle does not have');
    await expect(compose({ nozzleMm: 0.4, bedMm: { x: 250, y: 210, z: 210 }, profile: { kind: 'bundled', vendor: 'Creality', preset: 'Ender-3' } }))
      .rejects.toThrow(`PrusaSlicer's Creality profiles are not installed (no Creality.ini in ${dir})`);
    await expect(compose({ nozzleMm: 0.4, bedMm: { x: 250, y: 210, z: 210 }, profile: { kind: 'bundled', vendor: 'PrusaResearch', preset: 'Test Resin' } }))
      .rejects.toThrow('Test Resin is a resin printer');
  });
});

describe.skipIf(!existsSync(path.join(DEBIAN_PROFILES_DIR, 'PrusaResearch.ini')))('the installed PrusaSlicer 2.5 bundles', () => {
  it('are found beside the binary, and offer the MK3S but no SLA printer', async () => {
    expect(await findProfilesDir()).toBe(DEBIAN_PROFILES_DIR);
    const { available, presets } = await listPrinterPresets();
    expect(available).toBe(true);
    expect(presets).toContainEqual({ vendor: 'PrusaResearch', preset: 'Original Prusa i3 MK3S & MK3S+', bedMm: { x: 250, y: 210 }, maxHeightMm: 210, nozzleMm: 0.4 });
    expect(presets.find((p) => p.preset.includes('SL1'))).toBeUndefined();
  });

  it('give each material its bundled profile (materials.md): MINI and 0.8 mm variants where they exist', async () => {
    const ini = await loadVendorBundle(DEBIAN_PROFILES_DIR, 'PrusaResearch');
    const of = (material: 'PLA' | 'PETG' | 'ABS' | 'ASA' | 'TPU' | 'Nylon', printerModel: string | null = 'MK3S', nozzleMm = 0.4) => filamentSectionFor(ini, material, { printerModel, nozzleMm });
    const temps = (s: Map<string, string>) => ['first_layer_temperature', 'temperature', 'first_layer_bed_temperature', 'bed_temperature', 'filament_max_volumetric_speed'].map((k) => Number(s.get(k)));
    expect(temps(of('PLA').settings)).toEqual([215, 210, 60, 60, 15]);
    expect(temps(of('PETG').settings)).toEqual([230, 240, 85, 90, 8]);
    expect(temps(of('ABS').settings)).toEqual([255, 255, 100, 110, 11]);
    expect(temps(of('ASA').settings)).toEqual([260, 260, 105, 110, 11]);
    expect(temps(of('TPU').settings)).toEqual([240, 240, 50, 50, 1.2]);
    expect(temps(of('Nylon').settings)).toEqual([265, 265, 105, 110, 6]);
    expect(of('PETG', 'MINI').name).toBe('Generic PETG @MINI');
    expect(of('PLA', 'MK3S', 0.8).name).toBe('Generic PLA @0.8 nozzle');
    expect(of('PETG', 'MINI', 0.6).name).toBe('Generic PETG @0.6 nozzle MINI');
  });
});
