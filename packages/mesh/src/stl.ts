import { MeshBuilder, type IndexedMesh } from './builder.ts';
import { MeshError } from './errors.ts';
import { MESH_LIMITS } from './limits.ts';
import { isSpace, parseFloatBytes } from './numbers.ts';

export function parseBinaryStl(bytes: Uint8Array): IndexedMesh {
  const n = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(80, true);
  if (84 + 50 * n !== bytes.length) {
    throw new MeshError('malformed', `Binary STL size mismatch: ${n} triangles need ${84 + 50 * n} bytes, file has ${bytes.length}.`);
  }
  if (n === 0) throw new MeshError('empty', 'The STL file declares 0 triangles.');
  if (n > MESH_LIMITS.maxTriangles) {
    throw new MeshError('too-many-triangles', `The STL declares ${n} triangles; the limit is ${MESH_LIMITS.maxTriangles}.`);
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

/**
 * A strict tokenizer over the bytes: any token out of place is 'malformed', so a text
 * file that merely starts with "solid" is not accepted. Any whitespace (CR, LF, CRLF)
 * separates tokens, which is why CR-only files read fine.
 */
export function parseAsciiStl(bytes: Uint8Array): IndexedMesh {
  const len = bytes.length;
  let pos = 0;
  let tokStart = 0;
  let tokEnd = 0;
  let line = 1;
  const next = (): boolean => {
    while (pos < len && isSpace(bytes[pos]!)) {
      if (bytes[pos] === 10 || (bytes[pos] === 13 && bytes[pos + 1] !== 10)) line++;
      pos++;
    }
    if (pos >= len) return false;
    tokStart = pos;
    while (pos < len && !isSpace(bytes[pos]!)) pos++;
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
  const fail = (what: string): never => {
    throw new MeshError('malformed', `ASCII STL: ${what} near line ${line}.`);
  };
  const skipRestOfLine = (): void => {
    while (pos < len && bytes[pos] !== 10 && bytes[pos] !== 13) pos++;
  };
  const num = (): number => {
    if (!next()) fail('unexpected end of file');
    const v = parseFloatBytes(bytes, tokStart, tokEnd);
    if (!Number.isFinite(v)) fail('expected a number');
    return v;
  };

  const b = new MeshBuilder(Math.max(16, Math.floor(len / 250)));
  try {
    let sawSolid = false;
    const loopIds: number[] = [];
    if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) pos = 3;
    while (next()) {
      if (!is('solid')) fail('expected "solid"');
      sawSolid = true;
      skipRestOfLine();
      let closed = false;
      while (next()) {
        if (is('endsolid')) {
          skipRestOfLine();
          closed = true;
          break;
        }
        if (!is('facet')) fail('expected "facet" or "endsolid"');
        if (!next() || !is('normal')) fail('expected "normal"');
        // Exporters write "nan" or garbage normals; the winding is what counts, so only skip them.
        for (let k = 0; k < 3; k++) if (!next()) fail('unexpected end of file');
        if (!next() || !is('outer')) fail('expected "outer loop"');
        if (!next() || !is('loop')) fail('expected "outer loop"');
        loopIds.length = 0;
        for (;;) {
          if (!next()) fail('unexpected end of file');
          if (is('endloop')) break;
          if (!is('vertex')) fail('expected "vertex" or "endloop"');
          const x = num(), y = num(), z = num();
          loopIds.push(b.vertex(x, y, z));
          if (loopIds.length > 1024) fail('too many vertices in one facet');
        }
        if (loopIds.length < 3) fail('a facet has fewer than 3 vertices');
        for (let k = 1; k + 1 < loopIds.length; k++) b.triangle(loopIds[0]!, loopIds[k]!, loopIds[k + 1]!);
        if (!next() || !is('endfacet')) fail('expected "endfacet"');
      }
      if (!closed) {
        // Many exporters truncate the last line; accept a missing "endsolid" only at EOF and after facets.
        if (b.triangleCount === 0) fail('no facets and no "endsolid"');
        break;
      }
    }
    if (!sawSolid) fail('no "solid" block');
    if (b.triangleCount === 0) throw new MeshError('empty', 'The ASCII STL has no facets.');
    return b.finish();
  } finally {
    b.dispose();
  }
}
