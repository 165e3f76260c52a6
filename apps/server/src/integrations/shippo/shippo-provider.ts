import { z } from 'zod';
import {
  ShippingAddressError,
  ShippingRejectedError,
  ShippingUnavailableError,
  type ProviderRate,
  type PurchasedLabel,
  type ShipmentRequest,
  type ShippingCredentials,
  type ShippingProvider,
  type ShippoAccountCalls,
} from '../../modules/shipping/shipping-provider.ts';
import { createHttpClient, type HttpClientOptions } from '../http-client/http-client.ts';
import { createShippoApi } from './shippo-api.ts';
import { describesAddressFault, messagesText } from './shippo-errors.ts';
import { downloadShippoLabel } from './shippo-label-download.ts';
import {
  coreRateToProviderRate,
  shipmentBody,
  shippoCarrierAccounts,
  shippoOrderPage,
  shippoRefund,
  shippoShipment,
  shippoTrack,
  shippoTransaction,
  shippoTransactionPage,
  toAccountOrders,
  toProviderRate,
  toTrackingInfo,
  type ShippoShipment,
  type ShippoTransaction,
} from './shippo-mapping.ts';
import { createShippoOAuth } from './shippo-oauth.ts';
import { parseTrackWebhook } from './shippo-webhook.ts';

/**
 * Shippo as a shipping provider (contract: /work/shared/contracts/shippo/public-api.yaml;
 * docs/shipping.md). Labels are bought on the seller's own Shippo account through the OAuth token
 * they granted us. Shippo has no idempotency keys: the key goes in `metadata`, and after a purchase
 * that timed out `findLabel` looks for a transaction carrying it before anything is bought again.
 */

export interface ShippoProviderOptions {
  readonly fetch?: typeof fetch;
  /** Default https://api.goshippo.com. */
  readonly baseUrl?: string;
  /** The partner OAuth app's id and secret; without them authorizeUrl/exchangeCode refuse (503). */
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** Default https://goshippo.com (OAuth authorize and token endpoints). */
  readonly authorizeBaseUrl?: string;
  /** Retry/timeout tuning and test hooks for the shared http client (`sleep` also paces polling). */
  readonly http?: Pick<
    HttpClientOptions,
    'timeoutMs' | 'maxAttempts' | 'baseDelayMs' | 'maxDelayMs' | 'maxRetryAfterSeconds' | 'sleep' | 'random'
  >;
}

export type ShippoProvider = ShippingProvider & ShippoAccountCalls & { readonly kind: 'shippo' };

const PAGE_SIZE = 100;
/** A label just bought is among the newest transactions; three pages is plenty to find it. */
const FIND_LABEL_PAGES = 3;
const ORDER_PAGES = 5;
/** `async: false` can still answer QUEUED/WAITING when a carrier is slow: look again a few times. */
const PURCHASE_POLLS = 5;
const PURCHASE_POLL_MS = 1_000;
/** Shippo stores up to 100 characters of metadata; a longer key could never be found again. */
const MAX_METADATA_LENGTH = 100;
const DEFAULT_TIMEOUT_MS = 20_000;

const PENDING = new Set(['QUEUED', 'WAITING']);
const REFUND_ACCEPTED = new Set(['QUEUED', 'PENDING', 'SUCCESS']);

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const checkParcel = (request: ShipmentRequest): void => {
  const { lengthMm, widthMm, heightMm, weightGrams } = request.parcel;
  if (![lengthMm, widthMm, heightMm, weightGrams].every((value) => Number.isFinite(value) && value > 0))
    throw new ShippingRejectedError('The parcel needs positive dimensions and weight', 400);
};

const checkKey = (request: ShipmentRequest): void => {
  if (!request.idempotencyKey || request.idempotencyKey.length > MAX_METADATA_LENGTH)
    throw new ShippingRejectedError(`The idempotency key must be 1-${MAX_METADATA_LENGTH} characters`, 400);
};

/** No rates came back: the shipment's messages (and address checks) say why. */
const noRatesError = (shipment: ShippoShipment): Error => {
  if (shipment.status === 'QUEUED')
    return new ShippingUnavailableError('Shippo is still collecting rates; try again shortly', 5);
  const addressNotes = [shipment.address_to, shipment.address_from]
    .filter((address) => address?.validation_results?.is_valid === false)
    .flatMap((address) => address?.validation_results?.messages ?? []);
  const notes = messagesText(shipment.messages);
  const addressText = messagesText(addressNotes);
  if (addressText) return new ShippingAddressError(addressText);
  if (describesAddressFault(notes)) return new ShippingAddressError(notes);
  return new ShippingRejectedError(
    `Shippo returned no rates${notes ? `: ${notes}` : ' for this parcel'}`,
    422,
  );
};

/** A transaction that ended in ERROR: its messages, as the seller's address problem or a refusal. */
const failedPurchaseError = (transaction: ShippoTransaction): Error => {
  const notes = messagesText(transaction.messages);
  if (describesAddressFault(notes)) return new ShippingAddressError(notes);
  return new ShippingRejectedError(`Shippo could not buy the label${notes ? `: ${notes}` : ''}`, 422);
};

const toLabel = (transaction: ShippoTransaction, rate: ProviderRate): PurchasedLabel => {
  if (!transaction.tracking_number || !transaction.label_url)
    throw new ShippingRejectedError(
      'Shippo reported the label bought but gave no tracking number or label',
      502,
    );
  return {
    providerLabelId: transaction.object_id,
    trackingNumber: transaction.tracking_number,
    trackingUrl: transaction.tracking_url_provider ?? '',
    carrier: rate.carrier,
    carrierCode: rate.carrierCode,
    service: rate.service,
    costCents: rate.amountCents,
    currency: rate.currency,
    label: { url: transaction.label_url },
  };
};

export const createShippoProvider = (options: ShippoProviderOptions = {}): ShippoProvider => {
  const baseUrl = (options.baseUrl ?? 'https://api.goshippo.com').replace(/\/+$/, '');
  const authorizeBaseUrl = (options.authorizeBaseUrl ?? 'https://goshippo.com').replace(/\/+$/, '');
  const doFetch = options.fetch ?? globalThis.fetch;
  const sleep = options.http?.sleep ?? defaultSleep;
  const http = createHttpClient({
    vendor: 'Shippo',
    allowedOrigins: [...new Set([new URL(baseUrl).origin, new URL(authorizeBaseUrl).origin])],
    fetch: doFetch,
    ...options.http,
  });
  const api = createShippoApi(http, baseUrl);
  const oauth = createShippoOAuth({
    http,
    authorizeBaseUrl,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
  });

  const verifyCredentials = async (credentials: ShippingCredentials): Promise<void> => {
    await api.call(credentials, shippoCarrierAccounts, {
      operation: 'listCarrierAccounts',
      method: 'GET',
      path: '/carrier_accounts',
      query: { results: 1 },
    });
  };

  const getRates = async (
    credentials: ShippingCredentials,
    request: ShipmentRequest,
  ): Promise<ProviderRate[]> => {
    checkParcel(request);
    checkKey(request);
    const shipment = await api.call(credentials, shippoShipment, {
      operation: 'createShipment',
      method: 'POST',
      path: '/shipments',
      json: shipmentBody(request),
      addressFaults: true,
    });
    const rates = (shipment.rates ?? [])
      .map(toProviderRate)
      .filter((rate): rate is ProviderRate => rate !== null);
    if (rates.length === 0) throw noRatesError(shipment);
    return rates;
  };

  const getTransaction = (credentials: ShippingCredentials, id: string) =>
    api.call(credentials, shippoTransaction, {
      operation: 'getTransaction',
      method: 'GET',
      path: `/transactions/${encodeURIComponent(id)}`,
    });

  const purchaseLabel = async (
    credentials: ShippingCredentials,
    request: ShipmentRequest,
    rate: ProviderRate,
  ): Promise<PurchasedLabel> => {
    checkKey(request);
    let transaction = await api.call(credentials, shippoTransaction, {
      operation: 'createTransaction',
      method: 'POST',
      path: '/transactions',
      json: { rate: rate.rateId, label_file_type: 'PDF', async: false, metadata: request.idempotencyKey },
      // Never repeated blindly: a timeout may hide a label already bought (findLabel decides).
      maxAttempts: 1,
      addressFaults: true,
    });
    for (let poll = 0; PENDING.has(transaction.status ?? '') && poll < PURCHASE_POLLS; poll += 1) {
      await sleep(PURCHASE_POLL_MS);
      transaction = await getTransaction(credentials, transaction.object_id);
    }
    if (transaction.status === 'SUCCESS') return toLabel(transaction, rate);
    if (transaction.status === 'ERROR') throw failedPurchaseError(transaction);
    if (PENDING.has(transaction.status ?? ''))
      throw new ShippingUnavailableError('Shippo is still creating the label; look it up again shortly', 30);
    throw new ShippingRejectedError(
      `Shippo answered the purchase with status ${transaction.status ?? 'none'}`,
      502,
    );
  };

  /** The rate a listed transaction was bought at: inline, or fetched by its id. */
  const rateOf = async (
    credentials: ShippingCredentials,
    transaction: ShippoTransaction,
  ): Promise<ProviderRate> => {
    const rate =
      typeof transaction.rate === 'string'
        ? toProviderRate(
            await api.call(credentials, z.unknown(), {
              operation: 'getRate',
              method: 'GET',
              path: `/rates/${encodeURIComponent(transaction.rate)}`,
            }),
          )
        : transaction.rate
          ? coreRateToProviderRate(transaction.rate)
          : null;
    if (!rate) throw new ShippingRejectedError('Shippo gave no usable rate for the label it found', 502);
    return rate;
  };

  const findLabel = async (
    credentials: ShippingCredentials,
    request: ShipmentRequest,
  ): Promise<PurchasedLabel | null> => {
    checkKey(request);
    let pending = false;
    for (let page = 1; page <= FIND_LABEL_PAGES; page += 1) {
      const list = await api.call(credentials, shippoTransactionPage, {
        operation: 'listTransactions',
        method: 'GET',
        path: '/transactions',
        query: { results: PAGE_SIZE, page },
      });
      const ours = list.results.filter((transaction) => transaction.metadata === request.idempotencyKey);
      const bought = ours.find((transaction) => transaction.status === 'SUCCESS');
      if (bought) return toLabel(bought, await rateOf(credentials, bought));
      pending ||= ours.some((transaction) => PENDING.has(transaction.status ?? ''));
      if (list.results.length < PAGE_SIZE || !list.next) break;
    }
    // Still being bought: saying "none" now would let the caller buy a second label.
    if (pending)
      throw new ShippingUnavailableError('Shippo is still creating this label; look it up again shortly', 30);
    return null;
  };

  const downloadLabel = (_credentials: ShippingCredentials, url: string): Promise<Buffer> =>
    downloadShippoLabel(doFetch, url, options.http?.timeoutMs ?? DEFAULT_TIMEOUT_MS);

  const voidLabel = async (
    credentials: ShippingCredentials,
    providerLabelId: string,
  ): Promise<{ refunded: boolean; message: string }> => {
    let refund: z.infer<typeof shippoRefund>;
    try {
      refund = await api.call(credentials, shippoRefund, {
        operation: 'createRefund',
        method: 'POST',
        path: '/refunds',
        json: { transaction: providerLabelId, async: false },
      });
    } catch (error) {
      // Shippo refuses a refund it will not grant (already used, too old, already refunded) with a 4xx.
      if (error instanceof ShippingRejectedError && error.status < 500)
        return { refunded: false, message: error.message };
      throw error;
    }
    const status = refund.status ?? '';
    if (REFUND_ACCEPTED.has(status))
      return {
        refunded: true,
        message: status === 'SUCCESS' ? 'Refunded by Shippo' : `Refund requested (${status})`,
      };
    return { refunded: false, message: `Shippo did not refund the label (${status || 'no status'})` };
  };

  const track: ShippingProvider['track'] = async (credentials, carrierCode, trackingNumber) => {
    if (!carrierCode.trim() || !trackingNumber.trim())
      throw new ShippingRejectedError('A carrier and a tracking number are required', 400);
    const result = await api.call(credentials, shippoTrack, {
      operation: 'getTrack',
      method: 'GET',
      path: `/tracks/${encodeURIComponent(carrierCode.trim())}/${encodeURIComponent(trackingNumber.trim())}`,
    });
    return toTrackingInfo(result);
  };

  const listOrders: ShippoAccountCalls['listOrders'] = async (credentials) => {
    const orders = [];
    for (let page = 1; page <= ORDER_PAGES; page += 1) {
      const list = await api.call(credentials, shippoOrderPage, {
        operation: 'listOrders',
        method: 'GET',
        path: '/orders',
        query: { results: PAGE_SIZE, page },
      });
      orders.push(...toAccountOrders(list));
      if (list.results.length < PAGE_SIZE || !list.next) break;
    }
    return orders;
  };

  return {
    kind: 'shippo',
    verifyCredentials,
    getRates,
    purchaseLabel,
    findLabel,
    downloadLabel,
    voidLabel,
    track,
    authorizeUrl: oauth.authorizeUrl,
    exchangeCode: oauth.exchangeCode,
    listOrders,
    parseTrackWebhook,
  };
};
