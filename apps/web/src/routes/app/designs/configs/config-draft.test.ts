import { describe, expect, it } from 'vitest';
import type { PrintConfig } from '@layerline/contracts';
import {
  defaultParts,
  draftErrors,
  draftToInput,
  estimableFieldsChanged,
  sameDraft,
  toDraft,
} from './config-draft.ts';

const saved: PrintConfig = {
  id: 'c1',
  designId: 'd1',
  name: 'Standard PLA',
  filament: 'PLA',
  colour: '#f97316',
  layerHeightMm: 0.2,
  infillPercent: 15,
  isMultipart: false,
  parts: [],
  multicolour: false,
  addOns: {
    gluing: 0,
    threadedInserts: 0,
    mechanicalFasteners: 0,
    magnets: 0,
    electronics: 0,
    customPackaging: 0,
    multipartAssembly: 0,
  },
  quote: null,
  slicing: { status: 'unavailable', error: null },
  createdAt: '',
  updatedAt: '',
};

describe('configuration drafts', () => {
  it('round-trips a saved configuration', () => {
    const draft = toDraft(saved);
    expect(sameDraft(draft, toDraft(saved))).toBe(true);
    expect(draftToInput(draft)).toMatchObject({ name: 'Standard PLA', filament: 'PLA', parts: [] });
  });

  it('knows which changes the instant estimate can price', () => {
    const draft = toDraft(saved);
    expect(estimableFieldsChanged({ ...draft, filament: 'Nylon' }, draft)).toBe(true);
    expect(estimableFieldsChanged({ ...draft, infillPercent: 40 }, draft)).toBe(true);
    expect(estimableFieldsChanged({ ...draft, colour: '#000000' }, draft)).toBe(false);
    expect(estimableFieldsChanged({ ...draft, addOns: { ...draft.addOns, magnets: 2 } }, draft)).toBe(false);
  });

  it('makes one part per 3MF object or mesh shell, capped at 64', () => {
    expect(defaultParts({ format: '3mf', objectCount: 3, shells: 9 }, 'PETG', '#000000')).toHaveLength(3);
    expect(defaultParts({ format: '3mf', objectCount: 1, shells: 2 }, 'PETG', '#000000')).toHaveLength(2);
    expect(defaultParts({ format: 'stl', objectCount: 1, shells: 2 }, 'PLA', '#ffffff')[1]).toEqual({
      name: 'Part 2',
      filament: 'PLA',
      colour: '#ffffff',
    });
    expect(defaultParts({ format: 'stl', objectCount: 1, shells: 0 }, 'PLA', '#ffffff')).toHaveLength(1);
    expect(defaultParts({ format: 'obj', objectCount: 1, shells: 500 }, 'PLA', '#ffffff')).toHaveLength(64);
  });

  it('drops parts when the print is not multi-part', () => {
    const draft = { ...toDraft(saved), parts: [{ name: 'A', filament: 'PLA' as const, colour: '#000000' }] };
    expect(draftToInput(draft).parts).toEqual([]);
    expect(draftToInput({ ...draft, isMultipart: true }).parts).toHaveLength(1);
  });

  it('flags a blank name and bad add-on quantities', () => {
    const draft = toDraft(saved);
    expect(draftErrors(draft)).toEqual([]);
    expect(draftErrors({ ...draft, name: '  ' })).toContain('Give the configuration a name.');
    expect(draftErrors({ ...draft, addOns: { ...draft.addOns, gluing: 1.5 } })).toHaveLength(1);
  });
});
