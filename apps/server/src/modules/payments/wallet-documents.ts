import { PDFDocument, rgb, type PDFPage } from 'pdf-lib';
import { cut, embedDejaVuSans, wrap, type Face } from '../../platform/pdf-text.ts';

/*
 * The wallet's PDFs (docs/wallet.md): a receipt per charge, top-up, refund and adjustment, and a monthly
 * statement. Drawn with pdf-lib and DejaVu Sans like the packing slip (platform/pdf-text.ts), so any
 * seller's or business's name prints.
 */

const PAGE_WIDTH = 595.28; // A4
const PAGE_HEIGHT = 841.89;
const MARGIN = 48;
const CONTENT_WIDTH = PAGE_WIDTH - 2 * MARGIN;
const INK = rgb(0.1, 0.1, 0.12);
const MUTED = rgb(0.4, 0.4, 0.45);

export interface Party {
  readonly name: string;
  readonly lines: readonly string[];
}

export interface ReceiptDocument {
  readonly number: number;
  readonly kind: 'charge' | 'top_up' | 'refund' | 'adjustment';
  readonly amountCents: number;
  readonly currency: string;
  readonly paidWith: 'card' | 'wallet';
  readonly description: string;
  readonly orderNumber: string | null;
  readonly issuedAt: Date;
  readonly issuer: Party;
  readonly customer: Party;
}

export interface StatementLine {
  readonly date: Date;
  readonly description: string;
  readonly receiptNumber: number | null;
  readonly amountCents: number;
  readonly balanceAfterCents: number;
}

export interface StatementDocument {
  readonly month: string;
  readonly issuer: Party;
  readonly customer: Party;
  readonly openingCents: number;
  readonly closingCents: number;
  readonly lines: readonly StatementLine[];
  /** Paid by card in the month (not through the balance): charges and refunds with their receipt numbers. */
  readonly cardLines: readonly { date: Date; description: string; receiptNumber: number; amountCents: number }[];
  readonly generatedAt: Date;
}

const KIND_TITLE: Record<ReceiptDocument['kind'], string> = {
  charge: 'Receipt',
  top_up: 'Receipt: balance top-up',
  refund: 'Refund receipt',
  adjustment: 'Receipt: adjustment',
};

export const receiptLabel = (number: number): string => `R-${String(number).padStart(6, '0')}`;

export function formatMoney(cents: number, currency = 'USD'): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(cents / 100);
}

const monthName = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'long', timeZone: 'UTC' });
const day = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });

class Sheet {
  page!: PDFPage;
  y = 0;
  readonly doc: PDFDocument;
  readonly regular: Face;
  readonly bold: Face;
  constructor(doc: PDFDocument, regular: Face, bold: Face) {
    this.doc = doc;
    this.regular = regular;
    this.bold = bold;
  }

  newPage(): void {
    this.page = this.doc.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    this.y = PAGE_HEIGHT - MARGIN;
  }

  /** Room for `height` more points, else a new page. */
  ensure(height: number): void {
    if (this.y - height < MARGIN) this.newPage();
  }

  text(text: string, x: number, options: { face?: Face; size?: number; color?: typeof INK; width?: number; align?: 'left' | 'right' } = {}): void {
    const face = options.face ?? this.regular;
    const size = options.size ?? 10;
    const width = options.width ?? CONTENT_WIDTH;
    const line = cut(face, wrap(face, text, size, Infinity, { newlines: 'space' })[0] ?? '', size, width);
    const drawX = options.align === 'right' ? x + width - face.font.widthOfTextAtSize(line, size) : x;
    this.page.drawText(line, { x: drawX, y: this.y - size, size, font: face.font, color: options.color ?? INK });
  }

  /** A party block (name in bold, then its lines); answers its height. */
  party(title: string, party: Party, x: number, width: number): number {
    const top = this.y;
    this.text(title, x, { size: 8, color: MUTED, width });
    this.y -= 12;
    this.text(party.name, x, { face: this.bold, size: 11, width });
    this.y -= 15;
    for (const line of party.lines.flatMap((l) => wrap(this.regular, l, 9.5, width, { maxLines: 3 }))) {
      this.text(line, x, { size: 9.5, color: MUTED, width });
      this.y -= 12;
    }
    const height = top - this.y;
    this.y = top;
    return height;
  }

  rule(): void {
    this.page.drawLine({ start: { x: MARGIN, y: this.y }, end: { x: MARGIN + CONTENT_WIDTH, y: this.y }, thickness: 0.75, color: MUTED });
  }
}

async function sheetFor(title: string, subject: string, at: Date, author: string): Promise<Sheet> {
  const doc = await PDFDocument.create();
  const { regular, bold } = await embedDejaVuSans(doc);
  doc.setTitle(title);
  doc.setSubject(subject);
  doc.setAuthor(author);
  doc.setCreationDate(at);
  doc.setModificationDate(at);
  const sheet = new Sheet(doc, regular, bold);
  sheet.newPage();
  return sheet;
}

function headerAndParties(sheet: Sheet, title: string, rightLines: readonly string[], issuer: Party, customer: Party): void {
  sheet.text(title, MARGIN, { face: sheet.bold, size: 18 });
  const top = sheet.y;
  for (const line of rightLines) {
    sheet.text(line, MARGIN, { size: 10, align: 'right' });
    sheet.y -= 14;
  }
  sheet.y = Math.min(sheet.y, top - 30) - 10;
  const half = CONTENT_WIDTH / 2 - 10;
  const height = Math.max(sheet.party('From', issuer, MARGIN, half), sheet.party('To', customer, MARGIN + CONTENT_WIDTH / 2 + 10, half));
  sheet.y -= height + 10;
  sheet.rule();
  sheet.y -= 18;
}

export async function renderReceipt(input: ReceiptDocument): Promise<Uint8Array> {
  const label = receiptLabel(input.number);
  const sheet = await sheetFor(`${KIND_TITLE[input.kind]} ${label}`, input.description, input.issuedAt, input.issuer.name);
  headerAndParties(
    sheet,
    KIND_TITLE[input.kind],
    [`No. ${label}`, `Issued ${day.format(input.issuedAt)}`, ...(input.orderNumber ? [`Order ${input.orderNumber}`] : [])],
    input.issuer,
    input.customer,
  );
  sheet.text('Description', MARGIN, { face: sheet.bold, size: 10 });
  sheet.text('Amount', MARGIN, { face: sheet.bold, size: 10, align: 'right' });
  sheet.y -= 18;
  sheet.text(formatMoney(input.amountCents, input.currency), MARGIN, { size: 10, align: 'right' });
  for (const line of wrap(sheet.regular, input.description, 10, CONTENT_WIDTH - 140, { maxLines: 6 })) {
    sheet.text(line, MARGIN, { size: 10, width: CONTENT_WIDTH - 140 });
    sheet.y -= 14;
  }
  sheet.y -= 8;
  sheet.rule();
  sheet.y -= 14;
  sheet.text(input.kind === 'refund' ? 'Total refunded' : 'Total paid', MARGIN, { face: sheet.bold, size: 12 });
  sheet.text(formatMoney(Math.abs(input.amountCents), input.currency), MARGIN, { face: sheet.bold, size: 12, align: 'right' });
  sheet.y -= 22;
  const how =
    input.kind === 'refund'
      ? input.paidWith === 'wallet'
        ? 'Returned to your prepaid balance.'
        : 'Returned to the card it was paid with.'
      : input.paidWith === 'wallet'
        ? 'Paid from your prepaid balance.'
        : input.kind === 'adjustment' && input.paidWith === 'card'
          ? 'Charged to your card on file.'
          : input.kind === 'top_up'
            ? 'Charged to your card on file and added to your prepaid balance.'
            : 'Charged to your card on file.';
  sheet.text(how, MARGIN, { size: 9.5, color: MUTED });
  return sheet.doc.save();
}

export async function renderStatement(input: StatementDocument): Promise<Uint8Array> {
  const sheet = await sheetFor(`Statement ${input.month}`, `Statement for ${input.month}`, input.generatedAt, input.issuer.name);
  headerAndParties(
    sheet,
    'Monthly statement',
    [monthName.format(new Date(`${input.month}-01T00:00:00Z`)), `Opening balance ${formatMoney(input.openingCents)}`, `Closing balance ${formatMoney(input.closingCents)}`],
    input.issuer,
    input.customer,
  );
  const columns = (date: string, description: string, receipt: string, amount: string, balance: string, face: Face) => {
    sheet.ensure(16);
    sheet.text(date, MARGIN, { face, size: 9, width: 70 });
    sheet.text(description, MARGIN + 75, { face, size: 9, width: 230 });
    sheet.text(receipt, MARGIN + 310, { face, size: 9, width: 60 });
    sheet.text(amount, MARGIN + 370, { face, size: 9, width: 65, align: 'right' });
    sheet.text(balance, MARGIN + 435, { face, size: 9, width: CONTENT_WIDTH - 435, align: 'right' });
    sheet.y -= 14;
  };
  sheet.text('Prepaid balance', MARGIN, { face: sheet.bold, size: 12 });
  sheet.y -= 18;
  columns('Date', 'Description', 'Receipt', 'Amount', 'Balance', sheet.bold);
  columns('', 'Opening balance', '', '', formatMoney(input.openingCents), sheet.regular);
  for (const line of input.lines)
    columns(
      day.format(line.date),
      line.description,
      line.receiptNumber ? receiptLabel(line.receiptNumber) : '',
      formatMoney(line.amountCents),
      formatMoney(line.balanceAfterCents),
      sheet.regular,
    );
  columns('', 'Closing balance', '', '', formatMoney(input.closingCents), sheet.bold);
  sheet.y -= 14;
  sheet.ensure(40);
  sheet.text('Paid by card', MARGIN, { face: sheet.bold, size: 12 });
  sheet.y -= 18;
  if (input.cardLines.length === 0) {
    sheet.text('Nothing was charged to or refunded on your card this month.', MARGIN, { size: 9, color: MUTED });
    sheet.y -= 14;
  } else {
    columns('Date', 'Description', 'Receipt', 'Amount', '', sheet.bold);
    for (const line of input.cardLines)
      columns(day.format(line.date), line.description, receiptLabel(line.receiptNumber), formatMoney(line.amountCents), '', sheet.regular);
    const total = input.cardLines.reduce((sum, line) => sum + line.amountCents, 0);
    columns('', 'Total', '', formatMoney(total), '', sheet.bold);
  }
  return sheet.doc.save();
}
