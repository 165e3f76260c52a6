import type { OrderStatus } from '@layerline/contracts';
import type { MarketplaceOrder } from '../shops/connector.ts';
import { canTransition, initialStatus, TransitionError } from './order-lifecycle.ts';
import type { ActorKind, InsertResult, NewOrder, NewOrderEvent, NewOrderItem, OrderRepository } from './order-repository.ts';
import { orderAddress, productLabel, type CreatedOrder, type OrderService } from './order-service.ts';

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

/** How a new order is stored: its status, hold reason and first events. */
interface Plan {
  readonly status: OrderStatus;
  readonly holdReason: string | null;
  readonly events: NewOrderEvent[];
  /** The end of the seller's change window, or null when they hold no orders. */
  readonly releaseAt: Date | null;
}

const HOUR_MS = 60 * 60 * 1000;

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

  /**
   * The status, hold reason and first events of a new order whose `unmatched` SKUs match no variant.
   * With a change window of `windowHours`, a matched order waits `received` until it ends (the
   * release sweep accepts it then) instead of being accepted, i.e. released, at once.
   */
  function plan(input: IngestInput, unmatched: readonly string[], windowHours: number): Plan {
    const settled = initialStatus(unmatched);
    const releaseAt = windowHours > 0 ? new Date(Date.now() + windowHours * HOUR_MS) : null;
    const received: NewOrderEvent = { fromStatus: null, toStatus: 'received', actor: input.actor, reason: `Received from ${input.platform}` };
    const waits = releaseAt !== null && settled.status === 'accepted' && !input.order.cancelled;
    if (waits) {
      const reason = `Every SKU matches a product variant; held ${windowHours} h for changes (the seller’s change window), released ${releaseAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
      return { status: 'received', holdReason: null, events: [{ ...received, reason: `${received.reason}. ${reason}` }], releaseAt };
    }
    const events: NewOrderEvent[] = [
      received,
      {
        fromStatus: 'received',
        toStatus: settled.status,
        actor: input.actor,
        reason: settled.holdReason ?? 'Every SKU matches a product variant',
      },
    ];
    if (!input.order.cancelled) return { status: settled.status, holdReason: settled.holdReason, events, releaseAt };
    events.push({ fromStatus: settled.status, toStatus: 'cancelled', actor: input.actor, reason: 'Cancelled on the marketplace' });
    return { status: 'cancelled', holdReason: null, events, releaseAt: null };
  }

  function newOrderOf(input: IngestInput, planned: Plan): NewOrder {
    const { order: incoming } = input;
    return {
      ownerId: input.ownerId,
      shopId: input.shopId,
      channel: input.channel,
      platform: input.platform,
      externalId: incoming.externalId,
      status: planned.status,
      holdReason: planned.holdReason,
      customerName: incoming.customerName,
      note: incoming.note ?? '',
      shippingAddress: { ...incoming.shippingAddress },
      currency: incoming.currency,
      totalCents: incoming.totalCents,
      placedAt: incoming.placedAt,
      releaseAt: planned.releaseAt,
    };
  }

  /** The items to store, with their variants when matched here (`matches`), else without. */
  function itemsOf(input: IngestInput, matches: null): Omit<NewOrderItem, 'variantId'>[];
  function itemsOf(input: IngestInput, matches: ReadonlyMap<string, { variantId: string }>): NewOrderItem[];
  function itemsOf(input: IngestInput, matches: ReadonlyMap<string, { variantId: string }> | null): Omit<NewOrderItem, 'variantId'>[] | NewOrderItem[] {
    return input.order.items.map((item) => ({
      externalItemId: item.externalItemId,
      sku: item.sku,
      title: item.title,
      quantity: item.quantity,
      unitPriceCents: item.unitPriceCents,
      ...(matches ? { variantId: matches.get(item.sku)?.variantId ?? null } : {}),
    }));
  }

  /**
   * What ingestion wrote, as an order read gives it back; undefined when that is not all known here
   * (an item matched through a listing has no product label at hand; two lines of one SKU are
   * listed in an order of their own, by random ids).
   */
  function storedOrder(
    result: { createdAt?: Date; eventTimes?: Date[] },
    items: readonly { sku: string; quantity: number }[],
    matches: ReadonlyMap<string, { variantId: string; label: string | null }>,
    status: OrderStatus,
    holdReason: string | null,
    events: readonly NewOrderEvent[],
  ): IngestedOrder | undefined {
    const labelled = [...matches.values()].every((match) => match.label !== null);
    const distinct = new Set(items.map((item) => item.sku)).size === items.length;
    if (!result.createdAt || !result.eventTimes || !labelled || !distinct) return undefined;
    const eventTimes = result.eventTimes;
    return {
      status,
      holdReason,
      createdAt: result.createdAt,
      // The order page lists items by SKU, byte for byte (COLLATE "C": code point order).
      items: items
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
  }

  /** The announcement's copy of a new order, with the address as stored and read back (a JSON round trip). */
  function createdOrder(stored: IngestedOrder, input: IngestInput): { created?: CreatedOrder } {
    const { order: incoming } = input;
    let shippingAddress: CreatedOrder['shippingAddress'];
    try {
      shippingAddress = orderAddress(JSON.parse(JSON.stringify(incoming.shippingAddress)) as object);
    } catch {
      return {}; // not as a read would give it: subscribers read the order instead
    }
    return {
      created: {
        ...stored,
        externalId: incoming.externalId,
        platform: input.platform,
        customerName: incoming.customerName,
        shippingAddress,
        placedAt: incoming.placedAt,
      },
    };
  }

  return {
    async ingest(input: IngestInput): Promise<IngestResult> {
      const { order: incoming } = input;
      const skus = incoming.items.map((item) => item.sku);
      // Most orders name only the seller's own variants: one statement finds them and stores the
      // order as such an order is stored (accepted), or stores nothing when a SKU is not one of them.
      // Then the SKUs are matched as before (variants, then listings linked by hand) and stored.
      const windowHours = await orders.changeWindowHoursOf(input.ownerId);
      const everyMatched = plan(input, [], windowHours);
      const direct = await repository.insertIfEveryVariantMatches(newOrderOf(input, everyMatched), itemsOf(input, null), everyMatched.events);
      let matches: Map<string, { variantId: string; label: string | null }>;
      let planned: Plan;
      let result: InsertResult;
      if (direct.everyVariantMatched) {
        matches = new Map(direct.variants.map((v) => [v.sku, { variantId: v.variantId, label: productLabel(v.productName, v.variantName) }]));
        planned = everyMatched;
        result = direct;
      } else {
        matches = await orders.matchSkusLabelled(input.ownerId, input.shopId, skus);
        planned = plan(input, [...new Set(skus.filter((sku) => !matches.has(sku)))], windowHours);
        result = await repository.insertIfNew(newOrderOf(input, planned), itemsOf(input, matches), planned.events);
      }
      const { status, holdReason, events } = planned;
      const stored = result.created ? storedOrder(result, incoming.items, matches, status, holdReason, events) : undefined;
      if (result.announcementId) {
        // Only a newly created order has one; its subscribers hear of it right after this returns,
        // with the order as stored when that is all known (the webhooks then need not read it back).
        await orders.announceSoon({
          announcementId: result.announcementId,
          orderId: result.orderId,
          ownerId: input.ownerId,
          channel: input.channel,
          from: null,
          to: status,
          ...(stored ? createdOrder(stored, input) : {}),
        });
      } else if (incoming.cancelled && result.status !== 'cancelled') {
        await cancelIfAsked(result.orderId, input);
      }
      if (!stored) return { orderId: result.orderId, created: result.created };
      return { orderId: result.orderId, created: true, stored };
    },
  };
}
