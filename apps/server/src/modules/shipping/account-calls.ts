import type { z } from 'zod';
import type { markShipStationOrderShippedInputSchema, ShippingRate, shipStationLabelForOrderInputSchema, shipStationRatesInputSchema } from '@layerline/contracts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import { chooseRates, rateDto } from './rate-choice.ts';
import type { ShippingProviders } from './shipping-providers.ts';
import { providerError } from './shipping-providers.ts';
import type { ShippoAccountOrder } from './shipping-provider.ts';
import type { ShippingActor, ShippingSettingsService } from './shipping-settings-service.ts';

const GRAMS_PER: Record<'ounces' | 'grams' | 'pounds', number> = { ounces: 28.349523125, grams: 1, pounds: 453.59237 };
const MM_PER: Record<'inches' | 'centimeters', number> = { inches: 25.4, centimeters: 10 };
/** A box of 1 cm³ stands in when a rate question gives no dimensions (weight-only rating). */
const NO_DIMENSIONS_MM = 10;

/**
 * The spec's calls that work on the seller's own ShipStation or Shippo account rather than on one of
 * our orders: rates for a parcel described by hand, a label for an order that lives in ShipStation,
 * marking a ShipStation order shipped, and listing the seller's Shippo orders.
 */
export function createAccountCalls(deps: { settings: ShippingSettingsService; providers: ShippingProviders; audit: AuditRepository }) {
  const { settings, providers, audit } = deps;

  return {
    /** getShipStationRates: ShipStation's rates for the parcel described (rates here are to compare, not to buy). */
    async shipStationRates(ownerId: string, input: z.infer<typeof shipStationRatesInputSchema>): Promise<ShippingRate[]> {
      const credentials = await settings.credentialsOf(ownerId, 'shipstation');
      const { profile } = await settings.shippingFor(ownerId);
      const mm = (value: number | undefined) => (value === undefined || !input.dimensions ? NO_DIMENSIONS_MM : value * MM_PER[input.dimensions.units]);
      const address = { name: '', company: '', line1: '', line2: '', city: '', region: '', phone: '', email: '' };
      try {
        const rates = await providers.shipstation.getRates(credentials, {
          from: { ...profile.origin, postalCode: input.fromPostalCode },
          to: { ...address, city: input.toCity ?? '', region: input.toState ?? '', postalCode: input.toPostalCode, country: input.toCountry },
          parcel: { lengthMm: mm(input.dimensions?.length), widthMm: mm(input.dimensions?.width), heightMm: mm(input.dimensions?.height), weightGrams: input.weight.value * GRAMS_PER[input.weight.units] },
          reference: 'rate-check',
          idempotencyKey: 'rate-check',
        });
        const wanted = rates.filter((rate) => (!input.carrierCode || rate.carrierCode === input.carrierCode) && (!input.serviceCode || rate.serviceCode === input.serviceCode));
        // Not tied to one of our orders: ShipStation's own rate ids, to compare rather than to buy here.
        return chooseRates(wanted, { handlingDays: profile.handlingDays, promiseDays: profile.promiseDays, preferred: [] }).map((rate) =>
          rateDto(rate, 'shipstation', rate.rateId),
        );
      } catch (error) {
        throw providerError('shipstation', error);
      }
    },

    /** createShipStationLabelForOrder: ShipStation buys the label for its own order; the PDF comes back once. */
    async shipStationLabelForOrder(actor: ShippingActor, ownerId: string, input: z.infer<typeof shipStationLabelForOrderInputSchema>) {
      const credentials = await settings.credentialsOf(ownerId, 'shipstation');
      try {
        const label = await providers.shipstation.createLabelForOrder(credentials, {
          shipStationOrderId: input.shipStationOrderId,
          carrierCode: input.carrierCode,
          serviceCode: input.serviceCode,
          packageCode: input.packageCode,
          weightGrams: input.weight.value * GRAMS_PER[input.weight.units],
          testLabel: input.testLabel,
        });
        await audit.record({ actorId: actor.id, targetUserId: ownerId, action: 'shipping.shipstation-label-for-order', detail: { shipStationOrderId: input.shipStationOrderId, trackingNumber: label.trackingNumber }, requestId: actor.requestId });
        return {
          trackingNumber: label.trackingNumber,
          carrier: label.carrier,
          service: label.service,
          costCents: label.costCents,
          labelPdfBase64: 'pdf' in label.label ? label.label.pdf.toString('base64') : null,
          labelUrl: 'url' in label.label ? label.label.url : null,
        };
      } catch (error) {
        throw providerError('shipstation', error);
      }
    },

    /** markShipStationOrderShipped: ShipStation (and its sales channel) learns the tracking. */
    async markShipStationOrderShipped(actor: ShippingActor, ownerId: string, input: z.infer<typeof markShipStationOrderShippedInputSchema>) {
      const credentials = await settings.credentialsOf(ownerId, 'shipstation');
      try {
        const result = await providers.shipstation.markOrderShipped(credentials, {
          shipStationOrderId: input.shipStationOrderId,
          carrierCode: input.carrierCode,
          trackingNumber: input.trackingNumber,
          shipDate: input.shipDate ?? new Date().toISOString().slice(0, 10),
          notifyCustomer: input.notifyCustomer,
          notifySalesChannel: input.notifySalesChannel,
        });
        await audit.record({ actorId: actor.id, targetUserId: ownerId, action: 'shipping.shipstation-marked-shipped', detail: { ...result, trackingNumber: input.trackingNumber }, requestId: actor.requestId });
        return result;
      } catch (error) {
        throw providerError('shipstation', error);
      }
    },

    /** fetchShippoOrders. */
    async shippoOrders(ownerId: string): Promise<ShippoAccountOrder[]> {
      const credentials = await settings.credentialsOf(ownerId, 'shippo');
      try {
        return await providers.shippo.listOrders(credentials);
      } catch (error) {
        throw providerError('shippo', error);
      }
    },
  };
}

export type AccountCalls = ReturnType<typeof createAccountCalls>;
