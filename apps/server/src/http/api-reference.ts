import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import swaggerUi from '@fastify/swagger-ui';
import {
  ORDER_API_GUIDE,
  ORDER_API_TAGS,
  orderApiWebhooks,
} from '../modules/order-api/order-api-reference.ts';

/** The API reference: a page for people here, the OpenAPI document at `${API_REFERENCE_PATH}/json`. */
export const API_REFERENCE_PATH = '/api/docs';

const INTRODUCTION = `Every endpoint of Layerline. Most are what the web app calls, with the session of a signed-in person (the \`layerline.session_token\` cookie, or \`Authorization: Bearer <token>\` with the token that sign-in answers in \`set-auth-token\`); a state-changing request that carries the cookie must come from Layerline's own pages. Errors are \`{ "error": "…" }\` with the status that says why. The machine-readable document is at [${API_REFERENCE_PATH}/json](${API_REFERENCE_PATH}/json) (OpenAPI 3.1).`;

/**
 * What the OpenAPI document says besides its routes (http/app.ts registers @fastify/swagger with it):
 * version 3.1, for its `webhooks`; the introduction and the order API's guide; the order API's tags.
 */
export const API_REFERENCE_DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'Layerline API', version: '0.1.0', description: `${INTRODUCTION}\n\n${ORDER_API_GUIDE}` },
  tags: ORDER_API_TAGS,
  webhooks: orderApiWebhooks(),
};

/** A file whose URL names its content: kept for a year, never asked for again. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Asked again on every use (a 304 by its ETag when it has one). */
const REVALIDATE = 'no-cache';
const STATIC_PATH = `${API_REFERENCE_PATH}/static/`;

/**
 * Swagger UI's own files (the package's static/ directory: the bundle, its styles, the icons), each
 * with a hash of its content. Their names stay the same from one version to the next, so the page
 * names them with `?v=<hash>`: a new version is a new URL, and a URL can be cached for good.
 */
function swaggerUiFileHashes(): Map<string, string> {
  const dir = path.join(
    path.dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui')),
    'static',
  );
  const hashes = new Map<string, string>();
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const content = fs.readFileSync(path.join(dir, entry.name));
    hashes.set(entry.name, createHash('sha256').update(content).digest('hex').slice(0, 16));
  }
  return hashes;
}

/**
 * The page (Swagger UI, from the @fastify/swagger-ui package: its files are served from our own
 * origin, no CDN) and the JSON it renders. It runs under the app's Content-Security-Policy as is:
 * its scripts and styles are files of ours, it has no inline script, and it fetches only our JSON.
 * The package's files are cached for a year under their versioned URLs; the page and the
 * initializer (made from our settings at boot) are checked on every visit.
 */
export async function registerApiReference(app: FastifyInstance): Promise<void> {
  const hashes = swaggerUiFileHashes();
  await app.register(async (scope) => {
    scope.addHook('onSend', async (request, reply, payload) => {
      // An error keeps the API's no-store.
      if (reply.statusCode >= 400) return payload;
      const [pathname = '', search = ''] = request.url.split('?', 2);
      if (pathname === API_REFERENCE_PATH || pathname === `${API_REFERENCE_PATH}/`) {
        reply.header('Cache-Control', REVALIDATE);
        // The package's page names its files without a version: it gets one here.
        if (typeof payload !== 'string') return payload;
        return payload.replace(/(\/static\/)([\w.-]+)"/g, (whole, prefix: string, name: string) => {
          const hash = hashes.get(name);
          return hash ? `${prefix}${name}?v=${hash}"` : whole;
        });
      }
      if (pathname.startsWith(STATIC_PATH)) {
        const hash = hashes.get(pathname.slice(STATIC_PATH.length));
        const current = hash !== undefined && new URLSearchParams(search).get('v') === hash;
        // Only the URL the page names now is kept for good; any other (no version, an old one) is
        // still this file, and is checked again every time.
        reply.header('Cache-Control', current ? IMMUTABLE : REVALIDATE);
      }
      return payload;
    });
    await scope.register(swaggerUi, {
      routePrefix: API_REFERENCE_PATH,
      theme: { title: 'Layerline API reference' },
      uiConfig: {
        // No top bar (its logo and its box to open any other document): the page is our reference.
        layout: 'BaseLayout',
        deepLinking: true,
        // The tags folded, so the page opens on the guide and the list of areas (#/order-api opens one).
        docExpansion: 'none',
        defaultModelsExpandDepth: -1,
        filter: true,
        displayRequestDuration: true,
      },
    });
  });
}
