import {
  SHIPPING_ZONES,
  shippingProfileInputSchema,
  type ParcelSize,
  type ShippingAddress,
  type ShippingProfile,
  type ShippingProfileInput,
  type ShippingZone,
} from '@layerline/contracts';

/**
 * The shipping profile dialog's form: everything as the fields hold it (text), turned into the
 * API's body with readable errors keyed by the body's path ("parcels.1.lengthMm").
 */
export interface ParcelRow {
  id: string;
  name: string;
  lengthMm: string;
  widthMm: string;
  heightMm: string;
  tareGrams: string;
  maxGrams: string;
  /** Dollars, as typed. */
  cost: string;
}

export interface ProfileForm {
  name: string;
  handlingDays: string;
  promiseLabel: string;
  promiseDays: string;
  isDefault: boolean;
  origin: Record<keyof ShippingAddress, string>;
  parcels: ParcelRow[];
  zones: Record<ShippingZone, { carrier: string; service: string }>;
}

export type FormErrors = Record<string, string>;

const EMPTY_ADDRESS: Record<keyof ShippingAddress, string> = {
  name: '',
  company: '',
  line1: '',
  line2: '',
  city: '',
  region: '',
  postalCode: '',
  country: '',
  phone: '',
  email: '',
};

let rowCounter = 0;
/** A new parcel size's id: unique enough within a profile, stable while it is edited. */
export function newParcelId(): string {
  rowCounter += 1;
  return `parcel-${Date.now().toString(36)}-${rowCounter}`;
}

export function emptyParcelRow(): ParcelRow {
  return { id: newParcelId(), name: '', lengthMm: '', widthMm: '', heightMm: '', tareGrams: '', maxGrams: '', cost: '' };
}

const text = (value: number): string => String(value);
const dollars = (cents: number): string => (cents / 100).toFixed(2);

/** A form for a new profile; ships from `origin` (the default profile's, the farm's) when known. */
export function emptyProfileForm(origin?: ShippingAddress): ProfileForm {
  return {
    name: '',
    handlingDays: '1',
    promiseLabel: '',
    promiseDays: '',
    isDefault: false,
    origin: origin ? { ...EMPTY_ADDRESS, ...origin } : { ...EMPTY_ADDRESS },
    parcels: [emptyParcelRow()],
    zones: { domestic: { carrier: '', service: '' }, international: { carrier: '', service: '' } },
  };
}

export function profileFormFrom(profile: ShippingProfile): ProfileForm {
  const zones = emptyProfileForm().zones;
  for (const zone of profile.zoneServices) zones[zone.zone] = { carrier: zone.carrier, service: zone.service };
  return {
    name: profile.name,
    handlingDays: text(profile.handlingDays),
    promiseLabel: profile.promiseLabel,
    promiseDays: text(profile.promiseDays),
    isDefault: profile.isDefault,
    origin: { ...EMPTY_ADDRESS, ...profile.origin },
    parcels: profile.parcels.map((parcel) => ({
      id: parcel.id,
      name: parcel.name,
      lengthMm: text(parcel.lengthMm),
      widthMm: text(parcel.widthMm),
      heightMm: text(parcel.heightMm),
      tareGrams: text(parcel.tareGrams),
      maxGrams: text(parcel.maxGrams),
      cost: dollars(parcel.costCents),
    })),
    zones,
  };
}

const PARCEL_LABELS: Record<keyof ParcelSize, string> = {
  id: 'Id',
  name: 'Name',
  lengthMm: 'Length',
  widthMm: 'Width',
  heightMm: 'Height',
  tareGrams: 'Tare',
  maxGrams: 'Max weight',
  costCents: 'Cost',
};

const ORIGIN_LABELS: Record<keyof ShippingAddress, string> = {
  name: 'Name',
  company: 'Company',
  line1: 'Address line 1',
  line2: 'Address line 2',
  city: 'City',
  region: 'State / region',
  postalCode: 'Postal code',
  country: 'Country',
  phone: 'Phone',
  email: 'Email',
};

const TOP_LABELS: Record<string, string> = {
  name: 'Profile name',
  handlingDays: 'Handling days',
  promiseLabel: 'Promise name',
  promiseDays: 'Promise days',
  parcels: 'Parcel sizes',
  zoneServices: 'Carriers and services',
};

/** Where an error is, in words: "Parcel 2, length". */
export function errorPlace(path: string): string {
  const [head, index, field] = path.split('.');
  if (head === 'parcels' && index !== undefined && field) {
    return `Parcel ${Number(index) + 1}, ${(PARCEL_LABELS[field as keyof ParcelSize] ?? field).toLowerCase()}`;
  }
  if (head === 'origin' && index) return `Ships from, ${(ORIGIN_LABELS[index as keyof ShippingAddress] ?? index).toLowerCase()}`;
  if (head === 'zoneServices') return 'Carriers and services';
  return TOP_LABELS[head ?? ''] ?? path;
}

interface Issue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly code?: string;
  readonly origin?: string;
  readonly minimum?: number | bigint;
  readonly maximum?: number | bigint;
  readonly inclusive?: boolean;
}

/** zod's own messages ("Too small: expected number to be >0") in plain words; the schema's own kept. */
function issueWords(issue: Issue): string {
  const generic = /^(Too small|Too big|Invalid input)/.test(issue.message);
  if (!generic) return issue.message;
  if (issue.code === 'too_small' && issue.minimum !== undefined) {
    if (issue.origin === 'string') return issue.minimum === 1 ? 'Required' : `At least ${issue.minimum} characters`;
    if (issue.origin === 'array') return `At least ${issue.minimum}`;
    return issue.inclusive === false ? `Must be more than ${issue.minimum}` : `Must be at least ${issue.minimum}`;
  }
  if (issue.code === 'too_big' && issue.maximum !== undefined) {
    if (issue.origin === 'string') return `At most ${issue.maximum} characters`;
    if (issue.origin === 'array') return `At most ${issue.maximum}`;
    return issue.inclusive === false ? `Must be less than ${issue.maximum}` : `Must be at most ${issue.maximum}`;
  }
  if (issue.code === 'invalid_type') return 'Enter a number';
  if (issue.code === 'not_multiple_of') return 'Must be a whole number';
  return 'Not valid';
}

/** A number field: blank or not a number is an error of its own; whole numbers where the API wants them. */
function numberFrom(raw: string, path: string, errors: FormErrors, whole = false): number {
  const trimmed = raw.trim().replace(',', '.');
  const value = trimmed === '' ? Number.NaN : Number(trimmed);
  if (!Number.isFinite(value)) errors[path] = 'Enter a number';
  else if (whole && !Number.isInteger(value)) errors[path] = 'Enter a whole number';
  return value;
}

/** The API body from the form, or the errors to show (keyed by the body's path). */
export function profileBody(form: ProfileForm): { body: ShippingProfileInput } | { errors: FormErrors } {
  const errors: FormErrors = {};
  const raw = {
    name: form.name,
    handlingDays: numberFrom(form.handlingDays, 'handlingDays', errors, true),
    promiseLabel: form.promiseLabel,
    promiseDays: numberFrom(form.promiseDays, 'promiseDays', errors, true),
    origin: { ...form.origin, country: form.origin.country.trim().toUpperCase() },
    parcels: form.parcels.map((row, i) => {
      const cost = numberFrom(row.cost, `parcels.${i}.costCents`, errors);
      // Shifted in the decimal text, not multiplied: 1.255 × 100 is 125.4999… in binary floating point.
      const cents = Number.isFinite(cost) ? Math.round(Number(`${row.cost.trim().replace(',', '.')}e2`)) : cost;
      return {
        id: row.id,
        name: row.name,
        lengthMm: numberFrom(row.lengthMm, `parcels.${i}.lengthMm`, errors),
        widthMm: numberFrom(row.widthMm, `parcels.${i}.widthMm`, errors),
        heightMm: numberFrom(row.heightMm, `parcels.${i}.heightMm`, errors),
        tareGrams: numberFrom(row.tareGrams, `parcels.${i}.tareGrams`, errors),
        maxGrams: numberFrom(row.maxGrams, `parcels.${i}.maxGrams`, errors),
        costCents: cents,
      };
    }),
    zoneServices: SHIPPING_ZONES.flatMap((zone) => {
      const { carrier, service } = form.zones[zone];
      return carrier.trim() || service.trim() ? [{ zone, carrier, service }] : [];
    }),
    isDefault: form.isDefault,
  };
  const parsed = shippingProfileInputSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues as readonly Issue[]) {
      const path = issue.path.map(String).join('.');
      errors[path] ??= issueWords(issue);
    }
  }
  for (const [i, row] of form.parcels.entries()) {
    const tare = Number(row.tareGrams);
    const max = Number(row.maxGrams);
    if (Number.isFinite(tare) && Number.isFinite(max) && row.maxGrams.trim() && max <= tare) {
      errors[`parcels.${i}.maxGrams`] ??= 'Must be more than the tare';
    }
  }
  if (Object.keys(errors).length > 0 || !parsed.success) return { errors };
  return { body: parsed.data };
}

/** "Standard: within 5 days". */
export const promiseText = (profile: Pick<ShippingProfile, 'promiseLabel' | 'promiseDays'>): string =>
  `${profile.promiseLabel}: within ${profile.promiseDays} day${profile.promiseDays === 1 ? '' : 's'}`;

const grams = (value: number): string => (value >= 1000 ? `${+(value / 1000).toFixed(2)} kg` : `${value} g`);

/** "Small box 200×150×100 mm, up to 2 kg". */
export const parcelText = (parcel: ParcelSize): string =>
  `${parcel.name} ${parcel.lengthMm}×${parcel.widthMm}×${parcel.heightMm} mm, up to ${grams(parcel.maxGrams)}`;
