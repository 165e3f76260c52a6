import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, startTestApp, TestClient } from '../test/test-app.ts';
import { DEMO_ACCOUNTS, DEMO_PRINTERS, DEMO_PASSWORDS_FILE, demoPasswords, readDemoPasswords, seedDemoData } from './demo-data.ts';

/** The demo passwords every install had before they were made per installation (issue 10, finding 0). */
const OLD_FIXED_PASSWORDS = { seller: 'demo-seller-print-farm', admin: 'demo-admin-print-farm' };

const MAIN = path.resolve(import.meta.dirname, 'main.ts');
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function scratchDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'layerline-main-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface Started {
  readonly child: ChildProcess;
  readonly baseUrl: string;
  readonly port: number;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly passwords: { seller: string; admin: string };
  stop(): Promise<void>;
}

/** `npm start`'s process (node src/main.ts) on a fresh data directory, as a local install runs it. */
async function startMain(env: Record<string, string>): Promise<Started> {
  const dataDir = scratchDir();
  const postgres = process.env.DATABASE_URL ? await createScratchDatabase(process.env.DATABASE_URL) : undefined;
  if (postgres) cleanups.push(() => postgres.drop());
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      PORT: '0',
      SLICING: 'off',
      LOG_LEVEL: 'error',
      ...(postgres ? { DATABASE_URL: postgres.url } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  cleanups.push(stop);
  const deadline = Date.now() + 110_000;
  while (!/passwords made for this installation/.test(out)) {
    if (child.exitCode !== null) throw new Error(`main.ts exited (${child.exitCode}):\n${out}\n${err}`);
    if (Date.now() > deadline) throw new Error(`main.ts did not start:\n${out}\n${err}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const url = /Layerline is running at (http:\/\/\S+)/.exec(out)![1]!;
  const port = Number(new URL(url).port);
  const seller = new RegExp(`Demo seller: ${DEMO_ACCOUNTS.seller.email} / (\\S+)`).exec(out)![1]!;
  const admin = new RegExp(`Demo admin: +${DEMO_ACCOUNTS.admin.email} / (\\S+)`).exec(out)![1]!;
  return { child, baseUrl: `http://127.0.0.1:${port}`, port, stdout: () => out, stderr: () => err, passwords: { seller, admin }, stop };
}

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 3000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** An address of this machine that other machines could reach (none on an isolated runner). */
const networkAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((entry) => entry && entry.family === 'IPv4' && !entry.internal)?.address;

const signIn = (baseUrl: string, email: string, password: string) =>
  new TestClient(baseUrl).post('/api/auth/sign-in/email', { email, password });

describe('the first README line (npm start) does not expose an admin (issue 10, finding 0)', () => {
  // Two full starts of the process (migrations, demo seeding with a model upload): minutes on a loaded 2-core machine.
  it('listens on 127.0.0.1 only by default, with demo passwords of its own that are printed, kept 0600, and no longer the old ones', { timeout: 240_000 }, async () => {
    const first = await startMain({});
    expect(first.stdout()).toMatch(/Layerline is running at http:\/\/127\.0\.0\.1:\d+/);
    if (networkAddress) expect(await accepts(networkAddress, first.port)).toBe(false);
    expect(await accepts('127.0.0.1', first.port)).toBe(true);

    // The passwords are random, printed, and the same as kept in the data directory (owner-only).
    for (const password of Object.values(first.passwords)) expect(password).toMatch(/^[\w-]{20}$/);
    expect(first.passwords).not.toEqual(OLD_FIXED_PASSWORDS);
    expect(first.passwords.admin).not.toBe(OLD_FIXED_PASSWORDS.admin);
    expect(first.passwords.seller).not.toBe(OLD_FIXED_PASSWORDS.seller);
    expect(first.passwords.admin).not.toBe(first.passwords.seller);
    const keptIn = /kept in (\S+)\)/.exec(first.stdout())![1]!;
    expect(path.basename(keptIn)).toBe(DEMO_PASSWORDS_FILE);
    expect(JSON.parse(fs.readFileSync(keptIn, 'utf8'))).toEqual(first.passwords);
    expect(fs.statSync(keptIn).mode & 0o777).toBe(0o600);

    // The old fixed password no longer signs in; this installation's does.
    expect((await signIn(first.baseUrl, DEMO_ACCOUNTS.admin.email, OLD_FIXED_PASSWORDS.admin)).status).toBe(401);
    const admin = await signIn(first.baseUrl, DEMO_ACCOUNTS.admin.email, first.passwords.admin);
    expect(admin.status).toBe(200);
    // Only loopback: no warning.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(first.stderr()).not.toMatch(/WARNING/);
    await first.stop();

    // Another installation (a fresh data directory) has other passwords; this one listens on every
    // interface, as HOST=0.0.0.0 asks, and says loudly that its demo admin is reachable.
    const second = await startMain({ HOST: '0.0.0.0' });
    expect(second.passwords.admin).not.toBe(first.passwords.admin);
    expect(second.passwords.seller).not.toBe(first.passwords.seller);
    const deadline = Date.now() + 5000;
    while (!/WARNING: demo accounts exist/.test(second.stderr()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(second.stderr()).toMatch(/WARNING: demo accounts exist \(one is an admin\) and this server listens on 0\.0\.0\.0, beyond this machine/);
    if (networkAddress) expect(await accepts(networkAddress, second.port)).toBe(true);
    expect((await signIn(second.baseUrl, DEMO_ACCOUNTS.admin.email, first.passwords.admin)).status).toBe(401);
    await second.stop();
  });

  it('moves an older install off the old fixed passwords at start, ending their sessions, and keeps its own across restarts', { timeout: 120_000 }, async () => {
    const t = await startTestApp();
    cleanups.push(() => t.close());
    // The demo accounts as every install before this change created them.
    for (const role of ['seller', 'admin'] as const) {
      const demo = DEMO_ACCOUNTS[role];
      await t.context.auth.api.signUpEmail({
        body: { email: demo.email, password: OLD_FIXED_PASSWORDS[role], name: demo.name, businessName: demo.businessName },
      });
    }
    const attacker = new TestClient(t.baseUrl);
    expect((await attacker.post('/api/auth/sign-in/email', { email: DEMO_ACCOUNTS.admin.email, password: OLD_FIXED_PASSWORDS.admin })).status).toBe(200);
    expect((await attacker.get('/api/me')).status).toBe(200);

    const dataDir = scratchDir();
    expect(readDemoPasswords(dataDir)).toBeUndefined();
    const passwords = demoPasswords(dataDir);
    await seedDemoData(t.context, passwords);
    for (const role of ['seller', 'admin'] as const) {
      expect((await signIn(t.baseUrl, DEMO_ACCOUNTS[role].email, OLD_FIXED_PASSWORDS[role])).status).toBe(401);
      expect((await signIn(t.baseUrl, DEMO_ACCOUNTS[role].email, passwords[role])).status).toBe(200);
    }
    expect((await attacker.get('/api/me')).status).toBe(401);

    // A restart reads the same passwords and changes nothing: sessions signed in with them live on.
    const owner = new TestClient(t.baseUrl);
    expect((await owner.post('/api/auth/sign-in/email', { email: DEMO_ACCOUNTS.admin.email, password: passwords.admin })).status).toBe(200);
    expect(demoPasswords(dataDir)).toEqual(passwords);
    expect(readDemoPasswords(dataDir)).toEqual(passwords);
    await seedDemoData(t.context, demoPasswords(dataDir));
    expect((await owner.get('/api/me')).status).toBe(200);
    // The demo farm (issue 11): made once, with its spools; a restart adds no printer.
    const printers = (await owner.get('/api/admin/printers')).body as { name: string; connection: { kind: string }; spools: unknown[] }[];
    expect(printers.map((p) => p.name).sort()).toEqual(DEMO_PRINTERS.map((p) => p.name).sort());
    expect(printers.every((p) => p.connection.kind === 'simulated' && p.spools.length === 2)).toBe(true);
  });
});
