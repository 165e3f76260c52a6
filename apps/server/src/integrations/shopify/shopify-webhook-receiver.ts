import type { WebhookReceiver } from '../../modules/shops/webhook-intake-service.ts';
import { parseShopifyOrderWebhook } from './shopify-mapping.ts';
import { verifyShopifyWebhook } from './shopify-signatures.ts';

/** X-Shopify-Topic values of the subscribed topics (shopify-graphql.ts SHOPIFY_WEBHOOK_TOPICS). */
const ORDER_TOPICS = new Set(['orders/create', 'orders/updated', 'orders/cancelled']);

/**
 * Shopify's side of the webhook intake: X-Shopify-Hmac-Sha256 over the raw body with the app's
 * client secret; orders/* payloads are REST order JSON (parseShopifyOrderWebhook), the same order
 * the reconciliation poll produces.
 */
export function createShopifyWebhookReceiver(apiSecret: string): WebhookReceiver {
  return {
    read: (headers) => ({
      signature: headers['x-shopify-hmac-sha256'],
      shopId: headers['x-shopify-shop-domain'],
      topic: headers['x-shopify-topic'],
      deliveryId: headers['x-shopify-webhook-id'],
    }),
    verify: (rawBody, signature) => verifyShopifyWebhook(rawBody, signature, apiSecret),
    classify: (topic) => {
      const normalised = topic.trim().toLowerCase();
      if (ORDER_TOPICS.has(normalised)) return 'order';
      if (normalised === 'app/uninstalled') return 'uninstalled';
      return 'ignore';
    },
    parseOrder: parseShopifyOrderWebhook,
  };
}
