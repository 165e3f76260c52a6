import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectPrusaSlicer, sliceWithPrusaSlicer } from './prusa-slicer.ts';
import { hostile3mf } from './test-helpers.ts';

/**
 * A 3MF may carry a whole PrusaSlicer config (Metadata/Slic3r_PE.config), and the CLI applies it.
 * Checked by hand: without a complete --load profile, `post_process` from such a file ran
 * `/bin/sh -c "id > ..."` as the slicer's user (root). Our profile sets every key, so it wins.
 */

const slicer = await detectPrusaSlicer();

describe.skipIf(!slicer.available)(`a 3MF carrying a hostile slicer config${slicer.available ? '' : ' (skipped: prusa-slicer is not installed)'}`, () => {
  let root: string;
  let marker: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'layerline-hostile-test-'));
    await chmod(root, 0o711);
    // World-writable /tmp, so the test would notice the script even if it ran as nobody.
    marker = path.join(os.tmpdir(), `layerline-pwned-${process.pid}-${Date.now()}`);
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(marker, { force: true });
  });

  // A farm printer's config is composed from the bundles over the same base profile (print-profile.ts).
  it.each([
    ['a quote', undefined],
    ['a farm printer with no profile', { nozzleMm: 0.4, bedMm: { x: 250, y: 210, z: 210 }, profile: null }],
  ] as const)('is sliced with our profile (%s): its post_process never runs and its settings do not apply', async (_, printer) => {
    const modelPath = path.join(root, 'upload.3mf');
    await writeFile(modelPath, hostile3mf(marker));
    const result = await sliceWithPrusaSlicer({
      modelPath,
      format: '3mf',
      settings: { layerHeightMm: 0.2, infillPercent: 15, filament: 'PLA', densityGPerCm3: 1.24 },
      scratchRoot: root,
      ...(printer ? { printer } : {}),
    });
    const gcode = readFileSync(result.gcodePath, 'utf8');
    expect(existsSync(marker)).toBe(false);
    expect(gcode).toMatch(/^; post_process = $/m);
    expect(gcode).toMatch(/^; fill_density = 15%$/m);
    expect(gcode).toMatch(/^; layer_height = 0\.2$/m);
    expect(gcode).not.toContain('HOSTILE');
    // Same cube as ps-20mm_cube.obj (3.50 g, 1689 s in REFERENCE.tsv).
    expect(result.grams).toBeCloseTo(3.5, 1);
    expect((await readdir(root)).sort()).toEqual([path.basename(result.gcodePath), 'upload.3mf'].sort());
    await rm(result.gcodePath);
  });
});
