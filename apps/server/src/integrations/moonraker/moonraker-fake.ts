import {
  startFakePrinterServer,
  type FakeAnswer,
  type FakePrinterServer,
  type FakeRequest,
} from '../http-client/fake-printer-server.ts';
import {
  ERROR_EXAMPLE,
  OBJECTS_QUERY_PRINTING_EXAMPLE,
  PRINTER_INFO_EXAMPLE,
  SERVER_INFO_EXAMPLE,
  UPLOAD_EXAMPLE,
} from './moonraker-examples.ts';

/**
 * Test helper: an in-process Moonraker following docs/external_api/*.md: answers wrapped in
 * `{"result": …}`, errors as `{"error": {code, message}}` (Klipper's refusals are 400, Klippy not
 * connected is 503), an optional X-Api-Key (401 without it when one is set), multipart upload with
 * `root` and `print`, and the objects query read from the query string's keys.
 */
export interface MoonrakerFake extends FakePrinterServer {
  apiKey: string | null;
  readonly files: Map<string, Buffer>;
  klippy: 'ready' | 'startup' | 'shutdown' | 'disconnected';
  printState: 'standby' | 'printing' | 'paused' | 'complete' | 'cancelled' | 'error';
  fileName: string;
  progress: number;
  printDuration: number;
  layer: { current: number | null; total: number | null };
  message: string;
  lastQueriedObjects: string[];
}

const result = (value: unknown, status = 200): FakeAnswer => ({ status, json: { result: value } });
const error = (status: number, message: string): FakeAnswer => ({
  status,
  json: ERROR_EXAMPLE(status, message),
});

export const startMoonrakerFake = async (): Promise<MoonrakerFake> => {
  const handle = async (request: FakeRequest): Promise<FakeAnswer> => {
    if (fake.apiKey !== null && request.headers['x-api-key'] !== fake.apiKey)
      return error(401, 'Unauthorized');
    const path = request.url.pathname;
    if (request.method === 'GET' && path === '/server/info') {
      return result({
        ...SERVER_INFO_EXAMPLE.result,
        klippy_state: fake.klippy,
        klippy_connected: fake.klippy !== 'disconnected',
      });
    }
    if (path.startsWith('/printer/') && fake.klippy === 'disconnected')
      return error(503, 'Klippy Host not connected');
    if (request.method === 'GET' && path === '/printer/info') return result(PRINTER_INFO_EXAMPLE.result);

    if (request.method === 'GET' && path === '/printer/objects/query') {
      fake.lastQueriedObjects = [...request.url.searchParams.keys()];
      const example = OBJECTS_QUERY_PRINTING_EXAMPLE.result.status;
      const all: Record<string, unknown> = {
        webhooks: {
          state: fake.klippy,
          state_message: fake.klippy === 'ready' ? 'Printer is ready' : "MCU 'mcu' shutdown: Timer too close",
        },
        print_stats: {
          ...example.print_stats,
          filename: fake.printState === 'standby' ? '' : fake.fileName,
          state: fake.printState,
          print_duration: fake.printDuration,
          message: fake.message,
          info: { current_layer: fake.layer.current, total_layer: fake.layer.total },
        },
        virtual_sdcard: {
          ...example.virtual_sdcard,
          progress: fake.progress,
          is_active: fake.printState === 'printing',
        },
        extruder: example.extruder,
        heater_bed: example.heater_bed,
      };
      // Requested objects only; an unknown object is left out, never an error (printer.md).
      const status = Object.fromEntries(
        fake.lastQueriedObjects.filter((key) => key in all).map((key) => [key, all[key]]),
      );
      return result({ eventtime: OBJECTS_QUERY_PRINTING_EXAMPLE.result.eventtime, status });
    }

    if (request.method === 'POST' && path === '/server/files/upload') {
      if (!String(request.headers['content-type'] ?? '').startsWith('multipart/form-data'))
        return error(400, 'No file found in upload');
      const form = await fake.formData(request);
      const file = form.get('file');
      if (!(file instanceof File)) return error(400, 'No file found in upload');
      const root = form.get('root') ?? 'gcodes';
      if (root !== 'gcodes') return error(400, `Invalid root request: ${String(root)}`);
      fake.files.set(file.name, Buffer.from(await file.arrayBuffer()));
      const wantPrint = form.get('print') === 'true';
      const started = wantPrint && fake.printState !== 'printing' && fake.printState !== 'paused';
      if (started) start(file.name);
      return {
        status: 201,
        json: {
          ...UPLOAD_EXAMPLE,
          item: { ...UPLOAD_EXAMPLE.item, path: file.name },
          print_started: started,
        },
      };
    }

    if (request.method === 'POST' && path === '/printer/print/start') {
      const filename = request.url.searchParams.get('filename');
      if (!filename) return error(400, 'No data for argument: filename');
      if (fake.printState === 'printing' || fake.printState === 'paused')
        return error(400, 'Print is already in progress');
      if (!fake.files.has(filename)) return error(400, `Unable to open file "${filename}"`);
      start(filename);
      return result('ok');
    }
    if (request.method === 'POST' && path === '/printer/print/pause') {
      if (fake.printState === 'printing') fake.printState = 'paused';
      else if (fake.printState !== 'paused') return error(400, 'Print is not in progress');
      return result('ok');
    }
    if (request.method === 'POST' && path === '/printer/print/resume') {
      if (fake.printState === 'paused') fake.printState = 'printing';
      else if (fake.printState !== 'printing') return error(400, 'Print is not paused, resume aborted');
      return result('ok');
    }
    if (request.method === 'POST' && path === '/printer/print/cancel') {
      if (fake.printState === 'printing' || fake.printState === 'paused') fake.printState = 'cancelled';
      return result('ok');
    }
    return error(404, 'Not Found');
  };

  const start = (name: string): void => {
    fake.fileName = name;
    fake.printState = 'printing';
    fake.progress = 0;
    fake.printDuration = 0;
    fake.message = '';
  };

  const server = await startFakePrinterServer(handle);
  const fake: MoonrakerFake = Object.assign(server, {
    apiKey: null as string | null,
    files: new Map<string, Buffer>(),
    klippy: 'ready' as MoonrakerFake['klippy'],
    printState: 'standby' as MoonrakerFake['printState'],
    fileName: '',
    progress: 0,
    printDuration: 0,
    layer: { current: null as number | null, total: null as number | null },
    message: '',
    lastQueriedObjects: [] as string[],
  });
  return fake;
};
