import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ShippingAddress } from '@layerline/contracts';
import {
  ShippingAddressError,
  ShippingRejectedError,
  ShippingUnavailableError,
  type ParcelDimensions,
  type ProviderRate,
  type PurchasedLabel,
  type TrackingEvent,
} from '../../modules/shipping/shipping-provider.ts';
import { carrierOf, trackingUrlOf } from './shipstation-carriers.ts';
import {
  createShipStationApi,
  type ShipStationErrorDetail,
  type ShipStationHttpTuning,
} from './shipstation-http.ts';
import type { ShipStationV2Client, ShipStationV2Credentials } from './shipstation-types.ts';
import { trackingStatusOf } from './shipstation-tracking.ts';

/**
 * ShipStation API v2 (https://api.shipstation.com, header `API-Key`). Contract:
 * /work/shared/contracts/shipstation/openapi.yaml (ShipStation's own file).
 *
 * Rates come from POST /v2/rates (for every carrier of the account). A label is bought with
 * POST /v2/labels, which creates the label's shipment with our idempotency key as its
 * `external_shipment_id`; findLabel reads that shipment back. Buying by `rate_id` instead would use the
 * shipment rate shopping created, which would then have to carry the key from the first quote on: the
 * docs call `external_shipment_id` unique, so quoting the same parcel twice could be refused. A v2
 * rate id here is therefore the carrier account and service (`v2:<carrier_id>:<service_code>`), and
 * the label's price is the one ShipStation answers when buying (it is the quoted one for the same parcel).
 *
 * Tracking needs the label's id: the label is found by its tracking number first. v2 has no
 * orders: ShipStationOrderCalls are classic-only (shipstation-provider.ts refuses them for v2 keys).
 */

const SHIPSTATION_V2_URL = 'https://api.shipstation.com';

export interface ShipStationV2Options {
  readonly fetch?: typeof fetch;
  /** Default https://api.shipstation.com. */
  readonly baseUrl?: string;
  readonly http?: ShipStationHttpTuning;
}

/* ---------- What we read from ShipStation v2 ---------- */

const money = z.object({ currency: z.string(), amount: z.number() });

const carriersAnswer = z.object({
  carriers: z.array(z.object({ carrier_id: z.string().min(1) })),
});

const rate = z.object({
  carrier_id: z.string().min(1),
  carrier_code: z.string().min(1),
  carrier_friendly_name: z.string().nullish(),
  service_type: z.string().nullish(),
  service_code: z.string().min(1),
  shipping_amount: money,
  insurance_amount: money.nullish(),
  confirmation_amount: money.nullish(),
  other_amount: money.nullish(),
  delivery_days: z.number().int().nullish(),
});

const apiError = z.object({
  error_type: z.string().nullish(),
  error_code: z.string().nullish(),
  message: z.string().nullish(),
});
type ApiError = z.infer<typeof apiError>;

const ratesAnswer = z.object({
  rate_response: z.object({ rates: z.array(rate).nullish(), errors: z.array(apiError).nullish() }),
});

const label = z.object({
  label_id: z.string().min(1),
  status: z.string().nullish(),
  voided: z.boolean().nullish(),
  tracking_number: z.string().nullish(),
  carrier_code: z.string().nullish(),
  service_code: z.string().nullish(),
  shipment_cost: money.nullish(),
  insurance_cost: money.nullish(),
  label_download: z.object({ pdf: z.string().nullish(), href: z.string().nullish() }).nullish(),
});
type Label = z.infer<typeof label>;

const labelsAnswer = z.object({ labels: z.array(label) });

const shipmentAnswer = z.object({ shipment_id: z.string().min(1) });

const voidAnswer = z.object({ approved: z.boolean(), message: z.string() });

const trackingEvent = z.object({
  occurred_at: z.string(),
  description: z.string().nullish(),
  status_description: z.string().nullish(),
  city_locality: z.string().nullish(),
  state_province: z.string().nullish(),
  postal_code: z.string().nullish(),
  country_code: z.string().nullish(),
  event_code: z.string().nullish(),
  carrier_status_code: z.string().nullish(),
  status_code: z.string().nullish(),
  status_detail_code: z.string().nullish(),
});

const trackingAnswer = z.object({
  status_code: z.string().nullish(),
  status_detail_code: z.string().nullish(),
  events: z.array(trackingEvent).nullish(),
});

/* ---------- Translation ---------- */

const ADDRESS_WORDS = /address|postal|zip ?code|city|state|province|country|phone|ship_to|ship_from/i;

const isAddressError = (error: ApiError): boolean =>
  error.error_code === 'invalid_address' ||
  (error.error_type === 'validation' && ADDRESS_WORDS.test(error.message ?? ''));

/** v2 errors are `{ request_id, errors: [{ error_source, error_type, error_code, message }] }`. */
const describeV2Error = (body: unknown): ShipStationErrorDetail => {
  const parsed = z.object({ errors: z.array(apiError) }).safeParse(body);
  if (!parsed.success)
    return { message: typeof body === 'string' ? body.slice(0, 300) : '', addressProblem: false };
  return {
    message: parsed.data.errors
      .map((error) => error.message ?? error.error_code ?? '')
      .filter(Boolean)
      .join('; '),
    addressProblem: parsed.data.errors.some(isAddressError),
  };
};

/** Amounts come with their currency; a placeholder that is not an ISO 4217 code is not one. */
const currencyOf = (amount: { currency: string } | null | undefined): string | null =>
  amount && /^[a-z]{3}$/i.test(amount.currency) ? amount.currency.toUpperCase() : null;

const cents = (amount: { amount: number } | null | undefined): number =>
  Math.round((amount?.amount ?? 0) * 100);

/**
 * ShipStation's address; empty fields are left out, and ShipStation decides residential itself. The v2
 * file marks `phone` and `state_province` required: an address without them (many marketplace buyers
 * give no phone) is sent without, and ShipStation's refusal comes back as a ShippingAddressError.
 */
const addressOf = (address: ShippingAddress) => ({
  name: address.name,
  phone: address.phone || undefined,
  email: address.email || undefined,
  company_name: address.company || undefined,
  address_line1: address.line1,
  address_line2: address.line2 || undefined,
  city_locality: address.city,
  state_province: address.region || undefined,
  postal_code: address.postalCode,
  country_code: address.country,
  address_residential_indicator: 'unknown',
});

/** Grams rounded up, and the box in centimetres to the millimetre (v2 takes decimals). */
const packageOf = (parcel: ParcelDimensions) => ({
  weight: { value: Math.ceil(parcel.weightGrams), unit: 'gram' },
  dimensions: {
    unit: 'centimeter',
    length: Math.round(parcel.lengthMm) / 10,
    width: Math.round(parcel.widthMm) / 10,
    height: Math.round(parcel.heightMm) / 10,
  },
});

/** `external_shipment_id` is cut at 50 characters by ShipStation: a longer key is replaced by its hash. */
const externalShipmentId = (idempotencyKey: string): string =>
  idempotencyKey.length <= 50
    ? idempotencyKey
    : `ll-${createHash('sha256').update(idempotencyKey).digest('base64url')}`;

/** ShipStation ids (`se-123`): checked before one is put in a path. */
const SE_ID = /^se(-[a-z0-9]+)+$/;

const RATE_ID = /^v2:(se(?:-[a-z0-9]+)+):([a-z0-9_ -]+)$/;

const v2RateId = (carrierId: string, serviceCode: string): string => `v2:${carrierId}:${serviceCode}`;

const rateParts = (rate: ProviderRate): { carrierId: string; serviceCode: string } => {
  const match = RATE_ID.exec(rate.rateId);
  if (!match)
    throw new ShippingRejectedError('This rate was not quoted by ShipStation v2; get rates again', 400);
  return { carrierId: match[1]!, serviceCode: match[2]! };
};

/** FedEx and UPS print at most 35 characters per label message line. */
const LABEL_MESSAGE_MAX = 35;

/** A label found again that still stands (not voided, not failed). */
const isLive = (found: Label): boolean =>
  !found.voided && found.status !== 'voided' && found.status !== 'error';

const eventOf = (event: z.infer<typeof trackingEvent>): TrackingEvent | null => {
  const occurredAt = new Date(event.occurred_at);
  if (Number.isNaN(occurredAt.getTime())) return null;
  const code =
    event.event_code || event.carrier_status_code || event.status_detail_code || event.status_code || '';
  return {
    eventId: `${occurredAt.toISOString()}:${code}`,
    status: trackingStatusOf(event.status_detail_code, event.status_code),
    description: event.description || event.status_description || '',
    location: [event.city_locality, event.state_province, event.postal_code, event.country_code]
      .filter(Boolean)
      .join(', '),
    occurredAt,
  };
};

/* ---------- The client ---------- */

export const createShipStationV2 = (options: ShipStationV2Options = {}): ShipStationV2Client => {
  const api = createShipStationApi({
    vendor: 'ShipStation v2',
    baseUrl: options.baseUrl ?? SHIPSTATION_V2_URL,
    describeError: describeV2Error,
    fetch: options.fetch,
    http: options.http,
  });

  const auth = (credentials: ShipStationV2Credentials) => ({ 'API-Key': credentials.apiKey });

  const listCarriers = (credentials: ShipStationV2Credentials) =>
    api.call({
      operation: 'list carriers',
      method: 'GET',
      url: api.url('/v2/carriers'),
      headers: auth(credentials),
      schema: carriersAnswer,
    });

  /** A label as the port wants it; `quoted` gives the names and currency when we bought it from a rate. */
  const purchasedOf = (found: Label, quoted: ProviderRate | null): PurchasedLabel | null => {
    const link = found.label_download?.pdf || found.label_download?.href;
    const currency = currencyOf(found.shipment_cost) ?? quoted?.currency ?? null;
    if (!found.tracking_number || !link || !currency) return null;
    const carrierCode = found.carrier_code ?? '';
    const carrier = carrierOf(carrierCode, quoted?.carrier);
    return {
      providerLabelId: found.label_id,
      trackingNumber: found.tracking_number,
      trackingUrl: trackingUrlOf(carrierCode, found.tracking_number),
      carrier: carrier.name,
      carrierCode: carrier.code,
      service: quoted?.service ?? found.service_code ?? '',
      costCents: cents(found.shipment_cost) + cents(found.insurance_cost),
      currency,
      label: { url: link },
    };
  };

  return {
    async verifyCredentials(credentials) {
      await listCarriers(credentials);
    },

    async getRates(credentials, request) {
      const carrierIds = (await listCarriers(credentials)).carriers.map((c) => c.carrier_id);
      if (carrierIds.length === 0)
        throw new ShippingRejectedError('No carriers are connected to this ShipStation account', 422);
      const answer = await api.call({
        operation: 'calculate rates',
        method: 'POST',
        url: api.url('/v2/rates'),
        headers: auth(credentials),
        json: {
          rate_options: { carrier_ids: carrierIds },
          shipment: {
            ship_from: addressOf(request.from),
            ship_to: addressOf(request.to),
            packages: [packageOf(request.parcel)],
          },
        },
        schema: ratesAnswer,
      });
      const quoted = answer.rate_response.rates ?? [];
      const errors = answer.rate_response.errors ?? [];
      if (quoted.length === 0 && errors.length > 0) {
        const words = errors
          .map((error) => error.message ?? error.error_code ?? '')
          .filter(Boolean)
          .join('; ');
        if (errors.some(isAddressError)) throw new ShippingAddressError(words);
        throw new ShippingRejectedError(`ShipStation v2 offered no rates: ${words}`, 422);
      }
      return quoted.flatMap((r): ProviderRate[] => {
        const currency = currencyOf(r.shipping_amount);
        // A rate whose currency we cannot read cannot be compared with the others in cents.
        if (!currency) return [];
        const carrier = carrierOf(r.carrier_code, r.carrier_friendly_name ?? '');
        return [
          {
            rateId: v2RateId(r.carrier_id, r.service_code),
            carrier: carrier.name,
            carrierCode: carrier.code,
            service: r.service_type || r.service_code,
            serviceCode: r.service_code,
            amountCents:
              cents(r.shipping_amount) +
              cents(r.insurance_amount) +
              cents(r.confirmation_amount) +
              cents(r.other_amount),
            currency,
            estimatedDays: r.delivery_days ?? null,
          },
        ];
      });
    },

    async purchaseLabel(credentials, request, rate) {
      const { carrierId, serviceCode } = rateParts(rate);
      const from = addressOf(request.from);
      const bought = await api.call({
        operation: 'create label',
        method: 'POST',
        url: api.url('/v2/labels'),
        headers: auth(credentials),
        json: {
          shipment: {
            carrier_id: carrierId,
            service_code: serviceCode,
            external_shipment_id: externalShipmentId(request.idempotencyKey),
            // What ShipStation's pages show for the shipment (without it, the key above).
            shipment_number: request.reference.slice(0, 50),
            ship_from: from,
            return_to: from,
            ship_to: addressOf(request.to),
            confirmation: 'none',
            insurance_provider: 'none',
            advanced_options: {},
            tags: [],
            packages: [
              {
                ...packageOf(request.parcel),
                label_messages: {
                  reference1: request.reference.slice(0, LABEL_MESSAGE_MAX),
                  reference2: null,
                  reference3: null,
                },
              },
            ],
          },
          label_format: 'pdf',
          label_download_type: 'url',
        },
        schema: label,
        purchase: true,
      });
      // A label bought this instant cannot be voided yet: only an error status means nothing was bought.
      if (bought.status === 'error')
        throw new ShippingRejectedError('ShipStation v2 could not create the label (status error)', 422);
      const purchased = purchasedOf(bought, rate);
      if (!purchased)
        throw new ShippingUnavailableError(
          'ShipStation v2 bought the label without its tracking number or link; look it up again shortly',
        );
      return purchased;
    },

    async findLabel(credentials, request) {
      let shipmentId: string;
      try {
        const found = await api.call({
          operation: 'get shipment by external id',
          method: 'GET',
          url: api.url(
            `/v2/shipments/external_shipment_id/${encodeURIComponent(externalShipmentId(request.idempotencyKey))}`,
          ),
          headers: auth(credentials),
          schema: shipmentAnswer,
        });
        shipmentId = found.shipment_id;
      } catch (error) {
        // No shipment with our key: the purchase never reached ShipStation.
        if (error instanceof ShippingRejectedError && error.status === 404) return null;
        throw error;
      }
      const { labels } = await api.call({
        operation: 'list labels',
        method: 'GET',
        url: api.url('/v2/labels', { shipment_id: shipmentId }),
        headers: auth(credentials),
        schema: labelsAnswer,
      });
      for (const found of labels.filter(isLive)) {
        const purchased = purchasedOf(found, null);
        if (purchased) return purchased;
      }
      return null;
    },

    async downloadLabel(credentials, url) {
      let link: URL;
      try {
        link = new URL(url);
      } catch {
        throw new ShippingRejectedError('The label link is not a URL', 400);
      }
      return api.downloadPdf(link, auth(credentials));
    },

    async voidLabel(credentials, providerLabelId) {
      if (!SE_ID.test(providerLabelId)) throw new ShippingRejectedError('Not a ShipStation v2 label id', 400);
      const answer = await api.call({
        operation: 'void label',
        method: 'PUT',
        url: api.url(`/v2/labels/${providerLabelId}/void`),
        headers: auth(credentials),
        schema: voidAnswer,
      });
      return { refunded: answer.approved, message: answer.message };
    },

    /**
     * v2 tracks labels bought on the account, by label id: the label is found by its tracking number
     * (and carrier, when given). A number with no label there answers 'unknown' with no events.
     */
    async track(credentials, carrierCode, trackingNumber) {
      const { labels } = await api.call({
        operation: 'list labels',
        method: 'GET',
        url: api.url('/v2/labels', { tracking_number: trackingNumber }),
        headers: auth(credentials),
        schema: labelsAnswer,
      });
      const found = labels.find(
        (l) =>
          SE_ID.test(l.label_id) && (!carrierCode || carrierOf(l.carrier_code ?? '').code === carrierCode),
      );
      if (!found) return { status: 'unknown', events: [] };
      const answer = await api.call({
        operation: 'track label',
        method: 'GET',
        url: api.url(`/v2/labels/${found.label_id}/track`),
        headers: auth(credentials),
        schema: trackingAnswer,
      });
      const events = (answer.events ?? [])
        .flatMap((event) => eventOf(event) ?? [])
        .sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime());
      return { status: trackingStatusOf(answer.status_detail_code, answer.status_code), events };
    },
  };
};
