import { describe, expect, it } from 'vitest';
import type { PrinterClearing, PrinterKind, PrinterStatus } from '@layerline/contracts';
import { blankStatus } from './printer-driver.ts';
import { clearingProblem, ejectTail, verdictOnFinish } from './continuous-printing.ts';

const eject: PrinterClearing = { kind: 'eject_gcode', gcode: 'G1 Y200 F3000\r\nG1 Y0', releaseTempC: 30, maxUnattendedPlates: 2 };
const finished = (bed: number | null, errorText: string | null = null): PrinterStatus => ({
  ...blankStatus('finished'),
  fileName: 'layerline-j.gcode',
  temperatures: { nozzle: { actual: 25, target: 0 }, bed: { actual: bed, target: 0 } },
  errorText,
});
const verdict = (overrides: Partial<Parameters<typeof verdictOnFinish>[0]> = {}) =>
  verdictOnFinish({ clearing: eject, printerName: 'MK4 1', unattendedPlates: 0, status: finished(29), namesAnotherFile: false, ...overrides });

describe('the eject tail', () => {
  it('waits for the bed to cool in the firmware’s own words, then sweeps', () => {
    expect(ejectTail(eject, 'moonraker')).toContain('M140 S0\nTEMPERATURE_WAIT SENSOR=heater_bed MAXIMUM=30\nG1 Y200 F3000\nG1 Y0\n');
    expect(ejectTail(eject, 'prusalink')).toContain('M140 S0\nM190 R30\nM140 S0\nG1 Y200 F3000\nG1 Y0\n');
    expect(ejectTail(eject, 'octoprint')).toContain('M190 R30');
  });

  it('is refused for a kind of printer whose firmware words Layerline does not know, never appended in the wrong ones', () => {
    const unknownKind = 'bambu' as PrinterKind;
    expect(ejectTail(eject, unknownKind)).toBeNull();
    expect(clearingProblem(eject, unknownKind)).toContain('does not know how a bambu printer waits for its bed to cool');
    expect(clearingProblem({ kind: 'plate_changer', maxUnattendedPlates: 3 }, unknownKind)).toBeNull();
    for (const kind of ['moonraker', 'octoprint', 'prusalink', 'simulated'] as const) expect(clearingProblem(eject, kind)).toBeNull();
  });

  it('is nothing for a printer a person clears, or one with a plate changer', () => {
    expect(ejectTail({ kind: 'person' }, 'moonraker')).toBeNull();
    expect(ejectTail({ kind: 'plate_changer', maxUnattendedPlates: 3 }, 'moonraker')).toBeNull();
  });
});

describe('the verdict on a finished print', () => {
  it('clears the bed after a clean finish, up to the cap of plates without a person', () => {
    expect(verdict()).toMatchObject({ kind: 'cleared' });
    expect(verdict({ unattendedPlates: 1 })).toMatchObject({ kind: 'cleared' });
    expect(verdict({ unattendedPlates: 2 })).toMatchObject({ kind: 'cap' });
  });

  it('leaves a person-cleared printer to a person', () => {
    expect(verdict({ clearing: { kind: 'person' } })).toEqual({ kind: 'person' });
  });

  it('stops when the end was not seen cleanly: recalled only, another file named, a message, a bed still hot', () => {
    expect(verdict({ status: null })).toMatchObject({ kind: 'stop' });
    expect(verdict({ status: { ...finished(29), state: 'idle' } })).toMatchObject({ kind: 'stop' });
    expect(verdict({ namesAnotherFile: true })).toMatchObject({ kind: 'stop' });
    expect(verdict({ status: finished(29, 'Heater bed not heating at expected rate') })).toMatchObject({ kind: 'stop' });
    expect(verdict({ status: finished(58) })).toMatchObject({ kind: 'stop', reason: expect.stringContaining('58 °C') });
  });

  it('takes a finish naming no file as clean (Buddy drops its job as it finishes)', () => {
    expect(verdict({ status: { ...finished(29), fileName: null } })).toMatchObject({ kind: 'cleared' });
  });

  it('takes a bed near the release temperature, or one the printer does not report, as cooled', () => {
    expect(verdict({ status: finished(34) })).toMatchObject({ kind: 'cleared' });
    expect(verdict({ status: finished(null) })).toMatchObject({ kind: 'cleared' });
  });

  it('does not look at the bed temperature of a plate changer', () => {
    expect(verdict({ clearing: { kind: 'plate_changer', maxUnattendedPlates: 3 }, status: finished(60) })).toMatchObject({ kind: 'cleared' });
  });
});
