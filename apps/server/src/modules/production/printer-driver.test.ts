import { describe, expect, it } from 'vitest';
import { PRINTER_FAILURE_KINDS } from '@layerline/contracts';
import { failed, isTransientPrinterFailure, printFileNameProblem } from './printer-driver.ts';

describe('printer driver port helpers', () => {
  it('accepts safe print file names only', () => {
    for (const name of ['layerline-job-1.gcode', 'a.bgcode', 'Part_2.v3.3mf'])
      expect(printFileNameProblem(name)).toBeNull();
    for (const name of [
      '../x.gcode',
      'a/b.gcode',
      '.hidden.gcode',
      'x.stl',
      'x.gcode.exe',
      'a..b.gcode',
      `${'a'.repeat(101)}.gcode`,
      'é.gcode',
      '',
    ]) {
      expect(printFileNameProblem(name)).not.toBeNull();
    }
  });

  it('tells a job handler which failures pass by themselves', () => {
    const transient = PRINTER_FAILURE_KINDS.filter((kind) =>
      isTransientPrinterFailure({ kind, message: '' }),
    );
    expect(transient).toEqual(['unreachable', 'timeout', 'busy', 'bad_answer']);
    expect(failed('auth_refused', 'no', 401)).toEqual({
      ok: false,
      failure: { kind: 'auth_refused', message: 'no', status: 401 },
    });
  });
});
