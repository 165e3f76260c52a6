const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * Parses a decimal float from bytes [start, end) without building a string: text
 * formats spend most of their time here. Returns NaN for anything that is not a plain
 * decimal number (hex, "inf", trailing junk), so garbage is rejected, not guessed.
 */
export function parseFloatBytes(b: Uint8Array, start: number, end: number): number {
  let i = start;
  let neg = false;
  let c = b[i];
  if (c === 45 /* - */) {
    neg = true;
    i++;
  } else if (c === 43 /* + */) i++;
  let mant = 0;
  let digits = 0;
  let exp = 0;
  let any = false;
  while (i < end) {
    c = b[i]!;
    const d = c - 48;
    if (d < 0 || d > 9) break;
    any = true;
    if (digits < 17) {
      mant = mant * 10 + d;
      if (mant !== 0) digits++;
    } else exp++;
    i++;
  }
  if (i < end && b[i] === 46 /* . */) {
    i++;
    while (i < end) {
      c = b[i]!;
      const d = c - 48;
      if (d < 0 || d > 9) break;
      any = true;
      if (digits < 17) {
        mant = mant * 10 + d;
        if (mant !== 0) digits++;
        exp--;
      }
      i++;
    }
  }
  if (!any) return NaN;
  if (i < end && (b[i] === 101 || b[i] === 69) /* e E */) {
    i++;
    let eneg = false;
    if (b[i] === 45) {
      eneg = true;
      i++;
    } else if (b[i] === 43) i++;
    let e = 0;
    let eany = false;
    while (i < end) {
      const d = b[i]! - 48;
      if (d < 0 || d > 9) break;
      if (e < 10000) e = e * 10 + d;
      eany = true;
      i++;
    }
    if (!eany) return NaN;
    exp += eneg ? -e : e;
  }
  if (i !== end) return NaN;
  let v: number;
  if (exp === 0) v = mant;
  else if (exp > 0 && exp < 23) v = mant * POW10[exp]!;
  else if (exp < 0 && exp > -23) v = mant / POW10[-exp]!;
  else v = mant * 10 ** exp;
  return neg ? -v : v;
}

export function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}
