import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config.ts';
import type { AppContext } from '../src/app-context.ts';
import { bootstrap, type Running } from '../src/bootstrap.ts';
import { buildHttpServer, type RateLimits } from '../src/http/app.ts';

/**
 * A real Layerline server for a test suite: the real HTTP stack on a random port, on an embedded
 * PGlite in a temporary directory, or — when DATABASE_URL is set — on a fresh PostgreSQL database
 * created for this suite and dropped after it.
 */
export interface TestApp {
  readonly baseUrl: string;
  readonly context: AppContext;
  readonly app: FastifyInstance;
  readonly databaseKind: 'pglite' | 'postgres';
  readonly running: Running;
  /** A client with its own cookie jar, as one browser would be. */
  client(): TestClient;
  /** Signs up a new account and returns a client signed in as it. */
  signUp(options?: SignUpOptions): Promise<SignedInClient>;
  close(): Promise<void>;
}

export interface SignUpOptions {
  email?: string;
  password?: string;
  name?: string;
  role?: 'seller' | 'beta' | 'admin';
  extra?: Record<string, unknown>;
}

export interface SignedInClient extends TestClient {
  readonly userId: string;
  readonly email: string;
  readonly password: string;
}

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

let counter = 0;
export const uniqueEmail = (prefix = 'user'): string =>
  `${prefix}-${process.pid}-${Date.now().toString(36)}-${++counter}@example.test`;

export async function startTestApp(
  env: Record<string, string> = {},
  rateLimits: Partial<RateLimits> = { apiPerMinute: 100_000, contactPer10Minutes: 10_000, paymentWebhooksPerMinute: 100_000 },
): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'layerline-test-'));
  const postgres = process.env.DATABASE_URL ? await createScratchDatabase(process.env.DATABASE_URL) : undefined;
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    // Exact slicing costs seconds of CPU per upload; the suites that test it turn it on.
    SLICING: 'off',
    WEB_DIST_DIR: path.resolve(import.meta.dirname, '../../web/dist'),
    ...(postgres ? { DATABASE_URL: postgres.url } : {}),
    ...env,
  });
  const silent = { error: () => undefined };
  const running: Running = await bootstrap(config, silent, { workJobs: true });
  const { context } = running;
  const app = await buildHttpServer(context, { rateLimits });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  const baseUrl = `http://127.0.0.1:${address.port}`;

  const testApp: TestApp = {
    baseUrl,
    context,
    app,
    databaseKind: running.databaseKind,
    running,
    client: () => new TestClient(baseUrl),
    async signUp(options = {}) {
      const email = options.email ?? uniqueEmail(options.role ?? 'seller');
      const password = options.password ?? 'a sturdy test passphrase';
      const client = new TestClient(baseUrl);
      const response = await client.post('/api/auth/sign-up/email', {
        email,
        password,
        name: options.name ?? 'Test User',
        ...options.extra,
      });
      if (response.status !== 200) throw new Error(`sign-up failed: ${response.status} ${JSON.stringify(response.body)}`);
      const userId = response.body.user.id as string;
      if (options.role === 'admin') await context.users.setFlags(userId, { isAdmin: true });
      if (options.role === 'beta') await context.users.setFlags(userId, { isBetaTester: true });
      return Object.assign(client, { userId, email, password });
    },
    async close() {
      await app.close();
      await running.close();
      await postgres?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return testApp;
}

/** A fetch client that keeps cookies and sends the headers a same-origin browser would. */
export class TestClient {
  private readonly cookies = new Map<string, string>();
  readonly baseUrl: string;
  bearer: string | undefined;

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl;
  }

  get<T = any>(urlPath: string, headers: Record<string, string> = {}): Promise<TestResponse<T>> {
    return this.request('GET', urlPath, undefined, headers);
  }
  post<T = any>(urlPath: string, json?: unknown, headers: Record<string, string> = {}): Promise<TestResponse<T>> {
    return this.request('POST', urlPath, json, headers);
  }
  patch<T = any>(urlPath: string, json?: unknown, headers: Record<string, string> = {}): Promise<TestResponse<T>> {
    return this.request('PATCH', urlPath, json, headers);
  }
  delete<T = any>(urlPath: string, headers: Record<string, string> = {}): Promise<TestResponse<T>> {
    return this.request('DELETE', urlPath, undefined, headers);
  }

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async request<T>(method: string, urlPath: string, json: unknown, extra: Record<string, string>): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { accept: 'application/json', origin: this.baseUrl, 'sec-fetch-site': 'same-origin' };
    if (json !== undefined) headers['content-type'] = 'application/json';
    if (this.cookies.size > 0) headers.cookie = this.cookieHeader();
    if (this.bearer) headers.authorization = `Bearer ${this.bearer}`;
    Object.assign(headers, extra);
    for (const [key, value] of Object.entries(headers)) if (value === '') delete headers[key];
    const response = await fetch(new URL(urlPath, this.baseUrl), {
      method,
      headers,
      body: json === undefined ? undefined : JSON.stringify(json),
      redirect: 'manual',
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const index = pair!.indexOf('=');
      const name = pair!.slice(0, index);
      const value = pair!.slice(index + 1);
      if (/Max-Age=0/i.test(cookie) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, headers: response.headers, body: body as T };
  }
}

/** Uploads a model file as the client's seller (POST /api/designs, multipart) and answers the design, which must be created. */
export async function uploadDesign(client: SignedInClient, bytes: Uint8Array, fileName: string): Promise<any> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), fileName);
  const response = await fetch(new URL('/api/designs', client.baseUrl), {
    method: 'POST',
    headers: { cookie: client.cookieHeader(), origin: client.baseUrl },
    body: form,
  });
  if (response.status !== 201) throw new Error(`Uploading ${fileName} answered ${response.status}: ${await response.text()}`);
  return response.json();
}

export async function createScratchDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `layerline_test_${process.pid}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
