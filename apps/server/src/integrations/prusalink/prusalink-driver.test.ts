import { afterEach, describe, expect, it } from 'vitest';
import { prusalinkConnectionSchema, type PrinterConnectionInput } from '@layerline/contracts';
import type { PrintFile } from '../../modules/production/printer-driver.ts';
import type { PrinterSimulator } from '../printer-drivers/printer-simulator.ts';
import { digestAuthorization, parseDigestChallenge, type DigestChallenge } from './digest-auth.ts';
import { createPrusalinkDriver, prusalinkStatus } from './prusalink-driver.ts';
import { startPrusalinkSimulator, type PrusalinkSimulatorOptions } from './prusalink-simulator.ts';

/**
 * The PrusaLink driver against the simulators of both servers (the Buddy firmware's and Prusa-Link
 * on the MK3), each answering as shared/contracts/printers/prusalink.md says the real one does.
 */
const file: PrintFile = {
  fileName: 'layerline-job-9.bgcode',
  bytes: new Uint8Array([71, 67, 68, 69, 1, 0, 0, 0]),
  estimatedPrintSeconds: 600,
};
const other: PrintFile = { ...file, fileName: 'layerline-job-10.bgcode' };

let clock = Date.parse('2026-12-07T08:00:00Z');
const now = (): number => clock;
const simulators: PrinterSimulator[] = [];

const start = async (options: Omit<PrusalinkSimulatorOptions, 'now'>): Promise<PrinterSimulator> => {
  const simulator = await startPrusalinkSimulator({ ...options, now });
  simulators.push(simulator);
  return simulator;
};

const driverFor = (connection: PrinterConnectionInput, timeoutMs = 2_000) =>
  createPrusalinkDriver(prusalinkConnectionSchema.parse(connection), {
    policy: { allowLoopback: true },
    timeoutMs,
    sleep: async () => {},
    now,
  });

afterEach(async () => {
  await Promise.all(simulators.splice(0).map((simulator) => simulator.stop()));
});

const FIRMWARES = [
  { firmware: 'buddy', storage: 'usb' },
  { firmware: 'mk3', storage: 'local' },
] as const;

describe.each(FIRMWARES)('PrusaLink driver against the $firmware simulator', ({ firmware, storage }) => {
  const printing = async () => {
    const simulator = await start({ firmware });
    const driver = driverFor(simulator.connection());
    expect(await driver.upload(file, { startPrint: true })).toEqual({
      ok: true,
      value: { fileName: file.fileName, printStarted: true },
    });
    return { simulator, driver };
  };

  it('Test connection succeeds with digest and with the API key', async () => {
    for (const auth of ['digest', 'api-key'] as const) {
      const simulator = await start({ firmware, auth });
      expect(await driverFor(simulator.connection()).probe(), simulator.describe()).toMatchObject({
        ok: true,
        value:
          firmware === 'buddy'
            ? { kind: 'prusalink', software: 'PrusaLink (Buddy firmware)', firmware: null }
            : { kind: 'prusalink', software: 'PrusaLink 0.8.1, MK3S', firmware: '3.14.1' },
      });
    }
  });

  it('a good print: idle, printing our file with progress, then finished and the job forgotten', async () => {
    const simulator = await start({ firmware });
    const driver = driverFor(simulator.connection());
    expect(await driver.status()).toMatchObject({
      ok: true,
      value: { state: 'idle', fileName: null, progress: null, vendorState: 'IDLE' },
    });
    expect((await driver.upload(file, { startPrint: true })).ok).toBe(true);
    expect(simulator.requests.filter((r) => r.method === 'PUT').map((r) => r.url.pathname)).toEqual([
      `/api/v1/files/${storage}/${file.fileName}`,
    ]);
    simulator.advance(0.5);
    expect(await driver.status()).toMatchObject({
      ok: true,
      value: {
        state: 'printing',
        fileName: file.fileName,
        progress: 0.5,
        secondsLeft: 1800,
        vendorState: 'PRINTING',
      },
    });
    simulator.finish();
    const finished = await driver.status();
    if (firmware === 'mk3') {
      // Prusa-Link shows the ended job for one more tick of its job thread, then answers 204.
      expect(finished).toMatchObject({ ok: true, value: { state: 'finished', fileName: file.fileName } });
      clock += 1_000;
    }
    expect(firmware === 'mk3' ? await driver.status() : finished).toMatchObject({
      ok: true,
      value: { state: 'finished', fileName: null, progress: 1, errorText: null, vendorState: 'FINISHED' },
    });
    expect(simulator.printsStarted).toBe(1);
  });

  it('a cancel on the printer’s screen reads cancelled (STOPPED), the job gone', async () => {
    const { simulator, driver } = await printing();
    simulator.cancelOnScreen();
    clock += 1_000;
    expect(await driver.status()).toMatchObject({
      ok: true,
      value: { state: 'cancelled', fileName: null, vendorState: 'STOPPED' },
    });
  });

  it('pauses, resumes and cancels the job named by the status', async () => {
    const { simulator, driver } = await printing();
    expect(await driver.pause()).toEqual({ ok: true, value: undefined });
    expect(await driver.status()).toMatchObject({
      ok: true,
      value: { state: 'paused', fileName: file.fileName },
    });
    expect(await driver.pause()).toMatchObject({ ok: false, failure: { kind: 'rejected', status: 409 } });
    expect(await driver.resume()).toEqual({ ok: true, value: undefined });
    expect(await driver.cancel()).toEqual({ ok: true, value: undefined });
    clock += 1_000;
    expect(await driver.status()).toMatchObject({ ok: true, value: { state: 'cancelled', fileName: null } });
    const commands = simulator.requests
      .filter((r) => r.url.pathname.startsWith('/api/v1/job/'))
      .map((r) => `${r.method} ${r.url.pathname}`);
    expect(commands).toEqual([
      'PUT /api/v1/job/1/pause',
      'PUT /api/v1/job/1/pause',
      'PUT /api/v1/job/1/resume',
      'DELETE /api/v1/job/1',
    ]);
  });

  it('a filament runout reads attention with the job still ours, and says to look at the screen', async () => {
    const { simulator, driver } = await printing();
    simulator.advance(0.3);
    simulator.runOut();
    expect(await driver.status()).toMatchObject({
      ok: true,
      value: {
        state: 'attention',
        fileName: file.fileName,
        progress: 0.3,
        errorText: 'The printer needs attention on its screen',
        vendorState: 'ATTENTION',
      },
    });
    // Buddy stops a job in ATTENTION (v1.cpp L51–63); Prusa-Link only a printing or paused one.
    expect(await driver.cancel()).toMatchObject(
      firmware === 'buddy' ? { ok: true } : { ok: false, failure: { kind: 'rejected', status: 409 } },
    );
  });

  it('an upload while it prints is busy; the printer keeps the file and prints nothing twice', async () => {
    const { simulator, driver } = await printing();
    const result = await driver.upload(other, { startPrint: true });
    expect(result).toMatchObject({ ok: false, failure: { kind: 'busy', status: 409 } });
    expect(simulator.files.has(other.fileName)).toBe(true);
    expect(await driver.start(other.fileName)).toMatchObject({
      ok: false,
      failure: { kind: 'busy', status: 409 },
    });
    expect(simulator.printsStarted).toBe(1);
    // Overwriting the file being printed is refused as busy too.
    expect(await driver.upload(file, { startPrint: true })).toMatchObject({
      ok: false,
      failure: { kind: 'busy' },
    });
  });

  it('after a finished print a new upload starts the next job (a new id)', async () => {
    const { simulator, driver } = await printing();
    simulator.finish();
    clock += 1_000;
    expect((await driver.upload(other, { startPrint: true })).ok).toBe(true);
    expect(await driver.status()).toMatchObject({
      ok: true,
      value: { state: 'printing', fileName: other.fileName },
    });
    expect(simulator.printsStarted).toBe(2);
  });

  it('refused credentials are auth_refused and name no secret', async () => {
    for (const auth of ['digest', 'api-key'] as const) {
      const simulator = await start({ firmware, auth });
      const wrong = simulator.wrongCredentials();
      const result = await driverFor(wrong).probe();
      expect(result, simulator.describe()).toMatchObject({
        ok: false,
        failure: { kind: 'auth_refused', status: auth === 'api-key' && firmware === 'mk3' ? 403 : 401 },
      });
      expect(JSON.stringify(result)).not.toContain('wrong');
    }
  });

  it('an unplugged printer is unreachable, and reads again once plugged back', async () => {
    const simulator = await start({ firmware });
    const driver = driverFor(simulator.connection());
    expect((await driver.status()).ok).toBe(true);
    simulator.setReachable(false);
    expect(await driver.status()).toMatchObject({ ok: false, failure: { kind: 'unreachable' } });
    simulator.setReachable(true);
    expect(await driver.status()).toMatchObject({ ok: true, value: { state: 'idle' } });
  });

  it('a state never seen before is unknown, with the printer’s word, not a bad answer', async () => {
    const { simulator, driver } = await printing();
    simulator.sayUnknownState(firmware === 'buddy' ? 'UNKNOWN' : 'CALIBRATING');
    const word = firmware === 'buddy' ? 'UNKNOWN' : 'CALIBRATING';
    expect(await driver.status()).toMatchObject({
      ok: true,
      value: {
        state: 'unknown',
        vendorState: word,
        fileName: file.fileName,
        errorText: expect.stringContaining(word),
      },
    });
  });

  it('garbage (HTML, the wrong JSON) is bad_answer; a silent printer times out', async () => {
    const simulator = await start({ firmware, auth: 'api-key' });
    const driver = driverFor(simulator.connection(), 150);
    simulator.faults.push('html');
    expect(await driver.status()).toMatchObject({ ok: false, failure: { kind: 'bad_answer' } });
    simulator.faults.push('wrong-json');
    expect(await driver.probe()).toMatchObject({ ok: false, failure: { kind: 'bad_answer' } });
    simulator.faults.push('hang', 'hang');
    expect(await driver.status()).toMatchObject({ ok: false, failure: { kind: 'timeout' } });
  });

  it('a storage the printer does not have is rejected, naming the one it has', async () => {
    const simulator = await start({ firmware });
    const wrongStorage = firmware === 'buddy' ? 'local' : 'usb';
    const driver = driverFor({ ...simulator.connection(), storage: wrongStorage } as PrinterConnectionInput);
    const expected = `this printer keeps print files in “${storage}`;
    expect(await driver.upload(file, { startPrint: true })).toMatchObject({
      ok: false,
      failure: { kind: 'rejected', message: expect.stringContaining(expected) },
    });
    expect(await driver.probe()).toMatchObject({
      ok: false,
      failure: {
        kind: 'rejected',
        message: expect.stringContaining(`set the printer’s storage to “${storage}”`),
      },
    });
    expect(simulator.printsStarted).toBe(0);
  });
});

describe('PrusaLink on Buddy firmware', () => {
  it('a red screen stops the server answering; after the reset it is idle and the job is gone', async () => {
    const simulator = await start({ firmware: 'buddy' });
    const driver = driverFor(simulator.connection());
    expect((await driver.upload(file, { startPrint: true })).ok).toBe(true);
    simulator.fail('THERMAL RUNAWAY');
    expect(await driver.status()).toMatchObject({ ok: false, failure: { kind: 'unreachable' } });
    simulator.setReachable(true); // a halted firmware does not come back with the cable
    expect(await driver.status()).toMatchObject({ ok: false, failure: { kind: 'unreachable' } });
    await simulator.restartServer();
    expect(await driver.status()).toMatchObject({ ok: true, value: { state: 'idle', fileName: null } });
  });

  it('a reboot mid-print: refused, then idle with no job; the old nonce is answered stale and retried', async () => {
    const simulator = await start({ firmware: 'buddy' });
    const driver = driverFor(simulator.connection());
    expect((await driver.upload(file, { startPrint: true })).ok).toBe(true);
    await simulator.restartServer();
    simulator.requests.length = 0;
    expect(await driver.status()).toMatchObject({ ok: true, value: { state: 'idle', fileName: null } });
    const challenges = simulator.requests.length;
    expect(challenges).toBe(2); // the stale 401, then the status with the new nonce
  });

  it('an upload without Print-After-Upload opens the print preview on the screen (attention)', async () => {
    const simulator = await start({ firmware: 'buddy' });
    const driver = driverFor(simulator.connection());
    expect((await driver.upload(file, { startPrint: false })).ok).toBe(true);
    expect(await driver.status()).toMatchObject({
      ok: true,
      value: { state: 'attention', fileName: file.fileName },
    });
    expect(simulator.printsStarted).toBe(0);
  });

  it('firmware 5.1: a nonce lives 5 s (8 s with a body); the driver retries a stale one and never sends a file on an old one', async () => {
    const simulator = await start({ firmware: 'buddy', buddyVersion: '5.1.2' });
    const driver = driverFor(simulator.connection());
    expect((await driver.probe()).ok).toBe(true);
    clock += 6_000;
    simulator.requests.length = 0;
    expect((await driver.status()).ok).toBe(true);
    expect(simulator.requests.map((r) => Boolean(r.headers.authorization))).toEqual([true, true]);
    clock += 9_000;
    simulator.requests.length = 0;
    expect((await driver.upload(file, { startPrint: true })).ok).toBe(true);
    // A bare request fetches a fresh nonce; the file goes once, on it.
    expect(simulator.requests.map((r) => [r.method, Boolean(r.headers.authorization)])).toEqual([
      ['GET', false],
      ['PUT', true],
    ]);
  });

  it('firmware 6.3: the same nonce still works after 6 s (300 s lifetime)', async () => {
    const simulator = await start({ firmware: 'buddy', buddyVersion: '6.3.0' });
    const driver = driverFor(simulator.connection());
    expect((await driver.probe()).ok).toBe(true);
    clock += 6_000;
    simulator.requests.length = 0;
    expect((await driver.status()).ok).toBe(true);
    expect(simulator.requests).toHaveLength(1);
  });
});

describe('the Buddy 5.1 simulator’s nonce lifetime', () => {
  const digestRequest = async (
    simulator: PrinterSimulator,
    method: 'GET' | 'PUT',
    path: string,
    challenge: DigestChallenge,
  ): Promise<Response> =>
    fetch(`${simulator.origin}${path}`, {
      method,
      headers: {
        authorization: digestAuthorization(
          challenge,
          { username: 'maker', password: 'screen-pa55' },
          { method, uri: path, nonceCount: 1 },
        ),
        'print-after-upload': '?0',
      },
      ...(method === 'PUT' ? { body: file.bytes } : {}),
    });

  it('takes a body on a nonce up to 8 s old and a bodiless request up to 5 s, then answers stale=true', async () => {
    const simulator = await start({ firmware: 'buddy', buddyVersion: '5.1.2' });
    const first = await fetch(`${simulator.origin}/api/version`);
    expect(first.status).toBe(401);
    const challenge = parseDigestChallenge(first.headers.get('www-authenticate'))!;
    expect(challenge).toMatchObject({ realm: 'Printer API', stale: false, qop: [] });
    expect(challenge.nonce).toMatch(/^[0-9a-f]{16}$/);
    clock += 6_000;
    expect(
      (await digestRequest(simulator, 'PUT', `/api/v1/files/usb/${file.fileName}`, challenge)).status,
    ).toBe(201);
    const stale = await digestRequest(simulator, 'GET', '/api/v1/status', challenge);
    expect(stale.status).toBe(401);
    expect(stale.headers.get('www-authenticate')).toContain('stale=true');
    clock += 3_000;
    const late = await digestRequest(simulator, 'PUT', `/api/v1/files/usb/${other.fileName}`, challenge);
    expect(late.status).toBe(401);
    expect(late.headers.get('www-authenticate')).toContain('stale=true');
  });
});

describe('Prusa-Link on the MK3', () => {
  it('an error (serial lost, Marlin kill) reads error with the printer’s words, the job gone', async () => {
    const simulator = await start({ firmware: 'mk3' });
    const driver = driverFor(simulator.connection());
    expect((await driver.upload(file, { startPrint: true })).ok).toBe(true);
    simulator.fail('Printer not responding');
    expect(await driver.status()).toMatchObject({
      ok: true,
      value: { state: 'error', errorText: 'Printer not responding', fileName: null, vendorState: 'ERROR' },
    });
  });

  it('a restart of the Pi mid-print: 503 while the daemon starts (offline), then idle with the print lost', async () => {
    const simulator = await start({ firmware: 'mk3' });
    const driver = driverFor(simulator.connection());
    expect((await driver.upload(file, { startPrint: true })).ok).toBe(true);
    await simulator.restartServer();
    expect(await driver.status()).toEqual({
      ok: true,
      value: expect.objectContaining({
        state: 'offline',
        errorText: 'PrusaLink is starting',
        fileName: null,
      }),
    });
    expect(await driver.status()).toMatchObject({ ok: true, value: { state: 'idle', fileName: null } });
  });

  it('Test connection on a starting Prusa-Link says so', async () => {
    const simulator = await start({ firmware: 'mk3' });
    await simulator.restartServer();
    expect(await driverFor(simulator.connection()).probe()).toMatchObject({
      ok: false,
      failure: { kind: 'unreachable', status: 503, message: expect.stringContaining('starting') },
    });
  });

  it('the read-only sdcard storage is rejected, pointing at local', async () => {
    const simulator = await start({ firmware: 'mk3' });
    const driver = driverFor({ ...simulator.connection(), storage: 'sdcard' } as PrinterConnectionInput);
    expect(await driver.upload(file, { startPrint: true })).toMatchObject({
      ok: false,
      failure: {
        kind: 'rejected',
        message: expect.stringContaining('“sdcard” on this printer is read-only'),
      },
    });
  });
});

describe('PrusaLink state table (docs/printers.md)', () => {
  it('maps every printer.state of both servers; anything else is unknown with the vendor’s word', () => {
    const table = Object.fromEntries(
      [
        'IDLE',
        'READY',
        'BUSY',
        'PRINTING',
        'PAUSED',
        'ATTENTION',
        'FINISHED',
        'STOPPED',
        'ERROR',
        'UNKNOWN',
        'toString',
      ].map((state) => [state, prusalinkStatus({ printer: { state } }, null).state]),
    );
    expect(table).toEqual({
      IDLE: 'idle',
      READY: 'idle',
      BUSY: 'busy',
      PRINTING: 'printing',
      PAUSED: 'paused',
      ATTENTION: 'attention',
      FINISHED: 'finished',
      STOPPED: 'cancelled',
      ERROR: 'error',
      UNKNOWN: 'unknown',
      toString: 'unknown',
    });
  });

  it('ATTENTION with the printer’s words carries them', () => {
    expect(
      prusalinkStatus(
        { printer: { state: 'ATTENTION', status_printer: { ok: false, message: 'Filament runout' } } },
        null,
      ).errorText,
    ).toBe('The printer needs attention: Filament runout');
  });
});
