import { z } from 'zod';
import { FILAMENT_TYPES } from './pricing.ts';

/**
 * Printers of the print farm (issue 11): how Layerline talks to each printer, and what it reads
 * back. The connection schemas are what an admin fills in on the printers page; the server keeps
 * the secrets in them (API keys, digest passwords) sealed at rest and never returns them.
 * See docs/printers.md.
 */
export const PRINTER_KINDS = ['octoprint', 'moonraker', 'prusalink', 'simulated', 'bambulab'] as const;
export type PrinterKind = (typeof PRINTER_KINDS)[number];

export const PRINTER_KIND_LABELS: Readonly<Record<PrinterKind, string>> = {
  octoprint: 'OctoPrint',
  moonraker: 'Klipper (Moonraker)',
  prusalink: 'PrusaLink',
  simulated: 'Simulated printer',
  bambulab: 'Bambu Lab (LAN mode)',
};

/**
 * A printer's address on the farm's network: http or https, a host and an optional port and path
 * prefix (an OctoPrint behind a reverse proxy at /octoprint). No user name or password in the URL
 * (credentials have their own fields), no query string or fragment. Which addresses may be called
 * is decided by the server's printer host policy (docs/printers.md, "Network policy").
 */
export const printerBaseUrlSchema = z
  .string()
  .trim()
  .max(300)
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'Enter the printer’s full address, like http://192.168.1.50' });
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      ctx.addIssue({ code: 'custom', message: 'The address must start with http:// or https://' });
    }
    if (url.username || url.password) {
      ctx.addIssue({
        code: 'custom',
        message: 'Put the user name and password in their own fields, not in the address',
      });
    }
    if (url.search || url.hash) {
      ctx.addIssue({ code: 'custom', message: 'The address must not contain ? or #' });
    }
  })
  .transform((value) => value.replace(/\/+$/, ''));

/** A printable API key or password: no control characters (they would break a header). */
const headerSecret = (label: string) =>
  z
    .string({ message: `Enter the ${label}` })
    .min(1, `Enter the ${label}`)
    .max(256)
    .regex(/^[\x20-\x7e]+$/, `The ${label} may contain only printable ASCII characters`);

export const octoprintConnectionSchema = z
  .object({
    kind: z.literal('octoprint'),
    baseUrl: printerBaseUrlSchema,
    apiKey: headerSecret('API key'),
  })
  .strict();

export const moonrakerConnectionSchema = z
  .object({
    kind: z.literal('moonraker'),
    baseUrl: printerBaseUrlSchema,
    /** Only when Moonraker's [authorization] requires it (trusted LAN clients need none). */
    apiKey: headerSecret('API key').optional(),
  })
  .strict();

export const prusalinkAuthSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('api-key'), apiKey: headerSecret('API key') }).strict(),
  z
    .object({
      kind: z.literal('digest'),
      username: headerSecret('user name').refine((v) => !v.includes('"') && !v.includes(':'), {
        message: 'The user name may not contain " or :',
      }),
      password: headerSecret('password'),
    })
    .strict(),
]);

export const prusalinkConnectionSchema = z
  .object({
    kind: z.literal('prusalink'),
    baseUrl: printerBaseUrlSchema,
    auth: prusalinkAuthSchema,
    /** The storage jobs are uploaded to: `usb` on the MK4/XL/MINI, `local` on PrusaLink for the MK3. */
    storage: z
      .string()
      .regex(/^[a-z0-9_-]{1,32}$/i, 'A storage name like usb or local')
      .default('usb'),
  })
  .strict();

export const simulatedConnectionSchema = z
  .object({
    kind: z.literal('simulated'),
    /** How much faster than real time it prints: 60 turns a one-hour job into one minute. */
    speedFactor: z.number().min(1).max(100_000).default(60),
    /** The print fails with an error when it reaches this layer. */
    failAtLayer: z.number().int().min(1).optional(),
    /** The filament runs out when the print reaches this layer (an error that names it). */
    filamentRunsOutAtLayer: z.number().int().min(1).optional(),
    /** Starts unreachable (as if unplugged) until told otherwise. */
    offline: z.boolean().default(false),
    /** Temperatures it heats to while printing. */
    nozzleTargetC: z.number().min(0).max(500).default(215),
    bedTargetC: z.number().min(0).max(150).default(60),
    /** A name and firmware shown by "Test connection". */
    model: z.string().min(1).max(100).default('Layerline simulated printer'),
  })
  .strict();

/** The Bambu Lab machines Layerline has slicing profiles for (shared/contracts/printers/bambulab-machine-profiles.json). */
export const BAMBULAB_MODELS = ['X1 Carbon', 'P1S', 'P1P', 'A1', 'A1 mini'] as const;
export type BambulabModel = (typeof BAMBULAB_MODELS)[number];

/**
 * A Bambu Lab printer in LAN-only mode with Developer Mode on (docs/printers.md, "Bambu Lab"): MQTT
 * over TLS and FTPS with implicit TLS, both with user `bblp` and the LAN access code shown on the
 * printer's screen; the serial names its MQTT topics and is the name in its certificate.
 */
export const bambulabConnectionSchema = z
  .object({
    kind: z.literal('bambulab'),
    /** The printer's IP address or host name on the farm's network (no scheme, no port). */
    host: z
      .string()
      .trim()
      .min(1, 'Enter the printer’s IP address')
      .max(253)
      .regex(/^[A-Za-z0-9.:-]+$/, 'Enter the printer’s IP address or host name, like 192.168.1.60'),
    serial: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9]{8,32}$/, 'The serial number as the printer shows it (letters and digits)'),
    accessCode: z
      .string({ message: 'Enter the LAN access code' })
      .regex(/^[A-Za-z0-9]{8}$/, 'The LAN access code is the 8 characters shown on the printer’s screen'),
    model: z.enum(BAMBULAB_MODELS, { message: 'Choose the printer model' }),
    /** The printer listens on 8883 (MQTT) and 990 (FTPS); other ports are for a port-forward or the simulator. */
    mqttPort: z.number().int().min(1).max(65_535).default(8883),
    ftpsPort: z.number().int().min(1).max(65_535).default(990),
  })
  .strict();

export const printerConnectionSchema = z.discriminatedUnion('kind', [
  octoprintConnectionSchema,
  moonrakerConnectionSchema,
  prusalinkConnectionSchema,
  simulatedConnectionSchema,
  bambulabConnectionSchema,
]);
export type PrinterConnection = z.infer<typeof printerConnectionSchema>;
/** What the admin form sends (defaults not yet applied). */
export type PrinterConnectionInput = z.input<typeof printerConnectionSchema>;
export type OctoprintConnection = z.infer<typeof octoprintConnectionSchema>;
export type MoonrakerConnection = z.infer<typeof moonrakerConnectionSchema>;
export type PrusalinkConnection = z.infer<typeof prusalinkConnectionSchema>;
export type SimulatedConnection = z.infer<typeof simulatedConnectionSchema>;
export type BambulabConnection = z.infer<typeof bambulabConnectionSchema>;

/**
 * What a printer is doing, in Layerline's words. Each adapter maps its vendor's answers onto these
 * (docs/printers.md has the table per vendor); the farm decides from them with one table
 * (modules/production/printer-reading.ts):
 * - idle: connected and free, and it says nothing of a last job (the bed may still need clearing:
 *   that is the farm's to know);
 * - busy: connected but doing something that is not a print (calibrating, heating by hand, a
 *   transfer, finishing or cancelling a print);
 * - printing, paused: a job is on it (paused by a command);
 * - attention: a job is on it, stopped until a person acts at the printer (filament runout, a
 *   question on its screen); `errorText` says why;
 * - finished, cancelled, failed: free again, and its last job (`fileName`, when it still names
 *   it) completed, was stopped, or ended with an error (`errorText`);
 * - error: the printer itself is in error and needs a person before it prints again
 *   (firmware error, Klipper shutdown); `errorText` has its words;
 * - offline: the printer's host answers but the printer behind it is not connected (or the host
 *   is still starting);
 * - unknown: an answer the adapter has never seen; `vendorState` has it as the printer said it.
 */
export const PRINTER_STATES = [
  'idle',
  'busy',
  'printing',
  'paused',
  'attention',
  'finished',
  'cancelled',
  'failed',
  'error',
  'offline',
  'unknown',
] as const;
export type PrinterState = (typeof PRINTER_STATES)[number];

/** Free for the next job once its bed is clear: nothing on it, or its last job ended. */
export const isPrinterFree = (state: PrinterState): boolean =>
  state === 'idle' || state === 'finished' || state === 'cancelled' || state === 'failed';

const temperatureSchema = z.object({ actual: z.number().nullable(), target: z.number().nullable() });

export const printerStatusSchema = z.object({
  state: z.enum(PRINTER_STATES),
  /** 0..1 of the current or last job, null when there is none. */
  progress: z.number().min(0).max(1).nullable(),
  /** The file the printer is printing or last printed, as the printer names it. */
  fileName: z.string().nullable(),
  currentLayer: z.number().int().nullable(),
  totalLayers: z.number().int().nullable(),
  secondsLeft: z.number().nullable(),
  temperatures: z.object({ nozzle: temperatureSchema, bed: temperatureSchema }),
  /** The printer's own words when it is in error, failed, needs attention or answered something unknown, else null. */
  errorText: z.string().nullable(),
  /** The state as the vendor said it ("Offline after error", "ATTENTION", "shutdown"), for people. */
  vendorState: z.string().nullable().optional(),
});
export type PrinterStatus = z.infer<typeof printerStatusSchema>;

/** The answer to "Test connection". */
export const printerIdentitySchema = z.object({
  kind: z.enum(PRINTER_KINDS),
  /** The host software and its version ("OctoPrint 1.10.2", "Moonraker v0.9.3 / Klipper v0.12.0"). */
  software: z.string(),
  /** The printer's firmware or model when the host tells it, else null. */
  firmware: z.string().nullable(),
  /** Round trip of the probe in milliseconds. */
  latencyMs: z.number(),
});
export type PrinterIdentity = z.infer<typeof printerIdentitySchema>;

/** Why a printer call did not do what was asked: the farm acts on the kind, people read the message. */
export const PRINTER_FAILURE_KINDS = [
  'unreachable',
  'timeout',
  'auth_refused',
  'busy',
  'bad_answer',
  'rejected',
  'not_allowed',
] as const;
export type PrinterFailureKind = (typeof PRINTER_FAILURE_KINDS)[number];

// ── The farm's printers as data: the admin API (/api/admin/printers) and page (/admin-printers) ──

/** active: may be dispatched to; paused: kept out for now; retired: kept for history, never used again. */
export const PRINTER_ADMIN_STATUSES = ['active', 'paused', 'retired'] as const;
export type PrinterAdminStatus = (typeof PRINTER_ADMIN_STATUSES)[number];

/** Filament materials a spool can hold (the price table's filament types). */
export const SPOOL_MATERIALS = FILAMENT_TYPES;

export const spoolSchema = z
  .object({
    material: z.enum(SPOOL_MATERIALS, { message: 'Choose a material: PLA, PETG, ABS, ASA, TPU or Nylon' }),
    colourName: z.string().trim().min(1, 'Name the colour').max(60),
    colourHex: z.string().regex(/^#[0-9a-fA-F]{6}$/, 'A colour like #1e88e5'),
    gramsLeft: z.number({ message: 'Enter the grams left' }).int('Whole grams').min(0, 'Grams left cannot be negative').max(20_000),
    /** The spool in the toolhead now (at most one per printer); the others wait beside it (AMS, MMU). */
    loaded: z.boolean().default(false),
  })
  .strict();
export type PrinterSpool = z.infer<typeof spoolSchema>;

export const printerSpoolsInputSchema = z
  .object({
    spools: z
      .array(spoolSchema)
      .max(16, 'At most 16 spools per printer')
      .refine((spools) => spools.filter((s) => s.loaded).length <= 1, {
        message: 'Only one spool can be loaded at a time',
      }),
  })
  .strict();
export type PrinterSpoolsInput = z.input<typeof printerSpoolsInputSchema>;

/**
 * Materials that need an enclosure (Prusa's material guide advises one for ABS, ASA, PC and PA:
 * shared/contracts/printers/materials.md): a job of these never goes to an open-frame printer.
 */
export const MATERIALS_NEEDING_ENCLOSURE: readonly PrinterSpool['material'][] = ['ABS', 'ASA', 'Nylon'];

/** At most this much G-code of the operator's own per printer (start or end). */
const MAX_CUSTOM_GCODE = 20_000;

/**
 * How a printer's jobs are sliced (issue 20): one of PrusaSlicer's bundled printer presets (its
 * bed, start and end G-code, firmware flavour; vendor bundles as installed), or the operator's own
 * start and end G-code for a printer the bundle lacks (PrusaSlicer placeholders such as
 * [first_layer_temperature] are filled in).
 */
export const printerSlicerProfileSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('bundled'),
      /** The vendor bundle (file name without .ini), e.g. PrusaResearch. */
      vendor: z.string().trim().regex(/^[A-Za-z0-9_-]{1,64}$/, 'A vendor bundle name like PrusaResearch'),
      /** The printer preset's name in that bundle, e.g. Original Prusa i3 MK3S. */
      preset: z.string().trim().min(1, 'Choose a printer preset').max(200),
    })
    .strict(),
  z
    .object({
      kind: z.literal('custom'),
      startGcode: z.string().max(MAX_CUSTOM_GCODE, 'The start G-code is too long (20,000 characters at most)'),
      endGcode: z.string().max(MAX_CUSTOM_GCODE, 'The end G-code is too long (20,000 characters at most)'),
    })
    .strict(),
  /** A Bambu Lab machine: its bed and start/end G-code from Bambu's profiles (docs/slicing-profiles.md). */
  z.object({ kind: z.literal('bambulab'), model: z.enum(BAMBULAB_MODELS, { message: 'Choose the Bambu Lab model' }) }).strict(),
]);
export type PrinterSlicerProfile = z.infer<typeof printerSlicerProfileSchema>;

/**
 * How a printer's bed is cleared between prints (issue 22, continuous printing; docs/print-farm.md
 * "Continuous printing"): a person (the default), the printer's own eject G-code run after each
 * print once the bed has cooled to its release temperature, or a plate changer. A printer that
 * clears itself goes on to its next plate without a person, at most `maxUnattendedPlates` plates in
 * a row; then a person looks at it (they confirm the bed clear, which starts the count again).
 */
const maxUnattendedPlates = z
  .number({ message: 'Enter how many plates it may print without a person' })
  .int('A whole number of plates')
  .min(1, 'At least one plate')
  .max(100, 'At most 100 plates without a person');
export const CLEARING_KINDS = ['person', 'eject_gcode', 'plate_changer'] as const;
export type ClearingKind = (typeof CLEARING_KINDS)[number];
export const printerClearingSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('person') }).strict(),
  z
    .object({
      kind: z.literal('eject_gcode'),
      /** What sweeps the part off (the operator's own moves); appended after the wait for the bed to cool. */
      gcode: z
        .string()
        .trim()
        .min(1, 'Enter the eject G-code')
        .max(MAX_CUSTOM_GCODE, 'The eject G-code is too long (20,000 characters at most)'),
      /** The bed temperature (°C) at or below which the part lets go; the printer waits for it before the sweep. */
      releaseTempC: z
        .number({ message: 'Enter the release temperature in °C' })
        .int('Whole degrees')
        .min(15, 'The release temperature must be between 15 and 80 °C')
        .max(80, 'The release temperature must be between 15 and 80 °C'),
      maxUnattendedPlates,
    })
    .strict(),
  z.object({ kind: z.literal('plate_changer'), maxUnattendedPlates }).strict(),
]);
export type PrinterClearing = z.infer<typeof printerClearingSchema>;

/** Whether the printer goes on to its next plate without a person. */
export const clearsItself = (clearing: PrinterClearing): boolean => clearing.kind !== 'person';

/** A power circuit shared by printers: at most `maxStarts` starts in any `perSeconds`. */
export const printerGroupInputSchema = z
  .object({
    name: z.string().trim().min(1, 'Name the group').max(60),
    maxStarts: z.number().int('A whole number of starts').min(1, 'At least one start').max(1000),
    perSeconds: z.number().int('Whole seconds').min(1, 'At least one second').max(86_400),
  })
  .strict();
export type PrinterGroupInput = z.input<typeof printerGroupInputSchema>;
export const printerGroupSchema = printerGroupInputSchema.extend({ id: z.string(), printerCount: z.number().int() });
export type PrinterGroup = z.infer<typeof printerGroupSchema>;

const buildAxis = (axis: string) =>
  z
    .number({ message: `Enter the build volume’s ${axis} in mm` })
    .min(10, `The build volume’s ${axis} must be at least 10 mm`)
    .max(2000, `The build volume’s ${axis} can be at most 2000 mm`);

const printerFields = {
  name: z.string().trim().min(1, 'Enter a name').max(100),
  model: z.string().trim().max(100).default(''),
  buildVolumeMm: z.object({ x: buildAxis('x'), y: buildAxis('y'), z: buildAxis('z') }).strict(),
  nozzleMm: z
    .number({ message: 'Enter the nozzle diameter in mm' })
    .min(0.1, 'The nozzle diameter must be between 0.1 and 2 mm')
    .max(2, 'The nozzle diameter must be between 0.1 and 2 mm'),
  tags: z
    .array(z.string().trim().min(1).max(40).regex(/^[^,]+$/, 'A tag may not contain a comma'))
    .max(20, 'At most 20 tags')
    .default([]),
  /** The materials it may print; ABS, ASA and Nylon also need `enclosed`. */
  materials: z
    .array(z.enum(SPOOL_MATERIALS))
    .min(1, 'Allow at least one material')
    .max(SPOOL_MATERIALS.length)
    .refine((list) => new Set(list).size === list.length, { message: 'Name each material once' })
    .default([...SPOOL_MATERIALS]),
  enclosed: z.boolean().default(false),
  /** Its power circuit (a printer group): starts are staggered within the group. Null: on its own. */
  groupId: z.string().uuid('Choose a printer group').nullable().default(null),
  /** How jobs are sliced for it. Null: Layerline's generic profile (see docs/printers.md). */
  slicerProfile: printerSlicerProfileSchema.nullable().default(null),
  /** How its bed is cleared between prints (continuous printing). */
  clearing: printerClearingSchema.default({ kind: 'person' }),
};

/** Creating a printer: the whole connection, secrets included. */
export const printerCreateInputSchema = z.object({ ...printerFields, connection: printerConnectionSchema }).strict();
export type PrinterCreateInput = z.input<typeof printerCreateInputSchema>;

/**
 * Editing a printer: the same fields, but the secret may be left out (an empty form field) to keep
 * the one stored, when the kind (and PrusaLink's auth kind) is unchanged. The server merges, then
 * checks the result against `printerConnectionSchema`.
 */
export const printerConnectionUpdateSchema = z.discriminatedUnion('kind', [
  octoprintConnectionSchema.extend({ apiKey: octoprintConnectionSchema.shape.apiKey.optional() }),
  moonrakerConnectionSchema,
  prusalinkConnectionSchema.extend({
    auth: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('api-key'), apiKey: z.string().max(256).optional() }).strict(),
      z.object({ kind: z.literal('digest'), username: z.string().max(256), password: z.string().max(256).optional() }).strict(),
    ]),
  }),
  simulatedConnectionSchema,
  bambulabConnectionSchema.extend({ accessCode: z.string().max(64).optional() }),
]);
export const printerUpdateInputSchema = z.object({ ...printerFields, connection: printerConnectionUpdateSchema }).strict();
export type PrinterUpdateInput = z.input<typeof printerUpdateInputSchema>;

/** A connection as the API shows it: every secret taken out (`secretSet` says whether one is stored). */
export const printerConnectionViewSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('octoprint'), baseUrl: z.string() }),
  z.object({ kind: z.literal('moonraker'), baseUrl: z.string() }),
  z.object({
    kind: z.literal('prusalink'),
    baseUrl: z.string(),
    storage: z.string(),
    auth: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('api-key') }),
      z.object({ kind: z.literal('digest'), username: z.string() }),
    ]),
  }),
  simulatedConnectionSchema,
  z.object({
    kind: z.literal('bambulab'),
    host: z.string(),
    serial: z.string(),
    model: z.enum(BAMBULAB_MODELS),
    mqttPort: z.number(),
    ftpsPort: z.number(),
  }),
]);
export type PrinterConnectionView = z.infer<typeof printerConnectionViewSchema>;

export const printerSchema = z.object({
  id: z.string(),
  name: z.string(),
  model: z.string(),
  buildVolumeMm: z.object({ x: z.number(), y: z.number(), z: z.number() }),
  nozzleMm: z.number(),
  status: z.enum(PRINTER_ADMIN_STATUSES),
  tags: z.array(z.string()),
  connection: printerConnectionViewSchema,
  /** Whether an API key or password is stored for this connection (it is never returned). */
  secretSet: z.boolean(),
  spools: z.array(spoolSchema),
  materials: z.array(z.enum(SPOOL_MATERIALS)),
  enclosed: z.boolean(),
  groupId: z.string().nullable(),
  slicerProfile: printerSlicerProfileSchema.nullable(),
  /** Why the farm asks a person to look at it (it takes no job until cleared), and since when; null when fine. */
  attention: z.string().nullable(),
  attentionAt: z.string().nullable(),
  /** What the printer said last (Test connection now, the poller later), and when; null before. */
  lastState: printerStatusSchema.nullable(),
  lastStateAt: z.string().nullable(),
  /** The last failure to reach it, in words, or null. */
  lastError: z.string().nullable(),
  /**
   * SHA-256 of the TLS certificate pinned on first contact (Bambu Lab printers), or null. A printer
   * that shows another certificate is refused until an admin trusts it again.
   */
  certificateSha256: z.string().nullable().optional(),
  bedConfirmedClear: z.boolean(),
  bedConfirmedBy: z.string().nullable(),
  bedConfirmedAt: z.string().nullable(),
  clearing: printerClearingSchema,
  /** Plates it cleared by itself since a person last confirmed its bed clear. */
  unattendedPlates: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Printer = z.infer<typeof printerSchema>;

export const printerTestResultSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), identity: printerIdentitySchema, status: printerStatusSchema.nullable() }),
  z.object({
    ok: z.literal(false),
    failure: z.object({ kind: z.enum(PRINTER_FAILURE_KINDS), message: z.string(), status: z.number().optional() }),
  }),
]);
export type PrinterTestResult = z.infer<typeof printerTestResultSchema>;
