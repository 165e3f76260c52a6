/**
 * A C99 hexadecimal float (`0x1.8p3`, `-0X.Cp-2`, `0x1A`) in bytes [start, end), as C's
 * strtod and scanf's %f read it, or NaN. PrusaSlicer reads STL vertices with scanf and OBJ
 * vertices with strtod, so a file written with `%a` loads there; the text readers fall back
 * to this only for a token parseFloatBytes refused, which keeps it off the hot path.
 * Exact up to 13 significant hex digits (52 bits), which covers every float32 and double
 * `%a` prints.
 */
export function parseHexFloatBytes(b: Uint8Array, start: number, end: number): number {
  let i = start;
  let neg = false;
  if (b[i] === 45 /* - */) {
    neg = true;
    i++;
  } else if (b[i] === 43 /* + */) i++;
  if (b[i] !== 48 /* 0 */ || (b[i + 1]! | 32) !== 120 /* x */) return NaN;
  i += 2;
  let mant = 0;
  let binExp = 0;
  let any = false;
  let dot = false;
  for (; i < end; i++) {
    const c = b[i]!;
    if (c === 46 /* . */ && !dot) {
      dot = true;
      continue;
    }
    const d = hexDigit(c);
    if (d < 0) break;
    any = true;
    mant = mant * 16 + d;
    if (dot) binExp -= 4;
  }
  if (!any) return NaN;
  if (i < end && (b[i]! | 32) === 112 /* p */) {
    i++;
    let eneg = false;
    if (b[i] === 45) {
      eneg = true;
      i++;
    } else if (b[i] === 43) i++;
    let e = 0;
    let eany = false;
    for (; i < end; i++) {
      const d = b[i]! - 48;
      if (d < 0 || d > 9) break;
      if (e < 100_000) e = e * 10 + d;
      eany = true;
    }
    if (!eany) return NaN;
    binExp += eneg ? -e : e;
  }
  if (i !== end) return NaN;
  // Two steps, so a large mantissa with a very negative exponent does not underflow 2^exp first.
  const half = Math.trunc(binExp / 2);
  const v = mant * 2 ** half * 2 ** (binExp - half);
  return neg ? -v : v;
}

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 32;
  if (l >= 97 && l <= 102) return l - 87;
  return -1;
}
