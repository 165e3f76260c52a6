import { afterEach, describe, expect, it } from 'vitest';
import { octoprintConnectionSchema, type PrinterStatus } from '@layerline/contracts';
import type { PrinterDriver, PrintFile } from '../../modules/production/printer-driver.ts';
import { createOctoprintDriver } from './octoprint-driver.ts';
import { startOctoprintSimulator, type OctoprintSimulator, type OctoprintSimulatorOptions } from './octoprint-simulator.ts';

/**
 * The OctoPrint driver against a simulator that answers as OctoPrint 1.11.8 does
 * (shared/contracts/printers/octoprint.md, read from OctoPrint/OctoPrint at tag 1.11.8).
 */
const policy = { allowLoopback: true };
const file: PrintFile = {
  fileName: 'layerline-job-42.gcode',
  bytes: new TextEncoder().encode('G28\nG1 X10 Y10\n'),
  estimatedPrintSeconds: 3600,
};

const running: OctoprintSimulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((simulator) => simulator.stop()));
});

const start = async (
  options: OctoprintSimulatorOptions = {},
  timeoutMs = 2_000,
): Promise<{ octo: OctoprintSimulator; driver: PrinterDriver }> => {
  const octo = await startOctoprintSimulator(options);
  running.push(octo);
  const driver = createOctoprintDriver(octoprintConnectionSchema.parse(octo.connection()), {
    policy,
    timeoutMs,
    sleep: async () => {},
  });
  return { octo, driver };
};

const statusOf = async (driver: PrinterDriver): Promise<PrinterStatus> => {
  const result = await driver.status();
  if (!result.ok) throw new Error(`status failed: ${result.failure.message}`);
  return result.value;
};

const jobCommands = (octo: OctoprintSimulator) =>
  octo.requests
    .filter((request) => request.method === 'POST' && request.url.pathname === '/api/job')
    .map((request) => JSON.parse(request.body.toString()) as unknown);

describe('OctoPrint simulator answers as OctoPrint 1.11.8 does', () => {
  const get = (octo: OctoprintSimulator, path: string, key = 'octo-key-1234') =>
    fetch(`${octo.origin}${path}`, { headers: { 'x-api-key': key } });

  it('has exactly three keys in /api/version and refuses a missing or wrong key with 403', async () => {
    const { octo } = await start();
    expect(await (await get(octo, '/api/version')).json()).toEqual({ api: '0.1', server: '1.11.8', text: 'OctoPrint 1.11.8' });
    expect((await get(octo, '/api/version', 'wrong')).status).toBe(403);
    expect((await fetch(`${octo.origin}/api/job`)).status).toBe(403);
    const bearer = await fetch(`${octo.origin}/api/job`, { headers: { authorization: 'Bearer octo-key-1234' } });
    expect(bearer.status).toBe(200);
  });

  it('answers 409 "Printer is not operational" on /api/printer while offline, and /api/job stays 200 with null job fields', async () => {
    const { octo } = await start();
    await octo.restartServer();
    const printer = await get(octo, '/api/printer');
    expect(printer.status).toBe(409);
    expect(await printer.json()).toEqual({ error: 'Printer is not operational' });
    const job = await get(octo, '/api/job');
    expect(job.status).toBe(200);
    expect(await job.json()).toMatchObject({ state: 'Offline', job: { file: { name: null } }, progress: { completion: null } });
  });

  it('answers commands with 204 and an empty text/plain body', async () => {
    const { octo, driver } = await start();
    await driver.upload(file, { startPrint: true });
    const answer = await fetch(`${octo.origin}/api/job`, {
      method: 'POST',
      headers: { 'x-api-key': 'octo-key-1234', 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'pause', action: 'pause' }),
    });
    expect(answer.status).toBe(204);
    expect(answer.headers.get('content-type')).toContain('text/plain');
    expect(await answer.text()).toBe('');
  });

  it('stores an upload with print=true while printing (201, effectivePrint false) but refuses to overwrite the file being printed (409)', async () => {
    const { octo, driver } = await start();
    await driver.upload(file, { startPrint: true });
    const form = () => {
      const body = new FormData();
      body.set('file', new Blob(['G28\n']), 'other.gcode');
      body.set('print', 'true');
      return body;
    };
    const other = await fetch(`${octo.origin}/api/files/local`, { method: 'POST', headers: { 'x-api-key': 'octo-key-1234' }, body: form() });
    expect(other.status).toBe(201);
    expect(await other.json()).toMatchObject({ done: true, effectiveSelect: false, effectivePrint: false });
    expect(octo.files.has('other.gcode')).toBe(true);
    const same = new FormData();
    same.set('file', new Blob(['G28\n']), file.fileName);
    const overwrite = await fetch(`${octo.origin}/api/files/local`, { method: 'POST', headers: { 'x-api-key': 'octo-key-1234' }, body: same });
    expect(overwrite.status).toBe(409);
    expect(await overwrite.json()).toEqual({ error: 'Trying to overwrite file that is currently being printed' });
  });

  it('passes through Finishing to Operational with completion 100 and the file still selected', async () => {
    const { octo } = await start();
    octo.startLocalPrint('mine.gcode');
    octo.advance(0.5);
    octo.finish();
    const finishing = (await (await get(octo, '/api/printer')).json()) as { state: { flags: unknown } };
    expect(finishing.state.flags).toMatchObject({ printing: true, finishing: true, ready: false });
    expect(await (await get(octo, '/api/job')).json()).toMatchObject({ state: 'Finishing' });
    const done = await (await get(octo, '/api/job')).json();
    expect(done).toMatchObject({ state: 'Operational', job: { file: { name: 'mine.gcode' } }, progress: { completion: 100, printTimeLeft: 0 } });
  });
});

describe('OctoPrint driver reads every state of the contract’s table', () => {
  it('Operational with nothing selected is idle', async () => {
    const { driver } = await start();
    expect(await statusOf(driver)).toMatchObject({ state: 'idle', fileName: null, progress: null, vendorState: 'Operational' });
  });

  it('Starting, Printing (with progress, time left and temperatures), then Finishing are printing; done is finished', async () => {
    const { octo, driver } = await start();
    expect(await driver.upload(file, { startPrint: true })).toEqual({
      ok: true,
      value: { fileName: 'layerline-job-42.gcode', printStarted: true },
    });
    expect(await statusOf(driver)).toMatchObject({ state: 'printing', vendorState: 'Starting', progress: 0 });
    octo.advance(0.25);
    expect(await statusOf(driver)).toEqual({
      state: 'printing',
      progress: 0.25,
      fileName: 'layerline-job-42.gcode',
      currentLayer: null,
      totalLayers: null,
      secondsLeft: 2700,
      temperatures: { nozzle: { actual: 214.7, target: 215 }, bed: { actual: 59.8, target: 60 } },
      errorText: null,
      vendorState: 'Printing',
    });
    octo.finish();
    expect(await statusOf(driver)).toMatchObject({ state: 'printing', vendorState: 'Finishing' });
    expect(await statusOf(driver)).toMatchObject({
      state: 'finished',
      progress: 1,
      fileName: 'layerline-job-42.gcode',
      secondsLeft: null,
      vendorState: 'Operational',
    });
  });

  it('Pausing and Paused are paused, Resuming is printing, with the explicit pause actions', async () => {
    const { octo, driver } = await start();
    await driver.upload(file, { startPrint: true });
    expect(await driver.pause()).toEqual({ ok: true, value: undefined });
    expect(await statusOf(driver)).toMatchObject({ state: 'paused', vendorState: 'Pausing' });
    expect(await statusOf(driver)).toMatchObject({ state: 'paused', vendorState: 'Paused', fileName: file.fileName });
    expect(await driver.resume()).toEqual({ ok: true, value: undefined });
    expect(await statusOf(driver)).toMatchObject({ state: 'printing', vendorState: 'Resuming' });
    expect(await statusOf(driver)).toMatchObject({ state: 'printing', vendorState: 'Printing' });
    expect(jobCommands(octo)).toEqual([
      { command: 'pause', action: 'pause' },
      { command: 'pause', action: 'resume' },
    ]);
  });

  it('Cancelling is busy; after it the printer is idle with the file still selected and no progress', async () => {
    const { octo, driver } = await start();
    await driver.upload(file, { startPrint: true });
    octo.advance(0.4);
    expect(await driver.cancel()).toEqual({ ok: true, value: undefined });
    expect(jobCommands(octo)).toEqual([{ command: 'cancel' }]);
    expect(await statusOf(driver)).toMatchObject({ state: 'busy', vendorState: 'Cancelling', progress: 0.4 });
    expect(await statusOf(driver)).toMatchObject({ state: 'idle', vendorState: 'Operational', fileName: file.fileName, progress: null });
  });

  it('a cancel on the printer’s screen reads the same', async () => {
    const { octo, driver } = await start();
    await driver.upload(file, { startPrint: true });
    octo.cancelOnScreen();
    expect(await statusOf(driver)).toMatchObject({ state: 'busy', vendorState: 'Cancelling' });
    expect(await statusOf(driver)).toMatchObject({ state: 'idle', progress: null });
  });

  it('a firmware error mid-print is error with the printer’s words, as Error and then Offline after error (409 on /api/printer)', async () => {
    const { octo, driver } = await start();
    await driver.upload(file, { startPrint: true });
    octo.advance(0.3);
    octo.fail('Thermal Runaway, system stopped! Heater_ID: 0');
    expect(await statusOf(driver)).toMatchObject({
      state: 'error',
      errorText: 'Thermal Runaway, system stopped! Heater_ID: 0',
      vendorState: 'Error',
      fileName: file.fileName,
    });
    expect(await statusOf(driver)).toMatchObject({
      state: 'error',
      errorText: 'Thermal Runaway, system stopped! Heater_ID: 0',
      vendorState: 'Offline after error',
      fileName: null,
    });
    const printerAnswers = octo.requests.filter((request) => request.url.pathname === '/api/printer');
    expect(printerAnswers.length).toBeGreaterThanOrEqual(2);
  });

  it('a runout with host action commands is paused (OctoPrint gives no reason)', async () => {
    const { octo, driver } = await start();
    await driver.upload(file, { startPrint: true });
    octo.advance(0.6);
    octo.runOut();
    await statusOf(driver);
    expect(await statusOf(driver)).toMatchObject({ state: 'paused', vendorState: 'Paused', progress: 0.6, errorText: null });
  });

  it('an OctoPrint restart mid-print: refused while down, then Offline (autoconnect off): the print and its file are gone from the job', async () => {
    const { octo, driver } = await start();
    await driver.upload(file, { startPrint: true });
    octo.advance(0.5);
    octo.setReachable(false);
    expect(await driver.status()).toMatchObject({ ok: false, failure: { kind: 'unreachable' } });
    octo.setReachable(true);
    await octo.restartServer();
    expect(await statusOf(driver)).toMatchObject({ state: 'offline', vendorState: 'Offline', fileName: null, progress: null });
    // A host-streamed print dies with OctoPrint before it logs anything: no history for the file.
    expect(await driver.lastOutcome(file.fileName)).toEqual({ ok: true, value: { outcome: 'unknown', message: null } });
    expect(octo.files.has(file.fileName)).toBe(true);
  });

  it('with autoconnect on, a restarted OctoPrint is Operational again with nothing selected', async () => {
    const { octo, driver } = await start({ autoconnect: true });
    await driver.upload(file, { startPrint: true });
    await octo.restartServer();
    expect(await statusOf(driver)).toMatchObject({ state: 'idle', fileName: null });
  });

  it('connecting texts are offline; POST /api/connection connect brings the printer back', async () => {
    const { octo, driver } = await start();
    await octo.restartServer();
    const connect = await fetch(`${octo.origin}/api/connection`, {
      method: 'POST',
      headers: { 'x-api-key': 'octo-key-1234', 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'connect' }),
    });
    expect(connect.status).toBe(204);
    expect(await statusOf(driver)).toMatchObject({ state: 'offline', vendorState: 'Connecting' });
    expect(await statusOf(driver)).toMatchObject({ state: 'idle', vendorState: 'Operational' });
  });

  it('an operational state it has never seen is unknown, with the text in vendorState and errorText', async () => {
    const { octo, driver } = await start();
    octo.sayUnknownState('Levelling bed');
    expect(await statusOf(driver)).toMatchObject({ state: 'unknown', vendorState: 'Levelling bed', errorText: 'Levelling bed' });
  });

  it('a non-operational state it has never seen (409, only /api/job’s text) is unknown too, not offline', async () => {
    const { octo, driver } = await start();
    octo.sayUnknownState('Unknown State (16)', { operational: false });
    expect(await statusOf(driver)).toMatchObject({ state: 'unknown', vendorState: 'Unknown State (16)' });
  });
});

describe('OctoPrint driver: commands and their answers', () => {
  it('probes the three-key version with the API key', async () => {
    const { octo, driver } = await start();
    expect(await driver.probe()).toMatchObject({
      ok: true,
      value: { kind: 'octoprint', software: 'OctoPrint 1.11.8', firmware: null },
    });
    expect(octo.requests[0]!.headers['x-api-key']).toBe('octo-key-1234');
  });

  it('uploads multipart with select and print, the file as OctoPrint stores it', async () => {
    const { octo, driver } = await start();
    await driver.upload(file, { startPrint: true });
    const upload = octo.requests.find((request) => request.url.pathname === '/api/files/local')!;
    const form = await new Request(octo.origin, {
      method: 'POST',
      headers: { 'content-type': String(upload.headers['content-type']) },
      body: new Uint8Array(upload.body),
    }).formData();
    expect(form.get('print')).toBe('true');
    expect(form.get('select')).toBe('true');
    expect((form.get('file') as File).name).toBe('layerline-job-42.gcode');
    expect(octo.files.get('layerline-job-42.gcode')?.toString()).toBe('G28\nG1 X10 Y10\n');
    expect(octo.printsStarted).toBe(1);
  });

  it('uploads without printing, then starts by selecting the file with print=true', async () => {
    const { octo, driver } = await start();
    expect(await driver.upload(file, { startPrint: false })).toEqual({
      ok: true,
      value: { fileName: 'layerline-job-42.gcode', printStarted: false },
    });
    expect(octo.printsStarted).toBe(0);
    expect(await driver.start('layerline-job-42.gcode')).toEqual({ ok: true, value: undefined });
    expect(octo.printsStarted).toBe(1);
    expect(JSON.parse(octo.requests.at(-1)!.body.toString())).toEqual({ command: 'select', print: true });
  });

  it('an upload while another print runs is stored (201, effectivePrint false) and answered busy after one select that says 409', async () => {
    const { octo, driver } = await start();
    octo.startLocalPrint('someone-elses.gcode');
    const result = await driver.upload(file, { startPrint: true });
    expect(result).toMatchObject({
      ok: false,
      failure: { kind: 'busy', status: 409, message: expect.stringContaining('Printer is already printing, cannot select a new file') },
    });
    expect(octo.files.has(file.fileName)).toBe(true);
    expect(octo.printsStarted).toBe(1);
    expect(octo.requests.filter((request) => request.method === 'POST').map((request) => request.url.pathname)).toEqual([
      '/api/files/local',
      `/api/files/local/${file.fileName}`,
    ]);
  });

  it('an upload to an offline printer is busy too (the file stays stored)', async () => {
    const { octo, driver } = await start();
    await octo.restartServer();
    expect(await driver.upload(file, { startPrint: true })).toMatchObject({ ok: false, failure: { kind: 'busy' } });
    expect(octo.files.has(file.fileName)).toBe(true);
  });

  it('an upload over the file being printed is busy (409), and start while printing is busy', async () => {
    const { driver } = await start();
    await driver.upload(file, { startPrint: true });
    expect(await driver.upload(file, { startPrint: true })).toMatchObject({
      ok: false,
      failure: { kind: 'busy', status: 409, message: expect.stringContaining('currently being printed') },
    });
    expect(await driver.start(file.fileName)).toMatchObject({ ok: false, failure: { kind: 'busy', status: 409 } });
  });

  it('a file OctoPrint does not take as machine code is rejected (415)', async () => {
    const { octo, driver } = await start();
    expect(await driver.upload({ ...file, fileName: 'layerline-job-42.bgcode' }, { startPrint: true })).toMatchObject({
      ok: false,
      failure: { kind: 'rejected', status: 415 },
    });
    expect(octo.files.size).toBe(0);
  });

  it('pause or cancel with nothing printing is rejected with OctoPrint’s words; while offline it says not operational', async () => {
    const { octo, driver } = await start();
    expect(await driver.pause()).toMatchObject({
      ok: false,
      failure: { kind: 'rejected', status: 409, message: expect.stringContaining("Printer is neither printing nor paused, 'pause'") },
    });
    await octo.restartServer();
    expect(await driver.cancel()).toMatchObject({
      ok: false,
      failure: { kind: 'rejected', status: 409, message: expect.stringContaining('Printer is not operational') },
    });
  });

  it('a key without the PRINT permission: the upload is stored but not started, and the driver says not_allowed', async () => {
    const { octo, driver } = await start({ printPermission: false });
    const result = await driver.upload(file, { startPrint: true });
    expect(result).toMatchObject({
      ok: false,
      failure: { kind: 'not_allowed', status: 403, message: expect.stringContaining('PRINT permission') },
    });
    expect(octo.files.has(file.fileName)).toBe(true);
    expect(octo.printsStarted).toBe(0);
    expect(await driver.start(file.fileName)).toMatchObject({ ok: false, failure: { kind: 'not_allowed' } });
    // job.py L31: the PRINT permission is checked before whether a print is active.
    expect(await driver.cancel()).toMatchObject({ ok: false, failure: { kind: 'not_allowed' } });
  });

  it('a wrong API key is auth_refused (403) everywhere, without the key in the message', async () => {
    const { octo } = await start();
    const wrong = createOctoprintDriver(octoprintConnectionSchema.parse(octo.wrongCredentials()), { policy, sleep: async () => {} });
    for (const result of [await wrong.probe(), await wrong.status(), await wrong.start(file.fileName), await wrong.upload(file, { startPrint: true })]) {
      expect(result).toMatchObject({ ok: false, failure: { kind: 'auth_refused', status: 403 } });
      expect(JSON.stringify(result)).not.toContain('not-the-key');
    }
  });
});

describe('OctoPrint driver: lastOutcome from the file’s print history', () => {
  it('is unknown for a file never printed or not there', async () => {
    const { driver } = await start();
    await driver.upload(file, { startPrint: false });
    expect(await driver.lastOutcome(file.fileName)).toEqual({ ok: true, value: { outcome: 'unknown', message: null } });
    expect(await driver.lastOutcome('layerline-missing.gcode')).toEqual({ ok: true, value: { outcome: 'unknown', message: null } });
  });

  it('is completed after a good print, and still after OctoPrint restarts (the history is on disk)', async () => {
    const { octo, driver } = await start();
    await driver.upload(file, { startPrint: true });
    octo.finish();
    await statusOf(driver);
    expect(await driver.lastOutcome(file.fileName)).toEqual({ ok: true, value: { outcome: 'completed', message: null } });
    await octo.restartServer();
    expect(await statusOf(driver)).toMatchObject({ state: 'offline', fileName: null });
    expect(await driver.lastOutcome(file.fileName)).toEqual({ ok: true, value: { outcome: 'completed', message: null } });
  });

  it('is failed after an error or a cancel, saying OctoPrint does not tell them apart', async () => {
    const { octo, driver } = await start();
    await driver.upload(file, { startPrint: true });
    octo.fail('Heating failed');
    expect(await driver.lastOutcome(file.fileName)).toMatchObject({
      ok: true,
      value: { outcome: 'failed', message: expect.stringContaining('failed or was cancelled') },
    });
    const other = await start();
    await other.driver.upload(file, { startPrint: true });
    await other.driver.cancel();
    await statusOf(other.driver);
    expect(await other.driver.lastOutcome(file.fileName)).toMatchObject({ ok: true, value: { outcome: 'failed' } });
  });
});

describe('OctoPrint driver: answers that are not OctoPrint’s', () => {
  it('turns an HTML page or the wrong JSON into bad_answer', async () => {
    const { octo, driver } = await start();
    octo.faults.push('html');
    expect(await driver.probe()).toMatchObject({
      ok: false,
      failure: { kind: 'bad_answer', message: expect.stringContaining('an HTML page') },
    });
    octo.faults.push('wrong-json', 'wrong-json');
    expect(await driver.status()).toMatchObject({
      ok: false,
      failure: { kind: 'bad_answer', message: expect.stringContaining('wrong shape') },
    });
  });

  it('times out on a printer that never answers, retrying a read once but never a command', async () => {
    const { octo, driver } = await start({}, 150);
    octo.faults.push('hang', 'hang');
    expect(await driver.probe()).toMatchObject({ ok: false, failure: { kind: 'timeout' } });
    expect(octo.requests).toHaveLength(2);
    octo.requests.length = 0;
    octo.faults.push('hang');
    expect(await driver.cancel()).toMatchObject({ ok: false, failure: { kind: 'timeout' } });
    expect(octo.requests).toHaveLength(1);
  });

  it('is unreachable while the network is down, and reads again once it is back', async () => {
    const { octo, driver } = await start();
    octo.setReachable(false);
    expect(await driver.probe()).toMatchObject({ ok: false, failure: { kind: 'unreachable' } });
    octo.setReachable(true);
    expect(await driver.probe()).toMatchObject({ ok: true });
  });

  it('refuses loopback under the default policy, and an unsafe file name, without calling', async () => {
    const { octo, driver } = await start();
    const strict = createOctoprintDriver(octoprintConnectionSchema.parse(octo.connection()), { policy: { allowLoopback: false } });
    expect(await strict.probe()).toMatchObject({ ok: false, failure: { kind: 'not_allowed' } });
    expect(await driver.upload({ ...file, fileName: '../etc/passwd.gcode' }, { startPrint: true })).toMatchObject({
      ok: false,
      failure: { kind: 'rejected' },
    });
    expect(octo.requests).toHaveLength(0);
  });
});
