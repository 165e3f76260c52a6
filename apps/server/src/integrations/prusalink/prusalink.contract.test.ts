import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PRINTER_STATES, prusalinkConnectionSchema } from '@layerline/contracts';
import type { PrintFile } from '../../modules/production/printer-driver.ts';
import {
  startFakePrinterServer,
  type FakePrinterServer,
  type FakeRequest,
} from '../http-client/fake-printer-server.ts';
import { startPrismMock, type PrismMock } from '../http-client/prism-mock.ts';
import { createPrusalinkDriver, prusalinkStatus } from './prusalink-driver.ts';

/**
 * Contract tests: every request the PrusaLink adapter builds goes to Prism serving PrusaLink's own
 * OpenAPI (/work/shared/contracts/prusalink/openapi.yaml), which answers with the spec's examples
 * and rejects (422 + sl-violations) any request the spec does not allow.
 *
 * Known defect of the file, patched in memory (the file itself is never edited): it declares only
 * HTTP Digest, while PrusaLink also accepts the `X-Api-Key` header (the key shown on the printer's
 * screen, and what PrusaSlicer sends). The patched copy offers both, either one sufficing.
 *
 * Digest's challenge-response and the faults (garbage, timeouts, 401, 409, an error mid-print) are
 * exercised against a small local server speaking the spec's shapes, since Prism cannot issue a
 * Digest nonce.
 */
const SPEC = '/work/shared/contracts/prusalink/openapi.yaml';
const policy = { allowLoopback: true };
const file: PrintFile = {
  fileName: 'layerline-job-9.bgcode',
  bytes: new Uint8Array([71, 67, 68, 69, 1, 0, 0, 0]),
  estimatedPrintSeconds: 600,
};

interface Recorded {
  method: string;
  url: URL;
  status: number;
  /** Prism's violations of the request (its notes on its own example responses are left out). */
  violations: string | null;
}

/**
 * Prism also reports where the spec's own example breaks the spec: GET /api/v1/job's example
 * matches both branches of its `oneOf` (neither branch is closed), a defect of the file, not of
 * our request. Only request violations count here.
 */
const requestViolations = (header: string | null): string | null => {
  if (!header) return null;
  const list = (JSON.parse(header) as { location: string[] }[]).filter((v) => v.location[0] !== 'response');
  return list.length ? JSON.stringify(list) : null;
};

let prism: PrismMock;
let specDir: string;
let recorded: Recorded[] = [];

const recordingFetch =
  (extraHeaders: Record<string, string> = {}): typeof fetch =>
  async (input, init) => {
    const headers = new Headers(init?.headers);
    for (const [key, value] of Object.entries(extraHeaders)) headers.set(key, value);
    const response = await fetch(input, { ...init, headers });
    recorded.push({
      method: init?.method ?? 'GET',
      url: new URL(input instanceof Request ? input.url : input),
      status: response.status,
      violations: requestViolations(response.headers.get('sl-violations')),
    });
    return response;
  };

const apiKeyDriver = (extraHeaders: Record<string, string> = {}) =>
  createPrusalinkDriver(
    prusalinkConnectionSchema.parse({
      kind: 'prusalink',
      baseUrl: prism.origin,
      auth: { kind: 'api-key', apiKey: 'PLk3y' },
    }),
    { policy, fetch: recordingFetch(extraHeaders), sleep: async () => {} },
  );

beforeAll(async () => {
  const published = readFileSync(SPEC, 'utf8');
  const security = 'security:\n  - digestAuth: []\n';
  const schemes = '  securitySchemes:\n    digestAuth:\n      type: http\n      scheme: digest\n';
  if (!published.includes(security) || !published.includes(schemes))
    throw new Error('The PrusaLink spec changed: review the in-memory patch');
  const patched = published
    .replace(security, `${security}  - apiKeyAuth: []\n`)
    .replace(
      schemes,
      `${schemes}    apiKeyAuth:\n      type: apiKey\n      in: header\n      name: X-Api-Key\n`,
    );
  specDir = mkdtempSync(join(tmpdir(), 'prusalink-spec-'));
  writeFileSync(join(specDir, 'openapi.yaml'), patched);
  prism = await startPrismMock(join(specDir, 'openapi.yaml'));
}, 90_000);

afterAll(async () => {
  await prism?.stop();
  rmSync(specDir, { recursive: true, force: true });
});

beforeEach(() => {
  recorded = [];
});

describe('PrusaLink adapter against its OpenAPI (Prism)', () => {
  it('probes /api/version with the API key', async () => {
    expect(await apiKeyDriver().probe()).toMatchObject({
      ok: true,
      value: { kind: 'prusalink', software: 'PrusaLink 0.7.0', firmware: '3.10.1-4697' },
    });
    expect(recorded).toEqual([expect.objectContaining({ method: 'GET', status: 200, violations: null })]);
  });

  it('uploads with PUT, Print-After-Upload ?1 and Overwrite ?1, as the spec allows', async () => {
    expect(await apiKeyDriver().upload(file, { startPrint: true })).toEqual({
      ok: true,
      value: { fileName: file.fileName, printStarted: true },
    });
    expect(recorded).toEqual([expect.objectContaining({ method: 'PUT', status: 201, violations: null })]);
    expect(recorded[0]!.url.pathname).toBe('/api/v1/files/usb/layerline-job-9.bgcode');
  });

  it('starts an uploaded file with POST', async () => {
    expect(await apiKeyDriver().start(file.fileName)).toEqual({ ok: true, value: undefined });
    expect(recorded).toEqual([expect.objectContaining({ method: 'POST', status: 204, violations: null })]);
  });

  it('reads status (and the job for its file name) and maps the spec’s example', async () => {
    const result = await apiKeyDriver().status();
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(PRINTER_STATES).toContain(result.value.state);
    expect(result.value.temperatures).toEqual({
      nozzle: { actual: 214.9, target: 215 },
      bed: { actual: 59.5, target: 60 },
    });
    expect(recorded.map((r) => [r.method, r.url.pathname, r.violations])).toEqual([
      ['GET', '/api/v1/status', null],
      ['GET', '/api/v1/job', null],
    ]);
  });

  it('pauses, resumes and cancels the job named by the status (id 420 in the spec’s example)', async () => {
    const driver = apiKeyDriver();
    expect(await driver.pause()).toEqual({ ok: true, value: undefined });
    expect(await driver.resume()).toEqual({ ok: true, value: undefined });
    expect(await driver.cancel()).toEqual({ ok: true, value: undefined });
    const commands = recorded.filter((r) => r.url.pathname.startsWith('/api/v1/job/'));
    expect(commands.map((r) => [r.method, r.url.pathname, r.status, r.violations])).toEqual([
      ['PUT', '/api/v1/job/420/pause', 204, null],
      ['PUT', '/api/v1/job/420/resume', 204, null],
      ['DELETE', '/api/v1/job/420', 204, null],
    ]);
  });

  it('reads the spec’s 409 as busy on start and upload', async () => {
    const busy = apiKeyDriver({ prefer: 'code=409' });
    expect(await busy.start(file.fileName)).toMatchObject({
      ok: false,
      failure: { kind: 'busy', status: 409 },
    });
    expect(await busy.upload(file, { startPrint: true })).toMatchObject({
      ok: false,
      failure: { kind: 'busy', status: 409 },
    });
  });

  it('the mock is strict: it rejects a wrong header value, a wrong path type and missing credentials', async () => {
    const bad = await fetch(`${prism.origin}/api/v1/files/usb/x.gcode`, {
      method: 'PUT',
      headers: { 'x-api-key': 'k', 'content-type': 'application/octet-stream', 'print-after-upload': 'yes' },
      body: new Uint8Array([1, 2, 3]),
    });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(await bad.json())).toContain(
      'print-after-upload must be equal to one of the allowed values',
    );
    const badId = await fetch(`${prism.origin}/api/v1/job/abc/pause`, {
      method: 'PUT',
      headers: { 'x-api-key': 'k' },
    });
    expect(badId.status).toBe(422);
    const anonymous = await fetch(`${prism.origin}/api/v1/status`);
    expect(anonymous.status).toBe(401);
  });
});

// ---- Digest and faults, against a local server in the spec's shapes --------------------------

const REALM = 'Printer API';
const USER = { username: 'maker', password: 'pa55word' };
let server: FakePrinterServer;
let nonce = 'nonce-1';
let printerState = 'PRINTING';
let statusPrinter: { ok: boolean; message: string } = { ok: true, message: 'OK' };

/** Independent check of a Digest answer (RFC 2617 without qop, as PrusaLink's own server uses). */
const digestValid = (request: FakeRequest): boolean => {
  const header = String(request.headers.authorization ?? '');
  const field = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(header)?.[1];
  const md5 = (text: string) => createHash('md5').update(text).digest('hex');
  if (!header.startsWith('Digest ') || field('username') !== USER.username || field('nonce') !== nonce)
    return false;
  const expected = md5(
    `${md5(`${USER.username}:${REALM}:${USER.password}`)}:${nonce}:${md5(`${request.method}:${field('uri')}`)}`,
  );
  return field('uri') === `${request.url.pathname}${request.url.search}` && field('response') === expected;
};

beforeAll(async () => {
  server = await startFakePrinterServer((request) => {
    if (!digestValid(request)) {
      return {
        status: 401,
        text: 'Unauthorized',
        headers: { 'www-authenticate': `Digest realm="${REALM}", nonce="${nonce}"` },
      };
    }
    if (request.url.pathname === '/api/version')
      return {
        status: 200,
        json: { api: '2.0.0', version: '0.8.1', printer: '1.0.0', text: 'PrusaLink', firmware: '6.1.3+7898' },
      };
    if (request.url.pathname === '/api/v1/status') {
      return {
        status: 200,
        json: {
          job: { id: 77, progress: 61.5, time_remaining: 1400, time_printing: 2200 },
          printer: {
            state: printerState,
            temp_nozzle: 215.1,
            target_nozzle: 215,
            temp_bed: 60.1,
            target_bed: 60,
            status_printer: statusPrinter,
          },
        },
      };
    }
    if (request.url.pathname === '/api/v1/job') {
      return {
        status: 200,
        json: {
          id: 77,
          state: printerState,
          progress: 61.5,
          time_printing: 2200,
          file: { name: 'LAYERL~1.BGC', display_name: 'layerline-job-9.bgcode' },
        },
      };
    }
    if (request.method === 'PUT' && request.url.pathname.startsWith('/api/v1/files/'))
      return { status: 201, text: '' };
    return { status: 404, text: 'Not found' };
  });
});
afterAll(async () => {
  await server?.stop();
});

const digestDriver = (password = USER.password, timeoutMs = 2_000) =>
  createPrusalinkDriver(
    prusalinkConnectionSchema.parse({
      kind: 'prusalink',
      baseUrl: server.origin,
      auth: { kind: 'digest', username: USER.username, password },
    }),
    { policy, timeoutMs, sleep: async () => {} },
  );

describe('PrusaLink adapter: Digest and faults', () => {
  beforeEach(() => {
    server.requests.length = 0;
    server.faults.length = 0;
    printerState = 'PRINTING';
    statusPrinter = { ok: true, message: 'OK' };
  });

  it('answers the Digest challenge once and reuses it; a rotated nonce is answered again', async () => {
    const driver = digestDriver();
    expect(await driver.probe()).toMatchObject({
      ok: true,
      value: { software: 'PrusaLink', firmware: '6.1.3+7898' },
    });
    expect(server.requests.map((r) => Boolean(r.headers.authorization))).toEqual([false, true]);
    const status = await driver.status();
    expect(status).toMatchObject({
      ok: true,
      value: { state: 'printing', progress: 0.615, secondsLeft: 1400, fileName: 'layerline-job-9.bgcode' },
    });
    expect(server.requests).toHaveLength(4);
    nonce = 'nonce-2';
    expect((await driver.probe()).ok).toBe(true);
    nonce = 'nonce-1';
  });

  it('primes the challenge before an upload so the file is sent once', async () => {
    const driver = digestDriver();
    expect(await driver.upload(file, { startPrint: false })).toMatchObject({ ok: true });
    expect(server.requests.map((r) => [r.method, Boolean(r.headers.authorization)])).toEqual([
      ['GET', false],
      ['GET', true],
      ['PUT', true],
    ]);
    expect(server.requests[2]!.headers['print-after-upload']).toBe('?0');
  });

  it('a wrong password is auth_refused after one answered challenge, and names no secret', async () => {
    const result = await digestDriver('wrong-password').probe();
    expect(result).toMatchObject({ ok: false, failure: { kind: 'auth_refused', status: 401 } });
    expect(JSON.stringify(result)).not.toContain('wrong-password');
    expect(server.requests).toHaveLength(2);
  });

  it('reports an error mid-print and a printer that needs attention with the printer’s words', async () => {
    const driver = digestDriver();
    printerState = 'ERROR';
    statusPrinter = { ok: false, message: 'Heater nozzle thermal runaway' };
    expect(await driver.status()).toMatchObject({
      ok: true,
      value: { state: 'error', errorText: 'Heater nozzle thermal runaway' },
    });
    printerState = 'ATTENTION';
    statusPrinter = { ok: false, message: 'Filament runout' };
    expect(await driver.status()).toMatchObject({
      ok: true,
      value: { state: 'paused', errorText: 'The printer needs attention: Filament runout' },
    });
  });

  it('garbage (HTML, wrong JSON) is bad_answer; a silent printer times out', async () => {
    const driver = digestDriver(USER.password, 150);
    expect((await driver.probe()).ok).toBe(true);
    server.faults.push('html');
    expect(await driver.status()).toMatchObject({ ok: false, failure: { kind: 'bad_answer' } });
    server.faults.push('wrong-json');
    expect(await driver.status()).toMatchObject({ ok: false, failure: { kind: 'bad_answer' } });
    server.faults.push('hang', 'hang');
    expect(await driver.status()).toMatchObject({ ok: false, failure: { kind: 'timeout' } });
  });

  it('maps every state the spec lists', () => {
    const states = [
      'IDLE',
      'BUSY',
      'PRINTING',
      'PAUSED',
      'FINISHED',
      'STOPPED',
      'ERROR',
      'ATTENTION',
      'READY',
    ] as const;
    expect(states.map((state) => prusalinkStatus({ printer: { state } }, null).state)).toEqual([
      'idle',
      'busy',
      'printing',
      'paused',
      'finished',
      'idle',
      'error',
      'paused',
      'idle',
    ]);
  });
});
