import type { ShippingIntegration, ShippingRate, ShippingZone } from '@layerline/contracts';
import type { ProviderRate } from './shipping-provider.ts';

export interface DeliveryPromise {
  readonly handlingDays: number;
  readonly promiseDays: number;
  /** Carriers and services preferred in this zone ('' = any). */
  readonly preferred: readonly { carrier: string; service: string }[];
}

export interface ChosenRate extends ProviderRate {
  readonly meetsPromise: boolean;
  readonly recommended: boolean;
}

export function zoneOf(originCountry: string, destinationCountry: string): ShippingZone {
  return originCountry.toUpperCase() === destinationCountry.toUpperCase() ? 'domestic' : 'international';
}

const matches = (wanted: string, ...values: string[]) => wanted === '' || values.some((value) => value.toLowerCase() === wanted.toLowerCase());

/**
 * Rate shopping: a rate meets the promise when handling + the carrier's transit days fit in the
 * promised days (a rate without an estimate does not: we cannot promise what we do not know). The
 * recommended rate is the cheapest that meets it among the zone's preferred carriers and services
 * (all rates when none is preferred or none of the preferred was offered); when none meets it, the
 * fastest, then cheapest, so the parcel is as little late as possible. Cheapest first.
 */
export function chooseRates(rates: readonly ProviderRate[], promise: DeliveryPromise): ChosenRate[] {
  const meets = (rate: ProviderRate) => rate.estimatedDays !== null && promise.handlingDays + rate.estimatedDays <= promise.promiseDays;
  const preferred = rates.filter((rate) =>
    promise.preferred.some((p) => matches(p.carrier, rate.carrier, rate.carrierCode) && matches(p.service, rate.service, rate.serviceCode)),
  );
  const pool = promise.preferred.length > 0 && preferred.length > 0 ? preferred : rates;
  const byPrice = (a: ProviderRate, b: ProviderRate) => a.amountCents - b.amountCents || a.serviceCode.localeCompare(b.serviceCode);
  const onTime = pool.filter(meets).sort(byPrice);
  const fastest = [...pool].sort((a, b) => (a.estimatedDays ?? Infinity) - (b.estimatedDays ?? Infinity) || byPrice(a, b));
  const pick = onTime[0] ?? fastest[0];
  return [...rates].sort(byPrice).map((rate) => ({ ...rate, meetsPromise: meets(rate), recommended: rate === pick }));
}

/** A chosen rate as the pages see it, under the id they pass back to buy it. */
export function rateDto(rate: ChosenRate, provider: ShippingIntegration, rateId: string): ShippingRate {
  return {
    rateId,
    provider,
    carrier: rate.carrier,
    service: rate.service,
    serviceCode: rate.serviceCode,
    amountCents: rate.amountCents,
    currency: rate.currency,
    estimatedDays: rate.estimatedDays,
    meetsPromise: rate.meetsPromise,
    recommended: rate.recommended,
  };
}
