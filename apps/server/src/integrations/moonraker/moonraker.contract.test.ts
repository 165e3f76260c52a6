import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { moonrakerConnectionSchema } from '@layerline/contracts';
import type { PrinterDriver, PrintFile } from '../../modules/production/printer-driver.ts';
import { createMoonrakerDriver, moonrakerStatus } from './moonraker-driver.ts';
import { OBJECTS_QUERY_PRINTING_EXAMPLE, UPLOAD_EXAMPLE } from './moonraker-examples.ts';
import { startMoonrakerFake, type MoonrakerFake } from './moonraker-fake.ts';

const policy = { allowLoopback: true };
const file: PrintFile = {
  fileName: 'layerline-job-7.gcode',
  bytes: new TextEncoder().encode(';LAYER_COUNT:120\nG28\n'),
  estimatedPrintSeconds: 5400,
};

let fake: MoonrakerFake;
let driver: PrinterDriver;

const connect = (overrides: { apiKey?: string; baseUrl?: string } = {}) =>
  moonrakerConnectionSchema.parse({ kind: 'moonraker', baseUrl: fake.origin, ...overrides });

beforeAll(async () => {
  fake = await startMoonrakerFake();
});
afterAll(async () => {
  await fake.stop();
});
beforeEach(() => {
  Object.assign(fake, {
    apiKey: null,
    klippy: 'ready',
    printState: 'standby',
    fileName: '',
    progress: 0,
    printDuration: 0,
    layer: { current: null, total: null },
    message: '',
  });
  fake.files.clear();
  fake.faults.length = 0;
  fake.requests.length = 0;
  driver = createMoonrakerDriver(connect(), { policy, timeoutMs: 2_000, sleep: async () => {} });
});

describe('Moonraker adapter against a fake that follows docs/external_api/*.md', () => {
  it('probes the server and Klipper versions', async () => {
    expect(await driver.probe()).toMatchObject({
      ok: true,
      value: {
        kind: 'moonraker',
        software: 'Moonraker v0.7.1-659-gf047167',
        firmware: 'Klipper v0.12.0-85-gd785b396',
      },
    });
  });

  it('uploads with print=true to the gcodes root; status reads the five documented objects', async () => {
    expect(await driver.upload(file, { startPrint: true })).toEqual({
      ok: true,
      value: { fileName: 'layerline-job-7.gcode', printStarted: true },
    });
    const form = await fake.formData(fake.requests[0]!);
    expect(form.get('print')).toBe('true');
    expect(form.get('root')).toBe('gcodes');
    expect(fake.files.get('layerline-job-7.gcode')?.toString()).toContain('G28');

    Object.assign(fake, { progress: 0.25, printDuration: 900, layer: { current: 30, total: 120 } });
    const status = await driver.status();
    expect(fake.lastQueriedObjects).toEqual([
      'print_stats',
      'virtual_sdcard',
      'webhooks',
      'extruder',
      'heater_bed',
    ]);
    expect(status).toEqual({
      ok: true,
      value: {
        state: 'printing',
        progress: 0.25,
        fileName: 'layerline-job-7.gcode',
        currentLayer: 30,
        totalLayers: 120,
        secondsLeft: 2700,
        temperatures: { nozzle: { actual: 214.93, target: 215 }, bed: { actual: 60.02, target: 60 } },
        errorText: null,
      },
    });
  });

  it('accepts the upload answer wrapped in "result" as well as bare', async () => {
    fake.faults.push({
      status: 201,
      json: {
        result: { ...UPLOAD_EXAMPLE, item: { ...UPLOAD_EXAMPLE.item, path: 'layerline-job-7.gcode' } },
      },
    });
    expect(await driver.upload(file, { startPrint: true })).toEqual({
      ok: true,
      value: { fileName: 'layerline-job-7.gcode', printStarted: true },
    });
    fake.faults.push({ status: 201, json: { result: { print_started: true } } });
    expect(await driver.upload(file, { startPrint: true })).toMatchObject({
      ok: false,
      failure: { kind: 'bad_answer' },
    });
  });

  it('uploads without printing, then starts with ?filename=', async () => {
    expect(await driver.upload(file, { startPrint: false })).toMatchObject({
      ok: true,
      value: { printStarted: false },
    });
    expect(fake.printState).toBe('standby');
    expect(await driver.start('layerline-job-7.gcode')).toEqual({ ok: true, value: undefined });
    expect(fake.requests[1]!.url.searchParams.get('filename')).toBe('layerline-job-7.gcode');
    expect(fake.printState).toBe('printing');
  });

  it('pauses, resumes and cancels; a cancelled print reads as idle, a complete one as finished', async () => {
    await driver.upload(file, { startPrint: true });
    expect(await driver.pause()).toEqual({ ok: true, value: undefined });
    expect(await driver.status()).toMatchObject({ value: { state: 'paused' } });
    expect(await driver.resume()).toEqual({ ok: true, value: undefined });
    expect(fake.printState).toBe('printing');
    expect(await driver.cancel()).toEqual({ ok: true, value: undefined });
    expect(await driver.status()).toMatchObject({ value: { state: 'idle' } });
    fake.printState = 'complete';
    expect(await driver.status()).toMatchObject({
      value: { state: 'finished', progress: 1, secondsLeft: null },
    });
  });

  it('is busy when starting while a print is in progress (Klipper’s 400), rejected for a missing file', async () => {
    await driver.upload(file, { startPrint: true });
    expect(await driver.start('layerline-job-7.gcode')).toMatchObject({
      ok: false,
      failure: { kind: 'busy', status: 400 },
    });
    await driver.cancel();
    expect(await driver.start('nothing-here.gcode')).toMatchObject({
      ok: false,
      failure: { kind: 'rejected', message: expect.stringContaining('Unable to open file') },
    });
  });

  it('reports an error mid-print with Klipper’s message, and a shutdown as error', async () => {
    await driver.upload(file, { startPrint: true });
    Object.assign(fake, { printState: 'error', message: 'Heater extruder not heating at expected rate' });
    expect(await driver.status()).toMatchObject({
      value: { state: 'error', errorText: 'Heater extruder not heating at expected rate' },
    });
    fake.klippy = 'shutdown';
    expect(await driver.status()).toMatchObject({
      value: { state: 'error', errorText: expect.stringContaining('shutdown') },
    });
  });

  it('reports offline when Klippy is not connected (503) or still starting', async () => {
    fake.klippy = 'disconnected';
    expect(await driver.status()).toMatchObject({
      ok: true,
      value: { state: 'offline', errorText: 'Klippy Host not connected' },
    });
    expect(await driver.start('x.gcode')).toMatchObject({
      ok: false,
      failure: { kind: 'unreachable', status: 503 },
    });
    fake.klippy = 'startup';
    expect(await driver.status()).toMatchObject({ ok: true, value: { state: 'offline' } });
  });

  it('sends the API key when one is configured, and reads a refusal as auth_refused', async () => {
    fake.apiKey = 'moon-key';
    expect(await driver.probe()).toMatchObject({ ok: false, failure: { kind: 'auth_refused', status: 401 } });
    const keyed = createMoonrakerDriver(connect({ apiKey: 'moon-key' }), { policy });
    expect(await keyed.probe()).toMatchObject({ ok: true });
    expect(fake.requests.at(-1)!.headers['x-api-key']).toBe('moon-key');
  });

  it('turns HTML, the wrong JSON and a non-"ok" command answer into bad_answer', async () => {
    fake.faults.push('html');
    expect(await driver.status()).toMatchObject({
      ok: false,
      failure: { kind: 'bad_answer', message: expect.stringContaining('HTML') },
    });
    fake.faults.push('wrong-json');
    expect(await driver.pause()).toMatchObject({ ok: false, failure: { kind: 'bad_answer' } });
    fake.faults.push({
      status: 200,
      json: { result: { eventtime: 1, status: { print_stats: { state: 'printing' } } } },
    });
    expect(await driver.status()).toMatchObject({
      ok: false,
      failure: { kind: 'bad_answer', message: expect.stringContaining('webhooks') },
    });
  });

  it('times out on a printer that never answers, without repeating the command', async () => {
    const slow = createMoonrakerDriver(connect(), { policy, timeoutMs: 150, sleep: async () => {} });
    fake.faults.push('hang');
    expect(await slow.start('layerline-job-7.gcode')).toMatchObject({
      ok: false,
      failure: { kind: 'timeout' },
    });
    expect(fake.requests).toHaveLength(1);
  });

  it('maps the documented objects-query example', () => {
    const status = moonrakerStatus(OBJECTS_QUERY_PRINTING_EXAMPLE);
    expect(status).toMatchObject({
      state: 'printing',
      progress: 0.3362,
      currentLayer: 40,
      totalLayers: 120,
      fileName: 'test_print.gcode',
    });
    expect(status.secondsLeft).toBe(Math.round(1100.5 / 0.3362 - 1100.5));
  });
});
