import { spawnSync } from 'node:child_process';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const path = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const BIN = path('../bin/layerline.mjs');
const BUNDLE = path('../dist/layerline.mjs');
const STAMP = path('../dist/layerline.inputs.json');
const SOURCE = path('./cli.ts');
const DIR = '/work/shared/models/';
const node = (...args: string[]) => spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 30_000 });
// What users run: the bin, which runs the bundle (building it first when a source changed).
const run = (...args: string[]) => node(BIN, ...args);

describe('layerline quote', () => {
  it('--json prints one array with the documented fields and exits 0', () => {
    const r = run('quote', DIR + 'ps-20mm_cube.obj', DIR + 'voron-filament_card.stl', '--json');
    expect(r.status).toBe(0);
    const rows = JSON.parse(r.stdout);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({
      file: DIR + 'ps-20mm_cube.obj',
      format: 'obj',
      triangles: 12,
      volumeMm3: 8000,
      bboxMm: [20, 20, 20],
      problems: [],
    });
    for (const row of rows) {
      expect(row.grams).toBeGreaterThan(0);
      expect(row.printSeconds).toBeGreaterThan(0);
      expect(row.costUsd).toBeGreaterThan(0);
    }
  });

  it('reports an unreadable file in its row and exits 1', () => {
    const dir = mkdtempSync(join(tmpdir(), 'layerline-'));
    writeFileSync(join(dir, 'evil.stl'), '<html><script>alert(1)</script></html>');
    const r = run(
      'quote',
      DIR + 'ps-20mm_cube.obj',
      DIR + 'openscad-empty.stl',
      join(dir, 'evil.stl'),
      join(dir, 'missing.stl'),
      '--json',
    );
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
    const dense = JSON.parse(
      run('quote', DIR + 'ps-20mm_cube.obj', '--json', '--infill', '40', '--filament', 'petg', '--layer=0.15')
        .stdout,
    )[0];
    expect(dense.grams).toBeGreaterThan(base.grams);
    expect(dense.printSeconds).toBeGreaterThan(base.printSeconds);
  });

  it('prints a table without --json', () => {
    const r = run('quote', DIR + 'ps-20mm_cube.obj');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/ps-20mm_cube\.obj\s+obj\s+12/);
    expect(r.stdout.split('\n')[0]).toMatch(/grams/);
  });

  for (const args of [
    [],
    ['price', 'x'],
    ['quote'],
    ['quote', 'x', '--infill', '150'],
    ['quote', 'x', '--filament', 'wood'],
    ['quote', 'x', '--layer'],
    ['quote', 'x', '--bogus'],
  ]) {
    it(`bad usage ${JSON.stringify(args)} exits 2 with usage`, () => {
      const r = run(...args);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/Usage: layerline quote/);
      expect(r.stdout).toBe('');
    });
  }

  describe('the prebuilt bundle', () => {
    it('is what the bin runs: no TypeScript is loaded', () => {
      run('quote', '--help');
      const r = node('--no-experimental-strip-types', BIN, 'quote', DIR + 'ps-20mm_cube.obj', '--json');
      expect(r.stderr).toBe('');
      expect(JSON.parse(r.stdout)[0]).toMatchObject({ triangles: 12, volumeMm3: 8000 });
      expect(node('--no-experimental-strip-types', SOURCE, 'quote', '--help').stderr).toMatch(
        /ERR_UNKNOWN_FILE_EXTENSION/,
      );
    });

    it('answers exactly as the TypeScript source', () => {
      run('quote', '--help'); // the bundle is built from the sources as they are now
      const files = [
        'ps-20mm_cube.obj',
        '3mfs-components.3mf',
        'voron-filament_card.stl',
        'ps-20mmbox-CRLF.stl',
        'openscad-empty.stl',
      ].map((f) => DIR + f);
      for (const args of [
        ['quote', ...files, '--json'],
        ['quote', ...files, '--filament', 'ABS', '--infill', '35'],
        ['quote', '--layer', '1'],
      ]) {
        const bundled = node(BUNDLE, ...args);
        const source = node(SOURCE, ...args);
        expect(bundled.stdout).toBe(source.stdout);
        expect(bundled.stderr).toBe(source.stderr);
        expect(bundled.status).toBe(source.status);
      }
    });

    it('is rebuilt by the bin when a file it was built from changed', () => {
      run('quote', '--help');
      const before = statSync(BUNDLE).mtimeMs;
      // The stamp records each input's size and mtime: this one no longer matches src/main.ts.
      writeFileSync(STAMP, JSON.stringify({ inputs: [['src/main.ts', -1, 0]] }));
      const r = run('quote', DIR + 'ps-20mm_cube.obj', '--json');
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout)[0].triangles).toBe(12);
      expect(statSync(BUNDLE).mtimeMs).toBeGreaterThan(before);
    });
  });
});
