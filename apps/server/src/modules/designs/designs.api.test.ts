import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zip } from '../../../test/zip.ts';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { design } from '../../db/schema.ts';

const MODELS = path.resolve(import.meta.dirname, '../../../../../../shared/models');
const model = (name: string) => fs.readFileSync(path.join(MODELS, name));

async function upload(client: SignedInClient, fileName: string, bytes: Uint8Array, query = '') {
  const form = new FormData();
  form.append('file', new Blob([bytes]), fileName);
  const response = await fetch(new URL(`/api/designs${query}`, client.baseUrl), {
    method: 'POST',
    headers: { cookie: client.cookieHeader(), origin: client.baseUrl },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** Every file under the storage root, so a test can prove nothing was left behind. */
function storedFiles(t: TestApp): string[] {
  const root = t.context.config.storageDir;
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(root, f)).isFile());
}

let t: TestApp;
let seller: SignedInClient;
let other: SignedInClient;
let admin: SignedInClient;
let cubeId: string;

beforeAll(async () => {
  t = await startTestApp();
  seller = await t.signUp({ name: 'Cube Seller' });
  other = await t.signUp({ name: 'Other Seller' });
  admin = await t.signUp({ role: 'admin' });
});
afterAll(async () => {
  await t?.close();
});

describe('uploading a model', () => {
  it('stores, analyses and prices it at once', async () => {
    const { status, body } = await upload(seller, 'ps-20mm_cube.obj', model('ps-20mm_cube.obj'));
    expect(status).toBe(201);
    cubeId = body.id;
    expect(body).toMatchObject({ name: 'ps-20mm_cube', fileName: 'ps-20mm_cube.obj', format: 'obj', triangles: 12, ownerId: seller.userId });
    expect(body.volumeMm3).toBeCloseTo(8000, 0);
    expect(body.bboxMm).toEqual([20, 20, 20]);
    expect(body.printConfigs).toHaveLength(1);
    const quote = body.printConfigs[0].quote;
    expect(quote.basis).toBe('estimate');
    expect(quote.grams).toBeGreaterThan(2);
    expect(quote.grams).toBeLessThan(9.92); // a sliced cube weighs less than the solid 8 cm³ of PLA
    expect(quote.costUsd).toBeCloseTo(Math.round(quote.grams * 0.076 * 100) / 100, 1);
    expect(quote.breakdown.reduce((s: number, l: { amountUsd: number }) => s + l.amountUsd, 0)).toBeCloseTo(quote.costUsd, 5);
  });

  it('serves the file back as an attachment, byte for byte, with its metadata', async () => {
    const bytes = model('ps-20mm_cube.obj');
    const response = await fetch(new URL(`/api/designs/${cubeId}/file`, t.baseUrl), { headers: { cookie: seller.cookieHeader() } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''ps-20mm_cube.obj");
    expect(response.headers.get('content-type')).toBe('model/obj');
    expect(response.headers.get('content-security-policy')).toBe('sandbox');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
    const metadata = (await seller.get(`/api/designs/${cubeId}/metadata`)).body;
    expect(metadata).toMatchObject({ name: 'ps-20mm_cube.obj', size: bytes.length, contentType: 'model/obj', md5Hash: createHash('md5').update(bytes).digest('base64') });
  });

  it('renders a thumbnail and serves the viewer mesh', async () => {
    const png = await fetch(new URL(`/api/designs/${cubeId}/thumbnail.png`, t.baseUrl), { headers: { cookie: seller.cookieHeader() } });
    expect(png.headers.get('content-type')).toBe('image/png');
    const pngBytes = Buffer.from(await png.arrayBuffer());
    expect(pngBytes.subarray(1, 4).toString()).toBe('PNG');
    const mesh = await fetch(new URL(`/api/designs/${cubeId}/viewer-mesh`, t.baseUrl), { headers: { cookie: seller.cookieHeader() } });
    const buffer = Buffer.from(await mesh.arrayBuffer());
    const vertices = buffer.readUInt32LE(0);
    const triangles = buffer.readUInt32LE(4);
    expect(triangles).toBe(12);
    expect(vertices).toBe(8);
    expect(buffer.length).toBe(8 + vertices * 12 + triangles * 12);
  });

  it('names the problems of a broken mesh', async () => {
    const { status, body } = await upload(seller, 'sphere_with_hole.stl', model('assimp-sphere_with_hole.stl'));
    expect(status).toBe(201);
    expect(body.problems.length).toBeGreaterThan(0);
    expect(body.problems[0]).toEqual({ code: expect.any(String), severity: expect.any(String), message: expect.any(String), count: expect.any(Number) });
    const areas = (await seller.get(`/api/designs/${body.id}/problem-areas`)).body.areas;
    expect(areas.length).toBeGreaterThan(0);
    expect(areas[0].triangles.length).toBeGreaterThan(0);
  });
});

describe('refusing bad files, leaving nothing behind', () => {


  const cases: Array<[string, string, Buffer, number[]]> = [
    ['an HTML page renamed .stl', 'evil.stl', Buffer.from('<!doctype html><html><script>alert(1)</script></html>'), [415, 422]],
    ['a Windows program renamed .obj', 'setup.obj', Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200)]), [415, 422]],
    ['an empty file', 'empty.stl', Buffer.alloc(0), [422]],
    ['a zip that is not a 3MF', 'archive.3mf', zip({ '../../etc/passwd': 'root:x:0:0' }), [415, 422]],
    ['a binary STL whose size does not match its triangle count', 'short.stl', Buffer.concat([Buffer.alloc(80), Buffer.from([10, 0, 0, 0]), Buffer.alloc(50)]), [415, 422]],
  ];
  for (const [label, fileName, bytes, statuses] of cases) {
    it(`refuses ${label} with a readable reason`, async () => {
      const before = storedFiles(t);
      const { status, body } = await upload(seller, fileName, bytes);
      expect(statuses).toContain(status);
      expect(body.error).toContain(fileName);
      expect(storedFiles(t)).toEqual(before);
    });
  }

  it('never uses the uploaded name as a path', async () => {
    const { status, body } = await upload(seller, '../../../etc/cube.obj', model('ps-20mm_cube.obj'));
    expect(status).toBe(201);
    expect(body.fileName).toBe('cube.obj');
    expect(storedFiles(t).every((f) => /^(designs\/[0-9a-f-]{36}|thumbnails\/[0-9a-f-]{36}\.png)$/.test(f))).toBe(true);
  });

  it('refuses files over the upload limit with 413, leaving nothing', async () => {
    const small = await startTestApp({ MAX_UPLOAD_MB: '1' });
    try {
      const user = await small.signUp();
      const { status, body } = await upload(user, 'big.stl', model('i3-x-carriage.stl'));
      expect(status).toBe(413);
      expect(body.error).toEqual(expect.any(String));
      expect(storedFiles(small)).toEqual([]);
    } finally {
      await small.close();
    }
  });

  it('refuses uploads past the seller’s quota with 402, leaving nothing', async () => {
    const tight = await startTestApp({ STORAGE_QUOTA_MB: '1' });
    try {
      const user = await tight.signUp();
      const big = await upload(user, 'body.stl', model('i3-extruder-body.stl'));
      expect(big.status).toBe(402);
      expect(storedFiles(tight)).toEqual([]);
      expect((await upload(user, 'cube.obj', model('ps-20mm_cube.obj'))).status).toBe(201);
    } finally {
      await tight.close();
    }
  });
});

describe('who sees what', () => {
  it('keeps a seller’s designs from other sellers', async () => {
    const mine = (await seller.get('/api/designs')).body;
    expect(mine.items.map((d: { id: string }) => d.id)).toContain(cubeId);
    expect(mine.storage.usedBytes).toBeGreaterThan(0);
    const theirs = (await other.get('/api/designs')).body;
    expect(theirs.items).toEqual([]);
    for (const path of [`/api/designs/${cubeId}`, `/api/designs/${cubeId}/file`, `/api/designs/${cubeId}/thumbnail.png`, `/api/designs/${cubeId}/viewer-mesh`, `/api/designs/${cubeId}/metadata`]) {
      expect((await other.get(path)).status, path).toBe(404);
    }
    expect((await other.patch(`/api/designs/${cubeId}`, { name: 'stolen' })).status).toBe(404);
    expect((await other.delete(`/api/designs/${cubeId}`)).status).toBe(404);
    expect((await other.post('/api/estimate-print-cost', { filePath: cubeId })).status).toBe(404);
    expect((await other.get(`/api/designs?targetUserId=${seller.userId}`)).status).toBe(403);
    expect((await other.get('/api/admin/designs')).status).toBe(403);
  });

  it('lets admins see every seller’s designs and act for a seller, audited', async () => {
    const all = (await admin.get('/api/admin/designs')).body;
    const cube = all.items.find((d: { id: string }) => d.id === cubeId);
    expect(cube.ownerEmail).toBe(seller.email);
    expect((await admin.get(`/api/designs/${cubeId}`)).status).toBe(200);

    const forSeller = await upload(admin, 'plug.stl', model('i3-plug-aligner.stl'), `?targetUserId=${other.userId}`);
    expect(forSeller.status).toBe(201);
    expect(forSeller.body.ownerId).toBe(other.userId);
    const audit = (await admin.get('/api/admin/audit')).body.entries;
    expect(audit).toContainEqual(expect.objectContaining({ action: 'design.uploaded-for-user', actorId: admin.userId, targetUserId: other.userId }));
    expect((await upload(other, 'plug.stl', model('i3-plug-aligner.stl'), `?targetUserId=${seller.userId}`)).status).toBe(403);
  });
});

describe('print configurations and quotes', () => {
  it('prices each configuration, and a pricier filament costs more', async () => {
    const nylon = await seller.post(`/api/designs/${cubeId}/print-configs`, { name: 'Nylon', filament: 'Nylon' });
    expect(nylon.status).toBe(201);
    const pla = (await seller.get(`/api/designs/${cubeId}`)).body.printConfigs[0];
    expect(nylon.body.quote.costUsd).toBeGreaterThan(pla.quote.costUsd);

    const denser = await seller.patch(`/api/print-configs/${nylon.body.id}`, { infillPercent: 60 });
    expect(denser.status).toBe(200);
    expect(denser.body).toMatchObject({ filament: 'Nylon', name: 'Nylon', infillPercent: 60 });
    expect(denser.body.quote.grams).toBeGreaterThan(nylon.body.quote.grams);

    const withAddOns = await seller.patch(`/api/print-configs/${nylon.body.id}`, { addOns: { magnets: 2, threadedInserts: 0, gluing: 0, mechanicalFasteners: 0, electronics: 0, customPackaging: 1, multipartAssembly: 0 } });
    expect(withAddOns.body).toMatchObject({ filament: 'Nylon', infillPercent: 60 });
    expect(withAddOns.body.quote.costUsd).toBeCloseTo(denser.body.quote.costUsd + 2 * 0.35 + 1.5, 2);

    expect((await other.patch(`/api/print-configs/${nylon.body.id}`, { infillPercent: 5 })).status).toBe(404);
    expect((await seller.delete(`/api/print-configs/${nylon.body.id}`)).status).toBe(204);
    expect((await seller.delete(`/api/print-configs/${pla.id}`)).status).toBe(409);
  });

  it('answers what-if quotes (estimatePrintCostThreeJS) without saving', async () => {
    const pla = await seller.post('/api/estimate-print-cost', { filePath: cubeId });
    const tpu = await seller.post('/api/estimate-print-cost', { filePath: cubeId, filamentType: 'TPU', infillPercent: 40 });
    expect(pla.status).toBe(200);
    expect(pla.body.basis).toBe('estimate');
    expect(tpu.body.costUsd).toBeGreaterThan(pla.body.costUsd);
    expect((await seller.post('/api/estimate-print-cost', { filePath: cubeId, filamentType: 'Wood' })).status).toBe(400);
    const withMagnets = await seller.post('/api/estimate-print-cost', { filePath: cubeId, addOns: { magnets: 3 } });
    expect(withMagnets.body.costUsd).toBeCloseTo(pla.body.costUsd + 3 * 0.35, 2);
    expect((await seller.get(`/api/designs/${cubeId}`)).body.printConfigs).toHaveLength(1);
  });

  it('lets an admin set exact cost data, which the seller then sees', async () => {
    const config = (await seller.get(`/api/designs/${cubeId}`)).body.printConfigs[0];
    expect((await seller.post('/api/admin/cost-data', { configId: config.id, costData: { grams: 1, printSeconds: 1 } })).status).toBe(403);
    const set = await admin.post('/api/admin/cost-data', { configId: config.id, costData: { grams: 4.2, printSeconds: 1800, note: 'Weighed on the farm scale' } });
    expect(set.status).toBe(200);
    const seen = (await seller.get(`/api/designs/${cubeId}`)).body.printConfigs[0].quote;
    expect(seen).toMatchObject({ basis: 'admin', grams: 4.2, printSeconds: 1800, basisNote: 'Weighed on the farm scale' });
    expect(seen.costUsd).toBeCloseTo(4.2 * 0.076, 2);
  });

  it('uses the admin’s price table for every quote', async () => {
    const table = (await admin.get('/api/admin/price-table')).body;
    expect(table.filamentRateUsdPerGram.PLA).toBe(0.04);
    expect((await seller.request('PUT', '/api/admin/price-table', table, {})).status).toBe(403);
    const updated = await admin.request('PUT', '/api/admin/price-table', { ...table, minimumUsdPerPart: 5 }, {});
    expect(updated.status).toBe(200);
    const quote = await seller.post('/api/estimate-print-cost', { filePath: cubeId });
    expect(quote.body.costUsd).toBe(5);
    await admin.request('PUT', '/api/admin/price-table', table, {});
    const audit = (await admin.get('/api/admin/audit')).body.entries;
    expect(audit).toContainEqual(expect.objectContaining({ action: 'price-table.updated', actorId: admin.userId }));
  });
});

describe('deleting a design', () => {
  it('removes the design, its configurations and its files', async () => {
    const { body } = await upload(seller, 'to-delete.obj', model('ps-20mm_cube.obj'));
    await fetch(new URL(`/api/designs/${body.id}/thumbnail.png`, t.baseUrl), { headers: { cookie: seller.cookieHeader() } });
    expect(storedFiles(t).filter((f) => f.includes(body.id))).toHaveLength(2);
    expect((await seller.delete(`/api/designs/${body.id}`)).status).toBe(204);
    expect(storedFiles(t).filter((f) => f.includes(body.id))).toEqual([]);
    expect((await seller.get(`/api/designs/${body.id}`)).status).toBe(404);
  });
});

/** A valid binary STL of `cubes` separate 2 mm cubes in a row: 84 + 600 × cubes bytes. */
function cubesStl(cubes: number): Buffer {
  const corners = [
    [0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1],
  ];
  const faces = [
    [0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7], [0, 1, 5], [0, 5, 4],
    [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6], [3, 0, 4], [3, 4, 7],
  ];
  const out = Buffer.alloc(84 + 50 * 12 * cubes);
  out.writeUInt32LE(12 * cubes, 80);
  let at = 84;
  for (let c = 0; c < cubes; c++) {
    const x0 = (c % 32) * 3;
    const y0 = Math.floor(c / 32) * 3;
    for (const face of faces) {
      at += 12; // normal left at zero: readers recompute it
      for (const corner of face) {
        const [x, y, z] = corners[corner]!;
        out.writeFloatLE(x0 + x! * 2, at);
        out.writeFloatLE(y0 + y! * 2, at + 4);
        out.writeFloatLE(z! * 2, at + 8);
        at += 12;
      }
      at += 2;
    }
  }
  return out;
}

/** Uploads as a chunked stream, so the server cannot know the size in advance. */
async function uploadChunked(client: SignedInClient, fileName: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append('file', new Blob([bytes]), fileName);
  const encoded = new Response(form);
  const body = encoded.body!;
  const response = await fetch(new URL('/api/designs', client.baseUrl), {
    method: 'POST',
    headers: { cookie: client.cookieHeader(), origin: client.baseUrl, 'content-type': encoded.headers.get('content-type')! },
    body,
    duplex: 'half',
  } as RequestInit);
  return { status: response.status, body: (await response.json()) as any };
}

const storedBytes = (app: TestApp) =>
  storedFiles(app).reduce((sum, f) => sum + fs.statSync(path.join(app.context.config.storageDir, f)).size, 0);

describe('the storage quota under concurrent uploads', () => {
  const MB = 1024 * 1024;
  const file600k = cubesStl(1024); // 614,484 bytes: one fits in 1 MB, two do not
  let tight: TestApp;
  beforeAll(async () => {
    tight = await startTestApp({ STORAGE_QUOTA_MB: '1' });
  });
  afterAll(async () => {
    await tight?.close();
  });

  it('lets exactly one of four concurrent 600 KB uploads into a 1 MB quota', async () => {
    const user = await tight.signUp();
    const results = await Promise.all([1, 2, 3, 4].map((n) => upload(user, `part-${n}.stl`, file600k)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 402, 402, 402]);
    for (const refused of results.filter((r) => r.status === 402)) expect(refused.body.error).toMatch(/quota/);
    expect(storedBytes(tight)).toBeLessThanOrEqual(MB);
    const list = (await user.get('/api/designs')).body;
    expect(list.items).toHaveLength(1);
    expect(list.storage).toEqual({ usedBytes: file600k.length, quotaBytes: MB });
  });

  it('holds for uploads of unknown size (chunked) too', async () => {
    const user = await tight.signUp();
    const results = await Promise.all([1, 2, 3].map((n) => uploadChunked(user, `part-${n}.stl`, file600k)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 402, 402]);
    expect((await user.get('/api/designs')).body.storage.usedBytes).toBe(file600k.length);
  });

  it('gives the room back when an upload fails or a design is deleted', async () => {
    const user = await tight.signUp();
    const bad = Buffer.concat([Buffer.from('<!doctype html><html>'), Buffer.alloc(600_000, 0x20), Buffer.from('</html>')]);
    expect((await upload(user, 'page.stl', bad)).status).toBe(415);
    const first = await upload(user, 'first.stl', file600k);
    expect(first.status).toBe(201);
    expect((await upload(user, 'second.stl', file600k)).status).toBe(402);
    expect((await user.delete(`/api/designs/${first.body.id}`)).status).toBe(204);
    expect((await upload(user, 'third.stl', file600k)).status).toBe(201);
    expect((await user.get('/api/designs')).body.storage.usedBytes).toBe(file600k.length);
  });
});

describe('file names', () => {
  it('names the download after the format found in the bytes, not the uploaded extension', async () => {
    const stl = cubesStl(1);
    const cases: Array<[string, string]> = [
      ['model.html', 'model.html.stl'],
      ['bracket v1.2', 'bracket v1.2.stl'],
      ['part.obj', 'part.stl'],
      ['PART.STL', 'PART.STL'],
    ];
    for (const [uploaded, expected] of cases) {
      const { status, body } = await upload(seller, uploaded, stl);
      expect(status, uploaded).toBe(201);
      expect(body.fileName).toBe(expected);
      const response = await fetch(new URL(`/api/designs/${body.id}/file`, t.baseUrl), { headers: { cookie: seller.cookieHeader() } });
      expect(response.headers.get('content-disposition')).toBe(`attachment; filename*=UTF-8''${encodeURIComponent(expected)}`);
      expect(response.headers.get('content-type')).toBe('model/stl');
      await response.arrayBuffer();
    }
  });

  it('gives OBJ and 3MF files their own extension too, whatever they were uploaded as', async () => {
    const cases: Array<[string, Buffer, string, string]> = [
      ['cube.stl', model('ps-20mm_cube.obj'), 'cube.obj', 'model/obj'],
      ['page.html', model('ps-20mm_cube.obj'), 'page.html.obj', 'model/obj'],
      ['parts.stl', model('3mfs-components.3mf'), 'parts.3mf', 'model/3mf'],
      ['parts.html', model('3mfs-components.3mf'), 'parts.html.3mf', 'model/3mf'],
    ];
    for (const [uploaded, bytes, expected, contentType] of cases) {
      const { status, body } = await upload(seller, uploaded, bytes);
      expect(status, uploaded).toBe(201);
      expect(body.fileName, uploaded).toBe(expected);
      const response = await fetch(new URL(`/api/designs/${body.id}/file`, t.baseUrl), { headers: { cookie: seller.cookieHeader() } });
      expect(response.headers.get('content-disposition'), uploaded).toBe(`attachment; filename*=UTF-8''${encodeURIComponent(expected)}`);
      expect(response.headers.get('content-type'), uploaded).toBe(contentType);
      await response.arrayBuffer();
    }
  });

  it('cleans the name of a design stored before these rules when it is downloaded', async () => {
    const { body } = await upload(seller, 'legacy.stl', cubesStl(1));
    // As an older version stored it: the uploaded name, controls and extension untouched.
    await t.context.db.update(design).set({ fileName: 'inv\u202Eoice\u200B.html' }).where(eq(design.id, body.id));
    const file = await fetch(new URL(`/api/designs/${body.id}/file`, t.baseUrl), { headers: { cookie: seller.cookieHeader() } });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''invoice.html.stl");
    await file.arrayBuffer();
    expect((await seller.get(`/api/designs/${body.id}/metadata`)).body.name).toBe('invoice.html.stl');
  });

  it('strips bidi, zero-width and other control characters from names', async () => {
    const tricky = 'in\u202Evoice\u200B\u200C\u200D\u200E\u200F\u2066\u2067\u2068\u2069\uFEFF\u061C\u00AD\u0085\u2028lto.stl';
    const form = new FormData();
    form.append('name', 'Nice\u202E name\u200B');
    form.append('file', new Blob([cubesStl(1)]), tricky);
    const response = await fetch(new URL('/api/designs', seller.baseUrl), {
      method: 'POST',
      headers: { cookie: seller.cookieHeader(), origin: seller.baseUrl },
      body: form,
    });
    const body = (await response.json()) as any;
    expect(response.status).toBe(201);
    expect(body.fileName).toBe('invoicelto.stl');
    expect(body.name).toBe('Nice name');
    const listed = (await seller.get('/api/designs?search=invoicelto')).body.items;
    expect(listed.map((d: { fileName: string; name: string }) => [d.fileName, d.name])).toEqual([['invoicelto.stl', 'Nice name']]);
    const file = await fetch(new URL(`/api/designs/${body.id}/file`, t.baseUrl), { headers: { cookie: seller.cookieHeader() } });
    expect(file.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''invoicelto.stl");
    await file.arrayBuffer();
    const renamed = await seller.patch(`/api/designs/${body.id}`, { name: 'Re\u202Enamed\u200F' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Renamed');
  });
});

describe('OBJ face indices past any vertex count', () => {
  const cases: Array<[string, string]> = [
    ['4294967297', 'wraps to 1 in 32 bits'],
    ['9007199254740992', 'is 2^53'],
    ['3000000000', 'wraps to a negative number in 32 bits'],
  ];
  for (const [index, what] of cases) {
    it(`refuses an index that ${what} with 422 naming the line`, async () => {
      const obj = `# tetrahedron\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf ${index} 2 3\nf 1 2 4\nf 2 3 4\nf 3 1 4\n`;
      const { status, body } = await upload(seller, 'wrap.obj', Buffer.from(obj));
      expect(status).toBe(422);
      expect(body.error).toBe(`“wrap.obj” could not be used: OBJ: face index ${index} is out of range (a model has at most 4000000 vertices) on line 6.`);
    });
  }
});
