import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CODE128_QUIET_MODULES, CODE128_WIDTH_TABLE, code128Modules, code128Values } from './code128.ts';

/**
 * The encoder against the standard, and zbar (zbar-tools, which .ci/run installs) reading its
 * modules as a bitmap. The bars drawn on a page are scanned by the documents' tests (packing slip,
 * sandbox label).
 */

const dir = mkdtempSync(join(tmpdir(), 'code128-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Scans images with zbar for Code 128 only; the decoded symbols, one per line. */
function scan(...images: string[]): string[] {
  const args = ['--raw', '-q', '-Sdisable', '-Scode128.enable', ...images];
  const out = execFileSync('zbarimg', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return out.split('\n').filter((line) => line !== '');
}

describe('Code 128 (code set B)', () => {
  it('has 107 symbols of 11 modules (the stop 13), three bars of even total width in each', () => {
    expect(CODE128_WIDTH_TABLE).toHaveLength(107);
    CODE128_WIDTH_TABLE.forEach((widths, value) => {
      const digits = Array.from(widths, Number);
      const total = digits.reduce((a, b) => a + b, 0);
      expect(total, `symbol ${value}`).toBe(value === 106 ? 13 : 11);
      const bars = digits.filter((_, i) => i % 2 === 0).reduce((a, b) => a + b, 0);
      expect(bars % 2, `symbol ${value}`).toBe(0);
    });
    expect(new Set(CODE128_WIDTH_TABLE).size).toBe(107);
  });

  it('computes the checksum of the standard worked example ("PJJ123C" → 55)', () => {
    expect(code128Values('PJJ123C')).toEqual([104, 48, 42, 42, 17, 18, 19, 35, 55, 106]);
  });

  it('starts with start B and ends with the stop pattern', () => {
    const modules = code128Modules('A');
    expect(modules.startsWith('11010010000')).toBe(true);
    expect(modules.endsWith('1100011101011')).toBe(true);
    expect(modules).toHaveLength(11 * 3 + 13);
  });

  it('refuses what code set B cannot encode', () => {
    expect(() => code128Values('')).toThrow();
    expect(() => code128Values('café')).toThrow(/character code 233/);
    expect(() => code128Values('a\nb')).toThrow();
  });

  it('zbar decodes every code set B character and every checksum value', () => {
    const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('');
    const samples = [printable];
    // For each checksum value 0-102, a two-character text whose checksum is that value, so every
    // symbol of the table (95-102 appear only as checksums in code set B) is read by zbar.
    for (let target = 0; target < 103; target++) {
      const found = (() => {
        for (let a = 33; a < 127; a++)
          for (let b = 33; b < 127; b++) {
            const text = String.fromCharCode(a, b);
            if (code128Values(text)[3] === target) return text;
          }
        throw new Error(`no text with checksum ${target}`);
      })();
      samples.push(found);
    }
    const images = samples.map((text, i) => {
      const quiet = '0'.repeat(CODE128_QUIET_MODULES);
      const modules = `${quiet}${code128Modules(text)}${quiet}`;
      const row = Array.from(modules, (m) => `${m} ${m} ${m}`).join(' ');
      const path = join(dir, `code128-${i}.pbm`);
      writeFileSync(path, `P1\n${modules.length * 3} 40\n${`${row}\n`.repeat(40)}`);
      return path;
    });
    expect(scan(...images)).toEqual(samples);
  });
});
