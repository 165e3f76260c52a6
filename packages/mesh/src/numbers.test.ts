import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimal17ToDouble } from './numbers.ts';

/** Splits a decimal string the way the 3MF reader does and converts it with decimal17ToDouble. */
function convert(text: string): number {
  const m = /^(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text);
  if (!m) throw new Error(`not a plain decimal: ${text}`);
  const digits = (m[1]! + (m[2] ?? '')).replace(/^0+/, '');
  const exp = Number(m[3] ?? 0) - (m[2] ?? '').length;
  if (digits.length < 16 || digits.length > 17) throw new Error(`${text} does not have 16 or 17 significant digits`);
  return decimal17ToDouble(Number(digits.slice(0, 15)), Number(digits.slice(15)), digits.length - 15, exp);
}

const sixteenOrSeventeen = fc
  .tuple(fc.integer({ min: 1, max: 9 }), fc.stringMatching(/^\d{15,16}$/), fc.integer({ min: 0, max: 17 }), fc.integer({ min: -5, max: 5 }))
  .map(([lead, rest, point, e]) => {
    const digits = `${lead}${rest}`;
    const at = Math.min(point, digits.length);
    return `${digits.slice(0, at) || '0'}.${digits.slice(at)}e${e}`;
  })
  .filter((text) => {
    const m = /^(\d*)\.(\d*)e(-?\d+)$/.exec(text)!;
    const exp = Number(m[3]) - m[2]!.length;
    return exp >= -22 && exp <= 22;
  });

describe('decimal17ToDouble', () => {
  it('gives exactly what Number() gives, or NaN to say "ask Number()"', () => {
    let ambiguous = 0;
    fc.assert(
      fc.property(sixteenOrSeventeen, (text) => {
        const v = convert(text);
        if (!Number.isNaN(v)) expect(v).toBe(Number(text));
        // From 2^50 on, 16-17 digit decimals (x.5, odd integers) can sit exactly on a tie; below, ties are vanishingly rare.
        else if (Number(text) < 2 ** 50) ambiguous++;
      }),
      { numRuns: 20_000 },
    );
    expect(ambiguous).toBeLessThan(5); // the fast path must carry the load
  });

  it('reads doubles and float32 values printed with 17 digits (what exporters write) exactly', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-3, max: 1e4, noNaN: true }), fc.boolean(), (x, single) => {
        const value = single ? Math.fround(x) : x;
        const text = value.toPrecision(17);
        if (/e/.test(text) || text.replace(/^0\.0*|\./g, '').length !== 17) return;
        expect(convert(text)).toBe(value);
      }),
      { numRuns: 20_000 },
    );
  });

  it('declines a decimal sitting right on the tie between two doubles', () => {
    // 2^53 + 1 lies exactly halfway between the doubles 2^53 and 2^53 + 2.
    expect(convert('9007199254740993')).toBeNaN();
    expect(Number('9007199254740993')).toBe(9007199254740992);
    // Just off the tie the fast path answers, and rightly.
    expect(convert('9007199254740994')).toBe(9007199254740994);
  });
});
