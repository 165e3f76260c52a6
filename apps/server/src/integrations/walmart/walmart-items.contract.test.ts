import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MalformedOrderError, type ShopCredentials } from '../../modules/shops/connector.ts';
import { startPrismMock, type PrismMock } from '../http-client/prism-mock.ts';
import { WALMART_SERVICE_NAME } from './walmart-client.ts';
import { createWalmartConnector } from './walmart-connector.ts';
import {
  createWalmartWebhookReceiver,
  walmartWebhookSecret,
  WALMART_WEBHOOK_SHOP_HEADER,
  WALMART_WEBHOOK_TOKEN_HEADER,
} from './walmart-webhook-receiver.ts';

/**
 * Contract tests for listings and webhook subscriptions: the requests go to Prism running
 * Walmart's Items and Notifications descriptions (/work/shared/contracts/walmart/, edited mirrors
 * Prism loads). The receiver is checked against the PO_CREATED event shape of Walmart's
 * "Purchase order (PO) created event" page ({source: {eventType, eventId, eventTime}, payload:
 * {purchaseOrderId, …}}); no machine-readable description of event payloads is in contracts/.
 */

const ITEMS = '/work/shared/contracts/walmart/walmart-marketplace-items-openapi-original.yml';
const NOTIFICATIONS = '/work/shared/contracts/walmart/walmart-marketplace-notifications-openapi-original.yml';

interface Recorded {
  method: string;
  url: URL;
  status: number;
  violations: string[];
  headers: Headers;
  requestBody: string;
}

let items: PrismMock;
let notifications: PrismMock;
let recorded: Recorded[] = [];

const routingFetch: typeof fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : input);
  const target = url.pathname.startsWith('/v3/webhooks') ? notifications.origin : items.origin;
  const response = await fetch(`${target}${url.pathname}${url.search}`, init);
  const findings = JSON.parse(response.headers.get('sl-violations') ?? '[]') as {
    location: string[];
    message: string;
  }[];
  recorded.push({
    method: init?.method ?? 'GET',
    url,
    status: response.status,
    violations: findings.filter((f) => f.location[0] !== 'response').map((f) => f.message),
    headers: new Headers(init?.headers),
    requestBody: typeof init?.body === 'string' ? init.body : '',
  });
  return response;
};

const NOW = new Date('2026-11-21T12:00:00.000Z');
const APP_SECRET = 'layerline-app-secret';
const SHOP_ID = 'wm-0123456789abcdef01234567';

const connector = () =>
  createWalmartConnector({
    baseUrl: 'http://walmart.test',
    fetch: routingFetch,
    now: () => NOW,
    webhookSecret: APP_SECRET,
    http: { baseDelayMs: 10, maxDelayMs: 50 },
  });

const credentials: ShopCredentials = {
  externalShopId: SHOP_ID,
  accessToken: 'access-token',
  refreshToken: 'client-id:client-secret',
  tokenExpiresAt: new Date(NOW.getTime() + 10 * 60_000),
  settings: {},
};

const expectAllValid = () => {
  expect(recorded.length).toBeGreaterThan(0);
  for (const call of recorded) {
    expect({
      call: `${call.method} ${call.url.pathname}`,
      status: call.status,
      violations: call.violations,
    }).toEqual({
      call: `${call.method} ${call.url.pathname}`,
      status: 200,
      violations: [],
    });
    expect(call.headers.get('WM_SVC.NAME')).toBe(WALMART_SERVICE_NAME);
    expect(call.headers.get('WM_SEC.ACCESS_TOKEN')).toBe('access-token');
  }
};

beforeAll(async () => {
  [items, notifications] = await Promise.all([
    startPrismMock(ITEMS, 120_000),
    startPrismMock(NOTIFICATIONS, 120_000),
  ]);
}, 150_000);

afterAll(async () => {
  await Promise.all([items?.stop(), notifications?.stop()]);
});

beforeEach(() => {
  recorded = [];
});

describe('Walmart listings against the Walmart Items OpenAPI (Prism)', () => {
  it('listListings: getAllItems with nextCursor=* then the returned cursor, active items, mapped by SKU', async () => {
    const listings = await connector().listListings(credentials);
    expectAllValid();
    expect(Object.fromEntries(recorded[0]!.url.searchParams)).toEqual({
      nextCursor: '*',
      limit: '50',
      lifecycleStatus: 'ACTIVE',
    });
    // Prism answers every page with the same example cursor: the second page is the last one followed.
    expect(recorded).toHaveLength(2);
    expect(recorded[1]!.url.searchParams.get('nextCursor')).toBe(
      'AoE/GjBSWFpNSFlPRjNZTjBTRUxMRVJfT0ZGRVI1QUFDOTZFNzcyRjc0NkE1OTU5QjUxQTdGMUJFQTY5OQ==',
    );
    expect(listings.length).toBeGreaterThanOrEqual(20);
    expect(listings[0]).toEqual({
      externalListingId: '0RE1TWYTKBKH',
      externalVariantId: '',
      title: "Carhartt Men's Rugged Vest",
      sku: '2792005',
      priceCents: 5999,
      currency: 'USD',
      url: null,
      imageUrl: null,
    });
  });

  it('negative: the mock refuses getAnItem without its required productIdType', async () => {
    const headers = {
      'WM_SEC.ACCESS_TOKEN': 't',
      'WM_QOS.CORRELATION_ID': 'c',
      'WM_SVC.NAME': WALMART_SERVICE_NAME,
    };
    const missing = await fetch(`${items.origin}/v3/items/2792005`, { headers });
    expect(missing.status).toBe(422);
    expect((await missing.text()).toLowerCase()).toContain('productidtype');
    const withoutService = await fetch(`${items.origin}/v3/items?nextCursor=*`, {
      headers: { 'WM_SEC.ACCESS_TOKEN': 't', 'WM_QOS.CORRELATION_ID': 'c' },
    });
    expect(withoutService.status).toBe(422);
  });
});

describe('Walmart webhooks: subscription (Notifications OpenAPI, Prism) and receiver', () => {
  it('subscribeWebhooks: PO_CREATED V1 ORDER to our URL with the shop id and derived token as custom headers', async () => {
    await connector().subscribeWebhooks!(credentials, 'https://layerline.example/api/webhooks/walmart');
    expectAllValid();
    expect(recorded.map((c) => `${c.method} ${c.url.pathname}`)).toEqual(['POST /v3/webhooks/subscriptions']);
    expect(JSON.parse(recorded[0]!.requestBody)).toEqual({
      events: [
        {
          eventType: 'PO_CREATED',
          eventVersion: 'V1',
          resourceName: 'ORDER',
          eventUrl: 'https://layerline.example/api/webhooks/walmart',
          headers: {
            'content-type': 'application/json',
            [WALMART_WEBHOOK_SHOP_HEADER]: SHOP_ID,
            [WALMART_WEBHOOK_TOKEN_HEADER]: walmartWebhookSecret(APP_SECRET, SHOP_ID),
          },
          status: 'ACTIVE',
        },
      ],
    });
  });

  it('negative: the mock refuses an event without eventUrl', async () => {
    const response = await fetch(`${notifications.origin}/v3/webhooks/subscriptions`, {
      method: 'POST',
      headers: {
        'WM_SEC.ACCESS_TOKEN': 't',
        'WM_QOS.CORRELATION_ID': 'c',
        'WM_SVC.NAME': WALMART_SERVICE_NAME,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        events: [{ eventType: 'PO_CREATED', eventVersion: 'V1', resourceName: 'ORDER', status: 'ACTIVE' }],
      }),
    });
    expect(response.status).toBe(422);
    expect(await response.text()).toContain('eventUrl');
  });

  const event = {
    source: {
      eventType: 'PO_CREATED',
      eventTime: '2026-11-21T11:59:00.000Z',
      eventId: '03d34580-61d4-11ea-9e23-cd38810ff7cd',
    },
    payload: { partnerId: '10000012345', purchaseOrderId: '1796277083022', customerOrderId: '5281956426648' },
  };
  const raw = Buffer.from(JSON.stringify(event));
  const receiver = createWalmartWebhookReceiver(APP_SECRET);
  const token = walmartWebhookSecret(APP_SECRET, SHOP_ID);

  it('reads the shop and token from our headers and the topic and delivery id from the event', () => {
    expect(
      receiver.read({ [WALMART_WEBHOOK_SHOP_HEADER]: SHOP_ID, [WALMART_WEBHOOK_TOKEN_HEADER]: token }, raw),
    ).toEqual({
      signature: token,
      shopId: SHOP_ID,
      topic: 'PO_CREATED',
      deliveryId: '03d34580-61d4-11ea-9e23-cd38810ff7cd',
    });
    expect(receiver.classify('PO_CREATED')).toBe('order-ref');
    expect(receiver.classify('OFFER_UNPUBLISHED')).toBe('ignore');
    expect(receiver.orderRef!(event)).toBe('1796277083022');
  });

  it('verify: the right token passes; a wrong, missing or other shop’s token fails', () => {
    expect(receiver.verify(raw, token, SHOP_ID)).toBe(true);
    expect(receiver.verify(raw, `${token.slice(0, -1)}x`, SHOP_ID)).toBe(false);
    expect(receiver.verify(raw, undefined, SHOP_ID)).toBe(false);
    // A token valid for one shop does not authenticate a delivery naming another shop.
    expect(receiver.verify(raw, token, 'wm-ffffffffffffffffffffffff')).toBe(false);
    expect(createWalmartWebhookReceiver('another-secret').verify(raw, token, SHOP_ID)).toBe(false);
  });

  it('an event without a purchase order id is a MalformedOrderError with the reason', () => {
    expect(() => receiver.orderRef!({ source: event.source, payload: {} })).toThrow(MalformedOrderError);
    expect(() => receiver.orderRef!({ source: event.source, payload: { purchaseOrderId: '../x' } })).toThrow(
      'Walmart event has no purchaseOrderId',
    );
  });
});
