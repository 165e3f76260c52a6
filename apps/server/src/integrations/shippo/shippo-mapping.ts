import type { ShippingAddress } from '@layerline/contracts';
import { z } from 'zod';
import type {
  ParcelDimensions,
  ProviderRate,
  ShipmentRequest,
  ShippoAccountOrder,
  TrackingEvent,
  TrackingInfo,
  TrackingStatusCode,
} from '../../modules/shipping/shipping-provider.ts';
import { carrierCodeOf } from './shippo-carriers.ts';

/**
 * Shippo API payloads (the parts we read; /work/shared/contracts/shippo/public-api.yaml) and their
 * translation into the shipping port's types. Schemas are lenient: Shippo marks almost every field
 * optional, and one odd rate or event must not sink the whole answer.
 */

const text = z.string().nullish();

const responseMessages = z
  .array(z.object({ source: text, code: text, text }))
  .nullish()
  .catch(null);

const serviceLevel = z.object({ name: text, token: text }).nullish().catch(null);

const shippoRate = z.object({
  object_id: z.string().min(1),
  amount: z.string(),
  currency: z.string(),
  provider: z.string(),
  servicelevel: serviceLevel,
  estimated_days: z.number().nullish().catch(null),
});

const validationResults = z
  .object({
    is_valid: z.boolean().nullish(),
    messages: z.array(z.object({ text, type: text })).nullish(),
  })
  .nullish()
  .catch(null);

// A shipment answers its addresses expanded (objects); anything else is ignored.
const shipmentAddress = z.object({ validation_results: validationResults }).nullish().catch(null);

export const shippoShipment = z.object({
  status: text,
  rates: z.array(z.unknown()).nullish(),
  messages: responseMessages,
  address_from: shipmentAddress,
  address_to: shipmentAddress,
});
export type ShippoShipment = z.infer<typeof shippoShipment>;

/** `rate` on a transaction: its id, or (list and instalabel answers) a short rate object. */
const coreRate = z.object({
  object_id: text,
  amount: text,
  currency: text,
  provider: text,
  servicelevel_name: text,
  servicelevel_token: text,
});

export const shippoTransaction = z.object({
  object_id: z.string().min(1),
  status: text,
  metadata: text,
  tracking_number: text,
  tracking_url_provider: text,
  label_url: text,
  messages: responseMessages,
  rate: z.union([z.string(), coreRate]).nullish().catch(null),
});
export type ShippoTransaction = z.infer<typeof shippoTransaction>;

export const shippoTransactionPage = z.object({ next: text, results: z.array(shippoTransaction) });

export const shippoRefund = z.object({ object_id: text, status: text });

export const shippoCarrierAccounts = z.object({ results: z.array(z.unknown()).nullish() });

const trackingStatus = z.object({
  object_id: text,
  object_created: text,
  status: text,
  substatus: z.object({ code: text }).nullish().catch(null),
  status_date: text,
  status_details: text,
  location: z.object({ city: text, state: text, zip: text, country: text }).nullish().catch(null),
});
type ShippoTrackingStatus = z.infer<typeof trackingStatus>;

export const shippoTrack = z.object({
  tracking_status: trackingStatus.nullish().catch(null),
  tracking_history: z.array(z.unknown()).nullish(),
});

export const shippoOrderPage = z.object({
  next: text,
  results: z.array(
    z.object({
      object_id: text,
      order_number: text,
      order_status: text,
      placed_at: text,
      to_address: z.object({ name: text, country: text }).nullish().catch(null),
      line_items: z.array(z.unknown()).nullish(),
    }),
  ),
});

export const shippoTokenResponse = z.object({ access_token: z.string().min(1) });

/** "5.5" → 550. Shippo answers money as decimal strings; a third decimal rounds half up. */
export const amountToCents = (amount: string): number | null => {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!match) return null;
  const fraction = (match[2] ?? '').padEnd(3, '0');
  const cents = Number(match[1]) * 100 + Number(fraction.slice(0, 2)) + (Number(fraction[2]) >= 5 ? 1 : 0);
  return Number.isSafeInteger(cents) ? cents : null;
};

/** 12 → "12", 12.5 → "12.5": the spec takes up to four decimals, as a string. */
const decimal = (value: number): string => String(Number(value.toFixed(4)));

const addressBody = (address: ShippingAddress): Record<string, string> => {
  const fields: Record<string, string> = {
    name: address.name,
    company: address.company,
    street1: address.line1,
    street2: address.line2,
    city: address.city,
    state: address.region,
    zip: address.postalCode,
    country: address.country,
    phone: address.phone,
    email: address.email,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== ''));
};

// Shippo takes millimetres and grams as they are (the spec's DistanceUnitEnum and WeightUnitEnum).
const parcelBody = (parcel: ParcelDimensions) => ({
  length: decimal(parcel.lengthMm),
  width: decimal(parcel.widthMm),
  height: decimal(parcel.heightMm),
  distance_unit: 'mm',
  weight: decimal(parcel.weightGrams),
  mass_unit: 'g',
});

/** Label text fields take up to 50 characters (ShipmentExtra.reference_1). */
const REFERENCE_LENGTH = 50;

/** POST /shipments: rates now (`async: false`), the idempotency key as metadata to find it again. */
export const shipmentBody = (request: ShipmentRequest) => ({
  address_from: addressBody(request.from),
  address_to: addressBody(request.to),
  parcels: [parcelBody(request.parcel)],
  extra: { reference_1: request.reference.slice(0, REFERENCE_LENGTH) },
  metadata: request.idempotencyKey,
  async: false,
});

export const toProviderRate = (value: unknown): ProviderRate | null => {
  const parsed = shippoRate.safeParse(value);
  if (!parsed.success) return null;
  const rate = parsed.data;
  const amountCents = amountToCents(rate.amount);
  if (amountCents === null) return null;
  const serviceCode = rate.servicelevel?.token ?? '';
  const days = rate.estimated_days;
  return {
    rateId: rate.object_id,
    carrier: rate.provider,
    carrierCode: carrierCodeOf(serviceCode, rate.provider),
    service: rate.servicelevel?.name ?? serviceCode,
    serviceCode,
    amountCents,
    currency: rate.currency.toUpperCase(),
    estimatedDays: typeof days === 'number' && Number.isInteger(days) && days >= 0 ? days : null,
  };
};

/** A transaction's short rate object as a ProviderRate (its estimate is not known there). */
export const coreRateToProviderRate = (rate: z.infer<typeof coreRate>): ProviderRate | null => {
  const amountCents = rate.amount ? amountToCents(rate.amount) : null;
  if (amountCents === null || !rate.object_id || !rate.currency) return null;
  const provider = rate.provider ?? '';
  const serviceCode = rate.servicelevel_token ?? '';
  return {
    rateId: rate.object_id,
    carrier: provider,
    carrierCode: carrierCodeOf(serviceCode, provider),
    service: rate.servicelevel_name ?? serviceCode,
    serviceCode,
    amountCents,
    currency: rate.currency.toUpperCase(),
    estimatedDays: null,
  };
};

const TRACKING_STATUS: Readonly<Record<string, TrackingStatusCode>> = {
  PRE_TRANSIT: 'pre_transit',
  TRANSIT: 'in_transit',
  DELIVERED: 'delivered',
  RETURNED: 'returned',
  FAILURE: 'failure',
  UNKNOWN: 'unknown',
};

// Shippo has no top-level "out for delivery": it is a TRANSIT event with that substatus.
const statusOf = (event: ShippoTrackingStatus): TrackingStatusCode =>
  event.status === 'TRANSIT' && event.substatus?.code === 'out_for_delivery'
    ? 'out_for_delivery'
    : (TRACKING_STATUS[event.status ?? ''] ?? 'unknown');

const toTrackingEvent = (value: unknown): TrackingEvent | null => {
  const parsed = trackingStatus.safeParse(value);
  if (!parsed.success) return null;
  const event = parsed.data;
  const when = event.status_date ?? event.object_created;
  const occurredAt = when ? new Date(when) : null;
  if (!occurredAt || Number.isNaN(occurredAt.getTime())) return null;
  const place = event.location;
  return {
    eventId: event.object_id || `${event.status ?? 'UNKNOWN'}:${occurredAt.toISOString()}`,
    status: statusOf(event),
    description: event.status_details ?? '',
    location: [place?.city, place?.state, place?.zip, place?.country].filter(Boolean).join(', '),
    occurredAt,
  };
};

export const toTrackingInfo = (track: z.infer<typeof shippoTrack>): TrackingInfo => {
  const events = (track.tracking_history ?? [])
    .map(toTrackingEvent)
    .filter((event): event is TrackingEvent => event !== null)
    .sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime());
  const status = track.tracking_status
    ? statusOf(track.tracking_status)
    : (events.at(-1)?.status ?? 'unknown');
  return { status, events };
};

export const toAccountOrders = (page: z.infer<typeof shippoOrderPage>): ShippoAccountOrder[] =>
  page.results.flatMap((order) =>
    order.object_id
      ? [
          {
            objectId: order.object_id,
            orderNumber: order.order_number ?? '',
            status: order.order_status ?? 'UNKNOWN',
            placedAt: order.placed_at ?? null,
            toName: order.to_address?.name ?? '',
            toCountry: order.to_address?.country ?? '',
            itemCount: order.line_items?.length ?? 0,
          },
        ]
      : [],
  );
