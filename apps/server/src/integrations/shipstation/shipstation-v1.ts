import { z } from 'zod';
import type { ShippingAddress } from '@layerline/contracts';
import {
  ShippingAddressError,
  ShippingRejectedError,
  type ParcelDimensions,
  type ProviderRate,
  type PurchasedLabel,
  type ShipmentRequest,
} from '../../modules/shipping/shipping-provider.ts';
import { carrierOf, trackingUrlOf } from './shipstation-carriers.ts';
import {
  createShipStationApi,
  isPdf,
  type ShipStationErrorDetail,
  type ShipStationHttpTuning,
} from './shipstation-http.ts';
import type { ShipStationV1Client, ShipStationV1Credentials } from './shipstation-types.ts';

/**
 * ShipStation's classic API (v1, https://ssapi.shipstation.com): Basic auth with the API key as user
 * name and the API secret as password. Contract: /work/shared/contracts/shipstation-v1/openapi.yaml
 * (community-made from ShipStation's v1 docs; see the contract test for its known defects).
 *
 * What v1 cannot do, and what this client does instead:
 * - rates are asked per carrier (`carrierCode` is required): the account's carriers are listed first;
 * - rates carry no currency and no transit time: amounts are taken as USD (ShipStation's US accounts;
 *   an account billed in another currency would be mislabelled) and estimatedDays is null;
 * - a label bought with /shipments/createlabel belongs to no order and carries no reference or key of
 *   ours, and its PDF is answered once only (listing shipments gives `labelData: null`): see findLabel;
 * - there is no tracking endpoint: see track.
 */

const SHIPSTATION_V1_URL = 'https://ssapi.shipstation.com';

/** How far back findLabel looks for a label bought before a timeout. */
const FIND_LABEL_WINDOW_MS = 2 * 24 * 60 * 60 * 1000;

export interface ShipStationV1Options {
  readonly fetch?: typeof fetch;
  /** Default https://ssapi.shipstation.com. */
  readonly baseUrl?: string;
  readonly now?: () => Date;
  readonly http?: ShipStationHttpTuning;
}

/**
 * findLabel found a label that is probably the one a timed-out purchase bought, but v1 cannot send its
 * PDF again. It is not returned as bought (we would have no label to print) nor ignored (buying again
 * would pay twice): the purchase stops here, naming the label, until someone voids it in ShipStation.
 */
export class ShipStationLabelNeedsReprintError extends ShippingRejectedError {
  readonly found: readonly {
    shipmentId: number;
    trackingNumber: string;
    carrierCode: string;
    createdAt: string;
  }[];
  constructor(found: ShipStationLabelNeedsReprintError['found']) {
    const named = found.map((label) => `${label.trackingNumber} (shipment ${label.shipmentId})`).join(', ');
    super(
      `ShipStation already has a label to this recipient from the last two days, probably bought by the attempt that timed out: ${named}. ` +
        "ShipStation's classic API cannot send a label's PDF again: void it in ShipStation, then buy the label again here.",
      409,
    );
    this.name = 'ShipStationLabelNeedsReprintError';
    this.found = found;
  }
}

/* ---------- What we read from ShipStation v1 ---------- */

const carriersAnswer = z.array(z.object({ name: z.string(), code: z.string().min(1) }));

const ratesAnswer = z.array(
  z.object({
    serviceName: z.string(),
    serviceCode: z.string().min(1),
    shipmentCost: z.number(),
    otherCost: z.number(),
  }),
);

/** /shipments/createlabel and /orders/createlabelfororder: the label's PDF comes back once, here. */
const labelAnswer = z.object({
  shipmentId: z.number().int(),
  trackingNumber: z.string().min(1),
  shipmentCost: z.number(),
  insuranceCost: z.number().nullish(),
  labelData: z
    .string()
    .min(1)
    .transform((base64) => Buffer.from(base64, 'base64'))
    .refine(isPdf, 'labelData is not a PDF'),
});

const shipment = z.object({
  shipmentId: z.number().int(),
  trackingNumber: z.string().nullish(),
  carrierCode: z.string().nullish(),
  createDate: z.string().nullish(),
  voided: z.boolean().nullish(),
  isReturnLabel: z.boolean().nullish(),
  shipTo: z
    .object({ name: z.string().nullish(), postalCode: z.string().nullish(), country: z.string().nullish() })
    .nullish(),
});
type Shipment = z.infer<typeof shipment>;

/** GET /shipments, and the SHIP_NOTIFY resources webhooks name (other resources hold no shipments). */
const shipmentsAnswer = z.object({ shipments: z.array(shipment).nullish() });

const voidAnswer = z.object({ approved: z.boolean(), message: z.string() });

const markedShippedAnswer = z.object({ orderId: z.number().int(), orderNumber: z.string() });

/* ---------- Translation ---------- */

/** The words that make a v1 refusal an address problem ("Invalid" alone would also match a bad service code). */
const ADDRESS_WORDS = /address|could not validate|postal|zip ?code|\bstate\b|\bcity\b|country/i;

/**
 * v1 is an ASP.NET Web API: errors are `{ Message, ExceptionMessage, ModelState }`; a refused login is
 * often plain text.
 */
const describeV1Error = (body: unknown): ShipStationErrorDetail => {
  let message = '';
  if (typeof body === 'string') message = body;
  else if (body && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    const words = [record.ExceptionMessage, record.Message, record.message].find(
      (w) => typeof w === 'string' && w.trim(),
    );
    message = typeof words === 'string' ? words : JSON.stringify(body);
  }
  message = message.replace(/\s+/g, ' ').trim().slice(0, 300);
  return { message, addressProblem: ADDRESS_WORDS.test(message) };
};

/** v1's Weight and Dimensions are integers in its contract: whole grams, and centimetres rounded up. */
const weightOf = (grams: number) => ({ value: Math.ceil(grams), units: 'grams' });
const dimensionsOf = (parcel: ParcelDimensions) => ({
  units: 'centimeters',
  length: Math.ceil(parcel.lengthMm / 10),
  width: Math.ceil(parcel.widthMm / 10),
  height: Math.ceil(parcel.heightMm / 10),
});

/**
 * v1 defaults `residential` to false, which under-quotes UPS and FedEx deliveries to homes (they add a
 * surcharge at billing). An address with no company name is a person's: residential.
 */
const isResidential = (address: ShippingAddress): boolean => address.company.trim() === '';

/** ShipStation's Address model; empty optional fields are left out. */
const addressOf = (address: ShippingAddress, residential?: boolean) => ({
  name: address.name,
  company: address.company || undefined,
  street1: address.line1,
  street2: address.line2 || undefined,
  city: address.city,
  state: address.region || undefined,
  postalCode: address.postalCode,
  country: address.country,
  phone: address.phone || undefined,
  residential,
});

const cents = (amount: number | null | undefined): number => Math.round((amount ?? 0) * 100);

const RATE_ID = /^v1:([^:]+):([^:]+)$/;

const v1RateId = (carrierCode: string, serviceCode: string): string => `v1:${carrierCode}:${serviceCode}`;

const rateParts = (rate: ProviderRate): { carrierCode: string; serviceCode: string } => {
  const match = RATE_ID.exec(rate.rateId);
  if (!match)
    throw new ShippingRejectedError(
      'This rate was not quoted by the classic ShipStation API; get rates again',
      400,
    );
  return { carrierCode: match[1]!, serviceCode: match[2]! };
};

/** ShipStation wants the ship date as a date; UTC's date is never in the past for a US seller. */
const dateOf = (now: Date): string => now.toISOString().slice(0, 10);

/** v1 filters take "YYYY-MM-DD HH:mm:ss" (ShipStation reads them as Pacific time; the window is wide). */
const dateTimeOf = (at: Date): string => at.toISOString().slice(0, 19).replace('T', ' ');

/** Postal codes as ShipStation gives them back after validation (ZIP+4, upper case, no spaces). */
const postalKey = (code: string | null | undefined): string =>
  (code ?? '').replace(/[^0-9a-z]/gi, '').toUpperCase();

const sameRecipient = (found: Shipment, to: ShippingAddress): boolean => {
  const shipTo = found.shipTo;
  if (!shipTo) return false;
  const foundPostal = postalKey(shipTo.postalCode);
  const ourPostal = postalKey(to.postalCode);
  return (
    (shipTo.name ?? '').trim().toLowerCase() === to.name.trim().toLowerCase() &&
    (shipTo.country ?? '').toUpperCase() === to.country &&
    foundPostal !== '' &&
    ourPostal !== '' &&
    (foundPostal.startsWith(ourPostal) || ourPostal.startsWith(foundPostal))
  );
};

const SHIPMENT_ID = /^[1-9]\d{0,9}$/;

/* ---------- The client ---------- */

export const createShipStationV1 = (options: ShipStationV1Options = {}): ShipStationV1Client => {
  const now = options.now ?? (() => new Date());
  const api = createShipStationApi({
    vendor: 'ShipStation',
    baseUrl: options.baseUrl ?? SHIPSTATION_V1_URL,
    describeError: describeV1Error,
    fetch: options.fetch,
    http: options.http,
  });

  const auth = (credentials: ShipStationV1Credentials) => ({
    authorization: `Basic ${Buffer.from(`${credentials.apiKey}:${credentials.apiSecret}`).toString('base64')}`,
  });

  const listCarriers = (credentials: ShipStationV1Credentials) =>
    api.call({
      operation: 'carriers',
      method: 'GET',
      url: api.url('/carriers'),
      headers: auth(credentials),
      schema: carriersAnswer,
    });

  const labelOf = (
    answer: z.infer<typeof labelAnswer>,
    shipStationCarrier: string,
    names: { carrier?: string; service: string },
  ): PurchasedLabel => {
    const carrier = carrierOf(shipStationCarrier, names.carrier);
    return {
      providerLabelId: String(answer.shipmentId),
      trackingNumber: answer.trackingNumber,
      trackingUrl: trackingUrlOf(shipStationCarrier, answer.trackingNumber),
      carrier: carrier.name,
      carrierCode: carrier.code,
      service: names.service,
      costCents: cents(answer.shipmentCost) + cents(answer.insuranceCost),
      currency: 'USD',
      label: { pdf: answer.labelData },
    };
  };

  return {
    async verifyCredentials(credentials) {
      await listCarriers(credentials);
    },

    async getRates(credentials, request: ShipmentRequest) {
      const carriers = [...new Map((await listCarriers(credentials)).map((c) => [c.code, c])).values()];
      if (carriers.length === 0)
        throw new ShippingRejectedError('No carriers are connected to this ShipStation account', 422);
      const rates: ProviderRate[] = [];
      const refusals: Error[] = [];
      // One carrier at a time: v1 allows 40 requests a minute per account.
      for (const shipStationCarrier of carriers) {
        let answer: z.infer<typeof ratesAnswer>;
        try {
          answer = await api.call({
            operation: 'getrates',
            method: 'POST',
            url: api.url('/shipments/getrates'),
            headers: auth(credentials),
            json: {
              carrierCode: shipStationCarrier.code,
              fromPostalCode: request.from.postalCode,
              toState: request.to.region || undefined,
              toCountry: request.to.country,
              toPostalCode: request.to.postalCode,
              toCity: request.to.city,
              weight: weightOf(request.parcel.weightGrams),
              dimensions: dimensionsOf(request.parcel),
              confirmation: 'none',
              residential: isResidential(request.to),
            },
            schema: ratesAnswer,
          });
        } catch (error) {
          // One carrier refusing this parcel (a country it does not serve) leaves the others' rates.
          if (error instanceof ShippingAddressError || error instanceof ShippingRejectedError) {
            refusals.push(error);
            continue;
          }
          throw error;
        }
        const carrier = carrierOf(shipStationCarrier.code, shipStationCarrier.name);
        for (const rate of answer)
          rates.push({
            rateId: v1RateId(shipStationCarrier.code, rate.serviceCode),
            carrier: carrier.name,
            carrierCode: carrier.code,
            service: rate.serviceName,
            serviceCode: rate.serviceCode,
            amountCents: cents(rate.shipmentCost) + cents(rate.otherCost),
            currency: 'USD',
            estimatedDays: null,
          });
      }
      if (rates.length === 0 && refusals.length > 0)
        throw refusals.find((error) => error instanceof ShippingAddressError) ?? refusals[0];
      return rates;
    },

    async purchaseLabel(credentials, request, rate) {
      const { carrierCode, serviceCode } = rateParts(rate);
      const answer = await api.call({
        operation: 'createlabel',
        method: 'POST',
        url: api.url('/shipments/createlabel'),
        headers: auth(credentials),
        json: {
          carrierCode,
          serviceCode,
          packageCode: 'package',
          confirmation: 'none',
          shipDate: dateOf(now()),
          weight: weightOf(request.parcel.weightGrams),
          dimensions: dimensionsOf(request.parcel),
          shipFrom: addressOf(request.from),
          shipTo: addressOf(request.to, isResidential(request.to)),
          testLabel: false,
        },
        schema: labelAnswer,
        purchase: true,
      });
      return labelOf(answer, carrierCode, { carrier: rate.carrier, service: rate.service });
    },

    /**
     * After a timeout mid-purchase. A createlabel shipment has no order, so nothing of ours (reference,
     * idempotency key) can be searched for; the closest v1 allows is the recipient's name
     * (`recipientName`) and the creation date, then the postal code and country here. A match cannot
     * be returned as bought (listing gives no PDF, and there is no other way to get it again), and
     * cannot be ignored (buying again would pay twice): it stops the purchase with
     * ShipStationLabelNeedsReprintError. A label voided in ShipStation is no longer a match, which is
     * how the seller unblocks it. So this never answers a label; it answers null when nothing matches.
     */
    async findLabel(credentials, request) {
      const answer = await api.call({
        operation: 'shipments',
        method: 'GET',
        url: api.url('/shipments', {
          recipientName: request.to.name,
          createDateStart: dateTimeOf(new Date(now().getTime() - FIND_LABEL_WINDOW_MS)),
          sortBy: 'CreateDate',
          sortDir: 'DESC',
          pageSize: 100,
        }),
        headers: auth(credentials),
        schema: shipmentsAnswer,
      });
      const found = (answer.shipments ?? []).filter(
        (s) => !s.voided && !s.isReturnLabel && s.trackingNumber && sameRecipient(s, request.to),
      );
      if (found.length === 0) return null;
      throw new ShipStationLabelNeedsReprintError(
        found.map((s) => ({
          shipmentId: s.shipmentId,
          trackingNumber: s.trackingNumber ?? '',
          carrierCode: carrierOf(s.carrierCode ?? '').code,
          createdAt: s.createDate ?? '',
        })),
      );
    },

    async downloadLabel() {
      throw new ShippingRejectedError(
        "ShipStation's classic API answers labels as PDF bytes, never as links",
        400,
      );
    },

    async voidLabel(credentials, providerLabelId) {
      if (!SHIPMENT_ID.test(providerLabelId))
        throw new ShippingRejectedError('A ShipStation shipment id is a number', 400);
      const answer = await api.call({
        operation: 'voidlabel',
        method: 'POST',
        url: api.url('/shipments/voidlabel'),
        headers: auth(credentials),
        json: { shipmentId: Number(providerLabelId) },
        schema: voidAnswer,
      });
      return { refunded: answer.approved, message: answer.message };
    },

    /**
     * v1 has no tracking endpoint, and its shipments hold no delivery status: tracking for classic
     * ShipStation labels comes from its SHIP_NOTIFY webhooks (fetchWebhookResource) and the carrier.
     * No request is made.
     */
    async track() {
      return { status: 'unknown', events: [] };
    },

    async createLabelForOrder(credentials, input) {
      const answer = await api.call({
        operation: 'createlabelfororder',
        method: 'POST',
        url: api.url('/orders/createlabelfororder'),
        headers: auth(credentials),
        json: {
          orderId: input.shipStationOrderId,
          carrierCode: input.carrierCode,
          serviceCode: input.serviceCode,
          packageCode: input.packageCode,
          confirmation: 'none',
          shipDate: dateOf(now()),
          weight: weightOf(input.weightGrams),
          testLabel: input.testLabel,
        },
        schema: labelAnswer,
        purchase: true,
      });
      return labelOf(answer, input.carrierCode, { service: input.serviceCode });
    },

    async markOrderShipped(credentials, input) {
      return api.call({
        operation: 'markasshipped',
        method: 'POST',
        url: api.url('/orders/markasshipped'),
        headers: auth(credentials),
        json: {
          orderId: input.shipStationOrderId,
          carrierCode: input.carrierCode,
          shipDate: input.shipDate,
          trackingNumber: input.trackingNumber,
          notifyCustomer: input.notifyCustomer,
          notifySalesChannel: input.notifySalesChannel,
        },
        schema: markedShippedAnswer,
      });
    },

    /** The URL comes from a webhook body: it is fetched (with the seller's keys) only on ShipStation's API host. */
    async fetchWebhookResource(credentials, resourceUrl) {
      let url: URL;
      try {
        url = new URL(resourceUrl);
      } catch {
        throw new ShippingRejectedError('The webhook resource_url is not a URL', 400);
      }
      if (!api.isApiUrl(url))
        throw new ShippingRejectedError(`Refused to fetch ${url.origin}: not ShipStation's API host`, 400);
      const answer = await api.call({
        operation: 'webhook resource',
        method: 'GET',
        url,
        headers: auth(credentials),
        schema: shipmentsAnswer,
      });
      return (answer.shipments ?? []).flatMap((s) =>
        s.trackingNumber
          ? [
              {
                trackingNumber: s.trackingNumber,
                carrierCode: carrierOf(s.carrierCode ?? '').code,
                voided: s.voided === true,
              },
            ]
          : [],
      );
    },
  };
};
