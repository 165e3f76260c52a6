import type { FastifyInstance } from 'fastify';
import compress from '@fastify/compress';

/**
 * Compressed on the fly: JSON and CSV (and whatever the mime database calls compressible, such as
 * text). Binary answers (model files, viewer meshes, thumbnails, label and packing-slip PDFs) are
 * compressed already or not worth the CPU, and the mime database says so.
 */
const COMPRESSIBLE = /^(?:application\/(?:[\w.-]+\+)?json|text\/csv)(?:;|$)/;

/** Answers smaller than this gain too little to pay for a compressor. */
const THRESHOLD_BYTES = 1024;

/**
 * Compresses the API's answers over 1 KB with brotli (at quality 4: fast enough per request) or gzip,
 * as the request's Accept-Encoding allows. Only routes under /api/: the web app's files are compressed
 * once at build time and served as they are (web-app.ts). Request bodies are never decompressed:
 * webhook signatures are checked over the exact bytes received. Registered before the routes, since
 * the plugin hooks each route as it is added. Docs: docs/web-delivery.md.
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  // Runs before the plugin's own onRoute hook, which leaves routes with `compress: false` alone.
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/')) route.compress = false;
  });
  await app.register(compress, {
    encodings: ['br', 'gzip'],
    threshold: THRESHOLD_BYTES,
    customTypes: COMPRESSIBLE,
    globalDecompression: false,
  });
}
