import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { lockDataDir } from './data-dir-lock.ts';

const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'layerline-lock-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => dirs.splice(0).forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/** Tries to take the lock from another process, as a second server would. */
function lockFromAnotherProcess(dir: string) {
  const script = `import { lockDataDir } from ${JSON.stringify(path.resolve(import.meta.dirname, 'data-dir-lock.ts'))};
    try { lockDataDir(${JSON.stringify(dir)})(); console.log('locked'); } catch (e) { console.log(e.message); process.exit(3); }`;
  return spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
}

describe('the data directory lock', () => {
  it('keeps a second process out while the first holds it, and lets it in afterwards', () => {
    const dir = tempDir();
    const unlock = lockDataDir(dir);
    const refused = lockFromAnotherProcess(dir);
    expect(refused.status).toBe(3);
    expect(refused.stdout).toMatch(new RegExp(`in use by process ${process.pid}`));
    unlock();
    const allowed = lockFromAnotherProcess(dir);
    expect(allowed.status).toBe(0);
    expect(allowed.stdout.trim()).toBe('locked');
  });

  it('takes over a lock left by a process that died', () => {
    const dir = tempDir();
    const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid!;
    fs.writeFileSync(path.join(dir, 'layerline.lock'), String(dead));
    const unlock = lockDataDir(dir);
    expect(fs.readFileSync(path.join(dir, 'layerline.lock'), 'utf8')).toBe(String(process.pid));
    unlock();
    expect(fs.existsSync(path.join(dir, 'layerline.lock'))).toBe(false);
  });
});
