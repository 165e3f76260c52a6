import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Order, OrderStatus, WebhookDelivery, WebhookDeliveryState, WebhookEventType } from '@layerline/contracts';
import type { ChargeChangedEvent } from '../payments/payment-events.ts';
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
 * parcels' tracking, `order.delivered` with when (the last parcel's delivery, else the change).
 */
function milestoneEvents(change: StatusChange, order: PublicOrder, createdAt: string): { outboxId: string; event: WebhookEvent }[] {
  const of = (type: 'order.shipped' | 'order.delivered') => {
    const outboxId = derivedUuid(`${type}:${change.announcementId}`);
    return { outboxId, id: eventIdFor(outboxId) };
  };
  if (change.to === 'shipped') {
    const { outboxId, id } = of('order.shipped');
    const tracking = order.shipments.map(({ carrier, service, trackingNumber, trackingUrl }) => ({ carrier, service, trackingNumber, trackingUrl }));
    return [{ outboxId, event: { id, type: 'order.shipped', createdAt, data: { tracking, order } } }];
  }
  if (change.to === 'delivered') {
    const { outboxId, id } = of('order.delivered');
    const deliveredAt = order.shipments.map((s) => s.deliveredAt).filter((at): at is string => at !== null).sort().at(-1) ?? createdAt;
    return [{ outboxId, event: { id, type: 'order.delivered', createdAt, data: { deliveredAt, order } } }];
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
   * A batch of queued deliveries, one attempt each: one query for the deliveries, one for their
   * sellers' endpoints, the POSTs side by side, and one statement recording every outcome. Answers
   * for each job in order: its outcome, or the error the queue should retry it for.
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
    const owners = [...new Set(ids.flatMap((id) => sendable(id)?.ownerId ?? []))];
    const targets = await endpoints.signingTargets(owners);
    const sent = new Set<string>();
    const attempts = await Promise.all(
      parsed.map(async (result, index) => {
        if (!result.success) return { answer: result.error as Error };
        const row = sendable(result.data.deliveryId);
        // The same delivery twice in one batch (a resend beside its first job): attempted once.
        if (!row || sent.has(row.id)) return { answer: 'gone' as const };
        sent.add(row.id);
        const target = targets.get(row.ownerId);
        if (target instanceof Error) return { answer: target };
        const done = await attempt(row, target, jobs[index]!.lastAttempt);
        return { answer: done.retry ?? done.outcome!, record: done.record };
      }),
    );
    await repository.recordOutcomes(attempts.flatMap((a) => (a.record ? [a.record] : [])));
    return attempts.map((a) => a.answer);
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
     * The payments module's charge changes: a charge of an order that succeeded becomes one
     * `order.charged` event (stored once per charge, however often it is told) and its job.
     */
    async announceCharged(charge: ChargeChangedEvent): Promise<void> {
      if (charge.to !== 'succeeded' || charge.orderId === null) return;
      if (!(await endpoints.hasEndpoint(charge.ownerId))) return;
      const order = (await orders.getMany([charge.orderId])).get(charge.orderId);
      // Gone meanwhile, or (never) another seller's: nothing to tell.
      if (!order || order.ownerId !== charge.ownerId) return;
      const outboxId = derivedUuid(`order.charged:${charge.chargeId}`);
      const eventId = eventIdFor(outboxId);
      const event: WebhookEvent = {
        id: eventId,
        type: 'order.charged',
        createdAt: now().toISOString(),
        data: { charge: { id: charge.chargeId, amountCents: charge.amountCents, currency: charge.currency, kind: charge.kind }, order: toPublicOrder(order, siteUrl) },
      };
      const row = await repository.insertIfNew({ outboxId, eventId, ownerId: charge.ownerId, orderId: charge.orderId, fromStatus: order.status, toStatus: order.status, event });
      if (row.state !== 'pending') return;
      if (!enqueue) throw new AppError('unavailable', 'Webhooks cannot be queued right now');
      // The job's id is the delivery's: a second telling queues nothing new.
      await enqueue({ deliveryId: row.id, ownerId: row.ownerId, eventId: row.eventId }, { resend: false });
    },

    async record(change: StatusChange): Promise<WebhookDeliveryJob | null> {
      if (!(await endpoints.hasEndpoint(change.ownerId))) return null;
      const order = await orders.get({ id: change.ownerId, isAdmin: false }, change.orderId);
      const eventId = eventIdFor(change.announcementId);
      const event: WebhookEvent = {
        id: eventId,
        type: 'order.status_changed',
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
