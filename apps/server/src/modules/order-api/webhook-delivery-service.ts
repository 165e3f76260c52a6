import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { OrderStatus } from '@layerline/contracts';
import { webhookUrlProblem } from './url-policy.ts';
import { webhookEventSchema, type WebhookEvent } from './order-api-schemas.ts';
import { toPublicOrder, type OrderReaderPort } from './order-api-service.ts';
import type { WebhookEndpointService } from './webhook-endpoint-service.ts';
import { signWebhook } from './webhook-signature.ts';

/** How a webhook leaves the building (webhook-http-transport.ts); tests may pass their own. */
export interface WebhookTransport {
  /** Resolves with the status; rejects on a network error or after the timeout. */
  post(url: string, headers: Record<string, string>, body: string, options: { timeoutMs: number }): Promise<{ status: number }>;
}

/** A job of the 'webhook-delivery' queue: one event for one seller, retried as is. */
export const webhookDeliveryJobSchema = z.object({
  ownerId: z.string().min(1),
  event: webhookEventSchema,
});
export type WebhookDeliveryJob = z.infer<typeof webhookDeliveryJobSchema>;

export interface StatusChange {
  readonly orderId: string;
  readonly ownerId: string;
  readonly from: OrderStatus | null;
  readonly to: OrderStatus;
}

/** The receiver failed in a way a later attempt may fix (5xx, 408, 429, network, timeout). */
export class WebhookRetryableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WebhookRetryableError';
  }
}

export type DeliveryOutcome = 'delivered' | 'rejected' | 'no-endpoint';

export const WEBHOOK_TIMEOUT_MS = 10_000;

/** 4xx means the receiver refuses this request for good, except 408 (timeout) and 429 (slow down). */
export function isRetryableStatus(status: number): boolean {
  if (status >= 200 && status < 300) return false;
  if (status >= 400 && status < 500) return status === 408 || status === 429;
  return true;
}

/**
 * Webhooks to the seller's own system: on every status change of any of their orders, one event
 * (a fresh id, the order as it was then) is queued; the worker signs it (Standard Webhooks) with
 * the endpoint's current secret and POSTs it. Every attempt of one event carries the same
 * `webhook-id`, so receivers deduplicate on it.
 */
export function createWebhookDeliveryService(deps: {
  endpoints: WebhookEndpointService;
  orders: OrderReaderPort;
  transport: WebhookTransport;
  production: boolean;
  now?: () => Date;
}) {
  const { endpoints, orders, transport } = deps;
  const now = deps.now ?? (() => new Date());

  return {
    /** The job for a status change, or null when the seller has no endpoint (nothing to send). */
    async jobFor(change: StatusChange): Promise<WebhookDeliveryJob | null> {
      if (!(await endpoints.hasEndpoint(change.ownerId))) return null;
      const order = await orders.get({ id: change.ownerId, isAdmin: false }, change.orderId);
      const event: WebhookEvent = {
        id: `evt_${randomUUID().replaceAll('-', '')}`,
        type: 'order.status_changed',
        createdAt: now().toISOString(),
        data: { previousStatus: change.from, status: change.to, order: toPublicOrder(order) },
      };
      return { ownerId: change.ownerId, event };
    },

    /**
     * One attempt. Resolves when done for good (delivered, refused with a 4xx, or no endpoint any
     * more); throws WebhookRetryableError when the queue should try again later.
     */
    async deliver(data: unknown): Promise<DeliveryOutcome> {
      const job = webhookDeliveryJobSchema.parse(data);
      const target = await endpoints.signingTarget(job.ownerId);
      if (!target) return 'no-endpoint';
      const problem = webhookUrlProblem(target.url, { production: deps.production });
      // The URL was checked when saved; the rules may have changed since (e.g. now in production).
      if (problem) return 'rejected';
      const body = JSON.stringify(job.event);
      const timestamp = Math.floor(now().getTime() / 1000);
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'Layerline-Webhooks/1.0',
        'webhook-id': job.event.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(target.secret, job.event.id, timestamp, body),
      };
      let status: number;
      try {
        ({ status } = await transport.post(target.url, headers, body, { timeoutMs: WEBHOOK_TIMEOUT_MS }));
      } catch (error) {
        throw new WebhookRetryableError(`Webhook ${job.event.id} failed: ${(error as Error).message}`, { cause: error });
      }
      if (status >= 200 && status < 300) return 'delivered';
      if (isRetryableStatus(status)) throw new WebhookRetryableError(`Webhook ${job.event.id}: the receiver answered ${status}`);
      return 'rejected';
    },
  };
}

export type WebhookDeliveryService = ReturnType<typeof createWebhookDeliveryService>;
