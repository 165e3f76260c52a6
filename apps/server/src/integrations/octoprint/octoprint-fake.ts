import {
  startFakePrinterServer,
  type FakeAnswer,
  type FakePrinterServer,
  type FakeRequest,
} from '../http-client/fake-printer-server.ts';
import {
  JOB_PRINTING_EXAMPLE,
  PRINTER_OPERATIONAL_EXAMPLE,
  UPLOAD_EXAMPLE,
  VERSION_EXAMPLE,
} from './octoprint-examples.ts';

/**
 * Test helper: an in-process OctoPrint that follows its documents (docs/api/job.rst, files.rst,
 * printer.rst, version.rst): X-Api-Key required (403 otherwise), multipart upload to
 * /api/files/local with `file`, `select`, `print`; job commands with the documented 409s; the
 * state flags and job progress of the documented examples. The test drives the print
 * (`advance`, `finish`, `fail`, `disconnect`).
 */
export interface OctoprintFake extends FakePrinterServer {
  readonly apiKey: string;
  readonly files: Map<string, Buffer>;
  state: 'Operational' | 'Printing' | 'Paused' | 'Error' | 'Offline';
  selected: string | null;
  /** Percent, as OctoPrint reports it. */
  completion: number | null;
  error: string | null;
  advance(percent: number): void;
  finish(): void;
  fail(message: string): void;
  disconnect(): void;
}

const json = (status: number, body: unknown): FakeAnswer => ({ status, json: body });
const empty = (status: number): FakeAnswer => ({ status, text: '' });

export const startOctoprintFake = async (apiKey = 'octo-key-1234'): Promise<OctoprintFake> => {
  const readJson = (request: FakeRequest): Record<string, unknown> | null => {
    if (!String(request.headers['content-type'] ?? '').includes('application/json')) return null;
    try {
      return JSON.parse(request.body.toString('utf8')) as Record<string, unknown>;
    } catch {
      return null;
    }
  };
  const active = (): boolean => fake.state === 'Printing' || fake.state === 'Paused';
  const startPrinting = (name: string): void => {
    fake.selected = name;
    fake.state = 'Printing';
    fake.completion = 0;
    fake.error = null;
  };

  const handle = async (request: FakeRequest): Promise<FakeAnswer> => {
    if (request.headers['x-api-key'] !== apiKey) return { status: 403, text: 'Forbidden' };
    const path = request.url.pathname;

    if (request.method === 'GET' && path === '/api/version') return json(200, VERSION_EXAMPLE);

    if (request.method === 'GET' && path === '/api/printer') {
      if (fake.state === 'Offline') return { status: 409, text: 'Printer is not operational' };
      const flags = {
        ...PRINTER_OPERATIONAL_EXAMPLE.state.flags,
        printing: fake.state === 'Printing',
        paused: fake.state === 'Paused',
        error: fake.state === 'Error',
        closedOrError: fake.state === 'Error',
        operational: fake.state !== 'Error',
        ready: fake.state === 'Operational',
      };
      return json(200, { ...PRINTER_OPERATIONAL_EXAMPLE, state: { text: fake.state, flags } });
    }

    if (request.method === 'GET' && path === '/api/job') {
      return json(200, {
        job: {
          ...JOB_PRINTING_EXAMPLE.job,
          file: { ...JOB_PRINTING_EXAMPLE.job.file, name: fake.selected },
        },
        progress: {
          ...JOB_PRINTING_EXAMPLE.progress,
          completion: fake.completion,
          printTimeLeft: fake.completion === null ? null : Math.round((100 - fake.completion) * 10),
        },
        state: fake.state === 'Error' ? 'Offline after error' : fake.state,
        ...(fake.error ? { error: fake.error } : {}),
      });
    }

    if (request.method === 'POST' && path === '/api/files/local') {
      if (!String(request.headers['content-type'] ?? '').startsWith('multipart/form-data'))
        return { status: 400, text: 'No file included' };
      const form = await fake.formData(request);
      const file = form.get('file');
      if (!(file instanceof File) || !file.name) return { status: 400, text: 'No file included' };
      if (!/\.(gcode|gco|g|stl)$/i.test(file.name))
        return { status: 415, text: 'Could not upload the file, unsupported type' };
      if (active() && fake.selected === file.name)
        return { status: 409, text: 'Trying to overwrite file that is currently being printed' };
      fake.files.set(file.name, Buffer.from(await file.arrayBuffer()));
      const wantPrint = form.get('print') === 'true';
      const canPrint = wantPrint && fake.state === 'Operational';
      if (canPrint) startPrinting(file.name);
      return json(201, {
        ...UPLOAD_EXAMPLE,
        files: { local: { ...UPLOAD_EXAMPLE.files.local, name: file.name, path: file.name } },
        done: true,
        effectiveSelect: canPrint,
        effectivePrint: canPrint,
      });
    }

    const fileCommand = /^\/api\/files\/local\/(.+)$/.exec(path);
    if (request.method === 'POST' && fileCommand) {
      const name = decodeURIComponent(fileCommand[1]!);
      const body = readJson(request);
      if (!body || body.command !== 'select') return { status: 400, text: 'Unknown command' };
      if (!fake.files.has(name)) return { status: 404, text: 'File not found' };
      if (active()) return { status: 409, text: 'Printer is already printing' };
      if (body.print === true) {
        if (fake.state !== 'Operational') return { status: 409, text: 'Printer is not operational' };
        startPrinting(name);
      } else fake.selected = name;
      return empty(204);
    }

    if (request.method === 'POST' && path === '/api/job') {
      const body = readJson(request);
      if (!body) return { status: 400, text: 'Expected content-type JSON' };
      if (body.command === 'start') {
        if (active() || !fake.selected || fake.state !== 'Operational')
          return { status: 409, text: 'Printer is busy' };
        startPrinting(fake.selected);
        return empty(204);
      }
      if (body.command === 'cancel') {
        if (!active()) return { status: 409, text: 'No active print job' };
        fake.state = 'Operational';
        return empty(204);
      }
      if (body.command === 'pause') {
        if (!active()) return { status: 409, text: 'No active print job' };
        const action = body.action ?? 'toggle';
        if (action === 'pause') fake.state = 'Paused';
        else if (action === 'resume') fake.state = 'Printing';
        else if (action === 'toggle') fake.state = fake.state === 'Paused' ? 'Printing' : 'Paused';
        else return { status: 400, text: 'Unknown action' };
        return empty(204);
      }
      return { status: 400, text: 'Unknown command' };
    }

    return { status: 404, text: 'Not found' };
  };

  const server = await startFakePrinterServer(handle);
  const fake: OctoprintFake = Object.assign(server, {
    apiKey,
    files: new Map<string, Buffer>(),
    state: 'Operational' as OctoprintFake['state'],
    selected: null as string | null,
    completion: null as number | null,
    error: null as string | null,
    advance(percent: number) {
      fake.completion = percent;
    },
    finish() {
      fake.completion = 100;
      fake.state = 'Operational';
    },
    fail(message: string) {
      fake.state = 'Error';
      fake.error = message;
    },
    disconnect() {
      fake.state = 'Offline';
    },
  });
  return fake;
};
