import { PDFDocument, rgb } from 'pdf-lib';
import type { PDFPage, RGB } from 'pdf-lib';
import type { ShippingAddress } from '@layerline/contracts';
import { CODE128_QUIET_MODULES, code128Modules, drawCode128 } from '../../platform/code128.ts';
import { cut, drawable, embedDejaVuSans, widthOf, wrap, type Face } from '../../platform/pdf-text.ts';

/**
 * The sandbox carrier's shipping label: a 4×6 inch PDF (288 × 432 pt) laid out like a thermal
 * label, headed "SANDBOX — NOT A REAL LABEL" so nobody mistakes it for postage. It shows the
 * sender, the recipient, carrier and service, weight, the reference (order number) and the tracking
 * number as a Code 128 barcode (platform/code128.ts) with the number printed under it.
 *
 * Text as on the packing slip (platform/pdf-text.ts): DejaVu Sans, so names in Greek or Cyrillic
 * print; a character without a glyph prints as '?'. Text too long for the label is wrapped, then cut
 * with '…'; the barcode always fits (tracking numbers are 17 characters).
 */

export interface SandboxLabelInput {
  readonly from: ShippingAddress;
  readonly to: ShippingAddress;
  readonly carrier: string;
  readonly service: string;
  /** The one-letter service mark printed in the big box (also the tracking number's 4th character). */
  readonly serviceLetter: string;
  readonly trackingNumber: string;
  readonly reference: string;
  readonly weightGrams: number;
  /** The weight the rate was billed on (dimensional weight when larger, rounded up). */
  readonly billableGrams: number;
  readonly dimensionsMm: readonly [number, number, number];
  readonly shipDate: Date;
}

const WIDTH = 288;
const HEIGHT = 432;
const MARGIN = 12;
const CONTENT = WIDTH - 2 * MARGIN;
const INK = rgb(0, 0, 0);
const MUTED = rgb(0.3, 0.3, 0.3);
const WHITE = rgb(1, 1, 1);
const BAR_HEIGHT = 62;

/**
 * Wraps one address field or name to at most `maxLines` (the last cut with '…' when more remains); a
 * line break in it reads as a space.
 */
function wrapField(face: Face, text: string, size: number, maxWidth: number, maxLines: number): string[] {
  return wrap(face, text, size, maxWidth, { maxLines, newlines: 'space' });
}

const countryNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });
function countryName(code: string): string {
  try {
    return countryNames.of(code) ?? code;
  } catch {
    return code;
  }
}

/** An address below its name: company, street lines, "City, Region Postal", country (international only). */
interface AddressParts {
  readonly name: string;
  readonly company: string;
  readonly line1: string;
  readonly line2: string;
  readonly cityLine: string;
  readonly country: string;
}

function addressParts(address: ShippingAddress, international: boolean): AddressParts {
  const region = [address.region.trim(), address.postalCode.trim()].filter(Boolean).join(' ');
  return {
    name: address.name.trim(),
    company: address.company.trim(),
    line1: address.line1.trim(),
    line2: address.line2.trim(),
    cityLine: [address.city.trim(), region].filter(Boolean).join(', '),
    country: international ? countryName(address.country.trim()).toUpperCase() : '',
  };
}

/**
 * The address lines under the name, at most `maxLines`: what a carrier needs most is kept. Each part
 * may wrap to two lines; when that is too many, one line each; then the company goes, then line 2.
 * The street (line 1), the city line and the country are always there.
 */
function fitAddress(
  face: Face,
  parts: AddressParts,
  size: number,
  maxWidth: number,
  maxLines: number,
): string[] {
  const attempts: [keyof AddressParts, number][][] = [
    [
      ['company', 2],
      ['line1', 2],
      ['line2', 2],
      ['cityLine', 2],
      ['country', 1],
    ],
    [
      ['company', 1],
      ['line1', 1],
      ['line2', 1],
      ['cityLine', 1],
      ['country', 1],
    ],
    [
      ['line1', 1],
      ['line2', 1],
      ['cityLine', 1],
      ['country', 1],
    ],
    [
      ['line1', 1],
      ['cityLine', 1],
      ['country', 1],
    ],
  ];
  let lines: string[] = [];
  for (const attempt of attempts) {
    lines = attempt.flatMap(([part, most]) => wrapField(face, parts[part], size, maxWidth, most));
    if (lines.length <= maxLines) return lines;
  }
  return lines.slice(-maxLines);
}

export function formatWeight(grams: number): string {
  if (grams < 1000) return `${Math.round(grams)} g`;
  return `${(grams / 1000).toFixed(2).replace(/\.?0+$/, '')} kg`;
}

class Painter {
  readonly page: PDFPage;
  constructor(page: PDFPage) {
    this.page = page;
  }

  text(text: string, x: number, baseline: number, face: Face, size: number, color: RGB = INK): void {
    if (text !== '') this.page.drawText(text, { x, y: baseline, font: face.font, size, color });
  }

  centred(text: string, baseline: number, face: Face, size: number, color: RGB = INK): void {
    const width = widthOf(face, text, size);
    this.text(text, MARGIN + (CONTENT - width) / 2, baseline, face, size, color);
  }

  rule(y: number, thickness = 1): void {
    this.page.drawRectangle({
      x: MARGIN,
      y: y - thickness / 2,
      width: CONTENT,
      height: thickness,
      color: INK,
    });
  }
}

/** Renders the sandbox label as a one-page 4×6 inch PDF. */
export async function renderSandboxLabel(input: SandboxLabelInput): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const { regular, bold } = await embedDejaVuSans(doc);
  doc.setTitle(`Sandbox label ${input.trackingNumber}`);
  doc.setSubject(`${input.carrier} ${input.service}, reference ${input.reference}`);
  doc.setAuthor('Layerline sandbox carrier');
  doc.setCreationDate(input.shipDate);
  doc.setModificationDate(input.shipDate);

  const page = doc.addPage([WIDTH, HEIGHT]);
  const p = new Painter(page);
  const international = input.from.country.trim() !== input.to.country.trim();

  // Banner.
  const bannerTop = HEIGHT - MARGIN;
  page.drawRectangle({ x: MARGIN, y: bannerTop - 24, width: CONTENT, height: 24, color: INK });
  p.centred('SANDBOX — NOT A REAL LABEL', bannerTop - 16.5, bold, 12.5, WHITE);

  // Service: the big letter box, carrier and service, ship date and weight.
  const boxTop = bannerTop - 30;
  page.drawRectangle({ x: MARGIN, y: boxTop - 40, width: 40, height: 40, borderColor: INK, borderWidth: 2 });
  const letter = drawable(bold, input.serviceLetter);
  p.text(letter, MARGIN + (40 - widthOf(bold, letter, 28)) / 2, boxTop - 30, bold, 28);
  const textX = MARGIN + 48;
  const textWidth = CONTENT - 48;
  p.text(cut(bold, drawable(bold, input.carrier.toUpperCase()), 12, textWidth), textX, boxTop - 11, bold, 12);
  p.text(cut(bold, drawable(bold, input.service), 10.5, textWidth), textX, boxTop - 24, bold, 10.5);
  const shipDate = input.shipDate.toISOString().slice(0, 10);
  p.text(
    cut(regular, `Ship date ${shipDate} · ${formatWeight(input.weightGrams)}`, 8, textWidth),
    textX,
    boxTop - 36,
    regular,
    8,
    MUTED,
  );
  const serviceBottom = boxTop - 46;
  p.rule(serviceBottom, 1);

  // Sender (small).
  let y = serviceBottom - 10;
  p.text('FROM', MARGIN, y, bold, 6.5, MUTED);
  y -= 9.5;
  const from = addressParts(input.from, international);
  const fromLines = [
    ...wrapField(regular, from.name, 8, CONTENT, 1),
    ...fitAddress(regular, from, 8, CONTENT, 4),
  ];
  for (const line of fromLines) {
    p.text(line, MARGIN, y, regular, 8);
    y -= 9.5;
  }
  const fromBottom = y + 4;
  p.rule(fromBottom, 0.75);

  // The barcode block sits at a fixed height above the footer; the recipient fills the space between.
  const footerTop = MARGIN + 44;
  const numberBaseline = footerTop + 12;
  const barsBottom = numberBaseline + 13;
  const barsTop = barsBottom + BAR_HEIGHT;
  const barcodeRule = barsTop + 20;

  // Recipient (large).
  y = fromBottom - 12;
  p.text('SHIP TO', MARGIN, y, bold, 7, MUTED);
  y -= 14;
  const to = addressParts(input.to, international);
  const available = y - (barcodeRule + 4);
  const nameLines = wrapField(bold, to.name, 12.5, CONTENT - 8, 2);
  const room = Math.max(3, Math.floor((available - nameLines.length * 14.5) / 12.5) + 1);
  const restLines = fitAddress(regular, to, 10.5, CONTENT - 8, room);
  for (const line of nameLines) {
    p.text(line, MARGIN + 8, y, bold, 12.5);
    y -= 14.5;
  }
  for (const line of restLines) {
    p.text(line, MARGIN + 8, y, regular, 10.5);
    y -= 12.5;
  }

  // Tracking number: Code 128 (set B) with its quiet zones, the number in text under it.
  p.rule(barcodeRule, 2);
  p.text('TRACKING #', MARGIN, barcodeRule - 10, bold, 7, MUTED);
  const modules = code128Modules(input.trackingNumber);
  const moduleWidth = Math.min(1.2, CONTENT / (modules.length + 2 * CODE128_QUIET_MODULES));
  const barsWidth = modules.length * moduleWidth;
  const barsX = MARGIN + (CONTENT - barsWidth) / 2;
  drawCode128(page, input.trackingNumber, { x: barsX, y: barsBottom, moduleWidth, height: BAR_HEIGHT });
  p.centred(drawable(bold, input.trackingNumber), numberBaseline, bold, 11);

  // Footer: reference, weights and dimensions, the disclaimer.
  p.rule(footerTop, 1);
  const [l, w, h] = input.dimensionsMm;
  const billed =
    input.billableGrams > input.weightGrams
      ? ` · billed ${formatWeight(input.billableGrams)} (dimensional)`
      : '';
  p.text(
    cut(bold, drawable(bold, `Ref: ${input.reference}`), 8.5, CONTENT),
    MARGIN,
    footerTop - 11,
    bold,
    8.5,
  );
  p.text(
    cut(regular, `Weight ${formatWeight(input.weightGrams)}${billed} · ${l} × ${w} × ${h} mm`, 7.5, CONTENT),
    MARGIN,
    footerTop - 21.5,
    regular,
    7.5,
  );
  p.text(
    cut(regular, 'Layerline sandbox carrier: test label, carries nothing, charges nothing.', 7, CONTENT),
    MARGIN,
    footerTop - 31.5,
    regular,
    7,
    MUTED,
  );

  return Buffer.from(await doc.save());
}
