import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';

/** The copies the web build writes beside each compressible file (apps/web/vite-plugins/precompress.ts). */
const COMPRESSED_COPY = /\.(?:br|gz)$/;

/**
 * Vite writes only content-hashed names (`index-3XuCH8bB.js`) into assets/: a new build makes new
 * names, so a browser may keep these for a year without asking again.
 */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Everything else (index.html, favicon, media) is asked again on every use; its ETag makes that a 304. */
const REVALIDATE = 'no-cache';

/**
 * The built single-page app: each file as the browser's Accept-Encoding allows (the build's brotli
 * copy, else its gzip copy, else the file itself), cached for a year when its name is hashed, and
 * index.html for any other GET that is not a file. Docs: docs/web-delivery.md.
 */
export async function registerWebApp(app: FastifyInstance, distDir: string): Promise<void> {
  const root = path.resolve(distDir);
  const built = fs.existsSync(path.join(root, 'index.html'));
  if (built) {
    const hasCopies = filesWithCompressedCopies(root);
    const assetsDir = path.join(root, 'assets') + path.sep;
    await app.register(fastifyStatic, {
      root,
      wildcard: false,
      index: false,
      preCompressed: true,
      // The copies are served in place of their file, never under their own names.
      globIgnore: ['**/*.br', '**/*.gz'],
      // Cache-Control is ours (below), not send's "public, max-age=0".
      cacheControl: false,
      setHeaders: (response, servedPath) => {
        const file = servedPath.replace(COMPRESSED_COPY, '');
        response.setHeader('Cache-Control', file.startsWith(assetsDir) ? IMMUTABLE : REVALIDATE);
        if (hasCopies.has(file)) response.setHeader('Vary', 'Accept-Encoding');
      },
    });
  }
  app.setNotFoundHandler((request, reply) => {
    // A missing asset must not get index.html: a stale tab would load HTML as a script.
    if (
      request.url.startsWith('/api/') ||
      request.url.startsWith('/assets/') ||
      (request.method !== 'GET' && request.method !== 'HEAD')
    ) {
      return reply.status(404).send({ error: 'Not found' });
    }
    if (!built) {
      return reply.status(503).type('text/plain').send('The web app is not built yet: run `npm run build`.');
    }
    return reply.sendFile('index.html');
  });
}

/** The absolute paths of the files the build wrote a .br or .gz copy of: their answers vary by Accept-Encoding. */
function filesWithCompressedCopies(distDir: string): Set<string> {
  const files = new Set<string>();
  for (const name of fs.readdirSync(distDir, { recursive: true, encoding: 'utf8' })) {
    if (COMPRESSED_COPY.test(name)) files.add(path.join(distDir, name.replace(COMPRESSED_COPY, '')));
  }
  return files;
}
