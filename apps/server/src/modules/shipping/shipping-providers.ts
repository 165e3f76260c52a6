import type { ShippingIntegration } from '@layerline/contracts';
import { AppError } from '../../errors.ts';
import {
  ShippingAddressError,
  ShippingAuthError,
  ShippingRejectedError,
  ShippingUnavailableError,
  type ShipStationOrderCalls,
  type ShippingProvider,
  type ShippoAccountCalls,
} from './shipping-provider.ts';

/** The providers this server has: the sandbox carrier only where it is enabled, Shippo's OAuth only with its app keys. */
export interface ShippingProviders {
  readonly sandbox: ShippingProvider | null;
  readonly shipstation: ShippingProvider & ShipStationOrderCalls;
  readonly shippo: ShippingProvider & ShippoAccountCalls;
  /** Whether Shippo's OAuth app credentials are configured (SHIPPO_CLIENT_ID/SECRET). */
  readonly shippoOAuth: boolean;
}

export function providerOf(providers: ShippingProviders, kind: ShippingIntegration): ShippingProvider {
  const provider = kind === 'sandbox' ? providers.sandbox : providers[kind];
  if (!provider) throw new AppError('conflict', 'The sandbox carrier is turned off on this server (SHIPPING_SANDBOX); connect ShipStation or Shippo');
  return provider;
}

const NAMES: Record<ShippingIntegration, string> = { sandbox: 'The sandbox carrier', shipstation: 'ShipStation', shippo: 'Shippo' };

/** A provider's failure in words for the person who asked, with the status that fits. */
export function providerError(kind: ShippingIntegration, error: unknown): unknown {
  const name = NAMES[kind];
  if (error instanceof ShippingAuthError) return new AppError('bad-request', `${name} refused the seller's credentials: ${error.message}`, { cause: error });
  if (error instanceof ShippingAddressError) return new AppError('unprocessable', `${name} rejected the address: ${error.message}`, { cause: error });
  if (error instanceof ShippingRejectedError) return new AppError('unprocessable', `${name}: ${error.message}`, { cause: error });
  if (error instanceof ShippingUnavailableError)
    return new AppError('unavailable', `${name} is not answering; try again shortly`, { retryAfterSeconds: error.retryAfterSeconds ?? 30, cause: error });
  return error;
}
