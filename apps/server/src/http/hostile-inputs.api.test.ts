import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uploadDesign, type SignedInClient, type TestApp } from '../../test/test-app.ts';
import {
  bodyFields,
  jsonValuesFor,
  plausible,
  REPEATED_PARAMETER,
  seededPicker,
  urlValuesFor,
  withValueAt,
  type Picker,
  type Schema,
} from '../../test/hostile-values.ts';

/*
 * No 5xx from any input (issue 21, item 4). The suite reads the server's own OpenAPI document
 * (/api/docs/json) and walks every operation in it as three callers (anonymous, a seller with
 * objects of their own, an admin), sending hostile values in place of each path and query parameter
 * and each body field (two levels deep), one field at a time, the rest of the request plausible:
 * impossible dates, NUL and control characters, invalid UTF-8, huge, negative and fractional
 * numbers, wrong types, non-UUIDs, 100k-character strings, empty strings, arrays for scalars, deeply
 * nested objects; and a missing, non-JSON, non-object and plain-text body. Every field gets the
 * attacks for its type and a few more drawn with a fixed seed, so a run is repeatable.
 *
 * It asserts: no answer is 5xx; every validation refusal (400, 422) is `{ "error": "…" }` and names
 * the field refused (the field attacked, or one the plausible request already got wrong).
 */

const SEED = 21_04;
/** Attacks drawn per field beyond its type's own (anonymous callers get fewer: most routes stop them at the door). */
const EXTRA_VALUES = { anonymous: 1, seller: 3, admin: 3 } as const;
/** Requests in flight at once: enough to keep the server busy, few enough for a 2-core machine. */
const CONCURRENCY = 4;
const RANDOM_UUID = '00000000-0000-4000-8000-000000000000';
const MODEL = path.resolve(import.meta.dirname, '../../../../../shared/models/ps-20mm_cube.obj');
const ADDRESS = { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' };

type CallerName = keyof typeof EXTRA_VALUES;

interface Operation {
  readonly method: string;
  /** The OpenAPI path, `{id}` style. */
  readonly path: string;
  readonly parameters: readonly { name: string; in: string; required?: boolean; schema: Schema }[];
  readonly body: Schema | null;
}

interface Probe {
  readonly operation: Operation;
  readonly url: string;
  /** The raw body and its content type; none sends no body at all. */
  readonly body?: { readonly text: string; readonly type: string };
  /** What was attacked: a field name, `body` for the body as a whole. */
  readonly field: string;
  /** A nested field's container: a refusal of a sibling made up for the probe names it instead. */
  readonly container?: string;
  readonly label: string;
}

interface Finding {
  readonly caller: CallerName;
  readonly request: string;
  readonly field: string;
  readonly label: string;
  readonly status: number;
  readonly answer: string;
}

/**
 * The better-auth actions the wildcard /api/auth/* opens, with the bodies they read (its OpenAPI entry
 * has only the wildcard). Not `sign-out` or `revoke-other-sessions`: they end the caller's own
 * sessions, and the rest of the walk needs them.
 */
const AUTH_ACTIONS: readonly Operation[] = [
  {
    method: 'POST',
    path: '/api/auth/sign-up/email',
    parameters: [],
    body: objectSchema({ email: { type: 'string', format: 'email' }, password: { type: 'string' }, name: { type: 'string' }, businessName: { type: 'string' }, affiliateRef: { type: 'string' }, rememberMe: { type: 'boolean' }, callbackURL: { type: 'string' } }, ['email', 'password', 'name']),
  },
  { method: 'POST', path: '/api/auth/sign-in/email', parameters: [], body: objectSchema({ email: { type: 'string', format: 'email' }, password: { type: 'string' }, rememberMe: { type: 'boolean' } }, ['email', 'password']) },
  { method: 'POST', path: '/api/auth/sign-in/email-link', parameters: [], body: objectSchema({ email: { type: 'string', format: 'email' } }, ['email']) },
  { method: 'GET', path: '/api/auth/sign-in/email-link/verify', parameters: [{ name: 'token', in: 'query', required: true, schema: { type: 'string' } }], body: null },
  { method: 'POST', path: '/api/auth/change-password', parameters: [], body: objectSchema({ currentPassword: { type: 'string' }, newPassword: { type: 'string' }, revokeOtherSessions: { type: 'boolean' } }, ['currentPassword', 'newPassword']) },
  { method: 'POST', path: '/api/auth/revoke-session', parameters: [], body: objectSchema({ id: { type: 'string' } }, ['id']) },
];

function objectSchema(properties: Record<string, Schema>, required: string[]): Schema {
  return { type: 'object', properties, required };
}

let t: TestApp;
let seller: SignedInClient;
let admin: SignedInClient;
let apiKey: string;
let operations: Operation[];
/** Plausible values by field or parameter name: the seller's own objects, so that ids exist. */
let known: Record<string, unknown>;
/** A ShipStation that refuses every key: saving keys calls it, and the suite must not reach the internet. */
let refusingShipStation: Server;

beforeAll(async () => {
  refusingShipStation = createServer((_request, response) => {
    response.writeHead(401, { 'content-type': 'application/json' }).end('{"Message":"Authorization has been denied for this request."}');
  });
  await new Promise<void>((resolve) => refusingShipStation.listen(0, '127.0.0.1', resolve));
  const shipStation = `http://127.0.0.1:${(refusingShipStation.address() as AddressInfo).port}`;
  t = await startTestApp({
    SHOPIFY_API_KEY: 'hostile-key',
    SHOPIFY_API_SECRET: 'hostile-secret',
    SHIPSTATION_V1_URL: shipStation,
    SHIPSTATION_V2_URL: shipStation,
  });
  seller = await t.signUp({ name: 'Hostile Seller', role: 'beta' });
  admin = await t.signUp({ name: 'Hostile Admin', role: 'admin' });

  const design = await uploadDesign(seller, fs.readFileSync(MODEL), 'cube.obj');
  const configId = design.printConfigs[0].id as string;
  const sku = `HOSTILE-${process.pid}`;
  const product = await ok(seller.post('/api/products', { name: 'Cube', variants: [{ name: 'Std', sku, parts: [{ printConfigId: configId, quantity: 1 }] }] }));
  const shop = (await ok(seller.post('/api/shops/sandbox/connect', {}))).shop;
  const listings = await ok(seller.get(`/api/listings?shopId=${shop.id}`));
  const order = await ok(seller.post('/api/orders/manual', { items: [{ sku, quantity: 1 }], shippingAddress: ADDRESS }));
  apiKey = (await ok(seller.post('/api/api-keys', { name: 'hostile' }))).key;
  known = {
    designId: design.id,
    filePath: design.id,
    configId,
    printConfigId: configId,
    productId: product.id,
    variantId: product.variants[0].id,
    sku,
    shopId: shop.id,
    listingId: listings.items[0]?.id ?? RANDOM_UUID,
    orderId: order.id,
    targetUserId: seller.userId,
    userId: seller.userId,
    sellerId: seller.userId,
    affiliateId: seller.userId,
    period: new Date().toISOString().slice(0, 7),
    platform: 'sandbox',
    trackingNumber: 'SBXG0000000000000',
    // The auth wildcard's own value: an action that ends no session.
    '*': 'get-session',
  };

  const document = (await ok(t.client().get('/api/docs/json'))) as { paths: Record<string, Record<string, any>> };
  operations = Object.entries(document.paths).flatMap(([pathName, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path: pathName,
      parameters: operation.parameters ?? [],
      body: operation.requestBody?.content?.['application/json']?.schema ?? null,
    })),
  );
  operations.push(...AUTH_ACTIONS);
}, 180_000);

afterAll(async () => {
  await t?.close();
  refusingShipStation?.close();
});

async function ok(request: Promise<{ status: number; body: any }>): Promise<any> {
  const response = await request;
  if (response.status >= 300) throw new Error(`fixture: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

// ── the probes ──────────────────────────────────────────────────────────────────────────────────

/** The plausible value of a path parameter: the seller's object where the path names one. */
function pathValue(operation: Operation, name: string): string {
  // A DELETE of a real object would take it away from every later probe: deletes name no object.
  if (operation.method === 'DELETE' && name === 'id') return RANDOM_UUID;
  if (name !== 'id') return String(known[name] ?? RANDOM_UUID);
  const area = /^\/api\/(?:admin\/)?([a-z-]+)/.exec(operation.path)?.[1];
  const byArea: Record<string, unknown> = {
    designs: known.designId,
    'print-configs': known.configId,
    products: known.productId,
    shops: known.shopId,
    listings: known.listingId,
    orders: known.orderId,
  };
  return String((area && byArea[area]) ?? RANDOM_UUID);
}

function urlOf(operation: Operation, pathValues: Record<string, string>, query: string[]): string {
  const filled = operation.path.replace(/\{([^}]+)\}/g, (_whole, name: string) => pathValues[name]!);
  return query.length > 0 ? `${filled}?${query.join('&')}` : filled;
}

const json = (value: unknown) => ({ text: JSON.stringify(value), type: 'application/json' });
const leafName = (fieldPath: readonly (string | number)[]) => String([...fieldPath].reverse().find((key) => typeof key === 'string'));

/** The parts of an operation's plausible request: path values, required query pairs, body. */
function plausibleParts(operation: Operation) {
  const pathParameters = operation.parameters.filter((parameter) => parameter.in === 'path');
  const queryParameters = operation.parameters.filter((parameter) => parameter.in === 'query');
  const pathValues = Object.fromEntries(pathParameters.map((parameter) => [parameter.name, encodeURIComponent(pathValue(operation, parameter.name))]));
  const requiredQuery = queryParameters
    .filter((parameter) => parameter.required)
    .map((parameter) => `${parameter.name}=${encodeURIComponent(String(plausible(parameter.schema, known, parameter.name)))}`);
  const body = operation.body ? plausible(operation.body, known) : undefined;
  return { pathParameters, queryParameters, pathValues, requiredQuery, body };
}

/** The request with every part plausible (not necessarily accepted). */
function plausibleRequest(operation: Operation): Probe {
  const { pathValues, requiredQuery, body } = plausibleParts(operation);
  return { operation, url: urlOf(operation, pathValues, requiredQuery), ...(body === undefined ? {} : { body: json(body) }), field: '', label: 'plausible' };
}

function probesFor(operation: Operation, caller: CallerName, pick: Picker): Probe[] {
  const extra = EXTRA_VALUES[caller];
  const { pathParameters, queryParameters, pathValues, requiredQuery, body: baseBody } = plausibleParts(operation);
  const baseUrl = urlOf(operation, pathValues, requiredQuery);
  const withBase = { ...(baseBody === undefined ? {} : { body: json(baseBody) }) };
  const probes: Probe[] = [];

  for (const parameter of pathParameters) {
    for (const hostile of urlValuesFor(parameter.schema, pick, extra)) {
      probes.push({ operation, url: urlOf(operation, { ...pathValues, [parameter.name]: hostile.value }, requiredQuery), ...withBase, field: parameter.name, label: hostile.label });
    }
  }
  for (const parameter of queryParameters) {
    const others = requiredQuery.filter((pair) => !pair.startsWith(`${parameter.name}=`));
    for (const hostile of urlValuesFor(parameter.schema, pick, extra)) {
      probes.push({ operation, url: urlOf(operation, pathValues, [...others, `${parameter.name}=${hostile.value}`]), ...withBase, field: parameter.name, label: hostile.label });
    }
    probes.push({ operation, url: urlOf(operation, pathValues, [...others, `${parameter.name}=a`, `${parameter.name}=b`]), ...withBase, field: parameter.name, label: REPEATED_PARAMETER });
  }
  if (operation.body) {
    for (const field of bodyFields(operation.body, 2)) {
      for (const hostile of jsonValuesFor(field.schema, pick, extra)) {
        const container = field.path.length > 1 ? field.path.slice(0, -1).filter((key) => typeof key === 'string').join('.') : undefined;
        probes.push({ operation, url: baseUrl, body: json(withValueAt(baseBody, field, hostile.value, known)), field: leafName(field.path), ...(container ? { container } : {}), label: hostile.label });
      }
    }
  }
  if (['POST', 'PUT', 'PATCH'].includes(operation.method)) {
    probes.push(
      { operation, url: baseUrl, field: 'body', label: 'no body' },
      { operation, url: baseUrl, body: { text: '{"truncated": ', type: 'application/json' }, field: 'body', label: 'JSON cut short' },
      { operation, url: baseUrl, body: { text: '[1,2]', type: 'application/json' }, field: 'body', label: 'array body' },
      { operation, url: baseUrl, body: { text: '"\\u0000"', type: 'application/json' }, field: 'body', label: 'string body with a NUL' },
      { operation, url: baseUrl, body: { text: 'plain text', type: 'text/plain' }, field: 'body', label: 'plain-text body' },
    );
  }
  return probes;
}

// ── sending ─────────────────────────────────────────────────────────────────────────────────────

function headersFor(caller: CallerName, probe: Probe): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json', origin: t.baseUrl, 'sec-fetch-site': 'same-origin' };
  if (probe.body) headers['content-type'] = probe.body.type;
  // The order API answers to its keys only: the seller calls it with theirs.
  if (caller === 'seller' && probe.operation.path.startsWith('/api/v1/')) headers.authorization = `Bearer ${apiKey}`;
  else if (caller !== 'anonymous') headers.cookie = (caller === 'seller' ? seller : admin).cookieHeader();
  return headers;
}

/**
 * The refusal names the field: its name appears in the error (or, for a nested field, a path into
 * its container: the siblings the probe made up for it may be refused first); for the body as a whole, `body` or
 * JSON; for a path parameter, also the URL path (a malformed one is refused before any route is
 * chosen, so before any parameter has a name).
 */
function namesField(error: string, probe: Probe): boolean {
  const text = error.toLowerCase();
  const names = probe.field === 'body' ? ['body', 'json'] : [probe.field];
  if (probe.container) names.push(`${probe.container}.`);
  if (probe.operation.parameters.some((parameter) => parameter.in === 'path' && parameter.name === probe.field)) names.push('url path');
  return names.some((name) => text.includes(name.toLowerCase()));
}

async function walk(caller: CallerName): Promise<{ sent: number; findings: Finding[] }> {
  const pick = seededPicker(SEED);
  const probes = operations.flatMap((operation) => probesFor(operation, caller, pick));
  const findings: Finding[] = [];
  /**
   * Per operation: whether its plausible request is itself refused (400, 422). A refusal names the
   * first problem it finds, so then an attacked field's refusal may name another field instead.
   */
  const plausibleRefused = new Map<Operation, Promise<boolean>>();
  const refusedAnyway = (operation: Operation): Promise<boolean> => {
    let refused = plausibleRefused.get(operation);
    if (!refused) {
      const base = plausibleRequest(operation);
      refused = fetch(new URL(base.url, t.baseUrl), { method: operation.method, headers: headersFor(caller, base), body: base.body?.text, redirect: 'manual' }).then(
        async (response) => {
          await response.arrayBuffer();
          return response.status === 400 || response.status === 422;
        },
      );
      plausibleRefused.set(operation, refused);
    }
    return refused;
  };

  const sendOne = async (probe: Probe): Promise<void> => {
    const request = `${probe.operation.method} ${probe.url.length > 140 ? `${probe.url.slice(0, 140)}…` : probe.url}`;
    let response: Response;
    let text: string;
    try {
      response = await fetch(new URL(probe.url, t.baseUrl), {
        method: probe.operation.method,
        headers: headersFor(caller, probe),
        body: probe.body?.text,
        redirect: 'manual',
      });
      text = await response.text();
    } catch (error) {
      // The answer could not be read at all (a broken connection, a body that is not what its headers say).
      findings.push({ caller, request, field: probe.field, label: probe.label, status: 0, answer: `unreadable: ${String((error as Error).cause ?? error)}` });
      return;
    }
    const finding = (answer: string): void => void findings.push({ caller, request, field: probe.field, label: probe.label, status: response.status, answer: answer.slice(0, 200) });
    if (response.status >= 500) return finding(text);
    if (response.status !== 400 && response.status !== 422) return;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return finding(`not JSON: ${text}`);
    }
    const error = (body as { error?: unknown } | null)?.error;
    if (typeof error !== 'string') return finding(`not { error }: ${text}`);
    if (!namesField(error, probe) && !(await refusedAnyway(probe.operation))) finding(`does not name ${probe.field}: ${error}`);
  };

  const queue = [...probes];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let probe = queue.shift(); probe; probe = queue.shift()) await sendOne(probe);
    }),
  );
  return { sent: probes.length, findings };
}

/** Each known 5xx of issue 21, as the caller who found it: now a 4xx naming the field. */
describe('the 5xx the walk found, one by one', () => {
  const refusal = async (response: Promise<{ status: number; body: any }>, status: number, field: string) => {
    const answer = await response;
    expect(answer.status).toBe(status);
    expect(answer.body.error).toContain(field);
  };

  it('an impossible date in the fulfilment-history filters, without signing in', async () => {
    await refusal(t.client().get('/api/fulfillment-history?startDate=2026-13-45'), 400, 'startDate');
    await refusal(seller.get('/api/fulfillment-history/export.csv?endDate=2026-02-30'), 400, 'endDate');
    await refusal(seller.get('/api/orders?from=2026-13-45'), 400, 'from');
  });

  it('a NUL byte in a public path, a search and a profile: refused, nothing saved', async () => {
    await refusal(t.client().get('/api/tracking/a%00b'), 400, 'trackingNumber');
    await refusal(seller.get('/api/orders?search=a%00b'), 400, 'search');
    await refusal(seller.get('/api/fulfillment-history?searchTerm=a%00b'), 400, 'searchTerm');
    const before = (await seller.get('/api/me')).body;
    await refusal(seller.patch('/api/me', { name: 'a\u0000b' }), 400, 'name');
    await refusal(seller.patch('/api/me', { returnAddress: { ...ADDRESS, line1: 'a\ud800b' } }), 400, 'returnAddress.line1');
    expect((await seller.get('/api/me')).body).toEqual(before);
  });

  it('a filePath that is not a design id', async () => {
    await refusal(seller.post('/api/estimate-print-cost', { filePath: 'not-a-uuid' }), 400, 'filePath');
    await refusal(seller.post('/api/shippo/labels', { orderId: '2026-13-45' }), 400, 'orderId');
  });

  it('an admin acting for a user who does not exist', async () => {
    await refusal(admin.get('/api/products?targetUserId=nobody-at-all'), 404, 'targetUserId');
  });

  it('a body that is not an object names the body', async () => {
    await refusal(seller.request('PATCH', '/api/me', [1, 2], {}), 400, 'body');
  });
});

describe('hostile inputs on every operation of the OpenAPI document', () => {
  it('the walk covers every operation of the document', () => {
    // The document lists ~165 operations; a broken document (or a failed read of it) walks nothing.
    expect(operations.length).toBeGreaterThan(150);
  });

  for (const caller of ['anonymous', 'seller', 'admin'] as const) {
    it(`as ${caller === 'anonymous' ? 'an anonymous caller' : `${caller === 'admin' ? 'an' : 'a'} ${caller}`}: no 5xx, and every 400/422 is { error } naming the field`, async () => {
      const started = Date.now();
      const { sent, findings } = await walk(caller);
      console.info(`hostile inputs as ${caller}: ${operations.length} operations, ${sent} requests, ${findings.length} findings, ${((Date.now() - started) / 1000).toFixed(1)} s`);
      expect(findings).toEqual([]);
    }, 300_000);
  }
});
