import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'minio';
import S3rver from 's3rver';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FileTooLargeError } from '../../modules/designs/file-storage.ts';
import { createLocalDiskStorage } from '../local-disk-storage/local-disk-storage.ts';
import {
  chunkedSource,
  describeFileStorage,
  md5Base64,
  type StorageUnderTest,
} from './file-storage-contract.ts';
import { createS3Storage, MIN_PART_SIZE_BYTES } from './s3-storage.ts';

const MiB = 1024 * 1024;
const BUCKET = 'layerline-test';
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }; // s3rver's fixed keys

/**
 * A real S3 wire protocol on 127.0.0.1: s3rver, storing under a temp directory. It lacks
 * AbortMultipartUpload, so a small middleware supplies it (removing the upload's parts the way
 * S3 does) and records every request, which lets the tests prove which calls the adapter made.
 */
async function startFakeS3() {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'layerline-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: BUCKET }],
  });
  const requests: string[] = [];
  const state = { abortSupported: true };
  const uploadsDir = () => server.store.getResourcePath(BUCKET, undefined, 'uploads');
  server.middleware.unshift(async (ctx, next) => {
    const query = Object.keys(ctx.query).sort().join('&');
    requests.push(`${ctx.method} ${ctx.path}${query ? `?${query}` : ''}`);
    const uploadId = ctx.query.uploadId;
    if (ctx.method === 'DELETE' && uploadId !== undefined && state.abortSupported) {
      if (!/^[0-9a-f]+$/.test(uploadId)) throw new Error('bad upload id');
      await fs.rm(path.join(uploadsDir(), uploadId), { recursive: true, force: true });
      ctx.status = 204;
      return;
    }
    await next();
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new Client({
    endPoint: '127.0.0.1',
    port,
    useSSL: false,
    region: 'us-east-1',
    accessKey: CREDENTIALS.accessKeyId,
    secretKey: CREDENTIALS.secretAccessKey,
    pathStyle: true,
  });

  /** Finished objects plus unfinished multipart uploads whose object name starts with `prefix`. */
  async function list(prefix: string): Promise<string[]> {
    const names: string[] = [];
    for await (const item of client.listObjectsV2(BUCKET, prefix, true)) {
      if (item.name) names.push(item.name);
    }
    for (const uploadId of await fs.readdir(uploadsDir()).catch(() => [])) {
      const key = await fs.readFile(path.join(uploadsDir(), uploadId, 'key'), 'utf8');
      if (key.startsWith(prefix)) names.push(`(unfinished upload ${uploadId}) ${key}`);
    }
    return names.sort();
  }

  return {
    endpoint,
    requests,
    state,
    list,
    options: (overrides: { prefix?: string; partSizeBytes?: number; bucket?: string } = {}) => ({
      endpoint,
      region: 'us-east-1',
      bucket: BUCKET,
      forcePathStyle: true,
      ...CREDENTIALS,
      ...overrides,
    }),
    async close() {
      await server.close();
      await fs.rm(directory, { recursive: true, force: true });
    },
  };
}

type FakeS3 = Awaited<ReturnType<typeof startFakeS3>>;

describeFileStorage('local disk', async (): Promise<StorageUnderTest> => {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'layerline-local-storage-'));
  return {
    storage: createLocalDiskStorage(root),
    async list(prefix) {
      const entries = await fs.readdir(path.join(root, prefix), { recursive: true }).catch(() => []);
      return entries.sort();
    },
    close: () => fs.rm(root, { recursive: true, force: true }),
  };
});

describeFileStorage('S3 (s3rver)', async (): Promise<StorageUnderTest> => {
  const s3 = await startFakeS3();
  const prefix = 'tenant-a';
  return {
    storage: await createS3Storage(s3.options({ prefix })),
    list: (keyPrefix) => s3.list(`${prefix}/${keyPrefix}`),
    close: () => s3.close(),
  };
});

describe('createS3Storage', () => {
  let s3: FakeS3;
  beforeAll(async () => {
    s3 = await startFakeS3();
  });
  afterAll(async () => {
    await s3?.close();
  });
  beforeEach(() => {
    s3.requests.length = 0;
    s3.state.abortSupported = true;
  });

  it('exposes the bucket name and stores keys under the prefix', async () => {
    const storage = await createS3Storage(s3.options({ prefix: '/layerline/prod/' }));
    expect(storage.bucket).toBe(BUCKET);
    await storage.write('designs/d1/model.stl', chunkedSource(Buffer.from('solid x')), { maxBytes: 100 });
    expect(await s3.list('layerline/prod/designs/d1')).toEqual(['layerline/prod/designs/d1/model.stl']);
    expect((await storage.readAll('designs/d1/model.stl')).toString()).toBe('solid x');
  });

  it('fails at start with a message naming a missing bucket and the endpoint', async () => {
    await expect(createS3Storage(s3.options({ bucket: 'no-such-bucket' }))).rejects.toThrow(
      `S3 bucket "no-such-bucket" at ${s3.endpoint} does not exist`,
    );
  });

  it('fails at start with a message naming the bucket and endpoint when the endpoint is down', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const endpoint = `http://127.0.0.1:${port}`;
    await expect(createS3Storage({ ...s3.options(), endpoint })).rejects.toThrow(
      `Cannot check S3 bucket "${BUCKET}" at ${endpoint}`,
    );
  });

  it('rejects a malformed endpoint, a part size under 5 MiB and an unsafe prefix', async () => {
    await expect(createS3Storage({ ...s3.options(), endpoint: '127.0.0.1:9000' })).rejects.toThrow(
      /S3 endpoint/,
    );
    await expect(createS3Storage({ ...s3.options(), endpoint: `${s3.endpoint}/bucket` })).rejects.toThrow(
      /must not have a path/,
    );
    await expect(createS3Storage(s3.options({ partSizeBytes: MiB }))).rejects.toThrow(/part size/);
    await expect(createS3Storage(s3.options({ prefix: '../other' }))).rejects.toThrow(/Unsafe S3 prefix/);
  });

  it('sends a file no larger than one part as a single PUT', async () => {
    const storage = await createS3Storage(s3.options({ partSizeBytes: MIN_PART_SIZE_BYTES }));
    const bytes = randomBytes(MIN_PART_SIZE_BYTES);
    await storage.write('single/model.stl', chunkedSource(bytes), { maxBytes: 10 * MiB });
    const writes = s3.requests.filter((r) => !r.startsWith('GET') && !r.startsWith('HEAD'));
    expect(writes).toEqual([`PUT /${BUCKET}/single/model.stl`]);
  });

  it('streams a larger file as a multipart upload of bounded parts and round-trips it', async () => {
    const storage = await createS3Storage(s3.options({ partSizeBytes: MIN_PART_SIZE_BYTES }));
    const bytes = randomBytes(12 * MiB + 3);
    const stored = await storage.write('multi/model.stl', chunkedSource(bytes), { maxBytes: 20 * MiB });
    expect(stored).toEqual({ sizeBytes: bytes.length, md5Base64: md5Base64(bytes) });
    expect(s3.requests.filter((r) => r.includes('/multi/model.stl'))).toEqual([
      `POST /${BUCKET}/multi/model.stl?uploads`,
      `PUT /${BUCKET}/multi/model.stl?partNumber&uploadId`,
      `PUT /${BUCKET}/multi/model.stl?partNumber&uploadId`,
      `PUT /${BUCKET}/multi/model.stl?partNumber&uploadId`,
      `POST /${BUCKET}/multi/model.stl?uploadId`,
    ]);
    expect((await storage.readAll('multi/model.stl')).equals(bytes)).toBe(true);
    expect(await s3.list('multi/')).toEqual(['multi/model.stl']);
  });

  it('aborts the multipart upload when the file turns out too large after parts were sent', async () => {
    const storage = await createS3Storage(s3.options({ partSizeBytes: MIN_PART_SIZE_BYTES }));
    const write = storage.write('too-big/model.stl', chunkedSource(randomBytes(12 * MiB)), {
      maxBytes: 11 * MiB,
    });
    await expect(write).rejects.toBeInstanceOf(FileTooLargeError);
    const calls = s3.requests.filter((r) => r.includes('/too-big/'));
    expect(calls.filter((r) => r.startsWith('PUT'))).toHaveLength(2); // two parts were already up
    expect(calls.at(-1)).toBe(`DELETE /${BUCKET}/too-big/model.stl?uploadId`);
    expect(calls.some((r) => r.startsWith('POST') && r.endsWith('?uploadId'))).toBe(false); // never completed
    expect(await s3.list('too-big/')).toEqual([]); // neither an object nor leftover parts
  });

  it('aborts the multipart upload when the source errors after parts were sent', async () => {
    const storage = await createS3Storage(s3.options({ partSizeBytes: MIN_PART_SIZE_BYTES }));
    const source = chunkedSource(randomBytes(12 * MiB), {
      failAfter: 7 * MiB,
      error: new Error('socket hang up'),
    });
    await expect(storage.write('broken/model.stl', source, { maxBytes: 20 * MiB })).rejects.toThrow(
      'socket hang up',
    );
    const calls = s3.requests.filter((r) => r.includes('/broken/'));
    expect(calls).toContain(`PUT /${BUCKET}/broken/model.stl?partNumber&uploadId`);
    expect(calls.at(-1)).toBe(`DELETE /${BUCKET}/broken/model.stl?uploadId`);
    expect(await s3.list('broken/')).toEqual([]);
  });

  it('still reports the write error and shows no object when the store refuses the abort', async () => {
    s3.state.abortSupported = false; // s3rver's own answer: MethodNotAllowed
    const storage = await createS3Storage(s3.options({ partSizeBytes: MIN_PART_SIZE_BYTES }));
    const write = storage.write('no-abort/model.stl', chunkedSource(randomBytes(12 * MiB)), {
      maxBytes: 11 * MiB,
    });
    await expect(write).rejects.toBeInstanceOf(FileTooLargeError);
    await expect(storage.readAll('no-abort/model.stl')).rejects.toThrow(/missing/);
    // Only the unfinished upload remains, invisible as an object; a lifecycle rule reclaims it.
    const left = await s3.list('no-abort/');
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^\(unfinished upload [0-9a-f]+\) no-abort\/model\.stl$/);
  });
});
