import { createHmac, timingSafeEqual } from 'node:crypto';
import { MalformedOrderError } from '../../modules/shops/connector.ts';
import type { WebhookReceiver } from '../../modules/shops/webhook-intake-service.ts';

/**
 * Walmart's side of the webhook intake. Walmart signs nothing we can check without sharing a
 * secret with it, but a subscription may carry custom headers that Walmart repeats on every
 * delivery (createSubscription, `events[].headers`). We subscribe with the shop's id and a
 * per-shop token derived from our secret, so nothing is stored and a token for one shop is useless
 * for another. PO_CREATED names the purchase order (its payload has no shipping address), so the
 * intake fetches the order through the connector.
 */

export const WALMART_WEBHOOK_SHOP_HEADER = 'x-layerline-shop';
export const WALMART_WEBHOOK_TOKEN_HEADER = 'x-layerline-webhook-token';
const ORDER_EVENTS = new Set(['PO_CREATED']);

/** The token Walmart sends back for a shop: base64url(HMAC-SHA256(appSecret, 'walmart-webhook:' + shop)). */
export const walmartWebhookSecret = (appSecret: string, externalShopId: string): string =>
  createHmac('sha256', appSecret).update(`walmart-webhook:${externalShopId}`).digest('base64url');

const safeEqual = (a: string, b: string): boolean => {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
};

const asRecord = (value: unknown): Record<string, unknown> | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() ? value.trim() : undefined;

/** `{source: {eventType, eventId, eventTime}, payload: {…}}` (Walmart's event envelope), or null. */
const envelopeOf = (rawBody: Buffer): { source: Record<string, unknown>; payload: unknown } | null => {
  try {
    const body = asRecord(JSON.parse(rawBody.toString('utf8')));
    const source = asRecord(body?.source);
    return source ? { source, payload: body?.payload } : null;
  } catch {
    return null;
  }
};

export function createWalmartWebhookReceiver(appSecret: string): WebhookReceiver {
  return {
    read: (headers, rawBody) => {
      const envelope = envelopeOf(rawBody);
      return {
        signature: headers[WALMART_WEBHOOK_TOKEN_HEADER],
        shopId: headers[WALMART_WEBHOOK_SHOP_HEADER],
        topic: text(envelope?.source.eventType),
        deliveryId: text(envelope?.source.eventId),
      };
    },
    verify: (_rawBody, signature, externalShopId) =>
      typeof signature === 'string' &&
      externalShopId.length > 0 &&
      safeEqual(signature.trim(), walmartWebhookSecret(appSecret, externalShopId)),
    classify: (topic) => (ORDER_EVENTS.has(topic.trim().toUpperCase()) ? 'order-ref' : 'ignore'),
    parseOrder: () => {
      throw new MalformedOrderError('Walmart events carry an order id only');
    },
    orderRef: (payload) => {
      const raw = asRecord(asRecord(payload)?.payload)?.purchaseOrderId;
      const id = typeof raw === 'number' ? String(raw) : text(raw);
      if (!id || !/^[A-Za-z0-9-]{1,40}$/.test(id))
        throw new MalformedOrderError('Walmart event has no purchaseOrderId');
      return id;
    },
  };
}
