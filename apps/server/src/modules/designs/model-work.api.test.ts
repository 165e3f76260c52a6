import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { boxStl, manyItems3mf, oneTallTriangleStl, sliverCylinderStl, wavySlabStl } from '../../../test/hostile-models.ts';

/**
 * Issue 10, finding 1: tiny files that took the machine. Work is bounded by the farm's build
 * volume and by the engine's own limits, every job has a time and memory budget, and one seller's
 * files never delay another's by more than one job. Shapes from test/hostile-models.ts.
 */

async function upload(client: SignedInClient, fileName: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append('file', new Blob([bytes]), fileName);
  const started = performance.now();
  const response = await fetch(new URL('/api/designs', client.baseUrl), {
    method: 'POST',
    headers: { cookie: client.cookieHeader(), origin: client.baseUrl },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as any, ms: performance.now() - started, at: performance.now() };
}

function storedFiles(t: TestApp): string[] {
  const root = t.context.config.storageDir;
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(root, f)).isFile());
}

const cube = boxStl(20, 20, 20);
/**
 * A model slow to take in yet printable: a 2 mm disc whose caps are fans of 40,000 slivers around
 * one vertex. The estimate is bounded (a box of any size takes milliseconds), the analysis of a
 * vertex shared by that many triangles is not, so this is the job that holds a thread for a while.
 */
const slowFan = sliverCylinderStl(40_000, 140, 2);

describe('model work bounded by the farm (one worker thread)', () => {
  let t: TestApp;
  let seller: SignedInClient;
  let other: SignedInClient;

  beforeAll(async () => {
    // One thread makes the fairness guarantee exact to observe.
    t = await startTestApp({ MODEL_WORKERS: '1' });
    seller = await t.signUp({ name: 'Hostile Seller' });
    other = await t.signUp({ name: 'Patient Seller' });
    // The thread starts with the first job; the timings below are the jobs' own.
    expect((await upload(other, 'warm-up.stl', cube)).status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses a 134-byte STL of one triangle 1 km tall with 422 at once, naming its size and the limit, and keeps nothing', async () => {
    const bytes = oneTallTriangleStl(1_000_000);
    expect(bytes.length).toBe(134);
    const before = storedFiles(t).length;
    const { status, body, ms } = await upload(seller, 'tower.stl', bytes);
    expect(status).toBe(422);
    expect(body.error).toContain('No printer of the farm can print it');
    expect(body.error).toContain('10 × 0 × 1,000,000 mm');
    expect(body.error).toContain('400 × 400 × 450 mm');
    expect(ms).toBeLessThan(2000);
    expect(storedFiles(t).length).toBe(before);
  });

  it('refuses a ~115 KB 3MF of 2,000 tall build items with 422 at once', async () => {
    const bytes = manyItems3mf(2000, [5, 5, 1000]);
    expect(bytes.length).toBeGreaterThan(100_000);
    expect(bytes.length).toBeLessThan(130_000);
    const { status, body, ms } = await upload(seller, 'forest.3mf', bytes);
    expect(status).toBe(422);
    expect(body.error).toContain('one of its 2,000 objects measures 5 × 5 × 1,000 mm');
    expect(ms).toBeLessThan(2000);
  });

  it('refuses 2,000 build items that each fit but together need more bed than the farm has', async () => {
    const { status, body, ms } = await upload(seller, 'crowd.3mf', manyItems3mf(2000, [10, 10, 100]));
    expect(status).toBe(422);
    expect(body.error).toContain('need at least 200,000 mm² of bed together');
    expect(ms).toBeLessThan(2000);
  });

  it('refuses 2,000 build items that fit the bed but would need a million layer slices, before slicing any (the engine’s own bound)', async () => {
    const { status, body, ms } = await upload(seller, 'needles.3mf', manyItems3mf(2000, [5, 5, 100]));
    expect(status).toBe(422);
    expect(body.error).toContain('too complex to estimate at 0.2 mm layers');
    expect(ms).toBeLessThan(2000);
  });

  it('keeps the estimate of an accepted model at 0.05 mm layers bounded', async () => {
    // The 1 km triangle brought within the volume (400 mm): accepted, and cheap at any layer height.
    const tall = await upload(seller, 'spire.stl', oneTallTriangleStl(400));
    expect(tall.status).toBe(201);
    let started = performance.now();
    let quote = await seller.post('/api/estimate-print-cost', { filePath: tall.body.id, layerHeightMm: 0.05 });
    expect(quote.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(3000);
    // Thirty 400 mm needles: accepted at 0.2 mm (60,000 slices); at 0.05 mm 240,000 slices are refused before any is cut.
    const needles = await upload(seller, 'needles30.3mf', manyItems3mf(30, [5, 5, 400]));
    expect(needles.status).toBe(201);
    started = performance.now();
    quote = await seller.post('/api/estimate-print-cost', { filePath: needles.body.id, layerHeightMm: 0.05 });
    expect(quote.status).toBe(422);
    expect(quote.body.error).toContain('too complex to estimate at 0.05 mm layers');
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('lets another seller’s tiny upload through after at most one job of a seller with a queue of slow ones', async () => {
    // Each 2 mm fan of 40,000 slivers (8 MB) takes about a second to analyse on this machine.
    const slow = slowFan;
    const hostile = [1, 2, 3].map((n) => upload(seller, `slow-${n}.stl`, slow));
    await new Promise((resolve) => setTimeout(resolve, 400)); // the first is running, the others wait
    const tiny = await upload(other, 'cube.stl', cube);
    expect(tiny.status).toBe(201);
    const done = await Promise.all(hostile);
    for (const result of done) expect(result.status).toBe(201);
    const aheadOfIt = done.filter((result) => result.at < tiny.at).length;
    expect(aheadOfIt).toBeLessThanOrEqual(1);
    const slowest = Math.max(...done.map((r) => r.ms));
    expect(tiny.ms).toBeLessThan(slowest);
  });

  it('refuses the estimate of a stored design that no printer of the farm can print any more, before any per-layer work', async () => {
    // Stored while it fitted (the configured 400 × 400 × 450 mm); then the farm became one 200 mm printer.
    const stored = await upload(seller, 'spire-300.stl', oneTallTriangleStl(300));
    expect(stored.status).toBe(201);
    const admin = await t.signUp({ role: 'admin' });
    const printer = await admin.post('/api/admin/printers', {
      name: 'Only printer',
      buildVolumeMm: { x: 200, y: 200, z: 200 },
      nozzleMm: 0.4,
      connection: { kind: 'simulated' },
    });
    expect(printer.status).toBe(201);
    try {
      const started = performance.now();
      const quote = await seller.post('/api/estimate-print-cost', { filePath: stored.body.id, layerHeightMm: 0.05 });
      expect(quote.status).toBe(422);
      expect(quote.body.error).toContain('No printer of the farm can print it');
      expect(quote.body.error).toContain('10 × 0 × 300 mm');
      expect(quote.body.error).toContain('200 × 200 × 200 mm');
      expect(performance.now() - started).toBeLessThan(2000);
    } finally {
      expect((await admin.post(`/api/admin/printers/${printer.body.id}/retire`)).status).toBe(200);
    }
    // No active printer: the configured maximum again, and the same estimate is answered.
    expect((await seller.post('/api/estimate-print-cost', { filePath: stored.body.id, layerHeightMm: 0.05 })).status).toBe(200);
  });
});

describe('the largest valid STL under the limits', () => {
  let t: TestApp;
  let seller: SignedInClient;
  beforeAll(async () => {
    t = await startTestApp();
    seller = await t.signUp({ name: 'Big Seller' });
  });
  afterAll(async () => {
    await t?.close();
  });

  // ~15 s on the loaded 2-core machine (generating, sending and analysing 200 MB); its RSS is in the
  // bench. The finding's 500 did not reproduce with this shape on the code before (it answered 201
  // there too); the shapes that fail before are the sliver cylinder below and the engine bounds.
  it('accepts a watertight 3,999,996-triangle, 200 MB STL (the largest valid one under the limits)', { timeout: 120_000 }, async () => {
    const bytes = wavySlabStl(999);
    expect(bytes.length).toBe(84 + 50 * 3_999_996);
    expect(bytes.length).toBeLessThanOrEqual(t.context.config.maxUploadBytes);
    const { status, body } = await upload(seller, 'slab.stl', bytes);
    expect(status).toBe(201);
    expect(body).toMatchObject({ triangles: 3_999_996, watertight: true, bboxMm: [200, 200, expect.closeTo(20, 1)] });
    // 4,008,000 triangles, still under the upload limit: over the triangle cap, a clear 422.
    const over = await upload(seller, 'over.stl', wavySlabStl(1000));
    expect(over.status).toBe(422);
    expect(over.body.error).toContain('the limit is 4000000');
  });
});

describe('model work budgets', () => {
  let t: TestApp;
  let seller: SignedInClient;

  beforeAll(async () => {
    t = await startTestApp({ MODEL_WORKERS: '1', MODEL_JOB_CPU_S: '2' });
    seller = await t.signUp({ name: 'Budget Seller' });
    expect((await upload(seller, 'warm-up.stl', cube)).status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('ends a job past its time budget with a clear 422, replaces the thread, and the next job succeeds', async () => {
    const before = storedFiles(t).length;
    const started = performance.now();
    const slow = await upload(seller, 'slow.stl', sliverCylinderStl(120_000, 140, 2)); // ~9 s of analysis
    expect(slow.status).toBe(422);
    expect(slow.body.error).toMatch(/too complex: processing it needed more than the 2 s of CPU time a model may use/);
    // The budget is 2 s of the thread's CPU time, so the wall clock depends on the machine's load
    // (8.8 s with a load of 8 on 2 cores); it stays under the wall-clock cap of 10 budgets.
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(storedFiles(t).length).toBe(before);
    expect(t.context.modelWorker.stats().replaced).toBe(1);
    const next = await upload(seller, 'cube.stl', cube);
    expect(next.body.error).toBeUndefined();
    expect(next.status).toBe(201);
    expect(next.body.triangles).toBe(12);
  });

  it('ends the analysis of a valid 1M-triangle STL that would hold a thread for minutes (a fan of 250,000 slivers)', { timeout: 60_000 }, async () => {
    // Each cap is a fan around one vertex shared by 500,000 triangles: the analysis took > 200 s
    // of one thread on the code before (the 4M-triangle version, > 300 s), everyone else waiting.
    const replaced = t.context.modelWorker.stats().replaced;
    const fan = await upload(seller, 'fan.stl', sliverCylinderStl(250_000));
    expect(fan.status).toBe(422);
    expect(fan.body.error).toContain('needed more than the 2 s of CPU time a model may use');
    expect(t.context.modelWorker.stats().replaced).toBe(replaced + 1);
    expect((await upload(seller, 'cube-again.stl', cube)).status).toBe(201);
  });
});

describe('the memory budget and the per-seller queue', () => {
  let t: TestApp;
  let seller: SignedInClient;
  beforeAll(async () => {
    t = await startTestApp({ MODEL_WORKERS: '1', MODEL_WORKER_HEAP_MB: '64', MODEL_QUEUE_PER_SELLER: '1' });
    seller = await t.signUp({ name: 'Heavy Seller' });
    expect((await upload(seller, 'warm-up.stl', cube)).status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('ends a thread that runs out of its heap with a clear 413, replaces it, and the next job succeeds', async () => {
    // 60,000 build items (3.7 MB): each is an object with its own sums on the JavaScript heap.
    const { status, body } = await upload(seller, 'swarm.3mf', manyItems3mf(60_000, [0.5, 0.5, 0.5]));
    expect(status).toBe(413);
    expect(body.error).toContain('needs more than the 64 MB of memory a model may use');
    expect(t.context.modelWorker.stats().replaced).toBe(1);
    expect((await upload(seller, 'cube.stl', cube)).status).toBe(201);
  });

  it('answers 429 with Retry-After when a seller already has as many models waiting as allowed, and keeps nothing of it', async () => {
    const slow = slowFan;
    const before = storedFiles(t).length;
    const running = upload(seller, 'slow-1.stl', slow);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const waiting = upload(seller, 'slow-2.stl', slow);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const form = new FormData();
    form.append('file', new Blob([slow]), 'slow-3.stl');
    const third = await fetch(new URL('/api/designs', seller.baseUrl), { method: 'POST', headers: { cookie: seller.cookieHeader(), origin: seller.baseUrl }, body: form });
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('30');
    expect(((await third.json()) as { error: string }).error).toContain('1 of your models are already waiting');
    expect((await running).status).toBe(201);
    expect((await waiting).status).toBe(201);
    expect(storedFiles(t).length).toBe(before + 2);
  });
});
