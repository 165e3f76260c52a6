import {
  ShippingRejectedError,
  type ShippingCredentials,
  type ShippingProvider,
  type ShipStationOrderCalls,
} from '../../modules/shipping/shipping-provider.ts';
import type { ShipStationHttpTuning } from './shipstation-http.ts';
import type { ShipStationV1Credentials, ShipStationV2Credentials } from './shipstation-types.ts';
import { createShipStationV1 } from './shipstation-v1.ts';
import { createShipStationV2 } from './shipstation-v2.ts';

/**
 * The ShipStation shipping provider: one object for both of ShipStation's APIs, choosing by the
 * seller's keys (`apiVersion`): the classic API (v1, key + secret) in shipstation-v1.ts, API v2 (one
 * key) in shipstation-v2.ts. ShipStation's own orders exist only in the classic API.
 */

export interface ShipStationProviderOptions {
  /** Injectable for tests; every request goes through the shared http client with it. */
  readonly fetch?: typeof fetch;
  /** The classic API's origin (SHIPSTATION_V1_URL), default https://ssapi.shipstation.com. */
  readonly v1BaseUrl?: string;
  /** API v2's origin (SHIPSTATION_V2_URL), default https://api.shipstation.com. */
  readonly v2BaseUrl?: string;
  /** The clock for ship dates and label lookups (v1). */
  readonly now?: () => Date;
  /** Timeouts, retries and backoff of the shared http client. */
  readonly http?: ShipStationHttpTuning;
}

export type ShipStationProvider = ShippingProvider & ShipStationOrderCalls & { readonly kind: 'shipstation' };

const keysOf = (credentials: ShippingCredentials): ShipStationV1Credentials | ShipStationV2Credentials => {
  if (credentials.provider !== 'shipstation')
    throw new ShippingRejectedError('These are not ShipStation keys', 400);
  return credentials;
};

/** The classic API's keys, or a refusal for v2 keys (v2 has no ShipStation orders). */
const classicKeysOf = (credentials: ShippingCredentials): ShipStationV1Credentials => {
  const keys = keysOf(credentials);
  if (keys.apiVersion !== 'v1')
    throw new ShippingRejectedError('ShipStation v2 has no orders; use the classic API keys', 400);
  return keys;
};

export const createShipStationProvider = (options: ShipStationProviderOptions = {}): ShipStationProvider => {
  const v1 = createShipStationV1({
    fetch: options.fetch,
    baseUrl: options.v1BaseUrl,
    now: options.now,
    http: options.http,
  });
  const v2 = createShipStationV2({ fetch: options.fetch, baseUrl: options.v2BaseUrl, http: options.http });

  // Async methods, so a refusal of the keys is a rejected promise like any other failure.
  return {
    kind: 'shipstation',
    async verifyCredentials(credentials) {
      const keys = keysOf(credentials);
      return keys.apiVersion === 'v1' ? v1.verifyCredentials(keys) : v2.verifyCredentials(keys);
    },
    async getRates(credentials, request) {
      const keys = keysOf(credentials);
      return keys.apiVersion === 'v1' ? v1.getRates(keys, request) : v2.getRates(keys, request);
    },
    async purchaseLabel(credentials, request, rate) {
      const keys = keysOf(credentials);
      return keys.apiVersion === 'v1'
        ? v1.purchaseLabel(keys, request, rate)
        : v2.purchaseLabel(keys, request, rate);
    },
    async findLabel(credentials, request) {
      const keys = keysOf(credentials);
      return keys.apiVersion === 'v1' ? v1.findLabel(keys, request) : v2.findLabel(keys, request);
    },
    async downloadLabel(credentials, url) {
      const keys = keysOf(credentials);
      return keys.apiVersion === 'v1' ? v1.downloadLabel(keys, url) : v2.downloadLabel(keys, url);
    },
    async voidLabel(credentials, providerLabelId) {
      const keys = keysOf(credentials);
      return keys.apiVersion === 'v1'
        ? v1.voidLabel(keys, providerLabelId)
        : v2.voidLabel(keys, providerLabelId);
    },
    async track(credentials, carrierCode, trackingNumber) {
      const keys = keysOf(credentials);
      return keys.apiVersion === 'v1'
        ? v1.track(keys, carrierCode, trackingNumber)
        : v2.track(keys, carrierCode, trackingNumber);
    },
    async createLabelForOrder(credentials, input) {
      return v1.createLabelForOrder(classicKeysOf(credentials), input);
    },
    async markOrderShipped(credentials, input) {
      return v1.markOrderShipped(classicKeysOf(credentials), input);
    },
    async fetchWebhookResource(credentials, resourceUrl) {
      return v1.fetchWebhookResource(classicKeysOf(credentials), resourceUrl);
    },
  };
};
