import { describe, expect, it } from 'vitest';
import { isPrinterFree, PRINTER_STATES, type PrinterState, type PrinterStatus } from '@layerline/contracts';
import { blankStatus, failed, succeeded, type PrintOutcome } from './printer-driver.ts';
import { readOutcome, readPrinter, type HeldPhase, type Reading } from './printer-reading.ts';

const OURS = 'layerline-job-1.gcode';
const status = (state: PrinterState, fileName: string | null = OURS, extra: Partial<PrinterStatus> = {}) =>
  succeeded<PrinterStatus>({ ...blankStatus(state), fileName, ...extra });
const read = (phase: HeldPhase, state: PrinterState, fileName: string | null = OURS, extra: Partial<PrinterStatus> = {}) =>
  readPrinter(phase, status(state, fileName, extra), OURS, 'MK4 #3');

describe('reading a printer that holds a printing job', () => {
  it.each<[PrinterState, string | null, Reading['kind']]>([
    ['printing', OURS, 'progress'],
    ['printing', null, 'progress'],
    ['paused', OURS, 'progress'],
    ['attention', OURS, 'progress'],
    ['busy', OURS, 'wait'],
    ['offline', null, 'wait'],
    ['finished', OURS, 'printed'],
    // Buddy firmware answers 204 on /api/v1/job once a print is over: the printer no longer names the file.
    ['finished', null, 'printed'],
    ['cancelled', OURS, 'failed'],
    ['failed', OURS, 'failed'],
    ['error', null, 'failed'],
    ['idle', null, 'ask-outcome'],
    ['idle', OURS, 'ask-outcome'],
    ['finished', 'someone-elses.gcode', 'ask-outcome'],
    ['printing', 'someone-elses.gcode', 'ask-outcome'],
    ['unknown', OURS, 'flag'],
  ])('%s naming %s → %s', (state, fileName, kind) => {
    expect(read('printing', state, fileName).kind).toBe(kind);
  });

  it('fails a job only in the printer’s own words', () => {
    expect(read('printing', 'failed', OURS, { errorText: 'Move out of range: 12.000 250.000 [0.200]' })).toEqual({
      kind: 'failed',
      reason: 'The print failed on MK4 #3: Move out of range: 12.000 250.000 [0.200]',
    });
    expect(read('printing', 'cancelled', null)).toMatchObject({ kind: 'failed', reason: expect.stringContaining('Stopped on MK4 #3') });
    expect(read('printing', 'error', null, { errorText: 'MINTEMP triggered' })).toMatchObject({
      reason: 'MK4 #3 stopped with an error: MINTEMP triggered',
    });
  });

  it('keeps the job of a printer that does not answer, whatever the failure', () => {
    for (const kind of ['unreachable', 'timeout', 'auth_refused', 'bad_answer', 'busy', 'rejected', 'not_allowed'] as const) {
      expect(readPrinter('printing', failed(kind, 'no'), OURS, 'MK4 #3')).toEqual({ kind: 'wait' });
    }
  });

  it('flags an unknown answer for a person, naming what the printer said', () => {
    expect(read('printing', 'unknown', OURS, { vendorState: 'LEVITATING' })).toEqual({
      kind: 'flag',
      reason: expect.stringContaining('“LEVITATING”'),
    });
  });

  it('has a decision for every state and file, and fails no job without the printer saying its print ended badly', () => {
    const ending = new Set<PrinterState>(['cancelled', 'failed', 'error']);
    for (const phase of ['uploading', 'printing'] as const) {
      for (const state of PRINTER_STATES) {
        for (const fileName of [OURS, null, 'other.gcode']) {
          const reading = read(phase, state, fileName);
          if (reading.kind === 'failed') expect(phase === 'printing' && ending.has(state) && fileName !== 'other.gcode').toBe(true);
          if (reading.kind === 'flag') expect(state).toBe('unknown');
        }
      }
    }
  });
});

describe('reading a printer that was sent a job (uploading)', () => {
  it.each<[PrinterState, string | null, Reading['kind']]>([
    ['printing', OURS, 'started'],
    ['paused', OURS, 'started'],
    ['finished', OURS, 'started'],
    ['failed', OURS, 'started'],
    ['idle', null, 'wait'],
    ['printing', 'someone-elses.gcode', 'wait'],
    ['busy', null, 'wait'],
    ['unknown', null, 'flag'],
  ])('%s naming %s → %s', (state, fileName, kind) => {
    expect(read('uploading', state, fileName).kind).toBe(kind);
  });
});

describe('reading how a print ended, from the printer’s memory', () => {
  const outcome = (value: PrintOutcome) => readOutcome(succeeded(value), 'Voron 2');
  it('completed → printed, cancelled or failed → failed in its words, unknown → QC with a note', () => {
    expect(outcome({ outcome: 'completed', message: null })).toEqual({ kind: 'printed', note: null });
    expect(outcome({ outcome: 'failed', message: 'klippy_shutdown' })).toEqual({
      kind: 'failed',
      reason: 'The print failed on Voron 2: klippy_shutdown',
    });
    expect(outcome({ outcome: 'cancelled', message: null }).kind).toBe('failed');
    expect(outcome({ outcome: 'unknown', message: null })).toEqual({
      kind: 'printed',
      note: expect.stringContaining('check the part on the bed'),
    });
    expect(readOutcome(failed('unreachable', 'gone'), 'Voron 2')).toEqual({ kind: 'wait' });
  });
});

describe('isPrinterFree', () => {
  it('is true when nothing prints and the last job (if any) ended', () => {
    expect(PRINTER_STATES.filter(isPrinterFree)).toEqual(['idle', 'finished', 'cancelled', 'failed']);
  });
});
