import { PDFDocument, rgb } from 'pdf-lib';
import type { PDFImage, PDFPage, RGB } from 'pdf-lib';
import type { PackingOrder } from '@layerline/contracts';
import { CODE128_QUIET_MODULES, code128Modules, drawCode128 } from '../../platform/code128.ts';
import { cut, drawable, embedDejaVuSans, widthOf, wrap, type Face } from '../../platform/pdf-text.ts';

/**
 * The packing slip (issue 11, item 4): one PDF that goes in the box with an order. Pure apart from
 * reading the font files shipped in an npm package (once per process): no clock, no database.
 *
 * The slip is the seller's, not Layerline's: the buyer bought from the seller, so the seller's name
 * heads it and no Layerline branding is printed on it.
 *
 * Text is DejaVu Sans, so names in Greek or Cyrillic print (a character without a glyph prints as
 * '?'), wrapped and cut with '…' by platform/pdf-text.ts; the order id's barcode is Code 128
 * (platform/code128.ts).
 */

/**
 * An address as the slip prints it: the fields common to an order's shipping address
 * (`shippingAddressSchema`, orders.ts) and a seller's return address (`addressSchema`, accounts.ts);
 * both are accepted as they are. `email` exists only on shipping addresses and is not printed.
 */
export interface PackingSlipAddress {
  readonly name: string;
  readonly company: string;
  readonly line1: string;
  readonly line2: string;
  readonly city: string;
  readonly region: string;
  readonly postalCode: string;
  /** ISO 3166-1 alpha-2 (printed as the country's English name), or '' on an unset return address. */
  readonly country: string;
  readonly phone: string;
  readonly email?: string;
}

export interface PackingSlipInput {
  /** A UUID; printed as a Code 128 barcode and as text under it. */
  orderId: string;
  /** The shop's order number (any text, may be long). */
  orderNumber: string;
  placedAt: Date;
  /** `businessName` may be '' (then the email heads the slip). */
  seller: { businessName: string; email: string; returnAddress: PackingSlipAddress | null };
  shipTo: PackingSlipAddress;
  pickList: PackingOrder['pickList'];
  /** A note to the buyer; '' prints no message block. Newlines are kept. */
  message: string;
  /** The seller's parcel branding (issue 24, point 4; docs/branding.md). */
  branding: PackingSlipBranding;
  generatedAt: Date;
}

export interface PackingSlipBranding {
  /** A PNG we wrote (the branding module re-encodes every upload), or null. */
  logoPng: Uint8Array | null;
  /** The seller's standing message to every buyer; '' prints none. */
  insertMessage: string;
  /** Adds a page with a thank-you card to cut out and put in the box. */
  thankYouCard: boolean;
}

// ---------------------------------------------------------------------------------------------
// Layout

const PAGE_WIDTH = 612; // US Letter, portrait, in points
const PAGE_HEIGHT = 792;
const MARGIN = 40;
const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN;
const FOOTER_TOP = MARGIN + 22; // the body never goes below this
const LEADING = 1.3;

const INK = rgb(0.1, 0.1, 0.1);
const MUTED = rgb(0.38, 0.38, 0.4);
const RULE = rgb(0.78, 0.78, 0.8);
const FILL = rgb(0.95, 0.95, 0.95);

/** The logo's box at the head of the slip, in points (the image keeps its proportions inside it). */
const LOGO_BOX = { width: 170, height: 64 };

/** Bar module width (the X dimension) and bar height, in points. */
const BAR_MODULE = 0.75;
const BAR_HEIGHT = 44;

/** The pick list's columns (x from the left margin). */
const COLUMNS = {
  sku: { x: 0, width: 118 },
  item: { x: 126, width: 238 },
  qty: { x: 372, width: 40 },
  packaging: { x: 420, width: CONTENT_WIDTH - 420 },
};
const CELL_PAD = 6;

interface Style {
  face: Face;
  size: number;
  color?: RGB;
}

class Layout {
  readonly pages: PDFPage[] = [];
  page!: PDFPage;
  /** The top of the free space on the current page (PDF y grows upwards). */
  y = 0;
  readonly doc: PDFDocument;
  readonly regular: Face;
  readonly bold: Face;
  private readonly continuationTitle: string;

  constructor(doc: PDFDocument, regular: Face, bold: Face, continuationTitle: string) {
    this.doc = doc;
    this.regular = regular;
    this.bold = bold;
    this.continuationTitle = continuationTitle;
  }

  newPage(): void {
    this.page = this.doc.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    this.pages.push(this.page);
    this.y = PAGE_HEIGHT - MARGIN;
    if (this.pages.length > 1) {
      const title = cut(this.bold, drawable(this.bold, this.continuationTitle), 9, CONTENT_WIDTH);
      this.text(title, MARGIN, this.y - 9, { face: this.bold, size: 9, color: MUTED });
      this.y -= 16;
      this.rule(this.y);
      this.y -= 12;
    }
  }

  /** Room left on this page above the footer. */
  get room(): number {
    return this.y - FOOTER_TOP;
  }

  /** Starts a new page unless `height` fits; true when it did. */
  ensure(height: number): boolean {
    if (height <= this.room) return false;
    this.newPage();
    return true;
  }

  /** Draws one drawable line with its baseline at `baseline`. */
  text(line: string, x: number, baseline: number, style: Style): void {
    if (line === '') return;
    this.page.drawText(line, {
      x,
      y: baseline,
      size: style.size,
      font: style.face.font,
      color: style.color ?? INK,
    });
  }

  /** Draws wrapped lines top-down from `top`; returns the height used. */
  lines(
    lines: readonly string[],
    x: number,
    top: number,
    style: Style,
    align: 'left' | 'right' = 'left',
    width = 0,
  ): number {
    const lineHeight = style.size * LEADING;
    lines.forEach((line, i) => {
      const lineX = align === 'right' ? x + width - widthOf(style.face, line, style.size) : x;
      this.text(line, lineX, top - style.size - i * lineHeight, style);
    });
    return lines.length * lineHeight;
  }

  rule(y: number, x = MARGIN, width = CONTENT_WIDTH, thickness = 0.75, color = RULE): void {
    this.page.drawLine({ start: { x, y }, end: { x: x + width, y }, thickness, color });
  }
}

const dateFormat = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' });
const countryNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

function formatDateTime(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function countryName(code: string): string {
  if (!/^[A-Z]{2}$/.test(code)) return code;
  try {
    return countryNames.of(code) ?? code;
  } catch {
    return code;
  }
}

/** "City, Region Postal" (US style; enough for a packer and a buyer to recognise the address). */
function cityLineOf(address: PackingSlipAddress): string {
  return [address.city, [address.region.trim(), address.postalCode.trim()].filter(Boolean).join(' ')]
    .map((s) => s.trim())
    .filter(Boolean)
    .join(', ');
}

/** The address as printed lines: name, company, street lines, "City, Region Postal", country, phone. */
function addressLines(address: PackingSlipAddress): string[] {
  const cityLine = cityLineOf(address);
  return [
    address.name,
    address.company,
    address.line1,
    address.line2,
    cityLine,
    countryName(address.country.trim()),
    address.phone ? `Tel. ${address.phone}` : '',
  ]
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The return address, compact under the seller's name (whose repeat as the addressee is dropped). */
function returnAddressLines(address: PackingSlipAddress, seller: string): string[] {
  const cityLine = cityLineOf(address);
  const country = countryName(address.country.trim());
  const name = address.name.trim().toLowerCase() === seller.toLowerCase() ? '' : address.name;
  return [
    name,
    address.company,
    [address.line1, address.line2]
      .map((s) => s.trim())
      .filter(Boolean)
      .join(', '),
    [cityLine, country].filter(Boolean).join(', '),
    address.phone ? `Tel. ${address.phone}` : '',
  ]
    .map((s) => s.trim())
    .filter(Boolean);
}

function sellerName(seller: PackingSlipInput['seller']): string {
  return seller.businessName.trim() || seller.email.trim();
}

/** Renders the packing slip of one order as a PDF (US Letter, portrait). */
export async function renderPackingSlip(input: PackingSlipInput): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const { regular, bold } = await embedDejaVuSans(doc);

  const seller = sellerName(input.seller);
  const orderNumber = input.orderNumber.trim();
  doc.setTitle(`Packing slip, order ${orderNumber}`);
  doc.setAuthor(seller);
  doc.setSubject(`Order ${orderNumber}`);
  doc.setCreationDate(input.generatedAt);
  doc.setModificationDate(input.generatedAt);

  const layout = new Layout(
    doc,
    regular,
    bold,
    `${seller} · Packing slip · Order ${orderNumber} (continued)`,
  );
  layout.newPage();
  const logo = input.branding.logoPng ? await doc.embedPng(input.branding.logoPng) : null;

  drawHeader(layout, input, seller, orderNumber, logo);
  drawAddressAndBarcode(layout, input);
  drawPickList(layout, input.pickList);
  const insert = input.branding.insertMessage.trim();
  if (insert !== '') drawMessage(layout, insert, `A message from ${seller}`);
  if (input.message.trim() !== '') drawMessage(layout, input.message, `A note from ${seller}`);
  drawFooters(layout, input, seller, orderNumber);
  // After the footers: the card is an insert of its own, not a page of the slip.
  if (input.branding.thankYouCard) drawThankYouCard(layout, seller, insert, logo);

  return doc.save();
}

/** The seller's name and return address on the left; "Packing slip", order number and date on the right. */
function drawHeader(layout: Layout, input: PackingSlipInput, seller: string, orderNumber: string, logo: PDFImage | null): void {
  const { regular, bold } = layout;
  const rightWidth = 200;
  const leftWidth = CONTENT_WIDTH - rightWidth - 20;
  const top = layout.y;
  let logoHeight = 0;
  if (logo) {
    const { width, height } = logo.scaleToFit(LOGO_BOX.width, LOGO_BOX.height);
    layout.page.drawImage(logo, { x: MARGIN, y: top - height, width, height });
    logoHeight = height + 10;
  }

  let nameSize = 20;
  let nameLines = wrap(bold, seller, nameSize, leftWidth, { maxLines: 3 });
  if (nameLines.length > 1) {
    nameSize = 16;
    nameLines = wrap(bold, seller, nameSize, leftWidth, { maxLines: 3 });
  }
  let left = logoHeight + layout.lines(nameLines, MARGIN, top - logoHeight, { face: bold, size: nameSize });
  const returnAddress = input.seller.returnAddress
    ? returnAddressLines(input.seller.returnAddress, seller)
    : [];
  if (returnAddress.length > 0) {
    left += 4;
    const lines = returnAddress.flatMap((line) => wrap(regular, line, 9, leftWidth, { maxLines: 2 }));
    left += layout.lines(lines, MARGIN, top - left, { face: regular, size: 9, color: MUTED });
  }

  const rightX = MARGIN + CONTENT_WIDTH - rightWidth;
  let right = layout.lines(['Packing slip'], rightX, top, { face: bold, size: 16 }, 'right', rightWidth);
  right += 6;
  const orderLines = wrap(bold, `Order ${orderNumber}`, 11, rightWidth, { maxLines: 6 });
  right += layout.lines(orderLines, rightX, top - right, { face: bold, size: 11 }, 'right', rightWidth);
  right += 2;
  right += layout.lines(
    [drawable(regular, `Placed ${dateFormat.format(input.placedAt)}`)],
    rightX,
    top - right,
    { face: regular, size: 9.5, color: MUTED },
    'right',
    rightWidth,
  );

  layout.y = top - Math.max(left, right) - 14;
  layout.rule(layout.y, MARGIN, CONTENT_WIDTH, 1.25, INK);
  layout.y -= 16;
}

/** The ship-to address on the left, the order id's barcode (with its text) on the right. */
function drawAddressAndBarcode(layout: Layout, input: PackingSlipInput): void {
  const { regular, bold } = layout;
  const top = layout.y;

  const modules = code128Modules(input.orderId);
  const barsWidth = modules.length * BAR_MODULE;
  const blockWidth = barsWidth + 2 * CODE128_QUIET_MODULES * BAR_MODULE;
  const leftWidth = CONTENT_WIDTH - blockWidth - 16;
  if (leftWidth < 120) throw new Error('The order id is too long for a scannable barcode on the slip');

  // Ship to
  layout.lines(['SHIP TO'], MARGIN, top, { face: bold, size: 8, color: MUTED });
  const [name = '', ...rest] = addressLines(input.shipTo);
  let left = 13;
  left += layout.lines(wrap(bold, name, 11.5, leftWidth, { maxLines: 2 }), MARGIN, top - left, {
    face: bold,
    size: 11.5,
  });
  const lines = rest.flatMap((line) => wrap(regular, line, 10, leftWidth, { maxLines: 3 }));
  left += layout.lines(lines, MARGIN, top - left, { face: regular, size: 10 });

  // The barcode: its quiet zones are kept free by the block's width (nothing else is drawn there).
  const blockX = MARGIN + CONTENT_WIDTH - blockWidth;
  const barsX = blockX + CODE128_QUIET_MODULES * BAR_MODULE;
  const barsTop = top - 4;
  drawCode128(layout.page, input.orderId, {
    x: barsX,
    y: barsTop - BAR_HEIGHT,
    moduleWidth: BAR_MODULE,
    height: BAR_HEIGHT,
  });
  const idText = drawable(regular, input.orderId);
  const idSize = 8.5;
  layout.text(idText, barsX + (barsWidth - widthOf(regular, idText, idSize)) / 2, barsTop - BAR_HEIGHT - 12, {
    face: regular,
    size: idSize,
    color: MUTED,
  });
  const right = 4 + BAR_HEIGHT + 16;

  layout.y = top - Math.max(left, right) - 18;
}

interface ItemBlock {
  height: number;
  draw: (top: number) => void;
}

/** The pick list as a table: one row per item, its parts indented under it; pages break between rows. */
function drawPickList(layout: Layout, pickList: PackingSlipInput['pickList']): void {
  const { regular, bold } = layout;
  const headerHeight = 18;

  const drawTableHeader = (): void => {
    const top = layout.y;
    layout.page.drawRectangle({
      x: MARGIN,
      y: top - headerHeight,
      width: CONTENT_WIDTH,
      height: headerHeight,
      color: FILL,
    });
    const style = { face: bold, size: 8, color: MUTED };
    const baseline = top - 12;
    layout.text('SKU', MARGIN + COLUMNS.sku.x + CELL_PAD, baseline, style);
    layout.text('ITEM', MARGIN + COLUMNS.item.x, baseline, style);
    const qty = 'QTY';
    layout.text(qty, MARGIN + COLUMNS.qty.x + COLUMNS.qty.width - widthOf(bold, qty, 8), baseline, style);
    layout.text('PACKAGING', MARGIN + COLUMNS.packaging.x, baseline, style);
    layout.y -= headerHeight + 6;
  };

  const title = pickList.length === 1 ? '1 item' : `${pickList.length} items`;
  const units = pickList.reduce((sum, item) => sum + item.quantity, 0);
  layout.ensure(14 + headerHeight + 40);
  layout.lines(['IN THIS BOX'], MARGIN, layout.y, { face: bold, size: 8, color: MUTED });
  const summary = drawable(regular, `${title} · ${units} ${units === 1 ? 'unit' : 'units'}`);
  layout.lines([summary], MARGIN, layout.y, { face: regular, size: 8, color: MUTED }, 'right', CONTENT_WIDTH);
  layout.y -= 14;
  drawTableHeader();

  if (pickList.length === 0) {
    layout.lines(['Nothing to pack.'], MARGIN + CELL_PAD, layout.y, {
      face: regular,
      size: 10,
      color: MUTED,
    });
    layout.y -= 18;
    return;
  }

  const itemSize = 10;
  const partSize = 9;
  const itemLead = itemSize * LEADING;
  const partLead = partSize * LEADING;
  const partIndent = 12;

  pickList.forEach((item, index) => {
    const skuLines = wrap(regular, item.sku, 9, COLUMNS.sku.width - CELL_PAD, { maxLines: 6 });
    const titleLines = wrap(bold, item.title, itemSize, COLUMNS.item.width, { maxLines: 6 });
    const packagingLines = wrap(regular, item.packaging, 9, COLUMNS.packaging.width - CELL_PAD, {
      maxLines: 4,
    });
    const qty = drawable(bold, String(item.quantity));
    const mainHeight = Math.max(
      skuLines.length * 9 * LEADING,
      titleLines.length * itemLead,
      packagingLines.length * 9 * LEADING,
    );

    const blocks: ItemBlock[] = [
      {
        height: mainHeight + 2,
        draw: (top) => {
          layout.lines(skuLines, MARGIN + COLUMNS.sku.x + CELL_PAD, top - 0.5, { face: regular, size: 9 });
          layout.lines(titleLines, MARGIN + COLUMNS.item.x, top, { face: bold, size: itemSize });
          layout.lines(
            [qty],
            MARGIN + COLUMNS.qty.x,
            top,
            { face: bold, size: itemSize },
            'right',
            COLUMNS.qty.width,
          );
          layout.lines(packagingLines, MARGIN + COLUMNS.packaging.x, top - 0.5, {
            face: regular,
            size: 9,
            color: MUTED,
          });
        },
      },
      ...item.parts.map((part): ItemBlock => {
        const nameLines = wrap(regular, part.name, partSize, COLUMNS.item.width - partIndent - 8, {
          maxLines: 4,
        });
        const partQty = drawable(regular, `× ${part.quantity}`);
        return {
          height: nameLines.length * partLead,
          draw: (top) => {
            const style = { face: regular, size: partSize, color: MUTED };
            layout.text('–', MARGIN + COLUMNS.item.x + 2, top - partSize, style);
            layout.lines(nameLines, MARGIN + COLUMNS.item.x + partIndent, top, style);
            layout.lines([partQty], MARGIN + COLUMNS.qty.x, top, style, 'right', COLUMNS.qty.width);
          },
        };
      }),
    ];
    const rowPad = 4;
    const total = blocks.reduce((sum, block) => sum + block.height, 0) + 2 * rowPad;

    // Keep an item with its parts on one page when it fits on one; else break between its parts.
    const fresh = PAGE_HEIGHT - MARGIN - 28 - headerHeight - 6 - FOOTER_TOP;
    if (total > layout.room && total <= fresh) {
      layout.newPage();
      drawTableHeader();
    }
    layout.y -= rowPad;
    blocks.forEach((block) => {
      if (layout.ensure(block.height + rowPad)) {
        drawTableHeader();
      }
      block.draw(layout.y);
      layout.y -= block.height;
    });
    layout.y -= rowPad;
    if (index < pickList.length - 1) layout.rule(layout.y, MARGIN, CONTENT_WIDTH, 0.5);
  });
  layout.rule(layout.y, MARGIN, CONTENT_WIDTH, 1, INK);
  layout.y -= 20;
}

/** A message to the buyer in a box under its heading (split over pages if it must, never cut). */
function drawMessage(layout: Layout, message: string, heading: string): void {
  const { regular, bold } = layout;
  const pad = 12;
  const size = 10.5;
  const lead = size * LEADING;
  const label = cut(bold, drawable(bold, heading), 9, CONTENT_WIDTH - 2 * pad);
  const lines = wrap(regular, message, size, CONTENT_WIDTH - 2 * pad);

  // A box that fits on a fresh page is kept whole; a longer one is split, at least 3 lines a page.
  const freshRoom = PAGE_HEIGHT - MARGIN - 28 - FOOTER_TOP;
  let next = 0;
  let first = true;
  while (next < lines.length) {
    const heading = first ? 18 : 0;
    const whole = 2 * pad + heading + (lines.length - next) * lead;
    const least = 2 * pad + heading + Math.min(lines.length - next, 3) * lead;
    if (whole > layout.room && (whole <= freshRoom || least > layout.room)) layout.newPage();
    const fit = Math.max(1, Math.floor((layout.room - 2 * pad - heading) / lead));
    const chunk = lines.slice(next, next + fit);
    const height = 2 * pad + heading + chunk.length * lead;
    const top = layout.y;
    layout.page.drawRectangle({
      x: MARGIN,
      y: top - height,
      width: CONTENT_WIDTH,
      height,
      color: rgb(0.975, 0.975, 0.97),
      borderColor: RULE,
      borderWidth: 0.75,
    });
    if (first) layout.text(label, MARGIN + pad, top - pad - 9, { face: bold, size: 9, color: MUTED });
    layout.lines(chunk, MARGIN + pad, top - pad - heading, { face: regular, size });
    layout.y -= height + 12;
    next += chunk.length;
    first = false;
  }
}

/** On every page: a thank-you with the order number and print time, and "Page i of n". */
function drawFooters(layout: Layout, input: PackingSlipInput, seller: string, orderNumber: string): void {
  const { regular } = layout;
  const size = 7.5;
  const style = { face: regular, size, color: MUTED };
  const count = layout.pages.length;
  layout.pages.forEach((page, i) => {
    layout.page = page;
    layout.rule(MARGIN + 12, MARGIN, CONTENT_WIDTH, 0.5);
    const pageText = `Page ${i + 1} of ${count}`;
    const pageWidth = widthOf(regular, pageText, size);
    layout.text(pageText, MARGIN + CONTENT_WIDTH - pageWidth, MARGIN, style);
    const note = drawable(
      regular,
      `Thank you for your order from ${seller}. Order ${orderNumber} · printed ${formatDateTime(input.generatedAt)}`,
    );
    layout.text(cut(regular, note, size, CONTENT_WIDTH - pageWidth - 16), MARGIN, MARGIN, style);
  });
}

/** A 6 × 4 inch card on a page of its own, framed by a dashed cutting line: logo, thanks, the seller's message. */
function drawThankYouCard(layout: Layout, seller: string, insertMessage: string, logo: PDFImage | null): void {
  const { regular, bold } = layout;
  const page = layout.doc.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  layout.page = page;
  const width = 432;
  const height = 288;
  const x = (PAGE_WIDTH - width) / 2;
  const bottom = PAGE_HEIGHT - MARGIN - height;
  page.drawRectangle({ x, y: bottom, width, height, borderColor: MUTED, borderWidth: 0.75, borderDashArray: [4, 3] });
  layout.text('Cut along the dashed line', x, bottom - 12, { face: regular, size: 7.5, color: MUTED });

  const pad = 28;
  const inner = width - 2 * pad;
  const centred = (line: string, y: number, style: Style) =>
    layout.text(line, x + (width - widthOf(style.face, line, style.size)) / 2, y, style);
  let y = bottom + height - pad;
  if (logo) {
    const size = logo.scaleToFit(150, 56);
    page.drawImage(logo, { x: x + (width - size.width) / 2, y: y - size.height, ...size });
    y -= size.height + 16;
  }
  centred('Thank you!', y - 24, { face: bold, size: 24 });
  y -= 24 * LEADING + 8;
  const message = insertMessage || `Thank you for your order from ${seller}. We hope you love it.`;
  const lines = wrap(regular, message, 11, inner, { maxLines: Math.max(1, Math.floor((y - bottom - pad - 20) / (11 * LEADING))) });
  lines.forEach((line, i) => centred(line, y - 11 - i * 11 * LEADING, { face: regular, size: 11 }));
  centred(cut(bold, drawable(bold, `— ${seller}`), 10, inner), bottom + pad, { face: bold, size: 10, color: MUTED });
}
