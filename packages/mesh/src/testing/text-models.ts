/**
 * Text models for the tolerant-reader tests: a triangle list written as a clean ASCII STL or OBJ,
 * or with the harmless quirks hand-made and odd exporters' files have, every number printed so
 * it reads back to the same float32 (so the quirky file must give the clean file's mesh).
 */
export type Point = [number, number, number];
export type Triangle = [Point, Point, Point];

/** The triangles of a binary STL (float32 values, as doubles). */
export function trianglesOfBinaryStl(bytes: Uint8Array): Triangle[] {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = dv.getUint32(80, true);
  const tris: Triangle[] = [];
  for (let t = 0; t < n; t++) {
    const at = (c: number): Point =>
      [0, 1, 2].map((a) => dv.getFloat32(84 + 50 * t + 12 + c * 12 + a * 4, true)) as Point;
    tris.push([at(0), at(1), at(2)]);
  }
  return tris;
}

/** The shortest text that reads back to this value, keeping the sign of zero (the weld tells them apart). */
export function shortest(v: number): string {
  return Object.is(v, -0) ? '-0' : String(v);
}

/** C99 `%a` form of a double: what strtod and scanf's %f read as a hexadecimal float. */
export function hexFloat(v: number): string {
  const sign = v < 0 || Object.is(v, -0) ? '-' : '';
  let m = Math.abs(v);
  if (m === 0) return `${sign}0x0p+0`;
  let e = Math.floor(Math.log2(m));
  if (m / 2 ** e >= 2) e++;
  if (m / 2 ** e < 1) e--;
  m /= 2 ** e;
  let digits = '';
  let frac = m - 1;
  while (frac > 0) {
    frac *= 16;
    const d = Math.floor(frac);
    digits += d.toString(16);
    frac -= d;
  }
  return `${sign}0x1${digits ? '.' + digits : ''}p${e < 0 ? '-' : '+'}${Math.abs(e)}`;
}

/** Ways exporters print a number; each reads back to exactly the value given. */
export const NUMBER_FORMS: ((v: number) => string)[] = [
  shortest,
  (v) => (Object.is(v, -0) ? '-0e+00' : v.toExponential()),
  (v) => (Object.is(v, -0) ? '-0E+00' : v.toExponential().toUpperCase()),
  // MSVC's %e: three exponent digits.
  (v) => {
    const [m, e] = (Object.is(v, -0) ? '-0e+0' : v.toExponential()).split('e');
    return `${m}e${e![0]}${e!.slice(1).padStart(3, '0')}`;
  },
  (v) => (v > 0 || Object.is(v, 0) ? `+${shortest(v)}` : shortest(v)),
  (v) => (Number.isInteger(v) && !/e/.test(String(v)) ? `${shortest(v)}.` : shortest(v)),
  (v) => shortest(v).replace(/^(-?)0\./, '$1.'),
  (v) => (/[.e]/.test(shortest(v)) ? shortest(v).replace(/^([^e]*\.\d*)/, '$1000') : `${shortest(v)}.000000`),
  hexFloat,
];

export function cleanAsciiStl(tris: Triangle[]): string {
  const out = ['solid clean'];
  for (const t of tris) {
    out.push('facet normal 0 0 0', 'outer loop');
    for (const p of t) out.push(`vertex ${p.map(shortest).join(' ')}`);
    out.push('endloop', 'endfacet');
  }
  out.push('endsolid clean', '');
  return out.join('\n');
}

/** The mesh as OBJ: distinct points in order of first use, one `f` per triangle. */
export function objParts(tris: Triangle[]): { points: Point[]; faces: [number, number, number][] } {
  const ids = new Map<string, number>();
  const points: Point[] = [];
  const id = (p: Point): number => {
    const key = p.map(shortest).join(' ');
    let k = ids.get(key);
    if (k === undefined) {
      k = points.length;
      ids.set(key, k);
      points.push(p);
    }
    return k;
  };
  return { points, faces: tris.map((t) => t.map(id) as [number, number, number]) };
}

export function cleanObj(tris: Triangle[]): string {
  const { points, faces } = objParts(tris);
  return [
    ...points.map((p) => `v ${p.map(shortest).join(' ')}`),
    ...faces.map((f) => `f ${f.map((i) => i + 1).join(' ')}`),
    '',
  ].join('\n');
}

/** A small deterministic generator, so one fast-check integer drives every choice in a file. */
export function random(seed: number): {
  int: (n: number) => number;
  chance: (p: number) => boolean;
  pick: <T>(xs: readonly T[]) => T;
} {
  let s = seed >>> 0 || 1;
  const next = (): number => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return { int, chance: (p) => next() < p, pick: (xs) => xs[int(xs.length)]! };
}

const randomCase = (word: string, r: ReturnType<typeof random>): string =>
  r.pick([word, word.toUpperCase(), [...word].map((c) => (r.chance(0.5) ? c.toUpperCase() : c)).join('')]);

/**
 * The triangles as an ASCII STL with random harmless quirks that PrusaSlicer's or admesh's
 * reader takes (see stl.ts): keyword case, whitespace and line ends, solid/endsolid lines
 * (names, several blocks, none), normals of any kind or none, `outer loop`/`endloop`/`endfacet`
 * missing, text after `endloop`/`endfacet`, number forms, text or NUL padding at the end, a BOM.
 */
export function quirkyAsciiStl(tris: Triangle[], seed: number): Uint8Array {
  const r = random(seed);
  const eol = r.pick(['\n', '\r\n', '\r']);
  const gap = (): string => r.pick([' ', ' ', '  ', '\t', ' \t ']);
  const indent = (): string => (r.chance(0.5) ? r.pick(['', '  ', '\t', '    ']) : '');
  const blank = (): string => (r.chance(0.05) ? r.pick([eol, `  ${eol}`, `\t${eol}`]) : '');
  const word = (w: string): string => randomCase(w, r);
  const num = (v: number): string => r.pick(NUMBER_FORMS)(v);
  const solidLine = (): string =>
    word('solid') + r.pick(['', ' ', ' part', ' My Part v2 (final)', '\tname', ' solid']) + eol;
  const endsolidLine = (): string => word('endsolid') + r.pick(['', ' ', ' clean', ' another name']) + eol;
  const normalForm = r.int(6);
  let out = r.chance(0.2) ? '\ufeff' : '';
  if (r.chance(0.85)) out += solidLine();
  for (const [k, t] of tris.entries()) {
    if (k > 0 && r.chance(0.03))
      out += r.chance(0.5) ? endsolidLine() + solidLine() : r.chance(0.5) ? solidLine() : endsolidLine();
    // Within a facet any whitespace separates the words (scanf's " " matches line ends too).
    const sep = (): string => (r.chance(0.9) ? gap() : eol + indent());
    const normal = [
      () => ` ${word('normal')} ${[0, 0, 1].map(num).join(gap())}`,
      () =>
        ` ${word('normal')} ${r.pick(['nan nan nan', '-nan -nan -nan', '1.#QNAN 1.#QNAN 1.#QNAN', '-1.#IND00 0 0', 'inf -inf 0', 'x y z'])}`,
      () => ` ${word('normal')}`,
      () => '',
      () => ` ${word('normal')} 0 0`,
      () => ` ${word('normal')} ${[0.5, -0.25, 1e-30].map(num).join(gap())}`,
    ][normalForm]!;
    out += blank() + indent() + word('facet') + normal() + eol;
    const loop = r.int(6);
    if (loop > 1) out += indent() + word('outer') + gap() + word('loop') + eol;
    else if (loop === 1) out += indent() + word('outer') + eol;
    for (const p of t) out += indent() + word('vertex') + gap() + p.map(num).join(sep()) + eol + blank();
    // Text after endloop/endfacet runs to the line's end; without it the next keyword may share the line.
    const ending = (): string =>
      r.chance(0.1) ? r.pick([' ; made by hand', ' 12', '\tgarbage 1 2 3']) + eol : r.chance(0.1) ? ' ' : eol;
    if (r.chance(0.9)) out += indent() + word('endloop') + ending();
    if (r.chance(0.9)) out += indent() + word('endfacet') + ending();
  }
  if (r.chance(0.8)) out += endsolidLine();
  if (r.chance(0.2))
    out += r.pick(['; exported by a script' + eol, `${eol}${eol}`, 'END' + eol, 'endsolid again' + eol]);
  const bytes = new TextEncoder().encode(out);
  if (!r.chance(0.15)) return bytes;
  const padded = new Uint8Array(bytes.length + 1 + r.int(600));
  padded.set(bytes);
  return padded;
}

/**
 * The triangles as an OBJ with random harmless quirks PrusaSlicer takes or the OBJ specification
 * defines (see obj.ts): blanks and tabs, line ends, comments (own lines and after a statement),
 * statements it ignores, w and colours after a vertex, every corner form and relative indices,
 * `+` signs, number forms, `\` continuations, an empty `f`, NUL padding, a BOM.
 */
export function quirkyObj(tris: Triangle[], seed: number): Uint8Array {
  const r = random(seed);
  const { points, faces } = objParts(tris);
  const eol = r.pick(['\n', '\r\n', '\r']);
  const gap = (): string => r.pick([' ', ' ', '  ', '\t', ' \t ']);
  const lead = (): string => (r.chance(0.2) ? r.pick([' ', '\t', '  ']) : '');
  const num = (v: number): string => r.pick(NUMBER_FORMS)(v);
  const comment = (): string =>
    r.chance(0.1) ? `${gap()}# ${r.pick(['note', 'f 1 2 3', 'v 0 0 0', ''])}` : '';
  const noise = (): string =>
    r.chance(0.05)
      ? lead() +
        r.pick([
          '# comment',
          '#',
          'vt 0.5 0.5',
          'vn 0 0 1',
          'g part',
          'o object name',
          's off',
          's 1',
          'usemtl red',
          'mtllib x.mtl',
          'l 1 2',
          'f ',
          '',
        ]) +
        eol
      : '';
  let out = r.chance(0.2) ? '\ufeff' : '';
  if (r.chance(0.5)) out += '# made by hand' + eol;
  for (const p of points) {
    const words = p.map(num);
    // A backslash may continue a vertex that is still short of its z.
    const split = r.chance(0.05) ? 1 + r.int(2) : 0;
    const body = split
      ? `${words.slice(0, split).join(gap())}${r.pick([' \\', '\\', ' \\ '])}${eol}${lead()}${words.slice(split).join(gap())}`
      : words.join(gap());
    const extra = r.pick(['', '', '', ' 1', ' 1.0', ' 0.5 0.5 0.5', ' 0.5 0.5 0.5 1']);
    out += noise() + lead() + 'v' + gap() + body + extra + comment() + eol;
  }
  const forms = [
    (i: number) => `${i}`,
    (i: number) => `${i}/${i}`,
    (i: number) => `${i}/${i}/${i}`,
    (i: number) => `${i}//${i}`,
    (i: number) => `+${i}`,
  ];
  for (const f of faces) {
    const relative = r.chance(0.2);
    const corners = f.map((v) =>
      r
        .pick(forms)(relative ? v - points.length : v + 1)
        .replace('+-', '-'),
    );
    const at = r.chance(0.08) ? 1 + r.int(2) : 0;
    const body = at
      ? `${corners.slice(0, at).join(gap())}${r.pick([' \\', '\\'])}${eol}${lead()}${corners.slice(at).join(gap())}`
      : corners.join(gap());
    out += noise() + lead() + 'f' + gap() + body + comment() + eol;
  }
  const bytes = new TextEncoder().encode(out);
  if (!r.chance(0.15)) return bytes;
  const padded = new Uint8Array(bytes.length + 1 + r.int(600));
  padded.set(bytes);
  return padded;
}
