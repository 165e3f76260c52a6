import type { z } from 'zod';
import {
  ShippingAuthError,
  ShippingRejectedError,
  type ShippingCredentials,
} from '../../modules/shipping/shipping-provider.ts';
import type { HttpClient, HttpMethod } from '../http-client/http-client.ts';
import { REFUSAL_STATUSES, refusalError, transportError } from './shippo-errors.ts';

/**
 * One authenticated call to the Shippo API on the seller's behalf, through the shared http client
 * (allowlist, timeouts, retries of 408/429/5xx/network). Every other status is translated here into
 * the shipping port's errors, so callers only handle successes.
 */

/** The version the contract describes; pinned so answers keep the shape we parse. */
export const SHIPPO_API_VERSION = '2018-02-08';

export interface ShippoCall {
  /** A short name for messages ("createShipment"); never the URL. */
  readonly operation: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number>>;
  readonly json?: unknown;
  /** 1 for calls that must not be repeated blindly (buying a label). */
  readonly maxAttempts?: number;
  /** The call carries addresses: a refusal about them is a ShippingAddressError. */
  readonly addressFaults?: boolean;
}

export interface ShippoApi {
  call<T>(credentials: ShippingCredentials, schema: z.ZodType<T>, call: ShippoCall): Promise<T>;
}

/**
 * The seller's OAuth access token. The spec's only security scheme is an `Authorization` header;
 * Shippo's OAuth guide says OAuth tokens go as `Bearer <token>` (API tokens as `ShippoToken <token>`).
 */
const accessTokenOf = (credentials: ShippingCredentials): string => {
  if (credentials.provider !== 'shippo') throw new ShippingAuthError('These are not Shippo credentials');
  if (!credentials.accessToken.trim())
    throw new ShippingAuthError('The Shippo connection has no access token; reconnect Shippo');
  return credentials.accessToken;
};

export const createShippoApi = (http: HttpClient, baseUrl: string): ShippoApi => ({
  call: async (credentials, schema, call) => {
    const token = accessTokenOf(credentials);
    const url = new URL(`${baseUrl}${call.path}`);
    for (const [key, value] of Object.entries(call.query ?? {})) url.searchParams.set(key, String(value));
    const response = await http
      .request({
        method: call.method,
        url,
        operation: call.operation,
        headers: { authorization: `Bearer ${token}`, 'shippo-api-version': SHIPPO_API_VERSION },
        json: call.json,
        maxAttempts: call.maxAttempts,
        acceptStatuses: REFUSAL_STATUSES,
      })
      .catch((error: unknown) => {
        throw transportError(error);
      });
    if (response.status >= 400)
      throw refusalError(response.status, response.body, call.operation, call.addressFaults ?? false);
    const parsed = schema.safeParse(response.body);
    if (!parsed.success)
      throw new ShippingRejectedError(`Shippo ${call.operation} returned an unexpected response`, 502);
    return parsed.data;
  },
});
