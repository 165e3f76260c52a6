import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uploadDesign, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { boxStl } from '../../../test/hostile-models.ts';
import { charge, claim, emailMessage, orderEvent, printJob } from '../../db/schema.ts';

/**
 * Claims through the real server (issue 24; docs/claims.md): an order printed by the autopilot on a
 * simulated printer, charged on the sandbox card, shipped with the sandbox carrier and delivered; then
 * claimed by its seller with photos and decided by an admin as a decline, a refund and a free reprint.
 * Runs on PGlite, and on PostgreSQL with DATABASE_URL.
 */

const ADDRESS = { name: 'Ada Buyer', line1: '1 Main St', city: 'Springfield', region: 'IL', postalCode: '62704', country: 'US' };

let t: TestApp;
let admin: SignedInClient;
let seller: SignedInClient;
let stranger: SignedInClient;
let orderId: string;
let partIds: string[];
const received: any[] = [];
let receiver: http.Server;

async function waitFor<T>(probe: () => T | Promise<T>, what: string, timeoutMs = 60_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A photo with EXIF metadata (a camera's, or a phone's location): what the farm must not keep. */
const photoWithExif = () =>
  sharp({ create: { width: 640, height: 480, channels: 3, background: '#c03030' } })
    .withExif({ IFD0: { Copyright: 'PRIVATE-EXIF-MARKER', Artist: 'Seller phone' } })
    .jpeg()
    .toBuffer();

/** POSTs a claim form as `client` (multipart, as the browser's FormData sends it). */
async function fileClaim(
  client: SignedInClient,
  id: string,
  fields: { kind?: string; description?: string; partIds?: string[] },
  photos: { bytes: Uint8Array; name: string }[],
): Promise<{ status: number; body: any }> {
  const form = new FormData();
  if (fields.kind) form.append('kind', fields.kind);
  if (fields.description) form.append('description', fields.description);
  for (const partId of fields.partIds ?? []) form.append('partIds', partId);
  for (const photo of photos) form.append('photos', new Blob([new Uint8Array(photo.bytes)]), photo.name);
  const response = await fetch(new URL(`/api/orders/${id}/claims`, client.baseUrl), {
    method: 'POST',
    headers: { cookie: client.cookieHeader(), origin: client.baseUrl, 'sec-fetch-site': 'same-origin' },
    body: form,
  });
  return { status: response.status, body: await response.json() };
}

const claimCount = async () => (await t.context.db.select({ id: claim.id }).from(claim)).length;
const eventsOf = (type: string) => received.filter((event) => event.type === type && event.data.order.id === orderId);

beforeAll(async () => {
  receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      response.statusCode = 204;
      response.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t = await startTestApp({
    ALLOW_LOCAL_WEBHOOK_RECEIVERS: 'true',
    PAYMENTS_CHARGE_ORDERS: 'true',
    FARM_TICK_S: '0.2',
    FARM_AUTOPILOT: 'true',
    FARM_AUTOPILOT_DELAY_S: '0',
    SANDBOX_CARRIER_DAY_S: '0.5',
    TRACKING_POLL_S: '3600',
  });
  [admin, seller, stranger] = await Promise.all([t.signUp({ role: 'admin' }), t.signUp({ role: 'beta' }), t.signUp({ role: 'beta' })]);
  const printer = await admin.post('/api/admin/printers', {
    name: 'Sim claims',
    buildVolumeMm: { x: 250, y: 250, z: 250 },
    nozzleMm: 0.4,
    connection: { kind: 'simulated', speedFactor: 100_000 },
  });
  expect(printer.status).toBe(201);
  const design = await uploadDesign(seller, boxStl(20, 20, 20), 'box.stl');
  expect((await seller.post('/api/products', { name: 'Claim box', variants: [{ name: 'Box', sku: 'CLAIM-BOX', parts: [{ printConfigId: design.printConfigs[0].id, quantity: 1 }] }] })).status).toBe(201);
  expect((await seller.post('/api/payments/setup-intent')).status).toBe(200);
  const method = await seller.post('/api/payments/sandbox/payment-methods', { cardNumber: '4242 4242 4242 4242', expMonth: 12, expYear: 2034, cvc: '123' });
  expect((await seller.post('/api/payments/default-payment-method', { paymentMethodId: method.body.paymentMethodId })).status).toBe(200);
  const address = receiver.address() as AddressInfo;
  expect((await seller.request('PUT', '/api/webhook-endpoint', { url: `http://127.0.0.1:${address.port}/hooks` }, {})).status).toBe(200);

  const created = await seller.post('/api/orders/manual', { items: [{ sku: 'CLAIM-BOX', quantity: 2 }], shippingAddress: ADDRESS });
  expect(created.status).toBe(201);
  orderId = created.body.id;
  await waitFor(async () => (await admin.get(`/api/orders/${orderId}`)).body.status === 'packed', 'the packed order');
  expect((await admin.post(`/api/admin/shipping/orders/${orderId}/labels`, {})).status).toBe(200);
  await waitFor(async () => {
    await t.context.shipping.trackingPass(0, 60_000);
    return (await seller.get(`/api/orders/${orderId}`)).body.status === 'delivered';
  }, 'the delivered order');
  partIds = (await t.context.db.select({ id: printJob.id }).from(printJob).where(and(eq(printJob.orderId, orderId), eq(printJob.status, 'qc_passed')))).map((row) => row.id);
  expect(partIds).toHaveLength(2);
}, 180_000);

afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('filing a claim', () => {
  it('refuses what is not an image by its content, whatever its name, and stores nothing', async () => {
    const before = await claimCount();
    const fake = await fileClaim(seller, orderId, { kind: 'damaged', description: 'Cracked', partIds: [partIds[0]!] }, [
      { bytes: new TextEncoder().encode('<html><script>alert(1)</script></html>'), name: 'photo.jpg' },
    ]);
    expect(fake.status).toBe(415);
    expect(fake.body.error).toMatch(/not a JPEG, PNG or WebP/);
    const noPhoto = await fileClaim(seller, orderId, { kind: 'damaged', description: 'Cracked', partIds: [partIds[0]!] }, []);
    expect(noPhoto.status).toBe(400);
    expect(noPhoto.body.error).toMatch(/photo/);
    const tooBig = await fileClaim(seller, orderId, { kind: 'damaged', description: 'Cracked', partIds: [partIds[0]!] }, [
      { bytes: new Uint8Array(8 * 1024 * 1024 + 1), name: 'huge.jpg' },
    ]);
    expect(tooBig.status).toBe(413);
    const wrongPart = await fileClaim(seller, orderId, { kind: 'lost', description: 'Never came', partIds: [crypto.randomUUID()] }, []);
    expect(wrongPart.status).toBe(400);
    const noKind = await fileClaim(seller, orderId, { description: 'x', partIds: [partIds[0]!] }, []);
    expect(noKind.status).toBe(400);
    expect(await claimCount()).toBe(before);
  });

  it('answers a broken or oversized form with a 4xx, never a 5xx', async () => {
    const post = (body: string | FormData, contentType?: string) =>
      fetch(new URL(`/api/orders/${orderId}/claims`, t.baseUrl), {
        method: 'POST',
        headers: { cookie: seller.cookieHeader(), origin: t.baseUrl, 'sec-fetch-site': 'same-origin', ...(contentType ? { 'content-type': contentType } : {}) },
        body,
      });
    const truncated = await post('--x\r\nContent-Disposition: form-data; name="kind"\r\n\r\nlost', 'multipart/form-data; boundary=x');
    expect(truncated.status).toBeGreaterThanOrEqual(400);
    expect(truncated.status).toBeLessThan(500);
    expect(await truncated.json()).toHaveProperty('error');
    const json = await post(JSON.stringify({ kind: 'lost' }), 'application/json');
    expect(json.status).toBe(415);
    const many = new FormData();
    many.append('kind', 'damaged');
    many.append('description', 'Many');
    many.append('partIds', partIds[0]!);
    const photo = await photoWithExif();
    for (let i = 0; i < 7; i++) many.append('photos', new Blob([new Uint8Array(photo)]), `p${i}.jpg`);
    const tooMany = await post(many);
    expect(tooMany.status).toBe(413);
    const before = await claimCount();
    expect(before).toBe(0);
  });

  it('lets only the order’s seller claim it: another seller’s order answers like a missing one', async () => {
    const foreign = await fileClaim(stranger, orderId, { kind: 'lost', description: 'Not mine', partIds }, []);
    expect(foreign.status).toBe(404);
  });

  it('takes claims within 30 days of delivery only', async () => {
    const delivered = eq(orderEvent.toStatus, 'delivered');
    const [event] = await t.context.db.select().from(orderEvent).where(and(eq(orderEvent.orderId, orderId), delivered));
    await t.context.db.update(orderEvent).set({ createdAt: new Date(Date.now() - 31 * 86_400_000) }).where(eq(orderEvent.id, event!.id));
    try {
      const late = await fileClaim(seller, orderId, { kind: 'lost', description: 'Late', partIds }, []);
      expect(late.status).toBe(409);
      expect(late.body.error).toMatch(/30 days of delivery/);
    } finally {
      await t.context.db.update(orderEvent).set({ createdAt: event!.createdAt }).where(eq(orderEvent.id, event!.id));
    }
  });

  it('files a claim with photos stripped of their metadata, on the timeline, emailed and sent as a webhook', async () => {
    const options = (await seller.get(`/api/orders/${orderId}/claim-options`)).body;
    expect(options).toMatchObject({ blockedReason: null, kinds: ['damaged', 'lost', 'misprinted'] });
    expect(options.parts.map((part: any) => part.printJobId).sort()).toEqual([...partIds].sort());
    expect((await stranger.get(`/api/orders/${orderId}/claim-options`)).status).toBe(404);
    const filed = await fileClaim(seller, orderId, { kind: 'damaged', description: 'The lid arrived cracked', partIds: [partIds[0]!] }, [
      { bytes: await photoWithExif(), name: 'IMG_0001.JPG' },
    ]);
    expect(filed.status).toBe(201);
    expect(filed.body).toMatchObject({ orderId, kind: 'damaged', status: 'open', description: 'The lid arrived cracked' });
    expect(filed.body.parts).toEqual([expect.objectContaining({ printJobId: partIds[0], printerName: 'Sim claims', qcBy: 'autopilot' })]);
    const [photo] = filed.body.photos;
    expect(photo).toMatchObject({ width: 640, height: 480 });

    const served = await fetch(new URL(photo.url, t.baseUrl), { headers: { cookie: seller.cookieHeader() } });
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/jpeg');
    const bytes = Buffer.from(await served.arrayBuffer());
    expect((await sharp(bytes).metadata()).exif).toBeUndefined();
    expect(bytes.includes('PRIVATE-EXIF-MARKER')).toBe(false);
    const strangerPhoto = await fetch(new URL(photo.url, t.baseUrl), { headers: { cookie: stranger.cookieHeader() } });
    expect(strangerPhoto.status).toBe(404);

    const again = await fileClaim(seller, orderId, { kind: 'lost', description: 'Twice', partIds }, []);
    expect(again.status).toBe(409);
    expect((await seller.get(`/api/orders/${orderId}/claim-options`)).body).toMatchObject({ blockedReason: 'This order has a claim waiting for review', kinds: [] });

    const order = (await seller.get(`/api/orders/${orderId}`)).body;
    expect(order.status).toBe('delivered');
    expect(order.events.at(-1)).toMatchObject({ fromStatus: 'delivered', toStatus: 'delivered', actorKind: 'user' });
    expect(order.events.at(-1).reason).toMatch(/^Claim filed \(arrived damaged\)/);
    const mails = await t.context.db.select().from(emailMessage).where(eq(emailMessage.dedupeKey, `claim_filed:${filed.body.id}`));
    expect(mails).toHaveLength(1);
    expect(mails[0]!.templateType).toBe('claim_updated');
    const [event] = await waitFor(() => (eventsOf('order.claim_filed').length ? eventsOf('order.claim_filed') : null), 'order.claim_filed');
    expect(event.data.claim).toMatchObject({ id: filed.body.id, kind: 'damaged', status: 'open', partIds: [partIds[0]] });
  });
});

describe('deciding claims', () => {
  it('shows admins the queue with the production record; sellers only their own claims', async () => {
    const queue = await admin.get('/api/admin/claims?status=open');
    expect(queue.status).toBe(200);
    expect(queue.body.items.map((c: any) => c.orderId)).toContain(orderId);
    expect((await seller.get('/api/admin/claims')).status).toBe(403);
    expect((await seller.get('/api/claims')).body.items).toHaveLength(1);
    expect((await stranger.get('/api/claims')).body.items).toHaveLength(0);
    const id = queue.body.items[0].id;
    expect((await stranger.get(`/api/claims/${id}`)).status).toBe(404);
    expect((await seller.post(`/api/admin/claims/${id}/decision`, { decision: 'reprint' })).status).toBe(403);
  });

  it('declines with a reason only, once', async () => {
    const [open] = (await seller.get('/api/claims')).body.items;
    const noReason = await admin.post(`/api/admin/claims/${open.id}/decision`, { decision: 'decline' });
    expect(noReason.status).toBe(400);
    const declined = await admin.post(`/api/admin/claims/${open.id}/decision`, { decision: 'decline', note: 'The photo shows a different product' });
    expect(declined.status).toBe(200);
    expect(declined.body).toMatchObject({ status: 'declined', decisionNote: 'The photo shows a different product' });
    const twice = await admin.post(`/api/admin/claims/${open.id}/decision`, { decision: 'refund' });
    expect(twice.status).toBe(409);
    const [event] = await waitFor(() => (eventsOf('order.claim_decided').length ? eventsOf('order.claim_decided') : null), 'order.claim_decided');
    expect(event.data.claim).toMatchObject({ id: open.id, status: 'declined', decisionNote: 'The photo shows a different product' });
  });

  it('refunds through the payment provider, shown on Billing, once', async () => {
    const filed = await fileClaim(seller, orderId, { kind: 'misprinted', description: 'Layer shift', partIds: [partIds[1]!] }, [{ bytes: await photoWithExif(), name: 'shift.png' }]);
    expect(filed.status).toBe(201);
    const tooMuch = await admin.post(`/api/admin/claims/${filed.body.id}/decision`, { decision: 'refund', amountCents: 99_999_999 });
    expect(tooMuch.status).toBe(422);
    expect((await seller.get(`/api/claims/${filed.body.id}`)).body.status).toBe('open');
    const refunded = await admin.post(`/api/admin/claims/${filed.body.id}/decision`, { decision: 'refund', amountCents: 100, note: 'Sorry about the shift' });
    expect(refunded.status).toBe(200);
    expect(refunded.body).toMatchObject({ status: 'refunded', refundCents: 100 });
    const charges = (await seller.get('/api/payments/charges')).body.items.filter((c: any) => c.orderId === orderId);
    expect(charges).toHaveLength(1);
    expect(charges[0].refundedCents).toBe(100);
    await waitFor(() => eventsOf('order.refunded').length === 1, 'order.refunded');
  });

  it('reprints only the claimed part, free, with a replacement parcel and label', async () => {
    const [before] = await t.context.db.select().from(charge).where(eq(charge.orderId, orderId));
    const filed = await fileClaim(seller, orderId, { kind: 'damaged', description: 'Crushed box', partIds: [partIds[0]!] }, [{ bytes: await photoWithExif(), name: 'crushed.webp' }]);
    expect(filed.status).toBe(201);
    const decided = await admin.post(`/api/admin/claims/${filed.body.id}/decision`, { decision: 'reprint', note: 'Packed better this time' });
    expect(decided.status).toBe(200);
    expect(decided.body.status).toBe('reprint');
    const reprintId = decided.body.parts[0].reprintJobId;
    expect(reprintId).toBeTruthy();
    expect(decided.body.replacementShipmentId).toBeTruthy();
    const jobs = await t.context.db.select().from(printJob).where(eq(printJob.orderId, orderId));
    expect(jobs.filter((job) => job.reprintOf !== null).map((job) => job.reprintOf)).toEqual([partIds[0]]);
    // The autopilot prints the reprint although the order is delivered.
    await waitFor(async () => (await t.context.db.select().from(printJob).where(eq(printJob.id, reprintId)))[0]!.status === 'qc_passed', 'the reprint printed');
    const order = (await seller.get(`/api/orders/${orderId}`)).body;
    expect(order.status).toBe('delivered');
    expect(order.shipments.map((s: any) => s.id)).toContain(decided.body.replacementShipmentId);
    const charges = await t.context.db.select().from(charge).where(eq(charge.orderId, orderId));
    expect(charges).toHaveLength(1);
    expect(charges[0]!.amountCents).toBe(before!.amountCents);
  }, 90_000);

  it('counts claims per printer and per material on the admin overview (declined ones left out)', async () => {
    const stats = await admin.get('/api/admin/claims/stats');
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({ total: 3, open: 0 });
    expect(stats.body.byPrinter).toEqual([expect.objectContaining({ printerName: 'Sim claims', claims: 2 })]);
    expect(stats.body.byMaterial).toEqual([expect.objectContaining({ claims: 2 })]);
    expect((await seller.get('/api/admin/claims/stats')).status).toBe(403);
  });
});
