import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  assertSafeStorageKey,
  createUploadMeter,
  StoredFileMissingError,
  type FileStorage,
  type StoredObject,
} from '../../modules/designs/file-storage.ts';

/**
 * Files on local disk under one root. Writes go to a temporary name and are renamed into place
 * only when complete, so a failed or oversized upload never leaves a partial file behind.
 */
export function createLocalDiskStorage(root: string): FileStorage {
  fs.mkdirSync(root, { recursive: true });

  function pathOf(key: string): string {
    assertSafeStorageKey(key);
    return path.join(root, key);
  }

  return {
    bucket: `local:${path.basename(root)}`,

    async write(key: string, source: Readable, { maxBytes }): Promise<StoredObject> {
      const target = pathOf(key);
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      const partial = `${target}.${randomUUID()}.part`;
      const meter = createUploadMeter(maxBytes);
      try {
        await pipeline(source, meter.stream, fs.createWriteStream(partial, { flags: 'wx' }));
        await fs.promises.rename(partial, target);
      } catch (error) {
        await fs.promises.rm(partial, { force: true });
        source.resume(); // drain what the client still sends, so the request can be answered
        throw error;
      }
      return meter.result();
    },

    async read(key: string): Promise<Readable> {
      const file = pathOf(key);
      try {
        await fs.promises.access(file);
      } catch {
        throw new StoredFileMissingError(key);
      }
      return fs.createReadStream(file);
    },

    async readAll(key: string): Promise<Buffer> {
      try {
        return await fs.promises.readFile(pathOf(key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new StoredFileMissingError(key);
        throw error;
      }
    },

    async delete(key: string): Promise<void> {
      await fs.promises.rm(pathOf(key), { force: true });
    },
  };
}
