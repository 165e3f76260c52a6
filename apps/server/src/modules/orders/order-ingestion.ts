import type { OrderStatus } from '@layerline/contracts';
import type { MarketplaceOrder } from '../shops/connector.ts';
import { canTransition, initialStatus, TransitionError } from './order-lifecycle.ts';
import type { ActorKind, NewOrderEvent, OrderRepository } from './order-repository.ts';
import type { OrderService } from './order-service.ts';

export interface IngestInput {
  readonly ownerId: string;
  /** The natural key's first half: a shop connection id, 'manual:<ownerId>' or 'api:<ownerId>'. */
  readonly channel: string;
  readonly shopId: string | null;
  readonly platform: string;
  readonly order: MarketplaceOrder;
  readonly actor: { kind: ActorKind; id: string | null };
}

export interface IngestResult {
  readonly orderId: string;
  /** false when the order was already stored (a replay, a duplicate or a concurrent delivery). */
  readonly created: boolean;
  /**
   * A created order as it was stored, so the caller can answer without reading it back; absent
   * for a replay, and when an item matched through a listing (its product name is not at hand).
   */
  readonly stored?: IngestedOrder;
}

/** What ingestion wrote: the order's page (GET) reads the same values back. */
export interface IngestedOrder {
  readonly status: OrderStatus;
  readonly holdReason: string | null;
  readonly createdAt: Date;
  readonly items: readonly { sku: string; quantity: number; variantId: string | null; productName: string | null }[];
  readonly events: readonly { fromStatus: OrderStatus | null; toStatus: OrderStatus; reason: string; createdAt: Date }[];
}

export type OrderIngestion = ReturnType<typeof createOrderIngestion>;

/**
 * Takes in an order from any channel (marketplace sync, webhook, the order API, a manual order, the
 * sandbox). Idempotent on (channel, externalId): the unique index decides which of any number of
 * concurrent deliveries stores it, the others read it back. Items are matched to the seller's
 * variants by SKU; any unmatched SKU puts the order on hold with the reason. A later delivery
 * marked cancelled cancels it when the lifecycle still allows.
 */
export function createOrderIngestion(deps: { repository: OrderRepository; orders: OrderService }) {
  const { repository, orders } = deps;

  async function cancelIfAsked(orderId: string, input: IngestInput): Promise<void> {
    const current = await repository.find(orderId);
    if (!current) return;
    const from = current.status as OrderStatus;
    if (from === 'cancelled' || !canTransition(from, 'cancelled')) return;
    // Concurrent deliveries of the cancellation race here; the compare-and-set lets one win, quietly.
    try {
      await orders.tryTransition(current, 'cancelled', 'Cancelled on the marketplace', input.actor);
    } catch (error) {
      if (!(error instanceof TransitionError)) throw error;
    }
  }

  return {
    async ingest(input: IngestInput): Promise<IngestResult> {
      const { order: incoming } = input;
      const skus = incoming.items.map((item) => item.sku);
      const matches = await orders.matchSkusLabelled(input.ownerId, input.shopId, skus);
      const unmatched = [...new Set(skus.filter((sku) => !matches.has(sku)))];
      const settled = initialStatus(unmatched);
      const events: NewOrderEvent[] = [
        {
          fromStatus: null,
          toStatus: 'received',
          actor: input.actor,
          reason: `Received from ${input.platform}`,
        },
        {
          fromStatus: 'received',
          toStatus: settled.status,
          actor: input.actor,
          reason: settled.holdReason ?? 'Every SKU matches a product variant',
        },
      ];
      let status: OrderStatus = settled.status;
      let holdReason = settled.holdReason;
      if (incoming.cancelled) {
        events.push({
          fromStatus: settled.status,
          toStatus: 'cancelled',
          actor: input.actor,
          reason: 'Cancelled on the marketplace',
        });
        status = 'cancelled';
        holdReason = null;
      }
      const result = await repository.insertIfNew(
        {
          ownerId: input.ownerId,
          shopId: input.shopId,
          channel: input.channel,
          platform: input.platform,
          externalId: incoming.externalId,
          status,
          holdReason,
          customerName: incoming.customerName,
          note: incoming.note ?? '',
          shippingAddress: { ...incoming.shippingAddress },
          currency: incoming.currency,
          totalCents: incoming.totalCents,
          placedAt: incoming.placedAt,
        },
        incoming.items.map((item) => ({
          externalItemId: item.externalItemId,
          sku: item.sku,
          title: item.title,
          quantity: item.quantity,
          unitPriceCents: item.unitPriceCents,
          variantId: matches.get(item.sku)?.variantId ?? null,
        })),
        events,
      );
      if (result.announcementId) {
        // Only a newly created order has one; its subscribers hear of it right after this returns.
        await orders.announceSoon({
          announcementId: result.announcementId,
          orderId: result.orderId,
          ownerId: input.ownerId,
          channel: input.channel,
          from: null,
          to: status,
        });
      } else if (incoming.cancelled && result.status !== 'cancelled') {
        await cancelIfAsked(result.orderId, input);
      }
      const labelled = [...matches.values()].every((match) => match.label !== null);
      // Two lines of one SKU are listed in an order of their own (random ids): read those back.
      const distinct = new Set(skus).size === skus.length;
      if (!result.created || !result.createdAt || !result.eventTimes || !labelled || !distinct) {
        return { orderId: result.orderId, created: result.created };
      }
      const eventTimes = result.eventTimes;
      const stored: IngestedOrder = {
        status,
        holdReason,
        createdAt: result.createdAt,
        // The order page lists items by SKU, byte for byte (COLLATE "C": code point order).
        items: incoming.items
          .map((item) => {
            const match = matches.get(item.sku);
            return { sku: item.sku, quantity: item.quantity, variantId: match?.variantId ?? null, productName: match?.label ?? null };
          })
          .sort((a, b) => Buffer.compare(Buffer.from(a.sku), Buffer.from(b.sku))),
        events: events.map((event, index) => ({
          fromStatus: event.fromStatus,
          toStatus: event.toStatus,
          reason: event.reason,
          createdAt: eventTimes[index]!,
        })),
      };
      return { orderId: result.orderId, created: true, stored };
    },
  };
}
