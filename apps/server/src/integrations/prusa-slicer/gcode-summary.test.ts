import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseGcodeSummary, parsePrintTime, readGcodeSummary } from './gcode-summary.ts';

const FOOTER = [
  '; filament used [mm] = 1172.20',
  '; filament used [cm3] = 2.82',
  '; filament used [g] = 3.50',
  '; filament cost = 0.09',
  '; total filament used [g] = 3.50',
  '; total filament cost = 0.09',
  '; estimated printing time (normal mode) = 28m 9s',
  '; estimated printing time (silent mode) = 28m 11s',
  '',
  '; prusaslicer_config = begin',
  '; layer_height = 0.2',
  '; prusaslicer_config = end',
].join('\n');

describe('parsePrintTime', () => {
  it.each([
    ['28m 9s', 1689],
    ['1h 2m 3s', 3723],
    ['1d 2h 3m 4s', 93784],
    ['45s', 45],
    ['2h 0m 0s', 7200],
    ['3d 0h 0m 1s', 259201],
  ])('%s → %d s', (text, seconds) => expect(parsePrintTime(text)).toBe(seconds));

  it.each(['', 'soon', '1x 2s', '12'])('rejects %j', (text) => expect(parsePrintTime(text)).toBeNull());
});

describe('parseGcodeSummary', () => {
  it('reads the four comments the reference numbers come from', () => {
    expect(parseGcodeSummary(`G1 X1\n${FOOTER}`)).toEqual({ filamentMm: 1172.2, filamentCm3: 2.82, grams: 3.5, printSeconds: 1689 });
  });

  it('sums per-extruder lists and accepts CRLF', () => {
    const text = FOOTER.replace('= 1172.20', '= 1000.00, 172.20').replaceAll('\n', '\r\n');
    expect(parseGcodeSummary(text)?.filamentMm).toBeCloseTo(1172.2, 6);
  });

  it('is null when a value is missing or malformed', () => {
    expect(parseGcodeSummary(FOOTER.replace('; total filament used [g] = 3.50', ''))).toBeNull();
    expect(parseGcodeSummary(FOOTER.replace('= 28m 9s', '= later'))).toBeNull();
    expect(parseGcodeSummary(FOOTER.replace('= 2.82', '= nan'))).toBeNull();
  });

  it('finds the summary in a file whose tail does not hold it (falls back to a full read)', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'layerline-gcode-test-'));
    try {
      const file = path.join(dir, 'x.gcode');
      await writeFile(file, `${FOOTER}\n${'; padding\n'.repeat(80_000)}`);
      expect(await readGcodeSummary(file)).toEqual({ filamentMm: 1172.2, filamentCm3: 2.82, grams: 3.5, printSeconds: 1689 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
