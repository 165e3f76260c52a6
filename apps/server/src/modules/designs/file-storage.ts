import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';

/**
 * Where design files live. The designs module declares this port; local disk (default) and
 * S3-compatible storage implement it, chosen by configuration in one place (app-context.ts).
 */
export interface FileStorage {
  /** Names the store in file metadata (the spec's `bucket`). */
  readonly bucket: string;
  /**
   * Streams `source` to `key`, never holding it whole in memory. Fails with FileTooLargeError
   * once more than `maxBytes` arrive; on any failure nothing is left at `key`.
   */
  write(key: string, source: Readable, options: { maxBytes: number }): Promise<StoredObject>;
  read(key: string): Promise<Readable>;
  readAll(key: string): Promise<Buffer>;
  /** Removing a missing key is not an error: deletes are retried after partial failures. */
  delete(key: string): Promise<void>;
}

export interface StoredObject {
  readonly sizeBytes: number;
  /** Base64 MD5 of the bytes, as cloud stores report it. */
  readonly md5Base64: string;
}

export class FileTooLargeError extends Error {
  readonly limitBytes: number;
  constructor(limitBytes: number) {
    super(`The file is larger than the ${Math.round(limitBytes / (1024 * 1024))} MB limit`);
    this.name = 'FileTooLargeError';
    this.limitBytes = limitBytes;
  }
}

export class StoredFileMissingError extends Error {
  constructor(key: string) {
    super(`Stored file ${key} is missing`);
    this.name = 'StoredFileMissingError';
  }
}

/**
 * For storage adapters: a pass-through stream that counts bytes and hashes them as they go, and
 * fails with FileTooLargeError as soon as more than `maxBytes` arrive.
 */
export function createUploadMeter(maxBytes: number): { stream: Transform; result(): StoredObject } {
  const md5 = createHash('md5');
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.length;
      if (size > maxBytes) return callback(new FileTooLargeError(maxBytes));
      md5.update(chunk);
      callback(null, chunk);
    },
  });
  return { stream, result: () => ({ sizeBytes: size, md5Base64: md5.digest('base64') }) };
}

const SAFE_KEY = /^[a-z0-9][a-z0-9/_.-]*$/i;

/** One rule for every backend, so a key valid on one is valid on the other. */
export function isSafeStorageKey(key: string): boolean {
  return SAFE_KEY.test(key) && !key.includes('..');
}

/** Keys are ours (UUID-based), never user input; anything else is a bug worth failing loudly on. */
export function assertSafeStorageKey(key: string): void {
  if (!isSafeStorageKey(key)) throw new Error(`Unsafe storage key: ${key}`);
}
