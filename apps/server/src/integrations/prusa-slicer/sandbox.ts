import { execFile, spawn } from 'node:child_process';
import os from 'node:os';
import { findExecutable } from './find-executable.ts';

/**
 * Runs an untrusted-input subprocess (FILE-13): util-linux wrappers chained with exec, so the
 * process group leader is the tool itself:
 *
 *   nice -n 10 unshare -n -- setpriv --reuid=65534 ... -- prlimit --as=… --cpu=… -- COMMAND ARGS
 *
 * - `unshare -n`: a fresh network namespace with only a downed `lo` (needs root; otherwise
 *   `unshare -r -n` in a user namespace; otherwise none, with a warning);
 * - `setpriv`: drops to nobody:nogroup with no capabilities, no-new-privs and a parent-death
 *   SIGKILL (only when we are root; the network namespace has to be made before the drop);
 * - `prlimit`: address space, CPU seconds (SIGXCPU at the soft limit, SIGKILL 5 s later),
 *   output file size, no core dumps;
 * - spawned detached (its own session and process group), so a timeout kills the whole group;
 * - environment reduced to PATH/HOME/LANG; stdout/stderr kept to a tail of bounded size.
 */

export interface SandboxIsolation {
  prlimit: string | null;
  nice: string | null;
  /** `unshare` and its flags, or null when no network namespace can be made here. */
  unshare: { path: string; args: string[] } | null;
  /** `setpriv` and the user it drops to, or null when we stay the current user. */
  dropTo: { setpriv: string; uid: number; gid: number } | null;
  /** Why some isolation is missing in this environment (empty when all of it is there). */
  warnings: string[];
}

export interface SandboxLimits {
  addressSpaceBytes: number;
  cpuSeconds: number;
  fileSizeBytes: number;
}

export const DEFAULT_SANDBOX_LIMITS: Readonly<SandboxLimits> = {
  addressSpaceBytes: 2 * 1024 ** 3,
  cpuSeconds: 120,
  fileSizeBytes: 1024 ** 3,
};

/** Debian's nobody:nogroup. */
export const NOBODY_UID = 65534;
export const NOGROUP_GID = 65534;

export const SANDBOX_PATH = '/usr/local/bin:/usr/bin:/bin';
const SANDBOX_LANG = 'C.UTF-8';
const NICENESS = 10;

export interface SandboxCommand {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  networkIsolated: boolean;
  runAs: { uid: number; gid: number } | null;
}

export interface SandboxSpec {
  command: string;
  args: readonly string[];
  /** The job's writable directory: cwd and HOME of the child. */
  workDir: string;
  limits: SandboxLimits;
  isolation: SandboxIsolation;
}

/** The exact argv the sandbox runs; pure, so tests can run other commands through the same wrapper. */
export function buildSandboxCommand(spec: SandboxSpec): SandboxCommand {
  const { isolation, limits } = spec;
  if (!isolation.prlimit) throw new Error('prlimit (util-linux) is required to run the sandbox');
  const argv: string[] = [];
  if (isolation.nice) argv.push(isolation.nice, '-n', String(NICENESS));
  if (isolation.unshare) argv.push(isolation.unshare.path, ...isolation.unshare.args, '--');
  if (isolation.dropTo) argv.push(isolation.dropTo.setpriv, ...setprivArgs(isolation.dropTo.uid, isolation.dropTo.gid), '--');
  argv.push(
    isolation.prlimit,
    `--as=${Math.floor(limits.addressSpaceBytes)}`,
    `--cpu=${Math.ceil(limits.cpuSeconds)}:${Math.ceil(limits.cpuSeconds) + 5}`,
    `--fsize=${Math.floor(limits.fileSizeBytes)}`,
    '--core=0',
    '--',
    spec.command,
    ...spec.args,
  );
  const [file, ...args] = argv as [string, ...string[]];
  return {
    file,
    args,
    cwd: spec.workDir,
    env: { PATH: SANDBOX_PATH, HOME: spec.workDir, LANG: SANDBOX_LANG },
    networkIsolated: isolation.unshare !== null,
    runAs: isolation.dropTo ? { uid: isolation.dropTo.uid, gid: isolation.dropTo.gid } : null,
  };
}

function setprivArgs(uid: number, gid: number): string[] {
  return [
    `--reuid=${uid}`,
    `--regid=${gid}`,
    '--clear-groups',
    '--no-new-privs',
    '--inh-caps=-all',
    '--bounding-set=-all',
    '--pdeathsig=KILL',
  ];
}

// ---------------------------------------------------------------------------------------------
// Probing what this machine allows (once per process).

let probed: Promise<SandboxIsolation> | undefined;

export function probeSandbox(): Promise<SandboxIsolation> {
  probed ??= doProbe();
  return probed;
}

function succeeds(file: string, args: string[]): Promise<{ ok: boolean; detail: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 10_000, env: { PATH: SANDBOX_PATH, LANG: SANDBOX_LANG }, cwd: os.tmpdir() }, (error, _stdout, stderr) => {
      resolve({ ok: !error, detail: (stderr || (error?.message ?? '')).trim().split('\n')[0] ?? '' });
    });
  });
}

async function doProbe(): Promise<SandboxIsolation> {
  const find = (name: string) => findExecutable(name, SANDBOX_PATH);
  const [prlimit, nice, unshare, setpriv, trueBin] = await Promise.all([find('prlimit'), find('nice'), find('unshare'), find('setpriv'), find('true')]);
  const warnings: string[] = [];
  if (!prlimit) warnings.push('prlimit (util-linux) not found: the sandbox cannot set resource limits');
  if (!nice) warnings.push('nice not found: the slicer runs at normal priority');

  let unshareSpec: SandboxIsolation['unshare'] = null;
  if (unshare && trueBin) {
    const plain = await succeeds(unshare, ['-n', '--', trueBin]);
    if (plain.ok) {
      unshareSpec = { path: unshare, args: ['-n'] };
    } else {
      const userns = await succeeds(unshare, ['-r', '-n', '--', trueBin]);
      if (userns.ok) unshareSpec = { path: unshare, args: ['-r', '-n'] };
      else warnings.push(`no network isolation: unshare -n was refused (${plain.detail || 'unknown reason'})`);
    }
  } else {
    warnings.push('no network isolation: unshare (util-linux) not found');
  }

  let dropTo: SandboxIsolation['dropTo'] = null;
  const isRoot = process.getuid?.() === 0;
  if (isRoot && setpriv && trueBin) {
    // Inside the same namespace wrapper, as the real run will be.
    const prefix = unshareSpec ? [...unshareSpec.args, '--', setpriv] : [];
    const file = unshareSpec ? unshareSpec.path : setpriv;
    const drop = await succeeds(file, [...prefix, ...setprivArgs(NOBODY_UID, NOGROUP_GID), '--', trueBin]);
    if (drop.ok) dropTo = { setpriv, uid: NOBODY_UID, gid: NOGROUP_GID };
    else warnings.push(`running the slicer as root: setpriv could not drop to nobody (${drop.detail || 'unknown reason'})`);
  } else if (isRoot) {
    warnings.push('running the slicer as root: setpriv (util-linux) not found');
  }
  return { prlimit, nice, unshare: unshareSpec, dropTo, warnings };
}

// ---------------------------------------------------------------------------------------------
// Running.

export interface SandboxRunOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Bytes kept of each of stdout and stderr (the tail); default 256 KiB. */
  outputCapBytes?: number;
}

export interface SandboxRun {
  pid: number | undefined;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  outputTruncated: boolean;
  timedOut: boolean;
  aborted: boolean;
  elapsedMs: number;
  /** From our SIGKILL to the child's exit, when we killed it. */
  killLatencyMs: number | null;
}

export const DEFAULT_OUTPUT_CAP_BYTES = 256 * 1024;

/** Keeps the last `cap` bytes written to it. */
class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  private readonly cap: number;
  truncated = false;
  constructor(cap: number) {
    this.cap = cap;
  }
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.cap && this.chunks.length > 0) {
      const first = this.chunks[0]!;
      const excess = this.size - this.cap;
      this.truncated = true;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** Runs the command; resolves when it has exited and its output is closed, never rejects for a non-zero exit. */
export function runSandboxed(command: SandboxCommand, options: SandboxRunOptions): Promise<SandboxRun> {
  const cap = options.outputCapBytes ?? DEFAULT_OUTPUT_CAP_BYTES;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      resolve({ pid: undefined, exitCode: null, signal: null, stdout: '', stderr: '', outputTruncated: false, timedOut: false, aborted: true, elapsedMs: 0, killLatencyMs: null });
      return;
    }
    const child = spawn(command.file, command.args, {
      cwd: command.cwd,
      env: command.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout = new TailBuffer(cap);
    const stderr = new TailBuffer(cap);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));

    let timedOut = false;
    let aborted = false;
    let killedAt: number | null = null;
    let exitedAt: number | null = null;
    let settled = false;

    const kill = (): void => {
      killedAt ??= performance.now();
      killGroup(child.pid);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      kill();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const cleanup = (): void => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    child.on('exit', () => {
      exitedAt = performance.now();
    });
    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      cleanup();
      kill();
      reject(error);
    });
    child.on('close', (exitCode, signal) => {
      if (settled) return;
      settled = true;
      cleanup();
      // Anything the tool left behind in its process group goes too.
      killGroup(child.pid);
      const end = exitedAt ?? performance.now();
      resolve({
        pid: child.pid,
        exitCode,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        outputTruncated: stdout.truncated || stderr.truncated,
        timedOut,
        aborted,
        elapsedMs: Math.round(end - started),
        killLatencyMs: killedAt === null ? null : Math.round((end - killedAt) * 10) / 10,
      });
    });
  });
}
