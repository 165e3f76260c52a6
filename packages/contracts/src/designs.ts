import { z } from 'zod';
import { pageQueryFields, pageSchema } from './paging.ts';
import { FILAMENT_TYPES } from './pricing.ts';

/** Designs (uploaded 3D models), their print configurations and quotes. */

export const MODEL_FORMATS = ['stl', 'obj', '3mf'] as const;
export type ModelFormat = (typeof MODEL_FORMATS)[number];

/** Upload limits the web app shows before sending (the server enforces them). */
export const UPLOAD_ACCEPT = '.stl,.obj,.3mf';
export const DEFAULT_MAX_UPLOAD_BYTES = 200 * 1024 * 1024;

export const problemSchema = z.object({
  code: z.string(),
  severity: z.enum(['error', 'warning', 'info']),
  message: z.string(),
  /** How many elements show the problem (edges, triangles), or an area in mm² for overhangs. */
  count: z.number(),
});
export type ModelProblem = z.infer<typeof problemSchema>;

/** Stored-file metadata, as the spec lists it (§3). */
export const fileMetadataSchema = z.object({
  bucket: z.string(),
  generation: z.string(),
  metageneration: z.string(),
  fullPath: z.string(),
  name: z.string(),
  size: z.number().int(),
  timeCreated: z.string(),
  updated: z.string(),
  md5Hash: z.string(),
  cacheControl: z.string(),
  contentDisposition: z.string(),
  contentEncoding: z.string(),
  contentLanguage: z.string(),
  contentType: z.string(),
  customMetadata: z.record(z.string(), z.string()),
});
export type FileMetadata = z.infer<typeof fileMetadataSchema>;

export const ADD_ON_SERVICES = [
  'gluing',
  'threadedInserts',
  'mechanicalFasteners',
  'magnets',
  'electronics',
  'customPackaging',
  'multipartAssembly',
] as const;
export type AddOnService = (typeof ADD_ON_SERVICES)[number];

export const ADD_ON_LABELS: Readonly<Record<AddOnService, string>> = {
  gluing: 'Gluing',
  threadedInserts: 'Threaded inserts',
  mechanicalFasteners: 'Mechanical fasteners',
  magnets: 'Magnet installation',
  electronics: 'Electronics integration',
  customPackaging: 'Custom packaging / kitting',
  multipartAssembly: 'Multipart assembly',
};

/** How many of each add-on one printed unit needs (0 = none). */
export const addOnsSchema = z
  .object(Object.fromEntries(ADD_ON_SERVICES.map((s) => [s, z.number().int().min(0).max(1000).default(0)])) as {
    [K in AddOnService]: z.ZodDefault<z.ZodNumber>;
  })
  .strict();
export type AddOns = z.infer<typeof addOnsSchema>;

export const colourSchema = z
  .string()
  .trim()
  .regex(/^#[0-9a-fA-F]{6}$/, 'Colour must be a hex colour like #ff6600');

export const LAYER_HEIGHTS_MM = [0.1, 0.15, 0.2, 0.25, 0.3] as const;

export const partConfigSchema = z
  .object({
    name: z.string().trim().min(1).max(120),
    filament: z.enum(FILAMENT_TYPES),
    colour: colourSchema,
  })
  .strict();
export type PartConfig = z.infer<typeof partConfigSchema>;

const printConfigFields = {
  name: z.string().trim().min(1, 'Give the configuration a name').max(120),
  filament: z.enum(FILAMENT_TYPES),
  colour: colourSchema,
  layerHeightMm: z.number().min(0.05).max(0.4),
  infillPercent: z.number().int().min(0).max(100),
  isMultipart: z.boolean(),
  /** One entry per part (3MF object or mesh shell) when multi-part; each its own filament and colour. */
  parts: z.array(partConfigSchema).max(64),
  multicolour: z.boolean(),
  addOns: addOnsSchema,
};

/** A new configuration; anything left out takes the default. */
export const printConfigInputSchema = z
  .object({
    ...printConfigFields,
    filament: printConfigFields.filament.default('PLA'),
    colour: printConfigFields.colour.default('#f97316'),
    layerHeightMm: printConfigFields.layerHeightMm.default(0.2),
    infillPercent: printConfigFields.infillPercent.default(15),
    isMultipart: printConfigFields.isMultipart.default(false),
    parts: printConfigFields.parts.default([]),
    multicolour: printConfigFields.multicolour.default(false),
    addOns: addOnsSchema.default(Object.fromEntries(ADD_ON_SERVICES.map((s) => [s, 0])) as AddOns),
  })
  .strict();
/**
 * A change to a configuration: only the fields sent change. (Built without defaults: zod 4 applies
 * a default even inside .partial(), which would silently reset every field not sent.)
 */
export const printConfigUpdateSchema = z.object(printConfigFields).partial().strict();
export type PrintConfigUpdate = z.infer<typeof printConfigUpdateSchema>;
export type PrintConfigInput = z.input<typeof printConfigInputSchema>;

export const QUOTE_BASES = ['estimate', 'slicer', 'admin'] as const;
export type QuoteBasis = (typeof QUOTE_BASES)[number];

export const quoteSchema = z.object({
  basis: z.enum(QUOTE_BASES),
  /** What the figures rest on, in words a seller understands. */
  basisNote: z.string(),
  grams: z.number(),
  printSeconds: z.number(),
  costUsd: z.number(),
  breakdown: z.array(z.object({ label: z.string(), amountUsd: z.number() })),
  computedAt: z.string(),
});
export type Quote = z.infer<typeof quoteSchema>;

export const printConfigSchema = z.object({
  id: z.string(),
  designId: z.string(),
  name: z.string(),
  filament: z.enum(FILAMENT_TYPES),
  colour: z.string(),
  layerHeightMm: z.number(),
  infillPercent: z.number(),
  isMultipart: z.boolean(),
  parts: z.array(partConfigSchema),
  multicolour: z.boolean(),
  addOns: addOnsSchema,
  quote: quoteSchema.nullable(),
  /** Exact slicing for this configuration: none (no slicer installed), queued, running, done, failed. */
  slicing: z.object({ status: z.enum(['unavailable', 'queued', 'running', 'done', 'failed']), error: z.string().nullable() }),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type PrintConfig = z.infer<typeof printConfigSchema>;

export const designSchema = z.object({
  id: z.string(),
  ownerId: z.string(),
  ownerEmail: z.string().optional(),
  name: z.string(),
  fileName: z.string(),
  format: z.enum(MODEL_FORMATS),
  sizeBytes: z.number().int(),
  triangles: z.number().int(),
  volumeMm3: z.number(),
  surfaceAreaMm2: z.number(),
  bboxMm: z.tuple([z.number(), z.number(), z.number()]),
  shells: z.number().int(),
  objectCount: z.number().int(),
  fitsBuildVolume: z.boolean(),
  watertight: z.boolean(),
  problems: z.array(problemSchema),
  thumbnailUrl: z.string(),
  fileUrl: z.string(),
  viewerMeshUrl: z.string(),
  printConfigs: z.array(printConfigSchema),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Design = z.infer<typeof designSchema>;

/**
 * GET /api/designs (a seller's) and GET /api/admin/designs (everyone's): newest first, keyset-paged.
 * `total` counts the seller's designs matching the search; null on the admin's list of everyone's
 * (counting every design would read the whole table).
 */
export const designListQuerySchema = z
  .object({
    search: z.string().trim().max(200).default(''),
    ...pageQueryFields(24),
    targetUserId: z.string().max(100).optional(),
  })
  .strict();
export type DesignListQuery = z.infer<typeof designListQuerySchema>;

export const designListSchema = pageSchema(designSchema).extend({
  total: z.number().int().nullable(),
  storage: z.object({ usedBytes: z.number().int(), quotaBytes: z.number().int() }),
});
export type DesignList = z.infer<typeof designListSchema>;

export const renameDesignSchema = z.object({ name: z.string().trim().min(1).max(200) }).strict();

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** The spec's filePath: a design's id, or its stored path `designs/<id>` (ids are UUIDs: anything else names no design). */
const designFileSchema = z.string().regex(new RegExp(`^(designs/)?${UUID}$`, 'i'), 'Not a design id (a UUID, or designs/<UUID>)');

/** The spec's estimatePrintCostThreeJS call. filePath is the design id (or its stored path). */
export const estimateCostInputSchema = z
  .object({
    filePath: designFileSchema,
    printConfigId: z.string().max(100).optional(),
    isMultipartPrint: z.boolean().default(false),
    filamentType: z.enum(FILAMENT_TYPES).default('PLA'),
    infillPercent: z.number().int().min(0).max(100).optional(),
    layerHeightMm: z.number().min(0.05).max(0.4).optional(),
    /** Unsaved edits to price as well; what is left out comes from the saved configuration. */
    parts: z.array(partConfigSchema).max(64).optional(),
    addOns: addOnsSchema.optional(),
    targetUserId: z.string().max(100).optional(),
  })
  .strict();
export type EstimateCostInput = z.input<typeof estimateCostInputSchema>;

/** The admin's price table (§1 add-on services; rates per gram per filament). */
export const priceTableSchema = z
  .object({
    filamentRateUsdPerGram: z.object(
      Object.fromEntries(FILAMENT_TYPES.map((f) => [f, z.number().min(0).max(10)])) as {
        [K in (typeof FILAMENT_TYPES)[number]]: z.ZodNumber;
      },
    ),
    fulfilmentUsdPerGram: z.number().min(0).max(10),
    machineRateUsdPerHour: z.number().min(0).max(1000),
    minimumUsdPerPart: z.number().min(0).max(1000),
    addOnUsd: z.object(
      Object.fromEntries(ADD_ON_SERVICES.map((s) => [s, z.number().min(0).max(1000)])) as {
        [K in AddOnService]: z.ZodNumber;
      },
    ),
  })
  .strict();
export type PriceTable = z.infer<typeof priceTableSchema>;

/** The spec's createCostData: an admin sets the exact cost data of a print configuration. */
export const costDataInputSchema = z
  .object({
    configId: z.uuid('Not a print configuration id'),
    costData: z
      .object({
        grams: z.number().min(0).max(100_000),
        printSeconds: z.number().min(0).max(60 * 60 * 24 * 30),
        costUsd: z.number().min(0).max(100_000).optional(),
        note: z.string().max(500).optional(),
      })
      .strict(),
  })
  .strict();
export type CostDataInput = z.infer<typeof costDataInputSchema>;

/** The spec's createPlaceholderCost3MF: a placeholder cost for a 3MF that cannot be estimated yet. */
export const placeholderCostInputSchema = z
  .object({ filePath: designFileSchema, printConfigId: z.uuid('Not a print configuration id') })
  .strict();
