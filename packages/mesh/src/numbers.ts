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

const SPLIT = 134217729; // 2^27 + 1, Veltkamp's splitter
const POW10_EXACT = Array.from({ length: 23 }, (_, i) => 10 ** i);
const NEAR_TIE = 2 ** -40;

/** a * b as hi + lo, exactly (Dekker's product; no fused multiply-add in JavaScript). */
function twoProductLo(a: number, b: number, p: number): number {
  let c = SPLIT * a;
  const ah = c - (c - a), al = a - ah;
  c = SPLIT * b;
  const bh = c - (c - b), bl = b - bh;
  return ah * bh - p + ah * bl + al * bh + al * bl;
}

/**
 * The correctly rounded double of (head * 10^tailDigits + tail) * 10^exp10 for a decimal of
 * 16 or 17 significant digits (head: the first 15, tail: the rest), |exp10| <= 22, or NaN
 * when the value lies so close to halfway between two doubles that only a full conversion
 * (Number()) can tell. Exporters that print doubles write 17 digits, and Number() on a string
 * for each is most of the time such a file takes to read.
 *
 * The significand (< 10^17) is held exactly as a double-double and scaled by the exact power
 * of ten with error-free products, so the result is within ~2^-104 of the true value: rounding
 * it is correct unless it sits on the edge of a tie, which the perturbation test catches.
 */
export function decimal17ToDouble(head: number, tail: number, tailDigits: number, exp10: number): number {
  // Significand as hi + lo, exactly.
  const scale = POW10_EXACT[tailDigits]!;
  const p = head * scale;
  const pe = twoProductLo(head, scale, p);
  let hi = p + tail;
  const bb = hi - p;
  let lo = p - (hi - bb) + (tail - bb) + pe;
  let s = hi + lo;
  lo = lo - (s - hi);
  hi = s;
  if (exp10 > 0) {
    const d = POW10_EXACT[exp10]!;
    const q = hi * d;
    lo = twoProductLo(hi, d, q) + lo * d;
    hi = q;
  } else if (exp10 < 0) {
    const d = POW10_EXACT[-exp10]!;
    const q1 = hi / d;
    const m = q1 * d;
    const r = hi - m - twoProductLo(q1, d, m) + lo;
    hi = q1;
    lo = r / d;
  }
  s = hi + lo;
  lo = lo - (s - hi);
  if (s + lo * (1 + NEAR_TIE) !== s || s + lo * (1 - NEAR_TIE) !== s) return NaN;
  return s;
}
