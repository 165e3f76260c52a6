import type { PrinterState } from '@layerline/contracts';
import { describe, expect, it } from 'vitest';
import {
  attemptLabel,
  bedClearable,
  clearingLabel,
  colourOf,
  formatDuration,
  formatSize,
  materialLabel,
  moveTarget,
  percent,
  progressLabel,
  reorderQueue,
} from './production-format.ts';

describe('formatDuration', () => {
  it('reads seconds, minutes and hours as people say them', () => {
    expect(formatDuration(0)).toBe('0 s');
    expect(formatDuration(45)).toBe('45 s');
    expect(formatDuration(59.6)).toBe('1 min');
    expect(formatDuration(60)).toBe('1 min');
    expect(formatDuration(12 * 60 + 20)).toBe('12 min');
    expect(formatDuration(59 * 60 + 40)).toBe('1 h 00 min');
    expect(formatDuration(3600 + 5 * 60)).toBe('1 h 05 min');
    expect(formatDuration(3900 + 29)).toBe('1 h 05 min');
    expect(formatDuration(26 * 3600 + 42 * 60)).toBe('26 h 42 min');
  });

  it('shows a dash when there is no estimate, and never a negative time', () => {
    expect(formatDuration(null)).toBe('—');
    expect(formatDuration(undefined)).toBe('—');
    expect(formatDuration(Number.NaN)).toBe('—');
    expect(formatDuration(-30)).toBe('0 s');
  });
});

describe('small labels', () => {
  it('formats sizes, percentages, attempts and materials', () => {
    expect(formatSize({ x: 20, y: 20, z: 12.5 })).toBe('20 × 20 × 12.5 mm');
    expect(percent(null)).toBe(0);
    expect(percent(0.456)).toBe(46);
    expect(percent(1.2)).toBe(100);
    expect(percent(-0.1)).toBe(0);
    expect(progressLabel(null, null)).toBe('Starting…');
    expect(progressLabel(0, null)).toBe('Starting…');
    expect(progressLabel(0, 3900)).toBe('0 % · 1 h 05 min left');
    expect(progressLabel(0.42, 3900)).toBe('42 % · 1 h 05 min left');
    expect(progressLabel(0.42, null)).toBe('42 %');
    expect(attemptLabel(1)).toBe('First print');
    expect(attemptLabel(2)).toBe('Reprint 2');
    expect(materialLabel('PLA', 'Galaxy black')).toBe('PLA Galaxy black');
    expect(materialLabel('PETG', 'any')).toBe('PETG (any colour)');
  });
});

describe('colourOf', () => {
  const spools = [
    { material: 'PLA', colourName: 'Galaxy black', colourHex: '#1c1c1e' },
    { material: 'PETG', colourName: 'Ocean blue', colourHex: '#1E88E5' },
    { material: 'PLA', colourName: 'Sky blue', colourHex: '#1e88e5' },
  ];

  it('names a hex colour after a spool of the farm with that colour, same material first', () => {
    expect(colourOf('PLA', '#1c1c1e', spools)).toEqual({
      name: 'Galaxy black',
      swatch: { kind: 'hex', hex: '#1c1c1e' },
    });
    expect(colourOf('PLA', '#1e88e5', spools).name).toBe('Sky blue');
    expect(colourOf('PETG', '#1e88e5', spools).name).toBe('Ocean blue');
    expect(colourOf('ABS', '#1c1c1e', spools).name).toBe('Galaxy black');
    expect(colourOf('PLA', '#ABCDEF', spools)).toEqual({
      name: '#abcdef',
      swatch: { kind: 'hex', hex: '#abcdef' },
    });
  });

  it('paints a colour name with a spool of that name, the name compared without case', () => {
    expect(colourOf('PLA', 'galaxy black', spools)).toEqual({
      name: 'galaxy black',
      swatch: { kind: 'hex', hex: '#1c1c1e' },
    });
  });

  it('falls back on a colour word of the name, then says it does not know', () => {
    expect(colourOf('PLA', 'Traffic red', []).swatch).toEqual({ kind: 'hex', hex: '#c62828' });
    expect(colourOf('PLA', 'Light-Grey', []).swatch).toEqual({ kind: 'hex', hex: '#9e9e9e' });
    expect(colourOf('PLA', 'Unicorn', [])).toEqual({ name: 'Unicorn', swatch: { kind: 'unknown' } });
    expect(colourOf('PLA', 'any', spools)).toEqual({ name: 'any', swatch: { kind: 'any' } });
  });
});

describe('moveTarget and reorderQueue', () => {
  const ids = ['a', 'b', 'c', 'd'];
  const queue = ids.map((id) => ({ id }));
  const after = (dragged: string, target: string, more = false) => {
    const move = moveTarget(ids, dragged, target, more);
    return move ? reorderQueue(queue, dragged, move.beforeJobId).map((j) => j.id) : undefined;
  };

  it('moving up lands just before the row dropped on', () => {
    expect(moveTarget(ids, 'd', 'b')).toEqual({ beforeJobId: 'b' });
    expect(after('d', 'b')).toEqual(['a', 'd', 'b', 'c']);
    expect(after('b', 'a')).toEqual(['b', 'a', 'c', 'd']);
  });

  it('moving down lands just after the row dropped on, the last row meaning the end', () => {
    expect(moveTarget(ids, 'a', 'c')).toEqual({ beforeJobId: 'd' });
    expect(after('a', 'c')).toEqual(['b', 'c', 'a', 'd']);
    expect(moveTarget(ids, 'b', 'd')).toEqual({ beforeJobId: null });
    expect(after('b', 'd')).toEqual(['a', 'c', 'd', 'b']);
    expect(after('c', 'd')).toEqual(['a', 'b', 'd', 'c']);
  });

  it('with more queued than shown, the last shown row is not the end of the queue', () => {
    expect(moveTarget(ids, 'a', 'd', true)).toEqual({ beforeJobId: 'd' });
    expect(after('a', 'd', true)).toEqual(['b', 'c', 'a', 'd']);
    expect(moveTarget(ids, 'c', 'd', true)).toBeUndefined();
  });

  it('nothing moves for a drop on itself or on an unknown row', () => {
    expect(moveTarget(ids, 'b', 'b')).toBeUndefined();
    expect(moveTarget(ids, 'x', 'b')).toBeUndefined();
    expect(moveTarget(ids, 'b', 'x')).toBeUndefined();
  });

  it('reorderQueue keeps the queue as it is for an unknown job, and puts it last for an unknown anchor', () => {
    expect(reorderQueue(queue, 'x', 'a').map((j) => j.id)).toEqual(ids);
    expect(reorderQueue(queue, 'a', 'x').map((j) => j.id)).toEqual(['b', 'c', 'd', 'a']);
  });
});

describe('bedClearable', () => {
  const printer = {
    bedConfirmedClear: false,
    connectionLost: false,
    adminStatus: 'active',
    state: { state: 'finished' as PrinterState },
  };

  it('offers the confirmation on a free printer (idle, or its last job ended) whose bed is not confirmed clear', () => {
    expect(bedClearable(printer)).toBe(true);
    for (const state of ['idle', 'cancelled', 'failed'] as const) expect(bedClearable({ ...printer, state: { state } })).toBe(true);
    expect(bedClearable({ ...printer, state: { state: 'attention' } })).toBe(false);
    expect(bedClearable({ ...printer, adminStatus: 'paused' })).toBe(true);
  });

  it('not while printing, unreachable, unpolled, retired or already confirmed', () => {
    expect(bedClearable({ ...printer, state: { state: 'printing' } })).toBe(false);
    expect(bedClearable({ ...printer, state: { state: 'error' } })).toBe(false);
    expect(bedClearable({ ...printer, state: null })).toBe(false);
    expect(bedClearable({ ...printer, connectionLost: true })).toBe(false);
    expect(bedClearable({ ...printer, adminStatus: 'retired' })).toBe(false);
    expect(bedClearable({ ...printer, bedConfirmedClear: true })).toBe(false);
  });
});

describe('clearingLabel', () => {
  it('says who clears the bed, and a self-clearing printer’s plates against its cap', () => {
    expect(clearingLabel({ kind: 'person', clearsItself: false, unattendedPlates: 0, maxUnattendedPlates: null })).toBe('Cleared by a person');
    expect(clearingLabel({ kind: 'eject_gcode', clearsItself: true, unattendedPlates: 3, maxUnattendedPlates: 10 })).toBe(
      'Clears itself · eject G-code · 3/10 plates',
    );
    expect(clearingLabel({ kind: 'plate_changer', clearsItself: true, unattendedPlates: 0, maxUnattendedPlates: 5 })).toBe(
      'Clears itself · plate changer · 0/5 plates',
    );
  });
});
