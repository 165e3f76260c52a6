import { rgb } from 'pdf-lib';
import type { PDFPage } from 'pdf-lib';

/**
 * Code 128 barcodes (code set B) drawn as vector bars on a pdf-lib page: the packing slip's order id
 * and the sandbox carrier label's tracking number.
 *
 * Our own encoder rather than bwip-js: we need one symbology in one code set, drawn as vector bars
 * in pdf-lib (bwip-js renders to PNG or needs a custom drawing backend), and code set B with its
 * checksum is a table and a sum. code128.test.ts checks the table's structure, the checksum against
 * the worked example of the standard, and that zbar decodes every code set B character and every
 * checksum value.
 */

/**
 * Bar/space widths (in modules) of the 107 Code 128 symbols, by value: 0-102 data, 103-105 start
 * A/B/C, 106 stop (with its final 2-module bar).
 */
// prettier-ignore
const CODE128_WIDTHS = [
  '212222', '222122', '222221', '121223', '121322', '131222', '122213', '122312', '132212', '221213',
  '221312', '231212', '112232', '122132', '122231', '113222', '123122', '123221', '223211', '221132',
  '221231', '213212', '223112', '312131', '311222', '321122', '321221', '312212', '322112', '322211',
  '212123', '212321', '232121', '111323', '131123', '131321', '112313', '132113', '132311', '211313',
  '231113', '231311', '112133', '112331', '132131', '113123', '113321', '133121', '313121', '211331',
  '231131', '213113', '213311', '213131', '311123', '311321', '331121', '312113', '312311', '332111',
  '314111', '221411', '431111', '111224', '111422', '121124', '121421', '141122', '141221', '112214',
  '112412', '122114', '122411', '142112', '142211', '241211', '221114', '413111', '241112', '134111',
  '111242', '121142', '121241', '114212', '124112', '124211', '411212', '421112', '421211', '212141',
  '214121', '412121', '111143', '111341', '131141', '114113', '114311', '411113', '411311', '113141',
  '114131', '311141', '411131', '211412', '211214', '211232', '2331112',
] as const;
export const CODE128_WIDTH_TABLE: readonly string[] = CODE128_WIDTHS;

/** The quiet zone each side of the bars, in modules (the standard's minimum): the caller keeps it free. */
export const CODE128_QUIET_MODULES = 10;

const START_B = 104;
const STOP = 106;

/**
 * The symbol values of `text` in Code 128 code set B: start B, one value per character
 * (ASCII 32-126), the checksum (start + Σ position × value, mod 103), stop.
 */
export function code128Values(text: string): number[] {
  if (text.length === 0) throw new Error('Code 128: nothing to encode');
  const values = [START_B];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 32 || code > 126) throw new Error(`Code 128 B cannot encode character code ${code}`);
    values.push(code - 32);
  }
  let sum = START_B;
  for (let i = 1; i < values.length; i++) sum += i * (values[i] as number);
  values.push(sum % 103, STOP);
  return values;
}

/** The modules of the symbol, '1' for bar and '0' for space, without quiet zones. */
export function code128Modules(text: string): string {
  let modules = '';
  for (const value of code128Values(text)) {
    const widths = CODE128_WIDTHS[value] as string;
    for (let i = 0; i < widths.length; i++) modules += (i % 2 === 0 ? '1' : '0').repeat(Number(widths[i]));
  }
  return modules;
}

export interface BarcodeBox {
  /** The left edge of the first bar (the quiet zone lies left of it), in points. */
  readonly x: number;
  /** The bottom of the bars, in points. */
  readonly y: number;
  /** The width of one module (the X dimension), in points: the bars are `code128Modules(text).length` of them wide. */
  readonly moduleWidth: number;
  readonly height: number;
}

/** Draws `text` as Code 128 bars in black, each run of bar modules as one rectangle; no quiet zones, no text. */
export function drawCode128(page: PDFPage, text: string, box: BarcodeBox): void {
  const modules = code128Modules(text);
  const black = rgb(0, 0, 0);
  let run = 0;
  for (let i = 0; i <= modules.length; i++) {
    if (modules[i] === '1') {
      run++;
      continue;
    }
    if (run > 0) {
      page.drawRectangle({
        x: box.x + (i - run) * box.moduleWidth,
        y: box.y,
        width: run * box.moduleWidth,
        height: box.height,
        color: black,
      });
    }
    run = 0;
  }
}
