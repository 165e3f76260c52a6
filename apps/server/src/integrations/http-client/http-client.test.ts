import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { MarketplaceRejectedError, MarketplaceUnavailableError } from '../../modules/shops/connector.ts';
import {
  backoffDelayMs,
  createHttpClient,
  OutboundHostNotAllowedError,
  OutboundUnavailableError,
  parseRetryAfter,
} from './http-client.ts';
import { createRateLimiter } from './rate-limiter.ts';

type Step = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server;
let origin: string;
let steps: Step[] = [];
let hits: { method: string; url: string; at: number }[] = [];

const reply =
  (status: number, body: unknown = {}, headers: Record<string, string> = {}): Step =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push({ method: req.method ?? '', url: req.url ?? '', at: Date.now() });
    const step = steps.shift() ?? reply(200, { ok: true });
    step(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  steps = [];
  hits = [];
});

const client = (overrides: Partial<Parameters<typeof createHttpClient>[0]> = {}) =>
  createHttpClient({
    vendor: 'Test',
    allowedOrigins: [origin],
    baseDelayMs: 20,
    maxDelayMs: 100,
    ...overrides,
  });

describe('http client retries (RETRY-1)', () => {
  it('waits out 429 + Retry-After: 1, retries a 503, then succeeds', async () => {
    steps = [
      reply(429, { error: 'slow down' }, { 'retry-after': '1' }),
      reply(503, { error: 'busy' }),
      reply(200, { shop_id: 7 }),
    ];
    const started = Date.now();
    const response = await client().request({
      method: 'GET',
      url: `${origin}/v3/thing`,
      operation: 'getThing',
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ shop_id: 7 });
    expect(hits).toHaveLength(3);
    expect(hits[1]!.at - hits[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  });

  it('never retries a plain 400: one attempt, MarketplaceRejectedError with the status and the vendor message', async () => {
    steps = [reply(400, { error: 'Invalid tracking code' }), reply(200)];
    const error = await client()
      .request({
        method: 'POST',
        url: `${origin}/v3/x`,
        form: new URLSearchParams({ a: '1' }),
        operation: 'createThing',
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceRejectedError);
    expect((error as MarketplaceRejectedError).status).toBe(400);
    expect((error as Error).message).toContain('Invalid tracking code');
    expect(hits).toHaveLength(1);
  });

  it('retries 408 and 5xx up to maxAttempts, then throws MarketplaceUnavailableError', async () => {
    steps = [reply(408), reply(500), reply(502), reply(504), reply(200)];
    const error = await client({ maxAttempts: 4 })
      .request({ method: 'GET', url: `${origin}/x`, operation: 'op' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceUnavailableError);
    expect((error as MarketplaceUnavailableError).retryAfterSeconds).toBeNull();
    expect(hits).toHaveLength(4);
  });

  it('gives up at once when Retry-After is longer than it will wait, passing the delay on', async () => {
    steps = [reply(429, {}, { 'retry-after': '120' }), reply(200)];
    const error = await client()
      .request({ method: 'GET', url: `${origin}/x`, operation: 'op' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceUnavailableError);
    expect((error as MarketplaceUnavailableError).retryAfterSeconds).toBe(120);
    expect(hits).toHaveLength(1);
  });

  it('retries network errors and timeouts, then reports unavailable', async () => {
    steps = [() => undefined, () => undefined]; // never answers
    const error = await client({ timeoutMs: 150, maxAttempts: 2 })
      .request({ method: 'GET', url: `${origin}/slow`, operation: 'op' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceUnavailableError);
    expect((error as Error).message).toContain('timed out');
    expect(hits).toHaveLength(2);

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadOrigin = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const fetchSpy = vi.fn(globalThis.fetch);
    const refused = await createHttpClient({
      vendor: 'Test',
      allowedOrigins: [deadOrigin],
      baseDelayMs: 5,
      maxAttempts: 3,
      fetch: fetchSpy,
    })
      .request({ method: 'GET', url: `${deadOrigin}/`, operation: 'op' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MarketplaceUnavailableError);
    expect(fetchSpy).toHaveBeenCalledTimes(3);
  });

  it('does not follow redirects', async () => {
    steps = [reply(302, {}, { location: `${origin}/elsewhere` })];
    const error = await client()
      .request({ method: 'GET', url: `${origin}/x`, operation: 'op' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MarketplaceRejectedError);
    expect((error as MarketplaceRejectedError).status).toBe(302);
    expect(hits.map((h) => h.url)).toEqual(['/x']);
  });

  it('full jitter spreads delays (coefficient of variation > 0.3) and caps them', () => {
    const delays = Array.from({ length: 200 }, () => backoffDelayMs(3, 500, 20_000, Math.random));
    const mean = delays.reduce((a, b) => a + b, 0) / delays.length;
    const sd = Math.sqrt(delays.reduce((a, b) => a + (b - mean) ** 2, 0) / delays.length);
    expect(sd / mean).toBeGreaterThan(0.3);
    expect(Math.max(...delays)).toBeLessThanOrEqual(4000);
    expect(backoffDelayMs(30, 500, 20_000, () => 0.999999)).toBeLessThanOrEqual(20_000);
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('7', 0)).toBe(7);
    expect(parseRetryAfter(new Date(30_000).toUTCString(), 0)).toBe(30);
    expect(parseRetryAfter('soon', 0)).toBeNull();
    expect(parseRetryAfter(null, 0)).toBeNull();
  });
});

describe('http client allowlist (SSRF-1)', () => {
  it('refuses a host that is not allowlisted before any request leaves', async () => {
    const fetchSpy = vi.fn(globalThis.fetch);
    const c = client({ fetch: fetchSpy });
    const port = new URL(origin).port;
    for (const url of [
      `http://localhost:${port}/x`, // same server, different host name
      'http://169.254.169.254/latest/meta-data/',
      'http://127.0.0.1:5432/',
      `https://127.0.0.1:${port}/x`, // scheme is part of the origin
      'https://evil.example/',
    ]) {
      await expect(c.request({ method: 'GET', url, operation: 'op' })).rejects.toBeInstanceOf(
        OutboundHostNotAllowedError,
      );
    }
    expect(fetchSpy).not.toHaveBeenCalled();
    expect(hits).toHaveLength(0);
  });

  it('matches a wildcard origin to exactly one DNS label', () => {
    const c = createHttpClient({ vendor: 'Shopify', allowedOrigins: ['https://*.myshopify.com'] });
    expect(c.isAllowed('https://my-shop.myshopify.com/admin/api/2026-01/graphql.json')).toBe(true);
    expect(c.isAllowed('https://a.b.myshopify.com/')).toBe(false);
    expect(c.isAllowed('https://myshopify.com/')).toBe(false);
    expect(c.isAllowed('https://myshopify.com.evil.com/')).toBe(false);
    expect(c.isAllowed('http://my-shop.myshopify.com/')).toBe(false);
    expect(c.isAllowed('https://my-shop.myshopify.com:8443/')).toBe(false);
    expect(c.isAllowed('https://user@my-shop.myshopify.com/')).toBe(false);
    expect(c.isAllowed('not a url')).toBe(false);
  });
});

describe('rate limiter', () => {
  it('spaces requests of one key and leaves other keys alone', async () => {
    let clock = 0;
    const waits: number[] = [];
    const limiter = createRateLimiter({
      ratePerSecond: 5,
      now: () => clock,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    for (let i = 0; i < 5; i += 1) await limiter.acquire('shop-1');
    await limiter.acquire('shop-2');
    expect(waits).toEqual([200, 400, 600, 800]);
    clock = 10_000;
    await limiter.acquire('shop-1');
    expect(waits).toHaveLength(4);
  });
});

describe('per-request options (used by the printer adapters)', () => {
  const capture =
    (into: { headers?: IncomingMessage['headers']; body?: Buffer }, status = 201): Step =>
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        into.headers = req.headers;
        into.body = Buffer.concat(chunks);
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end('{}');
      });
    };

  it('sends a raw body as is, and a FormData body as multipart', async () => {
    const raw: { headers?: IncomingMessage['headers']; body?: Buffer } = {};
    steps = [capture(raw)];
    await client().request({
      method: 'PUT',
      url: `${origin}/file`,
      operation: 'upload',
      headers: { 'content-type': 'application/octet-stream' },
      body: new Uint8Array([0, 1, 2, 255]),
    });
    expect([...raw.body!]).toEqual([0, 1, 2, 255]);
    expect(raw.headers!['content-type']).toBe('application/octet-stream');

    const multipart: { headers?: IncomingMessage['headers']; body?: Buffer } = {};
    steps = [capture(multipart)];
    const form = new FormData();
    form.set('print', 'true');
    await client().request({ method: 'POST', url: `${origin}/upload`, operation: 'upload', body: form });
    expect(multipart.headers!['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(multipart.body!.toString()).toContain('name="print"\r\n\r\ntrue');
  });

  it('answers statuses the caller accepts instead of throwing, headers included', async () => {
    steps = [reply(401, { error: 'who are you' }, { 'www-authenticate': 'Digest realm="x", nonce="n"' })];
    const response = await client().request({ method: 'GET', url: `${origin}/a`, operation: 'a', acceptStatuses: [401] });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('Digest');
  });

  it('honours per-request attempts and timeout, and says why it gave up', async () => {
    steps = [reply(503), reply(503), reply(200)];
    const unavailable = await client({ sleep: async () => {} })
      .request({ method: 'POST', url: `${origin}/cmd`, operation: 'cmd', maxAttempts: 1 })
      .catch((error: unknown) => error);
    expect(unavailable).toBeInstanceOf(OutboundUnavailableError);
    expect(unavailable).toBeInstanceOf(MarketplaceUnavailableError);
    expect(unavailable).toMatchObject({ reason: 'status', status: 503 });
    expect(hits).toHaveLength(1);

    steps = [() => {}]; // never answers
    const timedOut = await client({ timeoutMs: 10_000 })
      .request({ method: 'GET', url: `${origin}/slow`, operation: 'slow', maxAttempts: 1, timeoutMs: 100 })
      .catch((error: unknown) => error);
    expect(timedOut).toMatchObject({ reason: 'timeout', status: null });
  });
});
