import type { z } from 'zod';
import type { apiOrderInputSchema } from '@layerline/contracts';
import type { PublicOrder, PublicOrderList, WebhookEvent } from './order-api-schemas.ts';

/*
 * The examples of the API reference (/api/docs): one order's life, as the order API answers it and
 * as its webhooks tell it. Copied from what a real run sends (the shapes are the schemas'; the API
 * test parses every example served with them), with a real carrier's tracking in place of the
 * sandbox carrier's.
 */

/** A named example of the OpenAPI document (Example Object). */
export interface ReferenceExample<T> {
  readonly summary: string;
  readonly value: T;
}

const ORDER_ID = '6c0f2d4e-8b1a-4c3e-9f57-2a61d0b8e913';
const HELD_ORDER_ID = 'b354a508-e556-4d70-b44b-4ed8f51179e4';
const PLACED_AT = '2025-03-15T19:00:00.000Z';
const ADDRESS = {
  name: 'Ada Buyer',
  company: '',
  line1: '1 Main St',
  line2: '',
  city: 'Springfield',
  region: 'IL',
  postalCode: '62701',
  country: 'US',
  phone: '',
  email: '',
};
const TRACKING = {
  carrier: 'USPS',
  service: 'Ground Advantage',
  trackingNumber: '9400111899223197428490',
  trackingUrl: 'https://tools.usps.com/go/TrackConfirmAction?tLabels=9400111899223197428490',
};

export const orderInputExamples = {
  order: {
    summary: 'An order (the optional address fields left out)',
    value: {
      externalId: '1001',
      items: [{ sku: 'CUBE-RED', quantity: 2 }],
      shippingAddress: {
        name: 'Ada Buyer',
        line1: '1 Main St',
        city: 'Springfield',
        region: 'IL',
        postalCode: '62701',
        country: 'US',
      },
    },
  },
  everyField: {
    summary: 'Two lines and every address field',
    value: {
      externalId: 'WEB-20250315-0042',
      items: [
        { sku: 'CUBE-RED', quantity: 1 },
        { sku: 'VASE-TALL-WHITE', quantity: 3 },
      ],
      shippingAddress: {
        name: 'Grace Hopper',
        company: 'Hopper Labs',
        line1: '12 Harbour Road',
        line2: 'Unit 4',
        city: 'Bristol',
        region: '',
        postalCode: 'BS1 5TY',
        country: 'GB',
        phone: '+44 117 496 0000',
        email: 'grace@example.com',
      },
    },
  },
} satisfies Record<string, ReferenceExample<z.input<typeof apiOrderInputSchema>>>;

const received = {
  fromStatus: null,
  toStatus: 'received',
  reason: 'Received from api',
  createdAt: PLACED_AT,
} as const;

/** Order 1001 as POST answers it: every SKU matched, accepted. */
const acceptedOrder = {
  id: ORDER_ID,
  externalId: '1001',
  platform: 'api',
  status: 'accepted',
  holdReason: null,
  customerName: 'Ada Buyer',
  shippingAddress: ADDRESS,
  items: [{ sku: 'CUBE-RED', quantity: 2, matched: true, productName: 'Desk Cube — Red' }],
  events: [
    received,
    {
      fromStatus: 'received',
      toStatus: 'accepted',
      reason: 'Every SKU matches a product variant',
      createdAt: '2025-03-15T19:00:00.004Z',
    },
  ],
  shipments: [],
  placedAt: PLACED_AT,
  createdAt: PLACED_AT,
  updatedAt: PLACED_AT,
} satisfies PublicOrder;

const HOLD_REASON =
  'No product variant has the SKU “MUG-BLUE”. Link the listing or add the SKU to a product.';
const heldOrder = {
  ...acceptedOrder,
  id: HELD_ORDER_ID,
  externalId: '1002',
  status: 'on_hold',
  holdReason: HOLD_REASON,
  customerName: 'Ben Buyer',
  shippingAddress: {
    ...ADDRESS,
    name: 'Ben Buyer',
    line1: '2 Oak Ave',
    city: 'Portland',
    region: 'OR',
    postalCode: '97201',
  },
  items: [{ sku: 'MUG-BLUE', quantity: 1, matched: false, productName: null }],
  events: [
    { ...received, createdAt: '2025-03-15T19:05:00.000Z' },
    {
      fromStatus: 'received',
      toStatus: 'on_hold',
      reason: HOLD_REASON,
      createdAt: '2025-03-15T19:05:00.002Z',
    },
  ],
  placedAt: '2025-03-15T19:05:00.000Z',
  createdAt: '2025-03-15T19:05:00.000Z',
  updatedAt: '2025-03-15T19:05:00.000Z',
} satisfies PublicOrder;

const SHIPPED_AT = '2025-03-17T14:31:52.000Z';
/** Order 1001 once shipped: its timeline so far and its parcel. */
const shippedOrder = {
  ...acceptedOrder,
  status: 'shipped',
  events: [
    ...acceptedOrder.events,
    {
      fromStatus: 'accepted',
      toStatus: 'in_production',
      reason: 'Printing started (Desk Cube / Red)',
      createdAt: '2025-03-16T08:12:40.000Z',
    },
    {
      fromStatus: 'in_production',
      toStatus: 'printed',
      reason: 'Every part passed QC (2)',
      createdAt: '2025-03-16T11:47:05.000Z',
    },
    { fromStatus: 'printed', toStatus: 'packed', reason: 'Packed', createdAt: '2025-03-17T09:20:13.000Z' },
    {
      fromStatus: 'packed',
      toStatus: 'shipped',
      reason: `Shipped with ${TRACKING.carrier} ${TRACKING.service} ${TRACKING.trackingNumber}`,
      createdAt: '2025-03-17T14:31:52.104Z',
    },
  ],
  shipments: [{ ...TRACKING, status: 'purchased', shippedAt: SHIPPED_AT, deliveredAt: null }],
  updatedAt: '2025-03-17T14:31:52.104Z',
} satisfies PublicOrder;

const DELIVERED_AT = '2025-03-20T16:02:11.000Z';
const EXAMPLE_CLAIM = {
  id: '0b7e3c1a-2f4d-4e5b-9a8c-7d6e5f4a3b2c',
  kind: 'damaged' as const,
  status: 'open' as const,
  description: 'The lid arrived cracked',
  partIds: ['a3c1e2d4-5b6f-4a7e-8d9c-0b1a2c3d4e5f'],
  decisionNote: '',
  refundCents: null,
};

/** Order 1001 at the end: delivered, its whole timeline. */
const deliveredOrder = {
  ...shippedOrder,
  status: 'delivered',
  events: [
    ...shippedOrder.events,
    {
      fromStatus: 'shipped',
      toStatus: 'delivered',
      reason: `Delivered (${TRACKING.trackingNumber})`,
      createdAt: '2025-03-20T16:30:00.318Z',
    },
  ],
  shipments: [{ ...TRACKING, status: 'delivered', shippedAt: SHIPPED_AT, deliveredAt: DELIVERED_AT }],
  updatedAt: '2025-03-20T16:30:00.318Z',
} satisfies PublicOrder;

export const createdOrderExamples = {
  accepted: { summary: 'Accepted: every SKU is one of your product variants', value: acceptedOrder },
  onHold: { summary: 'On hold: a SKU matches none of your variants (still 201)', value: heldOrder },
} satisfies Record<string, ReferenceExample<PublicOrder>>;

export const repeatedOrderExamples = {
  repeat: {
    summary: 'The same externalId again: the order stored the first time, as it is now',
    value: shippedOrder,
  },
} satisfies Record<string, ReferenceExample<PublicOrder>>;

export const orderExamples = {
  delivered: { summary: 'Delivered, with its whole timeline and its parcel', value: deliveredOrder },
} satisfies Record<string, ReferenceExample<PublicOrder>>;

export const orderListExamples = {
  page: {
    summary: 'The newest first; nextCursor is null on the last page',
    value: {
      items: [heldOrder, deliveredOrder].map(
        ({ id, externalId, platform, status, holdReason, createdAt, updatedAt }) => ({
          id,
          externalId,
          platform,
          status,
          holdReason,
          createdAt,
          updatedAt,
        }),
      ),
      nextCursor: null,
    },
  },
} satisfies Record<string, ReferenceExample<PublicOrderList>>;

/** What each error of the order API says, by status (the API test sends the ones it can and compares). */
export const errorExamples = {
  400: {
    invalidField: {
      summary: 'A field is invalid',
      value: { error: 'shippingAddress.country: Country must be a two-letter ISO code like US' },
    },
  },
  401: {
    noKey: {
      summary: 'No Authorization header',
      value: { error: 'Send your API key in the header Authorization: Bearer ll_live_…' },
    },
    invalidKey: {
      summary: 'A key that is not well-formed, unknown or revoked',
      value: { error: 'Invalid API key' },
    },
  },
  403: {
    notInBeta: {
      summary: 'The key’s owner is not in the beta',
      value: { error: 'The order API is open to beta testers only, and this key’s owner is not in the beta' },
    },
  },
  404: { notYours: { summary: 'No order of yours has this id', value: { error: 'Order not found' } } },
  429: {
    tooMany: {
      summary: 'Over the key’s 120 requests a minute (Retry-After says when to come back)',
      value: { error: 'This API key is limited to 120 requests per minute' },
    },
  },
} satisfies Record<number, Record<string, ReferenceExample<{ error: string }>>>;

const EVENT_AT = '2025-03-17T14:31:52.130Z';

/** Order 1001 while it waits in the seller's change window (docs/change-window.md). */
const changeWindowOrder = {
  ...acceptedOrder,
  status: 'received' as const,
  events: [{ ...received, reason: 'Received from api. Every SKU matches a product variant; held 2 h for changes (the seller’s change window), released 2025-03-17 11:12 UTC' }],
};

/** Order 1001 cancelled in its change window. */
const cancelledOrder = {
  ...changeWindowOrder,
  status: 'cancelled' as const,
  events: [...changeWindowOrder.events, { fromStatus: 'received' as const, toStatus: 'cancelled' as const, reason: 'The buyer changed their mind', createdAt: EVENT_AT }],
};

/** Order 1001's life as its seller's webhook endpoint hears it, by event type. */
export const webhookEventExamples = {
  'order.status_changed': {
    created: {
      summary: 'A new order (previousStatus is null)',
      value: {
        id: 'evt_abab49d7887747e58b2efc5c51826546',
        type: 'order.status_changed',
        sequence: 1,
        createdAt: '2025-03-15T19:00:00.021Z',
        data: { previousStatus: null, status: 'accepted', order: acceptedOrder },
      },
    },
    shipped: {
      summary: 'The order shipped',
      value: {
        id: 'evt_e049679cb9ab4212bbb7d51975c3cdbb',
        type: 'order.status_changed',
        sequence: 5,
        createdAt: EVENT_AT,
        data: { previousStatus: 'packed', status: 'shipped', order: shippedOrder },
      },
    },
  },
  'order.charged': {
    charged: {
      summary: 'The order charged to the seller’s card',
      value: {
        id: 'evt_f5fae7a3bd7b5345a1e4927c26f388a7',
        type: 'order.charged',
        sequence: 2,
        createdAt: '2025-03-15T19:00:00.046Z',
        data: {
          charge: {
            id: '472f4ea1-9f3f-48f2-9715-584dcb3200be',
            amountCents: 1198,
            currency: 'USD',
            kind: 'order',
          },
          order: acceptedOrder,
        },
      },
    },
  },
  'order.adjusted': {
    adjusted: {
      summary: 'The exact quote came out higher than the estimate charged',
      value: {
        id: 'evt_1c3e0b0f6a4d5e2b9c8f7a6d5e4c3b2a',
        type: 'order.adjusted',
        sequence: 4,
        createdAt: '2025-03-17T09:12:40.512Z',
        data: {
          adjustment: {
            chargeId: '0d9b7f6e-5c4b-4a39-8f27-16e5d4c3b2a1',
            amountCents: 75,
            currency: 'USD',
            reason: 'The exact quote (sliced, or set by the print farm) changed the print cost from $2.70 (estimated) to $3.45',
          },
          order: acceptedOrder,
        },
      },
    },
  },
  'order.refunded': {
    refunded: {
      summary: 'The exact quote came out lower than the estimate charged',
      value: {
        id: 'evt_9a8b7c6d5e4f4a3b8c2d1e0f9a8b7c6d',
        type: 'order.refunded',
        sequence: 4,
        createdAt: '2025-03-17T09:12:40.512Z',
        data: {
          refund: {
            id: '5e4d3c2b-1a09-4f8e-9d7c-6b5a49382716',
            chargeId: '472f4ea1-9f3f-48f2-9715-584dcb3200be',
            amountCents: 6,
            currency: 'USD',
            reason: 'The exact quote (sliced, or set by the print farm) changed the print cost from $2.70 (estimated) to $2.64',
          },
          order: acceptedOrder,
        },
      },
    },
  },
  'order.shipped': {
    shipped: {
      summary: 'Shipped in one parcel',
      value: {
        id: 'evt_660ff39f45885594ba6df38a56bf7036',
        type: 'order.shipped',
        sequence: 6,
        createdAt: EVENT_AT,
        data: { tracking: [TRACKING], order: shippedOrder },
      },
    },
  },
  'order.delivered': {
    delivered: {
      summary: 'Delivered',
      value: {
        id: 'evt_bcbaa09df3135585abc2a8b2e5755907',
        type: 'order.delivered',
        sequence: 8,
        createdAt: '2025-03-20T16:30:00.330Z',
        data: { deliveredAt: DELIVERED_AT, order: deliveredOrder },
      },
    },
  },
  'order.claim_filed': {
    filed: {
      summary: 'A part arrived damaged',
      value: {
        id: 'evt_4b1f0c2d9e8a4f7b8c6d5e4f3a2b1c0d',
        type: 'order.claim_filed',
        sequence: 9,
        createdAt: '2025-03-22T10:04:12.118Z',
        data: { claim: EXAMPLE_CLAIM, order: deliveredOrder },
      },
    },
  },
  'order.claim_decided': {
    reprint: {
      summary: 'Decided as a free reprint',
      value: {
        id: 'evt_7d6c5b4a39284f1e8d7c6b5a49382716',
        type: 'order.claim_decided',
        sequence: 10,
        createdAt: '2025-03-22T14:30:00.000Z',
        data: { claim: { ...EXAMPLE_CLAIM, status: 'reprint', decisionNote: 'Cracked in transit: printed again' }, order: deliveredOrder },
      },
    },
  },
  'order.cancelled': {
    cancelled: {
      summary: 'Cancelled by the seller in its change window, before release',
      value: {
        id: 'evt_3c1f0b8e2a6d4f5e9b7a1c2d3e4f5a6b',
        type: 'order.cancelled',
        sequence: 2,
        createdAt: EVENT_AT,
        data: { reason: 'The buyer changed their mind', order: cancelledOrder },
      },
    },
  },
  'order.address_changed': {
    addressChanged: {
      summary: 'A new address before release',
      value: {
        id: 'evt_7d2e9f4a1b3c4d5e8f6a7b8c9d0e1f2a',
        type: 'order.address_changed',
        sequence: 2,
        createdAt: EVENT_AT,
        data: { previousAddress: { ...ADDRESS, line1: '1 Old Road' }, order: changeWindowOrder },
      },
    },
  },
} satisfies {
  [T in WebhookEvent['type']]: Record<string, ReferenceExample<Extract<WebhookEvent, { type: T }>>>;
};
