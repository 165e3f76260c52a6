import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Test helper: an in-process HTTP server for the printer adapters' fakes (OctoPrint, Moonraker),
 * with injectable faults: the next answer(s) can be an HTML page, JSON of the wrong shape, any
 * status, or no answer at all (the client's timeout fires). Requests are recorded.
 */
export interface FakeRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

export interface FakeAnswer {
  readonly status: number;
  readonly json?: unknown;
  readonly text?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export type Fault =
  | 'html'
  | 'wrong-json'
  | 'hang'
  | { readonly status: number; readonly json?: unknown; readonly text?: string };

export interface FakePrinterServer {
  readonly origin: string;
  readonly requests: FakeRequest[];
  /** Faults for the next requests, in order (one each). */
  readonly faults: Fault[];
  /** Builds a multipart body's FormData from a recorded request (for upload assertions). */
  formData(request: FakeRequest): Promise<FormData>;
  stop(): Promise<void>;
}

const send = (res: ServerResponse, answer: FakeAnswer): void => {
  if (answer.json !== undefined) {
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(JSON.stringify(answer.json));
  } else {
    res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
    res.end(answer.text ?? '');
  }
};

export const startFakePrinterServer = async (
  handle: (request: FakeRequest) => FakeAnswer | Promise<FakeAnswer>,
): Promise<FakePrinterServer> => {
  const requests: FakeRequest[] = [];
  const faults: Fault[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: FakeRequest = {
        method: req.method ?? '',
        url: new URL(req.url ?? '/', 'http://fake'),
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      requests.push(request);
      const fault = faults.shift();
      if (fault === 'hang') return; // never answer; the socket is closed in stop()
      if (fault === 'html') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<!DOCTYPE html><html><body><h1>Welcome to nginx!</h1></body></html>');
        return;
      }
      if (fault === 'wrong-json') return send(res, { status: 200, json: { hello: 'world', state: 42 } });
      if (fault) return send(res, { status: fault.status, json: fault.json, text: fault.text });
      Promise.resolve(handle(request)).then(
        (answer) => send(res, answer),
        (error: unknown) => send(res, { status: 500, text: String(error) }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    faults,
    formData: (request) =>
      new Request(origin, {
        method: 'POST',
        headers: { 'content-type': String(request.headers['content-type'] ?? '') },
        body: new Uint8Array(request.body),
      }).formData(),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
