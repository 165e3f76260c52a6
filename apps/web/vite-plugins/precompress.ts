import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Plugin } from 'vite';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/**
 * Text formats worth compressing. Images, video and fonts are compressed by their own format already.
 * Source maps are left out: only developer tools fetch them, and compressing megabytes of them at
 * brotli's best quality would double the build time.
 */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|webmanifest|wasm|txt|xml)$/i;

/**
 * Writes a brotli (.br) and a gzip (.gz) copy beside every compressible file of the build, at each
 * format's best level: the cost is paid once per build instead of on every request. The server sends
 * the copy that the browser's Accept-Encoding allows (apps/server/src/http/web-app.ts). A copy that
 * would not be smaller than its file is not written.
 */
export function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'layerline-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      const entries = await fs.readdir(outDir, { recursive: true, withFileTypes: true });
      const files = entries.filter((entry) => entry.isFile() && COMPRESSIBLE.test(entry.name));
      // zlib's asynchronous calls run on libuv's thread pool, so the files are compressed in parallel.
      await Promise.all(files.map((entry) => writeCopies(path.join(entry.parentPath, entry.name))));
    },
  };
}

async function writeCopies(file: string): Promise<void> {
  const content = await fs.readFile(file);
  const [br, gz] = await Promise.all([
    brotli(content, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: content.length,
      },
    }),
    gzip(content, { level: zlib.constants.Z_BEST_COMPRESSION }),
  ]);
  if (br.length < content.length) await fs.writeFile(`${file}.br`, br);
  if (gz.length < content.length) await fs.writeFile(`${file}.gz`, gz);
}
