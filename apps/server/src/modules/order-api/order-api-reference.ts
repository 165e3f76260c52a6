import fs from 'node:fs';
import { z } from 'zod';
import type { WebhookEventType } from '@layerline/contracts';
import { webhookEventExamples, type ReferenceExample } from './order-api-examples.ts';
import { webhookEventSchema } from './order-api-schemas.ts';

/*
 * What the API reference (/api/docs) says about the order API besides its routes' schemas: the
 * guide at the top of the page, its tags, and the webhooks it sends (OpenAPI 3.1 `webhooks`).
 */

/** The order API's guide (Markdown): getting started, limits, webhooks and how to verify them. */
export const ORDER_API_GUIDE = fs.readFileSync(new URL('./order-api-guide.md', import.meta.url), 'utf8');

export const ORDER_API_TAGS = [
  {
    name: 'order-api',
    description:
      'Your storefront’s orders: send one, read one, list them. API keys only: `Authorization: Bearer ll_live_…`.',
  },
  {
    name: 'order-api-settings',
    description:
      'Your API keys and webhook endpoint, while signed in to Layerline (what /connect-store does).',
  },
];

/** `schema` with the description and named examples the reference shows for a body or an answer. */
export function documented<T extends z.ZodType>(
  schema: T,
  description: string,
  examples: Record<string, ReferenceExample<unknown>>,
): T {
  return schema.meta({ description, 'x-examples': examples });
}

const EVENTS: Record<WebhookEventType, { summary: string; description: string }> = {
  'order.status_changed': {
    summary: 'An order changed status',
    description:
      'Every status change of any of your orders, from every channel, a new order included (`previousStatus` is then null, and `sequence` is 1: it is always the order’s first event). `data.order` is the order as it was then.',
  },
  'order.charged': {
    summary: 'An order was charged',
    description:
      'The charge of an order succeeded: told once per charge, besides the order’s status changes.',
  },
  'order.adjusted': {
    summary: 'An order’s price was adjusted after its exact quote',
    description:
      'The order was charged at its estimated price and its exact quote (sliced, or set by the print farm) came out higher: the difference was charged to the card. `reason` says why. (A lower exact quote is an `order.refunded`.)',
  },
  'order.refunded': {
    summary: 'Money was refunded for an order',
    description:
      'A refund of one of the order’s charges succeeded: a cancellation before printing, a price adjusted down after the exact quote, or the print farm’s refund. `reason` says which.',
  },
  'order.shipped': {
    summary: 'An order shipped, with its tracking',
    description:
      'The order moved to `shipped` (every parcel has its label): one `tracking` entry per parcel. Sent besides its `order.status_changed`.',
  },
  'order.delivered': {
    summary: 'An order was delivered',
    description:
      'The order moved to `delivered`; `deliveredAt` is its last parcel’s delivery. Sent besides its `order.status_changed`.',
  },
  'order.claim_filed': {
    summary: 'A claim was filed on an order',
    description:
      'You (or an admin for you) filed a claim on the order: parts arrived damaged or misprinted, or the parcel never came. `claim.status` is `open` until the print farm decides (docs/claims.md).',
  },
  'order.claim_decided': {
    summary: 'A claim on an order was decided',
    description:
      'The print farm decided a claim: `reprint` (the parts are printed again and sent in a new parcel, free), `refunded` (`refundCents`; an `order.refunded` follows) or `declined` (`decisionNote` says why).',
  },
  'order.cancelled': {
    summary: 'An order was cancelled',
    description:
      'The order moved to `cancelled` (by you in its change window, by the marketplace, or by the print farm); `reason` is the timeline’s. Sent besides its `order.status_changed`.',
  },
  'order.address_changed': {
    summary: 'An order’s shipping address was changed',
    description:
      'The shipping address was changed before the order was released to production (docs/change-window.md). `previousAddress` is the one replaced; `data.order.shippingAddress` the new one.',
  },
};

/** The Standard Webhooks headers of every delivery (the guide at the top shows how to check them). */
const SIGNATURE_HEADERS = [
  {
    in: 'header',
    name: 'webhook-id',
    required: true,
    description:
      'The event’s id (the body’s `id`): the same on every attempt and on a resend. Skip the ids you have handled.',
    schema: { type: 'string', pattern: '^evt_[0-9a-f]{32}$' },
  },
  {
    in: 'header',
    name: 'webhook-timestamp',
    required: true,
    description:
      'When this attempt was signed, in seconds since 1970. Refuse one more than 5 minutes from your clock.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    in: 'header',
    name: 'webhook-signature',
    required: true,
    description:
      '`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part of your secret after `whsec_`.',
    schema: { type: 'string', pattern: '^v1,' },
  },
];

/** What the receiver's answer means to Layerline. */
const RECEIVER_ANSWERS = {
  '2XX': { description: 'Received. Answer within 10 seconds, then do the work.' },
  '4XX': { description: 'Refused for good: not retried (except 408 and 429, which are).' },
  '5XX': {
    description:
      'Retried, as are 408, 429, a 3xx, a timeout or a network error: 8 retries over 1 to 2 hours.',
  },
};

/** The OpenAPI 3.1 `webhooks`: one POST per event type, its body the event's schema with examples. */
export function orderApiWebhooks(): Record<string, unknown> {
  return Object.fromEntries(
    webhookEventSchema.options.map((event) => {
      const type = event.shape.type.value;
      const schema: Record<string, unknown> = z.toJSONSchema(event, {
        target: 'draft-2020-12',
        io: 'output',
      });
      delete schema.$schema;
      const operation = {
        ...EVENTS[type],
        security: [],
        parameters: SIGNATURE_HEADERS,
        requestBody: {
          required: true,
          content: { 'application/json': { schema, examples: webhookEventExamples[type] } },
        },
        responses: RECEIVER_ANSWERS,
      };
      return [type, { post: operation }];
    }),
  );
}
