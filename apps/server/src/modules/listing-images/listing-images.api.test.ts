import fs from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listingImageSet } from '../../db/schema.ts';
import { detectPrusaSlicer } from '../../integrations/prusa-slicer/prusa-slicer.ts';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';

/**
 * Listing images (issue 24, point 5) through the real server, job queue, PrusaSlicer and database:
 * a configuration's exact slice is followed by its renders (four 2000 × 2000 PNGs in its colour),
 * which its owner downloads one by one or zipped; a new colour re-slices and re-renders (the old
 * files go); what others may see; asking again for images that went missing.
 * Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */

const MODELS = path.resolve(import.meta.dirname, '../../../../../../shared/models');
const slicer = await detectPrusaSlicer();

let t: TestApp;
let seller: SignedInClient;
let other: SignedInClient;
let admin: SignedInClient;
let productId: string;
let configId: string;
let designId: string;

async function upload(client: SignedInClient, fileName: string) {
  const form = new FormData();
  form.append('file', new Blob([fs.readFileSync(path.join(MODELS, fileName))]), fileName);
  const response = await fetch(new URL('/api/designs', client.baseUrl), { method: 'POST', headers: { cookie: client.cookieHeader(), origin: client.baseUrl }, body: form });
  expect(response.status).toBe(201);
  return (await response.json()) as any;
}

async function download(client: SignedInClient, url: string) {
  const response = await fetch(new URL(url, client.baseUrl), { headers: { cookie: client.cookieHeader() } });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** The product's first set once it is done (or failed) at the configuration's current version. */
async function setWhenRendered(version?: number) {
  for (let i = 0; i < 240; i++) {
    const body = (await seller.get(`/api/products/${productId}/listing-images`)).body;
    const set = body.variants[0].sets[0];
    if ((set.status === 'done' || set.status === 'failed') && (version === undefined || set.settingsVersion === version)) return set;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('the listing images did not come in 60 s');
}

/** The picture's centre pixel and a corner one. */
async function centreAndCorner(png: Buffer) {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
  return { centre: at(info.width / 2, info.height / 2), corner: at(5, 5), width: info.width, height: info.height };
}

describe.skipIf(!slicer.available)('listing images after the exact slice', () => {
  beforeAll(async () => {
    t = await startTestApp({ SLICING: 'auto', MODEL_JOB_CPU_S: '120' });
    [seller, other, admin] = await Promise.all([t.signUp({ name: 'Image Seller' }), t.signUp(), t.signUp({ role: 'admin' })]);
    const design = await upload(seller, 'ps-20mm_cube.obj');
    configId = design.printConfigs[0].id;
    designId = design.id;
    const recoloured = await seller.request<any>('PATCH', `/api/print-configs/${configId}`, { colour: '#2563eb' }, {});
    expect(recoloured.status).toBe(200);
    const product = await seller.post('/api/products', { name: 'Blue cube', variants: [{ name: 'Blue', sku: 'LI-BLUE', parts: [{ printConfigId: configId, quantity: 1 }] }] });
    expect(product.status).toBe(201);
    productId = product.body.id;
  }, 60_000);
  afterAll(async () => t?.close());

  it('renders four 2000 × 2000 PNGs in the configuration’s colour on a neutral background', async () => {
    const set = await setWhenRendered();
    expect(set).toMatchObject({ printConfigId: configId, colour: '#2563eb', status: 'done', error: null });
    expect(set.images.map((i: any) => i.angle)).toEqual(['front', 'right', 'back', 'top']);
    const front = await download(seller, set.images[0].url);
    expect(front.status).toBe(200);
    expect(front.headers.get('content-type')).toBe('image/png');
    expect(front.headers.get('content-disposition')).toMatch(/^attachment; filename=".+-front\.png"$/);
    const { centre, corner, width, height } = await centreAndCorner(front.bytes);
    expect([width, height]).toEqual([2000, 2000]);
    expect(centre[2]!).toBeGreaterThan(centre[0]! + 80); // blue, shaded
    expect(Math.max(...corner) - Math.min(...corner)).toBeLessThanOrEqual(3); // grey backdrop
    // The angles differ: the same cube from elsewhere is another picture.
    const top = await download(seller, set.images[3].url);
    expect(top.bytes.equals(front.bytes)).toBe(false);
  });

  it('zips every angle of the configuration', async () => {
    const set = await setWhenRendered();
    const zip = await download(seller, set.zipUrl);
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    const entries = unzipSync(new Uint8Array(zip.bytes));
    expect(Object.keys(entries).sort()).toEqual(['back', 'front', 'right', 'top'].map((a) => expect.stringMatching(new RegExp(`-${a}\\.png$`))));
    const front = Object.entries(entries).find(([name]) => name.endsWith('-front.png'))![1];
    expect(Buffer.from(front).equals((await download(seller, set.images[0].url)).bytes)).toBe(true);
  });

  it('shows the images to the owner and admins only, and refuses bad addresses with 400', async () => {
    const set = await setWhenRendered();
    expect((await other.get(`/api/products/${productId}/listing-images`)).status).toBe(404);
    expect((await download(other, set.images[0].url)).status).toBe(404);
    expect((await download(other, set.zipUrl)).status).toBe(404);
    expect((await t.client().get(`/api/products/${productId}/listing-images`)).status).toBe(401);
    expect((await admin.get(`/api/products/${productId}/listing-images`)).status).toBe(200);
    expect((await download(admin, set.images[1].url)).status).toBe(200);
    const side = await seller.get(`/api/listing-images/${configId}/side.png`);
    expect(side.status).toBe(400);
    expect(typeof side.body.error).toBe('string');
    expect((await seller.get(`/api/listing-images/not-a-uuid/front.png`)).status).toBe(400);
  });

  it('renders again after a change is re-sliced, in the new colour, and deletes the old files', async () => {
    const before = await setWhenRendered();
    expect(before.status).toBe('done');
    const [oldRow] = await t.context.db.select().from(listingImageSet).where(eq(listingImageSet.printConfigId, configId));
    const changed = await seller.request<any>('PATCH', `/api/print-configs/${configId}`, { colour: '#16a34a', infillPercent: 30 }, {});
    expect(changed.status).toBe(200);
    const after = await setWhenRendered(before.settingsVersion + 1);
    expect(after).toMatchObject({ status: 'done', colour: '#16a34a' });
    const { centre } = await centreAndCorner((await download(seller, after.images[0].url)).bytes);
    expect(centre[1]!).toBeGreaterThan(centre[0]! + 40); // green now
    for (const key of oldRow!.imageKeys) await expect(t.context.storage.readAll(key)).rejects.toThrow();
  }, 120_000);

  it('marks images of a recoloured configuration stale (a colour is not re-sliced) and renders them again when asked', async () => {
    const before = await setWhenRendered();
    const recoloured = await seller.request<any>('PATCH', `/api/print-configs/${configId}`, { colour: '#dc2626' }, {});
    expect(recoloured.status).toBe(200);
    const stale = (await seller.get(`/api/products/${productId}/listing-images`)).body.variants[0].sets[0];
    expect(stale).toMatchObject({ status: 'pending', colour: '#dc2626', images: [], zipUrl: null, settingsVersion: before.settingsVersion });
    expect((await download(seller, before.images[0].url)).status).toBe(404);
    expect((await seller.post(`/api/products/${productId}/listing-images`, {})).status).toBe(200);
    const red = await setWhenRendered(before.settingsVersion);
    expect(red.status).toBe('done');
    const { centre } = await centreAndCorner((await download(seller, red.images[0].url)).bytes);
    expect(centre[0]!).toBeGreaterThan(centre[1]! + 40);
  }, 120_000);

  it('renders images that went missing when the seller asks again, once', async () => {
    const done = await setWhenRendered();
    await t.context.db.delete(listingImageSet).where(eq(listingImageSet.printConfigId, configId));
    expect((await seller.get(`/api/products/${productId}/listing-images`)).body.variants[0].sets[0].status).toBe('pending');
    expect((await other.post(`/api/products/${productId}/listing-images`, {})).status).toBe(404);
    const asked = await seller.post(`/api/products/${productId}/listing-images`, {});
    expect(asked.status).toBe(200);
    const again = await setWhenRendered(done.settingsVersion);
    expect(again.status).toBe('done');
    expect(await t.context.db.select().from(listingImageSet).where(eq(listingImageSet.printConfigId, configId))).toHaveLength(1);
  }, 120_000);

  it('deletes the files of a deleted design’s images in the sweep, leaving nothing behind', async () => {
    await setWhenRendered();
    const [row] = await t.context.db.select().from(listingImageSet).where(eq(listingImageSet.printConfigId, configId));
    expect(row!.imageKeys).toHaveLength(4);
    expect((await seller.request<any>('DELETE', `/api/products/${productId}`, undefined, {})).status).toBe(204);
    expect((await seller.request<any>('DELETE', `/api/designs/${designId}`, undefined, {})).status).toBe(204);
    // The row outlives its configuration (reference nulled) until the job-working process's sweep.
    const [kept] = await t.context.db.select().from(listingImageSet).where(eq(listingImageSet.id, row!.id));
    expect(kept!.printConfigId).toBeNull();
    expect(await t.context.listingImages.sweepOrphans()).toBe(1);
    for (const key of row!.imageKeys) await expect(t.context.storage.readAll(key)).rejects.toThrow();
    expect(await t.context.db.select().from(listingImageSet).where(eq(listingImageSet.id, row!.id))).toEqual([]);
    expect(await t.context.listingImages.sweepOrphans()).toBe(0);
  }, 60_000);
});
