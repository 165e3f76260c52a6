import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import fontkit from '@pdf-lib/fontkit';
import type { PDFDocument, PDFFont } from 'pdf-lib';

/**
 * Text in the PDFs we draw with pdf-lib (the packing slip, the sandbox carrier's label): the fonts,
 * what of a text they can draw, its width, wrapping and cutting to a width.
 *
 * Fonts: the 14 standard PDF fonts only encode WinAnsi (Latin-1 and a few more), so a buyer named
 * "Дмитрий" or "Σοφία" would crash pdf-lib or print garbage. We embed DejaVu Sans (regular and bold,
 * from the `dejavu-fonts-ttf` package, read once per process; subset, so the PDF stays small), which
 * covers Latin, Greek, Cyrillic, Armenian, Georgian, Hebrew, Arabic and many symbols. A character the
 * font has no glyph for (CJK, emoji, Indic scripts) is printed as '?' rather than an empty box, and
 * never throws. Limits: no bidi reordering or Arabic shaping (right-to-left text prints in logical
 * order).
 */

const requireHere = createRequire(import.meta.url);
let fontFiles: Promise<{ regular: Uint8Array; bold: Uint8Array }> | undefined;

function loadFontFiles(): Promise<{ regular: Uint8Array; bold: Uint8Array }> {
  fontFiles ??= Promise.all([
    readFile(requireHere.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf')),
    readFile(requireHere.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf')),
  ]).then(([regular, bold]) => ({ regular, bold }));
  fontFiles.catch(() => (fontFiles = undefined)); // a failed read is tried again next time
  return fontFiles;
}

/** A font embedded in one document, with the set of code points it has glyphs for. */
export interface Face {
  readonly font: PDFFont;
  readonly glyphs: ReadonlySet<number>;
}

/** Embeds DejaVu Sans regular and bold (subset) into `doc`. */
export async function embedDejaVuSans(doc: PDFDocument): Promise<{ regular: Face; bold: Face }> {
  doc.registerFontkit(fontkit);
  const files = await loadFontFiles();
  const face = async (bytes: Uint8Array): Promise<Face> => {
    const font = await doc.embedFont(bytes, { subset: true });
    return { font, glyphs: new Set(font.getCharacterSet()) };
  };
  const regular = await face(files.regular);
  const bold = await face(files.bold);
  return { regular, bold };
}

const REPLACEMENT = '?';

/**
 * What of `text` the face can draw, as one line: NFC (so "e" + combining acute becomes "é"), tabs,
 * newlines and other whitespace as spaces (runs of them as one, none at either end), invisible
 * format characters (zero-width joiners, bidi marks, soft hyphens, variation selectors) dropped, and
 * any character without a glyph replaced by '?'.
 */
export function drawable(face: Face, text: string): string {
  let out = '';
  for (const char of text.normalize('NFC')) {
    if (/\s/u.test(char)) out += ' ';
    else if (/[\p{Cc}\p{Cf}\u{FE00}-\u{FE0F}\u{E0100}-\u{E01EF}]/u.test(char)) continue;
    else out += face.glyphs.has(char.codePointAt(0) as number) ? char : REPLACEMENT;
  }
  return out.replace(/ {2,}/g, ' ').trim();
}

/** The width of `text` (drawable) at `size`, in points. */
export function widthOf(face: Face, text: string, size: number): number {
  return face.font.widthOfTextAtSize(text, size);
}

/** Word-wraps one drawable line to `maxWidth`; a word longer than a line is broken between characters. */
function wrapLine(face: Face, text: string, size: number, maxWidth: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (widthOf(face, candidate, size) <= maxWidth) {
      line = candidate;
      continue;
    }
    if (line !== '') lines.push(line);
    line = '';
    if (widthOf(face, word, size) <= maxWidth) {
      line = word;
      continue;
    }
    for (const char of word) {
      if (line !== '' && widthOf(face, line + char, size) > maxWidth) {
        lines.push(line);
        line = '';
      }
      line += char;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

export interface WrapOptions {
  /** At most this many lines: the last one then ends in '…'. */
  readonly maxLines?: number;
  /**
   * 'break' (the default): the text's line breaks start new lines (runs of blank lines count as
   * one). 'space': they are read as spaces, for a field meant as one line (an address line).
   */
  readonly newlines?: 'break' | 'space';
}

/** Wraps `text` (any text: made drawable here) to lines of at most `maxWidth`; no lines for blank text. */
export function wrap(
  face: Face,
  text: string,
  size: number,
  maxWidth: number,
  options: WrapOptions = {},
): string[] {
  const { maxLines = Infinity, newlines = 'break' } = options;
  const paragraphs = newlines === 'break' ? text.split(/\r\n|\r|\n/) : [text];
  const lines: string[] = [];
  for (const paragraph of paragraphs) {
    const clean = drawable(face, paragraph);
    if (clean === '') {
      if (lines.length > 0 && lines.at(-1) !== '') lines.push('');
      continue;
    }
    lines.push(...wrapLine(face, clean, size, maxWidth));
  }
  while (lines.at(-1) === '') lines.pop();
  if (lines.length > maxLines) {
    lines.length = maxLines;
    lines[maxLines - 1] = ellipsize(face, lines[maxLines - 1] as string, size, maxWidth);
  }
  return lines;
}

/** Cuts one drawable line to fit `maxWidth`, ending it in '…' when anything was cut. */
export function cut(face: Face, text: string, size: number, maxWidth: number): string {
  return widthOf(face, text, size) <= maxWidth ? text : ellipsize(face, text, size, maxWidth);
}

/** Shortens one drawable line (as far as needed) so that it fits `maxWidth` ending in '…'. */
function ellipsize(face: Face, text: string, size: number, maxWidth: number): string {
  const chars = Array.from(text);
  while (chars.length > 0 && widthOf(face, `${chars.join('').trimEnd()}…`, size) > maxWidth) chars.pop();
  return `${chars.join('').trimEnd()}…`;
}
