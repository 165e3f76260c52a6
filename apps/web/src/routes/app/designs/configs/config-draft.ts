import {
  ADD_ON_SERVICES,
  type AddOns,
  type Design,
  type EstimateCostInput,
  type FilamentType,
  type PartConfig,
  type PrintConfig,
  type PrintConfigInput,
} from '@layerline/contracts';

/** What the configuration form edits: every field of a print configuration, nothing optional. */
export interface ConfigDraft {
  name: string;
  filament: FilamentType;
  colour: string;
  layerHeightMm: number;
  infillPercent: number;
  isMultipart: boolean;
  parts: PartConfig[];
  multicolour: boolean;
  addOns: AddOns;
}

export function toDraft(config: PrintConfig): ConfigDraft {
  return {
    name: config.name,
    filament: config.filament,
    colour: config.colour,
    layerHeightMm: config.layerHeightMm,
    infillPercent: config.infillPercent,
    isMultipart: config.isMultipart,
    parts: config.parts.map((part) => ({ ...part })),
    multicolour: config.multicolour,
    addOns: { ...emptyAddOns(), ...config.addOns },
  };
}

export function draftToInput(draft: ConfigDraft): PrintConfigInput {
  return { ...draft, name: draft.name.trim(), parts: draft.isMultipart ? draft.parts : [] };
}

export function emptyAddOns(): AddOns {
  return Object.fromEntries(ADD_ON_SERVICES.map((service) => [service, 0])) as AddOns;
}

export function sameDraft(a: ConfigDraft, b: ConfigDraft): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Whether the fields the instant estimate understands differ between the draft and the saved configuration. */
export function estimableFieldsChanged(draft: ConfigDraft, saved: ConfigDraft): boolean {
  return (
    draft.filament !== saved.filament ||
    draft.layerHeightMm !== saved.layerHeightMm ||
    draft.infillPercent !== saved.infillPercent ||
    draft.isMultipart !== saved.isMultipart
  );
}

/** The what-if quote request for a draft (filePath is the design id, as the API takes it). */
export function estimateInput(designId: string, configId: string, draft: ConfigDraft): EstimateCostInput {
  return {
    filePath: designId,
    printConfigId: configId,
    filamentType: draft.filament,
    infillPercent: draft.infillPercent,
    layerHeightMm: draft.layerHeightMm,
    isMultipartPrint: draft.isMultipart,
  };
}

const MAX_PARTS = 64;

type PartSource = Pick<Design, 'format' | 'objectCount' | 'shells'>;

/**
 * How many parts a model naturally has: its objects when a 3MF has several, otherwise its
 * separate shells (an STL/OBJ, or a 3MF whose one object is built from components).
 */
export function naturalPartCount(design: PartSource): { count: number; unit: 'object' | 'shell' } {
  if (design.format === '3mf' && design.objectCount > 1) return { count: design.objectCount, unit: 'object' };
  return { count: Math.max(1, design.shells), unit: 'shell' };
}

/** One part per object or shell (see naturalPartCount), each starting in the draft's filament and colour. */
export function defaultParts(design: PartSource, filament: FilamentType, colour: string): PartConfig[] {
  const count = Math.min(MAX_PARTS, naturalPartCount(design).count);
  return Array.from({ length: count }, (_, index) => ({ name: `Part ${index + 1}`, filament, colour }));
}

/** Problems the form can show before the server does (the server validates again). */
export function draftErrors(draft: ConfigDraft): string[] {
  const errors: string[] = [];
  if (!draft.name.trim()) errors.push('Give the configuration a name.');
  if (draft.isMultipart && draft.parts.some((part) => !part.name.trim()))
    errors.push('Every part needs a name.');
  for (const service of ADD_ON_SERVICES) {
    const quantity = draft.addOns[service];
    if (!Number.isInteger(quantity) || quantity < 0 || quantity > 1000) {
      errors.push('Add-on quantities are whole numbers from 0 to 1000.');
      break;
    }
  }
  return errors;
}
