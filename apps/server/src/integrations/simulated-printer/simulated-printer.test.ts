import { beforeEach, describe, expect, it } from 'vitest';
import { simulatedConnectionSchema, type SimulatedConnection } from '@layerline/contracts';
import type { PrintFile } from '../../modules/production/printer-driver.ts';
import { withEjectTail } from '../../modules/production/continuous-printing.ts';
import { createSimulatedPrinterFarm, type SimulatedPrinterFarm } from './simulated-printer.ts';

// One hour of printing in 100 layers, at 60x: one real minute.
const file: PrintFile = {
  fileName: 'layerline-job-1.gcode',
  bytes: new Uint8Array([1]),
  estimatedPrintSeconds: 3600,
  layerCount: 100,
};
const connection = (overrides: Partial<SimulatedConnection> = {}): SimulatedConnection =>
  simulatedConnectionSchema.parse({ kind: 'simulated', speedFactor: 60, ...overrides });

let clock = 0;
let farm: SimulatedPrinterFarm;
const tick = (ms: number) => {
  clock += ms;
};

beforeEach(() => {
  clock = 1_000_000;
  farm = createSimulatedPrinterFarm({ now: () => clock });
});

describe('simulated printer', () => {
  it('prints in accelerated time: progress, layers, time left, temperatures, then finished', async () => {
    const printer = farm.driver('p1', connection());
    expect(await printer.probe()).toMatchObject({
      ok: true,
      value: { kind: 'simulated', firmware: 'Layerline simulated printer' },
    });
    expect(await printer.status()).toMatchObject({ ok: true, value: { state: 'idle', progress: null } });
    expect(await printer.upload(file, { startPrint: true })).toEqual({
      ok: true,
      value: { fileName: file.fileName, printStarted: true },
    });

    tick(15_000); // a quarter of one real minute
    const quarter = await printer.status();
    expect(quarter).toEqual({
      ok: true,
      value: {
        state: 'printing',
        progress: 0.25,
        fileName: file.fileName,
        currentLayer: 26,
        totalLayers: 100,
        secondsLeft: 45,
        temperatures: { nozzle: { actual: 215, target: 215 }, bed: { actual: 60, target: 60 } },
        errorText: null,
      },
    });

    tick(45_000);
    expect(await printer.status()).toMatchObject({
      ok: true,
      value: { state: 'finished', progress: 1, secondsLeft: null, currentLayer: 100 },
    });
  });

  it('heats up at the start of a print', async () => {
    const printer = farm.driver('p1', connection());
    await printer.upload(file, { startPrint: true });
    tick(250); // 15 simulated seconds
    const status = await printer.status();
    expect(status.ok && status.value.temperatures.nozzle.actual).toBeGreaterThan(22);
    expect(status.ok && status.value.temperatures.nozzle.actual).toBeLessThan(215);
  });

  it('pause stops the clock of the print; resume continues where it was', async () => {
    const printer = farm.driver('p1', connection());
    await printer.upload(file, { startPrint: true });
    tick(30_000);
    expect(await printer.pause()).toEqual({ ok: true, value: undefined });
    tick(600_000);
    expect(await printer.status()).toMatchObject({ value: { state: 'paused', progress: 0.5 } });
    expect(await printer.resume()).toEqual({ ok: true, value: undefined });
    tick(15_000);
    expect(await printer.status()).toMatchObject({ value: { state: 'printing', progress: 0.75 } });
  });

  it('cancel makes it free (its last job cancelled); a new job can start', async () => {
    const printer = farm.driver('p1', connection());
    await printer.upload(file, { startPrint: true });
    tick(10_000);
    expect(await printer.cancel()).toEqual({ ok: true, value: undefined });
    expect(await printer.status()).toMatchObject({ value: { state: 'cancelled', progress: null } });
    expect(await printer.start(file.fileName)).toEqual({ ok: true, value: undefined });
    expect(await printer.cancel()).toMatchObject({ ok: true });
    expect(await printer.cancel()).toMatchObject({ ok: false, failure: { kind: 'rejected' } });
  });

  it('is busy when asked to start or upload-and-start while printing', async () => {
    const printer = farm.driver('p1', connection());
    await printer.upload(file, { startPrint: true });
    expect(await printer.start(file.fileName)).toMatchObject({
      ok: false,
      failure: { kind: 'busy', status: 409 },
    });
    expect(await printer.upload({ ...file, fileName: 'other.gcode' }, { startPrint: true })).toMatchObject({
      ok: false,
      failure: { kind: 'busy' },
    });
    expect(await printer.start('never-uploaded.gcode')).toMatchObject({
      ok: false,
      failure: { kind: 'rejected' },
    });
  });

  it('fails at the layer it is told to, with a message naming it', async () => {
    const printer = farm.driver('p1', connection({ failAtLayer: 41 }));
    await printer.upload(file, { startPrint: true });
    tick(23_999);
    expect(await printer.status()).toMatchObject({ value: { state: 'printing', currentLayer: 40 } });
    tick(1);
    expect(await printer.status()).toMatchObject({
      value: {
        state: 'failed',
        currentLayer: 41,
        progress: 0.4,
        errorText: expect.stringContaining('layer 41 of 100'),
      },
    });
    tick(600_000);
    expect(await printer.status()).toMatchObject({ value: { state: 'failed', progress: 0.4 } });
    expect(await printer.lastOutcome(file.fileName)).toMatchObject({ value: { outcome: 'failed', message: expect.stringContaining('layer 41') } });
    // The failed print ended: nothing to cancel, and the printer takes the next print.
    expect(await printer.cancel()).toMatchObject({ ok: false, failure: { kind: 'rejected' } });
    expect(await printer.start(file.fileName)).toMatchObject({ ok: true });
    expect(await printer.status()).toMatchObject({ value: { state: 'printing' } });
  });

  it('runs out of filament at a layer (the earlier of the two faults wins)', async () => {
    const printer = farm.driver('p1', connection({ filamentRunsOutAtLayer: 10, failAtLayer: 50 }));
    await printer.upload(file, { startPrint: true });
    tick(60_000);
    expect(await printer.status()).toMatchObject({
      value: {
        state: 'attention',
        currentLayer: 10,
        errorText: 'Filament ran out at layer 10 of 100: load a new spool and resume (simulated)',
      },
    });
    // It waits with the job on it until a person resumes, then goes on from where it stopped.
    tick(600_000);
    expect(await printer.status()).toMatchObject({ value: { state: 'attention', progress: 0.09 } });
    expect(await printer.resume()).toMatchObject({ ok: true });
    expect(await printer.status()).toMatchObject({ value: { state: 'printing', progress: 0.09, currentLayer: 10 } });
    tick(6_000);
    expect(await printer.status()).toMatchObject({ value: { state: 'printing', progress: 0.19 } });
  });

  it('remembers how its last print ended, and knows nothing of others', async () => {
    const printer = farm.driver('p1', connection());
    await printer.upload(file, { startPrint: true });
    expect(await printer.lastOutcome(file.fileName)).toMatchObject({ value: { outcome: 'unknown' } });
    tick(60_000);
    expect(await printer.lastOutcome(file.fileName)).toMatchObject({ value: { outcome: 'completed' } });
    expect(await printer.lastOutcome('other.gcode')).toMatchObject({ value: { outcome: 'unknown' } });
    await printer.start(file.fileName);
    expect(await printer.cancel()).toMatchObject({ ok: true });
    expect(await printer.status()).toMatchObject({ value: { state: 'cancelled', fileName: file.fileName } });
    expect(await printer.lastOutcome(file.fileName)).toMatchObject({ value: { outcome: 'cancelled' } });
  });

  it('goes offline (unreachable) and comes back, having printed on meanwhile', async () => {
    const printer = farm.driver('p1', connection());
    await printer.upload(file, { startPrint: true });
    farm.setOffline('p1', true);
    tick(30_000);
    expect(await printer.status()).toMatchObject({ ok: false, failure: { kind: 'unreachable' } });
    expect(await printer.probe()).toMatchObject({ ok: false, failure: { kind: 'unreachable' } });
    farm.setOffline('p1', false);
    expect(await printer.status()).toMatchObject({ ok: true, value: { state: 'printing', progress: 0.5 } });
  });

  it('starts offline when its connection says so, and keeps state per printer id across drivers', async () => {
    const offline = farm.driver('p2', connection({ offline: true }));
    expect(await offline.status()).toMatchObject({ ok: false, failure: { kind: 'unreachable' } });
    const again = farm.driver('p2', connection({ offline: false }));
    expect(await again.status()).toMatchObject({ ok: true });

    await farm.driver('p3', connection()).upload(file, { startPrint: true });
    tick(30_000);
    expect(await farm.driver('p3', connection()).status()).toMatchObject({
      value: { state: 'printing', progress: 0.5 },
    });
    farm.forget('p3');
    expect(await farm.driver('p3', connection()).status()).toMatchObject({ value: { state: 'idle' } });
  });

  it('refuses bad input: an unsafe name, an empty file, no estimate', async () => {
    const printer = farm.driver('p1', connection());
    expect(await printer.upload({ ...file, fileName: 'a/b.gcode' }, { startPrint: false })).toMatchObject({
      ok: false,
      failure: { kind: 'rejected' },
    });
    expect(await printer.upload({ ...file, bytes: new Uint8Array() }, { startPrint: false })).toMatchObject({
      ok: false,
      failure: { kind: 'rejected' },
    });
    expect(await printer.upload({ ...file, estimatedPrintSeconds: 0 }, { startPrint: false })).toMatchObject({
      ok: false,
      failure: { kind: 'rejected' },
    });
  });

  it('validates its connection: speed factor, layers', () => {
    expect(simulatedConnectionSchema.safeParse({ kind: 'simulated', speedFactor: 0 }).success).toBe(false);
    expect(simulatedConnectionSchema.safeParse({ kind: 'simulated', failAtLayer: 0 }).success).toBe(false);
    expect(simulatedConnectionSchema.safeParse({ kind: 'simulated', extra: true }).success).toBe(false);
    expect(simulatedConnectionSchema.parse({ kind: 'simulated' })).toMatchObject({
      speedFactor: 60,
      offline: false,
    });
  });
});

describe('simulated printer running an eject tail (continuous printing)', () => {
  const clearing = { kind: 'eject_gcode', gcode: 'G1 Y200 F3000', releaseTempC: 35, maxUnattendedPlates: 5 } as const;
  const ejecting = (kind: 'simulated' | 'moonraker'): PrintFile => ({ ...file, bytes: withEjectTail(file.bytes, clearing, kind) });

  it('keeps printing after the last layer while the bed cools to the release temperature, then finishes at it', async () => {
    const printer = farm.driver('p1', connection());
    await printer.upload(ejecting('simulated'), { startPrint: true });
    tick(60_000); // the last layer is done
    const cooling = await printer.status();
    expect(cooling).toMatchObject({ ok: true, value: { state: 'printing', progress: 0.999 } });
    expect(cooling.ok && cooling.value.temperatures.bed).toEqual({ actual: 60, target: 35 });
    // 60 °C → 35 °C with the bed's time constant of 300 simulated s: 300·ln(38/13) ≈ 322 s, 5.4 s at 60x.
    tick(5_000);
    expect(await printer.status()).toMatchObject({ ok: true, value: { state: 'printing' } });
    tick(500);
    const done = await printer.status();
    expect(done).toMatchObject({ ok: true, value: { state: 'finished', progress: 1, fileName: file.fileName } });
    expect(done.ok && done.value.temperatures.bed.actual).toBeLessThanOrEqual(35);
    expect(await printer.lastOutcome(file.fileName)).toEqual({ ok: true, value: { outcome: 'completed', message: null } });
  });

  it('skips a cooling wait written for Klipper, as Marlin does, and finishes at once with the bed still hot', async () => {
    const printer = farm.driver('p1', connection());
    await printer.upload(ejecting('moonraker'), { startPrint: true });
    tick(60_000);
    const done = await printer.status();
    expect(done).toMatchObject({ ok: true, value: { state: 'finished' } });
    expect(done.ok && done.value.temperatures.bed.actual).toBeGreaterThan(55);
  });
});

describe('simulated printer: skipping parts of a plate (issue 22)', () => {
  const plate: PrintFile = {
    ...file,
    fileName: 'layerline-plate-1.gcode',
    objects: [
      { index: 0, label: 'P0_aaaa' },
      { index: 1, label: 'P1_bbbb' },
    ],
  };

  it('skips an object of the running plate, and the rest prints on to the end', async () => {
    const printer = farm.driver('p1', connection());
    await printer.upload(plate, { startPrint: true });
    tick(10_000);
    expect(await printer.skipObjects!([plate.objects![1]!])).toEqual({ ok: true, value: undefined });
    expect(await printer.status()).toMatchObject({ ok: true, value: { state: 'printing' } });
    tick(50_000);
    expect(await printer.status()).toMatchObject({ ok: true, value: { state: 'finished' } });
  });

  it('refuses an object the running print does not have, and any skip with nothing printing', async () => {
    const printer = farm.driver('p1', connection());
    expect(await printer.skipObjects!([{ index: 0, label: 'P0_aaaa' }])).toMatchObject({ ok: false, failure: { kind: 'rejected' } });
    await printer.upload(plate, { startPrint: true });
    expect(await printer.skipObjects!([{ index: 2, label: 'P2_cccc' }])).toMatchObject({
      ok: false,
      failure: { kind: 'rejected', message: 'The running print has no object P2_cccc' },
    });
  });
});
