import { Readable } from 'node:stream';
import { SHIPPING_HOLD_PREFIX, type OrderRates, type Shipment, type ShippingAddress, type ShippingIntegration, type ShipmentStatus } from '@layerline/contracts';
import { AppError, forbidden, notFound } from '../../errors.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import type { FileStorage } from '../designs/file-storage.ts';
import type { EventActor, OrderDetailRow, OrderRow } from '../orders/order-repository.ts';
import type { OrderStatusChangeEvent } from '../orders/order-service.ts';
import { parcelPlanOf, planParcels, UnpackableError, type PackedPart, type PlannedParcel } from './parcel-plan.ts';
import { chooseRates, rateDto, zoneOf } from './rate-choice.ts';
import type { RateTokens } from './rate-token.ts';
import {
  ShippingAddressError,
  ShippingUnavailableError,
  type ProviderRate,
  type PurchasedLabel,
  type ShipmentRequest,
  type ShippingCredentials,
  type ShippingProvider,
} from './shipping-provider.ts';
import { providerError, providerOf, type ShippingProviders } from './shipping-providers.ts';
import type { ShipmentRow, ShippingProfileRow, ShippingRepository } from './shipping-repository.ts';
import { promiseText, type ShippingActor, type ShippingSettingsService } from './shipping-settings-service.ts';

const LIVE: readonly string[] = ['purchasing', 'purchased', 'in_transit', 'delivered'];
const MAX_LABEL_BYTES = 10 * 1024 * 1024;
/**
 * How long the request that claimed a parcel's purchase has it to itself: longer than a provider's
 * slowest answer (the http client's retries included), so a purchase still running is never taken
 * over; a crashed one is taken over (after a lookup) once this has passed.
 */
const PURCHASE_LEASE_MS = 3 * 60 * 1000;
const NO_OPTIONAL_FIELDS = { company: '', line2: '', region: '', phone: '', email: '' };

export interface LabelServiceDeps {
  readonly repository: ShippingRepository;
  readonly settings: ShippingSettingsService;
  readonly providers: ShippingProviders;
  readonly rateTokens: RateTokens;
  readonly storage: FileStorage;
  readonly orders: {
    detail(orderId: string): Promise<OrderDetailRow | undefined>;
    find(orderId: string): Promise<OrderRow | undefined>;
    tryTransition(current: OrderRow, to: 'shipped' | 'on_hold' | 'packed', reason: string, actor: EventActor): Promise<boolean>;
  };
  /** The order's printed parts (QC passed), to plan its parcels. */
  readonly partsOf: (orderId: string) => Promise<PackedPart[]>;
  /**
   * The order's one stored price (the payments module's, docs/payments.md): the fulfilment record
   * carries what the seller pays, never a second pricing of the parts. Null: the order has no price.
   */
  readonly priceOf: (orderId: string) => Promise<{ printCostCents: number; packagingCents: number; shippingCents: number } | null>;
  readonly searchTextOf: (fields: { orderNumber: string; buyerName: string; skus: readonly string[]; trackingNumber: string }) => string;
  readonly audit: AuditRepository;
  /** Queued after a label is bought: the tracking goes back to the channel (jobs/shipping-jobs.ts). */
  readonly onLabelBought: (shipment: ShipmentRow) => Promise<void>;
  readonly autoBuy: boolean;
  /** Queues a label purchase for a packed order (jobs/shipping-jobs.ts). */
  readonly queueAutoBuy: (orderIds: readonly string[]) => Promise<void>;
}

export function shipmentDto(row: ShipmentRow): Shipment {
  const bought = !['purchasing', 'failed'].includes(row.status);
  return {
    id: row.id,
    orderId: row.orderId,
    provider: row.provider as ShippingIntegration,
    attempt: row.attempt,
    parcelIndex: row.parcelIndex,
    parcelCount: row.parcelCount,
    parcel: {
      parcelId: row.parcel.parcelId,
      name: row.parcel.name,
      lengthMm: row.parcel.lengthMm,
      widthMm: row.parcel.widthMm,
      heightMm: row.parcel.heightMm,
      weightGrams: row.parcel.weightGrams,
      partCount: row.parcel.partCount,
    },
    status: row.status as ShipmentStatus,
    carrier: row.carrier,
    service: row.service,
    trackingNumber: row.trackingNumber,
    trackingUrl: row.trackingUrl,
    labelUrl: bought && (row.labelKey || row.labelSourceUrl) ? `/api/shipping/shipments/${row.id}/label` : null,
    costCents: row.costCents,
    currency: row.currency,
    trackingStatus: row.trackingStatus,
    writeback: row.writeback as Shipment['writeback'],
    writebackError: row.writebackError,
    error: row.error,
    shippedAt: row.shippedAt?.toISOString() ?? null,
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

const SYSTEM: EventActor = { kind: 'system', id: null };
const actorOf = (actor: ShippingActor | null): EventActor => (actor ? { kind: actor.isAdmin ? 'admin' : 'user', id: actor.id } : SYSTEM);

/**
 * Labels for packed orders: the parcel plan from the printed parts and the seller's shipping profile,
 * rate shopping against the delivery promise, buying each parcel's label exactly once (the shipment
 * row with its idempotency key is written before the provider is asked; a purchase that did not
 * finish is looked up before buying again), the label PDF kept in storage, the fulfilment record,
 * the order shipped, and voids refunded through the provider.
 */
export function createLabelService(deps: LabelServiceDeps) {
  const { repository, settings, providers, rateTokens, storage, orders, audit } = deps;

  async function visibleOrder(actor: ShippingActor | null, orderId: string): Promise<OrderDetailRow> {
    const detail = await orders.detail(orderId);
    // Another seller's order answers like a missing one.
    if (!detail || (actor && !actor.isAdmin && detail.order.ownerId !== actor.id)) throw notFound('Order');
    return detail;
  }

  /** The provider, the seller's credentials for it and the profile: the seller's integration unless a call names one. */
  async function shippingOf(ownerId: string, only?: ShippingIntegration) {
    const chosen = await settings.shippingFor(ownerId);
    const integration = only ?? chosen.integration;
    const credentials: ShippingCredentials | null =
      integration === chosen.integration ? chosen.credentials : integration === 'sandbox' ? { provider: 'sandbox' } : await settings.credentialsOf(ownerId, integration);
    if (!credentials) throw new AppError('conflict', `The seller's ${integration} account is not connected (Account settings → Shipping)`);
    return { integration, provider: providerOf(providers, integration), credentials, profile: chosen.profile };
  }

  async function plan(orderId: string, profile: ShippingProfileRow): Promise<PlannedParcel[]> {
    return planParcels(await deps.partsOf(orderId), profile.parcels);
  }

  const idempotencyKey = (orderId: string, parcelIndex: number, attempt: number) => `${orderId}:${parcelIndex}:${attempt}`;

  function requestFor(detail: OrderDetailRow, profile: ShippingProfileRow, parcel: PlannedParcel, key: string): ShipmentRequest {
    return {
      from: profile.origin,
      // Stored addresses from older marketplaces may lack the optional fields.
      to: { ...NO_OPTIONAL_FIELDS, ...(detail.order.shippingAddress as Partial<ShippingAddress>) } as ShippingAddress,
      parcel: { lengthMm: parcel.size.lengthMm, widthMm: parcel.size.widthMm, heightMm: parcel.size.heightMm, weightGrams: parcel.weightGrams },
      reference: detail.order.externalId,
      idempotencyKey: key,
    };
  }

  function promiseOf(profile: ShippingProfileRow, detail: OrderDetailRow) {
    const zone = zoneOf(profile.origin.country, detail.order.shippingAddress.country);
    return {
      handlingDays: profile.handlingDays,
      promiseDays: profile.promiseDays,
      preferred: profile.zoneServices.filter((z) => z.zone === zone).map((z) => ({ carrier: z.carrier, service: z.service })),
    };
  }

  async function hold(order: OrderRow, reason: string): Promise<void> {
    const current = await orders.find(order.id);
    if (current?.status === 'packed') await orders.tryTransition(current, 'on_hold', `${SHIPPING_HOLD_PREFIX} ${reason}`, SYSTEM);
  }

  async function storeLabel(row: ShipmentRow, provider: ShippingProvider, credentials: ShippingCredentials, label: PurchasedLabel) {
    const key = `labels/${row.ownerId}/${row.id}.pdf`;
    const pdf = 'pdf' in label.label ? label.label.pdf : await provider.downloadLabel(credentials, label.label.url);
    await storage.write(key, Readable.from([pdf]), { maxBytes: MAX_LABEL_BYTES });
    return key;
  }

  /** Records a bought label: the PDF (fetched again later if storing fails now), the shipment and its fulfilment record. */
  async function complete(detail: OrderDetailRow, row: ShipmentRow, provider: ShippingProvider, credentials: ShippingCredentials, label: PurchasedLabel, rate: ProviderRate | null) {
    let labelKey: string | null = null;
    try {
      labelKey = await storeLabel(row, provider, credentials, label);
    } catch {
      // The label is bought whatever happens to its PDF here: it is fetched again when someone opens it.
      labelKey = null;
    }
    const items = detail.items.map((item) => ({ sku: item.sku, title: item.title, quantity: item.quantity }));
    // The order's price is on its first parcel's record, whole (its packaging and shipping were priced for
    // every parcel); the others carry none, so the records of an order add up to what the seller paid. An
    // order without a price (a part never quoted) records what its labels cost.
    const price = await deps.priceOf(detail.order.id);
    const costs = price
      ? row.parcelIndex === 0
        ? price
        : { printCostCents: 0, packagingCents: 0, shippingCents: 0 }
      : { printCostCents: 0, packagingCents: row.parcel.costCents, shippingCents: label.costCents };
    const saved = await repository.markPurchased(
      row.id,
      {
        carrier: label.carrier,
        carrierCode: label.carrierCode,
        service: label.service,
        trackingNumber: label.trackingNumber,
        trackingUrl: label.trackingUrl,
        providerLabelId: label.providerLabelId,
        labelKey,
        labelSourceUrl: 'url' in label.label ? label.label.url : null,
        costCents: label.costCents,
        currency: label.currency,
        rate: rate ? { ...rate } : null,
        writeback: detail.order.shopId ? 'pending' : 'none',
      },
      {
        orderId: detail.order.id,
        ownerId: detail.order.ownerId,
        channel: detail.order.platform,
        orderNumber: detail.order.externalId,
        buyerName: detail.order.customerName,
        items: row.parcelIndex === 0 ? items : [],
        printCostCents: costs.printCostCents,
        packagingCents: costs.packagingCents,
        shippingCents: costs.shippingCents,
        totalCents: costs.printCostCents + costs.packagingCents + costs.shippingCents,
        currency: label.currency,
        carrier: label.carrier,
        service: label.service,
        trackingNumber: label.trackingNumber,
        trackingUrl: label.trackingUrl,
        searchText: deps.searchTextOf({
          orderNumber: detail.order.externalId,
          buyerName: detail.order.customerName,
          skus: detail.items.map((item) => item.sku),
          trackingNumber: label.trackingNumber,
        }),
      },
    );
    // The label is bought either way: a write-back that could not be queued now is queued by the tracking
    // pass's sweep of pending write-backs.
    if (saved) await deps.onLabelBought(saved).catch(() => undefined);
  }

  async function buyParcel(
    actor: ShippingActor | null,
    detail: OrderDetailRow,
    shipping: Awaited<ReturnType<typeof shippingOf>>,
    parcels: PlannedParcel[],
    index: number,
    existing: ShipmentRow[],
    rateToken: string | undefined,
  ): Promise<void> {
    const { provider, credentials, integration, profile } = shipping;
    const parcel = parcels[index]!;
    const live = existing.find((s) => s.parcelIndex === index && LIVE.includes(s.status));
    if (live && live.status !== 'purchasing') return;
    // A rate a person chose must be one we quoted for this parcel (checked before anything is written).
    const chosenRate = rateToken ? rateTokens.open(rateToken, detail.order.id, index) : null;
    if (rateToken && !chosenRate) throw new AppError('bad-request', 'This rate is not valid for this order; shop rates again');
    let row = live;
    if (row) {
      // Another request is buying this parcel right now (a double click, the farm's job): it finishes the job.
      row = (await repository.takeOverPurchase(row.id, PURCHASE_LEASE_MS)) ?? undefined;
      if (!row) {
        // The purchase job's own repeat (after a crash) meets the dead attempt's lease: nobody else will
        // finish it, so the queue retries (with backoff) until the lease is over and this job takes it over.
        if (actor === null) throw new AppError('unavailable', 'Another attempt is buying this label; trying again once its lease ends');
        return;
      }
      // A purchase that did not finish (a timeout, a crash): the provider may have bought it; ask first.
      const claimed = row;
      const found = await provider.findLabel(credentials, requestFor(detail, profile, parcel, row.idempotencyKey)).catch(async (error: unknown) => {
        // Still unknown whether it was bought: the purchase stays open for the next try's lookup.
        await repository.releasePurchase(claimed.id, `${(error as Error).message} (the label is looked up before buying again)`);
        throw providerError(integration, error);
      });
      if (found) return complete(detail, row, provider, credentials, found, null);
    } else {
      const attempt = 1 + existing.filter((s) => s.parcelIndex === index && !LIVE.includes(s.status)).length;
      row =
        (await repository.claimPurchase({
          orderId: detail.order.id,
          ownerId: detail.order.ownerId,
          provider: integration,
          attempt,
          parcelIndex: index,
          parcelCount: parcels.length,
          parcel: parcelPlanOf(parcel),
          idempotencyKey: idempotencyKey(detail.order.id, index, attempt),
          currency: 'USD',
        }, PURCHASE_LEASE_MS)) ?? undefined;
      // Another request is buying this parcel right now (a double click): it finishes the job.
      if (!row) return;
    }
    const request = requestFor(detail, profile, parcel, row.idempotencyKey);
    let rate = chosenRate;
    if (!rate) {
      let rates: ProviderRate[];
      try {
        rates = await provider.getRates(credentials, request);
      } catch (error) {
        await repository.markFailed(row.id, (error as Error).message);
        if (error instanceof ShippingAddressError) await hold(detail.order, `the carrier rejected the address: ${error.message}`);
        throw providerError(integration, error);
      }
      rate = chooseRates(rates, promiseOf(profile, detail)).find((r) => r.recommended) ?? null;
      if (!rate) {
        await repository.markFailed(row.id, 'No rates were offered for this parcel');
        throw new AppError('unprocessable', `${integration === 'sandbox' ? 'The sandbox carrier' : integration} offered no rates for this parcel`);
      }
    }
    let label: PurchasedLabel;
    try {
      label = await provider.purchaseLabel(credentials, request, rate);
    } catch (error) {
      if (error instanceof ShippingUnavailableError) {
        // Not marked failed: the provider may have bought it. The next try looks it up first.
        await repository.releasePurchase(row.id, `${error.message} (the label is looked up before buying again)`);
      } else {
        await repository.markFailed(row.id, (error as Error).message);
        if (error instanceof ShippingAddressError) await hold(detail.order, `the carrier rejected the address: ${error.message}`);
      }
      throw providerError(integration, error);
    }
    await complete(detail, row, provider, credentials, label, rate);
    await audit.record({
      actorId: actor?.id ?? null,
      targetUserId: detail.order.ownerId,
      action: 'shipping.label-bought',
      detail: { orderId: detail.order.id, parcelIndex: index, provider: integration, trackingNumber: label.trackingNumber, costCents: label.costCents },
      requestId: actor?.requestId,
    });
  }

  /** Every parcel has its label: the order is shipped, with its tracking in the event's words. */
  async function shipIfComplete(orderId: string, actor: ShippingActor | null): Promise<void> {
    const current = await orders.find(orderId);
    if (!current || current.status !== 'packed') return;
    const shipments = (await repository.shipmentsOf([orderId])).filter((s) => ['purchased', 'in_transit', 'delivered'].includes(s.status));
    const count = shipments[0]?.parcelCount ?? 0;
    if (count === 0 || new Set(shipments.map((s) => s.parcelIndex)).size < count) return;
    const words = shipments.map((s) => `${s.carrier} ${s.service} ${s.trackingNumber}`).join('; ');
    await orders.tryTransition(current, 'shipped', `Shipped with ${words}`, actorOf(actor));
  }

  async function buyLabels(
    actor: ShippingActor | null,
    orderId: string,
    options: { rateIds?: readonly string[]; only?: ShippingIntegration } = {},
  ): Promise<Shipment[]> {
    let detail = await visibleOrder(actor, orderId);
    let existing = await repository.shipmentsOf([orderId]);
    const status = detail.order.status;
    if (status === 'on_hold' && detail.order.holdReason?.startsWith(SHIPPING_HOLD_PREFIX)) {
      // Our own hold (a rejected address, a parcel that did not fit): buying again releases it.
      await orders.tryTransition(detail.order, 'packed', 'Buying the label again', actorOf(actor));
      detail = (await orders.detail(orderId))!;
    } else if (status !== 'packed') {
      if (['shipped', 'delivered'].includes(status)) return existing.map(shipmentDto);
      throw new AppError('conflict', `Only packed orders get labels; this one is ${status.replace('_', ' ')}`);
    }
    const shipping = await shippingOf(detail.order.ownerId, options.only);
    let parcels: PlannedParcel[];
    try {
      parcels = await plan(orderId, shipping.profile);
    } catch (error) {
      if (error instanceof UnpackableError) {
        await hold(detail.order, error.message);
        throw new AppError('unprocessable', error.message);
      }
      throw error;
    }
    if (options.rateIds && options.rateIds.length !== parcels.length)
      throw new AppError('bad-request', `Choose one rate for each of the ${parcels.length} parcels`);
    for (let index = 0; index < parcels.length; index += 1) {
      await buyParcel(actor, detail, shipping, parcels, index, existing, options.rateIds?.[index]);
    }
    await shipIfComplete(orderId, actor);
    existing = await repository.shipmentsOf([orderId]);
    return existing.map(shipmentDto);
  }

  /**
   * A replacement parcel for parts the farm prints again (a claim decided as a reprint, docs/claims.md):
   * parcels of their own after the order's (so the order's own labels and shipped status are untouched),
   * bought on the seller's shipping account, recorded at no cost to the seller (its fulfilment record
   * carries no price). Returns the new shipments.
   */
  async function buyReplacementLabels(actor: ShippingActor, orderId: string, parts: readonly PackedPart[]): Promise<Shipment[]> {
    const detail = await visibleOrder(actor, orderId);
    const shipping = await shippingOf(detail.order.ownerId);
    let planned: PlannedParcel[];
    try {
      planned = planParcels(parts, shipping.profile.parcels);
    } catch (error) {
      if (error instanceof UnpackableError) throw new AppError('unprocessable', error.message);
      throw error;
    }
    const existing = await repository.shipmentsOf([orderId]);
    const first = existing.reduce((max, s) => Math.max(max, s.parcelIndex + 1), 1);
    // Indexes before `first` belong to the order's own parcels; buyParcel reads only its own slot.
    const slots: PlannedParcel[] = [...Array<PlannedParcel>(first).fill(planned[0]!), ...planned];
    for (let index = first; index < slots.length; index += 1) {
      await buyParcel(actor, detail, shipping, slots, index, existing, undefined);
    }
    return (await repository.shipmentsOf([orderId])).filter((s) => s.parcelIndex >= first).map(shipmentDto);
  }

  return {
    buyLabels,
    buyReplacementLabels,

    /**
     * What shipping an order should cost before it is printed (the charge made when it enters
     * production): the parcels the expected parts plan into, each at the rate the farm would buy, and
     * their boxes. Null when it cannot be told now (no parcel takes a part, the provider did not
     * answer): the difference is settled on the fulfilment record when the label is bought.
     */
    async estimate(orderId: string, parts: readonly PackedPart[]): Promise<{ shippingCents: number; packagingCents: number } | null> {
      const detail = await orders.detail(orderId);
      if (!detail) return null;
      try {
        const shipping = await shippingOf(detail.order.ownerId);
        const promise = promiseOf(shipping.profile, detail);
        let shippingCents = 0;
        let packagingCents = 0;
        for (const [index, parcel] of planParcels(parts, shipping.profile.parcels).entries()) {
          const offered = await shipping.provider.getRates(shipping.credentials, requestFor(detail, shipping.profile, parcel, idempotencyKey(orderId, index, 0)));
          const pick = chooseRates(offered, promise).find((rate) => rate.recommended);
          if (!pick) return null;
          shippingCents += pick.amountCents;
          packagingCents += parcel.size.costCents;
        }
        return { shippingCents, packagingCents };
      } catch {
        return null;
      }
    },

    /** Rates for each parcel of a packed order, with the one the farm would buy. */
    async orderRates(actor: ShippingActor, orderId: string, only?: ShippingIntegration): Promise<OrderRates> {
      const detail = await visibleOrder(actor, orderId);
      const shipping = await shippingOf(detail.order.ownerId, only);
      let parcels: PlannedParcel[];
      try {
        parcels = await plan(orderId, shipping.profile);
      } catch (error) {
        if (error instanceof UnpackableError) throw new AppError('unprocessable', error.message);
        throw error;
      }
      const promise = promiseOf(shipping.profile, detail);
      const quoted = [];
      for (const [index, parcel] of parcels.entries()) {
        const request = requestFor(detail, shipping.profile, parcel, idempotencyKey(orderId, index, 0));
        let offered: ProviderRate[];
        try {
          offered = await shipping.provider.getRates(shipping.credentials, request);
        } catch (error) {
          throw providerError(shipping.integration, error);
        }
        const chosen = chooseRates(offered, promise);
        const { costCents: _boxCost, ...plan } = parcelPlanOf(parcel);
        quoted.push({
          parcel: plan,
          rates: chosen.map(({ meetsPromise, recommended, ...rate }) =>
            rateDto({ ...rate, meetsPromise, recommended }, shipping.integration, rateTokens.seal(orderId, index, rate)),
          ),
        });
      }
      return { orderId, integration: shipping.integration, promise: promiseText(shipping.profile), parcels: quoted };
    },

    /** Voids a label through its provider; refunded, the order is packed again for a new label. */
    async voidShipment(actor: ShippingActor, shipmentId: string): Promise<Shipment> {
      if (!actor.isAdmin) throw forbidden('Only the print farm voids labels');
      const row = await repository.findShipment(shipmentId);
      if (!row) throw notFound('Shipment');
      if (!['purchased', 'in_transit'].includes(row.status)) throw new AppError('conflict', `A ${row.status.replace('_', ' ')} label cannot be voided`);
      const kind = row.provider as ShippingIntegration;
      const credentials: ShippingCredentials = kind === 'sandbox' ? { provider: 'sandbox' } : await settings.credentialsOf(row.ownerId, kind);
      let result: { refunded: boolean; message: string };
      try {
        result = await providerOf(providers, kind).voidLabel(credentials, row.providerLabelId ?? row.trackingNumber ?? '');
      } catch (error) {
        throw providerError(kind, error);
      }
      if (!result.refunded) throw new AppError('conflict', `The label was not voided: ${result.message}`);
      const voided = await repository.markVoided(row.id);
      const order = await orders.find(row.orderId);
      if (order?.status === 'shipped') await orders.tryTransition(order, 'packed', `Label ${row.trackingNumber} voided and refunded; a new label is needed`, actorOf(actor));
      await audit.record({
        actorId: actor.id,
        targetUserId: row.ownerId,
        action: 'shipping.label-voided',
        detail: { orderId: row.orderId, shipmentId: row.id, trackingNumber: row.trackingNumber, message: result.message },
        requestId: actor.requestId,
      });
      return shipmentDto(voided ?? row);
    },

    /** The label PDF: the seller's own or any for admins; fetched again from the provider if storing it failed. */
    async labelPdf(actor: ShippingActor, shipmentId: string): Promise<Readable> {
      const row = await repository.findShipment(shipmentId);
      if (!row || (!actor.isAdmin && row.ownerId !== actor.id)) throw notFound('Label');
      if (row.labelKey) return storage.read(row.labelKey);
      if (!row.labelSourceUrl) throw notFound('Label');
      const kind = row.provider as ShippingIntegration;
      const credentials: ShippingCredentials = kind === 'sandbox' ? { provider: 'sandbox' } : await settings.credentialsOf(row.ownerId, kind);
      let pdf: Buffer;
      try {
        pdf = await providerOf(providers, kind).downloadLabel(credentials, row.labelSourceUrl);
      } catch (error) {
        throw providerError(kind, error);
      }
      const key = `labels/${row.ownerId}/${row.id}.pdf`;
      await storage.write(key, Readable.from([pdf]), { maxBytes: MAX_LABEL_BYTES });
      await repository.setLabelKey(row.id, key);
      return Readable.from([pdf]);
    },

    async shipmentsByOrder(orderIds: readonly string[]): Promise<Map<string, Shipment[]>> {
      const byOrder = new Map<string, Shipment[]>();
      for (const row of await repository.shipmentsOf(orderIds)) {
        const list = byOrder.get(row.orderId) ?? [];
        list.push(shipmentDto(row));
        byOrder.set(row.orderId, list);
      }
      return byOrder;
    },

    /** Packed orders get their label bought by the job queue (SHIPPING_AUTO_BUY). */
    async onOrderStatusChanges(events: readonly OrderStatusChangeEvent[]): Promise<void> {
      if (!deps.autoBuy) return;
      const packed = events.filter((event) => event.to === 'packed' && event.from === 'printed').map((event) => event.orderId);
      if (packed.length > 0) await deps.queueAutoBuy(packed);
    },

    /**
     * The queued purchase for a packed order: the recommended rates. A provider that is not answering
     * is retried by the queue; anything a retry will not fix holds the order with the reason, for a person.
     */
    async autoBuy(orderId: string): Promise<void> {
      const order = await orders.find(orderId);
      if (!order || order.status !== 'packed') return;
      // A voided label means a person is choosing the next one.
      if ((await repository.shipmentsOf([orderId])).some((s) => s.status === 'voided')) return;
      try {
        await buyLabels(null, orderId);
      } catch (error) {
        if (error instanceof AppError && error.code === 'unavailable') throw error;
        const reason = error instanceof Error ? error.message : String(error);
        await hold(order, `the label could not be bought: ${reason}`);
      }
    },
  };
}

export type LabelService = ReturnType<typeof createLabelService>;
