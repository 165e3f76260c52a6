import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Order, OrderStatus, WebhookDelivery, WebhookDeliveryState, WebhookEventType } from '@layerline/contracts';
import type { ChargeChangedEvent, RefundSucceededEvent } from '../payments/payment-events.ts';
import { AppError, notFound } from '../../errors.ts';
import { webhookUrlProblem } from './url-policy.ts';
import type { PublicOrder, WebhookEvent } from './order-api-schemas.ts';
import { publicOrderFromCreated, toPublicOrder, type CreatedOrderSnapshot, type OrderReaderPort } from './order-api-service.ts';
import type { DeliveryOutcomeRecord, ListedWebhookDelivery, SendableDelivery, WebhookDeliveryRepository } from './webhook-delivery-repository.ts';
import type { WebhookEndpointService } from './webhook-endpoint-service.ts';
import { signWebhook } from './webhook-signature.ts';

/** How a webhook leaves the building (webhook-http-transport.ts); tests may pass their own. */
export interface WebhookTransport {
  /** Resolves with the status; rejects on a network error or after the timeout. */
  post(url: string, headers: Record<string, string>, body: string, options: { timeoutMs: number }): Promise<{ status: number }>;
}

/**
 * A job of the 'webhook-delivery' queue: one delivery (its row holds the event), attempted as is.
 * The seller and event id are there for admins reading a dead letter.
 */
export const webhookDeliveryJobSchema = z.object({ deliveryId: z.uuid(), ownerId: z.string(), eventId: z.string() });
export type WebhookDeliveryJob = z.infer<typeof webhookDeliveryJobSchema>;

export interface StatusChange {
  /** The change's announcement (order_outbox row): the same each time the change is announced. */
  readonly announcementId: string;
  readonly orderId: string;
  readonly ownerId: string;
  readonly from: OrderStatus | null;
  readonly to: OrderStatus;
  /** A new order as stored, when ingestion knew all of it: its event is written without reading the order. */
  readonly created?: CreatedOrderSnapshot;
}

/** Puts a delivery on the job queue; `resend` queues a fresh job for a delivery that already had one. */
export type EnqueueDelivery = (job: WebhookDeliveryJob, options: { resend: boolean }) => Promise<void>;

/** An event's sequence until the repository numbers it, in the transaction that stores it (never sent). */
const UNNUMBERED = 0;

/** The receiver failed in a way a later attempt may fix (5xx, 408, 429, network, timeout). */
export class WebhookRetryableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WebhookRetryableError';
  }
}

export type DeliveryOutcome = 'delivered' | 'refused' | 'failed' | 'gone';

export const WEBHOOK_TIMEOUT_MS = 10_000;
/** The deliveries a seller sees in their list. */
const LISTED_DELIVERIES = 50;

/** 4xx means the receiver refuses this request for good, except 408 (timeout) and 429 (slow down). */
export function isRetryableStatus(status: number): boolean {
  if (status >= 200 && status < 300) return false;
  if (status >= 400 && status < 500) return status === 408 || status === 429;
  return true;
}

/** The event id of an announced change: stable, so announcing it twice can never send two events. */
function eventIdFor(announcementId: string): string {
  return `evt_${announcementId.replaceAll('-', '')}`;
}

/**
 * A UUID derived from what an event is about ('order.shipped:<announcement>', 'order.charged:<charge>'):
 * the delivery's unique key for events that are not the announcement itself, so telling one twice
 * stores (and sends) it once.
 */
function derivedUuid(key: string): string {
  const hex = createHash('sha256').update(key).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The events of an announced change besides `order.status_changed`: `order.shipped` with the
 * parcels' tracking, `order.delivered` with when (the last parcel's delivery, else the change),
 * `order.cancelled` with the cancellation's reason.
 */
function milestoneEvents(change: StatusChange, order: PublicOrder, createdAt: string): { outboxId: string; event: WebhookEvent }[] {
  const of = (type: 'order.shipped' | 'order.delivered' | 'order.cancelled') => {
    const outboxId = derivedUuid(`${type}:${change.announcementId}`);
    return { outboxId, id: eventIdFor(outboxId) };
  };
  if (change.to === 'shipped') {
    const { outboxId, id } = of('order.shipped');
    const tracking = order.shipments.map(({ carrier, service, trackingNumber, trackingUrl }) => ({ carrier, service, trackingNumber, trackingUrl }));
    return [{ outboxId, event: { id, type: 'order.shipped', sequence: UNNUMBERED, createdAt, data: { tracking, order } } }];
  }
  if (change.to === 'delivered') {
    const { outboxId, id } = of('order.delivered');
    const deliveredAt = order.shipments.map((s) => s.deliveredAt).filter((at): at is string => at !== null).sort().at(-1) ?? createdAt;
    return [{ outboxId, event: { id, type: 'order.delivered', sequence: UNNUMBERED, createdAt, data: { deliveredAt, order } } }];
  }
  if (change.to === 'cancelled') {
    const { outboxId, id } = of('order.cancelled');
    const reason = order.events.filter((event) => event.toStatus === 'cancelled').at(-1)?.reason ?? '';
    return [{ outboxId, event: { id, type: 'order.cancelled', sequence: UNNUMBERED, createdAt, data: { reason, order } } }];
  }
  return [];
}

function toDto(row: ListedWebhookDelivery): WebhookDelivery {
  return {
    id: row.id,
    eventId: row.eventId,
    orderId: row.orderId,
    orderExternalId: row.orderExternalId,
    type: (row.event as { type: WebhookEventType }).type,
    fromStatus: row.fromStatus as OrderStatus | null,
    toStatus: row.toStatus as OrderStatus,
    state: row.state as WebhookDeliveryState,
    attempts: row.attempts,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
  };
}

/**
 * Webhooks to the seller's own system: each announced status change of one of their orders
 * becomes one delivery row (the event with a stable id and the order as it was then) and one job;
 * the worker signs it (Standard Webhooks) with the endpoint's current secret and POSTs it, and
 * records every attempt on the row, which the seller sees and can resend. Every attempt of one
 * event carries the same `webhook-id`, so receivers deduplicate on it.
 */
export function createWebhookDeliveryService(deps: {
  endpoints: WebhookEndpointService;
  orders: OrderReaderPort;
  repository: WebhookDeliveryRepository;
  transport: WebhookTransport;
  /** Local receivers allowed (ALLOW_LOCAL_WEBHOOK_RECEIVERS); otherwise the URL rules are checked again before each attempt. */
  allowLocal: boolean;
  /** Before our own links in the events (toPublicOrder): PUBLIC_URL, else this server's address. */
  siteUrl: string;
  now?: () => Date;
}) {
  const { endpoints, orders, repository, transport, siteUrl } = deps;
  const now = deps.now ?? (() => new Date());
  let enqueue: EnqueueDelivery | null = null;

  /**
   * One attempt of one delivery, with its seller's signing target already read: the outcome, the
   * record to write, and the error to hand the queue when it should try again.
   */
  async function attempt(
    row: SendableDelivery,
    target: { url: string; secret: string } | undefined,
    lastAttempt: boolean,
  ): Promise<{ outcome: DeliveryOutcome | null; record: DeliveryOutcomeRecord; retry?: WebhookRetryableError }> {
    const settle = (state: 'failed' | 'refused', error: string) => ({ outcome: state, record: { id: row.id, state, attempted: false, statusCode: null, error } });
    if (!target) return settle('failed', 'No webhook endpoint is set any more');
    const problem = webhookUrlProblem(target.url, { allowLocal: deps.allowLocal });
    // The URL was checked when saved; the rules may have changed since (local receivers no longer allowed).
    if (problem) return settle('refused', problem);
    const body = JSON.stringify(row.event);
    const timestamp = Math.floor(now().getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Layerline-Webhooks/1.0',
      'webhook-id': row.eventId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(target.secret, row.eventId, timestamp, body),
    };
    const retryState = lastAttempt ? 'failed' : 'pending';
    const attempted = (state: WebhookDeliveryState, statusCode: number | null, error: string): DeliveryOutcomeRecord => ({
      id: row.id,
      state,
      attempted: true,
      statusCode,
      error,
    });
    let status: number;
    try {
      ({ status } = await transport.post(target.url, headers, body, { timeoutMs: WEBHOOK_TIMEOUT_MS }));
    } catch (error) {
      const reason = (error as Error).message || 'The request failed';
      return {
        outcome: null,
        record: attempted(retryState, null, reason),
        retry: new WebhookRetryableError(`Webhook ${row.eventId} failed: ${reason}`, { cause: error }),
      };
    }
    if (status >= 200 && status < 300) return { outcome: 'delivered', record: attempted('delivered', status, '') };
    if (isRetryableStatus(status)) {
      return {
        outcome: null,
        record: attempted(retryState, status, `The receiver answered ${status}`),
        retry: new WebhookRetryableError(`Webhook ${row.eventId}: the receiver answered ${status}`),
      };
    }
    return { outcome: 'refused', record: attempted('refused', status, `The receiver answered ${status}; not retried`) };
  }

  /**
   * A batch of queued deliveries, in each order's sequence: one query for the deliveries, one for
   * their orders' other events still pending, one for orders whose creation event is still to be
   * recorded, one for the sellers' endpoints; each order's pending events POSTed one after the other
   * in sequence (the orders side by side), so a later event never reaches the receiver before an
   * earlier one, even when the earlier one's job is waiting for a retry; one statement records every
   * attempt. An event whose earlier one could not be delivered
   * now waits (its job is retried; on its last attempt it fails, unsent). Answers for each job in
   * order: its outcome, or the error the queue should retry it for.
   */
  async function deliverMany(jobs: readonly { data: unknown; lastAttempt: boolean }[]): Promise<(DeliveryOutcome | Error)[]> {
    const parsed = jobs.map((job) => webhookDeliveryJobSchema.safeParse(job.data));
    const ids = [...new Set(parsed.flatMap((result) => (result.success ? [result.data.deliveryId] : [])))];
    const rows = new Map((await repository.findMany(ids)).map((row) => [row.id, row]));
    // Gone with its order or seller, or settled for good by an earlier run of its job (at least once).
    // A failed delivery is attempted again: its job is an admin's retry of the dead letter.
    const sendable = (id: string) => {
      const row = rows.get(id);
      return row && row.state !== 'delivered' && row.state !== 'refused' ? row : undefined;
    };
    // Each delivery once, with whether its job is on its last attempt (the same delivery twice in one batch: once).
    const own = new Map<string, { row: SendableDelivery; lastAttempt: boolean }>();
    parsed.forEach((result, index) => {
      const row = result.success ? sendable(result.data.deliveryId) : undefined;
      if (row && !own.has(row.id)) own.set(row.id, { row, lastAttempt: jobs[index]!.lastAttempt });
    });
    const orderIds = [...new Set([...own.values()].map(({ row }) => row.orderId))];
    const [pending, awaitingCreation] = await Promise.all([repository.pendingOfOrders(orderIds), repository.creationOutstanding(orderIds)]);
    const targets = await endpoints.signingTargets([...new Set([...own.values()].map(({ row }) => row.ownerId))]);
    const answers = new Map<string, DeliveryOutcome | Error>();
    const records: DeliveryOutcomeRecord[] = [];
    /** An event of the batch that may not be sent before an earlier one: retried, or failed on its last attempt. */
    const wait = (id: string, why: string) => {
      const entry = own.get(id)!;
      if (entry.lastAttempt) {
        records.push({ id, state: 'failed', attempted: false, statusCode: null, error: `Not sent: ${why}` });
        answers.set(id, 'failed');
      } else {
        records.push({ id, state: 'pending', attempted: false, statusCode: null, error: `Waiting: ${why}` });
        answers.set(id, new WebhookRetryableError(`Webhook ${entry.row.eventId} waits: ${why}`));
      }
    };
    await Promise.all(
      orderIds.map(async (orderId) => {
        const mine = [...own.values()].filter(({ row }) => row.orderId === orderId).map(({ row }) => row);
        if (awaitingCreation.has(orderId)) {
          for (const row of mine) wait(row.id, 'the order’s creation event is sent first');
          return;
        }
        // The order's pending events around the batch's own: the earlier ones first (so none is
        // overtaken), the later ones after (so an event that waited for this one, its job now in a
        // retry's backoff, follows it at once; its own job then finds it delivered).
        const chain = new Map<string, SendableDelivery>();
        for (const row of pending) if (row.orderId === orderId) chain.set(row.id, row);
        for (const row of mine) chain.set(row.id, row);
        let blockedBy: SendableDelivery | null = null;
        for (const row of [...chain.values()].sort((a, b) => a.sequence - b.sequence)) {
          const entry = own.get(row.id);
          if (blockedBy) {
            if (entry) wait(row.id, `event #${blockedBy.sequence} (${blockedBy.eventId}) of this order is not delivered yet`);
            continue;
          }
          const target = targets.get(row.ownerId);
          if (target instanceof Error) {
            if (entry) answers.set(row.id, target);
            blockedBy = row;
            continue;
          }
          const done = await attempt(row, target, entry?.lastAttempt ?? false);
          records.push(done.record);
          if (entry) answers.set(row.id, done.retry ?? done.outcome!);
          // Refused or failed for good: nothing later waits for it.
          if (done.retry) blockedBy = row;
        }
      }),
    );
    await repository.recordOutcomes(records);
    const answered = new Set<string>();
    return parsed.map((result) => {
      if (!result.success) return result.error as Error;
      const id = result.data.deliveryId;
      if (!own.has(id) || answered.has(id)) return 'gone' as const;
      answered.add(id);
      return answers.get(id)!;
    });
  }

  /** An order's event besides its status changes (money, a claim, a new address): stored once under `key`, numbered in its order's sequence, and its job. */
  async function announceMoney(
    ownerId: string,
    orderId: string,
    key: string,
    body: (order: PublicOrder) => Pick<Extract<WebhookEvent, { type: 'order.charged' | 'order.adjusted' | 'order.refunded' | 'order.claim_filed' | 'order.claim_decided' | 'order.address_changed' }>, 'type' | 'data'>,
  ): Promise<void> {
    if (!(await endpoints.hasEndpoint(ownerId))) return;
    const order = (await orders.getMany([orderId])).get(orderId);
    // Gone meanwhile, or (never) another seller's: nothing to tell.
    if (!order || order.ownerId !== ownerId) return;
    const outboxId = derivedUuid(key);
    const eventId = eventIdFor(outboxId);
    const event = { id: eventId, sequence: UNNUMBERED, createdAt: now().toISOString(), ...body(toPublicOrder(order, siteUrl)) } as WebhookEvent;
    const row = await repository.insertIfNew({ outboxId, eventId, ownerId, orderId, fromStatus: order.status, toStatus: order.status, event });
    if (row.state !== 'pending') return;
    if (!enqueue) throw new AppError('unavailable', 'Webhooks cannot be queued right now');
    // The job's id is the delivery's: a second telling queues nothing new.
    await enqueue({ deliveryId: row.id, ownerId: row.ownerId, eventId: row.eventId }, { resend: false });
  }

  return {
    /** The job queue that resends go through; bootstrap connects it once it has started. */
    connect(enqueueDelivery: EnqueueDelivery): void {
      enqueue = enqueueDelivery;
    },

    /**
     * The delivery for an announced change, stored on its first announcement: its job while it
     * still has to be sent, or null (no endpoint, or already settled).
     */
    /**
     * `record` for a batch of announced changes (new orders, announced together): one query for
     * which sellers have an endpoint, one for the orders not announced with their stored copy (none
     * for the order API's new orders), one insert for the deliveries. Returns the jobs still to be sent.
     */
    async recordMany(changes: readonly StatusChange[]): Promise<WebhookDeliveryJob[]> {
      const owners = await endpoints.ownersWithEndpoint([...new Set(changes.map((change) => change.ownerId))]);
      const wanted = changes.filter((change) => owners.has(change.ownerId));
      if (wanted.length === 0) return [];
      // A new order announced with its stored copy is described from it (what a read would give);
      // the others are read, in one query. (An order deleted meanwhile makes the deliveries' insert
      // fail on its foreign key: the batch stays unannounced and the sweep announces each again.)
      const toRead = wanted.filter((change) => !change.created).map((change) => change.orderId);
      const found = toRead.length > 0 ? await orders.getMany(toRead) : new Map<string, Order>();
      const createdAt = now().toISOString();
      const rows = wanted.flatMap((change) => {
        let order: PublicOrder;
        if (change.created) order = publicOrderFromCreated(change.orderId, change.created);
        else {
          const read = found.get(change.orderId);
          // Gone meanwhile, or (never) another seller's: nothing to tell.
          if (!read || read.ownerId !== change.ownerId) return [];
          order = toPublicOrder(read, siteUrl);
        }
        const eventId = eventIdFor(change.announcementId);
        const event: WebhookEvent = {
          id: eventId,
          type: 'order.status_changed',
          sequence: UNNUMBERED,
          createdAt,
          data: { previousStatus: change.from, status: change.to, order },
        };
        const row = { ownerId: change.ownerId, orderId: change.orderId, fromStatus: change.from, toStatus: change.to };
        return [
          { ...row, outboxId: change.announcementId, eventId, event },
          ...milestoneEvents(change, order, createdAt).map((extra) => ({ ...row, outboxId: extra.outboxId, eventId: extra.event.id, event: extra.event })),
        ];
      });
      const stored = await repository.insertManyIfNew(rows);
      return stored.filter((row) => row.state === 'pending').map((row) => ({ deliveryId: row.id, ownerId: row.ownerId, eventId: row.eventId }));
    },

    /**
     * The payments module's charge changes: a succeeded charge of an order becomes one event (stored
     * once per charge, however often it is told) and its job: `order.charged`, or `order.adjusted` for
     * the difference charged after the order's exact quote, with its reason.
     */
    async announceCharged(charge: ChargeChangedEvent): Promise<void> {
      if (charge.to !== 'succeeded' || charge.orderId === null) return;
      await announceMoney(charge.ownerId, charge.orderId, `order.charged:${charge.chargeId}`, (order) =>
        charge.kind === 'adjustment'
          ? {
              type: 'order.adjusted',
              data: { adjustment: { chargeId: charge.chargeId, amountCents: charge.amountCents, currency: charge.currency, reason: charge.failureReason ?? '' }, order },
            }
          : {
              type: 'order.charged',
              data: { charge: { id: charge.chargeId, amountCents: charge.amountCents, currency: charge.currency, kind: charge.kind }, order },
            },
      );
    },

    /** A refund that succeeded (a cancellation, an adjustment down, the farm's): one `order.refunded` per refund. */
    async announceRefunded(refund: RefundSucceededEvent): Promise<void> {
      if (refund.orderId === null) return;
      await announceMoney(refund.ownerId, refund.orderId, `order.refunded:${refund.refundId}`, (order) => ({
        type: 'order.refunded',
        data: { refund: { id: refund.refundId, chargeId: refund.chargeId, amountCents: refund.amountCents, currency: refund.currency, reason: refund.reason }, order },
      }));
    },

    /** A claim filed or decided (docs/claims.md): one event per step of each claim (`step` names it). */
    async announceClaim(ownerId: string, orderId: string, step: 'filed' | 'decided', claim: Extract<WebhookEvent, { type: 'order.claim_filed' }>['data']['claim']): Promise<void> {
      const type = step === 'filed' ? 'order.claim_filed' : 'order.claim_decided';
      await announceMoney(ownerId, orderId, `${type}:${claim.id}`, (order) => ({ type, data: { claim, order } }));
    },

    /** A shipping address changed in the change window: one `order.address_changed` per change (its timeline event). */
    async announceAddressChanged(change: { eventId: string; orderId: string; ownerId: string; previousAddress: PublicOrder['shippingAddress'] }): Promise<void> {
      await announceMoney(change.ownerId, change.orderId, `order.address_changed:${change.eventId}`, (order) => ({
        type: 'order.address_changed',
        data: { previousAddress: change.previousAddress, order },
      }));
    },

    async record(change: StatusChange): Promise<WebhookDeliveryJob | null> {
      if (!(await endpoints.hasEndpoint(change.ownerId))) return null;
      const order = await orders.get({ id: change.ownerId, isAdmin: false }, change.orderId);
      const eventId = eventIdFor(change.announcementId);
      const event: WebhookEvent = {
        id: eventId,
        type: 'order.status_changed',
        sequence: UNNUMBERED,
        createdAt: now().toISOString(),
        data: { previousStatus: change.from, status: change.to, order: toPublicOrder(order, siteUrl) },
      };
      const row = await repository.insertIfNew({
        outboxId: change.announcementId,
        eventId,
        ownerId: change.ownerId,
        orderId: change.orderId,
        fromStatus: change.from,
        toStatus: change.to,
        event,
      });
      return row.state === 'pending' ? { deliveryId: row.id, ownerId: row.ownerId, eventId: row.eventId } : null;
    },

    /**
     * One attempt of a queued delivery. Resolves when done for good (delivered, refused, failed,
     * or nothing left to send); throws WebhookRetryableError when the queue should try again.
     * `lastAttempt`: the queue will not retry, so a retryable failure is final ('failed').
     */
    async deliver(data: unknown, options: { lastAttempt: boolean }): Promise<DeliveryOutcome> {
      const [answer] = await deliverMany([{ data, lastAttempt: options.lastAttempt }]);
      if (answer instanceof Error) throw answer;
      return answer!;
    },

    /** `deliver` for a batch of jobs (the worker's): each job's outcome, or its error (retried by the queue). */
    deliverMany,

    /** The seller's newest deliveries. */
    async list(ownerId: string): Promise<WebhookDelivery[]> {
      return (await repository.listForOwner(ownerId, LISTED_DELIVERIES)).map(toDto);
    },

    /** Sends a settled delivery again: the same event id and body, a fresh round of attempts. */
    async resend(ownerId: string, deliveryId: string): Promise<WebhookDelivery> {
      const existing = await repository.find(deliveryId);
      // Another seller's delivery answers exactly like a missing one.
      if (!existing || existing.ownerId !== ownerId) throw notFound('Webhook delivery');
      if (!enqueue) throw new AppError('unavailable', 'Webhooks cannot be sent right now; try again in a minute');
      if (!(await endpoints.hasEndpoint(ownerId))) throw new AppError('conflict', 'Set a webhook URL first');
      const reopened = await repository.reopen(deliveryId, ownerId);
      if (!reopened) throw new AppError('conflict', 'This delivery is already being sent');
      try {
        await enqueue({ deliveryId, ownerId, eventId: existing.eventId }, { resend: true });
      } catch (error) {
        // Not queued: put it back as it was, so it does not sit 'pending' with no job behind it.
        await repository.settleWithoutAttempt(deliveryId, existing.state as WebhookDeliveryState, existing.lastError);
        throw error;
      }
      return toDto({ ...reopened, orderExternalId: existing.orderExternalId });
    },
  };
}

export type WebhookDeliveryService = ReturnType<typeof createWebhookDeliveryService>;
