import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../bin/layerline.mjs', import.meta.url));
const DIR = '/work/shared/models/';
const run = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 30_000 });

describe('layerline quote', () => {
  it('--json prints one array with the documented fields and exits 0', () => {
    const r = run('quote', DIR + 'ps-20mm_cube.obj', DIR + 'voron-filament_card.stl', '--json');
    expect(r.status).toBe(0);
    const rows = JSON.parse(r.stdout);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ file: DIR + 'ps-20mm_cube.obj', format: 'obj', triangles: 12, volumeMm3: 8000, bboxMm: [20, 20, 20], problems: [] });
    for (const row of rows) {
      expect(row.grams).toBeGreaterThan(0);
      expect(row.printSeconds).toBeGreaterThan(0);
      expect(row.costUsd).toBeGreaterThan(0);
    }
  });

  it('reports an unreadable file in its row and exits 1', () => {
    const dir = mkdtempSync(join(tmpdir(), 'layerline-'));
    writeFileSync(join(dir, 'evil.stl'), '<html><script>alert(1)</script></html>');
    const r = run('quote', DIR + 'ps-20mm_cube.obj', DIR + 'openscad-empty.stl', join(dir, 'evil.stl'), join(dir, 'missing.stl'), '--json');
    expect(r.status).toBe(1);
    const rows = JSON.parse(r.stdout);
    expect(rows[0].error).toBeUndefined();
    expect(rows[1]).toMatchObject({ errorCode: 'empty' });
    expect(rows[2]).toMatchObject({ errorCode: 'unsupported-format' });
    expect(rows[2].error).toMatch(/HTML/);
    expect(rows[3].error).toMatch(/not found/i);
  });

  it('applies --filament, --infill and --layer', () => {
    const base = JSON.parse(run('quote', DIR + 'ps-20mm_cube.obj', '--json').stdout)[0];
    const dense = JSON.parse(run('quote', DIR + 'ps-20mm_cube.obj', '--json', '--infill', '40', '--filament', 'petg', '--layer=0.15').stdout)[0];
    expect(dense.grams).toBeGreaterThan(base.grams);
    expect(dense.printSeconds).toBeGreaterThan(base.printSeconds);
  });

  it('prints a table without --json', () => {
    const r = run('quote', DIR + 'ps-20mm_cube.obj');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/ps-20mm_cube\.obj\s+obj\s+12/);
    expect(r.stdout.split('\n')[0]).toMatch(/grams/);
  });

  for (const args of [[], ['price', 'x'], ['quote'], ['quote', 'x', '--infill', '150'], ['quote', 'x', '--filament', 'wood'], ['quote', 'x', '--layer'], ['quote', 'x', '--bogus']]) {
    it(`bad usage ${JSON.stringify(args)} exits 2 with usage`, () => {
      const r = run(...args);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/Usage: layerline quote/);
      expect(r.stdout).toBe('');
    });
  }
});
