import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ShippingAddressError,
  ShippingAuthError,
  ShippingRejectedError,
  ShippingUnavailableError,
  type ProviderRate,
  type ShipmentRequest,
  type ShippingCredentials,
} from '../../modules/shipping/shipping-provider.ts';
import {
  recordingFetchInto,
  startPrismMock,
  type PrismMock,
  type RecordedCall,
} from '../http-client/prism-mock.ts';
import { createShippoProvider } from './shippo-provider.ts';

/**
 * Contract tests: every request the Shippo provider builds goes to Prism running Shippo's own
 * OpenAPI file (/work/shared/contracts/shippo/public-api.yaml), which rejects anything the spec does
 * not allow (no `sl-violations` may come back). Prism answers with the spec's examples, which cannot
 * show a failure or a finished label (its example transaction is WAITING), so those cases use small
 * local servers answering the spec's example objects changed the way Shippo documents. OAuth is not
 * in the spec: it is checked against a local server asserting the form Shippo's OAuth guide gives.
 */

const SPEC = '/work/shared/contracts/shippo/public-api.yaml';
const TOKEN = 'oauth.test-token';
const credentials: ShippingCredentials = { provider: 'shippo', accessToken: TOKEN };

let prism: PrismMock;
let recorded: RecordedCall[] = [];

const recordingFetch = recordingFetchInto(() => recorded);

/** No waiting in tests: retries and purchase polling run at once. */
const FAST = { baseDelayMs: 1, maxDelayMs: 2, sleep: async () => {}, random: () => 0 };

const shippo = (baseUrl: string, http: { timeoutMs?: number } = {}) =>
  createShippoProvider({
    fetch: recordingFetch,
    baseUrl,
    clientId: 'partner-id',
    clientSecret: 'partner-secret',
    authorizeBaseUrl: oauthOrigin,
    http: { ...FAST, ...http },
  });

const request: ShipmentRequest = {
  from: {
    name: 'Layerline Farm',
    company: 'Layerline',
    line1: '215 Clayton St.',
    line2: '',
    city: 'San Francisco',
    region: 'CA',
    postalCode: '94117',
    country: 'US',
    phone: '+1 555 341 9393',
    email: 'farm@layerline.example',
  },
  to: {
    name: 'Ada Buyer',
    company: '',
    line1: '1 Main St',
    line2: 'Apt 4',
    city: 'Brooklyn',
    region: 'NY',
    postalCode: '11249',
    country: 'US',
    phone: '',
    email: '',
  },
  parcel: { lengthMm: 220, widthMm: 160, heightMm: 80.5, weightGrams: 640 },
  reference: 'LL-1001',
  idempotencyKey: 'order-1001:parcel-1:attempt-1',
};

/** The rate Prism's example shipment offers (see the getRates test). */
const exampleRate: ProviderRate = {
  rateId: 'adcfdddf8ec64b84ad22772bce3ea37a',
  carrier: 'USPS',
  carrierCode: 'usps',
  service: 'Priority Mail Express',
  serviceCode: 'usps_priority_express',
  amountCents: 550,
  currency: 'USD',
  estimatedDays: 2,
};

const LABEL_URL =
  'https://deliver.goshippo.com/915d94940ea54c3a80cbfa328722f5a1.pdf?Expires=1797766747&Signature=abc';

const expectAllValid = (calls: RecordedCall[] = recorded) => {
  expect(calls.length).toBeGreaterThan(0);
  for (const call of calls) {
    expect({ call: `${call.method} ${call.url.pathname}`, violations: call.violations }).toEqual({
      call: `${call.method} ${call.url.pathname}`,
      violations: null,
    });
    expect(call.status).toBeGreaterThanOrEqual(200);
    expect(call.status).toBeLessThan(300);
    expect(call.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
    expect(call.headers.get('shippo-api-version')).toBe('2018-02-08');
  }
};

// The spec's example objects, as Prism serves them; the local servers answer variations of them.
let examples: { shipment: Record<string, any>; transaction: Record<string, any>; track: Record<string, any> };

const prismGet = async (path: string, init: RequestInit = {}): Promise<Record<string, any>> => {
  const response = await fetch(`${prism.origin}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
  });
  expect(response.headers.get('sl-violations')).toBeNull();
  return (await response.json()) as Record<string, any>;
};

// --- small local servers answering what Shippo documents ---

interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}
type Reply = { status: number; headers?: Record<string, string>; body?: unknown } | 'hang';

let servers: Server[] = [];

const startServer = async (answer: (seen: Seen) => Reply): Promise<{ origin: string; seen: Seen[] }> => {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://local');
      const entry = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: raw,
      };
      seen.push(entry);
      const reply = answer(entry);
      if (reply === 'hang') return; // never answers: the client's timeout fires
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
};

let oauthOrigin = 'https://goshippo.com';

beforeAll(async () => {
  prism = await startPrismMock(SPEC);
  examples = {
    shipment: await prismGet('/shipments/adcfdddf8ec64b84ad22772bce3ea37a'),
    transaction: await prismGet('/transactions/915d94940ea54c3a80cbfa328722f5a1'),
    track: await prismGet('/tracks/usps/9205590164917312751089'),
  };
}, 90_000);

afterAll(async () => {
  await prism?.stop();
});

beforeEach(() => {
  recorded = [];
  oauthOrigin = 'https://goshippo.com';
});

afterEach(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  servers = [];
});

describe('Shippo provider against Shippo public-api.yaml (Prism)', () => {
  it('verifyCredentials: one cheap GET /carrier_accounts?results=1 with the Bearer token and API version', async () => {
    await shippo(prism.origin).verifyCredentials(credentials);
    expectAllValid();
    expect(recorded).toHaveLength(1);
    expect(recorded[0]!.url.pathname).toBe('/carrier_accounts');
    expect(Object.fromEntries(recorded[0]!.url.searchParams)).toEqual({ results: '1' });
  });

  it('getRates: POST /shipments in mm and grams, synchronous, keyed by metadata; rates mapped to integer cents', async () => {
    const rates = await shippo(prism.origin).getRates(credentials, request);
    expectAllValid();
    expect(recorded).toHaveLength(1);
    expect(recorded[0]!.method).toBe('POST');
    expect(recorded[0]!.url.pathname).toBe('/shipments');
    expect(JSON.parse(recorded[0]!.requestBody)).toEqual({
      address_from: {
        name: 'Layerline Farm',
        company: 'Layerline',
        street1: '215 Clayton St.',
        city: 'San Francisco',
        state: 'CA',
        zip: '94117',
        country: 'US',
        phone: '+1 555 341 9393',
        email: 'farm@layerline.example',
      },
      address_to: {
        name: 'Ada Buyer',
        street1: '1 Main St',
        street2: 'Apt 4',
        city: 'Brooklyn',
        state: 'NY',
        zip: '11249',
        country: 'US',
      },
      parcels: [
        { length: '220', width: '160', height: '80.5', distance_unit: 'mm', weight: '640', mass_unit: 'g' },
      ],
      extra: { reference_1: 'LL-1001' },
      metadata: 'order-1001:parcel-1:attempt-1',
      async: false,
    });
    // The example rate: amount "5.5" USD, USPS Priority Mail Express, 2 days.
    expect(rates).toEqual([exampleRate]);
  });

  it('purchaseLabel: POST /transactions once (PDF, sync, metadata); a label still WAITING after polling is "try later"', async () => {
    const error = await shippo(prism.origin)
      .purchaseLabel(credentials, request, exampleRate)
      .catch((e: unknown) => e);
    expectAllValid();
    // The spec's example transaction is WAITING: the provider polls GET /transactions/{id}, then gives up.
    expect(error).toBeInstanceOf(ShippingUnavailableError);
    const [create, ...polls] = recorded;
    expect(create!.method).toBe('POST');
    expect(create!.url.pathname).toBe('/transactions');
    expect(JSON.parse(create!.requestBody)).toEqual({
      rate: 'adcfdddf8ec64b84ad22772bce3ea37a',
      label_file_type: 'PDF',
      async: false,
      metadata: 'order-1001:parcel-1:attempt-1',
    });
    expect(polls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual(
      Array(5).fill('GET /transactions/915d94940ea54c3a80cbfa328722f5a1'),
    );
  });

  it('findLabel: GET /transactions?results=100&page=1; no transaction with our metadata → null', async () => {
    const label = await shippo(prism.origin).findLabel(credentials, request);
    expectAllValid();
    expect(label).toBeNull();
    expect(recorded).toHaveLength(1); // a short page: nothing more to read
    expect(recorded[0]!.url.pathname).toBe('/transactions');
    expect(Object.fromEntries(recorded[0]!.url.searchParams)).toEqual({ results: '100', page: '1' });
  });

  it('findLabel: a transaction with our metadata still WAITING is "try later", never "none" (no second purchase)', async () => {
    // The example transaction's metadata is "string" and its status WAITING.
    const error = await shippo(prism.origin)
      .findLabel(credentials, { ...request, idempotencyKey: 'string' })
      .catch((e: unknown) => e);
    expectAllValid();
    expect(error).toBeInstanceOf(ShippingUnavailableError);
  });

  it('voidLabel: POST /refunds { transaction, async: false }; QUEUED counts as refunded', async () => {
    const result = await shippo(prism.origin).voidLabel(credentials, '915d94940ea54c3a80cbfa328722f5a1');
    expectAllValid();
    expect(recorded).toHaveLength(1);
    expect(JSON.parse(recorded[0]!.requestBody)).toEqual({
      transaction: '915d94940ea54c3a80cbfa328722f5a1',
      async: false,
    });
    expect(result).toEqual({ refunded: true, message: 'Refund requested (QUEUED)' });
  });

  it('track: GET /tracks/{carrier}/{number} mapped to status and events', async () => {
    const info = await shippo(prism.origin).track(credentials, 'usps', '9205590164917312751089');
    expectAllValid();
    expect(recorded[0]!.url.pathname).toBe('/tracks/usps/9205590164917312751089');
    expect(info).toEqual({
      status: 'unknown',
      events: [
        {
          eventId: 'string', // the example's object_id
          status: 'unknown',
          description: 'Your shipment has been delivered at the destination mailbox.',
          location: 'Las Vegas, NV, 89101, US',
          occurredAt: new Date('2016-07-23T00:00:00Z'),
        },
      ],
    });
  });

  it('listOrders: GET /orders?results=100&page=1 mapped to the account orders', async () => {
    const orders = await shippo(prism.origin).listOrders(credentials);
    expectAllValid();
    expect(Object.fromEntries(recorded[0]!.url.searchParams)).toEqual({ results: '100', page: '1' });
    expect(orders).toEqual([
      {
        objectId: 'adcfdddf8ec64b84ad22772bce3ea37a',
        orderNumber: '#1068',
        status: 'UNKNOWN',
        placedAt: '2016-09-23T01:28:12Z',
        toName: 'Shwan Ippotle',
        toCountry: 'US',
        itemCount: 1,
      },
    ]);
  });

  it('parseTrackWebhook reads the spec-shaped track_updated body and nothing else', () => {
    const provider = shippo(prism.origin);
    // webhooks.track is WebhookPayloadTrack: { event, test, data: Track }; data is the spec's example Track.
    const body = { event: 'track_updated', test: true, data: examples.track };
    expect(provider.parseTrackWebhook(body)).toEqual({
      carrierCode: 'usps',
      trackingNumber: '9205590164917312751089',
    });
    expect(provider.parseTrackWebhook({ ...body, event: 'transaction_updated' })).toBeNull();
    expect(provider.parseTrackWebhook({ event: 'track_updated', data: { carrier: 'usps' } })).toBeNull();
    expect(
      provider.parseTrackWebhook({
        event: 'track_updated',
        data: { carrier: '../admin', tracking_number: '1' },
      }),
    ).toBeNull();
    expect(provider.parseTrackWebhook('track_updated')).toBeNull();
    expect(provider.parseTrackWebhook(null)).toBeNull();
    expect(recorded).toHaveLength(0); // reading a webhook calls nobody
  });

  describe('negative: the mock really validates', () => {
    const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

    it('rejects a parcel weighed in a unit the spec does not list', async () => {
      const response = await fetch(`${prism.origin}/shipments`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          address_from: { country: 'US' },
          address_to: { country: 'US' },
          parcels: [
            { length: '1', width: '1', height: '1', distance_unit: 'mm', weight: '1', mass_unit: 'grams' },
          ],
        }),
      });
      expect(response.status).toBe(400);
      expect(response.headers.get('sl-violations')).toContain('mass_unit');
    });

    it('rejects a label purchase without a rate, and a call without the Authorization header', async () => {
      const noRate = await fetch(`${prism.origin}/transactions`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ label_file_type: 'PDF', async: false }),
      });
      expect(noRate.status).toBe(400);
      expect(noRate.headers.get('sl-violations')).toContain('rate');
      const anonymous = await fetch(`${prism.origin}/orders`);
      expect(anonymous.status).toBe(401);
    });
  });
});

describe('Shippo provider: documented failures (local servers)', () => {
  it("401 → ShippingAuthError with Shippo's detail, not retried", async () => {
    const shippoDouble = await startServer(() => ({ status: 401, body: { detail: 'Invalid token.' } }));
    const error = await shippo(shippoDouble.origin)
      .verifyCredentials(credentials)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShippingAuthError);
    expect((error as Error).message).toContain('Invalid token.');
    expect(shippoDouble.seen).toHaveLength(1);
  });

  it('429 with a long Retry-After → ShippingUnavailableError carrying it; a short one is waited out', async () => {
    const busy = await startServer(() => ({
      status: 429,
      headers: { 'retry-after': '120' },
      body: { detail: 'Slow down' },
    }));
    const error = await shippo(busy.origin)
      .getRates(credentials, request)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShippingUnavailableError);
    expect((error as ShippingUnavailableError).retryAfterSeconds).toBe(120);
    expect(busy.seen).toHaveLength(1);

    let attempts = 0;
    const briefly = await startServer(() => {
      attempts += 1;
      return attempts === 1
        ? { status: 429, headers: { 'retry-after': '1' } }
        : { status: 200, body: { results: [] } };
    });
    await shippo(briefly.origin).verifyCredentials(credentials);
    expect(briefly.seen).toHaveLength(2);
  });

  it('5xx on every attempt → ShippingUnavailableError after the retries', async () => {
    const down = await startServer(() => ({ status: 503, body: { detail: 'Service unavailable' } }));
    const error = await shippo(down.origin)
      .track(credentials, 'usps', '9205590164917312751089')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShippingUnavailableError);
    expect(down.seen).toHaveLength(4);
  });

  it('a timeout mid-purchase is not retried; findLabel then finds the label by its metadata', async () => {
    const boughtRate = {
      ...examples.shipment.rates[0],
      object_id: 'rate-ours',
      amount: '7.25',
      provider: 'UPS',
      servicelevel: { name: 'Ground', token: 'ups_ground' },
    };
    const ours = {
      ...examples.transaction,
      object_id: 'txn-ours',
      status: 'SUCCESS',
      metadata: request.idempotencyKey,
      rate: 'rate-ours', // list answers name the rate by id
      tracking_number: '1Z999AA10123456784',
      tracking_url_provider: 'https://www.ups.com/track?tracknum=1Z999AA10123456784',
      label_url: LABEL_URL,
    };
    const someoneElses = { ...ours, object_id: 'txn-other', metadata: 'order-999:parcel-1:attempt-1' };
    const double = await startServer((seen) => {
      if (seen.method === 'POST' && seen.path === '/transactions') return 'hang';
      if (seen.path === '/transactions')
        return { status: 200, body: { next: null, previous: null, results: [someoneElses, ours] } };
      if (seen.path === '/rates/rate-ours') return { status: 200, body: boughtRate };
      return { status: 404, body: { detail: 'Not found.' } };
    });
    const provider = shippo(double.origin, { timeoutMs: 300 });

    const error = await provider.purchaseLabel(credentials, request, exampleRate).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShippingUnavailableError);
    expect(double.seen.filter((s) => s.method === 'POST')).toHaveLength(1); // never bought twice
    expect(JSON.parse(double.seen[0]!.body).metadata).toBe(request.idempotencyKey);

    const label = await provider.findLabel(credentials, request);
    expect(label).toEqual({
      providerLabelId: 'txn-ours',
      trackingNumber: '1Z999AA10123456784',
      trackingUrl: 'https://www.ups.com/track?tracknum=1Z999AA10123456784',
      carrier: 'UPS',
      carrierCode: 'ups',
      service: 'Ground',
      costCents: 725,
      currency: 'USD',
      label: { url: LABEL_URL },
    });
    expect(double.seen.slice(1).map((s) => `${s.method} ${s.path}`)).toEqual([
      'GET /transactions',
      'GET /rates/rate-ours',
    ]);
  });

  it('purchaseLabel: QUEUED, then SUCCESS on the next look → the label, costed at the rate bought', async () => {
    const double = await startServer((seen) =>
      seen.method === 'POST'
        ? {
            status: 201,
            body: { ...examples.transaction, status: 'QUEUED', metadata: request.idempotencyKey },
          }
        : {
            status: 200,
            body: {
              ...examples.transaction,
              status: 'SUCCESS',
              metadata: request.idempotencyKey,
              label_url: LABEL_URL,
            },
          },
    );
    const label = await shippo(double.origin).purchaseLabel(credentials, request, exampleRate);
    expect(label).toEqual({
      providerLabelId: '915d94940ea54c3a80cbfa328722f5a1',
      trackingNumber: '9499907123456123456781',
      trackingUrl: 'https://tools.usps.com/go/TrackConfirmAction_input?origTrackNum=9499907123456123456781',
      carrier: 'USPS',
      carrierCode: 'usps',
      service: 'Priority Mail Express',
      costCents: 550,
      currency: 'USD',
      label: { url: LABEL_URL },
    });
    expect(double.seen.map((s) => `${s.method} ${s.path}`)).toEqual([
      'POST /transactions',
      'GET /transactions/915d94940ea54c3a80cbfa328722f5a1',
    ]);
  });

  it('a transaction with status ERROR: an address message → ShippingAddressError, anything else → ShippingRejectedError', async () => {
    let messages = [{ source: 'USPS', code: '', text: 'The address as submitted could not be found.' }];
    const double = await startServer(() => ({
      status: 201,
      body: { ...examples.transaction, status: 'ERROR', label_url: '', tracking_number: '', messages },
    }));
    const addressError = await shippo(double.origin)
      .purchaseLabel(credentials, request, exampleRate)
      .catch((e: unknown) => e);
    expect(addressError).toBeInstanceOf(ShippingAddressError);
    expect((addressError as Error).message).toBe('The address as submitted could not be found.');

    messages = [{ source: 'Shippo', code: '', text: 'Rate has expired, please create a new shipment.' }];
    const refused = await shippo(double.origin)
      .purchaseLabel(credentials, request, exampleRate)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ShippingRejectedError);
    expect((refused as Error).message).toContain('Rate has expired');
  });

  it('a shipment without rates: invalid address → ShippingAddressError; a carrier problem → ShippingRejectedError', async () => {
    const noValidation = { ...examples.shipment.address_to, validation_results: undefined };
    let shipment: Record<string, unknown> = {
      ...examples.shipment,
      address_from: noValidation,
      address_to: noValidation,
      rates: [],
      messages: [
        {
          source: 'USPS',
          code: '',
          text: 'The address as submitted could not be found. Please check for excessive abbreviations in the street address line or in the City name.',
        },
      ],
    };
    const double = await startServer(() => ({ status: 201, body: shipment }));
    const fromMessages = await shippo(double.origin)
      .getRates(credentials, request)
      .catch((e: unknown) => e);
    expect(fromMessages).toBeInstanceOf(ShippingAddressError);
    expect((fromMessages as Error).message).toContain('could not be found');

    // The example's address_to fails validation (is_valid: false, "street address is not a match").
    shipment = { ...examples.shipment, rates: [], messages: [] };
    const fromValidation = await shippo(double.origin)
      .getRates(credentials, request)
      .catch((e: unknown) => e);
    expect(fromValidation).toBeInstanceOf(ShippingAddressError);
    expect((fromValidation as Error).message).toContain('street address is not a match');

    // The example's own message: a carrier timeout, nothing wrong with the address.
    shipment = { ...examples.shipment, address_from: noValidation, address_to: noValidation, rates: [] };
    const carrier = await shippo(double.origin)
      .getRates(credentials, request)
      .catch((e: unknown) => e);
    expect(carrier).toBeInstanceOf(ShippingRejectedError);
    expect((carrier as Error).message).toContain('UPS API did not respond');
  });

  it("a 400 naming an address field → ShippingAddressError; another 4xx → ShippingRejectedError with Shippo's words", async () => {
    let reply: Reply = { status: 400, body: { address_to: { zip: ['This field is required.'] } } };
    const double = await startServer(() => reply);
    const address = await shippo(double.origin)
      .getRates(credentials, request)
      .catch((e: unknown) => e);
    expect(address).toBeInstanceOf(ShippingAddressError);
    expect((address as Error).message).toBe('address_to.zip: This field is required.');

    reply = { status: 404, body: { detail: 'Not found.' } };
    const missing = await shippo(double.origin)
      .track(credentials, 'usps', 'nope')
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ShippingRejectedError);
    expect((missing as ShippingRejectedError).status).toBe(404);
    expect((missing as Error).message).toContain('Not found.');
  });

  it('voidLabel: a refund in ERROR, or refused with 400, is refunded: false with the reason', async () => {
    let reply: Reply = { status: 201, body: { object_id: 'r1', status: 'ERROR', transaction: 'txn-1' } };
    const double = await startServer(() => reply);
    expect(await shippo(double.origin).voidLabel(credentials, 'txn-1')).toEqual({
      refunded: false,
      message: 'Shippo did not refund the label (ERROR)',
    });
    reply = { status: 400, body: { transaction: ['This label has already been used.'] } };
    const refused = await shippo(double.origin).voidLabel(credentials, 'txn-1');
    expect(refused.refunded).toBe(false);
    expect(refused.message).toContain('This label has already been used.');
  });

  it("downloadLabel fetches only Shippo label hosts over https, without the seller's token", async () => {
    const pdf = Buffer.from('%PDF-1.4\n%label\n');
    const fetched: { url: string; headers: Headers }[] = [];
    const labelFetch: typeof fetch = async (input, init) => {
      fetched.push({ url: String(input), headers: new Headers(init?.headers) });
      return new Response(String(input).includes('not-a-pdf') ? 'oops' : pdf, { status: 200 });
    };
    const provider = createShippoProvider({ fetch: labelFetch, http: FAST });

    expect(await provider.downloadLabel(credentials, LABEL_URL)).toEqual(pdf);
    expect(
      await provider.downloadLabel(
        credentials,
        'https://shippo-delivery-east.s3.amazonaws.com/773e.pdf?Signature=x',
      ),
    ).toEqual(pdf);
    expect(fetched.every((f) => f.headers.get('authorization') === null)).toBe(true);

    for (const url of [
      'http://deliver.goshippo.com/a.pdf',
      'https://evil.example/a.pdf',
      'https://goshippo.com.evil.example/a.pdf',
      'https://user@deliver.goshippo.com/a.pdf',
      'https://deliver.goshippo.com:8443/a.pdf',
      'https://other-bucket.s3.amazonaws.com/a.pdf',
      'http://127.0.0.1/a.pdf',
      'not a url',
    ]) {
      await expect(provider.downloadLabel(credentials, url)).rejects.toBeInstanceOf(ShippingRejectedError);
    }
    expect(fetched).toHaveLength(2);
    await expect(
      provider.downloadLabel(credentials, 'https://deliver.goshippo.com/not-a-pdf.pdf'),
    ).rejects.toBeInstanceOf(ShippingRejectedError);
  });

  it('credentials for another provider, or without a token, are refused before any call', async () => {
    const provider = shippo(prism.origin);
    await expect(provider.listOrders({ provider: 'sandbox' })).rejects.toBeInstanceOf(ShippingAuthError);
    await expect(provider.listOrders({ provider: 'shippo', accessToken: ' ' })).rejects.toBeInstanceOf(
      ShippingAuthError,
    );
    expect(recorded).toHaveLength(0);
  });
});

describe('Shippo OAuth (local token server; not in public-api.yaml)', () => {
  it("authorizeUrl: Shippo's documented authorize link with scope * and our state", () => {
    const url = new URL(shippo(prism.origin).authorizeUrl('state-123'));
    expect(url.origin + url.pathname).toBe('https://goshippo.com/oauth/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'partner-id',
      scope: '*',
      state: 'state-123',
    });
  });

  it('exchangeCode posts the documented form and returns the access token; a refused code is ShippingAuthError', async () => {
    let reply: Reply = {
      status: 200,
      body: { access_token: 'oauth.new-token', token_type: 'bearer', scope: '*' },
    };
    const tokenServer = await startServer(() => reply);
    oauthOrigin = tokenServer.origin;

    expect(await shippo(prism.origin).exchangeCode('code-abc')).toEqual({ accessToken: 'oauth.new-token' });
    expect(tokenServer.seen).toHaveLength(1);
    const [exchange] = tokenServer.seen;
    expect(`${exchange!.method} ${exchange!.path}`).toBe('POST /oauth/access_token');
    expect(exchange!.headers['content-type']).toContain('application/x-www-form-urlencoded');
    expect(exchange!.headers.authorization).toBeUndefined();
    expect(Object.fromEntries(new URLSearchParams(exchange!.body))).toEqual({
      client_id: 'partner-id',
      client_secret: 'partner-secret',
      code: 'code-abc',
      grant_type: 'authorization_code',
    });

    reply = {
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Invalid authorization code' },
    };
    const error = await shippo(prism.origin)
      .exchangeCode('used-code')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShippingAuthError);
    expect((error as Error).message).toContain('Invalid authorization code');
    expect(tokenServer.seen).toHaveLength(2); // not retried
  });

  it('without the partner id and secret, OAuth is refused as not configured', async () => {
    const provider = createShippoProvider({ fetch: recordingFetch, http: FAST });
    expect(() => provider.authorizeUrl('s')).toThrow(ShippingRejectedError);
    await expect(provider.exchangeCode('c')).rejects.toBeInstanceOf(ShippingRejectedError);
    expect(recorded).toHaveLength(0);
  });
});
