import { MeshBuilder, type IndexedMesh } from './builder.ts';
import { MeshError } from './errors.ts';
import { MESH_LIMITS } from './limits.ts';
import { parseHexFloatBytes } from './hex-float.ts';
import { parseFloatBytes } from './numbers.ts';

/**
 * The triangles a binary STL of this size holds by its header, or null when its size does not
 * fit them. A count of 0 is a writer that never filled it in: admesh (PrusaSlicer) counts the
 * records by the file's size and only warns, and so do we then. Any other mismatch is refused,
 * since a cut-off upload must not be quoted as if it were the whole part.
 */
export function binaryStlTriangles(bytes: Uint8Array): number | null {
  if (bytes.length < 84) return null;
  const n = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(80, true);
  if (84 + 50 * n === bytes.length) return n;
  if (n === 0 && (bytes.length - 84) % 50 === 0) return (bytes.length - 84) / 50;
  return null;
}

export function parseBinaryStl(bytes: Uint8Array): IndexedMesh {
  const n = binaryStlTriangles(bytes);
  if (n === null) {
    const declared = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(80, true);
    throw new MeshError(
      'malformed',
      `Binary STL size mismatch: ${declared} triangles need ${84 + 50 * declared} bytes, file has ${bytes.length}.`,
    );
  }
  if (n === 0) throw new MeshError('empty', 'The STL file declares 0 triangles.');
  if (n > MESH_LIMITS.maxTriangles) {
    throw new MeshError(
      'too-many-triangles',
      `The STL declares ${n} triangles; the limit is ${MESH_LIMITS.maxTriangles}.`,
    );
  }
  const b = new MeshBuilder(n);
  try {
    b.gatherGeometry(n);
    b.addBinaryStl(bytes, n);
    return b.finish();
  } finally {
    b.dispose();
  }
}

/** Bytes that separate tokens: ASCII whitespace, and NUL, which pads some files at the end. */
const SEPARATOR = new Uint8Array(256);
for (const c of [0, 9, 10, 11, 12, 13, 32]) SEPARATOR[c] = 1;

/** The words of the format, lower case; any case is read (admesh never checks them). */
const KEYWORDS = ['solid', 'endsolid', 'facet', 'normal', 'outer', 'loop', 'vertex', 'endloop', 'endfacet'];

/**
 * Reads an ASCII STL as a stream of words in any case, separated by any whitespace (CR, LF, CR
 * LF, tabs, blank lines) or NUL. It takes what PrusaSlicer's reader (admesh's stl_read as
 * patched in PrusaSlicer, src/admesh/stlinit.cpp) and upstream admesh's (src/stlinit.c) take,
 * without their line counting:
 * - `solid NAME` and `endsolid NAME` lines anywhere, any number of them, each optional: a file
 *   may start at its first `facet`, hold several solids, or end without `endsolid`;
 * - a facet's normal is never read (the winding is what counts): `normal` and up to three
 *   words of any kind (`nan`, `1.#QNAN`, nothing) may follow `facet`;
 * - `outer loop`, `endloop` and `endfacet` may be missing; words after `endloop` or `endfacet`
 *   on their line are ignored ("Some G-code generators tend to produce text after ..."),
 *   unless they are the next keyword;
 * - numbers in any form C's scanf reads (`1`, `+1.`, `.5`, `1E+02`, `-1.5e-003`, `0x1.8p3`);
 * - after at least one facet, anything that holds no more `vertex` words ends the model
 *   (text after the last `endsolid`, NUL padding), as neither reader reads past its last facet.
 * Refused as `malformed`: a facet with fewer than 3 vertices, a coordinate that is not a finite
 * number (the point is nowhere), and any other word where a keyword belongs while geometry
 * follows. A facet with more than 3 vertices is fan-triangulated (PrusaSlicer refuses it).
 */
export function parseAsciiStl(bytes: Uint8Array): IndexedMesh {
  const len = bytes.length;
  let pos = 0;
  let tokStart = 0;
  let tokEnd = 0;
  let line = 1;
  const next = (): boolean => {
    while (pos < len && SEPARATOR[bytes[pos]!] === 1) {
      if (bytes[pos] === 10 || (bytes[pos] === 13 && bytes[pos + 1] !== 10)) line++;
      pos++;
    }
    if (pos >= len) return false;
    tokStart = pos;
    while (pos < len && SEPARATOR[bytes[pos]!] !== 1) pos++;
    tokEnd = pos;
    return true;
  };
  const is = (word: string): boolean => {
    if (tokEnd - tokStart !== word.length) return false;
    for (let i = 0; i < word.length; i++) {
      let c = bytes[tokStart + i]!;
      if (c >= 65 && c <= 90) c += 32;
      if (c !== word.charCodeAt(i)) return false;
    }
    return true;
  };
  /** Numbers and normals start with a digit, a sign or a dot: only a word may be a keyword. */
  const isKeyword = (): boolean => {
    const c = bytes[tokStart]! | 32;
    if (c < 97 || c > 122) return false;
    for (const k of KEYWORDS) if (is(k)) return true;
    return false;
  };
  const shown = (): string => {
    let s = '';
    for (let i = tokStart; i < tokEnd && i < tokStart + 24; i++) {
      const c = bytes[i]!;
      s += c >= 32 && c < 127 ? String.fromCharCode(c) : '?';
    }
    return tokEnd - tokStart > 24 ? `${s}...` : s;
  };
  const fail = (what: string): never => {
    throw new MeshError('malformed', `ASCII STL: ${what} near line ${line}.`);
  };
  const skipRestOfLine = (): void => {
    while (pos < len && bytes[pos] !== 10 && bytes[pos] !== 13) pos++;
  };
  /** Skips the words after a keyword on its line unless the first is a keyword; false at the end. */
  const nextSkippingTrailingText = (): boolean => {
    const keywordLine = line;
    if (!next()) return false;
    if (line !== keywordLine || isKeyword()) return true;
    skipRestOfLine();
    return next();
  };
  /** True when no `vertex` word follows: what is left holds no geometry. */
  const onlyTextLeft = (): boolean => {
    const [from, fromLine, word, wordEnd] = [pos, line, tokStart, tokEnd];
    let geometry = false;
    while (!geometry && next()) geometry = is('vertex');
    [pos, line, tokStart, tokEnd] = [from, fromLine, word, wordEnd];
    return !geometry;
  };
  const hexOrFail = (): number => {
    const v = parseHexFloatBytes(bytes, tokStart, tokEnd);
    if (!Number.isFinite(v)) fail(`expected a number, found "${shown()}"`);
    return v;
  };
  const num = (): number => {
    if (!next()) fail('unexpected end of file');
    const v = parseFloatBytes(bytes, tokStart, tokEnd);
    if (!Number.isFinite(v)) return hexOrFail();
    return v;
  };

  const b = new MeshBuilder(Math.max(16, Math.floor(len / 250)));
  try {
    let sawEndsolid = false;
    const loopIds: number[] = [];
    if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) pos = 3;
    let have = next();
    while (have) {
      if (!is('facet')) {
        if (is('solid') || is('endsolid')) {
          if (is('endsolid')) sawEndsolid = true;
          skipRestOfLine();
          have = next();
          continue;
        }
        if (b.triangleCount > 0 && !is('vertex') && onlyTextLeft()) break;
        fail(`expected "facet", "solid" or "endsolid", found "${shown()}"`);
      }
      have = next();
      if (have && is('normal')) {
        have = next();
        for (let k = 0; k < 3 && have && !isKeyword(); k++) have = next();
      }
      if (have && is('outer')) have = next();
      if (have && is('loop')) have = next();
      loopIds.length = 0;
      while (have && is('vertex')) {
        loopIds.push(b.vertex(num(), num(), num()));
        if (loopIds.length > 1024) fail('too many vertices in one facet');
        have = next();
      }
      if (loopIds.length < 3) {
        fail(have ? `a facet has ${loopIds.length} vertices before "${shown()}"` : 'unexpected end of file');
      }
      for (let k = 1; k + 1 < loopIds.length; k++) b.triangle(loopIds[0]!, loopIds[k]!, loopIds[k + 1]!);
      if (have && is('endloop')) have = nextSkippingTrailingText();
      if (have && is('endfacet')) have = nextSkippingTrailingText();
    }
    if (b.triangleCount === 0) {
      if (sawEndsolid) throw new MeshError('empty', 'The ASCII STL has no facets.');
      fail('no facets and no "endsolid"');
    }
    return b.finish();
  } finally {
    b.dispose();
  }
}
