import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import {
  FileTooLargeError,
  StoredFileMissingError,
  type FileStorage,
} from '../../modules/designs/file-storage.ts';

/** A FileStorage plus a look behind it, so tests can prove what a failed write left behind. */
export interface StorageUnderTest {
  readonly storage: FileStorage;
  /**
   * Every name the backend holds under `prefix` (a storage key prefix), including temporary,
   * partial or in-progress ones (`.part` files, unfinished multipart uploads), not just
   * finished objects.
   */
  list(prefix: string): Promise<string[]>;
  close?(): Promise<void>;
}

const MiB = 1024 * 1024;

/** A stream of `bytes` in 64 KiB chunks that fails with `error` after `failAfter` bytes, if given. */
export function chunkedSource(bytes: Buffer, options: { failAfter?: number; error?: Error } = {}): Readable {
  const { failAfter, error = new Error('client went away') } = options;
  return Readable.from(
    (function* () {
      for (let offset = 0; offset < bytes.length; offset += 64 * 1024) {
        if (failAfter !== undefined && offset >= failAfter) throw error;
        yield bytes.subarray(offset, Math.min(offset + 64 * 1024, bytes.length));
      }
      if (failAfter !== undefined) throw error;
    })(),
    { objectMode: false },
  );
}

export function md5Base64(bytes: Buffer): string {
  return createHash('md5').update(bytes).digest('base64');
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The behaviour every FileStorage must share (see the port in modules/designs/file-storage.ts),
 * run against each adapter so the local-disk default and S3 cannot drift apart.
 */
export function describeFileStorage(name: string, makeStorage: () => Promise<StorageUnderTest>): void {
  describe(`FileStorage contract: ${name}`, () => {
    let under: StorageUnderTest;
    let storage: FileStorage;
    let run = 0;
    /** A fresh folder per test, so listings only see what that test wrote. */
    const folder = () => `designs/contract-${process.pid}-${Date.now()}-${++run}`;

    beforeAll(async () => {
      under = await makeStorage();
      storage = under.storage;
    });
    afterAll(async () => {
      await under?.close?.();
    });

    it('names its bucket', () => {
      expect(storage.bucket).toEqual(expect.any(String));
      expect(storage.bucket.length).toBeGreaterThan(0);
    });

    it('round-trips a 5 MB file with its size and base64 MD5', async () => {
      const bytes = randomBytes(5 * MiB);
      const key = `${folder()}/model.stl`;
      const stored = await storage.write(key, chunkedSource(bytes), { maxBytes: 10 * MiB });
      expect(stored).toEqual({ sizeBytes: bytes.length, md5Base64: md5Base64(bytes) });
      expect((await storage.readAll(key)).equals(bytes)).toBe(true);
      expect((await collect(await storage.read(key))).equals(bytes)).toBe(true);
    });

    it('accepts a file of exactly maxBytes and an empty file', async () => {
      const dir = folder();
      const bytes = randomBytes(256 * 1024);
      const stored = await storage.write(`${dir}/exact.stl`, chunkedSource(bytes), {
        maxBytes: bytes.length,
      });
      expect(stored.sizeBytes).toBe(bytes.length);
      const empty = await storage.write(`${dir}/empty.stl`, chunkedSource(Buffer.alloc(0)), { maxBytes: 10 });
      expect(empty).toEqual({ sizeBytes: 0, md5Base64: md5Base64(Buffer.alloc(0)) });
      expect((await storage.readAll(`${dir}/empty.stl`)).length).toBe(0);
    });

    it('rejects maxBytes + 1 with FileTooLargeError and leaves nothing under the key', async () => {
      const dir = folder();
      const maxBytes = 1 * MiB;
      const write = storage.write(`${dir}/big.stl`, chunkedSource(randomBytes(maxBytes + 1)), { maxBytes });
      await expect(write).rejects.toBeInstanceOf(FileTooLargeError);
      await expect(write).rejects.toMatchObject({ limitBytes: maxBytes });
      expect(await under.list(dir)).toEqual([]);
      await expect(storage.readAll(`${dir}/big.stl`)).rejects.toBeInstanceOf(StoredFileMissingError);
    });

    it('leaves nothing when the source stream errors halfway', async () => {
      const dir = folder();
      const failure = new Error('upload connection reset');
      const bytes = randomBytes(2 * MiB);
      const write = storage.write(
        `${dir}/broken.stl`,
        chunkedSource(bytes, { failAfter: MiB, error: failure }),
        {
          maxBytes: 10 * MiB,
        },
      );
      await expect(write).rejects.toThrow('upload connection reset');
      expect(await under.list(dir)).toEqual([]);
      await expect(storage.read(`${dir}/broken.stl`)).rejects.toBeInstanceOf(StoredFileMissingError);
    });

    it('keeps the previous file when an overwrite fails', async () => {
      const key = `${folder()}/model.stl`;
      const original = randomBytes(100 * 1024);
      await storage.write(key, chunkedSource(original), { maxBytes: MiB });
      await expect(
        storage.write(key, chunkedSource(randomBytes(MiB + 1)), { maxBytes: MiB }),
      ).rejects.toBeInstanceOf(FileTooLargeError);
      expect((await storage.readAll(key)).equals(original)).toBe(true);
    });

    it('reports a missing key as StoredFileMissingError for read and readAll', async () => {
      const key = `${folder()}/never-written.stl`;
      await expect(storage.read(key)).rejects.toBeInstanceOf(StoredFileMissingError);
      await expect(storage.readAll(key)).rejects.toBeInstanceOf(StoredFileMissingError);
      await expect(storage.readAll(key)).rejects.toThrow(key);
    });

    it('deletes, and deleting again (or a key never written) is fine', async () => {
      const dir = folder();
      const key = `${dir}/model.stl`;
      await storage.write(key, chunkedSource(randomBytes(1000)), { maxBytes: MiB });
      await storage.delete(key);
      await storage.delete(key);
      await storage.delete(`${dir}/never-written.stl`);
      await expect(storage.readAll(key)).rejects.toBeInstanceOf(StoredFileMissingError);
      expect(await under.list(dir)).toEqual([]);
    });

    it('refuses unsafe keys on every operation', async () => {
      const unsafe = [
        '../escape.stl',
        'designs/../../etc/passwd',
        '/absolute.stl',
        'with space.stl',
        '',
        'a\\b',
        '.hidden',
      ];
      for (const key of unsafe) {
        await expect(
          storage.write(key, chunkedSource(Buffer.from('x')), { maxBytes: 10 }),
          key,
        ).rejects.toThrow(/Unsafe storage key/);
        await expect(storage.read(key), key).rejects.toThrow(/Unsafe storage key/);
        await expect(storage.readAll(key), key).rejects.toThrow(/Unsafe storage key/);
        await expect(storage.delete(key), key).rejects.toThrow(/Unsafe storage key/);
      }
    });
  });
}
