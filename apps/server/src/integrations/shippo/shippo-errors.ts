import {
  ShippingAddressError,
  ShippingAuthError,
  ShippingRejectedError,
  ShippingUnavailableError,
} from '../../modules/shipping/shipping-provider.ts';
import { MarketplaceRejectedError, MarketplaceUnavailableError } from '../../modules/shops/connector.ts';
import { OutboundHostNotAllowedError } from '../http-client/http-client.ts';

/**
 * Shippo's refusals in the shipping module's terms. Shippo answers errors as JSON: `{ detail }`,
 * field errors (`{ "address_to": { "zip": ["…"] } }`, `{ "rate": ["…"] }`), or OAuth's
 * `{ error, error_description }`; a shipment or transaction that failed carries `messages[]`.
 */

const MAX_TEXT = 300;

const clip = (text: string): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_TEXT ? `${flat.slice(0, MAX_TEXT)}…` : flat;
};

/** "path: message" for every leaf of a field-error body. */
const fieldErrors = (value: unknown, path: string): string[] => {
  if (typeof value === 'string') return [path ? `${path}: ${value}` : value];
  if (Array.isArray(value)) return value.flatMap((item) => fieldErrors(item, path));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => fieldErrors(item, path ? `${path}.${key}` : key));
  return [];
};

interface ShippoMessage {
  readonly text?: string | null;
}

/** Shippo's `messages[]` as one line ("UPS API did not respond…; …"). */
export const messagesText = (messages: readonly ShippoMessage[] | null | undefined): string =>
  clip(
    (messages ?? [])
      .map((message) => message.text?.trim() ?? '')
      .filter(Boolean)
      .join('; '),
  );

/** The words of an error body, short enough for a message or a log line. */
export const shippoErrorText = (body: unknown): string => {
  if (body === null || body === undefined) return '';
  if (typeof body === 'string') return clip(body);
  if (typeof body !== 'object') return clip(String(body));
  const record = body as Record<string, unknown>;
  for (const key of ['detail', 'error_description', 'error', 'message']) {
    if (typeof record[key] === 'string') return clip(record[key]);
  }
  if (Array.isArray(record.messages)) return messagesText(record.messages as ShippoMessage[]);
  return clip(fieldErrors(body, '').join('; '));
};

const ADDRESS_WORDS = /\b(address|street|zip|zip ?code|postal ?code|postcode|city|state|province)\b/i;
const FAULT_WORDS =
  /\b(invalid|not found|could not be (found|verified|validated)|unknown|missing|not valid|incorrect|undeliverable|does not exist|required)\b/i;

/** Carriers word address faults in prose ("The address as submitted could not be found…"). */
export const describesAddressFault = (text: string): boolean =>
  ADDRESS_WORDS.test(text) && FAULT_WORDS.test(text);

/** A field-error body naming one of the shipment's addresses (`address_to`, `address_from`, …). */
const namesAnAddressField = (body: unknown): boolean =>
  body !== null &&
  typeof body === 'object' &&
  !Array.isArray(body) &&
  Object.keys(body).some((key) => key.startsWith('address_'));

/**
 * The error for a 4xx Shippo answered (408 and 429 never get here: they are retried as unavailable).
 * `addressFaults`: the call carries addresses, so a refusal about them is the seller's to fix.
 */
export const refusalError = (
  status: number,
  body: unknown,
  operation: string,
  addressFaults: boolean,
): Error => {
  const text = shippoErrorText(body);
  if (status === 401 || status === 403)
    return new ShippingAuthError(
      `Shippo refused the connection (${status})${text ? `: ${text}` : ''}; reconnect Shippo`,
    );
  if (addressFaults && (namesAnAddressField(body) || describesAddressFault(text)))
    return new ShippingAddressError(text || 'Shippo rejected the address');
  return new ShippingRejectedError(
    `Shippo ${operation} refused (${status})${text ? `: ${text}` : ''}`,
    status,
  );
};

/** What the shared http client threw (after its retries), as a shipping error. */
export const transportError = (error: unknown): unknown => {
  if (error instanceof MarketplaceUnavailableError)
    return new ShippingUnavailableError(error.message, error.retryAfterSeconds);
  // A 3xx (never followed) or a host off the allowlist: Shippo did not answer as documented.
  if (error instanceof MarketplaceRejectedError || error instanceof OutboundHostNotAllowedError)
    return new ShippingRejectedError(error.message, 502);
  return error;
};

/** Every 4xx except the retryable 408 and 429, so their bodies reach refusalError. */
export const REFUSAL_STATUSES: readonly number[] = Array.from({ length: 100 }, (_, i) => 400 + i).filter(
  (status) => status !== 408 && status !== 429,
);
