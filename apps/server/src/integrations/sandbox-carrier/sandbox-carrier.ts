import { createHash } from 'node:crypto';
import type { ShippingAddress } from '@layerline/contracts';
import {
  ShippingAddressError,
  ShippingRejectedError,
  type ProviderRate,
  type PurchasedLabel,
  type ShipmentRequest,
  type ShippingProvider,
  type TrackingEvent,
  type TrackingInfo,
  type TrackingStatusCode,
} from '../../modules/shipping/shipping-provider.ts';
import { formatWeight, renderSandboxLabel } from './sandbox-label.ts';

/**
 * The built-in sandbox carrier: a `ShippingProvider` that needs no outside account. It stands in for
 * ShipStation/Shippo on the embedded default and in the demo, so labels are bought, tracking
 * advances and orders get delivered without anyone signing up anywhere. Nothing is charged.
 *
 * Deterministic and stateless (several processes may run it at once):
 * - rates are a pure function of the request (addresses and parcel);
 * - a rate id carries its service, amount and a fingerprint of the request, so purchaseLabel checks
 *   it against a fresh quote instead of remembering what was offered;
 * - the tracking number carries the purchase time and the transit days, so any process answers
 *   `track` and `voidLabel` for any label from the number alone (the process's clock and
 *   `secondsPerDay` must agree, which they do when every process is configured alike).
 * The only memory is a small per-process map idempotencyKey → label for `findLabel` (see there).
 *
 * Carriers and services (letter = the tracking number's 4th character):
 *
 * | Carrier (code)                      | Service (code)                                     | Letter | Transit days | Price factor      |
 * |-------------------------------------|----------------------------------------------------|--------|--------------|-------------------|
 * | Sandbox Post (`sandbox_post`)       | Ground Advantage (`sandbox_post_ground_advantage`) | G      | 2–5 by zone  | 1                 |
 * |                                     | Priority (`sandbox_post_priority`)                 | P      | 1–3 by zone  | 1.6               |
 * |                                     | Priority Express (`sandbox_post_priority_express`) | E      | 1–2 by zone  | 3.5               |
 * |                                     | International (`sandbox_post_international`)       | I      | 6–12 by band | 1 (intl table)    |
 * | Sandbox Express (`sandbox_express`) | Ground (`sandbox_express_ground`)                  | R      | 1–5 by zone  | 1.15              |
 * |                                     | 2nd Day Air (`sandbox_express_2nd_day_air`)        | T      | 2            | 2.4               |
 * |                                     | Next Day Air (`sandbox_express_next_day_air`)      | N      | 1            | 4.2               |
 * |                                     | Worldwide (`sandbox_express_worldwide`)            | W      | 3–5 by band  | 1.45 (intl table) |
 *
 * Domestic services are offered when both addresses are in the same country, international ones
 * only when they are not.
 *
 * Price (integer US cents) = round(factor × (base[zone] + step[zone] × steps)), where steps is the
 * billable weight in 100 g steps, rounded up (billable = max(actual, dimensional) with dimensional
 * = L×W×H cm / 5000 kg, i.e. L×W×H mm / 5000 g):
 *
 *   domestic zone         1    2    3    4    5    6    7    8
 *   base (cents)        380  395  410  425  445  465  490  520
 *   per 100 g (cents)    25   27   30   33   36   39   42   45
 *   (Ground Advantage zone 1, 250 g = $4.55; zone 8, 2 kg = $14.20; Priority ×1.6, Express ×3.5)
 *
 *   international band    1     2     3     4
 *   base (cents)        1600  1900  2200  2500
 *   per 100 g (cents)     50    65    80    95
 *   (Post International band 1, 250 g = $17.50; band 4, 2 kg = $44; Worldwide ×1.45)
 *
 * Domestic zone: for US addresses, 1 when the ZIP codes share their first three digits, else
 * 2 + round(|first digit of origin − first digit of destination| × 6 / 9) (2–8); elsewhere 1 for the
 * same postal code, else 2–8 by a hash of the two postal codes. International band: 1 within a
 * continent, 2 between neighbouring continents (North America–Europe, North America–South America,
 * Europe–Asia, Europe–Africa, Asia–Oceania, Asia–Africa), 3 between others, 4 when either country is
 * not in the sandbox's continent list.
 *
 * Limits (the "impossible parcel"): over 30 kg, a side over 1,000 mm, or length + girth over
 * 3,000 mm → ShippingRejectedError('No sandbox service takes a parcel of …').
 *
 * Address checks, like a carrier's: the postal code must match its country's format for US
 * (12345 or 12345-6789), CA (A1A 1A1), GB (basic outward + inward pattern) and DE (5 digits); a
 * street line or postal code containing "INVALID" (any case), or the US ZIP 00000, fails
 * verification → ShippingAddressError('Sandbox carrier: the address could not be verified: …').
 * Both addresses are checked (the message says which one).
 */

export interface SandboxCarrierOptions {
  /** The clock, ms since the epoch (Date.now by default); tests and the demo inject their own. */
  readonly now?: () => number;
  /** How long a sandbox "day" lasts, in seconds (86,400 by default; the demo uses ~10). */
  readonly secondsPerDay?: number;
  /** The public tracking page's base: a label's trackingUrl is `${trackingBaseUrl}/${trackingNumber}`. */
  readonly trackingBaseUrl: string;
}

export const SANDBOX_CARRIERS = [
  { carrier: 'Sandbox Post', carrierCode: 'sandbox_post' },
  { carrier: 'Sandbox Express', carrierCode: 'sandbox_express' },
] as const;

export interface SandboxService {
  readonly letter: string;
  readonly carrier: string;
  readonly carrierCode: string;
  readonly service: string;
  readonly serviceCode: string;
  readonly scope: 'domestic' | 'international';
  readonly priceFactor: number;
  /** Transit days by domestic zone 1–8, or by international band 1–4. */
  readonly transitDays: readonly number[];
}

const POST = { carrier: 'Sandbox Post', carrierCode: 'sandbox_post' } as const;
const EXPRESS = { carrier: 'Sandbox Express', carrierCode: 'sandbox_express' } as const;

// prettier-ignore
export const SANDBOX_SERVICES: readonly SandboxService[] = [
  { ...POST, letter: 'G', service: 'Ground Advantage', serviceCode: 'sandbox_post_ground_advantage', scope: 'domestic', priceFactor: 1, transitDays: [2, 2, 3, 3, 4, 4, 5, 5] },
  { ...POST, letter: 'P', service: 'Priority', serviceCode: 'sandbox_post_priority', scope: 'domestic', priceFactor: 1.6, transitDays: [1, 1, 1, 2, 2, 2, 3, 3] },
  { ...POST, letter: 'E', service: 'Priority Express', serviceCode: 'sandbox_post_priority_express', scope: 'domestic', priceFactor: 3.5, transitDays: [1, 1, 1, 1, 2, 2, 2, 2] },
  { ...EXPRESS, letter: 'R', service: 'Ground', serviceCode: 'sandbox_express_ground', scope: 'domestic', priceFactor: 1.15, transitDays: [1, 1, 2, 3, 3, 4, 4, 5] },
  { ...EXPRESS, letter: 'T', service: '2nd Day Air', serviceCode: 'sandbox_express_2nd_day_air', scope: 'domestic', priceFactor: 2.4, transitDays: [2, 2, 2, 2, 2, 2, 2, 2] },
  { ...EXPRESS, letter: 'N', service: 'Next Day Air', serviceCode: 'sandbox_express_next_day_air', scope: 'domestic', priceFactor: 4.2, transitDays: [1, 1, 1, 1, 1, 1, 1, 1] },
  { ...POST, letter: 'I', service: 'International', serviceCode: 'sandbox_post_international', scope: 'international', priceFactor: 1, transitDays: [6, 8, 10, 12] },
  { ...EXPRESS, letter: 'W', service: 'Worldwide', serviceCode: 'sandbox_express_worldwide', scope: 'international', priceFactor: 1.45, transitDays: [3, 4, 4, 5] },
];

const DOMESTIC_BASE = [380, 395, 410, 425, 445, 465, 490, 520] as const;
const DOMESTIC_STEP = [25, 27, 30, 33, 36, 39, 42, 45] as const;
const INTERNATIONAL_BASE = [1600, 1900, 2200, 2500] as const;
const INTERNATIONAL_STEP = [50, 65, 80, 95] as const;

const WEIGHT_STEP_GRAMS = 100;
const MAX_WEIGHT_GRAMS = 30_000;
const MAX_SIDE_MM = 1_000;
const MAX_LENGTH_PLUS_GIRTH_MM = 3_000;
const VOID_WINDOW_DAYS = 28;

/* ---------- Parcels ---------- */

/** L×W×H cm / 5000 = kg, so L×W×H mm / 5000 = g. */
export function dimensionalWeightGrams(parcel: ShipmentRequest['parcel']): number {
  return (parcel.lengthMm * parcel.widthMm * parcel.heightMm) / 5000;
}

/** max(actual, dimensional), rounded up to the next 100 g (at least 100 g). */
export function billableWeightGrams(parcel: ShipmentRequest['parcel']): number {
  const grams = Math.max(parcel.weightGrams, dimensionalWeightGrams(parcel));
  return Math.max(1, Math.ceil(grams / WEIGHT_STEP_GRAMS - 1e-9)) * WEIGHT_STEP_GRAMS;
}

function checkParcel(parcel: ShipmentRequest['parcel']): void {
  const { lengthMm, widthMm, heightMm, weightGrams } = parcel;
  const sides = [lengthMm, widthMm, heightMm].sort((a, b) => b - a) as [number, number, number];
  const describe = `${formatWeight(weightGrams)}, ${lengthMm} × ${widthMm} × ${heightMm} mm`;
  const refuse = (why: string): never => {
    throw new ShippingRejectedError(`No sandbox service takes a parcel of ${describe}: ${why}`);
  };
  if (![lengthMm, widthMm, heightMm, weightGrams].every((v) => Number.isFinite(v) && v > 0)) {
    refuse('its weight and dimensions must all be positive');
  }
  if (weightGrams > MAX_WEIGHT_GRAMS) refuse('the limit is 30 kg');
  if (sides[0] > MAX_SIDE_MM) refuse('no side may be longer than 1,000 mm');
  if (sides[0] + 2 * (sides[1] + sides[2]) > MAX_LENGTH_PLUS_GIRTH_MM)
    refuse('length plus girth may not exceed 3,000 mm');
}

/* ---------- Addresses and zones ---------- */

const POSTAL_FORMATS: Readonly<Record<string, { pattern: RegExp; name: string }>> = {
  US: { pattern: /^\d{5}(-\d{4})?$/, name: 'US ZIP code' },
  CA: {
    pattern: /^[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z] ?\d[ABCEGHJ-NPRSTV-Z]\d$/i,
    name: 'Canadian postal code',
  },
  GB: { pattern: /^[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}$/i, name: 'UK postcode' },
  DE: { pattern: /^\d{5}$/, name: 'German postal code (Postleitzahl)' },
};

function checkAddress(address: ShippingAddress, who: 'sender' | 'recipient'): void {
  const fail = (why: string): never => {
    throw new ShippingAddressError(`Sandbox carrier: the address could not be verified: ${why}`);
  };
  const postal = address.postalCode.trim();
  for (const [field, value] of [
    ['street', address.line1],
    ['street', address.line2],
    ['postal code', postal],
  ] as const) {
    if (/invalid/i.test(value)) fail(`the ${who}'s ${field} "${value.trim()}" does not exist`);
  }
  const country = address.country.trim().toUpperCase();
  const format = POSTAL_FORMATS[country];
  if (format && !format.pattern.test(postal))
    fail(`the ${who}'s postal code "${postal}" is not a valid ${format.name}`);
  if (country === 'US' && postal.startsWith('00000')) fail(`the ${who}'s ZIP code 00000 does not exist`);
}

function hash(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function normalisePostal(code: string): string {
  return code.replace(/[\s-]/g, '').toUpperCase();
}

/** The domestic zone 1–8 between two addresses in the same country. */
export function domesticZone(from: ShippingAddress, to: ShippingAddress): number {
  const a = normalisePostal(from.postalCode);
  const b = normalisePostal(to.postalCode);
  if (to.country.trim().toUpperCase() === 'US' && /^\d{5}/.test(a) && /^\d{5}/.test(b)) {
    if (a.slice(0, 3) === b.slice(0, 3)) return 1;
    return 2 + Math.round((Math.abs(Number(a[0]) - Number(b[0])) * 6) / 9);
  }
  if (a === b) return 1;
  const [first, second] = [a, b].sort();
  return 2 + (hash(`${first}|${second}`).readUInt32BE(0) % 7);
}

type Continent = 'NA' | 'SA' | 'EU' | 'AS' | 'OC' | 'AF';
// prettier-ignore
const CONTINENTS: Readonly<Record<Continent, string>> = {
  NA: 'US CA MX GT BZ SV HN NI CR PA CU JM HT DO BS BB TT PR AG DM GD KN LC VC BM GL VI KY TC AW CW',
  SA: 'AR BO BR CL CO EC GY PY PE SR UY VE',
  EU: 'AD AL AT BA BE BG BY CH CY CZ DE DK EE ES FI FO FR GB GG GI GR HR HU IE IM IS IT JE LI LT LU LV MC MD ME MK MT NL NO PL PT RO RS RU SE SI SK SM UA VA',
  AS: 'AE AF AM AZ BD BH BN BT CN GE HK ID IL IN IQ IR JO JP KG KH KR KW KZ LA LB LK MM MN MO MV MY NP OM PH PK PS QA SA SG SY TH TJ TL TM TR TW UZ VN YE',
  OC: 'AU NZ FJ PG SB VU WS TO KI FM MH PW NR TV NC PF',
  AF: 'DZ AO BJ BW BF BI CM CV CF TD KM CG CD CI DJ EG GQ ER SZ ET GA GM GH GN GW KE LS LR LY MG MW ML MR MU MA MZ NA NE NG RW ST SN SC SL SO ZA SS SD TZ TG TN UG ZM ZW',
};
const CONTINENT_OF = new Map<string, Continent>(
  (Object.entries(CONTINENTS) as [Continent, string][]).flatMap(([continent, codes]) =>
    codes.split(' ').map((code) => [code, continent] as const),
  ),
);
const NEIGHBOURS = new Set(['NA-EU', 'NA-SA', 'EU-AS', 'EU-AF', 'AS-OC', 'AS-AF']);

/** The international price band 1–4 between two countries (see the header). */
export function internationalBand(fromCountry: string, toCountry: string): number {
  const a = CONTINENT_OF.get(fromCountry.trim().toUpperCase());
  const b = CONTINENT_OF.get(toCountry.trim().toUpperCase());
  if (!a || !b) return 4;
  if (a === b) return 1;
  return NEIGHBOURS.has(`${a}-${b}`) || NEIGHBOURS.has(`${b}-${a}`) ? 2 : 3;
}

/* ---------- Quotes and rate ids ---------- */

interface Quote {
  readonly service: SandboxService;
  readonly amountCents: number;
  readonly transitDays: number;
  readonly rateId: string;
  readonly billableGrams: number;
}

/** What identifies a request for pricing: both addresses (as printed) and the parcel. */
function requestFingerprint(request: ShipmentRequest): string {
  const address = (a: ShippingAddress): string[] =>
    [a.name, a.company, a.line1, a.line2, a.city, a.region, a.postalCode, a.country].map((s) => s.trim());
  const { lengthMm, widthMm, heightMm, weightGrams } = request.parcel;
  return hash(
    JSON.stringify([address(request.from), address(request.to), [lengthMm, widthMm, heightMm, weightGrams]]),
  )
    .toString('hex')
    .slice(0, 32);
}

/**
 * `sbx1.<serviceCode>.<amountCents>.<check>`, check = 20 hex of sha256(serviceCode|amount|request
 * fingerprint). No secret is needed: purchaseLabel recomputes the quote, so a rate id that was
 * edited, or shopped for another request, matches nothing.
 */
function rateIdFor(serviceCode: string, amountCents: number, fingerprint: string): string {
  const check = hash(`${serviceCode}|${amountCents}|${fingerprint}`).toString('hex').slice(0, 20);
  return `sbx1.${serviceCode}.${amountCents}.${check}`;
}

function quote(request: ShipmentRequest): Quote[] {
  checkAddress(request.from, 'sender');
  checkAddress(request.to, 'recipient');
  checkParcel(request.parcel);
  const billableGrams = billableWeightGrams(request.parcel);
  const steps = billableGrams / WEIGHT_STEP_GRAMS;
  const international = request.from.country.trim().toUpperCase() !== request.to.country.trim().toUpperCase();
  const index = international
    ? internationalBand(request.from.country, request.to.country) - 1
    : domesticZone(request.from, request.to) - 1;
  const base = (international ? INTERNATIONAL_BASE : DOMESTIC_BASE)[index] as number;
  const step = (international ? INTERNATIONAL_STEP : DOMESTIC_STEP)[index] as number;
  const fingerprint = requestFingerprint(request);
  return SANDBOX_SERVICES.filter((s) => (s.scope === 'international') === international).map((service) => {
    const amountCents = Math.round(service.priceFactor * (base + step * steps));
    return {
      service,
      amountCents,
      transitDays: service.transitDays[index] as number,
      rateId: rateIdFor(service.serviceCode, amountCents, fingerprint),
      billableGrams,
    };
  });
}

/* ---------- Tracking numbers ---------- */

const BASE36 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const TIME_CHARS = 8; // ms since the epoch in base 36: 8 characters last until the year 2059

/** Luhn mod 36 check character over `text` (0-9A-Z): catches any single wrong character and most swaps. */
function luhn36(text: string): string {
  let sum = 0;
  let factor = 2;
  for (let i = text.length - 1; i >= 0; i--) {
    const addend = factor * BASE36.indexOf(text[i] as string);
    sum += Math.floor(addend / 36) + (addend % 36);
    factor = factor === 2 ? 1 : 2;
  }
  return BASE36[(36 - (sum % 36)) % 36] as string;
}

/**
 * A tracking number is 17 characters, all 0-9/A-Z:
 *
 *   SBX  G  MMB0K3Z4  3  K7Q  X
 *   |    |  |         |  |    └ check: Luhn mod 36 over the 16 characters before it
 *   |    |  |         |  └ 3 characters of sha256(idempotencyKey) in base 36, so two labels bought
 *   |    |  |         |    in the same millisecond differ
 *   |    |  |         └ transit days, one base-36 digit (1–C)
 *   |    |  └ purchase time, ms since the epoch, base 36, zero-padded to 8
 *   |    └ the service's letter (SANDBOX_SERVICES)
 *   └ prefix
 *
 * It is also the label's providerLabelId.
 */
export function buildTrackingNumber(
  letter: string,
  purchasedAtMs: number,
  transitDays: number,
  idempotencyKey: string,
): string {
  const time = Math.floor(purchasedAtMs).toString(36).toUpperCase().padStart(TIME_CHARS, '0');
  if (time.length !== TIME_CHARS)
    throw new Error('Sandbox carrier: the clock is outside the tracking number range');
  const key = (hash(idempotencyKey).readUInt32BE(0) % 36 ** 3).toString(36).toUpperCase().padStart(3, '0');
  const body = `SBX${letter}${time}${transitDays.toString(36).toUpperCase()}${key}`;
  return `${body}${luhn36(body)}`;
}

export interface SandboxTrackingNumber {
  readonly trackingNumber: string;
  readonly service: SandboxService;
  readonly purchasedAt: Date;
  readonly transitDays: number;
}

/** Reads a sandbox tracking number (case and surrounding spaces ignored); null when it is not one. */
export function parseSandboxTrackingNumber(input: string): SandboxTrackingNumber | null {
  const trackingNumber = input.trim().toUpperCase();
  const match = /^SBX([A-Z])([0-9A-Z]{8})([1-9A-C])[0-9A-Z]{3}([0-9A-Z])$/.exec(trackingNumber);
  if (!match) return null;
  const [, letter, time, days, check] = match as unknown as [string, string, string, string, string];
  if (luhn36(trackingNumber.slice(0, -1)) !== check) return null;
  const service = SANDBOX_SERVICES.find((s) => s.letter === letter);
  const transitDays = parseInt(days, 36);
  if (!service || !service.transitDays.includes(transitDays)) return null;
  return { trackingNumber, service, purchasedAt: new Date(parseInt(time, 36)), transitDays };
}

/* ---------- Tracking timeline ---------- */

// prettier-ignore
const DOMESTIC_HUBS = ['Memphis, TN', 'Louisville, KY', 'Indianapolis, IN', 'Dallas, TX', 'Chicago, IL', 'Atlanta, GA', 'Denver, CO', 'Oakland, CA', 'Columbus, OH', 'Kansas City, MO'];
const INTERNATIONAL_HUBS = [
  'Frankfurt, DE',
  'Leipzig, DE',
  'Liège, BE',
  'Louisville, KY',
  'Memphis, TN',
  'Hong Kong, HK',
  'Singapore, SG',
];

interface TimelineStep {
  readonly atDays: number;
  readonly status: TrackingStatusCode;
  readonly description: string;
  readonly location: string;
}

function timeline(parsed: SandboxTrackingNumber): TimelineStep[] {
  const hubs = parsed.service.scope === 'international' ? INTERNATIONAL_HUBS : DOMESTIC_HUBS;
  const hub = hubs[hash(parsed.trackingNumber).readUInt32BE(0) % hubs.length] as string;
  const days = parsed.transitDays;
  return [
    {
      atDays: 0,
      status: 'pre_transit',
      description: `Shipping label created, ${parsed.service.carrier} awaiting item`,
      location: '',
    },
    { atDays: 0.2, status: 'in_transit', description: 'Accepted at origin facility', location: '' },
    {
      atDays: days * 0.5,
      status: 'in_transit',
      description: `Arrived at sort facility ${hub}`,
      location: hub,
    },
    { atDays: days - 0.3, status: 'out_for_delivery', description: 'Out for delivery', location: '' },
    { atDays: days, status: 'delivered', description: 'Delivered', location: '' },
  ];
}

/* ---------- The provider ---------- */

const REMEMBERED_LABELS = 500;

export function createSandboxCarrier(options: SandboxCarrierOptions): ShippingProvider {
  const now = options.now ?? Date.now;
  const secondsPerDay = options.secondsPerDay ?? 86_400;
  if (!(secondsPerDay > 0)) throw new Error('Sandbox carrier: secondsPerDay must be positive');
  const dayMs = secondsPerDay * 1000;
  const trackingBaseUrl = options.trackingBaseUrl.replace(/\/+$/, '');
  /** Labels bought by this process, by idempotency key (insertion order: the oldest is dropped first). */
  const bought = new Map<string, PurchasedLabel>();

  const parseOrRefuse = (trackingNumber: string): SandboxTrackingNumber => {
    const parsed = parseSandboxTrackingNumber(trackingNumber);
    if (!parsed)
      throw new ShippingRejectedError(
        `Sandbox carrier: unknown tracking number "${trackingNumber.trim()}"`,
        404,
      );
    return parsed;
  };

  return {
    kind: 'sandbox',

    async verifyCredentials() {
      // Nothing to check: the sandbox has no accounts.
    },

    async getRates(_credentials, request): Promise<ProviderRate[]> {
      return quote(request)
        .map((q) => ({
          rateId: q.rateId,
          carrier: q.service.carrier,
          carrierCode: q.service.carrierCode,
          service: q.service.service,
          serviceCode: q.service.serviceCode,
          amountCents: q.amountCents,
          currency: 'USD',
          estimatedDays: q.transitDays,
        }))
        .sort((a, b) => a.amountCents - b.amountCents);
    },

    async purchaseLabel(_credentials, request, rate): Promise<PurchasedLabel> {
      // Bought already with this key by this process: the same label (a retried request buys once).
      const existing = bought.get(request.idempotencyKey);
      if (existing) return existing;
      const chosen = quote(request).find((q) => q.rateId === rate.rateId);
      if (!chosen) throw new ShippingRejectedError('This rate is no longer valid; shop rates again');

      const purchasedAt = now();
      const { service } = chosen;
      const trackingNumber = buildTrackingNumber(
        service.letter,
        purchasedAt,
        chosen.transitDays,
        request.idempotencyKey,
      );
      const { lengthMm, widthMm, heightMm, weightGrams } = request.parcel;
      const pdf = await renderSandboxLabel({
        from: request.from,
        to: request.to,
        carrier: service.carrier,
        service: service.service,
        serviceLetter: service.letter,
        trackingNumber,
        reference: request.reference,
        weightGrams,
        billableGrams: chosen.billableGrams,
        dimensionsMm: [lengthMm, widthMm, heightMm],
        shipDate: new Date(purchasedAt),
      });
      const label: PurchasedLabel = {
        providerLabelId: trackingNumber,
        trackingNumber,
        trackingUrl: `${trackingBaseUrl}/${trackingNumber}`,
        carrier: service.carrier,
        carrierCode: service.carrierCode,
        service: service.service,
        costCents: chosen.amountCents,
        currency: 'USD',
        label: { pdf },
      };
      bought.set(request.idempotencyKey, label);
      if (bought.size > REMEMBERED_LABELS) bought.delete(bought.keys().next().value as string);
      return label;
    },

    /**
     * The sandbox never loses a purchase, but to be honest with the port: this answers from the
     * labels this process bought (the last 500). Another process's label, or one bought before a
     * restart, answers null, so the caller buys again: in the sandbox that costs nothing.
     */
    async findLabel(_credentials, request) {
      return bought.get(request.idempotencyKey) ?? null;
    },

    async downloadLabel() {
      throw new ShippingRejectedError(
        'Sandbox carrier: labels come as bytes with the purchase; there is nothing to download',
      );
    },

    /**
     * Refunded unless the label is older than 28 (sandbox) days or the timeline says delivered.
     * Stateless: voiding again answers the same, and tracking a voided number still advances (the
     * shipping module stops tracking voided shipments).
     */
    async voidLabel(_credentials, providerLabelId) {
      const parsed = parseOrRefuse(providerLabelId);
      const ageDays = (now() - parsed.purchasedAt.getTime()) / dayMs;
      if (ageDays > VOID_WINDOW_DAYS) {
        return {
          refunded: false,
          message: `Sandbox carrier: labels older than ${VOID_WINDOW_DAYS} days cannot be voided`,
        };
      }
      if (ageDays >= parsed.transitDays) {
        return {
          refunded: false,
          message: 'Sandbox carrier: the parcel has been delivered; its label cannot be voided',
        };
      }
      return { refunded: true, message: 'Sandbox carrier: label voided and refunded (nothing was charged)' };
    },

    async track(_credentials, _carrierCode, trackingNumber): Promise<TrackingInfo> {
      // The carrier code is not needed: the number names its service.
      const parsed = parseOrRefuse(trackingNumber);
      const t0 = parsed.purchasedAt.getTime();
      const at = now();
      const events: TrackingEvent[] = timeline(parsed)
        .map((step, index) => ({ step, index, occurredAt: new Date(t0 + Math.round(step.atDays * dayMs)) }))
        .filter(({ occurredAt }) => occurredAt.getTime() <= at)
        .map(({ step, index, occurredAt }) => ({
          eventId: `${parsed.trackingNumber}-${index}-${step.status}`,
          status: step.status,
          description: step.description,
          location: step.location,
          occurredAt,
        }));
      // A clock behind the purchasing process's: no event yet, but the label exists.
      return { status: events.at(-1)?.status ?? 'pre_transit', events };
    },
  };
}
