import type { ShippingAddress, ShippingIntegration } from '@layerline/contracts';

/**
 * The one interface a shipping provider implements (integrations/shipstation, integrations/shippo,
 * integrations/sandbox-carrier). The shipping module talks only to this; each provider translates
 * to its own API inside its module. Labels are bought on the seller's own account: every call gets
 * that seller's credentials.
 */

/** A seller's credentials for one provider, unsealed only for the call. */
export type ShippingCredentials =
  | { readonly provider: 'sandbox' }
  | { readonly provider: 'shipstation'; readonly apiVersion: 'v1'; readonly apiKey: string; readonly apiSecret: string }
  | { readonly provider: 'shipstation'; readonly apiVersion: 'v2'; readonly apiKey: string }
  | { readonly provider: 'shippo'; readonly accessToken: string };

export interface ParcelDimensions {
  /** Outside dimensions of the packed box, mm, and its packed weight, grams. */
  readonly lengthMm: number;
  readonly widthMm: number;
  readonly heightMm: number;
  readonly weightGrams: number;
}

export interface ShipmentRequest {
  readonly from: ShippingAddress;
  readonly to: ShippingAddress;
  readonly parcel: ParcelDimensions;
  /** Printed on the label and used to find it again: the order number. */
  readonly reference: string;
  /**
   * Unique per order, parcel and attempt. A provider that supports idempotency keys sends it; the
   * others record it on the label (metadata / external id) so `findLabel` can find it after a timeout.
   */
  readonly idempotencyKey: string;
}

export interface ProviderRate {
  readonly rateId: string;
  readonly carrier: string;
  /** The carrier's code (usps, ups, fedex, …) as the marketplaces know it. */
  readonly carrierCode: string;
  readonly service: string;
  readonly serviceCode: string;
  readonly amountCents: number;
  readonly currency: string;
  readonly estimatedDays: number | null;
}

export interface PurchasedLabel {
  /** The provider's id for the label (to void it and to find it). */
  readonly providerLabelId: string;
  readonly trackingNumber: string;
  readonly trackingUrl: string;
  readonly carrier: string;
  readonly carrierCode: string;
  readonly service: string;
  readonly costCents: number;
  readonly currency: string;
  /** The label itself: its bytes when the provider answers them, else a URL to download them from. */
  readonly label: { readonly pdf: Buffer } | { readonly url: string };
}

export const TRACKING_STATUSES = ['pre_transit', 'in_transit', 'out_for_delivery', 'delivered', 'returned', 'failure', 'unknown'] as const;
export type TrackingStatusCode = (typeof TRACKING_STATUSES)[number];

export interface TrackingEvent {
  /** Stable per event (the provider's id, or status + time), so replays are recognised. */
  readonly eventId: string;
  readonly status: TrackingStatusCode;
  readonly description: string;
  readonly location: string;
  readonly occurredAt: Date;
}

export interface TrackingInfo {
  readonly status: TrackingStatusCode;
  /** Oldest first. */
  readonly events: readonly TrackingEvent[];
}

export interface ShippingProvider {
  readonly kind: ShippingIntegration;
  /** Checks the credentials with one cheap call; throws ShippingAuthError when they are refused. */
  verifyCredentials(credentials: ShippingCredentials): Promise<void>;
  getRates(credentials: ShippingCredentials, request: ShipmentRequest): Promise<ProviderRate[]>;
  /** Buys the label for a rate got from getRates for the same request. */
  purchaseLabel(credentials: ShippingCredentials, request: ShipmentRequest, rate: ProviderRate): Promise<PurchasedLabel>;
  /** The label bought with this idempotency key, if the provider has one (after a timeout mid-purchase). */
  findLabel(credentials: ShippingCredentials, request: ShipmentRequest): Promise<PurchasedLabel | null>;
  /** Downloads a label's PDF from the URL the provider gave. */
  downloadLabel(credentials: ShippingCredentials, url: string): Promise<Buffer>;
  /** Voids a label; `refunded` is false when the provider refused (already scanned, too old). */
  voidLabel(credentials: ShippingCredentials, providerLabelId: string): Promise<{ refunded: boolean; message: string }>;
  track(credentials: ShippingCredentials, carrierCode: string, trackingNumber: string): Promise<TrackingInfo>;
}

/** The provider refused the credentials (401/403): nothing is stored, the seller must fix them. */
export class ShippingAuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShippingAuthError';
  }
}

/** The carrier rejected the address: the order goes on hold with the provider's words. */
export class ShippingAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShippingAddressError';
  }
}

/** The request cannot be served as asked (no rates for this parcel, a rate that expired). */
export class ShippingRejectedError extends Error {
  readonly status: number;
  constructor(message: string, status = 422) {
    super(message);
    this.name = 'ShippingRejectedError';
    this.status = status;
  }
}

/** The provider did not answer, or answered 429/5xx: try again later (after a lookup, for purchases). */
export class ShippingUnavailableError extends Error {
  readonly retryAfterSeconds: number | null;
  constructor(message: string, retryAfterSeconds: number | null = null) {
    super(message);
    this.name = 'ShippingUnavailableError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** ShipStation's classic (v1) calls beyond rates and labels: its own orders (the spec's call names). */
export interface ShipStationOrderCalls {
  /** POST /orders/createlabelfororder: a label for an order that lives in ShipStation. */
  createLabelForOrder(
    credentials: ShippingCredentials,
    input: { shipStationOrderId: number; carrierCode: string; serviceCode: string; packageCode: string; weightGrams: number; testLabel: boolean },
  ): Promise<PurchasedLabel>;
  /** POST /orders/markasshipped: ShipStation (and its sales channel) learns the tracking. */
  markOrderShipped(
    credentials: ShippingCredentials,
    input: { shipStationOrderId: number; carrierCode: string; trackingNumber: string; shipDate: string; notifyCustomer: boolean; notifySalesChannel: boolean },
  ): Promise<{ orderId: number; orderNumber: string }>;
  /**
   * A ShipStation webhook names a resource to fetch (`resource_url`); only URLs on ShipStation's own
   * API host are fetched, with the seller's credentials. Answers the shipments' tracking found there.
   */
  fetchWebhookResource(credentials: ShippingCredentials, resourceUrl: string): Promise<{ trackingNumber: string; carrierCode: string; voided: boolean }[]>;
}

/** An order in the seller's Shippo account. */
export interface ShippoAccountOrder {
  readonly objectId: string;
  readonly orderNumber: string;
  readonly status: string;
  readonly placedAt: string | null;
  readonly toName: string;
  readonly toCountry: string;
  readonly itemCount: number;
}

/** Shippo's OAuth and account calls (the spec's exchangeShippoToken, fetchShippoOrders). */
export interface ShippoAccountCalls {
  /** Where the seller approves access; `state` comes back on /shippo-oauth-redirect. */
  authorizeUrl(state: string): string;
  /** Exchanges the code for the seller's access token. */
  exchangeCode(code: string): Promise<{ accessToken: string }>;
  listOrders(credentials: ShippingCredentials): Promise<ShippoAccountOrder[]>;
  /**
   * A `track_updated` webhook body, read (not trusted): the carrier and tracking number it names.
   * The caller then asks Shippo itself (track) for the truth, so a forged body changes nothing.
   */
  parseTrackWebhook(body: unknown): { carrierCode: string; trackingNumber: string } | null;
}
