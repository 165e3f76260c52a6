import { describe, expect, it } from 'vitest';
import { chooseAmsTray } from './bambulab-ams.ts';
import { CANCELLED_BY_USER, hmsCode, readBambuStatus, type PrintReport } from './bambulab-status.ts';

/** The state table of docs/printers.md ("Bambu Lab"), row by row, from shared/contracts/printers/bambulab.md §6. */
describe('a Bambu Lab report in Layerline’s words', () => {
  const read = (report: PrintReport, cancelled = false) => readBambuStatus(report, cancelled);

  it.each([
    ['IDLE', {}, 'idle'],
    ['PREPARE', { stg_cur: 2 }, 'printing'],
    ['RUNNING', {}, 'printing'],
    ['PAUSE', { stg_cur: 16 }, 'paused'],
    ['PAUSE', {}, 'paused'],
    ['PAUSE', { stg_cur: 6 }, 'attention'],
    ['PAUSE', { stg_cur: 35 }, 'attention'],
    ['PAUSE', { hms: [{ attr: 0x07008000, code: 0x00020001 }] }, 'attention'],
    ['FINISH', {}, 'finished'],
    ['FAILED', { print_error: CANCELLED_BY_USER }, 'cancelled'],
    ['FAILED', { print_error: 0 }, 'failed'],
    ['SLICING', {}, 'busy'],
    ['INIT', {}, 'busy'],
    ['OFFLINE', {}, 'offline'],
    ['LEVITATING', {}, 'unknown'],
  ] as const)('%s %j → %s', (gcodeState, fields, state) => {
    expect(read({ gcode_state: gcodeState, ...fields } as PrintReport).state).toBe(state);
  });

  it('keeps a cancel as cancelled after the printer resets print_error to 0', () => {
    expect(read({ gcode_state: 'FAILED', print_error: 0 }, true).state).toBe('cancelled');
  });

  it('says what stopped it in the printer’s terms: stage, HMS code with its wiki page, print_error', () => {
    const status = read({ gcode_state: 'FAILED', stg_cur: 20, hms: [{ attr: 0x03001000, code: 0x00010007 }], print_error: 0x0300_8001 });
    expect(status.errorText).toBe(
      'Nozzle temperature malfunction; HMS 0300_1000_0001_0007 (https://wiki.bambulab.com/en/x1/troubleshooting/hmscode/0300_1000_0001_0007); print_error 03008001',
    );
    expect(read({ gcode_state: 'LEVITATING' }).errorText).toContain('LEVITATING');
  });

  it('reads progress, layers, minutes left and temperatures; the job by the name the farm gave it', () => {
    expect(
      read({ gcode_state: 'RUNNING', mc_percent: 42, layer_num: 21, total_layer_num: 50, mc_remaining_time: 35, subtask_name: 'layerline-j.gcode', gcode_file: 'layerline-j.gcode.3mf', nozzle_temper: 219.5, nozzle_target_temper: 220, bed_temper: 55, bed_target_temper: 55 }),
    ).toEqual({
      state: 'printing',
      progress: 0.42,
      fileName: 'layerline-j.gcode',
      currentLayer: 21,
      totalLayers: 50,
      secondsLeft: 35 * 60,
      temperatures: { nozzle: { actual: 219.5, target: 220 }, bed: { actual: 55, target: 55 } },
      errorText: null,
      vendorState: 'RUNNING',
    });
    expect(read({ gcode_state: 'IDLE', subtask_name: 'old.gcode', mc_percent: 100 })).toMatchObject({ fileName: null, progress: null });
  });

  it('writes HMS codes as Bambu names them', () => {
    expect(hmsCode({ attr: 0x05000500, code: 0x00010007 })).toBe('0500_0500_0001_0007');
  });
});

describe('the AMS tray for a plate', () => {
  const ams = (...trays: Array<[string, string]>) => ({ ams: [{ id: '1', tray: trays.map(([type, colour], id) => ({ id: String(id), tray_type: type, tray_color: colour })) }] });

  it('takes the tray of the material nearest in colour, numbered unit × 4 + slot', () => {
    expect(chooseAmsTray(ams(['PLA', '000000FF'], ['PLA', 'F97316FF']), { type: 'PLA', colour: '#FF8000' })).toMatchObject({ useAms: true, mapping: [5] });
  });
  it('prints from the external spool without an AMS, or with empty trays', () => {
    expect(chooseAmsTray(undefined, { type: 'PLA', colour: '#FF8000' })).toEqual({ useAms: false });
    expect(chooseAmsTray({ ams: [{ id: '0', tray: [{ id: '0' }] }] }, { type: 'PLA', colour: '#FF8000' })).toEqual({ useAms: false });
  });
  it('knows Layerline’s Nylon as Bambu’s PA, and refuses a material no tray holds', () => {
    expect(chooseAmsTray(ams(['PA', 'FFFFFFFF']), { type: 'NYLON', colour: '#FFFFFF' })).toMatchObject({ useAms: true, mapping: [4] });
    expect(chooseAmsTray(ams(['PETG', 'FFFFFFFF']), { type: 'PLA', colour: '#FFFFFF' })).toMatchObject({ problem: expect.stringContaining('No AMS tray holds PLA') });
  });
});
