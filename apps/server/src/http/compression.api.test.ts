import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uploadDesign, type TestApp } from '../../test/test-app.ts';
import { demoVaseStl } from '../demo-model.ts';

/**
 * What reaches the wire: the web build's files in the encoding the browser accepts (docs/web-delivery.md),
 * cached as long as their names allow, and the API's JSON compressed above 1 KB. Requests go through
 * node:http, which (unlike fetch) hands over the bytes as sent, so each body is decoded here.
 */
let t: TestApp;
let distDir: string;
let entryScript: string;

beforeAll(async () => {
  t = await startTestApp();
  distDir = t.context.config.webDistDir;
  if (!fs.existsSync(path.join(distDir, 'index.html'))) {
    throw new Error('The web app is not built: run `npm run build` (npm test does it for you).');
  }
  const html = fs.readFileSync(path.join(distDir, 'index.html'), 'utf8');
  entryScript = /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
});
afterAll(async () => {
  await t?.close();
});

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function request(
  method: string,
  urlPath: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const url = new URL(urlPath, t.baseUrl);
    const outgoing = http.request(url, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

function decoded(response: RawResponse): Buffer {
  switch (response.headers['content-encoding']) {
    case 'br':
      return zlib.brotliDecompressSync(response.body);
    case 'gzip':
      return zlib.gunzipSync(response.body);
    case undefined:
      return response.body;
    default:
      throw new Error(`unexpected Content-Encoding ${response.headers['content-encoding']}`);
  }
}

describe('the web build on the wire', () => {
  it('sends a hashed asset as brotli, gzip or as it is, by Accept-Encoding, honouring q=0', async () => {
    const file = fs.readFileSync(path.join(distDir, entryScript));
    const cases: Array<[string | undefined, string | undefined]> = [
      ['gzip, deflate, br, zstd', 'br'],
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['gzip;q=0.5, br;q=0.2', 'gzip'],
      ['deflate', undefined],
      ['identity', undefined],
      ['br;q=0, gzip;q=0', undefined],
      [undefined, undefined],
    ];
    for (const [accept, encoding] of cases) {
      const response = await request(
        'GET',
        entryScript,
        accept === undefined ? {} : { 'accept-encoding': accept },
      );
      const label = `Accept-Encoding: ${accept}`;
      expect(response.status, label).toBe(200);
      expect(response.headers['content-encoding'], label).toBe(encoding);
      expect(response.headers['content-type'], label).toBe('application/javascript; charset=utf-8');
      expect(Number(response.headers['content-length']), label).toBe(response.body.length);
      expect(response.headers.vary, label).toBe('Accept-Encoding');
      expect(response.headers['cache-control'], label).toBe('public, max-age=31536000, immutable');
      expect(decoded(response).equals(file), label).toBe(true);
      if (encoding) expect(response.body.length, label).toBeLessThan(file.length / 2);
    }
  });

  it('answers HEAD with the headers of the GET and no body, and a repeated request with 304', async () => {
    const get = await request('GET', entryScript, { 'accept-encoding': 'br' });
    const head = await request('HEAD', entryScript, { 'accept-encoding': 'br' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    for (const name of [
      'content-encoding',
      'content-type',
      'content-length',
      'cache-control',
      'vary',
      'etag',
    ]) {
      expect(head.headers[name], name).toBe(get.headers[name]);
    }
    // The brotli copy and the file are different representations: different ETags.
    const plain = await request('GET', entryScript);
    expect(plain.headers.etag).not.toBe(get.headers.etag);
    const again = await request('GET', entryScript, {
      'accept-encoding': 'br',
      'if-none-match': get.headers.etag!,
    });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('sends index.html (and the single-page fallback) compressed, and to be asked for again every time', async () => {
    const indexHtml = fs.readFileSync(path.join(distDir, 'index.html'));
    for (const [urlPath, accept] of [
      ['/', 'br'],
      ['/dashboard', 'gzip, br'],
      ['/pricing', 'gzip'],
      ['/index.html', 'br'],
    ]) {
      const response = await request('GET', urlPath!, { 'accept-encoding': accept! });
      expect(response.status, urlPath).toBe(200);
      expect(response.headers['content-encoding'], urlPath).toBe(accept === 'gzip' ? 'gzip' : 'br');
      expect(response.headers['content-type'], urlPath).toBe('text/html; charset=utf-8');
      expect(response.headers['cache-control'], urlPath).toBe('no-cache');
      expect(response.headers.vary, urlPath).toBe('Accept-Encoding');
      expect(response.headers.etag, urlPath).toBeDefined();
      expect(decoded(response).equals(indexHtml), urlPath).toBe(true);
    }
    const head = await request('HEAD', '/my-designs', { 'accept-encoding': 'br' });
    expect(head.status).toBe(200);
    expect(head.headers['content-encoding']).toBe('br');
    expect(head.body.length).toBe(0);
  });

  it('sends files of the public folder compressed when they are text, revalidated since their names are not hashed', async () => {
    const svg = await request('GET', '/favicon.svg', { 'accept-encoding': 'br' });
    expect(svg.headers['content-encoding']).toBe('br');
    expect(svg.headers['content-type']).toBe('image/svg+xml');
    expect(svg.headers['cache-control']).toBe('no-cache');
    expect(decoded(svg).equals(fs.readFileSync(path.join(distDir, 'favicon.svg')))).toBe(true);
    // A video is compressed by its own format: sent as it is, whatever the browser accepts.
    const video = await request('HEAD', '/media/hero.webm', { 'accept-encoding': 'br, gzip' });
    expect(video.status).toBe(200);
    expect(video.headers['content-encoding']).toBeUndefined();
    expect(Number(video.headers['content-length'])).toBe(
      fs.statSync(path.join(distDir, 'media/hero.webm')).size,
    );
  });

  it('never serves the compressed copies under their own names, nor index.html for a missing asset', async () => {
    for (const urlPath of [`${entryScript}.br`, `${entryScript}.gz`, '/assets/missing-0123abcd.js']) {
      const response = await request('GET', urlPath, { 'accept-encoding': 'br' });
      expect(response.status, urlPath).toBe(404);
      expect(JSON.parse(decoded(response).toString('utf8')), urlPath).toEqual({ error: 'Not found' });
    }
  });
});

describe('API answers on the wire', () => {
  it('compresses JSON over 1 KB by Accept-Encoding, and leaves small JSON as it is', async () => {
    const admin = await t.signUp({ role: 'admin' });
    for (let i = 0; i < 3; i++) {
      const sent = await t.client().post('/api/contact', {
        name: `Sender ${i}`,
        email: `sender-${i}@example.test`,
        subject: 'A long question',
        message: `Question ${i}: ${'how many grams does a vase take? '.repeat(30)}`,
      });
      expect(sent.status).toBe(201);
    }
    const asAdmin = { cookie: admin.cookieHeader() };
    const plain = await request('GET', '/api/admin/contact-messages', asAdmin);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(1024);
    const expected = JSON.parse(plain.body.toString('utf8'));
    expect(expected.messages).toHaveLength(3);
    for (const [accept, encoding] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['br;q=0, gzip;q=0', undefined],
    ] as const) {
      const response = await request('GET', '/api/admin/contact-messages', {
        ...asAdmin,
        'accept-encoding': accept,
      });
      expect(response.headers['content-encoding'], accept).toBe(encoding);
      expect(response.headers['content-type'], accept).toBe('application/json; charset=utf-8');
      expect(response.headers['cache-control'], accept).toBe('no-store');
      if (encoding) {
        expect(response.headers.vary, accept).toMatch(/accept-encoding/i);
        expect(response.body.length, accept).toBeLessThan(plain.body.length / 3);
      }
      expect(JSON.parse(decoded(response).toString('utf8')), accept).toEqual(expected);
    }

    const small = await request('GET', '/api/config', { 'accept-encoding': 'br, gzip' });
    expect(small.status).toBe(200);
    expect(small.body.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(Number(small.headers['content-length'])).toBe(small.body.length);
    expect(JSON.parse(small.body.toString('utf8'))).toEqual((await t.client().get('/api/config')).body);
  });

  it('sends model files as they are stored, with their length, whatever the browser accepts', async () => {
    const seller = await t.signUp({ role: 'beta' });
    const stl = demoVaseStl();
    const design = await uploadDesign(seller, stl, 'vase.stl');
    const response = await request('GET', `/api/designs/${design.id}/file`, {
      cookie: seller.cookieHeader(),
      'accept-encoding': 'br, gzip',
    });
    expect(response.status).toBe(200);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.headers['content-type']).toBe('model/stl');
    expect(Number(response.headers['content-length'])).toBe(stl.length);
    expect(response.body.equals(stl)).toBe(true);
  });

  it('streams a CSV export compressed, whole', async () => {
    const seller = await t.signUp();
    const asSeller = { cookie: seller.cookieHeader() };
    const plain = await request('GET', '/api/fulfillment-history/export.csv', asSeller);
    expect(plain.status).toBe(200);
    const compressed = await request('GET', '/api/fulfillment-history/export.csv', {
      ...asSeller,
      'accept-encoding': 'br',
    });
    expect(compressed.status).toBe(200);
    expect(compressed.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(compressed.headers['content-encoding']).toBe('br');
    expect(compressed.headers['transfer-encoding']).toBe('chunked');
    expect(decoded(compressed).toString('utf8')).toBe(plain.body.toString('utf8'));
  });
});
