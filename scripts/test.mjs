#!/usr/bin/env node
// The whole test suite: builds the web app the browser tests load, then runs every vitest
// project (unit, api, e2e). Extra arguments go to vitest, e.g. `npm test -- --project unit`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const args = process.argv.slice(2);
const wantsE2e = args.length === 0 || args.includes('e2e');

if (wantsE2e && !existsSync(CHROMIUM)) {
  console.error(
    `Browser tests need Chromium at ${CHROMIUM}, which is missing.\n` +
      'Install it with: sudo apt-get install -y chromium   (or set CHROMIUM_PATH)',
  );
  process.exit(1);
}

const run = (command, commandArgs) => {
  const result = spawnSync(command, commandArgs, { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
};

if (wantsE2e) run('npm', ['run', 'build', '-w', '@layerline/web']);
run('npx', ['vitest', 'run', ...args]);
