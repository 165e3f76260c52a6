import { MeshError } from './errors.ts';
import { binaryStlTriangles } from './stl.ts';

export type ModelFormat = 'stl-binary' | 'stl-ascii' | 'obj' | '3mf';

// prettier-ignore
const OBJ_KEYWORDS = new Set([
  'v', 'vt', 'vn', 'vp', 'f', 'fo', 'l', 'p', 'o', 'g', 's', 'usemtl', 'mtllib',
  'cstype', 'deg', 'curv', 'curv2', 'surf', 'parm', 'trim', 'hole', 'scrv', 'sp', 'end', 'bmat', 'step',
  'mg', 'lod', 'maplib', 'usemap', 'shadow_obj', 'trace_obj', 'ctech', 'stech', 'call', 'csh',
]);

function startsWith(b: Uint8Array, at: number, ascii: string, ignoreCase = false): boolean {
  if (at + ascii.length > b.length) return false;
  for (let i = 0; i < ascii.length; i++) {
    let c = b[at + i]!;
    if (ignoreCase && c >= 65 && c <= 90) c += 32;
    if (c !== ascii.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * True when the sample has no bytes that never occur in a text model file. NULs that run to the
 * end of the file are padding (some tools pad to a block size), which the slicers never read.
 */
function looksLikeText(b: Uint8Array, limit: number): boolean {
  const end = Math.min(b.length, limit);
  for (let i = 0; i < end; i++) {
    const c = b[i]!;
    if (c === 0 && i > 0) return onlyNulFrom(b, i);
    if (c < 9 || (c > 13 && c < 32) || c === 127) return false;
  }
  return true;
}

function onlyNulFrom(b: Uint8Array, from: number): boolean {
  for (let i = from; i < b.length; i++) if (b[i] !== 0) return false;
  return true;
}

function isBlank(c: number | undefined): boolean {
  return c === 32 || (c !== undefined && c >= 9 && c <= 13);
}

function skipBomAndSpace(b: Uint8Array): number {
  let i = 0;
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) i = 3;
  while (i < b.length && (b[i] === 32 || (b[i]! >= 9 && b[i]! <= 13))) i++;
  return i;
}

/** Formats we know and refuse, so the message can say what the file really is. */
function foreignKind(b: Uint8Array): string | null {
  const i = skipBomAndSpace(b);
  if (startsWith(b, 0, 'MZ')) return 'a Windows executable';
  if (startsWith(b, 0, '\x7fELF')) return 'a Linux executable';
  if (startsWith(b, 0, '%PDF')) return 'a PDF document';
  if (startsWith(b, 0, '\x89PNG')) return 'a PNG image';
  if (startsWith(b, 0, 'GIF8')) return 'a GIF image';
  if (b[0] === 0xff && b[1] === 0xd8) return 'a JPEG image';
  if (startsWith(b, 0, '\x1f\x8b')) return 'a gzip archive';
  if (startsWith(b, 0, 'Rar!')) return 'a RAR archive';
  if (startsWith(b, 0, '7z\xbc\xaf')) return 'a 7-Zip archive';
  if (startsWith(b, i, '<svg', true)) return 'an SVG image';
  if (startsWith(b, i, '<!doctype html', true) || startsWith(b, i, '<html', true)) return 'an HTML page';
  if (startsWith(b, i, '<?xml')) return 'an XML document';
  if (b[i] === 60 /* < */) return 'an HTML or XML document';
  if (startsWith(b, i, '#!')) return 'a script';
  if (b[i] === 123 /* { */ || b[i] === 91 /* [ */) return 'a JSON document';
  return null;
}

function firstObjKeyword(b: Uint8Array): string | null {
  const end = Math.min(b.length, 65536);
  let i = skipBomAndSpace(b);
  while (i < end) {
    while (i < end && (b[i] === 32 || b[i] === 9 || b[i] === 10 || b[i] === 13)) i++;
    if (i >= end) return null;
    if (b[i] === 35 /* # */) {
      while (i < end && b[i] !== 10 && b[i] !== 13) i++;
      continue;
    }
    let j = i;
    while (j < end && b[j] !== 32 && b[j] !== 9 && b[j] !== 10 && b[j] !== 13) j++;
    let word = '';
    for (let k = i; k < j && k - i < 16; k++) word += String.fromCharCode(b[k]!);
    return word;
  }
  return null;
}

/**
 * Decides the format from the bytes alone; the file name is used only to explain a
 * refusal. Throws MeshError: 'empty', 'unsupported-format' or 'malformed'.
 */
export function detectFormat(bytes: Uint8Array, fileName?: string): ModelFormat {
  if (bytes.length === 0) throw new MeshError('empty', 'The file is empty (0 bytes).');
  if (startsWith(bytes, 0, 'PK\x03\x04') || startsWith(bytes, 0, 'PK\x05\x06')) return '3mf';
  const foreign = foreignKind(bytes);
  if (foreign)
    throw new MeshError('unsupported-format', `The file is ${foreign}, not an STL, OBJ or 3MF model.`);

  const text = looksLikeText(bytes, 4096);
  const start = skipBomAndSpace(bytes);
  // PrusaSlicer's reader skips `solid` lines wherever they are, so an ASCII STL may start at its first facet.
  const stlText =
    text &&
    (startsWith(bytes, start, 'solid', true) ||
      (startsWith(bytes, start, 'facet', true) && isBlank(bytes[start + 5])));
  const triangles = binaryStlTriangles(bytes);
  if (triangles !== null) {
    // Binary files may start with "solid" too; only real facet text makes it ASCII. A count of 0
    // read from text is NUL padding over the count's bytes, not a binary STL that left it out.
    const paddedText =
      text && triangles > 0 && bytes[80] === 0 && bytes[81] === 0 && bytes[82] === 0 && bytes[83] === 0;
    if (!(stlText && hasFacetText(bytes)) && !paddedText) return 'stl-binary';
  }
  if (stlText) return 'stl-ascii';
  if (text) {
    const kw = firstObjKeyword(bytes);
    if (kw === null) throw new MeshError('empty', 'The file holds only blank lines or comments.');
    if (OBJ_KEYWORDS.has(kw)) return 'obj';
    throw new MeshError('unsupported-format', 'The file is text but neither an ASCII STL nor an OBJ model.');
  }
  const ext = extensionOf(fileName);
  if (ext === 'stl' || ext === '') {
    if (bytes.length < 84) {
      throw new MeshError(
        'malformed',
        `A binary STL needs at least 84 bytes; this file has ${bytes.length}.`,
      );
    }
    const n = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(80, true);
    throw new MeshError(
      'malformed',
      `Binary STL size mismatch: the header declares ${n} triangles (${84 + 50 * n} bytes) but the file has ${bytes.length} bytes.`,
    );
  }
  throw new MeshError('unsupported-format', 'The file is not an STL, OBJ or 3MF model.');
}

function hasFacetText(b: Uint8Array): boolean {
  const end = Math.min(b.length, 1024);
  for (let i = 0; i + 5 <= end; i++) if (startsWith(b, i, 'facet', true)) return true;
  return false;
}

/** Non-throwing sniffer: the format of the bytes, or null when they are not a model we read. */
export function sniffFormat(bytes: Uint8Array): ModelFormat | null {
  try {
    return detectFormat(bytes);
  } catch {
    return null;
  }
}

export function extensionOf(fileName?: string): string {
  if (!fileName) return '';
  const base = fileName.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}
