import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  FileTooLargeError,
  StoredFileMissingError,
  type FileStorage,
  type StoredObject,
} from '../../modules/designs/file-storage.ts';

const SAFE_KEY = /^[a-z0-9][a-z0-9/_.-]*$/i;

/**
 * Files on local disk under one root. Writes go to a temporary name and are renamed into place
 * only when complete, so a failed or oversized upload never leaves a partial file behind.
 */
export function createLocalDiskStorage(root: string): FileStorage {
  fs.mkdirSync(root, { recursive: true });

  function pathOf(key: string): string {
    if (!SAFE_KEY.test(key) || key.includes('..')) throw new Error(`Unsafe storage key: ${key}`);
    return path.join(root, key);
  }

  return {
    bucket: `local:${path.basename(root)}`,

    async write(key: string, source: Readable, { maxBytes }): Promise<StoredObject> {
      const target = pathOf(key);
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      const partial = `${target}.${randomUUID()}.part`;
      const md5 = createHash('md5');
      let size = 0;
      const meter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          size += chunk.length;
          if (size > maxBytes) return callback(new FileTooLargeError(maxBytes));
          md5.update(chunk);
          callback(null, chunk);
        },
      });
      try {
        await pipeline(source, meter, fs.createWriteStream(partial, { flags: 'wx' }));
        await fs.promises.rename(partial, target);
      } catch (error) {
        await fs.promises.rm(partial, { force: true });
        source.resume(); // drain what the client still sends, so the request can be answered
        throw error;
      }
      return { sizeBytes: size, md5Base64: md5.digest('base64') };
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
