import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { apiOrderInputSchema, WEBHOOK_EVENT_TYPES } from '@layerline/contracts';
import { boxStl } from '../../test/hostile-models.ts';
import { startTestApp, uploadDesign, type SignedInClient, type TestApp } from '../../test/test-app.ts';
import { webhookEventExamples } from '../modules/order-api/order-api-examples.ts';
import {
  publicOrderListSchema,
  publicOrderSchema,
  webhookEventSchema,
} from '../modules/order-api/order-api-schemas.ts';
import { signWebhook } from '../modules/order-api/webhook-signature.ts';

/*
 * The API reference (http/api-reference.ts): /api/docs is a page that loads everything from our own
 * origin, /api/docs/json the OpenAPI document with the order API and its webhooks; every example the
 * reference shows is a valid value of its schema, and the answers it shows are what the API says;
 * the guide's Node code verifies a real delivery and its worked example.
 */

let t: TestApp;
let seller: SignedInClient;
let key: string;
let doc: any;
const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
const receiver = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
    response.writeHead(204).end();
  });
});

const v1 = (
  method: string,
  url: string,
  init: { key?: string | null; body?: string; contentType?: string } = {},
) =>
  fetch(new URL(url, t.baseUrl), {
    method,
    headers: {
      ...(init.key === null ? {} : { authorization: `Bearer ${init.key ?? key}` }),
      ...(init.body === undefined ? {} : { 'content-type': init.contentType ?? 'application/json' }),
    },
    body: init.body,
  }).then(async (response) => ({ status: response.status, body: (await response.json()) as any }));

/** The object keys at every depth (values aside): an example has the fields a real answer has. */
function keysOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.length ? [keysOf(value[0])] : [];
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, keysOf(v)]),
    );
  return 0;
}

/** The named examples of a media type object (Example Objects). */
const examplesOf = (media: any): unknown[] =>
  Object.values(media?.examples ?? {}).map((example: any) => example.value);

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t = await startTestApp({ ALLOW_LOCAL_WEBHOOK_RECEIVERS: 'true' });
  seller = await t.signUp({ role: 'beta' });
  const design = await uploadDesign(seller, boxStl(20, 20, 20), 'cube.stl');
  const product = await seller.post('/api/products', {
    name: 'Desk Cube',
    variants: [
      { name: 'Red', sku: 'CUBE-RED', parts: [{ printConfigId: design.printConfigs[0].id, quantity: 1 }] },
    ],
  });
  expect(product.status).toBe(201);
  key = (await seller.post('/api/api-keys', { name: 'Reference' })).body.key;
  doc = (await t.client().get('/api/docs/json')).body;
}, 60_000);

afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => receiver.close(resolve));
});

describe('the page', () => {
  it('GET /api/docs is an HTML page whose scripts and styles are files of our own origin', async () => {
    const response = await fetch(`${t.baseUrl}/api/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain('<title>Layerline API reference</title>');
    // No inline script: every <script> has a src and nothing inside.
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, content] of scripts) {
      expect(attributes).toMatch(/src="/);
      expect(content!.trim()).toBe('');
    }
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    const expectedTypes: Record<string, RegExp> = {
      js: /^application\/javascript/,
      css: /^text\/css/,
      png: /^image\/png/,
    };
    for (const asset of assets) {
      // A path on this server: not another origin, not protocol-relative.
      expect(asset).toMatch(/^\/api\/docs\/static\/[\w.-]+(\?v=[0-9a-f]{16})?$/);
      const file = await fetch(new URL(asset, t.baseUrl));
      expect(file.status, asset).toBe(200);
      expect(file.headers.get('content-type'), asset).toMatch(
        expectedTypes[asset.split('?')[0]!.split('.').pop()!]!,
      );
      expect((await file.arrayBuffer()).byteLength, asset).toBeGreaterThan(0);
    }
    expect(assets.filter((asset) => asset.split('?')[0]!.endsWith('.js'))).toHaveLength(3);
    // The page runs under the app's policy: scripts from our origin only, none inline.
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toContain("connect-src 'self'");
    // It renders the document next to it.
    const initializer = await (await fetch(`${t.baseUrl}/api/docs/static/swagger-initializer.js`)).text();
    expect(initializer).toContain("resolveUrl('./json')");
    expect(initializer).toContain('"layout":"BaseLayout"');
  });

  it('keeps Swagger UI’s files for a year under URLs that name their content, and checks the page every visit', async () => {
    for (const encoding of ['br, gzip', 'identity']) {
      const page = await fetch(`${t.baseUrl}/api/docs`, { headers: { 'accept-encoding': encoding } });
      expect(page.headers.get('cache-control'), encoding).toBe('no-cache');
      const html = await page.text();
      const versioned = [...html.matchAll(/(?:src|href)="([^"]+\?v=[^"]+)"/g)].map((match) => match[1]!);
      // The bundle, the preset, both styles and both icons; the initializer is made from our settings.
      expect(versioned.map((asset) => asset.split('?')[0]).sort(), encoding).toEqual(
        [
          'favicon-16x16.png',
          'favicon-32x32.png',
          'index.css',
          'swagger-ui-bundle.js',
          'swagger-ui-standalone-preset.js',
          'swagger-ui.css',
        ].map((name) => `/api/docs/static/${name}`),
      );
      for (const asset of versioned) {
        const file = await fetch(new URL(asset, t.baseUrl), { headers: { 'accept-encoding': 'identity' } });
        expect(file.status, asset).toBe(200);
        expect(file.headers.get('cache-control'), asset).toBe('public, max-age=31536000, immutable');
        // The version is the content's: another content would be another URL.
        const hash = createHash('sha256')
          .update(Buffer.from(await file.arrayBuffer()))
          .digest('hex');
        expect(asset.split('?v=')[1], asset).toBe(hash.slice(0, 16));
      }
    }
    const bundle = '/api/docs/static/swagger-ui-bundle.js';
    const current = (await (await fetch(`${t.baseUrl}/api/docs`)).text()).match(
      /swagger-ui-bundle\.js\?v=([0-9a-f]+)/,
    )![1]!;
    const first = await fetch(`${t.baseUrl}${bundle}?v=${current}`);
    await first.arrayBuffer();
    // As a browser revalidates (fetch would add `Cache-Control: no-cache`, which forbids a 304).
    const again = await fetch(`${t.baseUrl}${bundle}?v=${current}`, {
      headers: { 'if-none-match': first.headers.get('etag')!, 'cache-control': 'max-age=0' },
    });
    expect(again.status).toBe(304);
    expect(again.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    // Any other URL of the same file (none, or another version) is checked again every time.
    for (const url of [bundle, `${bundle}?v=0000000000000000`, '/api/docs/static/swagger-initializer.js']) {
      const response = await fetch(`${t.baseUrl}${url}`);
      await response.arrayBuffer();
      expect(response.status, url).toBe(200);
      expect(response.headers.get('cache-control'), url).toBe('no-cache');
    }
    const missing = await fetch(`${t.baseUrl}/api/docs/static/nothing.js?v=0000000000000000`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('cache-control')).toBe('no-store');
  });
});

describe('the OpenAPI document at /api/docs/json', () => {
  it('is OpenAPI 3.1 with every route, and the order API described for people', async () => {
    const response = await fetch(`${t.baseUrl}/api/docs/json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/me', '/api/v1/orders', '/api/v1/orders/{id}', '/api/webhook-endpoint']),
    );
    const operations = [
      doc.paths['/api/v1/orders'].post,
      doc.paths['/api/v1/orders'].get,
      doc.paths['/api/v1/orders/{id}'].get,
    ];
    expect(operations.map((operation) => operation.summary)).toEqual([
      'Send an order',
      'List your orders',
      'Read one of your orders',
    ]);
    for (const operation of operations) {
      expect(operation.tags).toEqual(['order-api']);
      expect(operation.security).toEqual([{ apiKey: [] }]);
      expect(operation.description.length).toBeGreaterThan(100);
      for (const [status, answer] of Object.entries<any>(operation.responses)) {
        expect(answer.description, status).not.toBe('Default Response');
        expect(
          examplesOf(answer.content['application/json']).length,
          `${operation.summary} ${status}`,
        ).toBeGreaterThan(0);
      }
    }
    expect(examplesOf(doc.paths['/api/v1/orders'].post.requestBody.content['application/json'])).toHaveLength(
      2,
    );
    expect(doc.tags.map((tag: { name: string }) => tag.name)).toEqual(['order-api', 'order-api-settings']);
    // The guide on top: how to start, and how to verify a webhook.
    expect(doc.info.description).toContain('## The order API (beta)');
    expect(doc.info.description).toContain('### Verifying the signature (Node.js)');
  });

  it('files every operation under a tag (none under `default`)', () => {
    const untagged = Object.entries<any>(doc.paths).flatMap(([path, operations]) =>
      Object.entries<any>(operations)
        .filter(([, operation]) => !operation.tags?.length)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(untagged).toEqual([]);
    expect(doc.paths['/api/auth/{*}'].post.tags).toEqual(['accounts']);
  });

  it('names the OAuth callback’s query parameters, each an optional string (any other is taken as sent)', async () => {
    const parameters = doc.paths['/api/shops/{platform}/callback'].get.parameters as any[];
    const query = parameters.filter((parameter) => parameter.in === 'query');
    expect(query.map((parameter) => parameter.name)).toEqual(
      expect.arrayContaining([
        'code',
        'state',
        'error',
        'error_description',
        'spapi_oauth_code',
        'shop',
        'hmac',
      ]),
    );
    for (const parameter of query) {
      expect(parameter.schema, parameter.name).toEqual({ type: 'string' });
      expect(parameter.required, parameter.name).toBe(false);
      expect(parameter.description, parameter.name).toBeTruthy();
    }
    expect(
      parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name),
    ).toEqual(['platform']);
    // Parameters it does not name still reach the marketplace's check (Shopify signs them all): not refused.
    const callback = await fetch(`${t.baseUrl}/api/shops/etsy/callback?code=c&state=s&host=h&timestamp=1`, {
      redirect: 'manual',
    });
    expect(callback.status).toBe(303);
    expect(callback.headers.get('location')).toMatch(/^\/connect-store\?error=/);
  });

  it('describes each webhook we send: its signed headers, its body and what the answer means', () => {
    expect(Object.keys(doc.webhooks)).toEqual([...WEBHOOK_EVENT_TYPES]);
    for (const type of WEBHOOK_EVENT_TYPES) {
      const operation = doc.webhooks[type].post;
      expect(operation.summary).toBeTruthy();
      expect(
        operation.parameters.map(
          (p: { in: string; name: string; required: boolean }) => `${p.in}:${p.name}:${p.required}`,
        ),
      ).toEqual(['header:webhook-id:true', 'header:webhook-timestamp:true', 'header:webhook-signature:true']);
      const body = operation.requestBody.content['application/json'];
      expect(body.schema.properties.type).toEqual({ type: 'string', const: type });
      expect(Object.keys(body.schema.properties.data.properties)).toContain('order');
      expect(Object.keys(operation.responses)).toEqual(['2XX', '4XX', '5XX']);
    }
  });

  it('shows examples that are values of their schemas, with no field the schema does not have', () => {
    // Parsing drops unknown keys of the answers' objects: an example equal to its parse has none.
    const exact = (schema: z.ZodType, value: unknown, where: string) =>
      expect(schema.parse(value), where).toEqual(value);
    const errorSchema = z.object({ error: z.string() }).strict();
    const post = doc.paths['/api/v1/orders'].post;
    for (const example of examplesOf(post.requestBody.content['application/json']))
      apiOrderInputSchema.parse(example);
    const bySchema: [any, z.ZodType][] = [
      [post.responses['200'], publicOrderSchema],
      [post.responses['201'], publicOrderSchema],
      [doc.paths['/api/v1/orders/{id}'].get.responses['200'], publicOrderSchema],
      [doc.paths['/api/v1/orders'].get.responses['200'], publicOrderListSchema],
    ];
    for (const operation of [post, doc.paths['/api/v1/orders/{id}'].get, doc.paths['/api/v1/orders'].get]) {
      for (const [status, answer] of Object.entries<any>(operation.responses))
        if (Number(status) >= 400) bySchema.push([answer, errorSchema]);
    }
    let count = 0;
    for (const [answer, schema] of bySchema) {
      for (const example of examplesOf(answer.content['application/json'])) {
        exact(schema, example, answer.description);
        count += 1;
      }
    }
    for (const type of WEBHOOK_EVENT_TYPES) {
      const examples = examplesOf(doc.webhooks[type].post.requestBody.content['application/json']);
      expect(examples.length, type).toBeGreaterThan(0);
      for (const example of examples) {
        exact(webhookEventSchema, example, type);
        expect((example as { type: string }).type).toBe(type);
        count += 1;
      }
    }
    expect(count).toBeGreaterThan(20);
  });
});

describe('the answers the reference shows are what the API says', () => {
  const errorsOf = (method: 'get' | 'post', url: string, status: number): string[] =>
    examplesOf(doc.paths[url][method].responses[String(status)].content['application/json']).map(
      (example: any) => example.error,
    );

  it('a documented order is accepted as the example answer shows, field for field', async () => {
    const post = doc.paths['/api/v1/orders'].post;
    const [input] = examplesOf(post.requestBody.content['application/json']);
    const created = await v1('POST', '/api/v1/orders', { body: JSON.stringify(input) });
    expect(created.status).toBe(201);
    const accepted = post.responses['201'].content['application/json'].examples.accepted.value;
    expect(created.body).toMatchObject({
      externalId: accepted.externalId,
      status: 'accepted',
      items: accepted.items,
      shippingAddress: accepted.shippingAddress,
    });
    expect(keysOf(created.body)).toEqual(keysOf(accepted));
    const again = await v1('POST', '/api/v1/orders', { body: JSON.stringify(input) });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(created.body.id);
    const list = await v1('GET', '/api/v1/orders?limit=1');
    expect(keysOf(list.body)).toEqual(
      keysOf(
        doc.paths['/api/v1/orders'].get.responses['200'].content['application/json'].examples.page.value,
      ),
    );
  });

  it('each error example is the answer to that mistake', async () => {
    const order = examplesOf(
      doc.paths['/api/v1/orders'].post.requestBody.content['application/json'],
    )[0] as any;
    const invalid = await v1('POST', '/api/v1/orders', {
      body: JSON.stringify({ ...order, shippingAddress: { ...order.shippingAddress, country: 'us' } }),
    });
    expect(invalid.status).toBe(400);
    expect(errorsOf('post', '/api/v1/orders', 400)).toContain(invalid.body.error);

    const noKey = await v1('GET', '/api/v1/orders', { key: null });
    const badKey = await v1('GET', '/api/v1/orders', { key: 'll_live_nope' });
    expect([noKey.status, badKey.status]).toEqual([401, 401]);
    expect(errorsOf('get', '/api/v1/orders', 401)).toEqual([noKey.body.error, badKey.body.error]);

    const missing = await v1('GET', '/api/v1/orders/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    expect(errorsOf('get', '/api/v1/orders/{id}', 404)).toEqual([missing.body.error]);

    const tooLarge = await v1('POST', '/api/v1/orders', {
      body: JSON.stringify({ ...order, externalId: 'x'.repeat(1024 * 1024) }),
    });
    expect(tooLarge.status).toBe(413);
    expect(errorsOf('post', '/api/v1/orders', 413)).toEqual([tooLarge.body.error]);
    const form = await v1('POST', '/api/v1/orders', {
      body: 'externalId=1',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(415);
    expect(errorsOf('post', '/api/v1/orders', 415)).toEqual([form.body.error]);

    await t.context.users.setFlags(seller.userId, { isBetaTester: false });
    try {
      const outOfBeta = await v1('GET', '/api/v1/orders');
      expect(outOfBeta.status).toBe(403);
      expect(errorsOf('get', '/api/v1/orders', 403)).toEqual([outOfBeta.body.error]);
    } finally {
      await t.context.users.setFlags(seller.userId, { isBetaTester: true });
    }

    // A key of its own, so the other tests' requests do not count: the 121st request of a minute.
    const limited = (await seller.post('/api/api-keys', { name: 'Limited' })).body.key;
    let last = { status: 0, body: {} as any };
    for (let i = 0; i < 121; i += 1) last = await v1('GET', '/api/v1/orders?limit=1', { key: limited });
    expect(last.status).toBe(429);
    expect(errorsOf('get', '/api/v1/orders', 429)).toEqual([last.body.error]);
  }, 60_000);
});

describe('the guide’s signature check (Node.js)', () => {
  /** The guide's fenced blocks of one language. */
  const blocks = (language: string): string[] =>
    [
      ...(doc.info.description as string).matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g')),
    ].map((m) => m[1]!);
  let verify: (
    secret: string,
    headers: Record<string, unknown>,
    rawBody: string,
    nowSeconds?: number,
  ) => boolean;

  beforeAll(async () => {
    const code = blocks('js').find((block) => block.includes('export function verifyLayerlineWebhook'))!;
    const file = path.join(
      fs.mkdtempSync(path.join(os.tmpdir(), 'layerline-guide-')),
      'verify-layerline-webhook.mjs',
    );
    fs.writeFileSync(file, code);
    ({ verifyLayerlineWebhook: verify } = await import(pathToFileURL(file).href));
  });

  it('the worked example is right: its body is the example event, signed as the server signs', () => {
    const guide = doc.info.description as string;
    const secret = /the secret `(whsec_[^`]+)`/.exec(guide)![1]!;
    const headers = Object.fromEntries(
      blocks('http')[0]!
        .trim()
        .split('\n')
        .map((line) => line.split(': ') as [string, string]),
    );
    const body = blocks('json')[0]!.trim();
    const example = webhookEventExamples['order.status_changed'].created.value;
    expect(body).toBe(JSON.stringify(example));
    expect(guide).toContain(`UTF-8, ${Buffer.byteLength(body)} bytes`);
    expect(headers['webhook-id']).toBe(example.id);
    const timestamp = Number(headers['webhook-timestamp']);
    expect(headers['webhook-signature']).toBe(signWebhook(secret, example.id, timestamp, body));
    expect(guide).toContain(`verifyLayerlineWebhook(secret, headers, body, ${timestamp})`);
    expect(verify(secret, headers, body, timestamp)).toBe(true);
    expect(verify(secret, headers, body.replace('"quantity":2', '"quantity":3'), timestamp)).toBe(false);
    expect(verify(secret, headers, body, timestamp + 301)).toBe(false);
    expect(verify(secret.replace('xHW9', 'xHW8'), headers, body, timestamp)).toBe(false);
  });

  it('verifies a real delivery, whose headers and body are as the reference describes', async () => {
    const endpoint = await seller.request<any>(
      'PUT',
      '/api/webhook-endpoint',
      { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks` },
      {},
    );
    expect(endpoint.status).toBe(200);
    const order = examplesOf(
      doc.paths['/api/v1/orders'].post.requestBody.content['application/json'],
    )[0] as any;
    expect(
      (await v1('POST', '/api/v1/orders', { body: JSON.stringify({ ...order, externalId: 'REF-HOOK' }) }))
        .status,
    ).toBe(201);
    const deadline = Date.now() + 20_000;
    const delivery = () => received.find((r) => r.body.includes('"REF-HOOK"'));
    while (!delivery() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const { headers, body } = delivery()!;
    expect(verify(endpoint.body.secret, headers, body)).toBe(true);
    expect(verify(endpoint.body.secret, headers, body.replace('REF-HOOK', 'REF-HOOX'))).toBe(false);
    for (const parameter of doc.webhooks['order.status_changed'].post.parameters) {
      expect(String(headers[parameter.name])).toMatch(new RegExp(parameter.schema.pattern));
    }
    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toBe('Layerline-Webhooks/1.0');
    const event = JSON.parse(body);
    expect(event).toMatchObject({
      type: 'order.status_changed',
      data: { previousStatus: null, status: 'accepted' },
    });
    expect(keysOf(event)).toEqual(keysOf(webhookEventExamples['order.status_changed'].created.value));
  });
});
