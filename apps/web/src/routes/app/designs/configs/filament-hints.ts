import type { FilamentType } from '@layerline/contracts';

/** One line on what each filament is good for, shown under the filament choice. */
export const FILAMENT_HINTS: Readonly<Record<FilamentType, string>> = {
  PLA: 'Rigid, crisp detail, the everyday choice',
  PETG: 'Tougher than PLA, slightly flexible',
  ABS: 'Heat resistant, can be smoothed',
  ASA: 'Like ABS, and weathers outdoors',
  TPU: 'Flexible and rubbery',
  Nylon: 'Strong and wear resistant',
};

export const LAYER_HEIGHT_HINTS: Readonly<Record<number, string>> = {
  0.1: 'Finest surface, slowest print',
  0.15: 'Fine surface',
  0.2: 'Standard: good surface and speed',
  0.25: 'Faster, visible layers',
  0.3: 'Fastest, rough surface',
};
