import { createHmac, timingSafeEqual } from 'node:crypto';
import { MarketplaceRejectedError } from '../../modules/shops/connector.ts';

/** A store's permanent domain: one DNS label in front of .myshopify.com. */
export const SHOPIFY_SHOP_HOST = /^[a-zA-Z0-9][a-zA-Z0-9-]*\.myshopify\.com$/;

export const isShopifyShopHost = (value: unknown): value is string =>
  typeof value === 'string' && SHOPIFY_SHOP_HOST.test(value);

export const SHOPIFY_CALLBACK_FAILURES = [
  'missing-hmac',
  'bad-hmac',
  'bad-shop',
  'shop-mismatch',
  'missing-code',
  'denied',
] as const;
export type ShopifyCallbackFailure = (typeof SHOPIFY_CALLBACK_FAILURES)[number];

/**
 * The OAuth callback failed a check (OAUTH-1). Thrown before any token request; a
 * MarketplaceRejectedError (400) so the shops module handles it like any refused marketplace call.
 */
export class ShopifyCallbackError extends MarketplaceRejectedError {
  readonly reason: ShopifyCallbackFailure;
  constructor(reason: ShopifyCallbackFailure, message: string) {
    super(message, 400);
    this.name = 'ShopifyCallbackError';
    this.reason = reason;
  }
}

/** Constant-time comparison of two strings; false (never an exception) when lengths differ. */
const safeEqual = (a: string, b: string): boolean => {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
};

/**
 * Shopify signs redirects with hex HMAC-SHA256 (app secret) over the query without `hmac`
 * (and the legacy `signature`), parameters sorted by name, joined as `k=v&k=v` (decoded values).
 */
export const shopifyQueryMessage = (query: Readonly<Record<string, string>>): string =>
  Object.keys(query)
    .filter((key) => key !== 'hmac' && key !== 'signature')
    .sort()
    .map((key) => `${key}=${query[key]}`)
    .join('&');

export const verifyShopifyQueryHmac = (query: Readonly<Record<string, string>>, secret: string): boolean => {
  const hmac = query.hmac;
  if (typeof hmac !== 'string' || hmac === '') return false;
  const expected = createHmac('sha256', secret).update(shopifyQueryMessage(query)).digest('hex');
  return safeEqual(expected, hmac.toLowerCase());
};

/**
 * All checks on the OAuth callback, in order: hmac present and valid, `shop` a myshopify.com host,
 * the same shop the seller started with, a code present. Returns the (lower-cased) shop host.
 */
export const checkShopifyCallback = (
  query: Readonly<Record<string, string>>,
  secret: string,
  startedShopHost: string | undefined,
): { shop: string; code: string } => {
  if (!query.hmac) throw new ShopifyCallbackError('missing-hmac', 'The Shopify callback is not signed');
  if (!verifyShopifyQueryHmac(query, secret))
    throw new ShopifyCallbackError('bad-hmac', 'The Shopify callback signature is not valid');
  const shop = query.shop;
  if (!isShopifyShopHost(shop))
    throw new ShopifyCallbackError(
      'bad-shop',
      'The Shopify callback names a shop that is not a myshopify.com store',
    );
  if (!startedShopHost || shop.toLowerCase() !== startedShopHost.toLowerCase()) {
    throw new ShopifyCallbackError(
      'shop-mismatch',
      'The Shopify callback is for a different store than the one being connected',
    );
  }
  if (query.error) throw new ShopifyCallbackError('denied', `Shopify did not grant access (${query.error})`);
  if (!query.code)
    throw new ShopifyCallbackError('missing-code', 'The Shopify callback has no authorization code');
  return { shop: shop.toLowerCase(), code: query.code };
};

/**
 * Webhook deliveries (WH-3): `X-Shopify-Hmac-Sha256` is the base64 HMAC-SHA256 of the raw body
 * with the app's client secret. Compared in constant time; a missing header or one of another
 * length is simply false.
 */
export const verifyShopifyWebhook = (
  rawBody: Buffer,
  hmacHeader: string | undefined,
  secret: string,
): boolean => {
  if (typeof hmacHeader !== 'string' || hmacHeader.trim() === '' || secret === '') return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest('base64');
  return safeEqual(expected, hmacHeader.trim());
};
