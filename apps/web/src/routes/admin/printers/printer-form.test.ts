import { describe, expect, it } from 'vitest';
import { printerConnectionSchema, printerCreateInputSchema, type Printer } from '@layerline/contracts';
import { emptyPrinterForm, printerBody, printerFormFrom } from './printer-form.ts';

const saved: Printer = {
  id: 'p1',
  name: 'MK4',
  model: 'Original Prusa MK4',
  buildVolumeMm: { x: 250, y: 210, z: 220 },
  nozzleMm: 0.4,
  status: 'active',
  tags: ['enclosed', 'fast'],
  connection: {
    kind: 'prusalink',
    baseUrl: 'http://10.0.0.5',
    storage: 'usb',
    auth: { kind: 'digest', username: 'maker' },
  },
  secretSet: true,
  spools: [],
  materials: ['PLA', 'PETG', 'ABS'],
  enclosed: true,
  groupId: null,
  slicerProfile: null,
  attention: null,
  attentionAt: null,
  lastState: null,
  lastStateAt: null,
  lastError: null,
  bedConfirmedClear: false,
  bedConfirmedBy: null,
  bedConfirmedAt: null,
  clearing: { kind: 'person' },
  unattendedPlates: 0,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

describe('the printer form', () => {
  it('adds a simulated printer by default, a body the server schema accepts', () => {
    const body = printerBody({ ...emptyPrinterForm(), name: 'Sim', tags: ' a, ,b ' }, false);
    expect(printerCreateInputSchema.parse(body)).toMatchObject({
      name: 'Sim',
      tags: ['a', 'b'],
      buildVolumeMm: { x: 250, y: 210, z: 220 },
      connection: { kind: 'simulated', speedFactor: 60, offline: false },
    });
  });

  it('leaves an empty secret out on edit (the server keeps the stored one), and sends a typed one', () => {
    const form = printerFormFrom(saved);
    expect(form).toMatchObject({
      kind: 'prusalink',
      prusaAuth: 'digest',
      username: 'maker',
      password: '',
      tags: 'enclosed, fast',
    });
    expect(printerBody(form, true).connection).toEqual({
      kind: 'prusalink',
      baseUrl: 'http://10.0.0.5',
      storage: 'usb',
      auth: { kind: 'digest', username: 'maker' },
    });
    const typed = printerBody({ ...form, password: 'pw' }, true).connection;
    expect(printerConnectionSchema.parse(typed)).toMatchObject({ auth: { kind: 'digest', password: 'pw' } });
  });

  it('sends an empty number as null so the server names the field', () => {
    const body = printerBody({ ...emptyPrinterForm(), name: 'X', nozzleMm: '' }, false);
    const result = printerCreateInputSchema.safeParse(body);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('Enter the nozzle diameter in mm');
  });

  it('sends the allowed materials, the enclosure, the group and the slicer profile, and reads them back', () => {
    const group = '6f1e8a52-3c1d-4a59-9a4e-0b6f3b2f1a10';
    const bundled = printerBody(
      {
        ...emptyPrinterForm(),
        name: 'MK3S',
        materials: ['PLA', 'ASA'],
        enclosed: true,
        groupId: group,
        profile: 'bundled',
        preset: 'PrusaResearch/Original Prusa i3 MK3S',
      },
      false,
    );
    expect(printerCreateInputSchema.parse(bundled)).toMatchObject({
      materials: ['PLA', 'ASA'],
      enclosed: true,
      groupId: group,
      slicerProfile: { kind: 'bundled', vendor: 'PrusaResearch', preset: 'Original Prusa i3 MK3S' },
    });
    const custom = printerBody(
      { ...emptyPrinterForm(), name: 'Core One', profile: 'custom', startGcode: 'G28', endGcode: 'M84' },
      false,
    );
    expect(printerCreateInputSchema.parse(custom)).toMatchObject({
      groupId: null,
      slicerProfile: { kind: 'custom', startGcode: 'G28', endGcode: 'M84' },
    });
    expect(
      printerCreateInputSchema.parse(printerBody({ ...emptyPrinterForm(), name: 'G' }, false)).slicerProfile,
    ).toBeNull();
    const back = printerFormFrom({
      ...saved,
      groupId: group,
      slicerProfile: { kind: 'custom', startGcode: 'G28', endGcode: 'M84' },
    });
    expect(back).toMatchObject({
      materials: ['PLA', 'PETG', 'ABS'],
      enclosed: true,
      groupId: group,
      profile: 'custom',
      startGcode: 'G28',
      endGcode: 'M84',
    });
    expect(printerFormFrom(saved)).toMatchObject({ groupId: '', profile: 'generic' });
  });

  it('adds a Bambu Lab printer with its serial, access code and model, sliced with its machine profile', () => {
    const form = {
      ...emptyPrinterForm(),
      name: 'P1S',
      kind: 'bambulab' as const,
      profile: 'bambulab' as const,
      bambuHost: '192.168.1.60',
      bambuSerial: '01S00C000000001',
      accessCode: '12345678',
      bambuModel: 'A1 mini' as const,
    };
    const body = printerCreateInputSchema.parse(printerBody(form, false));
    expect(body.connection).toEqual({ kind: 'bambulab', host: '192.168.1.60', serial: '01S00C000000001', accessCode: '12345678', model: 'A1 mini', mqttPort: 8883, ftpsPort: 990 });
    expect(body.slicerProfile).toEqual({ kind: 'bambulab', model: 'A1 mini' });
  });

  it('edits a Bambu Lab printer without sending the access code it does not know', () => {
    const form = printerFormFrom({
      ...saved,
      connection: { kind: 'bambulab', host: '192.168.1.60', serial: '01S00C000000001', model: 'P1S', mqttPort: 8883, ftpsPort: 990 },
      slicerProfile: { kind: 'bambulab', model: 'P1S' },
    });
    expect(form).toMatchObject({ kind: 'bambulab', profile: 'bambulab', bambuHost: '192.168.1.60', accessCode: '' });
    expect(printerBody(form, true).connection).not.toHaveProperty('accessCode');
  });

  it('sends the bed clearing (continuous printing) and reads it back', () => {
    const form = { ...emptyPrinterForm(), name: 'Ejector', clearing: 'eject_gcode' as const, ejectGcode: 'G1 Y200', releaseTempC: '28', maxUnattendedPlates: '6' };
    expect(printerCreateInputSchema.parse(printerBody(form, false)).clearing).toEqual({
      kind: 'eject_gcode',
      gcode: 'G1 Y200',
      releaseTempC: 28,
      maxUnattendedPlates: 6,
    });
    expect(printerCreateInputSchema.parse(printerBody({ ...emptyPrinterForm(), name: 'P' }, false)).clearing).toEqual({ kind: 'person' });
    const noTemp = printerCreateInputSchema.safeParse(printerBody({ ...form, releaseTempC: '' }, false));
    expect(noTemp.error?.issues[0]?.message).toBe('Enter the release temperature in °C');
    const back = printerFormFrom({ ...saved, clearing: { kind: 'plate_changer', maxUnattendedPlates: 12 } });
    expect(back).toMatchObject({ clearing: 'plate_changer', maxUnattendedPlates: '12' });
  });
});
