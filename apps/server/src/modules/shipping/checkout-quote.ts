import type { ShippingAddress } from '@layerline/contracts';
import { planParcels, UnpackableError, type PackedPart } from './parcel-plan.ts';
import { zoneOf } from './rate-choice.ts';
import type { ProviderRate } from './shipping-provider.ts';
import { providerOf, type ShippingProviders } from './shipping-providers.ts';
import type { ShippingSettingsService } from './shipping-settings-service.ts';

/** One way to ship a whole cart: a carrier service offered for every parcel of its plan. */
export interface CheckoutOption {
  readonly carrier: string;
  readonly carrierCode: string;
  readonly service: string;
  readonly serviceCode: string;
  /** The labels of every parcel plus the boxes (what the parcels will cost the seller). */
  readonly amountCents: number;
  readonly currency: string;
  /** The slowest parcel's transit days; null when the carrier gives no estimate. */
  readonly transitDays: number | null;
}

export interface CheckoutQuote {
  readonly options: readonly CheckoutOption[];
  readonly handlingDays: number;
  readonly promiseDays: number;
  readonly promiseLabel: string;
}

/** Rates offered at a checkout: the cheapest few are enough for a buyer to choose from. */
const MAX_OPTIONS = 5;

/**
 * Checkout rates (issue 24, docs/checkout-rates.md): what shipping a cart would cost, quoted as the
 * farm would ship it, from the seller's shipping profile: its parcel plan for the parts, each parcel
 * rated by the seller's shipping integration (the sandbox carrier by default), the zone's preferred
 * carrier services when any of them is offered, and the handling time and promise for the dates.
 * No order exists yet, so the parcels are planned from the products' parts, not from printed ones.
 */
export function createCheckoutQuotes(deps: { settings: ShippingSettingsService; providers: ShippingProviders }) {
  return {
    /** Null when the cart cannot be shipped as planned (a part fits no parcel size, nothing rated). */
    async quote(ownerId: string, to: ShippingAddress, parts: readonly PackedPart[]): Promise<CheckoutQuote | null> {
      const shipping = await deps.settings.shippingFor(ownerId);
      const credentials = shipping.credentials ?? (shipping.integration === 'sandbox' ? { provider: 'sandbox' as const } : null);
      if (!credentials) return null;
      const { profile } = shipping;
      let parcels;
      try {
        parcels = planParcels(parts, profile.parcels);
      } catch (error) {
        if (error instanceof UnpackableError) return null;
        throw error;
      }
      const provider = providerOf(deps.providers, shipping.integration);
      const offers = await Promise.all(
        parcels.map((parcel, index) =>
          provider.getRates(credentials, {
            from: profile.origin,
            to,
            parcel: { lengthMm: parcel.size.lengthMm, widthMm: parcel.size.widthMm, heightMm: parcel.size.heightMm, weightGrams: parcel.weightGrams },
            reference: 'checkout',
            idempotencyKey: `checkout:${index}`,
          }),
        ),
      );
      const keyOf = (rate: ProviderRate) => `${rate.carrierCode}:${rate.serviceCode}`;
      const boxes = parcels.reduce((sum, parcel) => sum + parcel.size.costCents, 0);
      // A service counts only when every parcel can go with it (one buyer choice ships the whole cart).
      const combined = (offers[0] ?? []).flatMap((first): CheckoutOption[] => {
        const same = offers.map((rates) => rates.find((rate) => keyOf(rate) === keyOf(first)));
        if (same.some((rate) => rate === undefined || rate.currency !== first.currency)) return [];
        const rates = same as ProviderRate[];
        const transits = rates.map((rate) => rate.estimatedDays);
        return [
          {
            carrier: first.carrier,
            carrierCode: first.carrierCode,
            service: first.service,
            serviceCode: first.serviceCode,
            amountCents: rates.reduce((sum, rate) => sum + rate.amountCents, 0) + boxes,
            currency: first.currency,
            transitDays: transits.some((days) => days === null) ? null : Math.max(...(transits as number[])),
          },
        ];
      });
      const zone = zoneOf(profile.origin.country, to.country);
      const wanted = profile.zoneServices.filter((z) => z.zone === zone);
      const matches = (want: string, ...values: string[]) => want === '' || values.some((v) => v.toLowerCase() === want.toLowerCase());
      const preferred = combined.filter((option) =>
        wanted.some((w) => matches(w.carrier, option.carrier, option.carrierCode) && matches(w.service, option.service, option.serviceCode)),
      );
      const options = (preferred.length > 0 ? preferred : combined)
        .sort((a, b) => a.amountCents - b.amountCents || a.serviceCode.localeCompare(b.serviceCode))
        .slice(0, MAX_OPTIONS);
      if (options.length === 0) return null;
      return { options, handlingDays: profile.handlingDays, promiseDays: profile.promiseDays, promiseLabel: profile.promiseLabel };
    },
  };
}

export type CheckoutQuotes = ReturnType<typeof createCheckoutQuotes>;
