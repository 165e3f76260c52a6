import { createHash } from 'node:crypto';
import { MalformedOrderError } from '../../modules/shops/connector.ts';
import type { WebhookReceiver } from '../../modules/shops/webhook-intake-service.ts';
import { mapTikTokOrder } from './tiktok-mapping.ts';
import { verifyTikTokWebhook } from './tiktok-signing.ts';

/** Webhook `type` 1: order status change (contracts/tiktok-shop/1-order-status-change.json). */
export const TIKTOK_ORDER_STATUS_CHANGE = '1';

const field = (body: Record<string, unknown>, name: string): string | undefined => {
  const value = body[name];
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
};

/**
 * TikTok Shop's side of the webhook intake. Everything but the signature is in the body:
 * {type, tts_notification_id, shop_id, timestamp, data}. An order status change names the order
 * only, so it is an 'order-ref' fetched through the connector. A push without
 * `tts_notification_id` gets `<timestamp>-<sha256 of the raw body>` as its id: TikTok retries
 * with the same bytes, so a retry is still recognised as one.
 */
export function createTikTokWebhookReceiver(appKey: string, appSecret: string): WebhookReceiver {
  return {
    read: (headers, rawBody) => {
      let body: Record<string, unknown> = {};
      try {
        const parsed: unknown = JSON.parse(rawBody.toString('utf8'));
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
          body = parsed as Record<string, unknown>;
      } catch {
        // Not JSON: the intake refuses it after the signature check.
      }
      const notificationId = field(body, 'tts_notification_id');
      const digest = createHash('sha256').update(rawBody).digest('hex');
      return {
        signature: headers.authorization,
        shopId: field(body, 'shop_id'),
        topic: field(body, 'type'),
        deliveryId: notificationId ?? `${field(body, 'timestamp') ?? '0'}-${digest}`,
      };
    },
    verify: (rawBody, signature) => verifyTikTokWebhook(rawBody, signature, appKey, appSecret),
    classify: (topic) => (topic.trim() === TIKTOK_ORDER_STATUS_CHANGE ? 'order-ref' : 'ignore'),
    // Only 'order-ref' topics are classified; an order payload is the connector's business.
    parseOrder: mapTikTokOrder,
    orderRef: (payload) => {
      const data = (payload as { data?: { order_id?: unknown } } | null)?.data;
      const orderId = typeof data?.order_id === 'string' ? data.order_id.trim() : '';
      if (!/^\d{1,30}$/.test(orderId))
        throw new MalformedOrderError('The TikTok Shop order status change names no order id');
      return orderId;
    },
  };
}
