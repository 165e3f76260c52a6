import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROFILE_PATH } from './prusa-slicer.ts';
import { removeStaleSlicerScratch } from './scratch.ts';

describe('removeStaleSlicerScratch', () => {
  it('removes old scratch directories only, never G-code handed to a caller', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'layerline-scratch-test-'));
    try {
      const old = new Date(Date.now() - 2 * 3600_000);
      await mkdir(path.join(root, 'layerline-slice-old1', 'work'), { recursive: true });
      await utimes(path.join(root, 'layerline-slice-old1'), old, old);
      await mkdir(path.join(root, 'layerline-slice-new1'));
      await writeFile(path.join(root, 'layerline-gcode-x.gcode'), '');
      await utimes(path.join(root, 'layerline-gcode-x.gcode'), old, old);
      await mkdir(path.join(root, 'unrelated'));
      await utimes(path.join(root, 'unrelated'), old, old);
      expect(await removeStaleSlicerScratch({ scratchRoot: root })).toBe(1);
      expect((await readdir(root)).sort()).toEqual(['layerline-gcode-x.gcode', 'layerline-slice-new1', 'unrelated']);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('profile.ini', () => {
  it('is complete (so it overrides any config a 3MF carries) and runs no post-processing', () => {
    const lines = readFileSync(PROFILE_PATH, 'utf8').split('\n').filter((l) => /^\w+ = /.test(l));
    expect(lines.length).toBe(261); // every PrusaSlicer 2.5 print/filament/printer key (models/README.md says 262)
    expect(lines).toContain('post_process = ');
    expect(lines).toContain('bed_shape = 0x0,250x0,250x210,0x210');
  });
});
