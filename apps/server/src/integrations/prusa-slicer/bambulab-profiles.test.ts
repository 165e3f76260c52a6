import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BAMBULAB_MODELS } from '@layerline/contracts';
import { boxStl } from '../../../test/hostile-models.ts';
import { bambulabMachine, toPrusaSlicerGcode } from './bambulab-profiles.ts';
import { detectPrusaSlicer, sliceWithPrusaSlicer } from './prusa-slicer.ts';

/** Bambu Studio's placeholders that PrusaSlicer does not have: none may reach it. */
const BAMBU_ONLY = /bed_temperature_initial_layer|nozzle_temperature_initial_layer|initial_no_support_extruder|outer_wall_volumetric_speed|curr_bed_type|scan_first_layer|spiral_mode|print_sequence|retraction_length|nozzle_temperature_range_high/;

describe('Bambu Lab machine profiles for PrusaSlicer', () => {
  it.each(BAMBULAB_MODELS)('%s: its bed and height, and G-code in PrusaSlicer’s placeholder names only', (model) => {
    const machine = bambulabMachine(model);
    const side = model === 'A1 mini' ? 180 : 256;
    expect(machine.bedShape).toBe(`0x0,${side}x0,${side}x${side},0x${side}`);
    expect(Number(machine.maxPrintHeight)).toBeGreaterThanOrEqual(180);
    expect(machine.startGcode).not.toMatch(BAMBU_ONLY);
    expect(machine.endGcode).not.toMatch(BAMBU_ONLY);
    expect(machine.startGcode).toContain('M140 S{first_layer_bed_temperature[0]}');
  });

  it('translates a name only where it stands alone', () => {
    expect(toPrusaSlicerGcode('M104 S[nozzle_temperature_initial_layer] ; {nozzle_temperature[initial_extruder]}')).toBe(
      'M104 S[first_layer_temperature] ; {temperature[initial_extruder]}',
    );
  });

  describe('sliced by PrusaSlicer', async () => {
    const slicer = await detectPrusaSlicer();
    let root: string;
    let model: string;
    beforeAll(async () => {
      root = await mkdtemp(path.join(os.tmpdir(), 'layerline-bambu-profile-'));
      await chmod(root, 0o711); // searchable, so the sandbox can drop to nobody
      model = path.join(root, 'cube.stl');
      await writeFile(model, boxStl(20, 20, 10));
      await chmod(model, 0o644);
    });
    afterAll(async () => rm(root, { recursive: true, force: true }));

    it.skipIf(!slicer.available).each(['X1 Carbon', 'A1 mini'] as const)('%s: PrusaSlicer accepts the G-code and fills it in', async (bambu) => {
      const result = await sliceWithPrusaSlicer({
        modelPath: model,
        format: 'stl',
        settings: { layerHeightMm: 0.2, infillPercent: 15, filament: 'PLA', densityGPerCm3: 1.24 },
        printer: { nozzleMm: 0.4, bedMm: { x: 256, y: 256, z: 250 }, profile: { kind: 'bambulab', model: bambu } },
        scratchRoot: root,
      });
      const gcode = await readFile(result.gcodePath, 'utf8');
      await rm(result.gcodePath);
      expect(gcode).toContain(`;===== machine: ${bambu === 'X1 Carbon' ? 'X1' : 'A1 mini'}`);
      expect(gcode).toMatch(/^M1[49]0 S60\b/m); // the PLA profile’s first-layer bed temperature, filled in
      expect(gcode).toContain(`; printer_settings_id = Bambu Lab ${bambu} 0.4 nozzle`);
    }, 120_000);
  });
});
