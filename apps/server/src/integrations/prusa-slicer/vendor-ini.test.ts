import { describe, expect, it } from 'vitest';
import { SlicerError } from './errors.ts';
import { isAbstract, parseVendorIni, resolveSection } from './vendor-ini.ts';

const BUNDLE = `# A vendor bundle in PrusaSlicer's format
[vendor]
name = Test Vendor

[printer:*common*]
bed_shape = 0x0,250x0,250x210,0x210
nozzle_diameter = 0.4
start_gcode = G28 ; home\\nG80 ; level
gcode_flavor = marlin

[printer:*fast*]
gcode_flavor = marlin2
retract_length = 0.8

[printer:*slow*]
gcode_flavor = klipper
; a comment between keys
retract_length = 2

[printer:Fast Printer]
inherits = *common*; *fast*
max_print_height = 210

[printer:Both Ways]
inherits = *fast* ; *slow*
retract_length = 1.5

[printer:Fast Printer 0.6 nozzle]
inherits = Fast Printer
nozzle_diameter = 0.6

[printer:Orphan]
inherits = *common*; *missing*

[filament:*common*]
temperature = 210
`;

describe('PrusaSlicer vendor bundle INI', () => {
  const ini = parseVendorIni(BUNDLE);

  it('resolves inherits: parents in order, later ones override earlier, the section overrides all', () => {
    const fast = resolveSection(ini, 'printer:Fast Printer');
    expect(Object.fromEntries(fast)).toEqual({
      bed_shape: '0x0,250x0,250x210,0x210',
      nozzle_diameter: '0.4',
      start_gcode: 'G28 ; home\\nG80 ; level',
      gcode_flavor: 'marlin2',
      retract_length: '0.8',
      max_print_height: '210',
    });
    const both = resolveSection(ini, 'printer:Both Ways');
    expect(both.get('gcode_flavor')).toBe('klipper'); // *slow* comes after *fast*
    expect(both.get('retract_length')).toBe('1.5'); // its own key beats both parents
    expect(both.has('inherits')).toBe(false);
  });

  it('follows a chain of presets, parents looked up among sections of the same type', () => {
    const nozzle = resolveSection(ini, 'printer:Fast Printer 0.6 nozzle');
    expect(nozzle.get('nozzle_diameter')).toBe('0.6');
    expect(nozzle.get('gcode_flavor')).toBe('marlin2');
    expect(nozzle.has('temperature')).toBe(false); // [filament:*common*] is another type's
  });

  it('knows abstract sections by their stars', () => {
    expect(isAbstract('*common*')).toBe(true);
    expect(isAbstract('Fast Printer')).toBe(false);
    expect([...ini.sections.keys()].filter((h) => h.startsWith('printer:') && !isAbstract(h.slice(8)))).toEqual([
      'printer:Fast Printer', 'printer:Both Ways', 'printer:Fast Printer 0.6 nozzle', 'printer:Orphan',
    ]);
  });

  it('a missing parent or a missing section is a clear error', () => {
    expect(() => resolveSection(ini, 'printer:Orphan')).toThrow(new SlicerError('failed', 'The slicer profile [printer:Orphan] inherits *missing*, which its bundle does not have'));
    expect(() => resolveSection(ini, 'printer:Nope')).toThrow('The slicer profile [printer:Nope] is not in its bundle');
  });

  it('a section inheriting itself is an error, not a hang', () => {
    const loop = parseVendorIni('[printer:A]\ninherits = B\n[printer:B]\ninherits = A\n');
    expect(() => resolveSection(loop, 'printer:A')).toThrow('The slicer profile [printer:A] inherits itself (printer:A → printer:B → printer:A)');
  });
});
