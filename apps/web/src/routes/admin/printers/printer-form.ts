import {
  SPOOL_MATERIALS,
  type BambulabModel,
  type ClearingKind,
  type Printer,
  type PrinterClearing,
  type PrinterCreateInput,
  type PrinterKind,
  type PrinterSlicerProfile,
  type PrinterSpool,
} from '@layerline/contracts';

/** How a printer's jobs are sliced, as the dialog offers it. */
export type SlicerProfileChoice = 'generic' | 'bundled' | 'custom' | 'bambulab';

/** The add/edit dialog's fields, all as typed (strings), one set for every kind. */
export interface PrinterFormState {
  name: string;
  model: string;
  x: string;
  y: string;
  z: string;
  nozzleMm: string;
  tags: string;
  kind: PrinterKind;
  baseUrl: string;
  apiKey: string;
  prusaAuth: 'api-key' | 'digest';
  username: string;
  password: string;
  storage: string;
  speedFactor: string;
  offline: boolean;
  materials: PrinterSpool['material'][];
  enclosed: boolean;
  /** '' for no group. */
  groupId: string;
  profile: SlicerProfileChoice;
  /** The bundled preset, as `vendor/preset` ('' while none is chosen). */
  preset: string;
  startGcode: string;
  endGcode: string;
  /** A Bambu Lab printer: its IP, serial, LAN access code and model (the slicing profile's too). */
  bambuHost: string;
  bambuSerial: string;
  accessCode: string;
  bambuModel: BambulabModel;
  mqttPort: string;
  ftpsPort: string;
  /** How its bed is cleared between prints (continuous printing), and that method's settings as typed. */
  clearing: ClearingKind;
  ejectGcode: string;
  releaseTempC: string;
  maxUnattendedPlates: string;
}

/** A bundled preset's key in the form's select. */
export const presetKey = (vendor: string, preset: string) => `${vendor}/${preset}`;

export const emptyPrinterForm = (): PrinterFormState => ({
  name: '',
  model: '',
  x: '250',
  y: '210',
  z: '220',
  nozzleMm: '0.4',
  tags: '',
  kind: 'simulated',
  baseUrl: '',
  apiKey: '',
  prusaAuth: 'api-key',
  username: '',
  password: '',
  storage: 'usb',
  speedFactor: '60',
  offline: false,
  materials: [...SPOOL_MATERIALS],
  enclosed: false,
  groupId: '',
  profile: 'generic',
  preset: '',
  startGcode: '',
  endGcode: '',
  bambuHost: '',
  bambuSerial: '',
  accessCode: '',
  bambuModel: 'P1S',
  mqttPort: '8883',
  ftpsPort: '990',
  clearing: 'person',
  ejectGcode: '',
  releaseTempC: '30',
  maxUnattendedPlates: '10',
});

/** The form filled from a saved printer: its secret is never known here, so those fields start empty. */
export function printerFormFrom(printer: Printer): PrinterFormState {
  const form: PrinterFormState = {
    ...emptyPrinterForm(),
    name: printer.name,
    model: printer.model,
    x: String(printer.buildVolumeMm.x),
    y: String(printer.buildVolumeMm.y),
    z: String(printer.buildVolumeMm.z),
    nozzleMm: String(printer.nozzleMm),
    tags: printer.tags.join(', '),
    kind: printer.connection.kind,
    materials: [...printer.materials],
    enclosed: printer.enclosed,
    groupId: printer.groupId ?? '',
  };
  const profile = printer.slicerProfile;
  if (profile?.kind === 'bundled') {
    form.profile = 'bundled';
    form.preset = presetKey(profile.vendor, profile.preset);
  } else if (profile?.kind === 'custom') {
    form.profile = 'custom';
    form.startGcode = profile.startGcode;
    form.endGcode = profile.endGcode;
  } else if (profile?.kind === 'bambulab') {
    form.profile = 'bambulab';
    form.bambuModel = profile.model;
  }
  const clearing = printer.clearing;
  form.clearing = clearing.kind;
  if (clearing.kind === 'eject_gcode') {
    form.ejectGcode = clearing.gcode;
    form.releaseTempC = String(clearing.releaseTempC);
  }
  if (clearing.kind !== 'person') form.maxUnattendedPlates = String(clearing.maxUnattendedPlates);
  const c = printer.connection;
  if (c.kind === 'simulated') {
    form.speedFactor = String(c.speedFactor);
    form.offline = c.offline;
  } else if (c.kind === 'bambulab') {
    form.bambuHost = c.host;
    form.bambuSerial = c.serial;
    form.bambuModel = c.model;
    form.mqttPort = String(c.mqttPort);
    form.ftpsPort = String(c.ftpsPort);
  } else {
    form.baseUrl = c.baseUrl;
    if (c.kind === 'prusalink') {
      form.storage = c.storage;
      form.prusaAuth = c.auth.kind;
      if (c.auth.kind === 'digest') form.username = c.auth.username;
    }
  }
  return form;
}

/** A number as typed: an empty field becomes NaN, which the server refuses with the field's message. */
const num = (text: string): number => (text.trim() === '' ? Number.NaN : Number(text));
/** JSON has no NaN: send null so the server names the field ("Enter the nozzle diameter in mm"). */
const orNull = (value: number): number | null => (Number.isFinite(value) ? value : null);

/**
 * The request body (typed as a create; an edit is the same shape with the secret optional). On an edit an empty secret is left out, so the server keeps the stored one
 * (same kind); on create it is sent empty and the server says which one to enter.
 */
export function printerBody(form: PrinterFormState, editing: boolean): PrinterCreateInput {
  const secret = (value: string) => (editing && value === '' ? {} : { apiKey: value });
  let connection: Record<string, unknown>;
  switch (form.kind) {
    case 'octoprint':
      connection = { kind: 'octoprint', baseUrl: form.baseUrl, ...secret(form.apiKey) };
      break;
    case 'moonraker':
      connection = {
        kind: 'moonraker',
        baseUrl: form.baseUrl,
        ...(form.apiKey ? { apiKey: form.apiKey } : {}),
      };
      break;
    case 'prusalink':
      connection = {
        kind: 'prusalink',
        baseUrl: form.baseUrl,
        storage: form.storage,
        auth:
          form.prusaAuth === 'digest'
            ? {
                kind: 'digest',
                username: form.username,
                ...(editing && form.password === '' ? {} : { password: form.password }),
              }
            : { kind: 'api-key', ...secret(form.apiKey) },
      };
      break;
    case 'simulated':
      connection = { kind: 'simulated', speedFactor: orNull(num(form.speedFactor)), offline: form.offline };
      break;
    case 'bambulab':
      connection = {
        kind: 'bambulab',
        host: form.bambuHost,
        serial: form.bambuSerial,
        model: form.bambuModel,
        mqttPort: orNull(num(form.mqttPort)),
        ftpsPort: orNull(num(form.ftpsPort)),
        ...(editing && form.accessCode === '' ? {} : { accessCode: form.accessCode }),
      };
      break;
  }
  return {
    materials: form.materials,
    enclosed: form.enclosed,
    groupId: form.groupId === '' ? null : form.groupId,
    slicerProfile: slicerProfileOf(form),
    clearing: clearingOf(form),
    name: form.name,
    model: form.model,
    buildVolumeMm: { x: orNull(num(form.x)), y: orNull(num(form.y)), z: orNull(num(form.z)) },
    nozzleMm: orNull(num(form.nozzleMm)),
    tags: form.tags
      .split(',')
      .map((tag) => tag.trim())
      .filter(Boolean),
    connection,
  } as unknown as PrinterCreateInput;
}

/** The clearing to save; numbers as typed (the server names a missing or wrong one). */
function clearingOf(form: PrinterFormState): PrinterClearing {
  const maxUnattendedPlates = orNull(num(form.maxUnattendedPlates)) as number;
  switch (form.clearing) {
    case 'person':
      return { kind: 'person' };
    case 'plate_changer':
      return { kind: 'plate_changer', maxUnattendedPlates };
    case 'eject_gcode':
      return {
        kind: 'eject_gcode',
        gcode: form.ejectGcode,
        releaseTempC: orNull(num(form.releaseTempC)) as number,
        maxUnattendedPlates,
      };
  }
}

/** The slicer profile to save; a bundled choice with no preset picked is sent as such, and the server names it. */
function slicerProfileOf(form: PrinterFormState): PrinterSlicerProfile | null {
  switch (form.profile) {
    case 'generic':
      return null;
    case 'custom':
      return { kind: 'custom', startGcode: form.startGcode, endGcode: form.endGcode };
    case 'bambulab':
      return { kind: 'bambulab', model: form.bambuModel };
    case 'bundled': {
      const at = form.preset.indexOf('/');
      return {
        kind: 'bundled',
        vendor: form.preset.slice(0, Math.max(0, at)),
        preset: form.preset.slice(at + 1),
      };
    }
  }
}

/** A self-clearing printer in words for the printers list: "Clears itself by eject G-code (35 °C) · 2 of 10 plates without a person". */
export function clearingSummary(clearing: PrinterClearing, unattendedPlates: number): string {
  if (clearing.kind === 'person') return 'Cleared by a person';
  const how = clearing.kind === 'eject_gcode' ? `eject G-code (${clearing.releaseTempC} °C)` : 'plate changer';
  return `Clears itself by ${how} · ${unattendedPlates} of ${clearing.maxUnattendedPlates} plates without a person`;
}
