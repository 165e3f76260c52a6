import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShippingAddress } from '@layerline/contracts';
import {
  ShippingAddressError,
  ShippingRejectedError,
  type ProviderRate,
  type PurchasedLabel,
  type ShipmentRequest,
} from '../../modules/shipping/shipping-provider.ts';
import {
  billableWeightGrams,
  buildTrackingNumber,
  createSandboxCarrier,
  domesticZone,
  internationalBand,
  parseSandboxTrackingNumber,
} from './sandbox-carrier.ts';

const CREDENTIALS = { provider: 'sandbox' } as const;
const T0 = Date.parse('2026-03-12T15:00:00Z');
const DAY = 86_400_000;

function address(overrides: Partial<ShippingAddress> = {}): ShippingAddress {
  return {
    name: 'Ada Lovelace',
    company: '',
    line1: '12 Harbor Street',
    line2: '',
    city: 'Boston',
    region: 'MA',
    postalCode: '02110',
    country: 'US',
    phone: '',
    email: '',
    ...overrides,
  };
}

const BOSTON = address();
const PROVIDENCE = address({
  name: 'Grace Hopper',
  line1: '3 Elm St',
  city: 'Providence',
  region: 'RI',
  postalCode: '02903',
}); // zone 2
const BOSTON_NEAR = address({ name: 'Grace Hopper', line1: '8 Pearl St', postalCode: '02109' }); // zone 1
const DENVER = address({
  name: 'Grace Hopper',
  line1: '1 Larimer St',
  city: 'Denver',
  region: 'CO',
  postalCode: '80202',
});
const SAN_FRANCISCO = address({
  name: 'Grace Hopper',
  line1: '500 Market St',
  city: 'San Francisco',
  region: 'CA',
  postalCode: '94105',
}); // zone 8
const BERLIN = address({
  name: 'Max Mustermann',
  line1: 'Unter den Linden 1',
  city: 'Berlin',
  region: '',
  postalCode: '10117',
  country: 'DE',
});

function request(
  overrides: Partial<ShipmentRequest> & { weightGrams?: number; dims?: [number, number, number] } = {},
): ShipmentRequest {
  const [lengthMm, widthMm, heightMm] = overrides.dims ?? [150, 100, 50];
  return {
    from: overrides.from ?? BOSTON,
    to: overrides.to ?? SAN_FRANCISCO,
    parcel: overrides.parcel ?? { lengthMm, widthMm, heightMm, weightGrams: overrides.weightGrams ?? 250 },
    reference: overrides.reference ?? 'ETSY-3141592653',
    idempotencyKey: overrides.idempotencyKey ?? 'order-1:parcel-1:attempt-1',
  };
}

function clock(start = T0): { now: () => number; set: (ms: number) => void } {
  let time = start;
  return { now: () => time, set: (ms) => (time = ms) };
}

const carrier = createSandboxCarrier({ trackingBaseUrl: 'https://layerline.test/track', now: () => T0 });

async function price(req: ShipmentRequest, serviceCode: string): Promise<number> {
  const rate = (await carrier.getRates(CREDENTIALS, req)).find((r) => r.serviceCode === serviceCode);
  if (!rate) throw new Error(`no ${serviceCode} rate`);
  return rate.amountCents;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('sandbox carrier: rates', () => {
  it('offers the domestic services of both carriers, cheapest first, in USD cents with transit days', async () => {
    const rates = await carrier.getRates(CREDENTIALS, request());
    expect(rates.map((r) => r.serviceCode).sort()).toEqual(
      [
        'sandbox_express_2nd_day_air',
        'sandbox_express_ground',
        'sandbox_express_next_day_air',
        'sandbox_post_ground_advantage',
        'sandbox_post_priority',
        'sandbox_post_priority_express',
      ].sort(),
    );
    const amounts = rates.map((r) => r.amountCents);
    expect(amounts).toEqual([...amounts].sort((a, b) => a - b));
    for (const rate of rates) {
      expect(Number.isInteger(rate.amountCents)).toBe(true);
      expect(rate.currency).toBe('USD');
      expect(['sandbox_post', 'sandbox_express']).toContain(rate.carrierCode);
      expect(rate.carrier).toBe(rate.carrierCode === 'sandbox_post' ? 'Sandbox Post' : 'Sandbox Express');
    }
    const byCode = Object.fromEntries(rates.map((r) => [r.serviceCode, r]));
    expect(byCode.sandbox_post_ground_advantage!.estimatedDays).toBe(5); // zone 8
    expect(byCode.sandbox_express_2nd_day_air!.estimatedDays).toBe(2);
    expect(byCode.sandbox_express_next_day_air!.estimatedDays).toBe(1);
  });

  it('prices like a carrier: Ground Advantage zone 1, 250 g ≈ $4.50; zone 8, 2 kg ≈ $14; Priority 1.6×, Express 3.5×', async () => {
    expect(domesticZone(BOSTON, BOSTON_NEAR)).toBe(1);
    expect(domesticZone(BOSTON, PROVIDENCE)).toBe(2);
    expect(domesticZone(BOSTON, SAN_FRANCISCO)).toBe(8);
    const zone1 = await price(
      request({ to: BOSTON_NEAR, weightGrams: 250 }),
      'sandbox_post_ground_advantage',
    );
    expect(zone1).toBe(455);
    const zone8 = await price(request({ weightGrams: 2000 }), 'sandbox_post_ground_advantage');
    expect(zone8).toBe(1420);
    const priority = await price(request({ weightGrams: 2000 }), 'sandbox_post_priority');
    const express = await price(request({ weightGrams: 2000 }), 'sandbox_post_priority_express');
    expect(priority / zone8).toBeCloseTo(1.6, 2);
    expect(express / zone8).toBeCloseTo(3.5, 2);
  });

  it('grows with weight (in 100 g steps) and with zone', async () => {
    const weights = [100, 250, 900, 2000, 8000, 29_000];
    for (const code of [
      'sandbox_post_ground_advantage',
      'sandbox_express_ground',
      'sandbox_express_next_day_air',
    ]) {
      const byWeight = await Promise.all(weights.map((w) => price(request({ weightGrams: w }), code)));
      for (let i = 1; i < byWeight.length; i++) expect(byWeight[i]!).toBeGreaterThan(byWeight[i - 1]!);
      const byZone = await Promise.all(
        [BOSTON_NEAR, PROVIDENCE, DENVER, SAN_FRANCISCO].map((to) =>
          price(request({ to, weightGrams: 1500 }), code),
        ),
      );
      for (let i = 1; i < byZone.length; i++) expect(byZone[i]!).toBeGreaterThan(byZone[i - 1]!);
    }
    // Within one 100 g step the price does not change.
    expect(await price(request({ weightGrams: 201 }), 'sandbox_post_priority')).toBe(
      await price(request({ weightGrams: 300 }), 'sandbox_post_priority'),
    );
  });

  it('bills the dimensional weight (L×W×H cm / 5000) when it is larger', async () => {
    // 400 × 300 × 300 mm = 36,000 cm³ → 7.2 kg dimensional, though it weighs 500 g.
    const big = request({ dims: [400, 300, 300], weightGrams: 500 });
    expect(billableWeightGrams(big.parcel)).toBe(7200);
    const heavy = request({ dims: [200, 150, 100], weightGrams: 7200 });
    const light = request({ dims: [200, 150, 100], weightGrams: 500 });
    for (const code of ['sandbox_post_ground_advantage', 'sandbox_express_2nd_day_air']) {
      expect(await price(big, code)).toBe(await price(heavy, code));
      expect(await price(big, code)).toBeGreaterThan(await price(light, code));
    }
    // Rounded up to the next 100 g: 101 × 100 × 100 mm = 202 g → 300 g.
    expect(billableWeightGrams({ lengthMm: 101, widthMm: 100, heightMm: 100, weightGrams: 50 })).toBe(300);
  });

  it('offers international services only across a border, priced by band ($18–$60 for usual parcels)', async () => {
    const domestic = await carrier.getRates(
      CREDENTIALS,
      request({ from: BERLIN, to: address({ ...BERLIN, postalCode: '80331', city: 'München' }) }),
    );
    expect(
      domestic.some((r) => r.serviceCode.endsWith('international') || r.serviceCode.endsWith('worldwide')),
    ).toBe(false);
    expect(domestic.length).toBe(6);

    const abroad = await carrier.getRates(CREDENTIALS, request({ to: BERLIN, weightGrams: 1000 }));
    expect(abroad.map((r) => r.serviceCode)).toEqual([
      'sandbox_post_international',
      'sandbox_express_worldwide',
    ]);
    const [post, worldwide] = abroad as [ProviderRate, ProviderRate];
    expect(post.carrier).toBe('Sandbox Post');
    expect(worldwide.carrier).toBe('Sandbox Express');
    expect(post.estimatedDays).toBeGreaterThanOrEqual(6);
    expect(post.estimatedDays).toBeLessThanOrEqual(12);
    expect(worldwide.estimatedDays).toBeGreaterThanOrEqual(3);
    expect(worldwide.estimatedDays).toBeLessThanOrEqual(5);

    expect(internationalBand('US', 'CA')).toBe(1);
    expect(internationalBand('US', 'DE')).toBe(2);
    expect(internationalBand('US', 'AU')).toBe(3);
    expect(internationalBand('US', 'AQ')).toBe(4);
    const toCanada = await price(
      request({
        to: address({ country: 'CA', postalCode: 'K1A 0B1', city: 'Ottawa', region: 'ON' }),
        weightGrams: 250,
      }),
      'sandbox_post_international',
    );
    const toAustralia = await price(
      request({
        to: address({ country: 'AU', postalCode: '2000', city: 'Sydney', region: 'NSW' }),
        weightGrams: 2000,
      }),
      'sandbox_express_worldwide',
    );
    expect(toCanada).toBeGreaterThanOrEqual(1500);
    expect(toCanada).toBeLessThan(2000);
    expect(toAustralia).toBeGreaterThan(toCanada);
    expect(toAustralia).toBeLessThanOrEqual(6500);
  });

  it('refuses the impossible parcel: over 30 kg, a side over 1,000 mm, length + girth over 3,000 mm', async () => {
    for (const parcel of [
      { lengthMm: 300, widthMm: 300, heightMm: 300, weightGrams: 30_001 },
      { lengthMm: 1100, widthMm: 100, heightMm: 100, weightGrams: 1000 },
      { lengthMm: 900, widthMm: 600, heightMm: 500, weightGrams: 5000 }, // 900 + 2 × 1100 = 3100
      { lengthMm: 0, widthMm: 100, heightMm: 100, weightGrams: 1000 },
    ]) {
      const error = await rejection(carrier.getRates(CREDENTIALS, request({ parcel })));
      expect(error).toBeInstanceOf(ShippingRejectedError);
      expect(error.message).toMatch(/^No sandbox service takes a parcel of /);
    }
    // Just inside every limit: rated.
    const limit = { lengthMm: 1000, widthMm: 500, heightMm: 500, weightGrams: 30_000 };
    expect((await carrier.getRates(CREDENTIALS, request({ parcel: limit }))).length).toBeGreaterThan(0);
  });
});

describe('sandbox carrier: addresses', () => {
  it('fails verification for INVALID streets or postal codes and the ZIP 00000, saying which address', async () => {
    for (const to of [
      address({ line1: '1 Invalid Road' }),
      address({ line2: 'apt INVALID' }),
      address({ postalCode: '00000' }),
      address({ postalCode: '00000-1234' }),
      address({ country: 'GB', postalCode: 'invalid', region: '' }),
    ]) {
      const error = await rejection(carrier.getRates(CREDENTIALS, request({ to })));
      expect(error).toBeInstanceOf(ShippingAddressError);
      expect(error.message).toMatch(/^Sandbox carrier: the address could not be verified: the recipient's/);
    }
    const sender = await rejection(
      carrier.getRates(CREDENTIALS, request({ from: address({ line1: 'INVALID' }) })),
    );
    expect(sender).toBeInstanceOf(ShippingAddressError);
    expect(sender.message).toContain("the sender's street");
  });

  it('checks the postal code format for US, CA, GB and DE', async () => {
    for (const [country, bad] of [
      ['US', '1234'],
      ['US', '12345-67'],
      ['CA', '12345'],
      ['GB', '12345'],
      ['DE', '1234'],
      ['DE', 'D-10117'],
    ]) {
      const error = await rejection(
        carrier.getRates(CREDENTIALS, request({ to: address({ country, postalCode: bad }) })),
      );
      expect(error, `${country} ${bad}`).toBeInstanceOf(ShippingAddressError);
      expect(error.message).toContain(`"${bad}"`);
    }
    for (const [country, good] of [
      ['US', '94105'],
      ['US', '94105-1804'],
      ['CA', 'K1A 0B1'],
      ['CA', 'm5v3l9'],
      ['GB', 'SW1A 1AA'],
      ['GB', 'M1 1AE'],
      ['DE', '10117'],
      ['FR', '75001'],
      ['JP', '100-0001'],
    ]) {
      const rates = await carrier.getRates(
        CREDENTIALS,
        request({ to: address({ country, postalCode: good }) }),
      );
      expect(rates.length, `${country} ${good}`).toBeGreaterThan(0);
    }
  });
});

describe('sandbox carrier: buying labels', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-label-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const hasTool = (tool: string, versionArg: string): boolean =>
    !spawnSync(tool, [versionArg], { stdio: 'ignore' }).error;

  let label: PurchasedLabel;
  let rate: ProviderRate;
  const req = request({
    to: address({
      name: 'Ελένη Παπαδοπούλου',
      line1: '500 Market St',
      city: 'San Francisco',
      region: 'CA',
      postalCode: '94105',
    }),
    weightGrams: 1250,
    dims: [300, 200, 150],
  });
  beforeAll(async () => {
    [rate] = (await carrier.getRates(CREDENTIALS, req)) as [ProviderRate];
    label = await carrier.purchaseLabel(CREDENTIALS, req, rate);
  });

  it('buys the label of the chosen rate: tracking number, URL, cost and a 4×6 inch PDF', async () => {
    expect(label.trackingNumber).toMatch(/^SBXG[0-9A-Z]{13}$/);
    expect(label.providerLabelId).toBe(label.trackingNumber);
    expect(label.trackingUrl).toBe(`https://layerline.test/track/${label.trackingNumber}`);
    expect(label).toMatchObject({
      carrier: rate.carrier,
      carrierCode: rate.carrierCode,
      service: rate.service,
      costCents: rate.amountCents,
      currency: 'USD',
    });
    expect('pdf' in label.label).toBe(true);
    const pdf = (label.label as { pdf: Buffer }).pdf;
    expect(Buffer.isBuffer(pdf)).toBe(true);
    const doc = await PDFDocument.load(pdf);
    expect(doc.getPageCount()).toBe(1);
    const { width, height } = doc.getPage(0).getSize();
    expect([width, height]).toEqual([288, 432]);

    const parsed = parseSandboxTrackingNumber(label.trackingNumber)!;
    expect(parsed.purchasedAt.getTime()).toBe(T0);
    expect(parsed.transitDays).toBe(rate.estimatedDays);
    expect(parsed.service.serviceCode).toBe(rate.serviceCode);
  });

  it('prints "SANDBOX", the tracking number, addresses, service, weight and reference (pdftotext)', (ctx) => {
    if (!hasTool('pdftotext', '-v'))
      ctx.skip('pdftotext (poppler-utils) is not installed: the label text cannot be read');
    const path = join(dir, 'label.pdf');
    writeFileSync(path, (label.label as { pdf: Buffer }).pdf);
    const text = execFileSync('pdftotext', ['-enc', 'UTF-8', path, '-'], { encoding: 'utf8' });
    for (const expected of [
      'SANDBOX — NOT A REAL LABEL',
      label.trackingNumber,
      'Ada Lovelace',
      '12 Harbor Street',
      'Boston, MA 02110',
      'Ελένη Παπαδοπούλου',
      'San Francisco, CA 94105',
      'SANDBOX POST',
      'Ground Advantage',
      '1.25 kg',
      'billed 1.8 kg',
      'Ref: ETSY-3141592653',
    ]) {
      expect(text).toContain(expected);
    }
  });

  it('prints the tracking number as a Code 128 barcode that scans to exactly it (pdftoppm + zbarimg)', (ctx) => {
    if (!hasTool('pdftoppm', '-v') || !hasTool('zbarimg', '--version')) {
      ctx.skip(
        'pdftoppm (poppler-utils) or zbarimg (zbar-tools) is not installed: the barcode cannot be scanned',
      );
    }
    const path = join(dir, 'scan.pdf');
    writeFileSync(path, (label.label as { pdf: Buffer }).pdf);
    execFileSync('pdftoppm', ['-r', '200', '-png', '-f', '1', '-l', '1', path, join(dir, 'scan')]);
    const png = readdirSync(dir).find((name) => name.startsWith('scan') && name.endsWith('.png'));
    expect(png).toBeDefined();
    const out = execFileSync('zbarimg', ['--raw', '-q', '-Sdisable', '-Scode128.enable', join(dir, png!)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(out.split('\n').filter((line) => line !== '')).toEqual([label.trackingNumber]);
  });

  it('buys once per idempotency key in a process, and findLabel answers from this process only', async () => {
    expect(await carrier.purchaseLabel(CREDENTIALS, req, rate)).toBe(label);
    expect(await carrier.findLabel(CREDENTIALS, req)).toBe(label);
    expect(await carrier.findLabel(CREDENTIALS, { ...req, idempotencyKey: 'never-bought' })).toBeNull();
    const otherProcess = createSandboxCarrier({
      trackingBaseUrl: 'https://layerline.test/track',
      now: () => T0,
    });
    expect(await otherProcess.findLabel(CREDENTIALS, req)).toBeNull();
  });

  it('gives labels bought in the same millisecond different tracking numbers', async () => {
    const second = await carrier.purchaseLabel(
      CREDENTIALS,
      { ...req, idempotencyKey: 'order-1:parcel-2:attempt-1' },
      rate,
    );
    expect(second.trackingNumber).not.toBe(label.trackingNumber);
  });

  it('refuses a tampered, foreign or other-request rate id', async () => {
    const [prefix, code, amount, check] = rate.rateId.split('.') as [string, string, string, string];
    const tampered = [
      `${prefix}.${code}.${Number(amount) - 100}.${check}`,
      `${prefix}.sandbox_post_priority_express.${amount}.${check}`,
      `${prefix}.${code}.${amount}.${check.replace(/^./, (c) => (c === '0' ? '1' : '0'))}`,
      'se-123456789',
      '',
    ];
    for (const rateId of tampered) {
      const error = await rejection(
        carrier.purchaseLabel(
          CREDENTIALS,
          { ...req, idempotencyKey: `tamper-${rateId}` },
          { ...rate, rateId },
        ),
      );
      expect(error, rateId).toBeInstanceOf(ShippingRejectedError);
      expect(error.message).toBe('This rate is no longer valid; shop rates again');
    }
    // A rate shopped for another parcel does not buy this one.
    const heavier = { ...req, parcel: { ...req.parcel, weightGrams: 4000 }, idempotencyKey: 'heavier' };
    const error = await rejection(carrier.purchaseLabel(CREDENTIALS, heavier, rate));
    expect(error).toBeInstanceOf(ShippingRejectedError);
  });

  it('has no label URLs to download, and accepts any credentials', async () => {
    await expect(carrier.downloadLabel(CREDENTIALS, 'https://example.com/label.pdf')).rejects.toBeInstanceOf(
      ShippingRejectedError,
    );
    await expect(carrier.verifyCredentials(CREDENTIALS)).resolves.toBeUndefined();
  });
});

describe('sandbox carrier: tracking numbers', () => {
  it('round-trip through the parser, case-insensitively, and reject any single wrong character', () => {
    const number = buildTrackingNumber('P', T0, 3, 'key-1');
    expect(number).toHaveLength(17);
    const parsed = parseSandboxTrackingNumber(` ${number.toLowerCase()} `)!;
    expect(parsed.trackingNumber).toBe(number);
    expect(parsed.service.serviceCode).toBe('sandbox_post_priority');
    expect(parsed.purchasedAt.toISOString()).toBe('2026-03-12T15:00:00.000Z');
    expect(parsed.transitDays).toBe(3);
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    for (let i = 3; i < number.length; i++) {
      for (const c of alphabet) {
        if (c === number[i]) continue;
        const garbled = number.slice(0, i) + c + number.slice(i + 1);
        expect(parseSandboxTrackingNumber(garbled), garbled).toBeNull();
      }
    }
    expect(parseSandboxTrackingNumber('1Z999AA10123456784')).toBeNull();
    expect(parseSandboxTrackingNumber('')).toBeNull();
  });
});

describe('sandbox carrier: tracking and voids', () => {
  it('advances from label created to delivered with the clock, the same in any process', async () => {
    const time = clock();
    const fast = { trackingBaseUrl: 'https://layerline.test/track', secondsPerDay: 10 };
    const buyer = createSandboxCarrier({ ...fast, now: time.now });
    const reader = createSandboxCarrier({ ...fast, now: time.now }); // another process: no shared memory
    const req = request({ to: DENVER }); // zone 7: Ground Advantage takes 5 days = 50 s
    const rate = (await buyer.getRates(CREDENTIALS, req)).find(
      (r) => r.serviceCode === 'sandbox_post_ground_advantage',
    )!;
    expect(rate.estimatedDays).toBe(5);
    const { trackingNumber, carrierCode } = await buyer.purchaseLabel(CREDENTIALS, req, rate);

    const seen: string[] = [];
    const at = async (seconds: number) => {
      time.set(T0 + seconds * 1000);
      const info = await reader.track(CREDENTIALS, carrierCode, trackingNumber);
      seen.push(info.status);
      return info;
    };
    let info = await at(0);
    expect(info.status).toBe('pre_transit');
    expect(info.events.map((e) => e.description)).toEqual([
      'Shipping label created, Sandbox Post awaiting item',
    ]);
    expect(info.events[0]!.occurredAt.getTime()).toBe(T0);
    info = await at(2); // +0.2 day
    expect(info.status).toBe('in_transit');
    expect(info.events.at(-1)!.description).toBe('Accepted at origin facility');
    info = await at(25); // +50 % of transit
    expect(info.events.at(-1)!.description).toMatch(
      /^Arrived at sort facility [A-Z][a-z]+( [A-Z][a-z]+)?, [A-Z]{2}$/,
    );
    expect(info.events.at(-1)!.location).not.toBe('');
    info = await at(47); // transit − 0.3 day
    expect(info.status).toBe('out_for_delivery');
    info = await at(49.9);
    expect(info.status).toBe('out_for_delivery');
    info = await at(50);
    expect(info.status).toBe('delivered');
    expect(info.events.map((e) => e.status)).toEqual([
      'pre_transit',
      'in_transit',
      'in_transit',
      'out_for_delivery',
      'delivered',
    ]);
    expect(info.events.at(-1)!.occurredAt.getTime()).toBe(T0 + 50_000);
    expect(seen).toEqual([
      'pre_transit',
      'in_transit',
      'in_transit',
      'out_for_delivery',
      'out_for_delivery',
      'delivered',
    ]);

    // Stable event ids: asking again (any process, any later time) gives the same events.
    const again = await buyer.track(CREDENTIALS, carrierCode, trackingNumber);
    time.set(T0 + 365 * 10_000);
    const later = await reader.track(CREDENTIALS, carrierCode, trackingNumber);
    expect(again.events.map((e) => e.eventId)).toEqual(info.events.map((e) => e.eventId));
    expect(later).toEqual(info);
    expect(new Set(info.events.map((e) => e.eventId)).size).toBe(5);
  });

  it('answers a clock behind the purchase with no events, and refuses unknown numbers', async () => {
    const number = buildTrackingNumber('N', T0 + 5000, 1, 'k');
    const info = await carrier.track(CREDENTIALS, 'sandbox_express', number);
    expect(info).toEqual({ status: 'pre_transit', events: [] });
    for (const bad of [
      'SBXNOTANUMBER',
      `${number.slice(0, -1)}${number.endsWith('0') ? '1' : '0'}`,
      '9400111899223197428490',
    ]) {
      const error = await rejection(carrier.track(CREDENTIALS, 'sandbox_express', bad));
      expect(error, bad).toBeInstanceOf(ShippingRejectedError);
      expect((error as ShippingRejectedError).status).toBe(404);
    }
  });

  it('voids with a refund until delivered, and never after 28 days', async () => {
    const time = clock();
    const sandbox = createSandboxCarrier({ trackingBaseUrl: 'https://layerline.test/track', now: time.now });
    const twoDay = buildTrackingNumber('T', T0, 2, 'void-test');
    expect(await sandbox.voidLabel(CREDENTIALS, twoDay)).toMatchObject({ refunded: true });
    time.set(T0 + 1.5 * DAY); // in transit: still refunded
    expect(await sandbox.voidLabel(CREDENTIALS, twoDay)).toMatchObject({ refunded: true });
    time.set(T0 + 2 * DAY); // delivered
    const delivered = await sandbox.voidLabel(CREDENTIALS, twoDay);
    expect(delivered.refunded).toBe(false);
    expect(delivered.message).toMatch(/delivered/);
    time.set(T0 + 29 * DAY);
    const old = await sandbox.voidLabel(CREDENTIALS, twoDay);
    expect(old.refunded).toBe(false);
    expect(old.message).toMatch(/28 days/);
    await expect(sandbox.voidLabel(CREDENTIALS, 'SBX-nonsense')).rejects.toBeInstanceOf(
      ShippingRejectedError,
    );
  });
});
