import { describe, expect, it } from 'vitest';
import { chooseRates, zoneOf } from './rate-choice.ts';

const rate = (serviceCode: string, amountCents: number, estimatedDays: number | null, carrierCode = 'usps') => ({
  rateId: serviceCode,
  carrier: carrierCode.toUpperCase(),
  carrierCode,
  service: serviceCode,
  serviceCode,
  amountCents,
  currency: 'USD',
  estimatedDays,
});
const promise = { handlingDays: 1, promiseDays: 5, preferred: [] };

describe('chooseRates', () => {
  it('recommends the cheapest rate whose handling + transit fit the promise, cheapest first', () => {
    const chosen = chooseRates([rate('express', 3000, 1), rate('ground', 450, 5), rate('priority', 900, 3)], promise);
    expect(chosen.map((r) => r.serviceCode)).toEqual(['ground', 'priority', 'express']);
    expect(chosen.map((r) => r.meetsPromise)).toEqual([false, true, true]);
    expect(chosen.filter((r) => r.recommended).map((r) => r.serviceCode)).toEqual(['priority']);
  });

  it('does not promise what the carrier does not estimate', () => {
    const chosen = chooseRates([rate('unknown', 100, null), rate('priority', 900, 3)], promise);
    expect(chosen.find((r) => r.recommended)!.serviceCode).toBe('priority');
  });

  it('when nothing keeps the promise, recommends the fastest (then cheapest)', () => {
    const chosen = chooseRates([rate('slow', 300, 9), rate('fast', 2000, 6), rate('fast-cheap', 1500, 6)], promise);
    expect(chosen.every((r) => !r.meetsPromise)).toBe(true);
    expect(chosen.find((r) => r.recommended)!.serviceCode).toBe('fast-cheap');
  });

  it('prefers the zone’s carriers and services when they were offered, else any', () => {
    const rates = [rate('ground', 450, 3, 'usps'), rate('ups_ground', 700, 3, 'ups')];
    expect(chooseRates(rates, { ...promise, preferred: [{ carrier: 'ups', service: '' }] }).find((r) => r.recommended)!.serviceCode).toBe('ups_ground');
    expect(chooseRates(rates, { ...promise, preferred: [{ carrier: 'fedex', service: '' }] }).find((r) => r.recommended)!.serviceCode).toBe('ground');
  });
});

describe('zoneOf', () => {
  it('is domestic within the origin’s country', () => {
    expect(zoneOf('US', 'us')).toBe('domestic');
    expect(zoneOf('US', 'CA')).toBe('international');
  });
});
