import yauzl from 'yauzl';
import { createInflateRaw } from 'node:zlib';
import type { Readable } from 'node:stream';
import type { Entry, ZipFile } from 'yauzl';
import { MeshError } from './errors.ts';
import { MESH_LIMITS } from './limits.ts';

export interface SafeZip {
  names: string[];
  /** Streams one entry's inflated bytes to `onChunk`, enforcing the caps while it inflates. */
  read(name: string, onChunk: (chunk: Uint8Array) => void): Promise<void>;
  close(): void;
}

/** Inflated chunks (1 MiB each) allowed to wait for the parser. */
const MAX_QUEUED = 4;

const NESTED_ARCHIVE = /\.(zip|3mf|gz|tgz|7z|rar|jar|bz2|xz)$/i;

function mapZipError(e: unknown): MeshError {
  if (e instanceof MeshError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  if (/relative path|absolute path|invalid characters|filename/i.test(msg)) {
    return new MeshError('unsafe-archive', `The 3MF archive has an unsafe entry name (${msg}).`);
  }
  if (/too many bytes|not enough bytes|expected \d+|uncompressed/i.test(msg)) {
    return new MeshError('zip-bomb', `A 3MF entry inflates to a different size than its header declares (${msg}).`);
  }
  return new MeshError('malformed', `The 3MF file is not a valid zip archive (${msg}).`);
}

/** Rejects names a careless extractor would write outside its folder (FILE-5). */
function checkName(name: string): void {
  if (
    name.includes('\\') ||
    name.startsWith('/') ||
    /^[a-zA-Z]:/.test(name) ||
    name.split('/').some((p) => p === '..') ||
    name.includes('\0')
  ) {
    throw new MeshError('unsafe-archive', `The 3MF archive has an unsafe entry name: ${JSON.stringify(name.slice(0, 80))}.`);
  }
  if (NESTED_ARCHIVE.test(name)) {
    throw new MeshError('unsafe-archive', `The 3MF archive contains a nested archive: ${JSON.stringify(name.slice(0, 80))}.`);
  }
}

/**
 * Opens a 3MF zip and checks every cap from the central directory alone (entry count,
 * declared sizes, ratio, names) before a single byte is inflated (FILE-3, FILE-5).
 */
export async function openSafeZip(bytes: Uint8Array): Promise<SafeZip> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let zip: ZipFile;
  try {
    zip = await new Promise<ZipFile>((resolve, reject) => {
      yauzl.fromBuffer(
        buf,
        { lazyEntries: true, strictFileNames: true, validateEntrySizes: true, decodeStrings: true, autoClose: false },
        (err, zf) => (err ? reject(err) : resolve(zf)),
      );
    });
  } catch (e) {
    throw mapZipError(e);
  }
  const fail = (e: unknown): never => {
    zip.close();
    throw mapZipError(e);
  };
  if (zip.entryCount > MESH_LIMITS.maxZipEntries) {
    fail(new MeshError('zip-bomb', `The 3MF archive has ${zip.entryCount} entries; the limit is ${MESH_LIMITS.maxZipEntries}.`));
  }
  const entries = new Map<string, Entry>();
  let declaredTotal = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', reject);
      zip.on('end', () => resolve());
      zip.on('entry', (entry: Entry) => {
        try {
          const name = entry.fileName;
          checkName(name);
          const size = entry.uncompressedSize;
          if (size > MESH_LIMITS.maxUnpackedBytes) {
            throw new MeshError('zip-bomb', `A 3MF entry declares ${size} bytes unpacked; the limit is ${MESH_LIMITS.maxUnpackedBytes}.`);
          }
          declaredTotal += size;
          if (declaredTotal > MESH_LIMITS.maxUnpackedBytes) {
            throw new MeshError('zip-bomb', `The 3MF archive declares more than ${MESH_LIMITS.maxUnpackedBytes} bytes unpacked.`);
          }
          if (size > MESH_LIMITS.ratioCheckMinBytes && size > MESH_LIMITS.maxCompressionRatio * Math.max(1, entry.compressedSize)) {
            throw new MeshError(
              'zip-bomb',
              `A 3MF entry compresses ${Math.round(size / Math.max(1, entry.compressedSize))}:1; the limit is ${MESH_LIMITS.maxCompressionRatio}:1.`,
            );
          }
          if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
            throw new MeshError('malformed', `A 3MF entry uses unsupported compression method ${entry.compressionMethod}.`);
          }
          if (entries.has(name)) throw new MeshError('unsafe-archive', `The 3MF archive has two entries named ${JSON.stringify(name)}.`);
          entries.set(name, entry);
          zip.readEntry();
        } catch (e) {
          reject(e);
        }
      });
      zip.readEntry();
    });
  } catch (e) {
    fail(e);
  }
  let inflatedTotal = 0;
  return {
    names: [...entries.keys()],
    close: () => zip.close(),
    read: (name, onChunk) =>
      new Promise<void>((resolve, reject) => {
        const entry = entries.get(name);
        if (!entry) {
          reject(new MeshError('malformed', `The 3MF archive has no ${name}.`));
          return;
        }
        // Deflated entries are read raw and inflated here with 1 MiB output chunks (zlib's
        // default 16 KiB costs a thread-pool round trip per 16 KiB); sizes are checked below.
        const deflated = entry.compressionMethod === 8;
        zip.openReadStream(entry, deflated ? { decodeFileData: false } : {}, (err, raw) => {
          if (err) {
            reject(mapZipError(err));
            return;
          }
          let stream: Readable = raw;
          let seen = 0;
          let done = false;
          const stop = (e: unknown): void => {
            if (done) return;
            done = true;
            stream.destroy();
            if (stream !== raw) raw.destroy();
            reject(mapZipError(e));
          };
          if (deflated) {
            const inflate = createInflateRaw({ chunkSize: 1024 * 1024 });
            raw.on('error', stop);
            // The compressed bytes go to zlib in one piece (yauzl slices them into 64 KiB), so
            // each of its turns on the thread pool fills a whole output chunk instead of
            // stopping at every slice for the main thread, which is busy parsing.
            const compressed: Buffer[] = [];
            raw.on('data', (c: Buffer) => compressed.push(c));
            raw.on('end', () => inflate.end(compressed.length === 1 ? compressed[0] : Buffer.concat(compressed)));
            stream = inflate;
          }
          // Chunks are handed to onChunk from a setImmediate, one per turn of the event loop,
          // not inside zlib's callback, so zlib inflates the next chunk on its thread while
          // this one is parsed. At most MAX_QUEUED chunks wait (the stream is paused beyond
          // that), so memory stays bounded.
          const queue: Buffer[] = [];
          let scheduled = false;
          let ended = false;
          const finish = (): void => {
            if (done) return;
            if (seen !== entry.uncompressedSize) {
              stop(new MeshError('zip-bomb', `A 3MF entry inflates to ${seen} bytes, not the ${entry.uncompressedSize} its header declares.`));
              return;
            }
            done = true;
            resolve();
          };
          const drain = (): void => {
            scheduled = false;
            if (done) return;
            const chunk = queue.shift();
            // Resumed before the chunk is parsed, so zlib inflates the next one meanwhile.
            if (!ended && queue.length < MAX_QUEUED && stream.isPaused()) stream.resume();
            if (chunk) {
              try {
                onChunk(chunk);
              } catch (e) {
                stop(e);
                return;
              }
            }
            if (done) return;
            // One chunk per turn of the event loop: zlib's callbacks (the next chunk) run in between.
            if (queue.length) {
              scheduled = true;
              setImmediate(drain);
            } else if (ended) finish();
          };
          stream.on('data', (chunk: Buffer) => {
            if (done) return;
            seen += chunk.length;
            inflatedTotal += chunk.length;
            // Counted as it inflates, so a lying header is refused at the first chunk beyond it.
            if (seen > entry.uncompressedSize || inflatedTotal > MESH_LIMITS.maxUnpackedBytes) {
              stop(new MeshError('zip-bomb', `A 3MF entry inflates beyond its declared ${entry.uncompressedSize} bytes.`));
              return;
            }
            queue.push(chunk);
            if (queue.length >= MAX_QUEUED) stream.pause();
            if (!scheduled) {
              scheduled = true;
              setImmediate(drain);
            }
          });
          stream.on('error', stop);
          stream.on('end', () => {
            if (done) return;
            ended = true;
            if (!scheduled && queue.length === 0) finish();
          });
        });
      }),
  };
}
