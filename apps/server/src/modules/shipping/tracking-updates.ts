import type { ShippingIntegration } from '@layerline/contracts';
import { AppError, forbidden, notFound } from '../../errors.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import type { EventActor, OrderRow } from '../orders/order-repository.ts';
import { MarketplaceRejectedError, type TrackingUpdate } from '../shops/connector.ts';
import type { ShippingCredentials, TrackingInfo } from './shipping-provider.ts';
import { providerError, providerOf, type ShippingProviders } from './shipping-providers.ts';
import type { ShipmentRow, ShippingRepository } from './shipping-repository.ts';
import type { ShippingActor, ShippingSettingsService } from './shipping-settings-service.ts';
import type { WebhookTokens } from './webhook-tokens.ts';

const SYSTEM: EventActor = { kind: 'system', id: null };
/** Labels in flight read per tracking pass; the pass runs again soon after. */
const TRACKING_BATCH = 200;

const STATUS_WORDS: Record<TrackingInfo['status'], string> = {
  pre_transit: 'Label created',
  in_transit: 'In transit',
  out_for_delivery: 'Out for delivery',
  delivered: 'Delivered',
  returned: 'Returned to sender',
  failure: 'Delivery problem',
  unknown: 'No tracking yet',
};

/** The last event in words: "In transit: Arrived at sort facility (Memphis, TN)". */
export function trackingWords(info: TrackingInfo): string {
  const last = info.events.at(-1);
  if (!last) return STATUS_WORDS[info.status];
  return `${STATUS_WORDS[info.status]}: ${last.description}${last.location ? ` (${last.location})` : ''}`;
}

/**
 * After a label: the tracking goes back to the channel the order came from (retried on the job queue,
 * failures kept for admins), and tracking updates (the poll, Shippo's and ShipStation's webhooks) move
 * shipments and orders on to delivered. Webhook bodies are never trusted: they only say which label
 * to ask the provider about.
 */
export function createTrackingUpdates(deps: {
  repository: ShippingRepository;
  settings: ShippingSettingsService;
  providers: ShippingProviders;
  orders: {
    find(orderId: string): Promise<OrderRow | undefined>;
    tryTransition(current: OrderRow, to: 'delivered', reason: string, actor: EventActor): Promise<boolean>;
  };
  /** The shops module's pushTracking (Etsy createReceiptShipment, Shopify fulfilment, the sandbox shop…). */
  pushToMarketplace: (shopId: string, externalOrderId: string, tracking: TrackingUpdate) => Promise<void>;
  audit: AuditRepository;
  /** The webhook URLs' secret tokens. */
  tokens: WebhookTokens;
}) {
  const { repository, settings, providers, orders, tokens } = deps;

  const credentialsOf = async (row: ShipmentRow): Promise<ShippingCredentials> =>
    row.provider === 'sandbox' ? { provider: 'sandbox' } : settings.credentialsOf(row.ownerId, row.provider as 'shipstation' | 'shippo');

  async function deliverOrderIfDone(orderId: string): Promise<void> {
    const shipments = (await repository.shipmentsOf([orderId])).filter((s) => ['purchased', 'in_transit', 'delivered'].includes(s.status));
    if (shipments.length === 0 || shipments.some((s) => s.status !== 'delivered')) return;
    const current = await orders.find(orderId);
    if (current?.status === 'shipped') await orders.tryTransition(current, 'delivered', `Delivered (${shipments.map((s) => s.trackingNumber).join(', ')})`, SYSTEM);
  }

  /** Asks the provider for a label's tracking and applies it (idempotent: events are unique per label). */
  async function refresh(row: ShipmentRow): Promise<void> {
    if (!row.trackingNumber) return;
    const info = await providerOf(providers, row.provider as ShippingIntegration).track(await credentialsOf(row), row.carrierCode ?? '', row.trackingNumber);
    const { deliveredNow } = await repository.applyTracking(row, info, trackingWords(info));
    if (deliveredNow || info.status === 'delivered') await deliverOrderIfDone(row.orderId);
  }

  /** A provider failing while a webhook is handled answers in words (503 when it is worth sending again). */
  async function inWords<T>(kind: ShippingIntegration, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw providerError(kind, error);
    }
  }

  return {
    refresh,

    /** One tracking pass over labels in flight not read for `minAgeMs` (the job queue's timer). */
    async trackInFlight(minAgeMs: number): Promise<number> {
      const due = await repository.inFlight(new Date(Date.now() - minAgeMs), TRACKING_BATCH);
      for (const row of due) {
        try {
          await refresh(row);
        } catch {
          // One label's provider failing does not stop the others; it is read again next pass.
          await repository.touchTracked(row.id);
        }
      }
      // A label that became delivered just before a crash, before its order did.
      for (const orderId of await repository.shippedAllDelivered(TRACKING_BATCH)) await deliverOrderIfDone(orderId);
      return due.length;
    },

    /**
     * The write-back job: tells the order's channel its tracking. Answers 'retry' for a failure a retry
     * may fix (the queue retries); a refusal (a closed order, a revoked shop) is kept as failed, for admins.
     */
    async pushTracking(shipmentId: string, lastAttempt: boolean): Promise<'sent' | 'failed' | 'retry' | 'skipped'> {
      const row = await repository.findShipment(shipmentId);
      if (!row || !row.trackingNumber || !['purchased', 'in_transit', 'delivered'].includes(row.status) || row.writeback === 'sent') return 'skipped';
      const order = await orders.find(row.orderId);
      if (!order?.shopId) {
        await repository.setWriteback(row.id, 'sent', null, false);
        return 'skipped';
      }
      try {
        await deps.pushToMarketplace(order.shopId, order.externalId, { trackingNumber: row.trackingNumber, carrierName: row.carrierCode ?? row.carrier ?? 'other' });
        await repository.setWriteback(row.id, 'sent', null, true);
        return 'sent';
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (error instanceof MarketplaceRejectedError || lastAttempt || (error instanceof AppError && error.code === 'not-found')) {
          await repository.setWriteback(row.id, 'failed', `The marketplace refused the tracking: ${message}`, true);
          return 'failed';
        }
        await repository.setWriteback(row.id, 'pending', message, true);
        return 'retry';
      }
    },

    async failedWritebacks() {
      return (await repository.failedWritebacks(200)).map(({ shipment, orderNumber, platform }) => ({
        shipmentId: shipment.id,
        orderId: shipment.orderId,
        orderNumber,
        platform,
        trackingNumber: shipment.trackingNumber ?? '',
        error: shipment.writebackError ?? '',
        attempts: shipment.writebackAttempts,
        updatedAt: shipment.updatedAt.toISOString(),
      }));
    },

    /** An admin asks for a failed write-back again: it goes back on the queue. */
    async retryWriteback(actor: ShippingActor, shipmentId: string, queue: (shipmentId: string) => Promise<void>): Promise<void> {
      if (!actor.isAdmin) throw forbidden();
      const row = await repository.findShipment(shipmentId);
      if (!row) throw notFound('Shipment');
      if (row.writeback !== 'failed') throw new AppError('conflict', 'This tracking was not refused');
      await repository.setWriteback(row.id, 'pending', null, false);
      await queue(row.id);
      await deps.audit.record({ actorId: actor.id, targetUserId: row.ownerId, action: 'shipping.writeback-retried', detail: { shipmentId }, requestId: actor.requestId });
    },

    /**
     * Shippo's track_updated: the token must be ours; the body only names a tracking number, whose
     * status is then read from Shippo with the seller's token. Unknown numbers are ignored (200).
     */
    async onShippoWebhook(token: string, body: unknown): Promise<{ updated: number }> {
      if (!tokens.isShippo(token)) throw new AppError('unauthenticated', 'The webhook URL’s signature token is not ours');
      const named = providers.shippo.parseTrackWebhook(body);
      if (!named) throw new AppError('bad-request', 'Not a Shippo track_updated webhook');
      const rows = (await repository.byTrackingNumber(named.trackingNumber)).filter((row) => row.provider === 'shippo');
      await inWords('shippo', async () => {
        for (const row of rows) await refresh(row);
      });
      return { updated: rows.length };
    },

    /**
     * ShipStation's webhooks (classic SHIP_NOTIFY, v2 track): what they name is looked up with the seller's
     * keys; a label is only ever moved by what ShipStation answers to us.
     */
    async onShipStationWebhook(token: string, body: unknown): Promise<{ updated: number }> {
      const ownerId = tokens.shipStationOwner(token);
      if (!ownerId) throw new AppError('unauthenticated', 'The webhook URL’s signature token is not ours');
      const payload = body as { resource_url?: unknown; data?: { tracking_number?: unknown } } | null;
      if (typeof payload?.resource_url !== 'string') throw new AppError('bad-request', 'Not a ShipStation webhook (no resource_url)');
      const credentials = await settings.credentialsOf(ownerId, 'shipstation');
      // Classic keys: the resource (SHIP_NOTIFY's shipments) is fetched from ShipStation's own host.
      // v2 keys: a track event names its tracking number in `data`; the status is read back either way.
      const resourceUrl = payload.resource_url;
      return inWords('shipstation', async () => {
        const named =
          credentials.provider === 'shipstation' && credentials.apiVersion === 'v2'
            ? typeof payload.data?.tracking_number === 'string'
              ? [payload.data.tracking_number]
              : []
            : (await providers.shipstation.fetchWebhookResource(credentials, resourceUrl)).map((entry) => entry.trackingNumber);
        let updated = 0;
        for (const trackingNumber of named) {
          for (const row of await repository.byTrackingNumber(trackingNumber)) {
            if (row.ownerId !== ownerId || row.provider !== 'shipstation') continue;
            await refresh(row);
            updated += 1;
          }
        }
        return { updated };
      });
    },

    /** The public tracking page's data: only the sandbox carrier's labels (real carriers have their own pages). */
    async publicTracking(trackingNumber: string) {
      const [row] = (await repository.byTrackingNumber(trackingNumber)).filter((r) => r.provider === 'sandbox');
      if (!row) throw notFound('Tracking number');
      const events = await repository.trackingEventsOf(row.id);
      return {
        trackingNumber,
        carrier: row.carrier ?? '',
        service: row.service ?? '',
        status: row.trackingStatus ?? 'Label created',
        delivered: row.status === 'delivered',
        events: events.map((event) => ({ status: event.status, description: event.description, location: event.location, occurredAt: event.occurredAt.toISOString() })),
      };
    },
  };
}

export type TrackingUpdates = ReturnType<typeof createTrackingUpdates>;
