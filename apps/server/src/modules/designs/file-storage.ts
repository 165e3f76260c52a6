import type { Readable } from 'node:stream';

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
