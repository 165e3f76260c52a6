import type { FailedDelivery } from '@layerline/contracts';
import { AppError } from '../../errors.ts';
import { MalformedOrderError, type MarketplaceOrder } from './connector.ts';
import type { InboundWebhookRepository } from './inbound-webhook-repository.ts';

/**
 * What a marketplace's webhooks look like to the intake (a port: integrations/<platform>/
 * implements it, app-context passes it in). Verifying and parsing are the marketplace's business;
 * storing, deduplicating, queueing and acting on deliveries are ours.
 */
export interface WebhookReceiver {
  /** Where this marketplace puts the delivery's signature, shop, topic and id (headers, or the body). */
  read(
    headers: Readonly<Record<string, string | undefined>>,
    rawBody: Buffer,
  ): Omit<InboundDelivery, 'rawBody'>;
  /**
   * True only when the signature is valid for exactly these bytes. `externalShopId` is the shop the
   * delivery names, for marketplaces that sign with a per-shop secret (WooCommerce).
   */
  verify(rawBody: Buffer, signature: string | undefined, externalShopId: string): boolean;
  /**
   * What a topic means to us: an order in the payload, an order named by id only (fetched through
   * the connector), the app removed; anything else is stored and marked processed.
   */
  classify(topic: string): 'order' | 'order-ref' | 'uninstalled' | 'ignore';
  /** An 'order' payload (JSON, verified) as an order; MalformedOrderError when it is not one. */
  parseOrder(payload: unknown): MarketplaceOrder;
  /** An 'order-ref' payload's order id; MalformedOrderError when it has none. */
  orderRef?(payload: unknown): string;
  /**
   * A request the marketplace sends unsigned to test the address (WooCommerce's ping when a
   * webhook is saved): answered 200 and not stored. False for everything else.
   */
  isPing?(headers: Readonly<Record<string, string | undefined>>, rawBody: Buffer): boolean;
}

/** One delivery as it arrived: the raw bytes and the headers the marketplace sends with them. */
export interface InboundDelivery {
  readonly rawBody: Buffer;
  readonly signature: string | undefined;
  /** The marketplace's id of the shop (Shopify: X-Shopify-Shop-Domain). */
  readonly shopId: string | undefined;
  readonly topic: string | undefined;
  /** The delivery's id; a redelivery carries the same one (Shopify: X-Shopify-Webhook-Id). */
  readonly deliveryId: string | undefined;
}

export interface ReceiveResult {
  /** '<platform>:<delivery id>', the inbound_webhook row. */
  readonly id: string;
  /** 'duplicate': a redelivery, nothing changed. 'unknown-shop': stored and marked processed. */
  readonly outcome: 'stored' | 'duplicate' | 'unknown-shop';
  /** false when the row was stored but queueing failed (the sweep picks it up). */
  readonly enqueued: boolean;
  readonly enqueueError?: unknown;
}

/** What the intake needs from the shops service (orders go the same way as the sync's). */
export interface WebhookShopsPort {
  ingestMarketplaceOrder(
    shopId: string,
    order: MarketplaceOrder,
  ): Promise<{ orderId: string; created: boolean }>;
  /** An order named by id only: fetched from the marketplace, then ingested; null when it does not know it. */
  ingestMarketplaceOrderById(
    shopId: string,
    externalOrderId: string,
  ): Promise<{ orderId: string; created: boolean } | null>;
}

export const APP_UNINSTALLED_MESSAGE = 'The Layerline app was uninstalled from this store';
const MAX_HEADER = 255;

export type WebhookStoredListener = (id: string) => Promise<void>;

/**
 * Marketplace webhooks (WH-2, WH-3, WH-7): verified on the raw body, stored once per delivery id
 * (a redelivery changes nothing), queued, and answered — no marketplace calls while Shopify waits.
 * The 'process-webhook' job then ingests the order through the shops service (idempotent per
 * (channel, external id)) or detaches an uninstalled shop, and marks the row processed. The
 * periodic shop sync stays as the reconciliation poll (WH-8).
 */
export function createWebhookIntakeService(deps: {
  repository: InboundWebhookRepository;
  receivers: Readonly<Partial<Record<string, WebhookReceiver>>>;
  shops: WebhookShopsPort;
}) {
  const { repository } = deps;
  const listeners: WebhookStoredListener[] = [];

  function receiverFor(platform: string): WebhookReceiver {
    const receiver = deps.receivers[platform];
    if (!receiver)
      throw new AppError('unavailable', `${platform} webhooks are not configured on this server`);
    return receiver;
  }

  const header = (value: string | undefined, name: string): string => {
    const text = value?.trim() ?? '';
    if (!text || text.length > MAX_HEADER)
      throw new AppError('bad-request', `Missing or invalid ${name} header`);
    return text;
  };

  return {
    /** Called (awaited) for every newly stored delivery: the job wiring queues it. */
    onStored(listener: WebhookStoredListener): void {
      listeners.push(listener);
    },

    /** The receiver of a platform, or a 503 when its webhooks are not configured here. */
    receiverFor,

    async receive(platform: string, delivery: InboundDelivery): Promise<ReceiveResult> {
      const receiver = receiverFor(platform);
      // The signature first, whatever else is missing: nothing about the request is trusted before it.
      if (
        !receiver.verify(delivery.rawBody, delivery.signature, (delivery.shopId ?? '').trim().toLowerCase())
      )
        throw new AppError('unauthenticated', 'Invalid signature');
      const externalShopId = header(delivery.shopId, 'shop').toLowerCase();
      const deliveryId = header(delivery.deliveryId, 'webhook id');
      const topic = header(delivery.topic, 'topic');
      let payload: unknown;
      try {
        payload = JSON.parse(delivery.rawBody.toString('utf8'));
      } catch {
        throw new AppError('bad-request', 'The webhook body is not JSON');
      }
      const id = `${platform}:${deliveryId}`;
      const shop = await repository.findShop(platform, externalShopId);
      // An unknown shop is acknowledged (or the marketplace would disable the subscription) and kept.
      const stored = await repository.insertIfNew({
        id,
        platform,
        shopId: shop?.id ?? null,
        topic,
        payload,
        processed: !shop,
      });
      if (!stored) return { id, outcome: 'duplicate', enqueued: false };
      if (!shop) return { id, outcome: 'unknown-shop', enqueued: false };
      try {
        for (const listener of listeners) await listener(id);
        return { id, outcome: 'stored', enqueued: listeners.length > 0 };
      } catch (error) {
        return { id, outcome: 'stored', enqueued: false, enqueueError: error };
      }
    },

    /**
     * Acts on a stored delivery once (the job; at least once, so idempotent): orders are ingested,
     * app/uninstalled detaches the shop. A payload that is not a readable order is kept as a failed
     * delivery with the reason (retrying cannot fix it); other errors propagate so the job retries
     * and, in the end, dead-letters it.
     */
    async process(id: string): Promise<'processed' | 'failed' | 'already' | 'missing'> {
      const row = await repository.find(id);
      if (!row) return 'missing';
      if (row.processedAt) return 'already';
      const receiver = deps.receivers[row.platform];
      if (row.shopId && receiver) {
        try {
          const kind = receiver.classify(row.topic);
          if (kind === 'order')
            await deps.shops.ingestMarketplaceOrder(row.shopId, receiver.parseOrder(row.payload));
          else if (kind === 'order-ref' && receiver.orderRef)
            await deps.shops.ingestMarketplaceOrderById(row.shopId, receiver.orderRef(row.payload));
          else if (kind === 'uninstalled') await repository.detachShop(row.shopId, APP_UNINSTALLED_MESSAGE);
        } catch (error) {
          if (!(error instanceof MalformedOrderError)) throw error;
          await repository.markFailed(id, error.message);
          return 'failed';
        }
      }
      await repository.markProcessed(id);
      return 'processed';
    },

    /** A marketplace account was deleted (eBay's notification): its shop, if connected, is detached and its tokens deleted. */
    async detachAccount(platform: string, externalShopId: string, message: string): Promise<void> {
      const shop = await repository.findShop(platform, externalShopId);
      if (shop) await repository.detachShop(shop.id, message);
    },

    /** Admins: the deliveries kept as failed, newest first. */
    async failedDeliveries(limit: number): Promise<FailedDelivery[]> {
      return (await repository.listFailed(limit)).map((row) => ({
        ...row,
        reason: row.reason ?? '',
        receivedAt: row.receivedAt.toISOString(),
      }));
    },

    /** Deliveries stored but still unprocessed after `olderThanMs` (the sweep queues them again). */
    unprocessed: (olderThanMs: number, limit = 500): Promise<string[]> =>
      repository.listUnprocessed(new Date(Date.now() - olderThanMs), limit),
  };
}

export type WebhookIntakeService = ReturnType<typeof createWebhookIntakeService>;
