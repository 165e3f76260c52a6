import { describe, expect, it } from 'vitest';
import { shippingProfileInputSchema, type ShippingProfile } from '@layerline/contracts';
import { emptyProfileForm, errorPlace, parcelText, profileBody, profileFormFrom, promiseText } from './shipping-profile-form.ts';

const profile: ShippingProfile = {
  id: 'prof-1',
  name: 'Cube mailers',
  handlingDays: 1,
  promiseLabel: 'Express',
  promiseDays: 4,
  origin: {
    name: 'Layerline print farm',
    company: 'Layerline',
    line1: '1 Printer Way',
    line2: '',
    city: 'Columbus',
    region: 'OH',
    postalCode: '43004',
    country: 'US',
    phone: '',
    email: '',
  },
  parcels: [{ id: 'mailer', name: 'Cube mailer', lengthMm: 250, widthMm: 200, heightMm: 150, tareGrams: 150, maxGrams: 5000, costCents: 85 }],
  zoneServices: [{ zone: 'international', carrier: 'usps', service: '' }],
  isDefault: false,
  sellerCount: 2,
  updatedAt: '2026-01-01T00:00:00.000Z',
};

describe('the shipping profile form', () => {
  it('gives back the profile it was made from, a body the server schema accepts', () => {
    const result = profileBody(profileFormFrom(profile));
    if (!('body' in result)) throw new Error(JSON.stringify(result.errors));
    expect(shippingProfileInputSchema.parse(result.body)).toEqual({
      name: profile.name,
      handlingDays: 1,
      promiseLabel: 'Express',
      promiseDays: 4,
      origin: profile.origin,
      parcels: profile.parcels,
      zoneServices: [{ zone: 'international', carrier: 'usps', service: '' }],
      isDefault: false,
    });
  });

  it('takes the cost in dollars and sends cents', () => {
    const form = profileFormFrom(profile);
    form.parcels[0]!.cost = '1.255';
    const result = profileBody(form);
    if (!('body' in result)) throw new Error(JSON.stringify(result.errors));
    expect(result.body.parcels[0]!.costCents).toBe(126);
  });

  it('says what is wrong in words, where it is', () => {
    const form = emptyProfileForm();
    form.parcels[0]!.lengthMm = '-5';
    form.parcels[0]!.tareGrams = '200';
    form.parcels[0]!.maxGrams = '100';
    form.origin.country = 'usa';
    const result = profileBody(form);
    if (!('errors' in result)) throw new Error('accepted an empty form');
    expect(result.errors).toMatchObject({
      name: 'Name the profile',
      promiseLabel: 'Name the promise, e.g. Standard',
      promiseDays: 'Enter a number',
      'parcels.0.name': 'Name the parcel',
      'parcels.0.lengthMm': 'Must be more than 0',
      'parcels.0.widthMm': 'Enter a number',
      'parcels.0.maxGrams': 'Must be more than the tare',
      'origin.country': 'Country must be a two-letter ISO code like US',
      'origin.city': 'City is required',
    });
    expect(errorPlace('parcels.0.lengthMm')).toBe('Parcel 1, length');
    expect(errorPlace('origin.postalCode')).toBe('Ships from, postal code');
    expect(errorPlace('promiseDays')).toBe('Promise days');
  });

  it('needs at least one parcel size', () => {
    const form = profileFormFrom(profile);
    form.parcels = [];
    const result = profileBody(form);
    expect('errors' in result && result.errors.parcels).toBe('Add at least one parcel size');
  });

  it('describes a profile as the list shows it', () => {
    expect(promiseText(profile)).toBe('Express: within 4 days');
    expect(parcelText(profile.parcels[0]!)).toBe('Cube mailer 250×200×150 mm, up to 5 kg');
  });
});
