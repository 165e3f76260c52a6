import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { octoprintConnectionSchema } from '@layerline/contracts';
import type { PrinterDriver, PrintFile } from '../../modules/production/printer-driver.ts';
import { createOctoprintDriver, octoprintStatus } from './octoprint-driver.ts';
import { JOB_PRINTING_EXAMPLE, PRINTER_OPERATIONAL_EXAMPLE } from './octoprint-examples.ts';
import { startOctoprintFake, type OctoprintFake } from './octoprint-fake.ts';

const policy = { allowLoopback: true };
const file: PrintFile = {
  fileName: 'layerline-job-42.gcode',
  bytes: new TextEncoder().encode('G28\nG1 X10 Y10\n'),
  estimatedPrintSeconds: 3600,
};

let fake: OctoprintFake;
let driver: PrinterDriver;

const connect = (overrides: { apiKey?: string; baseUrl?: string } = {}) =>
  octoprintConnectionSchema.parse({
    kind: 'octoprint',
    baseUrl: fake.origin,
    apiKey: fake.apiKey,
    ...overrides,
  });

beforeAll(async () => {
  fake = await startOctoprintFake();
});
afterAll(async () => {
  await fake.stop();
});
beforeEach(() => {
  fake.state = 'Operational';
  fake.selected = null;
  fake.completion = null;
  fake.error = null;
  fake.files.clear();
  fake.faults.length = 0;
  fake.requests.length = 0;
  driver = createOctoprintDriver(connect(), { policy, timeoutMs: 2_000, sleep: async () => {} });
});

describe('OctoPrint adapter against a fake that follows docs/api/*.rst', () => {
  it('probes the version with the API key', async () => {
    const result = await driver.probe();
    expect(result).toMatchObject({
      ok: true,
      value: { kind: 'octoprint', software: 'OctoPrint 1.3.10', firmware: null },
    });
    expect(fake.requests[0]!.headers['x-api-key']).toBe(fake.apiKey);
  });

  it('uploads with print=true as multipart and the printer starts it; status reads progress and temperatures', async () => {
    const uploaded = await driver.upload(file, { startPrint: true });
    expect(uploaded).toEqual({ ok: true, value: { fileName: 'layerline-job-42.gcode', printStarted: true } });
    const form = await fake.formData(fake.requests[0]!);
    expect(form.get('print')).toBe('true');
    expect(form.get('select')).toBe('true');
    expect((form.get('file') as File).name).toBe('layerline-job-42.gcode');
    expect(fake.files.get('layerline-job-42.gcode')?.toString()).toBe('G28\nG1 X10 Y10\n');

    fake.advance(25);
    const status = await driver.status();
    expect(status).toEqual({
      ok: true,
      value: {
        state: 'printing',
        progress: 0.25,
        fileName: 'layerline-job-42.gcode',
        currentLayer: null,
        totalLayers: null,
        secondsLeft: 750,
        temperatures: { nozzle: { actual: 214.8821, target: 220 }, bed: { actual: 50.221, target: 70 } },
        errorText: null,
      },
    });
  });

  it('uploads without printing, then starts by selecting the file with print=true', async () => {
    expect(await driver.upload(file, { startPrint: false })).toEqual({
      ok: true,
      value: { fileName: 'layerline-job-42.gcode', printStarted: false },
    });
    expect(fake.state).toBe('Operational');
    expect(await driver.start('layerline-job-42.gcode')).toEqual({ ok: true, value: undefined });
    expect(fake.state).toBe('Printing');
    expect(JSON.parse(fake.requests[1]!.body.toString())).toEqual({ command: 'select', print: true });
  });

  it('pauses, resumes and cancels with the documented job commands', async () => {
    await driver.upload(file, { startPrint: true });
    expect((await driver.pause()).ok).toBe(true);
    expect(fake.state).toBe('Paused');
    expect((await driver.status()).ok && (await driver.status())).toMatchObject({
      value: { state: 'paused' },
    });
    expect((await driver.resume()).ok).toBe(true);
    expect(fake.state).toBe('Printing');
    expect((await driver.cancel()).ok).toBe(true);
    expect(fake.state).toBe('Operational');
    const commands = fake.requests
      .filter((r) => r.url.pathname === '/api/job' && r.method === 'POST')
      .map((r) => JSON.parse(r.body.toString()));
    expect(commands).toEqual([
      { command: 'pause', action: 'pause' },
      { command: 'pause', action: 'resume' },
      { command: 'cancel' },
    ]);
  });

  it('reports finished after the job completes, and idle again after a cancel', async () => {
    await driver.upload(file, { startPrint: true });
    fake.finish();
    expect(await driver.status()).toMatchObject({
      ok: true,
      value: { state: 'finished', progress: 1, secondsLeft: null },
    });
    await driver.start('layerline-job-42.gcode');
    fake.advance(40);
    await driver.cancel();
    expect(await driver.status()).toMatchObject({ ok: true, value: { state: 'idle', progress: 0.4 } });
  });

  it('is busy (409) when asked to start while printing, and rejected when pausing with nothing active', async () => {
    await driver.upload(file, { startPrint: true });
    expect(await driver.start('layerline-job-42.gcode')).toMatchObject({
      ok: false,
      failure: { kind: 'busy', status: 409 },
    });
    // files.rst: 409 when the upload would overwrite the file being printed.
    expect(await driver.upload(file, { startPrint: false })).toMatchObject({
      ok: false,
      failure: { kind: 'busy', status: 409 },
    });
    await driver.cancel();
    expect(await driver.pause()).toMatchObject({ ok: false, failure: { kind: 'rejected', status: 409 } });
  });

  it('reports an error mid-print with the printer’s own words', async () => {
    await driver.upload(file, { startPrint: true });
    fake.fail('Thermal Runaway on heater tool0');
    expect(await driver.status()).toMatchObject({
      ok: true,
      value: { state: 'error', errorText: 'Thermal Runaway on heater tool0' },
    });
  });

  it('reports offline when OctoPrint runs but its printer is disconnected (409 from /api/printer)', async () => {
    fake.disconnect();
    expect(await driver.status()).toMatchObject({ ok: true, value: { state: 'offline' } });
  });

  it('refuses a wrong API key as auth_refused (403), without the key in the message', async () => {
    const wrong = createOctoprintDriver(connect({ apiKey: 'not-the-key' }), { policy });
    const result = await wrong.probe();
    expect(result).toMatchObject({ ok: false, failure: { kind: 'auth_refused', status: 403 } });
    expect(JSON.stringify(result)).not.toContain('not-the-key');
  });

  it('turns an HTML page or the wrong JSON into bad_answer', async () => {
    fake.faults.push('html');
    expect(await driver.probe()).toMatchObject({
      ok: false,
      failure: { kind: 'bad_answer', message: expect.stringContaining('an HTML page') },
    });
    fake.faults.push('wrong-json', 'wrong-json');
    expect(await driver.status()).toMatchObject({
      ok: false,
      failure: { kind: 'bad_answer', message: expect.stringContaining('wrong shape') },
    });
  });

  it('times out on a printer that never answers, and retries a read once but never a command', async () => {
    const slow = createOctoprintDriver(connect(), { policy, timeoutMs: 150, sleep: async () => {} });
    fake.faults.push('hang', 'hang');
    expect(await slow.probe()).toMatchObject({ ok: false, failure: { kind: 'timeout' } });
    expect(fake.requests).toHaveLength(2);
    fake.requests.length = 0;
    fake.faults.push('hang');
    expect(await slow.cancel()).toMatchObject({ ok: false, failure: { kind: 'timeout' } });
    expect(fake.requests).toHaveLength(1);
  });

  it('is unreachable when nothing listens, and refuses loopback under the default policy without calling', async () => {
    const closed = createOctoprintDriver(connect({ baseUrl: 'http://127.0.0.1:9' }), {
      policy,
      sleep: async () => {},
    });
    expect(await closed.status()).toMatchObject({ ok: false, failure: { kind: 'unreachable' } });
    const strict = createOctoprintDriver(connect(), { policy: { allowLoopback: false } });
    expect(await strict.probe()).toMatchObject({ ok: false, failure: { kind: 'not_allowed' } });
    expect(fake.requests).toHaveLength(0);
  });

  it('refuses an unsafe file name before calling', async () => {
    expect(
      await driver.upload({ ...file, fileName: '../etc/passwd.gcode' }, { startPrint: true }),
    ).toMatchObject({
      ok: false,
      failure: { kind: 'rejected' },
    });
    expect(fake.requests).toHaveLength(0);
  });

  it('maps the documented example payloads as published', () => {
    const status = octoprintStatus(
      {
        ...PRINTER_OPERATIONAL_EXAMPLE,
        state: {
          text: 'Printing',
          flags: { ...PRINTER_OPERATIONAL_EXAMPLE.state.flags, printing: true, ready: false },
        },
      },
      JOB_PRINTING_EXAMPLE,
    );
    expect(status).toMatchObject({ state: 'printing', fileName: 'whistle_v2.gcode', secondsLeft: 912 });
    expect(status.progress).toBeCloseTo(0.002298, 5);
  });
});
