import { describe, expect, it } from 'vitest';
import { PRINTER_KINDS, printerConnectionSchema, type PrinterConnection } from '@layerline/contracts';
import { createSimulatedPrinterFarm } from '../simulated-printer/simulated-printer.ts';
import {
  printerAddressProblem,
  printerUrlProblem,
  checkPrinterHost,
} from '../http-client/printer-host-policy.ts';
import { createPrinterDriverFactory } from './printer-drivers.ts';

const connections: Record<(typeof PRINTER_KINDS)[number], unknown> = {
  octoprint: { kind: 'octoprint', baseUrl: 'http://192.168.1.20/', apiKey: 'A1B2' },
  moonraker: { kind: 'moonraker', baseUrl: 'http://10.0.0.7:7125' },
  prusalink: {
    kind: 'prusalink',
    baseUrl: 'http://prusa-mk4.lan',
    auth: { kind: 'digest', username: 'maker', password: 'secret' },
  },
  simulated: { kind: 'simulated' },
  bambulab: { kind: 'bambulab', host: '192.168.1.60', serial: '01S00C000000001', accessCode: '12345678', model: 'P1S' },
};

describe('createPrinterDriverFactory', () => {
  it('picks the adapter by kind, for every kind', () => {
    const factory = createPrinterDriverFactory({
      policy: { allowLoopback: false },
      simulatedFarm: createSimulatedPrinterFarm(),
    });
    for (const kind of PRINTER_KINDS) {
      const connection = printerConnectionSchema.parse(connections[kind]) as PrinterConnection;
      expect(factory('printer-1', connection).kind).toBe(kind);
    }
  });

  it('shares simulated printers’ state through the farm', async () => {
    const factory = createPrinterDriverFactory({
      policy: { allowLoopback: false },
      simulatedFarm: createSimulatedPrinterFarm(),
    });
    const connection = printerConnectionSchema.parse({ kind: 'simulated' });
    const file = { fileName: 'a.gcode', bytes: new Uint8Array([1]), estimatedPrintSeconds: 60 };
    expect((await factory('s1', connection).upload(file, { startPrint: true })).ok).toBe(true);
    expect(await factory('s1', connection).status()).toMatchObject({ value: { state: 'printing' } });
    expect(await factory('s2', connection).status()).toMatchObject({ value: { state: 'idle' } });
  });
});

describe('printer connection schemas', () => {
  it('trim the base URL’s trailing slash and refuse credentials, queries and other schemes', () => {
    expect(printerConnectionSchema.parse(connections.octoprint)).toMatchObject({
      baseUrl: 'http://192.168.1.20',
    });
    for (const baseUrl of [
      'ftp://192.168.1.2',
      'http://user:pw@192.168.1.2',
      'http://192.168.1.2/?a=1',
      'not a url',
    ]) {
      expect(printerConnectionSchema.safeParse({ kind: 'moonraker', baseUrl }).success).toBe(false);
    }
    expect(
      printerConnectionSchema.safeParse({ kind: 'octoprint', baseUrl: 'http://10.0.0.2', apiKey: 'a\nb' })
        .success,
    ).toBe(false);
    expect(printerConnectionSchema.safeParse({ kind: 'bambu', baseUrl: 'http://10.0.0.2' }).success).toBe(
      false,
    );
    expect(
      printerConnectionSchema.safeParse({
        kind: 'prusalink',
        baseUrl: 'http://10.0.0.2',
        auth: { kind: 'api-key', apiKey: 'k' },
        storage: '../x',
      }).success,
    ).toBe(false);
  });
});

describe('printer host policy', () => {
  const strict = { allowLoopback: false };
  it('allows the farm’s LAN, VPN and public addresses', () => {
    for (const address of [
      '192.168.1.50',
      '10.1.2.3',
      '172.16.0.9',
      '100.64.1.1',
      'fd12::1',
      '203.0.113.7',
      '2001:db8::5',
    ]) {
      expect(printerAddressProblem(address, strict)).toBeNull();
    }
  });
  it('refuses link-local (cloud metadata), multicast, reserved and "this network" always', () => {
    for (const address of [
      '169.254.169.254',
      'fe80::1',
      '224.0.0.1',
      '255.255.255.255',
      '0.0.0.0',
      '::',
      '::ffff:169.254.169.254',
    ]) {
      expect(printerAddressProblem(address, { allowLoopback: true })).not.toBeNull();
    }
  });
  it('refuses loopback unless allowed', () => {
    for (const address of ['127.0.0.1', '127.8.8.8', '::1', '::ffff:127.0.0.1']) {
      expect(printerAddressProblem(address, strict)).toMatch(/this server/);
      expect(printerAddressProblem(address, { allowLoopback: true })).toBeNull();
    }
    expect(printerUrlProblem('http://localhost:5000', strict)).toMatch(/this server/);
    expect(printerUrlProblem('http://[::1]:5000', strict)).toMatch(/this server/);
  });
  it('checks every address a name resolves to', async () => {
    const lookup = async () => ['192.168.1.4', '169.254.169.254'];
    expect(await checkPrinterHost(new URL('http://octopi.local'), strict, lookup)).toMatch(
      /octopi.local resolves to 169.254.169.254/,
    );
    expect(
      await checkPrinterHost(new URL('http://octopi.local'), strict, async () => ['192.168.1.4']),
    ).toBeNull();
  });
});
