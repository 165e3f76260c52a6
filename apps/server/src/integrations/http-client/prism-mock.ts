import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';

/**
 * Test helper: Prism (@stoplight/prism-cli, a root devDependency) as a validating mock of a
 * vendor's OpenAPI file. Prism answers valid requests with the spec's examples and rejects invalid
 * ones with 4xx and an `sl-violations` header. Start once per test file (3-6 s), stop in afterAll.
 * Started without `--errors` (see /work/shared/guide/contract-testing.md).
 */
export interface PrismMock {
  readonly origin: string;
  stop(): Promise<void>;
}

/** One request a contract test sent, and what the mock answered (`sl-violations`: Prism's findings). */
export interface RecordedCall {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
  readonly status: number;
  readonly violations: string | null;
  readonly requestBody: string;
  readonly body: string;
}

/**
 * A fetch that records every call into the list `into()` gives at that moment (tests replace the
 * list in beforeEach), for asserting that the mock found no violation.
 */
export const recordingFetchInto =
  (into: () => RecordedCall[]): typeof fetch =>
  async (input, init) => {
    const response = await fetch(input, init);
    into().push({
      method: init?.method ?? 'GET',
      url: new URL(input instanceof Request ? input.url : input),
      headers: new Headers(init?.headers),
      status: response.status,
      violations: response.headers.get('sl-violations'),
      requestBody: typeof init?.body === 'string' ? init.body : '',
      body: await response.clone().text(),
    });
    return response;
  };

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

const prismBin = (): string => {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@stoplight/prism-cli/package.json')), 'dist', 'index.js');
};

export const startPrismMock = async (specPath: string, timeoutMs = 60_000): Promise<PrismMock> => {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [prismBin(), 'mock', '-h', '127.0.0.1', '-p', String(port), specPath],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group, so stop() ends Prism and anything it started
    },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`Prism did not start within ${timeoutMs} ms:\n${output.slice(-2000)}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('Prism is listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Prism exited with code ${code}:\n${output.slice(-2000)}`));
    });
  });
  // Keep draining its output so a full pipe never blocks it.
  child.stdout?.removeAllListeners('data');
  child.stderr?.removeAllListeners('data');
  child.stdout?.resume();
  child.stderr?.resume();

  return {
    origin: `http://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode !== null || child.pid === undefined) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        return;
      }
      const timer = setTimeout(() => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }, 3000);
      await exited;
      clearTimeout(timer);
    },
  };
};
