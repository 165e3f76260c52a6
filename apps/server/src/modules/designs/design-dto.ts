import {
  ADD_ON_SERVICES,
  isFilamentType,
  type AddOns,
  type Design,
  type FilamentType,
  type PriceTable,
  type PrintConfig,
  type Quote,
} from '@layerline/contracts';
import { partShares, priceQuote } from '../quotes/pricing.ts';
import type { DesignRow, DesignWithConfigs, PrintConfigRow } from './design-repository.ts';

/** Turns stored rows into the shapes the API returns, pricing each configuration on the way. */

export function addOnsOf(stored: Record<string, number>): AddOns {
  return Object.fromEntries(ADD_ON_SERVICES.map((s) => [s, stored[s] ?? 0])) as AddOns;
}

const filamentOf = (value: string): FilamentType => (isFilamentType(value) ? value : 'PLA');

export function quoteOf(config: PrintConfigRow, design: DesignRow, table: PriceTable, slicerAvailable: boolean): Quote | null {
  const shares = partShares(
    { filament: filamentOf(config.filament), isMultipart: config.isMultipart, parts: config.parts.map((p) => ({ filament: filamentOf(p.filament) })) },
    design.partVolumesMm3,
  );
  const common = { parts: shares, addOns: addOnsOf(config.addOns), table };
  if (config.adminCost) {
    return priceQuote({
      ...common,
      basis: 'admin',
      basisNote: config.adminCost.note || 'Cost set by the print farm',
      grams: config.adminCost.grams,
      printSeconds: config.adminCost.printSeconds,
      costOverrideUsd: config.adminCost.costUsd,
      now: new Date(config.adminCost.computedAt),
    });
  }
  if (config.sliced) {
    return priceQuote({
      ...common,
      basis: 'slicer',
      basisNote: `Sliced with PrusaSlicer ${config.sliced.slicerVersion}: exact filament and time`,
      grams: config.sliced.grams,
      printSeconds: config.sliced.printSeconds,
      now: new Date(config.sliced.computedAt),
    });
  }
  if (config.estimate) {
    return priceQuote({
      ...common,
      basis: 'estimate',
      basisNote: slicerAvailable
        ? 'Estimated from the model’s geometry; exact slicing follows'
        : 'Estimated from the model’s geometry (no slicer on this server)',
      grams: config.estimate.grams,
      printSeconds: config.estimate.printSeconds,
      now: new Date(config.estimate.computedAt),
    });
  }
  return null;
}

export function toPrintConfigDto(config: PrintConfigRow, design: DesignRow, table: PriceTable, slicerAvailable: boolean): PrintConfig {
  return {
    id: config.id,
    designId: config.designId,
    name: config.name,
    filament: filamentOf(config.filament),
    colour: config.colour,
    layerHeightMm: config.layerHeightMm,
    infillPercent: config.infillPercent,
    isMultipart: config.isMultipart,
    parts: config.parts.map((p) => ({ name: p.name, filament: filamentOf(p.filament), colour: p.colour })),
    multicolour: config.multicolour,
    addOns: addOnsOf(config.addOns),
    quote: quoteOf(config, design, table, slicerAvailable),
    slicing: {
      status: config.slicingStatus as PrintConfig['slicing']['status'],
      error: config.slicingError,
    },
    createdAt: config.createdAt.toISOString(),
    updatedAt: config.updatedAt.toISOString(),
  };
}

export function toDesignDto(item: DesignWithConfigs, table: PriceTable, slicerAvailable: boolean, includeOwner: boolean): Design {
  const d = item.design;
  return {
    id: d.id,
    ownerId: d.ownerId,
    ...(includeOwner ? { ownerEmail: item.ownerEmail } : {}),
    name: d.name,
    fileName: d.fileName,
    format: d.format as Design['format'],
    sizeBytes: d.sizeBytes,
    triangles: d.triangles,
    volumeMm3: d.volumeMm3,
    surfaceAreaMm2: d.surfaceAreaMm2,
    bboxMm: d.bboxMm,
    shells: d.shells,
    objectCount: d.objectCount,
    fitsBuildVolume: d.fitsBuildVolume,
    watertight: d.watertight,
    problems: d.problems.map(({ code, severity, message, count }) => ({ code, severity, message, count })),
    thumbnailUrl: `/api/designs/${d.id}/thumbnail.png?v=${d.metageneration}`,
    fileUrl: `/api/designs/${d.id}/file`,
    viewerMeshUrl: `/api/designs/${d.id}/viewer-mesh`,
    printConfigs: item.configs.map((c) => toPrintConfigDto(c, d, table, slicerAvailable)),
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}
