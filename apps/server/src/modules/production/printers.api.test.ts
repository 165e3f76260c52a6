import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { auditLog, printer } from '../../db/schema.ts';
import { boxStl } from '../../../test/hostile-models.ts';
import { createPrinterService } from './printer-service.ts';

/**
 * The farm's printers as data (issue 11, item 1): admin CRUD, pause/resume/retire, spools, the
 * sealed connection (never returned, kept when the form leaves it empty), Test connection against
 * the simulated printer and against addresses that cannot answer, and the designs module's build
 * volumes answered from the active printers. Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */

let t: TestApp;
let admin: SignedInClient;
let seller: SignedInClient;

const SECRET = 'octo-key-SECRET-4b1d9e';
const octoprint = (overrides: Record<string, unknown> = {}) => ({
  name: 'Prusa MK4 #1',
  model: 'Original Prusa MK4',
  buildVolumeMm: { x: 250, y: 210, z: 220 },
  nozzleMm: 0.4,
  tags: ['enclosed'],
  connection: { kind: 'octoprint', baseUrl: 'http://printer.invalid', apiKey: SECRET },
  ...overrides,
});
const simulated = (overrides: Record<string, unknown> = {}) => ({
  name: 'Sim 180',
  buildVolumeMm: { x: 180, y: 180, z: 180 },
  nozzleMm: 0.4,
  connection: { kind: 'simulated', speedFactor: 120 },
  ...overrides,
});

beforeAll(async () => {
  t = await startTestApp();
  [admin, seller] = await Promise.all([t.signUp({ role: 'admin' }), t.signUp({ role: 'beta' })]);
}, 60_000);
afterAll(async () => t?.close());

describe('printers (admin API)', () => {
  it('answers the build volume from the configured maximum while no printer is active', async () => {
    expect(await t.context.printerRepository.volumes()).toEqual([]);
    // startTestApp's configuration (MAX_BUILD_VOLUME_MM default).
    expect(await buildVolumes()).toEqual([t.context.config.models.maxBuildVolumeMm]);
  });

  it('creates a printer with its secret sealed at rest and never returned', async () => {
    const created = await admin.post('/api/admin/printers', octoprint());
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Prusa MK4 #1',
      status: 'active',
      buildVolumeMm: { x: 250, y: 210, z: 220 },
      connection: { kind: 'octoprint', baseUrl: 'http://printer.invalid' },
      secretSet: true,
      spools: [],
      lastState: null,
      bedConfirmedClear: false,
    });
    expect(JSON.stringify(created.body)).not.toContain(SECRET);
    expect(created.body.connection).not.toHaveProperty('apiKey');

    const [row] = await t.context.db.select().from(printer).where(eq(printer.id, created.body.id));
    expect(row!.connectionKind).toBe('octoprint');
    expect(JSON.stringify(row)).not.toContain(SECRET);
    expect(row!.connectionEnc).toMatch(/^v1\./);
    // Bound to its row: the sealed value copied to another printer does not open.
    const other = await admin.post('/api/admin/printers', simulated({ name: 'Copy target' }));
    const [otherRow] = await t.context.db.select().from(printer).where(eq(printer.id, other.body.id));
    expect(() =>
      t.context.printerRepository.connection({ ...otherRow!, connectionEnc: row!.connectionEnc }),
    ).toThrow(/integrity/);
    expect(t.context.printerRepository.connection(row!)).toMatchObject({ kind: 'octoprint', apiKey: SECRET });

    const listed = await admin.get('/api/admin/printers');
    expect(listed.status).toBe(200);
    expect(listed.body.map((p: { id: string }) => p.id)).toContain(created.body.id);
    expect(JSON.stringify(listed.body)).not.toContain(SECRET);
    const one = await admin.get(`/api/admin/printers/${created.body.id}`);
    // The state poller may have asked the (unreachable) printer meanwhile: all else reads back as created.
    const { lastState: _s1, lastStateAt: _t1, lastError: _e1, ...read } = one.body;
    const { lastState: _s2, lastStateAt: _t2, lastError: _e2, ...made } = created.body;
    expect(read).toEqual(made);

    const [entry] = await t.context.db
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, 'printer.create'))
      .limit(1);
    expect(entry).toBeDefined();
    expect(JSON.stringify(entry)).not.toContain(SECRET);
  });

  it('keeps the stored secret when an edit leaves it empty, and replaces it when one is entered', async () => {
    const created = await admin.post('/api/admin/printers', octoprint({ name: 'Keep secret' }));
    const edited = await put(admin, `/api/admin/printers/${created.body.id}`, {
      ...octoprint({ name: 'Kept secret', nozzleMm: 0.6 }),
      connection: { kind: 'octoprint', baseUrl: 'http://printer2.invalid' },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      name: 'Kept secret',
      nozzleMm: 0.6,
      connection: { baseUrl: 'http://printer2.invalid' },
      secretSet: true,
    });
    const stored = async () => {
      const [row] = await t.context.db.select().from(printer).where(eq(printer.id, created.body.id));
      return t.context.printerRepository.connection(row!);
    };
    expect(await stored()).toMatchObject({ apiKey: SECRET });

    await put(admin, `/api/admin/printers/${created.body.id}`, {
      ...octoprint(),
      connection: { kind: 'octoprint', baseUrl: 'http://printer2.invalid', apiKey: 'new-key' },
    });
    expect(await stored()).toMatchObject({ apiKey: 'new-key' });

    // Another kind needs its own secret: nothing to keep.
    const switched = await put(admin, `/api/admin/printers/${created.body.id}`, {
      ...octoprint(),
      connection: { kind: 'prusalink', baseUrl: 'http://mk4.invalid', auth: { kind: 'api-key' } },
    });
    expect(switched.status).toBe(422);
    expect(switched.body.error).toBe('connection.auth.apiKey: Enter the API key');
  });

  it('refuses bad input with readable messages', async () => {
    const cases: [Record<string, unknown>, number, RegExp][] = [
      [octoprint({ name: '' }), 400, /name: Enter a name/],
      [
        octoprint({ buildVolumeMm: { x: 5, y: 210, z: 220 } }),
        400,
        /buildVolumeMm\.x: The build volume’s x must be at least 10 mm/,
      ],
      [octoprint({ nozzleMm: 7 }), 400, /nozzleMm: The nozzle diameter must be between 0.1 and 2 mm/],
      [
        octoprint({ connection: { kind: 'octoprint', baseUrl: 'ftp://printer', apiKey: 'k' } }),
        400,
        /must start with http/,
      ],
      [octoprint({ connection: { kind: 'octoprint', baseUrl: 'http://printer' } }), 400, /apiKey/],
      [octoprint({ connection: { kind: 'fax', baseUrl: 'http://printer' } }), 400, /connection/],
      [octoprint({ ownerId: 'x' }), 400, /./],
    ];
    for (const [body, status, message] of cases) {
      const response = await admin.post('/api/admin/printers', body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.body.error).toMatch(message);
    }
    const missing = await admin.get('/api/admin/printers/00000000-0000-4000-8000-000000000000');
    expect(missing).toMatchObject({ status: 404, body: { error: 'Printer not found' } });
    const badId = await admin.get('/api/admin/printers/not-a-uuid');
    expect(badId.status).toBe(400);
  });

  it('sets spools, refusing two loaded at once and unknown materials', async () => {
    const created = await admin.post('/api/admin/printers', simulated({ name: 'Spool holder' }));
    const spools = [
      { material: 'PLA', colourName: 'Signal white', colourHex: '#f4f4f4', gramsLeft: 820, loaded: true },
      { material: 'PETG', colourName: 'Ocean blue', colourHex: '#1e88e5', gramsLeft: 300 },
    ];
    const set = await put(admin, `/api/admin/printers/${created.body.id}/spools`, { spools });
    expect(set.status).toBe(200);
    expect(set.body.spools).toEqual([spools[0], { ...spools[1], loaded: false }]);

    const twoLoaded = await put(admin, `/api/admin/printers/${created.body.id}/spools`, {
      spools: spools.map((s) => ({ ...s, loaded: true })),
    });
    expect(twoLoaded.status).toBe(400);
    expect(twoLoaded.body.error).toMatch(/Only one spool can be loaded at a time/);
    const wood = await put(admin, `/api/admin/printers/${created.body.id}/spools`, {
      spools: [{ ...spools[0], material: 'Wood' }],
    });
    expect(wood.status).toBe(400);
    expect(wood.body.error).toMatch(/Choose a material/);
    const negative = await put(admin, `/api/admin/printers/${created.body.id}/spools`, {
      spools: [{ ...spools[0], gramsLeft: -1 }],
    });
    expect(negative.body.error).toMatch(/Grams left cannot be negative/);
  });

  it('pauses, resumes and retires; a retired printer is kept and cannot be changed', async () => {
    const created = await admin.post('/api/admin/printers', simulated({ name: 'Lifecycle' }));
    const id = created.body.id as string;
    expect((await admin.post(`/api/admin/printers/${id}/pause`)).body.status).toBe('paused');
    expect((await admin.post(`/api/admin/printers/${id}/resume`)).body.status).toBe('active');
    const retired = await admin.post(`/api/admin/printers/${id}/retire`);
    expect(retired).toMatchObject({ status: 200, body: { status: 'retired' } });
    expect((await admin.get(`/api/admin/printers/${id}`)).body.status).toBe('retired');
    const resume = await admin.post(`/api/admin/printers/${id}/resume`);
    expect(resume.status).toBe(409);
    expect(resume.body.error).toMatch(/retired/);
    expect((await put(admin, `/api/admin/printers/${id}`, simulated())).status).toBe(409);
    // The guard is in the write itself: one that read the printer before the retire changes nothing.
    const repository = t.context.printerRepository;
    expect(await repository.setStatus(id, 'active')).toBeUndefined();
    expect(await repository.setSpools(id, [])).toBeUndefined();
    expect((await admin.get(`/api/admin/printers/${id}`)).body.status).toBe('retired');
    const actions = (await t.context.db.select().from(auditLog))
      .filter((e) => (e.detail as { printerId?: string }).printerId === id)
      .map((e) => e.action);
    expect(actions.sort()).toEqual(['printer.create', 'printer.pause', 'printer.resume', 'printer.retire']);
  });

  it('a write that read the printer before another admin retired it answers 409 and changes nothing', async () => {
    // The interleaving made certain: the real service and repository on the real database, with the
    // retire slipped in between the service's read of the printer and its write.
    const real = t.context.printerRepository;
    const created = await admin.post('/api/admin/printers', simulated({ name: 'Retired meanwhile' }));
    const id = created.body.id as string;
    const service = createPrinterService({
      repository: {
        ...real,
        find: async (printerId: string) => {
          const row = await real.find(printerId);
          if (row?.status !== 'retired') await real.setStatus(printerId, 'retired');
          return row;
        },
      },
      drivers: () => {
        throw new Error('not used');
      },
      audit: t.context.audit,
    });
    const actor = { id: admin.userId };
    const attempts: [string, () => Promise<unknown>][] = [
      ['pause', () => service.setStatus(actor, id, 'paused')],
      ['spools', () => service.setSpools(actor, id, [])],
      [
        'edit',
        () =>
          service.update(actor, id, {
            ...simulated(),
            model: '',
            tags: [],
            materials: ['PLA'],
            enclosed: false,
            groupId: null,
            slicerProfile: null,
            connection: { kind: 'simulated' },
          } as never),
      ],
    ];
    for (const [what, attempt] of attempts) {
      await t.context.db.update(printer).set({ status: 'active' }).where(eq(printer.id, id));
      await expect(attempt(), what).rejects.toMatchObject({
        code: 'conflict',
        message: expect.stringMatching(/retired/),
      });
      const [row] = await t.context.db.select().from(printer).where(eq(printer.id, id));
      expect(row!.status, what).toBe('retired');
      expect(row!.name, what).toBe('Retired meanwhile');
    }
  });

  it('tests the connection of a simulated printer and records its state', async () => {
    const created = await admin.post('/api/admin/printers', simulated({ name: 'Sim test' }));
    const result = await admin.post(`/api/admin/printers/${created.body.id}/test`);
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      ok: true,
      identity: { kind: 'simulated' },
      status: { state: 'idle' },
    });
    const after = await admin.get(`/api/admin/printers/${created.body.id}`);
    expect(after.body).toMatchObject({ lastState: { state: 'idle' }, lastError: null });
    expect(after.body.lastStateAt).not.toBeNull();

    const offline = await admin.post(
      '/api/admin/printers',
      simulated({ name: 'Sim offline', connection: { kind: 'simulated', offline: true } }),
    );
    const failed = await admin.post(`/api/admin/printers/${offline.body.id}/test`);
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ ok: false, failure: { kind: 'unreachable' } });
  });

  it('answers an unreachable or refused address in words, not a 500', async () => {
    const cases: [string, string, RegExp][] = [
      ['http://printer.invalid', 'unreachable', /./],
      ['http://169.254.169.254', 'not_allowed', /link-local/],
      ['http://127.0.0.1:7125', 'not_allowed', /this server itself/],
    ];
    for (const [baseUrl, kind, message] of cases) {
      // Forbidden addresses are refused when saved (issue 21; printer-address-on-save.api.test.ts), so
      // these are stored as a printer saved before that check was: the call is still refused.
      const created = await t.context.printerRepository.create({
        name: `Unreachable ${kind}`,
        model: 'Original Prusa MK4',
        buildVolumeMm: { x: 250, y: 210, z: 220 },
        nozzleMm: 0.4,
        tags: [],
        materials: [],
        enclosed: false,
        groupId: null,
        slicerProfile: null,
        connection: { kind: 'octoprint', baseUrl, apiKey: SECRET },
      });
      const result = await admin.post(`/api/admin/printers/${created.id}/test`);
      expect(result.status, baseUrl).toBe(200);
      expect(result.body.ok).toBe(false);
      expect(result.body.failure.kind, baseUrl).toBe(kind);
      expect(result.body.failure.message).toMatch(message);
      expect(result.body.failure.message).not.toContain(SECRET);
      const after = await admin.get(`/api/admin/printers/${created.id}`);
      expect(after.body.lastError).toBe(result.body.failure.message);
    }
  }, 60_000);

  it('refuses sellers and signed-out callers', async () => {
    const created = await admin.post('/api/admin/printers', simulated({ name: 'Forbidden' }));
    const id = created.body.id as string;
    const calls = [
      () => seller.get('/api/admin/printers'),
      () => seller.post('/api/admin/printers', simulated()),
      () => seller.get(`/api/admin/printers/${id}`),
      () => put(seller, `/api/admin/printers/${id}`, simulated()),
      () => seller.post(`/api/admin/printers/${id}/pause`),
      () => seller.post(`/api/admin/printers/${id}/retire`),
      () => put(seller, `/api/admin/printers/${id}/spools`, { spools: [] }),
      () => seller.post(`/api/admin/printers/${id}/test`),
    ];
    for (const call of calls) expect((await call()).status).toBe(403);
    expect((await t.client().get('/api/admin/printers')).status).toBe(401);
    expect((await admin.get(`/api/admin/printers/${id}`)).body.status).toBe('active');
  });

  it('answers the build volumes from the active printers (paused and retired left out)', async () => {
    // Every printer made so far: retire or pause them, then build a known farm.
    for (const p of (await admin.get('/api/admin/printers')).body as { id: string; status: string }[]) {
      if (p.status !== 'retired') await admin.post(`/api/admin/printers/${p.id}/retire`);
    }
    expect(await buildVolumes()).toEqual([t.context.config.models.maxBuildVolumeMm]);
    await admin.post(
      '/api/admin/printers',
      simulated({ name: 'V1', buildVolumeMm: { x: 180, y: 180, z: 180 } }),
    );
    await admin.post(
      '/api/admin/printers',
      simulated({ name: 'V2', buildVolumeMm: { x: 350, y: 350, z: 350 } }),
    );
    const paused = await admin.post(
      '/api/admin/printers',
      simulated({ name: 'V3', buildVolumeMm: { x: 500, y: 500, z: 500 } }),
    );
    await admin.post(`/api/admin/printers/${paused.body.id}/pause`);
    expect(sorted(await buildVolumes())).toEqual([
      [180, 180, 180],
      [350, 350, 350],
    ]);
    await admin.post(`/api/admin/printers/${paused.body.id}/resume`);
    expect(sorted(await buildVolumes())).toEqual([
      [180, 180, 180],
      [350, 350, 350],
      [500, 500, 500],
    ]);
  });
});

describe('uploads checked against the farm', () => {
  it('accepts a model that fits an active printer and refuses it, naming the bed, once that printer is retired', async () => {
    for (const p of (await admin.get('/api/admin/printers')).body as { id: string; status: string }[]) {
      if (p.status !== 'retired') await admin.post(`/api/admin/printers/${p.id}/retire`);
    }
    const small = await admin.post(
      '/api/admin/printers',
      simulated({ name: 'Small bed', buildVolumeMm: { x: 180, y: 180, z: 180 } }),
    );
    const large = await admin.post(
      '/api/admin/printers',
      simulated({ name: 'Large bed', buildVolumeMm: { x: 350, y: 350, z: 350 } }),
    );
    expect([small.status, large.status]).toEqual([201, 201]);
    const plate = boxStl(300, 300, 20);

    const fits = await upload(seller, 'plate.stl', plate);
    expect(fits.status, JSON.stringify(fits.body)).toBe(201);

    await admin.post(`/api/admin/printers/${large.body.id}/retire`);
    const refused = await upload(seller, 'plate-again.stl', plate);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatch(/300 × 300 × 20 mm/);
    expect(refused.body.error).toMatch(/180 × 180 × 180 mm/);

    // No active printer at all: the configured maximum (400 × 400 × 450 in tests) applies again.
    await admin.post(`/api/admin/printers/${small.body.id}/retire`);
    expect((await upload(seller, 'plate-third.stl', plate)).status).toBe(201);
  }, 60_000);
});

async function upload(client: SignedInClient, fileName: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>]), fileName);
  const response = await fetch(new URL('/api/designs', client.baseUrl), {
    method: 'POST',
    headers: { cookie: client.cookieHeader(), origin: client.baseUrl },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as { error?: string } };
}

/** What the model worker asks before analysing an upload (the BuildVolumes port app-context wires into it). */
const buildVolumes = async (): Promise<number[][]> =>
  (await t.context.buildVolumes.list()).map((v) => [...v]);
const sorted = (volumes: number[][]) => [...volumes].sort((a, b) => a[0]! - b[0]!);
const put = (client: SignedInClient, url: string, body: unknown) => client.request<any>('PUT', url, body, {});

describe('a real OctoPrint connection on this machine (PRINTER_ALLOW_LOOPBACK)', () => {
  it('sends the opened key to the printer, keeps it across an edit, and reads a refused key in words', async () => {
    const seen: (string | undefined)[] = [];
    const octo = http.createServer((request, response) => {
      const key = request.headers['x-api-key'] as string | undefined;
      seen.push(key);
      response.setHeader('content-type', 'application/json');
      if (key !== 'right-key') {
        response.statusCode = 403;
        response.end(JSON.stringify({ error: 'Forbidden' }));
      } else if (request.url === '/api/version') {
        response.end(JSON.stringify({ api: '0.1', server: '1.10.2', text: 'OctoPrint 1.10.2' }));
      } else {
        response.statusCode = 404;
        response.end('{}');
      }
    });
    await new Promise<void>((resolve) => octo.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(octo.address() as AddressInfo).port}`;
    const local = await startTestApp({ PRINTER_ALLOW_LOOPBACK: 'true' });
    try {
      const localAdmin = await local.signUp({ role: 'admin' });
      const created = await localAdmin.post(
        '/api/admin/printers',
        octoprint({
          name: 'Local OctoPrint',
          connection: { kind: 'octoprint', baseUrl, apiKey: 'right-key' },
        }),
      );
      const ok = await localAdmin.post(`/api/admin/printers/${created.body.id}/test`);
      expect(ok.body).toMatchObject({
        ok: true,
        identity: { kind: 'octoprint', software: 'OctoPrint 1.10.2' },
      });
      expect(seen.at(-1)).toBe('right-key');

      // Edited without re-entering the key: the printer still gets it.
      await put(localAdmin, `/api/admin/printers/${created.body.id}`, {
        ...octoprint({ name: 'Local OctoPrint (renamed)' }),
        connection: { kind: 'octoprint', baseUrl },
      });
      const still = await localAdmin.post(`/api/admin/printers/${created.body.id}/test`);
      expect(still.body.ok).toBe(true);

      await put(localAdmin, `/api/admin/printers/${created.body.id}`, {
        ...octoprint(),
        connection: { kind: 'octoprint', baseUrl, apiKey: 'wrong-key' },
      });
      const refused = await localAdmin.post(`/api/admin/printers/${created.body.id}/test`);
      expect(refused.status).toBe(200);
      expect(refused.body).toMatchObject({ ok: false, failure: { kind: 'auth_refused' } });
      expect(refused.body.failure.message).not.toContain('wrong-key');
    } finally {
      await local.close();
      await new Promise((resolve) => octo.close(resolve));
    }
  }, 60_000);
});

describe('a printer’s materials, enclosure, power group and slicer profile (issue 20)', () => {
  const auditOf = async (action: string) =>
    t.context.db.select().from(auditLog).where(eq(auditLog.action, action));

  it('creates and edits a printer with allowed materials, an enclosure, a group and a slicer profile', async () => {
    const group = await admin.post('/api/admin/printer-groups', { name: 'Circuit A', maxStarts: 3, perSeconds: 60 });
    expect(group.status).toBe(201);
    expect(group.body).toMatchObject({ name: 'Circuit A', maxStarts: 3, perSeconds: 60, printerCount: 0 });
    const created = await admin.post(
      '/api/admin/printers',
      simulated({
        name: 'Enclosed MK3S',
        materials: ['PLA', 'ABS'],
        enclosed: true,
        groupId: group.body.id,
        slicerProfile: { kind: 'bundled', vendor: 'PrusaResearch', preset: 'Original Prusa i3 MK3S' },
      }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      materials: ['PLA', 'ABS'],
      enclosed: true,
      groupId: group.body.id,
      slicerProfile: { kind: 'bundled', vendor: 'PrusaResearch', preset: 'Original Prusa i3 MK3S' },
      attention: null,
    });
    // Defaults: every material, open frame, no group, Layerline's generic profile.
    const plain = await admin.post('/api/admin/printers', simulated({ name: 'Plain' }));
    expect(plain.body).toMatchObject({ materials: ['PLA', 'PETG', 'ABS', 'ASA', 'TPU', 'Nylon'], enclosed: false, groupId: null, slicerProfile: null });
    const custom = { kind: 'custom', startGcode: 'G28 ; home\nG29 ; mesh', endGcode: 'M104 S0\nM140 S0' };
    const edited = await put(admin, `/api/admin/printers/${created.body.id}`, simulated({ name: 'Enclosed MK3S', materials: ['PETG'], enclosed: false, groupId: null, slicerProfile: custom }));
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ materials: ['PETG'], enclosed: false, groupId: null, slicerProfile: custom });
  });

  it('refuses bad materials and a malformed slicer profile (400), and an unknown group (422), in words', async () => {
    const cases: [Record<string, unknown>, RegExp, number][] = [
      [{ materials: [] }, /at least one material/i, 400],
      [{ materials: ['PLA', 'PLA'] }, /each material once/i, 400],
      [{ materials: ['Wood'] }, /materials/, 400],
      [{ groupId: 'not-a-uuid' }, /printer group/i, 400],
      [{ groupId: crypto.randomUUID() }, /That printer group does not exist/, 422],
      [{ slicerProfile: { kind: 'bundled', vendor: 'Prusa Research!', preset: 'MK3S' } }, /vendor bundle name/, 400],
      [{ slicerProfile: { kind: 'custom', startGcode: 'x'.repeat(20_001), endGcode: '' } }, /start G-code is too long/, 400],
    ];
    for (const [fields, message, status] of cases) {
      const refused = await admin.post('/api/admin/printers', simulated({ name: 'Bad', ...fields }));
      expect(refused.status, JSON.stringify(fields)).toBe(status);
      expect(JSON.stringify(refused.body)).toMatch(message);
    }
  });

  it('keeps power groups: list with counts, edit, a unique name, audit, and delete leaves its printers ungrouped', async () => {
    const group = (await admin.post('/api/admin/printer-groups', { name: 'Circuit B', maxStarts: 2, perSeconds: 120 })).body;
    const member = (await admin.post('/api/admin/printers', simulated({ name: 'In B', groupId: group.id }))).body;
    expect((await admin.get('/api/admin/printer-groups')).body.find((g: any) => g.id === group.id)).toMatchObject({ printerCount: 1 });
    const edited = await put(admin, `/api/admin/printer-groups/${group.id}`, { name: 'Circuit B (kitchen)', maxStarts: 4, perSeconds: 60 });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ name: 'Circuit B (kitchen)', maxStarts: 4, perSeconds: 60, printerCount: 1 });
    expect((await admin.post('/api/admin/printer-groups', { name: 'Circuit B (kitchen)', maxStarts: 1, perSeconds: 60 })).status).toBe(409);
    expect((await admin.post('/api/admin/printer-groups', { name: 'Zero', maxStarts: 0, perSeconds: 60 })).status).toBe(400);
    expect((await put(admin, `/api/admin/printer-groups/${crypto.randomUUID()}`, { name: 'Gone', maxStarts: 1, perSeconds: 60 })).status).toBe(404);
    const removed = await admin.request('DELETE', `/api/admin/printer-groups/${group.id}`, undefined, {});
    expect(removed.status).toBe(204);
    expect((await admin.get(`/api/admin/printers/${member.id}`)).body.groupId).toBeNull();
    expect((await admin.request('DELETE', `/api/admin/printer-groups/${group.id}`, undefined, {})).status).toBe(404);
    for (const action of ['printer-group.create', 'printer-group.update', 'printer-group.delete'])
      expect((await auditOf(action)).some((a) => (a.detail as { groupId?: string }).groupId === group.id), action).toBe(true);
    expect((await seller.get('/api/admin/printer-groups')).status).toBe(403);
  });

  it('flags a printer for a person (the time of the first flag kept) and clears it, audited', async () => {
    const id = (await admin.post('/api/admin/printers', simulated({ name: 'Flagged' }))).body.id as string;
    const repository = t.context.printerRepository;
    await repository.flagAttention(id, 'The printer answered “BOOTLOADER”, a state Layerline does not know');
    const first = (await repository.find(id))!.attentionAt!;
    await new Promise((r) => setTimeout(r, 20));
    await repository.flagAttention(id, 'The printer answered “BOOTLOADER”, a state Layerline does not know');
    expect((await repository.find(id))!.attentionAt!.getTime()).toBe(first.getTime());
    await repository.flagAttention(id, 'The API key may not start prints');
    const reflagged = (await admin.get(`/api/admin/printers/${id}`)).body;
    expect(reflagged.attention).toBe('The API key may not start prints');
    expect(new Date(reflagged.attentionAt).getTime()).toBeGreaterThan(first.getTime());

    expect((await seller.post(`/api/admin/printers/${id}/clear-attention`, {})).status).toBe(403);
    const cleared = await admin.post(`/api/admin/printers/${id}/clear-attention`, {});
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ attention: null, attentionAt: null });
    expect(await repository.clearAttention(id)).toBe(false);
    expect((await auditOf('printer.clear-attention')).filter((a) => (a.detail as { printerId: string }).printerId === id)).toHaveLength(1);
    expect((await admin.post(`/api/admin/printers/${crypto.randomUUID()}/clear-attention`, {})).status).toBe(404);
    await admin.post(`/api/admin/printers/${id}/retire`, {});
    expect((await admin.post(`/api/admin/printers/${id}/clear-attention`, {})).status).toBe(409);
  });
});
