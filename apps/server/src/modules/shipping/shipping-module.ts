import { createCheckoutQuotes } from './checkout-quote.ts';
import type { Database } from '../../db/client.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import type { FileStorage } from '../designs/file-storage.ts';
import type { EventActor, OrderDetailRow, OrderRow } from '../orders/order-repository.ts';
import type { TrackingUpdate } from '../shops/connector.ts';
import { createAccountCalls } from './account-calls.ts';
import { createLabelService } from './label-service.ts';
import type { PackedPart } from './parcel-plan.ts';
import { createRateTokens } from './rate-token.ts';
import type { ShippingProviders } from './shipping-providers.ts';
import { createShippingRepository } from './shipping-repository.ts';
import { createShippingSettingsService, type OAuthStates } from './shipping-settings-service.ts';
import { createTrackingUpdates } from './tracking-updates.ts';
import { createWebhookTokens } from './webhook-tokens.ts';

/** How the module reaches the job queue once bootstrap has started it (jobs/shipping-jobs.ts). */
export interface ShippingQueue {
  buyLabels(orderIds: readonly string[]): Promise<void>;
  writeback(shipmentId: string, attempt: number): Promise<void>;
}

/**
 * Shipping, wired once (issue 12; docs/shipping.md): settings and profiles, labels, tracking. What it
 * needs from other modules comes in as functions, so it never imports their services.
 */
export function createShippingModule(deps: {
  db: Database;
  box: SecretBox;
  appSecret: string;
  /** PUBLIC_URL: the webhook URLs sellers and admins give ShipStation and Shippo. */
  publicUrl: string | undefined;
  providers: ShippingProviders;
  storage: FileStorage;
  audit: AuditRepository;
  oauthStates: OAuthStates;
  orders: {
    detail(orderId: string): Promise<OrderDetailRow | undefined>;
    find(orderId: string): Promise<OrderRow | undefined>;
    tryTransition(current: OrderRow, to: 'shipped' | 'on_hold' | 'packed' | 'delivered', reason: string, actor: EventActor): Promise<boolean>;
  };
  partsOf: (orderId: string) => Promise<PackedPart[]>;
  /** The order's one stored price (payments' order_price): the fulfilment record's costs. */
  priceOf: (orderId: string) => Promise<{ printCostCents: number; packagingCents: number; shippingCents: number } | null>;
  searchTextOf: (fields: { orderNumber: string; buyerName: string; skus: readonly string[]; trackingNumber: string }) => string;
  pushToMarketplace: (shopId: string, externalOrderId: string, tracking: TrackingUpdate) => Promise<void>;
  autoBuy: boolean;
}) {
  const repository = createShippingRepository(deps.db, deps.box);
  const tokens = createWebhookTokens(deps.appSecret);
  const settings = createShippingSettingsService({
    repository,
    providers: deps.providers,
    oauthStates: deps.oauthStates,
    audit: deps.audit,
    webhookUrls: {
      shippo: () => `${deps.publicUrl ?? ''}/api/webhooks/shippo/${tokens.shippo()}`,
      shipStation: (ownerId) => `${deps.publicUrl ?? ''}/api/webhooks/shipstation/${tokens.shipStation(ownerId)}`,
    },
  });
  let queue: ShippingQueue | null = null;
  const connected = (): ShippingQueue => {
    // Thrown, not skipped: the caller (an order announcement, a purchase) is retried, so nothing is lost.
    if (!queue) throw new Error('The shipping module is not connected to the job queue yet');
    return queue;
  };
  const labels = createLabelService({
    repository,
    settings,
    providers: deps.providers,
    rateTokens: createRateTokens(deps.appSecret),
    storage: deps.storage,
    orders: deps.orders,
    partsOf: deps.partsOf,
    priceOf: deps.priceOf,
    searchTextOf: deps.searchTextOf,
    audit: deps.audit,
    onLabelBought: async (shipment) => {
      if (shipment.writeback === 'pending') await connected().writeback(shipment.id, shipment.writebackAttempts);
    },
    autoBuy: deps.autoBuy,
    queueAutoBuy: (orderIds) => connected().buyLabels(orderIds),
  });
  const tracking = createTrackingUpdates({
    repository,
    settings,
    providers: deps.providers,
    orders: deps.orders,
    pushToMarketplace: deps.pushToMarketplace,
    audit: deps.audit,
    tokens,
  });

  return {
    settings,
    labels,
    /** Checkout rates (issue 24): what shipping a cart would cost, from the seller's profile. */
    checkoutQuotes: createCheckoutQuotes({ settings, providers: deps.providers }),
    tracking,
    tokens,
    accountCalls: createAccountCalls({ settings, providers: deps.providers, audit: deps.audit }),
    connectQueue(sender: ShippingQueue) {
      queue = sender;
    },
    queueWriteback: async (shipmentId: string) => {
      const row = await repository.findShipment(shipmentId);
      if (row) await connected().writeback(row.id, row.writebackAttempts);
    },
    /** At the start of a process that found no live peer: purchases a dead process left open are taken over at once, not after their lease. */
    releaseDeadPurchaseLeases: () => repository.releaseAllPurchaseLeases(),
    /** The tracking pass: labels in flight not read for `minAgeMs`, and write-backs whose job was lost. */
    async trackingPass(minAgeMs: number, writebackSweepAgeMs: number): Promise<void> {
      await tracking.trackInFlight(minAgeMs);
      for (const row of await repository.pendingWritebacks(new Date(Date.now() - writebackSweepAgeMs), 100)) {
        await connected().writeback(row.id, row.writebackAttempts);
      }
    },
  };
}

export type ShippingModule = ReturnType<typeof createShippingModule>;
