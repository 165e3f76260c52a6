import type { Design } from '@layerline/contracts';
import { refusalBeforeUpload } from './upload-validation.ts';

export type UploadStatus = 'queued' | 'uploading' | 'analysing' | 'done' | 'failed' | 'cancelled';

export interface UploadItem {
  readonly key: number;
  readonly fileName: string;
  readonly sizeBytes: number;
  readonly status: UploadStatus;
  /** 0..1 while uploading. */
  readonly progress: number;
  readonly design?: Design;
  readonly error?: string;
}

/** How one file is sent (XHR in the app, a fake in tests). */
export type StartUpload = (
  file: File,
  callbacks: { onProgress(fraction: number): void; onSent(): void },
) => { done: Promise<Design>; abort(): void };

/** Two uploads at a time: enough to keep the line busy without starving the server's analysis. */
export const PARALLEL_UPLOADS = 2;

const ACTIVE: ReadonlySet<UploadStatus> = new Set(['queued', 'uploading', 'analysing']);

export function isActive(item: UploadItem): boolean {
  return ACTIVE.has(item.status);
}

/**
 * The files a seller dropped, each on its own request so one broken file fails alone, at most
 * PARALLEL_UPLOADS at once. A plain store (subscribe/getSnapshot) rather than React state: it is
 * driven by XHR callbacks, not by rendering.
 */
export class UploadQueueStore {
  private items: readonly UploadItem[] = [];
  private readonly waiting: { key: number; file: File }[] = [];
  private readonly running = new Map<number, { abort(): void }>();
  private readonly listeners = new Set<() => void>();
  private nextKey = 1;
  private readonly startUpload: StartUpload;
  private readonly onUploaded: (design: Design) => void;
  private readonly isCancelled: (error: unknown) => boolean;

  constructor(
    startUpload: StartUpload,
    onUploaded: (design: Design) => void,
    isCancelled: (error: unknown) => boolean,
  ) {
    this.startUpload = startUpload;
    this.onUploaded = onUploaded;
    this.isCancelled = isCancelled;
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getSnapshot = (): readonly UploadItem[] => this.items;

  addFiles(files: Iterable<File>): void {
    const added: UploadItem[] = [];
    for (const file of files) {
      const key = this.nextKey++;
      const refusal = refusalBeforeUpload(file);
      added.push({
        key,
        fileName: file.name,
        sizeBytes: file.size,
        status: refusal ? 'failed' : 'queued',
        progress: 0,
        ...(refusal ? { error: refusal } : {}),
      });
      if (!refusal) this.waiting.push({ key, file });
    }
    this.items = [...this.items, ...added];
    this.emit();
    this.pump();
  }

  cancel(key: number): void {
    const queuedAt = this.waiting.findIndex((entry) => entry.key === key);
    if (queuedAt >= 0) {
      this.waiting.splice(queuedAt, 1);
      this.update(key, { status: 'cancelled' });
    }
    this.running.get(key)?.abort();
  }

  clearFinished(): void {
    this.items = this.items.filter(isActive);
    this.emit();
  }

  /** Leaving the page stops what has not finished; nothing half-sent is kept. */
  stopAll(): void {
    for (const { key } of this.waiting.splice(0)) this.update(key, { status: 'cancelled' });
    for (const upload of this.running.values()) upload.abort();
  }

  private pump(): void {
    while (this.running.size < PARALLEL_UPLOADS) {
      const next = this.waiting.shift();
      if (!next) return;
      const { key, file } = next;
      this.update(key, { status: 'uploading', progress: 0 });
      const upload = this.startUpload(file, {
        onProgress: (fraction) => this.update(key, { progress: fraction }),
        onSent: () => this.update(key, { status: 'analysing', progress: 1 }),
      });
      this.running.set(key, upload);
      upload.done
        .then((design) => {
          this.update(key, { status: 'done', design });
          this.onUploaded(design);
        })
        .catch((error: unknown) => {
          if (this.isCancelled(error)) this.update(key, { status: 'cancelled' });
          else
            this.update(key, {
              status: 'failed',
              error: error instanceof Error ? error.message : String(error),
            });
        })
        .finally(() => {
          this.running.delete(key);
          this.pump();
        });
    }
  }

  private update(key: number, change: Partial<UploadItem>): void {
    this.items = this.items.map((item) => (item.key === key ? { ...item, ...change } : item));
    this.emit();
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}
