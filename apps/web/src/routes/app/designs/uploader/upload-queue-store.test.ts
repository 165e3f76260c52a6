import { describe, expect, it } from 'vitest';
import type { Design } from '@layerline/contracts';
import { UploadQueueStore, type StartUpload } from './upload-queue-store.ts';

class Cancelled extends Error {}

/** A fake transport whose uploads the test finishes by hand. */
function fakeTransport() {
  const started: {
    name: string;
    resolve(design: Design): void;
    reject(error: Error): void;
    progress(f: number): void;
    sent(): void;
  }[] = [];
  const start: StartUpload = (file, callbacks) => {
    let resolve!: (design: Design) => void;
    let reject!: (error: Error) => void;
    const done = new Promise<Design>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    started.push({
      name: file.name,
      resolve,
      reject,
      progress: callbacks.onProgress,
      sent: callbacks.onSent,
    });
    return { done, abort: () => reject(new Cancelled()) };
  };
  return { started, start };
}

const file = (name: string, size = 10) => new File([new Uint8Array(size)], name);
const design = (id: string) => ({ id }) as Design;
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('UploadQueueStore', () => {
  it('uploads two at a time and starts the next when one finishes', async () => {
    const transport = fakeTransport();
    const uploaded: string[] = [];
    const store = new UploadQueueStore(
      transport.start,
      (d) => uploaded.push(d.id),
      (e) => e instanceof Cancelled,
    );
    store.addFiles([file('a.stl'), file('b.obj'), file('c.3mf')]);
    expect(transport.started.map((s) => s.name)).toEqual(['a.stl', 'b.obj']);
    expect(store.getSnapshot().map((i) => i.status)).toEqual(['uploading', 'uploading', 'queued']);

    transport.started[0]!.progress(0.5);
    expect(store.getSnapshot()[0]!.progress).toBe(0.5);
    transport.started[0]!.sent();
    expect(store.getSnapshot()[0]!.status).toBe('analysing');
    transport.started[0]!.resolve(design('d1'));
    await settle();
    expect(store.getSnapshot()[0]).toMatchObject({ status: 'done', design: { id: 'd1' } });
    expect(uploaded).toEqual(['d1']);
    expect(transport.started.map((s) => s.name)).toEqual(['a.stl', 'b.obj', 'c.3mf']);
  });

  it('fails one file with its own message while the others continue', async () => {
    const transport = fakeTransport();
    const store = new UploadQueueStore(
      transport.start,
      () => {},
      (e) => e instanceof Cancelled,
    );
    store.addFiles([file('evil.stl'), file('good.stl')]);
    transport.started[0]!.reject(new Error('Not a 3D model: this file is a web page'));
    transport.started[1]!.resolve(design('d2'));
    await settle();
    expect(store.getSnapshot().map((i) => [i.status, i.error])).toEqual([
      ['failed', 'Not a 3D model: this file is a web page'],
      ['done', undefined],
    ]);
  });

  it('refuses wrong extensions before sending, and cancels queued and running uploads', async () => {
    const transport = fakeTransport();
    const store = new UploadQueueStore(
      transport.start,
      () => {},
      (e) => e instanceof Cancelled,
    );
    store.addFiles([file('notes.txt'), file('a.stl'), file('b.stl'), file('c.stl')]);
    expect(store.getSnapshot()[0]).toMatchObject({ status: 'failed' });
    expect(transport.started).toHaveLength(2);
    const [, a, , c] = store.getSnapshot();
    store.cancel(c!.key);
    store.cancel(a!.key);
    await settle();
    expect(store.getSnapshot().map((i) => i.status)).toEqual([
      'failed',
      'cancelled',
      'uploading',
      'cancelled',
    ]);
    store.clearFinished();
    expect(store.getSnapshot()).toHaveLength(1);
  });
});
