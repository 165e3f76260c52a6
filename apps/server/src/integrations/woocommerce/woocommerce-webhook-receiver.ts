import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { MalformedOrderError } from '../../modules/shops/connector.ts';
import type { WebhookReceiver } from '../../modules/shops/webhook-intake-service.ts';
import { wooShopId } from './woocommerce-http.ts';
import { parseWooOrder } from './woocommerce-mapping.ts';

/**
 * WooCommerce's side of the webhook intake. Each delivery carries (class-wc-webhook.php,
 * deliver()): X-WC-Webhook-Signature, the base64 HMAC-SHA256 of the raw JSON body keyed with the
 * webhook's secret; X-WC-Webhook-Source, the store's home_url('/'); X-WC-Webhook-Topic; and
 * X-WC-Webhook-Delivery-ID. The secret is per shop and derived, so nothing extra is stored and a
 * leaked store secret signs for that store only.
 */

/**
 * The secret of a shop's webhooks: base64url(HMAC-SHA256(appSecret, 'woocommerce-webhook:' + shop)).
 * base64url has none of the characters WooCommerce's wp_specialchars_decode() would alter before
 * it signs, so the store signs with exactly these bytes.
 */
export const wooWebhookSecret = (appSecret: string, externalShopId: string): string =>
  createHmac('sha256', appSecret).update(`woocommerce-webhook:${externalShopId}`).digest('base64url');

const safeEqual = (a: string, b: string): boolean => {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
};

export const verifyWooSignature = (
  rawBody: Buffer,
  signature: string | undefined,
  secret: string,
): boolean => {
  if (typeof signature !== 'string' || signature.trim() === '' || secret === '') return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest('base64');
  return safeEqual(expected, signature.trim());
};

/**
 * order.created and order.updated carry the whole order, but both fire for orders we do not take
 * in yet (a checkout creates the order `pending`; it becomes `processing` when paid). So the
 * delivery names the order and the connector reads it fresh (fetchOrder): the store's current
 * state, and null — nothing ingested, nothing failed — for a status we skip. order.deleted
 * (trashed or deleted) is ignored: sellers cancel with the `cancelled` status, which arrives as
 * order.updated; trashing is tidying up.
 */
const ORDER_TOPICS = new Set(['order.created', 'order.updated']);

/** The form-encoded ping WooCommerce sends, unsigned, when a webhook is saved (deliver_ping()). */
const PING_BODY = /^webhook_id=\d+$/;

export function createWooCommerceWebhookReceiver(appSecret: string): WebhookReceiver {
  return {
    read(headers, rawBody) {
      const deliveryId = headers['x-wc-webhook-delivery-id']?.trim();
      return {
        signature: headers['x-wc-webhook-signature'],
        shopId: wooShopId(headers['x-wc-webhook-source']) ?? undefined,
        topic: headers['x-wc-webhook-topic'],
        // The delivery id is a hash of the webhook id and the current second, so two orders
        // changing within a second share it: the body's hash keeps them apart, and a redelivery of
        // the same bytes stays one delivery.
        deliveryId: deliveryId
          ? `${deliveryId}:${createHash('sha256').update(rawBody).digest('hex').slice(0, 32)}`
          : undefined,
      };
    },
    verify: (rawBody, signature, externalShopId) =>
      verifyWooSignature(rawBody, signature, wooWebhookSecret(appSecret, externalShopId)),
    classify: (topic) => (ORDER_TOPICS.has(topic.trim().toLowerCase()) ? 'order-ref' : 'ignore'),
    orderRef(payload) {
      const id = (payload as { id?: unknown } | null)?.id;
      if (
        (typeof id === 'number' && Number.isSafeInteger(id) && id > 0) ||
        (typeof id === 'string' && /^[1-9]\d{0,19}$/.test(id))
      )
        return String(id);
      throw new MalformedOrderError('The WooCommerce webhook names no order id');
    },
    /** The order in the body itself (the interface's other way); a status we skip is refused with the reason. */
    parseOrder(payload) {
      const order = parseWooOrder(payload);
      if (!order) {
        const status = String((payload as { status?: unknown }).status ?? '');
        throw new MalformedOrderError(
          `The WooCommerce order is ${status || 'in no status'}; only processing, and paid orders cancelled or refunded, are taken in`,
        );
      }
      return order;
    },
    isPing: (headers, rawBody) =>
      !headers['x-wc-webhook-signature'] &&
      !headers['x-wc-webhook-topic'] &&
      PING_BODY.test(rawBody.toString('utf8').trim()),
  };
}
