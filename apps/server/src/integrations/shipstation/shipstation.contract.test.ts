import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ShippingAddress } from '@layerline/contracts';
import {
  ShippingAddressError,
  ShippingAuthError,
  ShippingRejectedError,
  ShippingUnavailableError,
  type ProviderRate,
  type ShipmentRequest,
  type ShippingCredentials,
} from '../../modules/shipping/shipping-provider.ts';
import { startPrismMock, type PrismMock } from '../http-client/prism-mock.ts';
import { createShipStationProvider } from './shipstation-provider.ts';
import { ShipStationLabelNeedsReprintError } from './shipstation-v1.ts';

/**
 * Contract tests: every request the ShipStation provider builds goes to Prism serving ShipStation's
 * API descriptions, which rejects what the description does not allow:
 * - v2: /work/shared/contracts/shipstation/openapi.yaml (ShipStation's own file);
 * - v1: /work/shared/contracts/shipstation-v1/openapi.yaml (community-made from ShipStation's v1
 *   docs; /work/shared/contracts/README.md, "ShipStation API v1: trust and gaps").
 * Both files have defects that refuse real, documented requests; they are patched in memory (copies in
 * a temporary directory, the files are never edited), each patch below saying why.
 *
 * Prism answers with the files' examples, placeholders included ("string" as a currency), so the
 * failures ShipStation documents (401, 429 with its delay, a timeout mid-purchase, address errors)
 * and realistic v2 rates are played by a small local server speaking the same shapes.
 */

const V1_SPEC = '/work/shared/contracts/shipstation-v1/openapi.yaml';
const V2_SPEC = '/work/shared/contracts/shipstation/openapi.yaml';

const replaceOnce = (text: string, from: string, to: string): string => {
  if (text.split(from).length !== 2)
    throw new Error(`The ShipStation spec changed: review the in-memory patch at\n${from}`);
  return text.replace(from, to);
};

/** Address models whose `required` list also holds optional fields (ShipStation API v1 docs, Address model). */
const relaxV1Address = (text: string, title: string): string =>
  replaceOnce(
    text,
    `      title: ${title}\n      required:\n        - name\n        - company\n        - street1\n        - street2\n        - city\n        - state\n        - postalCode\n        - country\n        - residential\n`,
    `      title: ${title}\n      required:\n        - name\n        - street1\n        - city\n        - postalCode\n        - country\n`,
  );

/**
 * The v1 file's `required` lists were inferred from the doc examples; ShipStation's v1 docs (the
 * tables in the same file's descriptions, and its Address model) mark these fields optional, and the
 * client leaves them out when it has nothing to send:
 * - POST /shipments/getrates: only carrierCode, fromPostalCode, toCountry, toPostalCode and weight
 *   are required (toState is left out for an address with no state);
 * - POST /shipments/createlabel, the Address model: company, street2, state and residential are optional.
 * The other known defects are left as published, because the client sends those fields anyway (the
 * stricter file checks more): createlabel's `testLabel`, markasshipped's shipDate, trackingNumber,
 * notifyCustomer and notifySalesChannel; createlabelfororder's object options typed as strings are
 * never sent.
 */
const patchV1 = (text: string): string => {
  return replaceOnce(
    relaxV1Address(relaxV1Address(text, 'ShipFrom'), 'ShipTo11'),
    '      title: GetRatesrequest\n      required:\n        - carrierCode\n        - fromPostalCode\n        - toState\n        - toCountry\n        - toPostalCode\n        - toCity\n        - weight\n        - dimensions\n        - confirmation\n        - residential\n',
    '      title: GetRatesrequest\n      required:\n        - carrierCode\n        - fromPostalCode\n        - toCountry\n        - toPostalCode\n        - weight\n',
  );
};

/**
 * ShipStation v2's file:
 * - `calculate_rates_request_body` (POST /v2/rates) requires both `shipment_id` and `shipment` and
 *   forbids every property, the real ones being inside a `oneOf` (contracts README: "no request can
 *   pass"); patched to what its own description says: a `shipment`, with `rate_options`;
 * - `address_validating_shipment` (that shipment) requires `carrier_id` and `service_code`, which a
 *   rate request across carriers does not have: ShipStation's "Get shipping rates" names the carriers
 *   in `rate_options.carrier_ids` (both fields are marked x-nullable in the same schema).
 */
const patchV2 = (text: string): string => {
  const patched = replaceOnce(
    text,
    `      description: A rate shipment request body
      required:
        - shipment_id
        - shipment
      additionalProperties: false
      oneOf:
        - title: shipment_id_request
          type: object
          properties:
            shipment_id:
              allOf:
                - $ref: '#/components/schemas/se_id'
              description: A string that uniquely identifies the shipment
        - title: shipment_request
          type: object
          properties:
            shipment:
              allOf:
                - $ref: '#/components/schemas/address_validating_shipment'
              description: The shipment object
`,
    `      description: A rate shipment request body
      required:
        - shipment
      additionalProperties: false
      properties:
        shipment:
          allOf:
            - $ref: '#/components/schemas/address_validating_shipment'
          description: The shipment object
`,
  );
  return replaceOnce(
    patched,
    `      description: An address validating shipment
      required:
        - shipment_id
        - carrier_id
        - service_code
        - ship_to
        - ship_from
`,
    `      description: An address validating shipment
      required:
        - shipment_id
        - ship_to
        - ship_from
`,
  );
};

interface Recorded {
  method: string;
  url: URL;
  status: number;
  /** Prism's objections to our request (its notes on the files' own examples are left out). */
  violations: string | null;
  headers: Headers;
  body: unknown;
}

let recorded: Recorded[] = [];

/**
 * Prism puts request violations in `sl-violations`, or, when the file declares no error answer for the
 * operation (every v1 one), in the body of its own 422 (`validation`). Violations located in the
 * response are the files' examples breaking their own schemas, not our requests.
 */
const requestViolations = async (response: Response): Promise<string | null> => {
  let list: { location: string[]; message: string }[] = [];
  const header = response.headers.get('sl-violations');
  if (header) list = JSON.parse(header) as typeof list;
  else if ((response.headers.get('content-type') ?? '').includes('problem+json'))
    list = ((await response.clone().json()) as { validation?: typeof list }).validation ?? [];
  const ours = list.filter((violation) => violation.location[0] !== 'response');
  return ours.length ? ours.map((v) => `${v.location.join('.')}: ${v.message}`).join('; ') : null;
};

const recordingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  recorded.push({
    method: init?.method ?? 'GET',
    url: new URL(input instanceof Request ? input.url : input),
    status: response.status,
    violations: await requestViolations(response),
    headers: new Headers(init?.headers),
    body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
  });
  return response;
};

const expectAllValid = () => {
  expect(recorded.length).toBeGreaterThan(0);
  for (const call of recorded)
    expect({
      call: `${call.method} ${call.url.pathname}`,
      status: call.status,
      violations: call.violations,
    }).toEqual({
      call: `${call.method} ${call.url.pathname}`,
      status: expect.toSatisfy((status: number) => status >= 200 && status < 300),
      violations: null,
    });
};

const NOW = new Date('2026-11-26T12:00:00.000Z');

const FROM: ShippingAddress = {
  name: 'Layerline Print Farm',
  company: 'Layerline',
  line1: '2815 Exposition Blvd',
  line2: 'Ste 200',
  city: 'Austin',
  region: 'TX',
  postalCode: '78703',
  country: 'US',
  phone: '5125550100',
  email: '',
};

const TO: ShippingAddress = {
  name: 'Ada Buyer',
  company: '',
  line1: '1 Main St',
  line2: '',
  city: 'New York',
  region: 'NY',
  postalCode: '10001',
  country: 'US',
  phone: '2125550100',
  email: 'ada@example.com',
};

const shipment: ShipmentRequest = {
  from: FROM,
  to: TO,
  parcel: { lengthMm: 203, widthMm: 152, heightMm: 105, weightGrams: 449.2 },
  reference: 'LL-1001',
  idempotencyKey: 'order-1:0:1',
};

const V1: ShippingCredentials = {
  provider: 'shipstation',
  apiVersion: 'v1',
  apiKey: 'v1-key',
  apiSecret: 'v1-secret',
};
const V2: ShippingCredentials = { provider: 'shipstation', apiVersion: 'v2', apiKey: 'v2-key' };

const V2_RATE: ProviderRate = {
  rateId: 'v2:se-28529731:usps_priority_mail',
  carrier: 'DHL Express',
  carrierCode: 'dhl_express',
  service: 'DHL Express Worldwide',
  serviceCode: 'usps_priority_mail',
  amountCents: 1200,
  currency: 'USD',
  estimatedDays: 2,
};

let v1Prism: PrismMock;
let v2Prism: PrismMock;
let specDir: string;

/* ---------- A local ShipStation for what Prism cannot play ---------- */

interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Answer late (a timeout on our side), after the request has had its effect. */
  delayMs?: number;
}
interface Served {
  method: string;
  url: URL;
  body: unknown;
}
type Route = (request: Served) => Reply;

let local: Server;
let localOrigin: string;
let routes: Record<string, Route> = {};
let served: Served[] = [];

const startLocalShipStation = async () => {
  local = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', localOrigin);
      const request = {
        method: req.method ?? 'GET',
        url,
        body: raw ? (JSON.parse(raw) as unknown) : undefined,
      };
      served.push(request);
      const route = routes[`${request.method} ${url.pathname}`];
      const reply = route ? route(request) : { status: 404, body: { Message: 'No such route' } };
      setTimeout(() => {
        if (res.destroyed) return;
        const isBytes = Buffer.isBuffer(reply.body);
        res.writeHead(reply.status, {
          'content-type': isBytes ? 'application/pdf' : 'application/json',
          ...reply.headers,
        });
        res.end(isBytes ? reply.body : reply.body === undefined ? '' : JSON.stringify(reply.body));
      }, reply.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
  localOrigin = `http://127.0.0.1:${(local.address() as AddressInfo).port}`;
};

const prismProvider = () =>
  createShipStationProvider({
    fetch: recordingFetch,
    v1BaseUrl: v1Prism.origin,
    v2BaseUrl: v2Prism.origin,
    now: () => NOW,
    http: { baseDelayMs: 5, maxDelayMs: 20 },
  });

const localProvider = () =>
  createShipStationProvider({
    v1BaseUrl: localOrigin,
    v2BaseUrl: localOrigin,
    now: () => NOW,
    http: { timeoutMs: 300, maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
  });

const rejection = async (promise: Promise<unknown>): Promise<Error> => {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
};

beforeAll(async () => {
  specDir = mkdtempSync(join(tmpdir(), 'shipstation-specs-'));
  writeFileSync(join(specDir, 'v1.yaml'), patchV1(readFileSync(V1_SPEC, 'utf8')));
  writeFileSync(join(specDir, 'v2.yaml'), patchV2(readFileSync(V2_SPEC, 'utf8')));
  [v1Prism, v2Prism] = await Promise.all([
    startPrismMock(join(specDir, 'v1.yaml')),
    startPrismMock(join(specDir, 'v2.yaml')),
    startLocalShipStation(),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([v1Prism?.stop(), v2Prism?.stop()]);
  local?.closeAllConnections();
  await new Promise<void>((resolve) => local?.close(() => resolve()));
  if (specDir) rmSync(specDir, { recursive: true, force: true });
});

beforeEach(() => {
  recorded = [];
  served = [];
  routes = {};
});

describe('ShipStation classic API (v1) against its OpenAPI file (Prism)', () => {
  it('verifyCredentials: one GET /carriers with Basic auth, key as user and secret as password', async () => {
    await prismProvider().verifyCredentials(V1);
    expectAllValid();
    expect(recorded.map((c) => `${c.method} ${c.url.pathname}`)).toEqual(['GET /carriers']);
    expect(recorded[0]!.headers.get('authorization')).toBe(
      `Basic ${Buffer.from('v1-key:v1-secret').toString('base64')}`,
    );
  });

  it('getRates: lists the carriers, then POST /shipments/getrates once per carrier code, in grams and whole centimetres', async () => {
    const rates = await prismProvider().getRates(V1, shipment);
    expectAllValid();
    // The example lists stamps_com twice (two accounts): v1 rates by carrier code, so it is asked once.
    expect(
      recorded.map(
        (c) =>
          `${c.method} ${c.url.pathname} ${(c.body as { carrierCode?: string } | undefined)?.carrierCode ?? ''}`,
      ),
    ).toEqual([
      'GET /carriers ',
      'POST /shipments/getrates stamps_com',
      'POST /shipments/getrates ups',
      'POST /shipments/getrates fedex',
      'POST /shipments/getrates endicia',
    ]);
    expect(recorded[1]!.body).toEqual({
      carrierCode: 'stamps_com',
      fromPostalCode: '78703',
      toState: 'NY',
      toCountry: 'US',
      toPostalCode: '10001',
      toCity: 'New York',
      weight: { value: 450, units: 'grams' },
      dimensions: { units: 'centimeters', length: 21, width: 16, height: 11 },
      confirmation: 'none',
      residential: true, // no company: a person's address
    });
    // The mock answers its one example (FedEx services) whatever the carrier: 7 rates for each of 4 carriers.
    expect(rates).toHaveLength(28);
    expect(rates[0]).toEqual({
      rateId: 'v1:stamps_com:fedex_first_overnight',
      carrier: 'USPS',
      carrierCode: 'usps',
      service: 'FedEx First Overnight®',
      serviceCode: 'fedex_first_overnight',
      amountCents: 9043, // shipmentCost 87.80 + otherCost 2.63
      currency: 'USD',
      estimatedDays: null,
    });
    expect(rates.find((r) => r.rateId === 'v1:ups:fedex_ground')).toMatchObject({
      carrier: 'UPS',
      carrierCode: 'ups',
      amountCents: 858,
    });
  });

  it('getRates and purchaseLabel to an address with no state and no company leave those fields out', async () => {
    const provider = prismProvider();
    const london: ShippingAddress = {
      ...TO,
      name: 'Grace Buyer',
      line1: '10 Downing St',
      city: 'London',
      region: '',
      postalCode: 'SW1A 2AA',
      country: 'GB',
      phone: '',
    };
    const abroad = { ...shipment, to: london };
    const [rate] = await provider.getRates(V1, abroad);
    await provider.purchaseLabel(V1, abroad, rate!);
    expectAllValid();
    expect(recorded[1]!.body).not.toHaveProperty('toState');
    expect((recorded.at(-1)!.body as { shipTo: unknown }).shipTo).toEqual({
      name: 'Grace Buyer',
      street1: '10 Downing St',
      city: 'London',
      postalCode: 'SW1A 2AA',
      country: 'GB',
      residential: true,
    });
  });

  it('purchaseLabel: POST /shipments/createlabel with the rate carrier and service; the PDF comes back as bytes', async () => {
    const provider = prismProvider();
    const rate = (await provider.getRates(V1, shipment)).find((r) => r.rateId === 'v1:fedex:fedex_ground')!;
    recorded = [];
    const label = await provider.purchaseLabel(V1, shipment, rate);
    expectAllValid();
    expect(recorded).toHaveLength(1);
    expect(recorded[0]!.url.pathname).toBe('/shipments/createlabel');
    expect(recorded[0]!.body).toEqual({
      carrierCode: 'fedex',
      serviceCode: 'fedex_ground',
      packageCode: 'package',
      confirmation: 'none',
      shipDate: '2026-11-26',
      weight: { value: 450, units: 'grams' },
      dimensions: { units: 'centimeters', length: 21, width: 16, height: 11 },
      shipFrom: {
        name: 'Layerline Print Farm',
        company: 'Layerline',
        street1: '2815 Exposition Blvd',
        street2: 'Ste 200',
        city: 'Austin',
        state: 'TX',
        postalCode: '78703',
        country: 'US',
        phone: '5125550100',
      },
      shipTo: {
        name: 'Ada Buyer',
        street1: '1 Main St',
        city: 'New York',
        state: 'NY',
        postalCode: '10001',
        country: 'US',
        phone: '2125550100',
        residential: true,
      },
      testLabel: false,
    });
    expect(label).toMatchObject({
      providerLabelId: '123456789',
      trackingNumber: '782390443992',
      trackingUrl: 'https://www.fedex.com/fedextrack/?trknbr=782390443992',
      carrier: 'FedEx',
      carrierCode: 'fedex',
      service: 'FedEx Ground®',
      costCents: 906,
      currency: 'USD',
    });
    expect('pdf' in label.label && label.label.pdf.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('voidLabel: POST /shipments/voidlabel with the numeric shipment id; a non-numeric id is refused before any request', async () => {
    const provider = prismProvider();
    expect(await provider.voidLabel(V1, '123456789')).toEqual({
      refunded: true,
      message: 'Label voided successfully',
    });
    expectAllValid();
    expect(recorded[0]!.body).toEqual({ shipmentId: 123456789 });
    recorded = [];
    await expect(provider.voidLabel(V1, '12/../1')).rejects.toBeInstanceOf(ShippingRejectedError);
    expect(recorded).toHaveLength(0);
  });

  it('findLabel: GET /shipments by recipient and creation date; a match stops the purchase (its PDF cannot be had again)', async () => {
    const provider = prismProvider();
    // The example's first shipment went to Yoda, 78652-3602: a request to him matches it.
    const yoda = {
      ...shipment,
      to: { ...TO, name: 'Yoda', postalCode: '78652', region: 'TX', city: 'Manchaca' },
    };
    const error = await rejection(provider.findLabel(V1, yoda));
    expectAllValid();
    expect(Object.fromEntries(recorded[0]!.url.searchParams)).toEqual({
      recipientName: 'Yoda',
      createDateStart: '2026-11-24 12:00:00',
      sortBy: 'CreateDate',
      sortDir: 'DESC',
      pageSize: '100',
    });
    expect(error).toBeInstanceOf(ShipStationLabelNeedsReprintError);
    expect(error).toBeInstanceOf(ShippingRejectedError);
    expect(error.message).toContain('9400111899561704681189');
    expect(error.message).toContain('void it in ShipStation');
    expect((error as ShipStationLabelNeedsReprintError).found).toEqual([
      {
        shipmentId: 33974374,
        trackingNumber: '9400111899561704681189',
        carrierCode: 'usps',
        createdAt: '2014-10-03T06:51:33.627',
      },
    ]);
    // Nobody in the answer is Ada Buyer at 10001: nothing was bought for her.
    recorded = [];
    expect(await provider.findLabel(V1, shipment)).toBeNull();
    expectAllValid();
  });

  it('track: v1 has no tracking endpoint, so no request is made and the status is unknown', async () => {
    expect(await prismProvider().track(V1, 'usps', '9400111899561704681189')).toEqual({
      status: 'unknown',
      events: [],
    });
    expect(recorded).toHaveLength(0);
  });

  it('createLabelForOrder: POST /orders/createlabelfororder for a ShipStation order; the PDF comes back as bytes', async () => {
    const label = await prismProvider().createLabelForOrder(V1, {
      shipStationOrderId: 93348442,
      carrierCode: 'stamps_com',
      serviceCode: 'usps_priority_mail',
      packageCode: 'package',
      weightGrams: 907.2,
      testLabel: true,
    });
    expectAllValid();
    expect(recorded[0]!.url.pathname).toBe('/orders/createlabelfororder');
    expect(recorded[0]!.body).toEqual({
      orderId: 93348442,
      carrierCode: 'stamps_com',
      serviceCode: 'usps_priority_mail',
      packageCode: 'package',
      confirmation: 'none',
      shipDate: '2026-11-26',
      weight: { value: 908, units: 'grams' },
      testLabel: true,
    });
    expect(label).toMatchObject({
      providerLabelId: '72513480',
      trackingNumber: '248201115029520',
      trackingUrl: 'https://tools.usps.com/go/TrackConfirmAction?tLabels=248201115029520',
      carrier: 'USPS',
      carrierCode: 'usps',
      service: 'usps_priority_mail',
      costCents: 730,
      currency: 'USD',
    });
    expect('pdf' in label.label && label.label.pdf.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('markOrderShipped: POST /orders/markasshipped with the tracking and who to notify', async () => {
    const result = await prismProvider().markOrderShipped(V1, {
      shipStationOrderId: 93348442,
      carrierCode: 'usps',
      trackingNumber: '9400111899223197428490',
      shipDate: '2026-11-26',
      notifyCustomer: true,
      notifySalesChannel: false,
    });
    expectAllValid();
    expect(recorded[0]!.body).toEqual({
      orderId: 93348442,
      carrierCode: 'usps',
      shipDate: '2026-11-26',
      trackingNumber: '9400111899223197428490',
      notifyCustomer: true,
      notifySalesChannel: false,
    });
    expect(result).toEqual({ orderId: 123456789, orderNumber: 'ABC123' });
  });

  it("fetchWebhookResource: GETs a SHIP_NOTIFY resource_url on ShipStation's host with the seller's keys; any other host is refused unsent", async () => {
    const provider = prismProvider();
    // A SHIP_NOTIFY resource_url names a batch of shipments (batchId is not in the v1 file; Prism lets it pass).
    const shipped = await provider.fetchWebhookResource(
      V1,
      `${v1Prism.origin}/shipments?batchId=100301&includeShipmentItems=false`,
    );
    expectAllValid();
    expect(recorded[0]!.headers.get('authorization')).toBe(
      `Basic ${Buffer.from('v1-key:v1-secret').toString('base64')}`,
    );
    expect(shipped).toEqual([
      { trackingNumber: '9400111899561704681189', carrierCode: 'usps', voided: false },
      { trackingNumber: '9400111899561704681196', carrierCode: 'usps', voided: false },
    ]);
    recorded = [];
    for (const url of [
      'https://evil.example/shipments',
      `${v1Prism.origin.replace('127.0.0.1', 'localhost')}/shipments`,
      `${v2Prism.origin}/shipments`,
      'not a url',
    ])
      await expect(provider.fetchWebhookResource(V1, url)).rejects.toBeInstanceOf(ShippingRejectedError);
    expect(recorded).toHaveLength(0);
  });

  it('ShipStation orders need the classic keys: v2 keys (and other providers) are refused before any request', async () => {
    const provider = prismProvider();
    const input = {
      shipStationOrderId: 1,
      carrierCode: 'usps',
      trackingNumber: '1Z',
      shipDate: '2026-11-26',
      notifyCustomer: false,
      notifySalesChannel: false,
    };
    const error = await rejection(provider.markOrderShipped(V2, input));
    expect(error).toBeInstanceOf(ShippingRejectedError);
    expect(error.message).toBe('ShipStation v2 has no orders; use the classic API keys');
    await expect(provider.fetchWebhookResource(V2, `${v1Prism.origin}/shipments`)).rejects.toBeInstanceOf(
      ShippingRejectedError,
    );
    await expect(
      provider.createLabelForOrder(V2, {
        shipStationOrderId: 1,
        carrierCode: 'usps',
        serviceCode: 's',
        packageCode: 'package',
        weightGrams: 10,
        testLabel: false,
      }),
    ).rejects.toBeInstanceOf(ShippingRejectedError);
    await expect(
      provider.getRates({ provider: 'shippo', accessToken: 't' }, shipment),
    ).rejects.toBeInstanceOf(ShippingRejectedError);
    expect(recorded).toHaveLength(0);
  });
});

describe('ShipStation API v2 against its OpenAPI file (Prism)', () => {
  const v2Headers = () => recorded.map((c) => c.headers.get('api-key'));

  it('verifyCredentials: one GET /v2/carriers with the API-Key header', async () => {
    await prismProvider().verifyCredentials(V2);
    expectAllValid();
    expect(recorded.map((c) => `${c.method} ${c.url.pathname}`)).toEqual(['GET /v2/carriers']);
    expect(v2Headers()).toEqual(['v2-key']);
  });

  it('getRates: POST /v2/rates for every carrier of the account, in grams and centimetres to the millimetre', async () => {
    const rates = await prismProvider().getRates(V2, shipment);
    expectAllValid();
    expect(recorded.map((c) => `${c.method} ${c.url.pathname}`)).toEqual([
      'GET /v2/carriers',
      'POST /v2/rates',
    ]);
    expect(recorded[1]!.body).toEqual({
      rate_options: { carrier_ids: ['se-28529731'] },
      shipment: {
        ship_from: {
          name: 'Layerline Print Farm',
          phone: '5125550100',
          company_name: 'Layerline',
          address_line1: '2815 Exposition Blvd',
          address_line2: 'Ste 200',
          city_locality: 'Austin',
          state_province: 'TX',
          postal_code: '78703',
          country_code: 'US',
          address_residential_indicator: 'unknown',
        },
        ship_to: {
          name: 'Ada Buyer',
          phone: '2125550100',
          email: 'ada@example.com',
          address_line1: '1 Main St',
          city_locality: 'New York',
          state_province: 'NY',
          postal_code: '10001',
          country_code: 'US',
          address_residential_indicator: 'unknown',
        },
        packages: [
          {
            weight: { value: 450, unit: 'gram' },
            dimensions: { unit: 'centimeter', length: 20.3, width: 15.2, height: 10.5 },
          },
        ],
      },
    });
    // The example's one rate is priced in the placeholder currency "string": not comparable, left out
    // (realistic rates are mapped in the local-server test below).
    expect(rates).toEqual([]);
  });

  it('purchaseLabel: POST /v2/labels with our key as external_shipment_id and the reference on the label; answers a link', async () => {
    const label = await prismProvider().purchaseLabel(V2, shipment, V2_RATE);
    expectAllValid();
    expect(recorded.map((c) => `${c.method} ${c.url.pathname}`)).toEqual(['POST /v2/labels']);
    const body = recorded[0]!.body as {
      shipment: Record<string, unknown>;
      label_format: string;
      label_download_type: string;
    };
    expect(body.label_format).toBe('pdf');
    expect(body.label_download_type).toBe('url');
    expect(body.shipment).toMatchObject({
      carrier_id: 'se-28529731',
      service_code: 'usps_priority_mail',
      external_shipment_id: 'order-1:0:1',
      shipment_number: 'LL-1001',
      confirmation: 'none',
      insurance_provider: 'none',
      packages: [
        {
          weight: { value: 450, unit: 'gram' },
          dimensions: { unit: 'centimeter', length: 20.3, width: 15.2, height: 10.5 },
          label_messages: { reference1: 'LL-1001', reference2: null, reference3: null },
        },
      ],
    });
    expect(label).toEqual({
      providerLabelId: 'se-28529731',
      trackingNumber: '782758401696',
      trackingUrl:
        'https://www.dhl.com/global-en/home/tracking/tracking-express.html?submit=1&tracking-id=782758401696',
      carrier: 'DHL Express',
      carrierCode: 'dhl_express',
      service: 'DHL Express Worldwide',
      costCents: 2400, // shipment_cost 12 + insurance_cost 12 in the example
      currency: 'USD', // the example's "string" is no currency: the rate's
      label: { url: 'http://api.shipstation.com/v2/labels/se-28529731' },
    });
  });

  it('findLabel: the shipment by our external id, then its labels; the example label is voided, so nothing is found', async () => {
    expect(await prismProvider().findLabel(V2, shipment)).toBeNull();
    expectAllValid();
    expect(recorded.map((c) => `${c.method} ${c.url.pathname}${c.url.search}`)).toEqual([
      'GET /v2/shipments/external_shipment_id/order-1%3A0%3A1',
      'GET /v2/labels?shipment_id=se-28529731',
    ]);
  });

  it('voidLabel: PUT /v2/labels/{label_id}/void; a refusal is not a refund; a malformed id is refused unsent', async () => {
    const provider = prismProvider();
    expect(await provider.voidLabel(V2, 'se-28529731')).toEqual({
      refunded: false,
      message: 'Unable to delete FedEx shipment. Unable to retrieve record from database.',
    });
    expectAllValid();
    expect(`${recorded[0]!.method} ${recorded[0]!.url.pathname}`).toBe('PUT /v2/labels/se-28529731/void');
    recorded = [];
    await expect(provider.voidLabel(V2, 'se-1/../../v2/users')).rejects.toBeInstanceOf(ShippingRejectedError);
    expect(recorded).toHaveLength(0);
  });

  it('track: finds the label by tracking number, then GET /v2/labels/{label_id}/track, mapped to our statuses', async () => {
    const provider = prismProvider();
    const info = await provider.track(V2, 'dhl_express', '782758401696');
    expectAllValid();
    expect(recorded.map((c) => `${c.method} ${c.url.pathname}${c.url.search}`)).toEqual([
      'GET /v2/labels?tracking_number=782758401696',
      'GET /v2/labels/se-28529731/track',
    ]);
    // COLLECTION_FAILED: "the delivery company will try again soon": not yet in transit.
    expect(info).toEqual({
      status: 'pre_transit',
      events: [
        {
          eventId: '2018-09-23T15:00:00.000Z:DLD',
          status: 'pre_transit',
          description: 'Delivered, In/At Mailbox',
          location: 'AUSTIN, TX, 78756, CA',
          occurredAt: new Date('2018-09-23T15:00:00.000Z'),
        },
      ],
    });
    // A label of another carrier is not this parcel: unknown, without asking for its tracking.
    recorded = [];
    expect(await provider.track(V2, 'ups', '782758401696')).toEqual({ status: 'unknown', events: [] });
    expect(recorded).toHaveLength(1);
  });

  it("downloadLabel: GETs a link on ShipStation's API host with the key, and wants a PDF; other hosts are refused unsent", async () => {
    const provider = prismProvider();
    const error = await rejection(
      provider.downloadLabel(V2, `${v2Prism.origin}/v2/downloads/10/abc123/label-28529731.pdf`),
    );
    expectAllValid(); // the request itself is what the file allows…
    expect(v2Headers()).toEqual(['v2-key']);
    // …but the mock's body is the placeholder "string", which is no label.
    expect(error).toBeInstanceOf(ShippingRejectedError);
    expect(error.message).toContain('not a PDF');
    recorded = [];
    await expect(provider.downloadLabel(V2, 'https://evil.example/label.pdf')).rejects.toBeInstanceOf(
      ShippingRejectedError,
    );
    await expect(
      provider.downloadLabel(V2, 'http://api.shipstation.com/v2/labels/se-1'),
    ).rejects.toBeInstanceOf(ShippingRejectedError);
    expect(recorded).toHaveLength(0);
  });
});

describe('negative: the mocks really validate', () => {
  const basic = `Basic ${Buffer.from('k:s').toString('base64')}`;

  it('v1 refuses a getrates body without carrierCode, and a weight that is not a number', async () => {
    const noCarrier = await fetch(`${v1Prism.origin}/shipments/getrates`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/json' },
      body: JSON.stringify({
        fromPostalCode: '78703',
        toCountry: 'US',
        toPostalCode: '10001',
        weight: { value: 450, units: 'grams' },
      }),
    });
    expect(noCarrier.status).toBe(422);
    expect(await requestViolations(noCarrier)).toContain('carrierCode');
    const badWeight = await fetch(`${v1Prism.origin}/shipments/getrates`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/json' },
      body: JSON.stringify({
        carrierCode: 'ups',
        fromPostalCode: '78703',
        toCountry: 'US',
        toPostalCode: '10001',
        weight: { value: 'heavy', units: 'grams' },
      }),
    });
    expect(badWeight.status).toBe(422);
    expect(await requestViolations(badWeight)).toContain('weight.value');
  });

  it('v1 refuses a request without Basic auth', async () => {
    expect((await fetch(`${v1Prism.origin}/carriers`)).status).toBe(401);
  });

  it('v2 refuses a rates request with an unknown weight unit, and any request without API-Key', async () => {
    const response = await fetch(`${v2Prism.origin}/v2/rates`, {
      method: 'POST',
      headers: { 'api-key': 'k', 'content-type': 'application/json' },
      body: JSON.stringify({
        rate_options: { carrier_ids: ['se-1'] },
        shipment: {
          ship_from: {
            name: 'A',
            phone: '1',
            address_line1: 'x',
            city_locality: 'y',
            state_province: 'TX',
            postal_code: '1',
            country_code: 'US',
            address_residential_indicator: 'no',
          },
          ship_to: {
            name: 'B',
            phone: '1',
            address_line1: 'x',
            city_locality: 'y',
            state_province: 'NY',
            postal_code: '1',
            country_code: 'US',
            address_residential_indicator: 'no',
          },
          packages: [{ weight: { value: 450, unit: 'stone' } }],
        },
      }),
    });
    expect(response.status).toBe(400);
    expect(await requestViolations(response)).toContain('packages.0.weight.unit');
    expect((await fetch(`${v2Prism.origin}/v2/carriers`)).status).toBe(401);
  });
});

describe("ShipStation's documented failures (local server)", () => {
  it('401 → ShippingAuthError, on both APIs', async () => {
    routes['GET /carriers'] = () => ({
      status: 401,
      headers: { 'content-type': 'text/plain' },
      body: '401 Unauthorized',
    });
    // v2 errors: the file's error_response_body.
    routes['GET /v2/carriers'] = () => ({
      status: 401,
      body: {
        request_id: '9f5c1f3e-0b3c-4a5e-9a4c-1f2d3e4a5b6c',
        errors: [
          {
            error_source: 'ShipStation',
            error_type: 'security',
            error_code: 'unauthorized',
            message: 'The API key is invalid.',
          },
        ],
      },
    });
    const provider = localProvider();
    const v1Error = await rejection(provider.verifyCredentials(V1));
    expect(v1Error).toBeInstanceOf(ShippingAuthError);
    expect(v1Error.message).toMatch(/^ShipStation refused these API keys \(401\)/);
    const v2Error = await rejection(provider.verifyCredentials(V2));
    expect(v2Error).toBeInstanceOf(ShippingAuthError);
    expect(v2Error.message).toBe('ShipStation v2 refused these API keys (401): The API key is invalid.');
    expect(served).toHaveLength(2); // a refusal is not retried
  });

  it('429 with X-Rate-Limit-Reset: 30 → ShippingUnavailableError(30), not retried in-process; v2 gives Retry-After', async () => {
    // ShipStation API v1 docs, "API Rate Limits": 40 requests a minute; the X-Rate-Limit-* headers; this body.
    routes['GET /carriers'] = () => ({
      status: 429,
      headers: { 'X-Rate-Limit-Limit': '40', 'X-Rate-Limit-Remaining': '0', 'X-Rate-Limit-Reset': '30' },
      body: { statusCode: 429, message: 'ThrottlerException: Too Many Requests' },
    });
    routes['GET /v2/carriers'] = () => ({
      status: 429,
      headers: { 'Retry-After': '12' },
      body: {
        request_id: 'r',
        errors: [
          {
            error_source: 'ShipStation',
            error_type: 'system',
            error_code: 'rate_limit_exceeded',
            message: 'Too many requests',
          },
        ],
      },
    });
    const provider = localProvider();
    const v1Error = await rejection(provider.getRates(V1, shipment));
    expect(v1Error).toBeInstanceOf(ShippingUnavailableError);
    expect((v1Error as ShippingUnavailableError).retryAfterSeconds).toBe(30);
    expect(served).toHaveLength(1);
    const v2Error = await rejection(provider.getRates(V2, shipment));
    expect((v2Error as ShippingUnavailableError).retryAfterSeconds).toBe(12);
  });

  it('5xx and timeouts on a read are retried, then ShippingUnavailableError', async () => {
    routes['GET /carriers'] = () => ({ status: 503, body: { Message: 'Service Unavailable' } });
    const error = await rejection(localProvider().verifyCredentials(V1));
    expect(error).toBeInstanceOf(ShippingUnavailableError);
    expect(served).toHaveLength(2); // maxAttempts 2
  });

  it('v1: a timeout mid-purchase → ShippingUnavailableError, sent once; findLabel then finds the label and stops a second purchase', async () => {
    let bought: Record<string, unknown> | null = null;
    routes['POST /shipments/createlabel'] = () => {
      // ShipStation buys the label, but answers after our timeout.
      bought = {
        shipmentId: 90210,
        orderId: null,
        orderNumber: null,
        createDate: '2026-11-26T04:00:01.250',
        shipDate: '2026-11-26',
        shipmentCost: 8.61,
        insuranceCost: 0,
        trackingNumber: '9405511899223197428490',
        isReturnLabel: false,
        carrierCode: 'stamps_com',
        serviceCode: 'usps_priority_mail',
        voided: false,
        // ShipStation gives the validated address back: upper case, ZIP+4.
        shipTo: {
          name: 'Ada Buyer',
          street1: '1 MAIN ST',
          city: 'NEW YORK',
          state: 'NY',
          postalCode: '10001-1234',
          country: 'US',
        },
        labelData: null,
      };
      return { status: 200, body: { ...bought, labelData: 'JVBERi0xLjQK' }, delayMs: 1000 };
    };
    routes['GET /shipments'] = () => ({
      status: 200,
      body: { shipments: bought ? [bought] : [], total: bought ? 1 : 0, page: 1, pages: 1 },
    });
    const provider = localProvider();
    expect(await provider.findLabel(V1, shipment)).toBeNull();
    const rate: ProviderRate = {
      ...V2_RATE,
      rateId: 'v1:stamps_com:usps_priority_mail',
      carrier: 'USPS',
      carrierCode: 'usps',
    };
    const error = await rejection(provider.purchaseLabel(V1, shipment, rate));
    expect(error).toBeInstanceOf(ShippingUnavailableError);
    expect(served.filter((s) => s.url.pathname === '/shipments/createlabel')).toHaveLength(1);
    const found = await rejection(provider.findLabel(V1, shipment));
    expect(found).toBeInstanceOf(ShipStationLabelNeedsReprintError);
    expect(found.message).toContain('9405511899223197428490');
    expect(served.at(-1)!.url.searchParams.get('recipientName')).toBe('Ada Buyer');
    // Voided in ShipStation (the way out the message gives): no longer a match, a new purchase may go ahead.
    bought = { ...bought!, voided: true };
    expect(await provider.findLabel(V1, shipment)).toBeNull();
  });

  it('v2: a timeout mid-purchase → ShippingUnavailableError; findLabel finds it by external_shipment_id, and its PDF downloads', async () => {
    let externalId: string | null = null;
    routes['POST /v2/labels'] = (request) => {
      externalId = (request.body as { shipment: { external_shipment_id: string } }).shipment
        .external_shipment_id;
      return { status: 200, body: {}, delayMs: 1000 };
    };
    routes[`GET /v2/shipments/external_shipment_id/${encodeURIComponent('order-1:0:1')}`] = () =>
      externalId
        ? {
            status: 200,
            body: {
              shipment_id: 'se-555',
              external_shipment_id: externalId,
              shipment_status: 'label_purchased',
            },
          }
        : {
            status: 404,
            body: {
              request_id: 'r',
              errors: [
                {
                  error_source: 'ShipStation',
                  error_type: 'validation',
                  error_code: 'not_found',
                  message: 'Shipment not found',
                },
              ],
            },
          };
    routes['GET /v2/labels'] = (request) => ({
      status: 200,
      body: {
        labels:
          request.url.searchParams.get('shipment_id') === 'se-555'
            ? [
                {
                  label_id: 'se-776',
                  status: 'voided',
                  voided: true,
                  tracking_number: '9405511899223197428400',
                  shipment_cost: { currency: 'usd', amount: 8.61 },
                  label_download: { pdf: `${localOrigin}/v2/downloads/10/old/label-776.pdf` },
                },
                {
                  label_id: 'se-777',
                  status: 'completed',
                  voided: false,
                  tracking_number: '9405511899223197428490',
                  carrier_code: 'stamps_com',
                  service_code: 'usps_priority_mail',
                  shipment_cost: { currency: 'usd', amount: 8.61 },
                  insurance_cost: { currency: 'usd', amount: 0 },
                  label_download: {
                    pdf: `${localOrigin}/v2/downloads/10/xyz/label-777.pdf`,
                    href: `${localOrigin}/v2/downloads/10/xyz/label-777.pdf`,
                  },
                },
              ]
            : [],
        total: 2,
        page: 1,
        pages: 1,
      },
    });
    routes['GET /v2/downloads/10/xyz/label-777.pdf'] = () => ({
      status: 200,
      body: Buffer.from('%PDF-1.4\n%label 777\n'),
    });
    const provider = localProvider();
    expect(await provider.findLabel(V2, shipment)).toBeNull(); // nothing bought yet: 404 on our key
    const error = await rejection(provider.purchaseLabel(V2, shipment, V2_RATE));
    expect(error).toBeInstanceOf(ShippingUnavailableError);
    expect(served.filter((s) => s.url.pathname === '/v2/labels' && s.method === 'POST')).toHaveLength(1);
    const found = await provider.findLabel(V2, shipment);
    expect(found).toEqual({
      providerLabelId: 'se-777',
      trackingNumber: '9405511899223197428490',
      trackingUrl: 'https://tools.usps.com/go/TrackConfirmAction?tLabels=9405511899223197428490',
      carrier: 'USPS',
      carrierCode: 'usps',
      service: 'usps_priority_mail',
      costCents: 861,
      currency: 'USD',
      label: { url: `${localOrigin}/v2/downloads/10/xyz/label-777.pdf` },
    });
    const pdf = await provider.downloadLabel(V2, (found!.label as { url: string }).url);
    expect(pdf.toString()).toBe('%PDF-1.4\n%label 777\n');
    expect(served.at(-1)!.method).toBe('GET');
  });

  it('an address refusal → ShippingAddressError in ShipStation’s words; other refusals → ShippingRejectedError', async () => {
    // v1 is an ASP.NET Web API: its errors are { Message, ExceptionMessage, … }.
    routes['POST /shipments/createlabel'] = (request) =>
      (request.body as { serviceCode: string }).serviceCode === 'usps_priority_mail'
        ? {
            status: 400,
            body: {
              Message: 'An error has occurred.',
              ExceptionMessage:
                'Could not validate the ship to address: the ZIP code does not match the city.',
              ExceptionType: 'System.Exception',
            },
          }
        : {
            status: 400,
            body: {
              Message: 'An error has occurred.',
              ExceptionMessage: 'Invalid serviceCode: usps_nope',
              ExceptionType: 'System.Exception',
            },
          };
    routes['POST /v2/rates'] = () => ({
      status: 400,
      body: {
        request_id: 'r',
        errors: [
          {
            error_source: 'ShipStation',
            error_type: 'validation',
            error_code: 'invalid_address',
            message: 'Invalid ship_to address: postal_code 10001 is not in Springfield, IL',
          },
        ],
      },
    });
    routes['GET /v2/carriers'] = () => ({
      status: 200,
      body: { carriers: [{ carrier_id: 'se-1001', carrier_code: 'stamps_com' }] },
    });
    const provider = localProvider();
    const rate: ProviderRate = { ...V2_RATE, rateId: 'v1:stamps_com:usps_priority_mail' };
    const v1Address = await rejection(provider.purchaseLabel(V1, shipment, rate));
    expect(v1Address).toBeInstanceOf(ShippingAddressError);
    expect(v1Address.message).toBe(
      'Could not validate the ship to address: the ZIP code does not match the city.',
    );
    const other = await rejection(
      provider.purchaseLabel(V1, shipment, { ...rate, rateId: 'v1:stamps_com:usps_nope' }),
    );
    expect(other).toBeInstanceOf(ShippingRejectedError);
    expect((other as ShippingRejectedError).status).toBe(400);
    const v2Address = await rejection(provider.getRates(V2, shipment));
    expect(v2Address).toBeInstanceOf(ShippingAddressError);
    expect(v2Address.message).toBe('Invalid ship_to address: postal_code 10001 is not in Springfield, IL');
    // A rate of the other API is refused before any request.
    served = [];
    await expect(provider.purchaseLabel(V2, shipment, rate)).rejects.toBeInstanceOf(ShippingRejectedError);
    await expect(provider.purchaseLabel(V1, shipment, V2_RATE)).rejects.toBeInstanceOf(ShippingRejectedError);
    expect(served).toHaveLength(0);
  });

  it('v1 getRates keeps the carriers that answered when one refuses the parcel', async () => {
    routes['GET /carriers'] = () => ({
      status: 200,
      body: [
        {
          name: 'Stamps.com',
          code: 'stamps_com',
          accountNumber: 'SS1',
          requiresFundedAccount: true,
          balance: 10,
          shippingProviderId: 1,
          primary: true,
        },
        {
          name: 'UPS',
          code: 'ups',
          accountNumber: 'U1',
          requiresFundedAccount: false,
          balance: 0,
          shippingProviderId: 2,
          primary: true,
        },
      ],
    });
    routes['POST /shipments/getrates'] = (request) =>
      (request.body as { carrierCode: string }).carrierCode === 'ups'
        ? {
            status: 400,
            body: {
              Message: 'An error has occurred.',
              ExceptionMessage: 'UPS does not serve this package size',
            },
          }
        : {
            status: 200,
            body: [
              {
                serviceName: 'USPS Priority Mail - Package',
                serviceCode: 'usps_priority_mail',
                shipmentCost: 8.61,
                otherCost: 0,
              },
            ],
          };
    expect(await localProvider().getRates(V1, shipment)).toEqual([
      {
        rateId: 'v1:stamps_com:usps_priority_mail',
        carrier: 'USPS',
        carrierCode: 'usps',
        service: 'USPS Priority Mail - Package',
        serviceCode: 'usps_priority_mail',
        amountCents: 861,
        currency: 'USD',
        estimatedDays: null,
      },
    ]);
  });

  it('v2 getRates maps realistic rates: every charge summed in cents, the carrier as marketplaces know it, transit days', async () => {
    routes['GET /v2/carriers'] = () => ({
      status: 200,
      body: {
        carriers: [
          { carrier_id: 'se-1001', carrier_code: 'stamps_com' },
          { carrier_id: 'se-1002', carrier_code: 'ups' },
        ],
      },
    });
    const usd = (amount: number) => ({ currency: 'usd', amount });
    // Shaped as the file's `rate` schema.
    routes['POST /v2/rates'] = () => ({
      status: 200,
      body: {
        shipment_id: 'se-9001',
        rate_response: {
          rate_request_id: 'se-4001',
          status: 'completed',
          rates: [
            {
              rate_id: 'se-5001',
              rate_type: 'shipment',
              carrier_id: 'se-1001',
              carrier_code: 'stamps_com',
              carrier_friendly_name: 'Stamps.com',
              service_type: 'USPS Priority Mail',
              service_code: 'usps_priority_mail',
              shipping_amount: usd(8.61),
              insurance_amount: usd(0),
              confirmation_amount: usd(0),
              other_amount: usd(0),
              delivery_days: 2,
              validation_status: 'valid',
            },
            {
              rate_id: 'se-5002',
              rate_type: 'shipment',
              carrier_id: 'se-1002',
              carrier_code: 'ups',
              carrier_friendly_name: 'UPS',
              service_type: 'UPS® Ground',
              service_code: 'ups_ground',
              shipping_amount: usd(12.34),
              insurance_amount: usd(0),
              confirmation_amount: usd(0),
              other_amount: usd(1.05),
              delivery_days: null,
              validation_status: 'valid',
            },
          ],
          invalid_rates: [],
          errors: [],
        },
      },
    });
    expect(await localProvider().getRates(V2, shipment)).toEqual([
      {
        rateId: 'v2:se-1001:usps_priority_mail',
        carrier: 'USPS',
        carrierCode: 'usps',
        service: 'USPS Priority Mail',
        serviceCode: 'usps_priority_mail',
        amountCents: 861,
        currency: 'USD',
        estimatedDays: 2,
      },
      {
        rateId: 'v2:se-1002:ups_ground',
        carrier: 'UPS',
        carrierCode: 'ups',
        service: 'UPS® Ground',
        serviceCode: 'ups_ground',
        amountCents: 1339,
        currency: 'USD',
        estimatedDays: null,
      },
    ]);
    expect((served.at(-1)!.body as { rate_options: unknown }).rate_options).toEqual({
      carrier_ids: ['se-1001', 'se-1002'],
    });
  });
});
