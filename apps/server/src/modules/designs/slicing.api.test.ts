import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type SignedInClient, type TestApp } from '../../../test/test-app.ts';
import { detectPrusaSlicer } from '../../integrations/prusa-slicer/prusa-slicer.ts';

const MODELS = path.resolve(import.meta.dirname, '../../../../../../shared/models');
const slicer = await detectPrusaSlicer();

async function upload(client: SignedInClient, fileName: string) {
  const form = new FormData();
  form.append('file', new Blob([fs.readFileSync(path.join(MODELS, fileName))]), fileName);
  const response = await fetch(new URL('/api/designs', client.baseUrl), { method: 'POST', headers: { cookie: client.cookieHeader(), origin: client.baseUrl }, body: form });
  const body = (await response.json()) as any;
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body;
}

async function configWhenSliced(client: SignedInClient, designId: string, configId: string) {
  for (let i = 0; i < 120; i++) {
    const design = (await client.get(`/api/designs/${designId}`)).body;
    const config = design.printConfigs.find((c: { id: string }) => c.id === configId);
    if (config.slicing.status === 'done' || config.slicing.status === 'failed') return config;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('slicing did not finish in 30 s');
}

describe.skipIf(!slicer.available)('exact quotes from PrusaSlicer, through the job queue', () => {
  let t: TestApp;
  let seller: SignedInClient;
  beforeAll(async () => {
    // A farm bigger than the slicer profile's bed, so a 1.5 m part passes the upload's build-volume
    // check and what is tested is PrusaSlicer's own refusal, reported on the print configuration.
    // A 1.5 m part in a 2 m farm: its estimate is heavy, and this suite tests slicing, not the model work's time budget (a loaded CI machine once took it past the default 30 s).
    t = await startTestApp({ SLICING: 'auto', MAX_BUILD_VOLUME_MM: '2000,2000,2000', MODEL_JOB_CPU_S: '180' });
    seller = await t.signUp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('estimates at once, then replaces the estimate with the slicer’s exact figures', async () => {
    const design = await upload(seller, 'ps-20mm_cube.obj');
    const first = design.printConfigs[0];
    expect(first.quote.basis).toBe('estimate');
    expect(['queued', 'running', 'done']).toContain(first.slicing.status);
    const sliced = await configWhenSliced(seller, design.id, first.id);
    expect(sliced.slicing).toEqual({ status: 'done', error: null });
    expect(sliced.quote.basis).toBe('slicer');
    expect(sliced.quote.basisNote).toMatch(/PrusaSlicer/);
    // REFERENCE.tsv: the 20 mm cube with the reference profile is 3.50 g and 1689 s.
    expect(sliced.quote.grams).toBeCloseTo(3.5, 1);
    expect(sliced.quote.printSeconds).toBeGreaterThan(1689 * 0.98);
    expect(sliced.quote.printSeconds).toBeLessThan(1689 * 1.02);
  });

  it('re-slices when the settings change, and says why a model cannot be sliced', async () => {
    const design = await upload(seller, 'ps-20mm_cube.obj');
    const config = design.printConfigs[0];
    await configWhenSliced(seller, design.id, config.id);
    const changed = await seller.patch(`/api/print-configs/${config.id}`, { infillPercent: 60 });
    expect(changed.body.quote.basis).toBe('estimate');
    const resliced = await configWhenSliced(seller, design.id, config.id);
    expect(resliced.quote.basis).toBe('slicer');
    expect(resliced.quote.grams).toBeGreaterThan(3.5);

    const wing = await upload(seller, 'admesh-conveyor-nearby-bad.stl'); // 1.5 m long: does not fit the slicer's bed
    const refused = await configWhenSliced(seller, wing.id, wing.printConfigs[0].id);
    expect(refused.slicing.status).toBe('failed');
    expect(refused.slicing.error).toEqual(expect.any(String));
    expect(refused.quote.basis).toBe('estimate');
  });
});
