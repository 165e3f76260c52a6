import type { ImpersonatedPlatform, ShippingAddress } from '@layerline/contracts';
import type { Config } from '../../config.ts';
import type { ConnectorRegistry } from '../../modules/shops/connector-registry.ts';
import type { MarketplaceOrder } from '../../modules/shops/connector.ts';
import type { WebhookReceiver } from '../../modules/shops/webhook-intake-service.ts';
import type { SandboxImpersonator } from '../sandbox-shop/sandbox-connector.ts';
import { createTikTokConnector } from '../tiktok/tiktok-connector.ts';
import { mapTikTokSandboxOrder, tiktokSandboxOrderPayload } from '../tiktok/tiktok-sandbox-order.ts';
import { createTikTokWebhookReceiver } from '../tiktok/tiktok-webhook-receiver.ts';

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
  tiktok: impersonator(tiktokSandboxOrderPayload, mapTikTokSandboxOrder),
};

/**
 * Registers the connectors of the marketplaces configured on this server (issue 15; Etsy and
 * Shopify are registered in app-context). A marketplace without its operator settings is not
 * registered, so /connect-store shows it as not configured on this server.
 */
export function registerMarketplaces(registry: ConnectorRegistry, config: Config): void {
  const { tiktok } = config.marketplaces;
  if (tiktok) {
    const connector = createTikTokConnector(tiktok);
    registry.register(connector, connector);
  }
}

/** The webhook receivers of the configured marketplaces that push orders to us, by platform. */
export function marketplaceWebhookReceivers(config: Config): Record<string, WebhookReceiver> {
  const receivers: Record<string, WebhookReceiver> = {};
  const { tiktok } = config.marketplaces;
  if (tiktok) receivers.tiktok = createTikTokWebhookReceiver(tiktok.appKey, tiktok.appSecret);
  return receivers;
}
