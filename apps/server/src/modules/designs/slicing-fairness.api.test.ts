import fs from 'node:fs';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { printConfiguration } from '../../db/schema.ts';
import { detectPrusaSlicer } from '../../integrations/prusa-slicer/prusa-slicer.ts';
import { createSlicingTurns } from './slicing-turn-repository.ts';

const MODELS = path.resolve(import.meta.dirname, '../../../../../../shared/models');
const slicer = await detectPrusaSlicer();

async function upload(client: SignedInClient, fileName: string): Promise<{ designId: string; configId: string }> {
  const form = new FormData();
  form.append('file', new Blob([fs.readFileSync(path.join(MODELS, fileName))]), fileName);
  const response = await fetch(new URL('/api/designs', client.baseUrl), { method: 'POST', headers: { cookie: client.cookieHeader(), origin: client.baseUrl }, body: form });
  const body = (await response.json()) as any;
  expect(response.status, JSON.stringify(body)).toBe(201);
  return { designId: body.id, configId: body.printConfigs[0].id };
}

async function whenSliced(client: SignedInClient, designId: string, configId: string, seconds = 120) {
  for (let i = 0; i < seconds * 4; i++) {
    const design = (await client.get(`/api/designs/${designId}`)).body;
    const config = design.printConfigs.find((c: { id: string }) => c.id === configId);
    if (config.slicing.status === 'done' || config.slicing.status === 'failed') return config;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`slicing did not finish in ${seconds} s`);
}

describe('slicing turns on the database: the order a one-at-a-time queue serves', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A queue as pg-boss runs it (lowest turn first, ties in arrival order), one request at a time. */
  function queue() {
    const turns = createSlicingTurns(t.context.db);
    const waiting: { seller: string; turn: number; arrived: number }[] = [];
    let arrivals = 0;
    return {
      async ask(seller: string, times = 1) {
        for (let i = 0; i < times; i++) waiting.push({ seller, turn: await turns.next(seller), arrived: arrivals++ });
      },
      async run(): Promise<string> {
        waiting.sort((x, y) => x.turn - y.turn || x.arrived - y.arrived);
        const next = waiting.shift()!;
        await turns.started(next.turn);
        return next.seller;
      },
      async runAll(): Promise<string> {
        const order: string[] = [];
        while (waiting.length > 0) order.push(await this.run());
        return order.join('');
      },
    };
  }
  // Seller ids are unique per test: the turns are shared by the whole database.
  const ids = (...names: string[]) => names.map((name) => `${name}-${Math.random().toString(36).slice(2)}`);

  it('runs a newcomer right after the run in progress, even one served before, and alternates two backlogs', async () => {
    const [a, b] = ids('a', 'b');
    const q = queue();
    await q.ask(b!);
    expect(await q.run()).toBe(b); // b served once, then idle
    await q.ask(a!, 4);
    expect(await q.run()).toBe(a); // a's first runs
    await q.ask(b!); // b asks again while a has three waiting
    const order = (await q.runAll()).replaceAll(a!, 'A').replaceAll(b!, 'B');
    expect(order).toBe('BAAA');
  });

  it('gives a seller sending one request after another every other run while another seller waits', async () => {
    const [a, b] = ids('a', 'b');
    const q = queue();
    await q.ask(a!, 3);
    const order: string[] = [await q.run()];
    for (let i = 0; i < 3; i++) {
      await q.ask(b!); // b asks again as soon as its previous one started
      order.push(await q.run());
    }
    order.push(await q.runAll());
    expect(order.join('').replaceAll(a!, 'A').replaceAll(b!, 'B')).toBe('ABABAB');
  });
});

describe.skipIf(!slicer.available)('fair exact slicing: per-seller turns', () => {
  let t: TestApp;
  let first: SignedInClient;
  let second: SignedInClient;
  beforeAll(async () => {
    t = await startTestApp({ SLICING: 'auto', MODEL_JOB_CPU_S: '120' });
    [first, second] = await Promise.all([t.signUp({ name: 'Backlog Seller' }), t.signUp({ name: 'Cube Seller' })]);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('slices another seller’s first model right after the run in progress, not after the first seller’s backlog', { timeout: 240_000 }, async () => {
    // The second seller was served before (its turn must not tie with the backlog's next one).
    const earlier = await upload(second, 'ps-20mm_cube.obj');
    expect((await whenSliced(second, earlier.designId, earlier.configId)).slicing.status).toBe('done');
    // Four models of ~3 s of slicing each, queued at once; then one 20 mm cube of the second seller.
    const backlog = await Promise.all([1, 2, 3, 4].map(() => upload(first, 'voron-design_cube_v7.stl')));
    const cube = await upload(second, 'ps-20mm_cube.obj');

    const done = [...(await Promise.all(backlog.map((b) => whenSliced(first, b.designId, b.configId)))), await whenSliced(second, cube.designId, cube.configId)];
    expect(done.map((c) => c.slicing)).toEqual(done.map(() => ({ status: 'done', error: null })));
    // The order the runs finished in, from the stored exact figures.
    const finished = await Promise.all(
      [...backlog, cube].map(async ({ configId }) => {
        const [row] = await t.context.db.select({ sliced: printConfiguration.sliced }).from(printConfiguration).where(eq(printConfiguration.id, configId));
        return { configId, at: Date.parse(row!.sliced!.computedAt) };
      }),
    );
    finished.sort((a, b) => a.at - b.at);
    const cubeRank = finished.findIndex((f) => f.configId === cube.configId);
    // In arrival order the cube would be fifth. With turns it waits for the run in progress when it
    // was queued (all four were queued before it, so at most the first had started): at most second.
    expect(cubeRank, finished.map((f) => (f.configId === cube.configId ? 'cube' : 'backlog')).join(' → ')).toBeLessThanOrEqual(1);
  });
});

describe.skipIf(!slicer.available)('bounded exact slicing: the kernel’s CPU limit', () => {
  let t: TestApp;
  let seller: SignedInClient;
  beforeAll(async () => {
    t = await startTestApp({ SLICING: 'auto', SLICER_CPU_LIMIT_S: '1', MODEL_JOB_CPU_S: '120' });
    seller = await t.signUp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses a run past its CPU limit in words, for those settings, and never runs it again', { timeout: 120_000 }, async () => {
    const part = await upload(seller, 'i3-y-belt-idler.stl'); // ~4 s of CPU to slice
    const refused = await whenSliced(seller, part.designId, part.configId);
    expect(refused.slicing.status).toBe('failed');
    expect(refused.slicing.error).toMatch(/^Slicing used more than 1 s of CPU time and was stopped\. These settings need more than one slicing run may use; thicker layers or less infill need less$/);
    expect(refused.quote.basis).toBe('estimate');

    // The queue's job ended as done on its first attempt: nothing left to retry at these settings.
    const jobs = await t.context.db.execute(
      sql`SELECT state, retry_count FROM pgboss.job WHERE name = 'slice-print-config' AND data->>'configId' = ${part.configId}`,
    );
    expect((jobs as unknown as { rows: unknown[] }).rows).toEqual([{ state: 'completed', retry_count: 0 }]);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const later = (await seller.get(`/api/designs/${part.designId}`)).body.printConfigs[0];
    expect(later.slicing).toEqual(refused.slicing);
  });
});
