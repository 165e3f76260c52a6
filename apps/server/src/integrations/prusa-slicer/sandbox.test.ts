import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findExecutable } from './find-executable.ts';
import { livingInGroup } from './test-helpers.ts';
import { DEFAULT_SANDBOX_LIMITS, buildSandboxCommand, probeSandbox, runSandboxed, type SandboxIsolation } from './sandbox.ts';

const isolation: SandboxIsolation = await probeSandbox();
const noPrlimit = isolation.prlimit === null;
if (noPrlimit) console.warn('sandbox tests skipped: prlimit (util-linux) is not installed');
if (isolation.warnings.length > 0) console.warn(`sandbox isolation is partial here: ${isolation.warnings.join('; ')}`);

const SECRET = 'LAYERLINE_TEST_SECRET';

describe.skipIf(noPrlimit)('sandbox wrapper (skipped only when prlimit is missing)', () => {
  let workDir: string;
  const sandboxed = (command: string, args: string[], limits = DEFAULT_SANDBOX_LIMITS) =>
    buildSandboxCommand({ command, args, workDir, limits, isolation });

  beforeAll(async () => {
    workDir = await mkdtemp(path.join(os.tmpdir(), 'layerline-sandbox-test-'));
    if (isolation.dropTo) {
      await chown(workDir, isolation.dropTo.uid, isolation.dropTo.gid);
      await chmod(workDir, 0o700);
    }
    process.env[SECRET] = 'do-not-leak';
  });
  afterAll(async () => {
    delete process.env[SECRET];
    await rm(workDir, { recursive: true, force: true });
  });

  it('chains nice, unshare -n, setpriv and prlimit with the default limits', () => {
    const cmd = sandboxed('/usr/bin/prusa-slicer', ['--help']);
    const argv = [cmd.file, ...cmd.args];
    expect(argv.slice(0, 3)).toEqual([isolation.nice, '-n', '10'].filter((x) => x !== null));
    if (isolation.unshare) {
      expect(argv).toContain(isolation.unshare.path);
      expect(argv[argv.indexOf(isolation.unshare.path) + 1]).toMatch(/^-/);
      expect(isolation.unshare.args).toContain('-n');
      expect(cmd.networkIsolated).toBe(true);
    }
    expect(argv).toContain('--as=2147483648');
    expect(argv).toContain('--cpu=120:125');
    expect(argv).toContain('--core=0');
    expect(argv.slice(-2)).toEqual(['/usr/bin/prusa-slicer', '--help']);
    expect(cmd.env).toEqual({ PATH: expect.any(String), HOME: workDir, LANG: 'C.UTF-8' });
    expect(cmd.cwd).toBe(workDir);
  });

  it('as root here, network namespaces and the drop to nobody are available (the deployment target)', () => {
    if (process.getuid?.() !== 0) return;
    expect(isolation.unshare?.args).toEqual(['-n']);
    expect(isolation.dropTo).toMatchObject({ uid: 65534, gid: 65534 });
  });

  it('the child sees only PATH, HOME and LANG: no secrets from the server environment', async () => {
    const run = await runSandboxed(sandboxed('/usr/bin/env', []), { timeoutMs: 10_000 });
    expect(run.exitCode).toBe(0);
    const names = run.stdout.trim().split('\n').map((line) => line.split('=')[0]).sort();
    expect(names).toEqual(['HOME', 'LANG', 'PATH']);
    expect(run.stdout).not.toContain('do-not-leak');
  });

  it.skipIf(!isolation.unshare)('the child sees no network: only a loopback interface in its namespace', async () => {
    const run = await runSandboxed(sandboxed('/bin/cat', ['/proc/net/dev']), { timeoutMs: 10_000 });
    expect(run.exitCode).toBe(0);
    const interfaces = run.stdout.split('\n').slice(2).map((l) => l.split(':')[0]!.trim()).filter(Boolean);
    expect(interfaces).toEqual(['lo']);
    const ipBin = await findExecutable('ip', '/usr/sbin:/sbin:/usr/bin:/bin');
    if (!ipBin) return; // iproute2 is optional; /proc/net/dev above is the same namespace's view
    const ip = await runSandboxed(sandboxed(ipBin, ['-o', 'link']), { timeoutMs: 10_000 });
    expect(ip.exitCode).toBe(0);
    const links = ip.stdout.trim().split('\n').map((l) => l.split(':')[1]?.trim());
    expect(links).toEqual(['lo']);
  });

  it('runs as nobody with no capabilities, niced, under the limits', async () => {
    const run = await runSandboxed(sandboxed('/bin/sh', ['-c', 'id -u; grep -E "^(CapEff|NoNewPrivs)" /proc/self/status; cut -d" " -f19 /proc/self/stat; cat /proc/self/limits']), { timeoutMs: 10_000 });
    expect(run.exitCode).toBe(0);
    if (isolation.dropTo) {
      expect(run.stdout.split('\n')[0]).toBe('65534');
      expect(run.stdout).toMatch(/CapEff:\s+0+\n/);
      expect(run.stdout).toMatch(/NoNewPrivs:\s+1/);
    }
    if (isolation.nice) expect(run.stdout).toMatch(/\n10\n/);
    expect(run.stdout).toMatch(/Max address space\s+2147483648\s+2147483648/);
    expect(run.stdout).toMatch(/Max cpu time\s+120\s+125/);
    expect(run.stdout).toMatch(/Max core file size\s+0\s+0/);
  });

  it('keeps only a bounded tail of a chatty child', async () => {
    const run = await runSandboxed(sandboxed('/bin/sh', ['-c', 'head -c 3000000 /dev/zero | tr "\\0" x; echo END']), { timeoutMs: 10_000, outputCapBytes: 64 * 1024 });
    expect(run.outputTruncated).toBe(true);
    expect(run.stdout.length).toBeLessThanOrEqual(64 * 1024);
    expect(run.stdout.endsWith('END\n')).toBe(true);
  });

  it('a timeout kills the whole process group, grandchildren included', async () => {
    const run = await runSandboxed(sandboxed('/bin/sh', ['-c', 'sleep 30 & echo $!; sleep 30']), { timeoutMs: 300 });
    expect(run.timedOut).toBe(true);
    expect(run.signal).toBe('SIGKILL');
    expect(run.elapsedMs).toBeLessThan(2_000);
    const grandchild = Number(run.stdout.trim());
    expect(grandchild).toBeGreaterThan(0);
    expect(() => process.kill(run.pid!, 0)).toThrow(); // our child: reaped
    expect(livingInGroup(run.pid!)).toEqual([]); // the orphan may linger as a zombie until init reaps it
    expect(livingInGroup(run.pid!)).not.toContain(grandchild);
  });

  it('an abort signal stops the child the same way', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const run = await runSandboxed(sandboxed('/bin/sleep', ['30']), { timeoutMs: 10_000, signal: controller.signal });
    expect(run.aborted).toBe(true);
    expect(run.timedOut).toBe(false);
    expect(livingInGroup(run.pid!)).toEqual([]);
  });

  it('the CPU limit ends a spinning child with SIGXCPU', async () => {
    const run = await runSandboxed(sandboxed('/bin/sh', ['-c', 'while :; do :; done'], { ...DEFAULT_SANDBOX_LIMITS, cpuSeconds: 1 }), { timeoutMs: 10_000 });
    expect(run.timedOut).toBe(false);
    expect(run.signal).toBe('SIGXCPU');
  });
});
