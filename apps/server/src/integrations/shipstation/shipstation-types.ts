import type {
  ShippingCredentials,
  ShippingProvider,
  ShipStationOrderCalls,
} from '../../modules/shipping/shipping-provider.ts';

/*
 * What the ShipStation provider (shipstation-provider.ts) and its two API versions (shipstation-v1.ts,
 * shipstation-v2.ts) share: each version's credentials and the calls it implements. In a file of their
 * own so that the provider imports the versions and the versions import only these types.
 */

export type ShipStationV1Credentials = Extract<
  ShippingCredentials,
  { provider: 'shipstation'; apiVersion: 'v1' }
>;
export type ShipStationV2Credentials = Extract<
  ShippingCredentials,
  { provider: 'shipstation'; apiVersion: 'v2' }
>;

/** The port's calls, taking one API version's credentials. */
type WithCredentials<Calls, Credentials> = {
  [Name in keyof Calls]: Calls[Name] extends (
    credentials: ShippingCredentials,
    ...rest: infer Rest
  ) => infer Result
    ? (credentials: Credentials, ...rest: Rest) => Result
    : never;
};

export type ShipStationV1Client = WithCredentials<
  Omit<ShippingProvider, 'kind'> & ShipStationOrderCalls,
  ShipStationV1Credentials
>;
export type ShipStationV2Client = WithCredentials<Omit<ShippingProvider, 'kind'>, ShipStationV2Credentials>;
