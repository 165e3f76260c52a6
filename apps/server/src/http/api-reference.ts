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

/**
 * The page (Swagger UI, from the @fastify/swagger-ui package: its files are served from our own
 * origin, no CDN) and the JSON it renders. It runs under the app's Content-Security-Policy as is:
 * its scripts and styles are files of ours, it has no inline script, and it fetches only our JSON.
 */
export async function registerApiReference(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
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
}
