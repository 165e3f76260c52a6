import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { renderPackingSlip, type PackingSlipInput } from './packing-slip.ts';

/**
 * Through the public function, checked with outside tools: pdf-lib loads the PDF back, poppler's
 * pdftotext reads its text, pdftoppm renders it and zbar scans the barcode (poppler-utils and
 * zbar-tools, which .ci/run installs).
 */

const dir = mkdtempSync(join(tmpdir(), 'packing-slip-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileCount = 0;
function writePdf(pdf: Uint8Array): string {
  const path = join(dir, `slip-${++fileCount}.pdf`);
  writeFileSync(path, pdf);
  return path;
}

function pdfText(pdf: Uint8Array): string {
  return execFileSync('pdftotext', ['-enc', 'UTF-8', writePdf(pdf), '-'], { encoding: 'utf8' });
}

/** The text in the top-left corner of page 1 (the slip's heading): x 0-340 pt, y 0-70 pt from the top. */
function headingText(pdf: Uint8Array): string {
  const args = [
    '-enc',
    'UTF-8',
    '-f',
    '1',
    '-l',
    '1',
    '-r',
    '72',
    '-x',
    '0',
    '-y',
    '0',
    '-W',
    '340',
    '-H',
    '70',
  ];
  return execFileSync('pdftotext', [...args, writePdf(pdf), '-'], { encoding: 'utf8' }).trim();
}

/** Scans an image with zbar for Code 128 only; the decoded symbols, one per line. */
function scan(...images: string[]): string[] {
  const args = ['--raw', '-q', '-Sdisable', '-Scode128.enable', ...images];
  const out = execFileSync('zbarimg', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return out.split('\n').filter((line) => line !== '');
}

function input(overrides: Partial<PackingSlipInput> = {}): PackingSlipInput {
  return {
    orderId: '3f9c2b7e-5d41-4a8e-9c0b-7e2d1f6a4b38',
    orderNumber: 'ETSY-3141592653',
    placedAt: new Date('2026-03-12T15:20:00Z'),
    seller: {
      businessName: 'Maple & Moss Prints',
      email: 'hello@maplemoss.example',
      returnAddress: {
        name: 'Maple & Moss Prints',
        company: '',
        line1: '12 Workshop Lane',
        line2: 'Unit 4',
        city: 'Portland',
        region: 'OR',
        postalCode: '97201',
        country: 'US',
        phone: '',
      },
    },
    shipTo: {
      name: 'Jane Doe',
      company: 'Doe Botanicals',
      line1: '400 Market Street',
      line2: 'Apt 9B',
      city: 'San Francisco',
      region: 'CA',
      postalCode: '94105',
      country: 'US',
      phone: '+1 415 555 0100',
      email: 'jane@example.com',
    },
    pickList: [
      {
        sku: 'PLANTER-L-SAGE',
        title: 'Geometric planter / Large / Sage',
        quantity: 2,
        packaging: 'gift box',
        parts: [
          { name: 'Planter body', quantity: 2 },
          { name: 'Drip tray', quantity: 2 },
        ],
      },
      {
        sku: 'HOOK-SET-4',
        title: 'Wall hooks, set of four',
        quantity: 1,
        packaging: 'standard',
        parts: [{ name: 'Hook', quantity: 4 }],
      },
    ],
    message: 'Thank you for supporting a small studio!\nWater the planter from the tray.',
    branding: { logoPng: null, insertMessage: '', thankYouCard: false },
    generatedAt: new Date('2026-03-14T09:05:00Z'),
    ...overrides,
  };
}

function manyItems(count: number): PackingSlipInput['pickList'] {
  return Array.from({ length: count }, (_, i) => ({
    sku: `SKU-${String(i + 1).padStart(3, '0')}`,
    title: `Item number ${i + 1}`,
    quantity: 1 + (i % 3),
    packaging: 'standard',
    parts: [{ name: `Part ${i + 1}A`, quantity: 1 }],
  }));
}

/** pdftotext may break a line anywhere a wrap could: compare with whitespace squeezed. */
function squeeze(text: string): string {
  return text.replace(/\s+/g, ' ');
}

describe('renderPackingSlip', () => {
  it('renders a PDF that pdf-lib loads back, one Letter page for a small order', async () => {
    const pdf = await renderPackingSlip(input());
    expect(Buffer.from(pdf.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    const doc = await PDFDocument.load(pdf);
    expect(doc.getPageCount()).toBe(1);
    expect(doc.getPage(0).getSize()).toEqual({ width: 612, height: 792 });
    expect(doc.getTitle()).toBe('Packing slip, order ETSY-3141592653');
  });

  it('prints the seller, the order, the ship-to address, the pick list with its parts and the message', async () => {
    const pdf = await renderPackingSlip(input());
    expect(headingText(pdf)).toBe('Maple & Moss Prints');
    const text = squeeze(pdfText(pdf));
    for (const expected of [
      'Maple & Moss Prints',
      '12 Workshop Lane',
      'Portland, OR 97201',
      'Packing slip',
      'Order ETSY-3141592653',
      'Placed March 12, 2026',
      'Jane Doe',
      'Doe Botanicals',
      'San Francisco, CA 94105',
      'United States',
      'PLANTER-L-SAGE',
      'Geometric planter / Large / Sage',
      'gift box',
      'Planter body',
      'Drip tray',
      'HOOK-SET-4',
      'Hook',
      'Thank you for supporting a small studio!',
      'Water the planter from the tray.',
      '3f9c2b7e-5d41-4a8e-9c0b-7e2d1f6a4b38',
      'Page 1 of 1',
    ]) {
      expect(text).toContain(expected);
    }
    // The buyer bought from the seller: no platform branding on the slip.
    expect(text.toLowerCase()).not.toContain('layerline');
  });

  it('heads the slip with the email when there is no business name, and copes with no return address and no message', async () => {
    const pdf = await renderPackingSlip(
      input({ seller: { businessName: '', email: 'maker@example.com', returnAddress: null }, message: '' }),
    );
    expect(headingText(pdf)).toBe('maker@example.com');
    const text = pdfText(pdf);
    expect(text).not.toContain('A note from');
    expect(text).not.toContain('Workshop Lane');
    expect(text).toContain('Jane Doe');
  });

  it('prints a message in its own box, under a heading naming the seller', async () => {
    const text = squeeze(pdfText(await renderPackingSlip(input())));
    expect(text).toContain('A note from Maple & Moss Prints');
  });

  it('starts new pages for a long pick list and cuts nothing off (200 items)', async () => {
    const pdf = await renderPackingSlip(input({ pickList: manyItems(200) }));
    const pages = (await PDFDocument.load(pdf)).getPageCount();
    expect(pages).toBeGreaterThan(1);
    const text = squeeze(pdfText(pdf));
    for (let i = 1; i <= 200; i++) {
      expect(text).toContain(`SKU-${String(i).padStart(3, '0')}`);
      expect(text).toContain(`Part ${i}A`);
    }
    expect(text).toContain(`Page ${pages} of ${pages}`);
    expect(text).toContain('(continued)');
    expect(text).toContain('Thank you for supporting a small studio!');
  });

  it('wraps long text instead of running off the page', async () => {
    const longTitle = 'A very long product title that goes on and on '.repeat(4).trim();
    const longSku = 'SKU-'.padEnd(90, 'X');
    const message = `${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(8)}\n\n\nSigned, the studio`;
    const pdf = await renderPackingSlip(
      input({
        orderNumber: `ORDER-${'9'.repeat(60)}`,
        message: message.slice(0, 500),
        pickList: [
          {
            sku: longSku,
            title: longTitle,
            quantity: 3,
            packaging: 'kit',
            parts: [{ name: 'Base', quantity: 3 }],
          },
        ],
      }),
    );
    // Every character pdftotext finds lies inside the page (poppler drops text outside the crop box,
    // so compare what it reads with what we printed).
    const text = squeeze(pdfText(pdf)).replace(/ /g, '');
    expect(text).toContain(longTitle.replace(/ /g, ''));
    expect(text).toContain(longSku);
    expect(text).toContain('Signed,thestudio');
    expect(text).toContain(`ORDER-${'9'.repeat(60)}`);
  });

  it('does not crash on names outside Latin-1: they print where the font has them, else as ?', async () => {
    const pdf = await renderPackingSlip(
      input({
        orderNumber: '注文-42',
        seller: {
          businessName: 'Мастерская «Клён»',
          email: 'klen@example.com',
          returnAddress: {
            name: 'Σοφία Παπαδοπούλου',
            company: '',
            line1: 'Οδός Ερμού 10',
            line2: '',
            city: 'Αθήνα',
            region: '',
            postalCode: '105 63',
            country: 'GR',
            phone: '',
          },
        },
        shipTo: {
          name: '山田太郎',
          company: 'Zoë Łukasiewicz-Ørsted',
          line1: '1-2-3 Shibuya\u200b',
          line2: 'שלום',
          city: 'Tōkyō',
          region: '',
          postalCode: '150-0002',
          country: 'JP',
          phone: '',
          email: '',
        },
        pickList: [
          {
            sku: 'MUG-01',
            title: 'Кружка 🍵 «Утро»',
            quantity: 1,
            packaging: 'standard',
            parts: [{ name: 'Ручка', quantity: 1 }],
          },
        ],
        message: 'Merci beaucoup ! Ευχαριστώ 🙂\ttab',
      }),
    );
    const text = squeeze(pdfText(pdf));
    for (const expected of [
      'Мастерская «Клён»',
      'Σοφία Παπαδοπούλου',
      'Αθήνα',
      'Zoë Łukasiewicz-Ørsted',
      'Tōkyō',
      'Кружка ? «Утро»',
      'Ручка',
      'Ευχαριστώ ? tab',
      'Order ??-42',
      '????',
      'Greece',
      'Japan',
    ]) {
      expect(text).toContain(expected);
    }
  });

  it('prints a barcode that scans to exactly the order id', async () => {
    const orderId = '3f9c2b7e-5d41-4a8e-9c0b-7e2d1f6a4b38';
    const pdfPath = writePdf(await renderPackingSlip(input({ orderId })));
    const prefix = join(dir, 'scan');
    execFileSync('pdftoppm', ['-r', '300', '-png', '-f', '1', '-l', '1', pdfPath, prefix]);
    const png = readdirSync(dir).find((name) => name.startsWith('scan') && name.endsWith('.png'));
    expect(png).toBeDefined();
    expect(scan(join(dir, png!))).toEqual([orderId]);
  });
});

/** The images a PDF embeds, as pdfimages lists them: width and height in pixels. */
function embeddedImages(pdf: Uint8Array): { page: number; width: number; height: number }[] {
  const out = execFileSync('pdfimages', ['-list', writePdf(pdf)], { encoding: 'utf8' });
  return out
    .split('\n')
    .slice(2)
    .filter((line) => line.trim() !== '')
    .map((line) => line.trim().split(/\s+/))
    .filter((cells) => cells[2] === 'image')
    .map((cells) => ({ page: Number(cells[0]), width: Number(cells[3]), height: Number(cells[4]) }));
}

describe('renderPackingSlip with the seller’s branding (issue 24, point 4)', () => {
  const logoPng = async () => {
    const sharp = (await import('sharp')).default;
    return sharp({ create: { width: 300, height: 100, channels: 3, background: '#0f766e' } }).png().toBuffer();
  };

  it('puts the logo above the seller’s name and prints the insert message in its own box', async () => {
    const pdf = await renderPackingSlip(
      input({ branding: { logoPng: await logoPng(), insertMessage: 'Every piece is printed to order in our studio.', thankYouCard: false } }),
    );
    expect(embeddedImages(pdf)).toEqual([{ page: 1, width: 300, height: 100 }]);
    const text = squeeze(pdfText(pdf));
    expect(text).toContain('A message from Maple & Moss Prints Every piece is printed to order in our studio.');
    expect(text).toContain('A note from Maple & Moss Prints'); // the order's own note still prints
    expect((await PDFDocument.load(pdf)).getPageCount()).toBe(1);
  });

  it('adds a thank-you card on a page of its own, with the logo and the insert message', async () => {
    const pdf = await renderPackingSlip(
      input({ branding: { logoPng: await logoPng(), insertMessage: 'Tag us in your photos!', thankYouCard: true } }),
    );
    expect((await PDFDocument.load(pdf)).getPageCount()).toBe(2);
    expect(embeddedImages(pdf).map((image) => image.page)).toEqual([1, 2]);
    const card = squeeze(execFileSync('pdftotext', ['-enc', 'UTF-8', '-f', '2', '-l', '2', writePdf(pdf), '-'], { encoding: 'utf8' }));
    expect(card).toContain('Thank you!');
    expect(card).toContain('Tag us in your photos!');
    expect(card).toContain('— Maple & Moss Prints');
    expect(card).not.toContain('Page 2'); // the card is not a page of the slip
  });

  it('prints a card without logo or message with a thanks naming the seller, and no branding prints none', async () => {
    const card = await renderPackingSlip(input({ branding: { logoPng: null, insertMessage: '', thankYouCard: true } }));
    expect(squeeze(pdfText(card))).toContain('Thank you for your order from Maple & Moss Prints. We hope you love it.');
    const plain = await renderPackingSlip(input());
    expect(embeddedImages(plain)).toEqual([]);
    expect(pdfText(plain)).not.toContain('A message from');
  });
});
