import { afterEach, describe, expect, it } from 'vitest';
import type { PrinterSimulator } from '../printer-drivers/printer-simulator.ts';
import { startPrusalinkSimulator } from './prusalink-simulator.ts';

/**
 * The simulators' own answers, read raw (no driver), against shared/contracts/printers/prusalink.md:
 * what the real servers send, so the driver's tests cannot be passed by a fake shaped to it.
 */
const KEY = 'PLk3yFromScreen';
const simulators: PrinterSimulator[] = [];
let clock = Date.parse('2026-12-07T08:00:00Z');

const start = async (firmware: 'buddy' | 'mk3'): Promise<PrinterSimulator> => {
  const simulator = await startPrusalinkSimulator({
    firmware,
    auth: 'api-key',
    apiKey: KEY,
    now: () => clock,
  });
  simulators.push(simulator);
  return simulator;
};

const call = async (
  simulator: PrinterSimulator,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: Uint8Array } = {},
) => {
  const response = await fetch(`${simulator.origin}${path}`, {
    method,
    headers: { 'x-api-key': KEY, ...init.headers },
    ...(init.body ? { body: init.body } : {}),
  });
  const text = await response.text();
  return {
    status: response.status,
    text,
    json: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : null,
  };
};

const upload = (simulator: PrinterSimulator, path: string, headers: Record<string, string>) =>
  call(simulator, 'PUT', path, { headers, body: new Uint8Array([1, 2, 3]) });

afterEach(async () => {
  await Promise.all(simulators.splice(0).map((simulator) => simulator.stop()));
});

describe('PrusaLink simulators answer as the real servers do', () => {
  it('/api/version: neither carries version nor printer; Buddy says exactly "PrusaLink" (bg.cpp L191–214, main.py L278–315)', async () => {
    const buddy = (await call(await start('buddy'), 'GET', '/api/version')).json!;
    expect(buddy).toMatchObject({ api: '2.0.0', text: 'PrusaLink', capabilities: { 'upload-by-put': true } });
    expect(buddy).not.toHaveProperty('version');
    expect(buddy).not.toHaveProperty('printer');
    expect(buddy).not.toHaveProperty('firmware');
    const mk3 = (await call(await start('mk3'), 'GET', '/api/version')).json!;
    expect(mk3).toMatchObject({ text: 'PrusaLink 0.8.1', original: 'PrusaLink MK3S', firmware: '3.14.1' });
    expect(mk3).not.toHaveProperty('version');
    expect(mk3).not.toHaveProperty('printer');
  });

  it('storage: Buddy one object /usb/, Prusa-Link a list with /local and the read-only /sdcard', async () => {
    expect((await call(await start('buddy'), 'GET', '/api/v1/status')).json!.storage).toEqual({
      path: '/usb/',
      name: 'usb',
      read_only: false,
    });
    expect((await call(await start('mk3'), 'GET', '/api/v1/status')).json!.storage).toEqual([
      expect.objectContaining({ path: '/local', read_only: false }),
      expect.objectContaining({ path: '/sdcard', read_only: true }),
    ]);
  });

  it('Buddy: 201 with file info; the job 200 while printing, PAUSED in attention, 204 at once when finished', async () => {
    const simulator = await start('buddy');
    expect((await call(simulator, 'GET', '/api/v1/job')).status).toBe(204);
    const stored = await upload(simulator, '/api/v1/files/usb/layerline-1.bgcode', {
      'print-after-upload': '?1',
    });
    expect(stored).toMatchObject({ status: 201, json: { display_name: 'layerline-1.bgcode', size: 3 } });
    expect((await call(simulator, 'GET', '/api/v1/job')).json).toMatchObject({
      id: 1,
      state: 'PRINTING',
      file: { display_name: 'layerline-1.bgcode', name: 'LAYERL~1.BGC' },
    });
    simulator.runOut();
    expect((await call(simulator, 'GET', '/api/v1/status')).json!.printer).toMatchObject({
      state: 'ATTENTION',
    });
    expect((await call(simulator, 'GET', '/api/v1/job')).json).toMatchObject({ state: 'PAUSED' });
    expect((await call(simulator, 'PUT', '/api/v1/job/1/resume')).status).toBe(409);
    expect((await call(simulator, 'PUT', '/api/v1/job/2/pause')).status).toBe(404);
    expect((await call(simulator, 'PUT', '/api/v1/job/1/continue')).status).toBe(400);
    expect((await call(simulator, 'DELETE', '/api/v1/job/1')).status).toBe(204);
    expect((await call(simulator, 'GET', '/api/v1/job')).status).toBe(204);
    const status = (await call(simulator, 'GET', '/api/v1/status')).json!;
    expect(status).not.toHaveProperty('job');
    expect(status.printer).toMatchObject({ state: 'STOPPED' });
  });

  it('Prusa-Link: 201 with no body; ATTENTION in the job; an ended job once more for a tick, then 204', async () => {
    const simulator = await start('mk3');
    const stored = await upload(simulator, '/api/v1/files/local/layerline-1.gcode', {
      'print-after-upload': '?1',
    });
    expect(stored).toEqual({ status: 201, text: '', json: null });
    simulator.runOut();
    expect((await call(simulator, 'GET', '/api/v1/job')).json).toMatchObject({ state: 'ATTENTION' });
    expect((await call(simulator, 'DELETE', '/api/v1/job/1')).status).toBe(409);
    expect((await call(simulator, 'PUT', '/api/v1/job/1/continue')).status).toBe(204);
    simulator.cancelOnScreen();
    expect((await call(simulator, 'GET', '/api/v1/job')).json).toMatchObject({ id: 1, state: 'STOPPED' });
    clock += 1_000;
    expect((await call(simulator, 'GET', '/api/v1/job')).status).toBe(204);
  });

  it('uploads: 409 "File already exists" without Overwrite, 409 "File is busy" over the printing file, the file kept on "Can\'t print right now"', async () => {
    const simulator = await start('buddy');
    const path = '/api/v1/files/usb/layerline-1.bgcode';
    expect((await upload(simulator, path, { 'print-after-upload': '?1' })).status).toBe(201);
    expect(await upload(simulator, path, { overwrite: '?0' })).toMatchObject({
      status: 409,
      text: 'File is busy',
    });
    const second = '/api/v1/files/usb/layerline-2.bgcode';
    expect(await upload(simulator, second, { 'print-after-upload': '?1' })).toMatchObject({
      status: 409,
      text: "Can't print right now",
    });
    expect(simulator.files.has('layerline-2.bgcode')).toBe(true);
    expect(await upload(simulator, second, {})).toMatchObject({ status: 409, text: 'File already exists' });
    expect((await upload(simulator, '/api/v1/files/local/layerline-3.bgcode', {})).status).toBe(404);
    expect(simulator.printsStarted).toBe(1);
  });

  it('credentials: Prusa-Link answers a wrong key 403 "Bad X-Api-Key."; Buddy 401', async () => {
    const mk3 = await start('mk3');
    expect(await call(mk3, 'GET', '/api/v1/status', { headers: { 'x-api-key': 'nope' } })).toMatchObject({
      status: 403,
      text: 'Bad X-Api-Key.',
    });
    const response = await fetch(`${mk3.origin}/api/v1/status`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Digest realm="Administrator"/);
    const buddy = await start('buddy');
    expect((await call(buddy, 'GET', '/api/v1/status', { headers: { 'x-api-key': 'nope' } })).status).toBe(
      401,
    );
  });

  it('Prusa-Link after a restart: 503 while the daemon starts, then IDLE with the streamed print lost', async () => {
    const simulator = await start('mk3');
    await upload(simulator, '/api/v1/files/local/layerline-1.gcode', { 'print-after-upload': '?1' });
    await simulator.restartServer();
    expect((await call(simulator, 'GET', '/api/v1/status')).status).toBe(503);
    expect((await call(simulator, 'GET', '/api/v1/status')).json!.printer).toMatchObject({ state: 'IDLE' });
    expect((await call(simulator, 'GET', '/api/v1/job')).status).toBe(204);
  });
});
