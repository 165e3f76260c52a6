import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PRINTER_STATES, prusalinkConnectionSchema } from '@layerline/contracts';
import type { PrintFile } from '../../modules/production/printer-driver.ts';
import { startPrismMock, type PrismMock } from '../http-client/prism-mock.ts';
import { createPrusalinkDriver } from './prusalink-driver.ts';

/**
 * Contract tests: every request the PrusaLink adapter builds goes to Prism serving PrusaLink's own
 * OpenAPI (/work/shared/contracts/prusalink/openapi.yaml), which answers with the spec's examples
 * and rejects (422 + sl-violations) any request the spec does not allow.
 *
 * Known defect of the file, patched in memory (the file itself is never edited): it declares only
 * HTTP Digest, while PrusaLink also accepts the `X-Api-Key` header (the key shown on the printer's
 * screen, and what PrusaSlicer sends). The patched copy offers both, either one sufficing.
 *
 * Digest's challenge-response, the two firmwares' own answers in every state and the faults are
 * exercised against the PrusaLink simulators (prusalink-driver.test.ts), since Prism cannot issue
 * a Digest nonce and the spec's examples are neither server's exact answers.
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

const apiKeyDriver = (extraHeaders: Record<string, string> = {}, storage = 'usb') =>
  createPrusalinkDriver(
    prusalinkConnectionSchema.parse({
      kind: 'prusalink',
      baseUrl: prism.origin,
      auth: { kind: 'api-key', apiKey: 'PLk3y' },
      storage,
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
  it('probes /api/version with the API key, and the status for the printer’s storage', async () => {
    // The spec's status example lists the storage "/local".
    expect(await apiKeyDriver({}, 'local').probe()).toMatchObject({
      ok: true,
      value: { kind: 'prusalink', software: 'PrusaLink 0.7.0', firmware: '3.10.1-4697' },
    });
    expect(recorded.map((r) => [r.method, r.url.pathname, r.status, r.violations])).toEqual([
      ['GET', '/api/version', 200, null],
      ['GET', '/api/v1/status', 200, null],
    ]);
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
