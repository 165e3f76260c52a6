import type { ImpersonatedPlatform, ShippingAddress } from '@layerline/contracts';
import type { Config } from '../../config.ts';
import type { ConnectorRegistry } from '../../modules/shops/connector-registry.ts';
import type { MarketplaceOrder } from '../../modules/shops/connector.ts';
import type { WebhookReceiver } from '../../modules/shops/webhook-intake-service.ts';
import type { SandboxImpersonator } from '../sandbox-shop/sandbox-connector.ts';
import type { FastifyInstance } from 'fastify';
import { createAmazonConnector } from '../amazon/amazon-connector.ts';
import { createEbayClient } from '../ebay/ebay-client.ts';
import { createEbayConnector } from '../ebay/ebay-connector.ts';
import {
  createEbaySignatureVerifier,
  EBAY_ACCOUNT_DELETION_PATH,
  registerEbayNotificationRoutes,
} from '../ebay/ebay-notifications.ts';
import { ebaySandboxOrderPayload, mapEbaySandboxOrder } from '../ebay/ebay-sandbox-order.ts';
import { amazonSandboxOrderPayload, mapAmazonSandboxOrder } from '../amazon/amazon-sandbox-order.ts';
import { createTikTokConnector } from '../tiktok/tiktok-connector.ts';
import { mapTikTokSandboxOrder, tiktokSandboxOrderPayload } from '../tiktok/tiktok-sandbox-order.ts';
import { createTikTokWebhookReceiver } from '../tiktok/tiktok-webhook-receiver.ts';
import { createWalmartConnector } from '../walmart/walmart-connector.ts';
import {
  walmartSandboxOrderPayload,
  walmartSandboxOrderToMarketplaceOrder,
} from '../walmart/walmart-sandbox-order.ts';
import { createWalmartWebhookReceiver } from '../walmart/walmart-webhook-receiver.ts';
import { createWooCommerceConnector } from '../woocommerce/woocommerce-connector.ts';
import {
  mapWooCommerceSandboxOrder,
  wooCommerceSandboxOrderPayload,
} from '../woocommerce/woocommerce-sandbox-order.ts';
import { createWooCommerceWebhookReceiver } from '../woocommerce/woocommerce-webhook-receiver.ts';

/** What every marketplace's sandbox payload builder takes (integrations/<platform>/<platform>-sandbox-order.ts). */
export interface SandboxOrderInput {
  readonly sequence: number;
  readonly placedAt: Date;
  readonly buyer: { readonly name: string; readonly address: ShippingAddress };
  readonly items: readonly { sku: string; title: string; quantity: number; unitPriceCents: number }[];
  readonly currency: string;
}

/** A sandbox order as the input of a marketplace's payload builder. */
function sandboxInput(order: MarketplaceOrder, sequence: number): SandboxOrderInput {
  return {
    sequence,
    placedAt: order.placedAt,
    buyer: { name: order.customerName, address: order.shippingAddress },
    items: order.items.map((item) => ({
      sku: item.sku,
      title: item.title,
      quantity: item.quantity,
      unitPriceCents: item.unitPriceCents ?? 0,
    })),
    currency: order.currency,
  };
}

/**
 * The sandbox shop's impersonations: the order it would send, built as the marketplace's own
 * payload and read back by that marketplace's mapping. A cancelled sandbox order stays cancelled
 * (the payload builders make open orders).
 */
function impersonator(
  build: (input: SandboxOrderInput) => unknown,
  map: (payload: unknown) => MarketplaceOrder,
): SandboxImpersonator {
  return (order, sequence) => {
    const mapped = map(build(sandboxInput(order, sequence)));
    return order.cancelled ? { ...mapped, cancelled: true } : mapped;
  };
}

export const SANDBOX_IMPERSONATORS: Partial<Record<ImpersonatedPlatform, SandboxImpersonator>> = {
  woocommerce: impersonator(wooCommerceSandboxOrderPayload, mapWooCommerceSandboxOrder),
  ebay: impersonator(ebaySandboxOrderPayload, mapEbaySandboxOrder),
  amazon: impersonator(amazonSandboxOrderPayload, mapAmazonSandboxOrder),
  tiktok: impersonator(tiktokSandboxOrderPayload, mapTikTokSandboxOrder),
  walmart: impersonator(walmartSandboxOrderPayload, walmartSandboxOrderToMarketplaceOrder),
};

/**
 * Registers the connectors of the marketplaces configured on this server (issue 15; Etsy and
 * Shopify are registered in app-context). A marketplace without its operator settings is not
 * registered, so /connect-store shows it as not configured on this server.
 */
export function registerMarketplaces(registry: ConnectorRegistry, config: Config): void {
  const { woocommerce, ebay, amazon, tiktok, walmart } = config.marketplaces;
  if (ebay) {
    const connector = createEbayConnector({
      clientId: ebay.clientId,
      clientSecret: ebay.clientSecret,
      ruName: ebay.ruName,
      environment: ebay.environment,
    });
    registry.register(connector, connector);
  }
  if (woocommerce) {
    // The store's own approval page (keys delivered to us) and keys pasted by hand; webhook secrets derive from APP_SECRET.
    const connector = createWooCommerceConnector({
      appName: woocommerce.appName,
      appSecret: config.appSecret,
    });
    registry.register(connector, connector, connector);
  }
  if (amazon) {
    const connector = createAmazonConnector({
      appId: amazon.appId,
      lwaClientId: amazon.clientId,
      lwaClientSecret: amazon.clientSecret,
      region: amazon.region,
      marketplaceIds: amazon.marketplaceIds,
      draftApp: amazon.draft,
    });
    registry.register(connector, connector);
  }
  if (tiktok) {
    const connector = createTikTokConnector(tiktok);
    registry.register(connector, connector);
  }
  if (walmart) {
    // Each seller's own client credentials, pasted; the app secret derives each shop's webhook token.
    const connector = createWalmartConnector({
      baseUrl: walmart.apiUrl,
      channelType: walmart.channelType,
      webhookSecret: config.appSecret,
    });
    registry.register(connector, undefined, connector);
  }
}

/** The webhook receivers of the configured marketplaces that push orders to us, by platform. */
export function marketplaceWebhookReceivers(config: Config): Record<string, WebhookReceiver> {
  const receivers: Record<string, WebhookReceiver> = {};
  const { woocommerce, tiktok, walmart } = config.marketplaces;
  if (woocommerce) receivers.woocommerce = createWooCommerceWebhookReceiver(config.appSecret);
  if (tiktok) receivers.tiktok = createTikTokWebhookReceiver(tiktok.appKey, tiktok.appSecret);
  if (walmart) receivers.walmart = createWalmartWebhookReceiver(config.appSecret);
  return receivers;
}

/**
 * eBay requires every app to take marketplace account deletion notifications (a challenge when
 * the endpoint is saved, then signed notifications): the seller's shop is detached and its tokens
 * deleted. Needs EBAY_VERIFICATION_TOKEN (the endpoint registered with eBay is PUBLIC_URL's, or
 * without it the address the challenge came to).
 */
export async function registerMarketplaceRoutes(
  app: FastifyInstance,
  deps: {
    config: Config;
    detachAccount: (platform: string, externalShopId: string, message: string) => Promise<void>;
  },
): Promise<void> {
  const { ebay } = deps.config.marketplaces;
  const publicUrl = deps.config.publicUrl;
  if (!ebay?.verificationToken) return;
  await registerEbayNotificationRoutes(app, {
    verificationToken: ebay.verificationToken,
    endpointUrl: publicUrl ? `${publicUrl}${EBAY_ACCOUNT_DELETION_PATH}` : undefined,
    verifier: createEbaySignatureVerifier(
      createEbayClient({
        clientId: ebay.clientId,
        clientSecret: ebay.clientSecret,
        environment: ebay.environment,
      }),
    ),
    onAccountDeleted: (ebayUserId) =>
      deps.detachAccount('ebay', ebayUserId, 'The eBay account was closed or deleted; its data was removed'),
  });
}
