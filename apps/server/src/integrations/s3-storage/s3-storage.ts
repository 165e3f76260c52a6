import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Client } from 'minio';
import {
  assertSafeStorageKey,
  createUploadMeter,
  isSafeStorageKey,
  StoredFileMissingError,
  type FileStorage,
  type StoredObject,
} from '../../modules/designs/file-storage.ts';


/** S3's floor for every part but the last. */
export const MIN_PART_SIZE_BYTES = 5 * 1024 * 1024;
const DEFAULT_PART_SIZE_BYTES = 8 * 1024 * 1024;
/** S3's ceiling on parts per upload; with 8 MiB parts that is ~78 GiB, far above any design. */
const MAX_PARTS = 10_000;

export interface S3StorageOptions {
  /** Full URL, e.g. `https://s3.eu-central-1.amazonaws.com` or `http://127.0.0.1:9000` (MinIO). */
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** `https://host/bucket/key` instead of `https://bucket.host/key`; true for MinIO and most self-hosted stores. */
  forcePathStyle: boolean;
  /** Optional folder inside the bucket, e.g. `layerline/prod`; keys are stored as `${prefix}/${key}`. */
  prefix?: string;
  /**
   * Size of each multipart part, the most one upload holds in memory at a time. Default 8 MiB;
   * at least 5 MiB (S3's minimum). Files no larger than one part go up in a single PUT.
   */
  partSizeBytes?: number;
}

/**
 * Design files in an S3-compatible bucket (AWS S3, MinIO, R2, B2, ...).
 *
 * Writes stream: bytes are counted and hashed as they arrive and sent in parts of
 * `partSizeBytes`, so memory stays bounded by one part whatever the file size. Nothing appears
 * at a key until the upload is finished: a file of one part or less is sent as a single PUT
 * only after the source has ended within `maxBytes`, and a larger one is a multipart upload,
 * which S3 assembles into an object only on CompleteMultipartUpload; that call is made only
 * after the whole source arrived within `maxBytes`. On any failure the multipart upload is
 * aborted, so its parts do not linger (see docs/storage.md for the lifecycle rule that backs
 * this up if the process dies mid-upload).
 */
export async function createS3Storage(options: S3StorageOptions): Promise<FileStorage> {
  const { bucket } = options;
  const partSize = options.partSizeBytes ?? DEFAULT_PART_SIZE_BYTES;
  if (!Number.isInteger(partSize) || partSize < MIN_PART_SIZE_BYTES) {
    throw new Error(`S3 part size must be a whole number of bytes, at least ${MIN_PART_SIZE_BYTES}`);
  }
  const prefix = normalisePrefix(options.prefix);
  const client = new Client({
    ...parseEndpoint(options.endpoint),
    region: options.region,
    accessKey: options.accessKeyId,
    secretKey: options.secretAccessKey,
    pathStyle: options.forcePathStyle,
  });

  const where = `bucket "${bucket}" at ${options.endpoint}`;
  let exists: boolean;
  try {
    exists = await client.bucketExists(bucket);
  } catch (error) {
    throw new Error(`Cannot check S3 ${where}: ${describe(error)}`, { cause: error });
  }
  if (!exists) throw new Error(`S3 ${where} does not exist; create it or fix S3_BUCKET / S3_ENDPOINT`);

  function objectName(key: string): string {
    assertSafeStorageKey(key);
    return prefix ? `${prefix}/${key}` : key;
  }

  async function getObject(key: string): Promise<Readable> {
    const name = objectName(key);
    try {
      return await client.getObject(bucket, name);
    } catch (error) {
      if (isNotFound(error)) throw new StoredFileMissingError(key);
      throw error;
    }
  }

  return {
    bucket,

    async write(key: string, source: Readable, { maxBytes }): Promise<StoredObject> {
      const name = objectName(key);
      const meter = createUploadMeter(maxBytes);

      let uploadId: string | undefined;
      let consumer: Promise<void> | undefined;
      const parts: { part: number; etag: string }[] = [];

      async function sendPart(body: Buffer): Promise<void> {
        if (parts.length >= MAX_PARTS)
          throw new Error(`File needs more than ${MAX_PARTS} parts of ${partSize} bytes`);
        uploadId ??= await client.initiateNewMultipartUpload(bucket, name, {});
        const part = parts.length + 1;
        const { etag } = await client.uploadPart(
          {
            bucketName: bucket,
            objectName: name,
            uploadID: uploadId,
            partNumber: part,
            headers: { 'Content-MD5': md5Of(body) },
          },
          body,
        );
        parts.push({ part, etag });
      }

      async function consume(chunks: AsyncIterable<Buffer>): Promise<void> {
        let pending: Buffer[] = [];
        let pendingBytes = 0;
        for await (const chunk of chunks) {
          pending.push(chunk);
          pendingBytes += chunk.length;
          // Strictly more than a part: only then is a multipart upload (not one PUT) needed.
          while (pendingBytes > partSize) {
            const joined = Buffer.concat(pending, pendingBytes);
            pending = [Buffer.from(joined.subarray(partSize))]; // copy, so the sent part can be freed
            pendingBytes -= partSize;
            await sendPart(joined.subarray(0, partSize));
          }
        }
        // The source ended within maxBytes: only now may anything become visible at the key.
        const rest = Buffer.concat(pending, pendingBytes);
        if (uploadId === undefined) {
          await client.putObject(bucket, name, rest, rest.length);
          return;
        }
        if (rest.length > 0) await sendPart(rest);
        await client.completeMultipartUpload(bucket, name, uploadId, parts);
      }

      try {
        await pipeline(source, meter.stream, (chunks: AsyncIterable<Buffer>) => (consumer = consume(chunks)));
      } catch (error) {
        // Let an in-flight initiate/part request settle so a just-created upload is not missed.
        await consumer?.catch(() => undefined);
        if (uploadId !== undefined) await abortQuietly(client, bucket, name, uploadId);
        source.resume(); // drain what the client still sends, so the request can be answered
        throw error;
      }
      return meter.result();
    },

    read: getObject,

    async readAll(key: string): Promise<Buffer> {
      const stream = await getObject(key);
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },

    async delete(key: string): Promise<void> {
      const name = objectName(key);
      try {
        await client.removeObject(bucket, name);
      } catch (error) {
        if (isNotFound(error)) return; // S3 answers 204 anyway; some compatible stores say 404
        throw error;
      }
    },
  };
}

async function abortQuietly(client: Client, bucket: string, name: string, uploadId: string): Promise<void> {
  try {
    await client.abortMultipartUpload(bucket, name, uploadId);
  } catch {
    // Never visible as an object either way; the bucket's AbortIncompleteMultipartUpload
    // lifecycle rule reclaims the parts (docs/storage.md). The write's own error matters more.
  }
}

function parseEndpoint(endpoint: string): { endPoint: string; port?: number; useSSL: boolean } {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new Error(
      `S3 endpoint must be a URL such as https://s3.amazonaws.com or http://127.0.0.1:9000, got "${endpoint}"`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`S3 endpoint must use http or https, got "${endpoint}"`);
  }
  if (url.pathname !== '/' && url.pathname !== '') {
    throw new Error(
      `S3 endpoint must not have a path (the bucket is configured separately), got "${endpoint}"`,
    );
  }
  const useSSL = url.protocol === 'https:';
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return url.port ? { endPoint: hostname, port: Number(url.port), useSSL } : { endPoint: hostname, useSSL };
}

function normalisePrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? '').replace(/^\/+|\/+$/g, '');
  if (trimmed && (!isSafeStorageKey(trimmed) || trimmed.includes('//'))) {
    throw new Error(`Unsafe S3 prefix: ${prefix}`);
  }
  return trimmed;
}

function md5Of(body: Buffer): string {
  return createHash('md5').update(body).digest('base64');
}

function isNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'NoSuchKey' || code === 'NotFound';
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'string' && !error.message.includes(code)
      ? `${code}: ${error.message}`
      : error.message;
  }
  return String(error);
}
