import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { loadConfig } from './config.ts';
import { bootstrap } from './bootstrap.ts';
import { createScratchDatabase } from '../test/test-app.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'layerline-restart-'));
const scratch = process.env.DATABASE_URL ? await createScratchDatabase(process.env.DATABASE_URL) : undefined;
afterAll(async () => {
  await scratch?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

it('starts again on the data it left behind (migrations, job queues, demo data)', async () => {
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    SLICING: 'off',
    ...(scratch ? { DATABASE_URL: scratch.url } : {}),
  });
  const silent = { error: () => undefined };
  for (let start = 1; start <= 2; start++) {
    const running = await bootstrap(config, silent, { workJobs: true });
    const stats = await running.jobs.stats();
    expect(stats.map((q) => q.name)).toEqual(expect.arrayContaining(['shop-sync', 'slice-print-config', 'webhook-delivery']));
    await running.close();
  }
});
