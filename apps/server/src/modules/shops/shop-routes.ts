import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  PLATFORMS,
  pageQueryFields,
  listingLinkInputSchema,
  listingListSchema,
  listingSchema,
  shopConnectInputSchema,
  shopConnectionSchema,
  shopPlatformsSchema,
  shopSyncResultSchema,
  variantOptionSchema,
} from '@layerline/contracts';
import { requireBetaTester, subjectUserId } from '../../http/viewer.ts';
import { OAuthCallbackError, type ShopService, type ShopViewer } from './shop-service.ts';

const idParams = z.object({ id: z.uuid('Not a valid id') }).strict();
const platformParams = z.object({ platform: z.enum(PLATFORMS) }).strict();
const targetQuery = z.object({ targetUserId: z.string().max(100).optional() }).strict();
const booleanFlag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const listingQuery = z
  .object({
    shopId: z.uuid().optional(),
    link: z.enum(['all', 'unmatched', 'linked']).default('all'),
    /** The spec's inbox: same as link=unmatched. */
    unmatched: booleanFlag.optional(),
    search: z.string().trim().max(200).default(''),
    ...pageQueryFields(50, 200),
    /** getMakerforgeListings(refresh): import every shop's listings first. */
    refresh: booleanFlag.optional(),
    targetUserId: z.string().max(100).optional(),
  })
  .strict();

function viewerOf(request: FastifyRequest): ShopViewer {
  const viewer = requireBetaTester(request);
  return { id: viewer.id, isAdmin: viewer.isAdmin, requestId: request.id };
}

/** Where the marketplace sends the seller back: PUBLIC_URL when set, else this request's origin. */
function callbackUrl(request: FastifyRequest, publicUrl: string | undefined, platform: string): string {
  const origin = publicUrl ?? `${request.protocol}://${request.host}`;
  return `${origin}/api/shops/${platform}/callback`;
}

/** Shop connections and listings. Everything here is for beta testers (admins pass), as /connect-store is. */
export function registerShopRoutes(
  app: FastifyInstance,
  deps: { shops: ShopService; publicUrl: string | undefined },
): void {
  const { shops } = deps;
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/api/shops/platforms',
    {
      schema: {
        tags: ['shops'],
        summary: 'The marketplaces this server can connect, and whether by OAuth',
        response: { 200: shopPlatformsSchema },
      },
    },
    async (request) => {
      viewerOf(request);
      return shops.platforms();
    },
  );

  api.get(
    '/api/shops',
    {
      schema: {
        tags: ['shops'],
        summary: "The seller's connected shops",
        querystring: targetQuery,
        response: { 200: z.array(shopConnectionSchema) },
      },
    },
    async (request) => {
      const viewer = requireBetaTester(request);
      return shops.list(subjectUserId(viewer, request.query.targetUserId));
    },
  );

  api.post(
    '/api/shops/:platform/connect',
    {
      schema: {
        tags: ['shops'],
        summary:
          'Connects a shop: the sandbox at once (optionally impersonating a marketplace); a marketplace with `credentials` (pasted keys, checked with it first) at once; otherwise answers where to approve access (OAuth with state and PKCE; WooCommerce: its authorisation page at `storeUrl`)',
        params: platformParams,
        body: shopConnectInputSchema.optional(),
        response: {
          200: z.object({ authorizeUrl: z.string().nullable(), shop: shopConnectionSchema.nullable() }),
        },
      },
    },
    async (request) => {
      const viewer = viewerOf(request);
      const { platform } = request.params;
      const body = request.body ?? {};
      if (platform === 'sandbox')
        return { authorizeUrl: null, shop: await shops.connectSandbox(viewer.id, body.impersonate) };
      if (body.credentials)
        return {
          authorizeUrl: null,
          shop: await shops.connectWithCredentials(viewer.id, platform, body.credentials),
        };
      const started = await shops.startOAuth(
        viewer.id,
        platform,
        callbackUrl(request, deps.publicUrl, platform),
        body.shopHost ?? body.storeUrl,
      );
      return { authorizeUrl: started.authorizeUrl, shop: null };
    },
  );

  api.get(
    '/api/shops/:platform/callback',
    {
      schema: {
        tags: ['shops'],
        summary: 'Where the marketplace sends the seller back after approving; redirects to /connect-store',
        params: platformParams,
        // What each marketplace sends back, by name; every other parameter is kept as sent (Shopify
        // signs the whole query, so none may be dropped).
        querystring: z
          .object({
            state: z.string().optional().describe('The state this server sent the seller off with'),
            code: z.string().optional().describe('The authorisation code (Etsy, Shopify, eBay, TikTok Shop)'),
            spapi_oauth_code: z.string().optional().describe('Amazon’s authorisation code'),
            selling_partner_id: z.string().optional().describe('Amazon: the seller’s selling partner id'),
            error: z.string().optional().describe('Set when the seller declined or the marketplace refused'),
            error_description: z.string().optional().describe('Why, when the marketplace says'),
            shop: z.string().optional().describe('Shopify: the store’s myshopify.com host'),
            hmac: z
              .string()
              .optional()
              .describe('Shopify: the signature of every other parameter of the query (host, timestamp…)'),
            success: z
              .string()
              .optional()
              .describe(
                'WooCommerce: 1 when the seller granted access (its keys were POSTed to key-delivery)',
              ),
            user_id: z.string().optional().describe('WooCommerce: the state, echoed'),
          })
          .catchall(z.string()),
      },
    },
    async (request, reply) => {
      const { platform } = request.params;
      const back = (params: Record<string, string>) =>
        reply.redirect(`/connect-store?${new URLSearchParams(params).toString()}`, 303);
      let viewer: ShopViewer;
      try {
        viewer = viewerOf(request);
      } catch {
        return back({ error: 'Sign in as the seller who started the connection, then connect again' });
      }
      try {
        if (shops.deliversKeys(platform)) {
          // WooCommerce has POSTed the keys to key-delivery already (or the seller declined).
          const outcome =
            request.query.success === '1'
              ? await shops.keyDeliveryOutcome(viewer.id, platform, request.query.user_id ?? '')
              : 'declined';
          if (outcome === 'connected') return back({ connected: platform });
          return back({
            error:
              outcome === 'declined'
                ? 'Access was not granted'
                : 'WooCommerce did not send the keys; connect again, or paste keys from WooCommerce → Settings → Advanced → REST API',
          });
        }
        await shops.completeOAuth(
          viewer.id,
          platform,
          request.query,
          callbackUrl(request, deps.publicUrl, platform),
        );
        return back({ connected: platform });
      } catch (error) {
        if (error instanceof OAuthCallbackError) return back({ error: error.message });
        request.log.error({ err: error, platform }, 'oauth callback failed');
        return back({ error: 'The connection could not be completed; please try again' });
      }
    },
  );

  api.post(
    '/api/shops/:platform/key-delivery',
    {
      schema: {
        tags: ['shops'],
        summary:
          "WooCommerce's application authorisation POSTs the new REST keys here (no session: the connection's state, echoed as user_id, is the proof)",
        params: platformParams,
        body: z.looseObject({
          user_id: z.string().min(1).max(200),
          consumer_key: z.string().min(1).max(200),
          consumer_secret: z.string().min(1).max(200),
        }),
      },
    },
    async (request) => {
      const { user_id: state, consumer_key: consumerKey, consumer_secret: consumerSecret } = request.body;
      await shops.completeKeyDelivery(request.params.platform, state, { consumerKey, consumerSecret });
      return { ok: true };
    },
  );

  api.delete(
    '/api/shops/:id',
    {
      schema: {
        tags: ['shops'],
        summary: 'Disconnects a shop: revokes the grant and deletes its tokens and listings',
        params: idParams,
      },
    },
    async (request, reply) => {
      await shops.disconnect(viewerOf(request), request.params.id);
      return reply.status(204).send();
    },
  );

  api.post(
    '/api/shops/:id/sync',
    {
      schema: {
        tags: ['shops'],
        summary: "Imports the shop's listings and new orders now",
        params: idParams,
        response: { 200: shopSyncResultSchema },
      },
    },
    async (request) => shops.syncNow(viewerOf(request), request.params.id),
  );

  api.post(
    '/api/shops/:id/sandbox/simulate-order',
    {
      schema: {
        tags: ['shops'],
        summary: 'Sandbox shops only: an order arrives now and is ingested',
        params: idParams,
        body: z
          .object({ includeUnmatched: z.boolean().default(false) })
          .strict()
          .optional(),
        response: { 201: z.object({ orderId: z.string(), created: z.boolean() }) },
      },
    },
    async (request, reply) => {
      const result = await shops.simulateOrder(
        viewerOf(request),
        request.params.id,
        request.body?.includeUnmatched ?? false,
      );
      return reply.status(201).send(result);
    },
  );

  api.get(
    '/api/listings',
    {
      schema: {
        tags: ['shops'],
        summary: "The seller's imported listings (getMakerforgeListings; ?refresh=true imports first)",
        querystring: listingQuery,
        response: { 200: listingListSchema },
      },
    },
    async (request) => {
      const viewer = requireBetaTester(request);
      const q = request.query;
      const ownerId = subjectUserId(viewer, q.targetUserId);
      if (q.refresh) await shops.syncOwner(ownerId, { listings: true, orders: false });
      return shops.listings(ownerId, {
        shopId: q.shopId ?? null,
        link: q.unmatched ? 'unmatched' : q.link,
        search: q.search,
        cursor: q.cursor,
        limit: q.limit,
      });
    },
  );

  api.get(
    '/api/listings/variant-options',
    {
      schema: {
        tags: ['shops'],
        summary: "The seller's product variants a listing can be linked to",
        querystring: z
          .object({
            search: z.string().trim().max(200).default(''),
            targetUserId: z.string().max(100).optional(),
          })
          .strict(),
        response: { 200: z.array(variantOptionSchema) },
      },
    },
    async (request) => {
      const viewer = requireBetaTester(request);
      return shops.variantOptions(subjectUserId(viewer, request.query.targetUserId), request.query.search);
    },
  );

  api.post(
    '/api/listings/:id/link',
    {
      schema: {
        tags: ['shops'],
        summary:
          'Links a listing to one of your product variants (a manual link is never overwritten by SKU matching)',
        params: idParams,
        body: listingLinkInputSchema,
        response: { 200: listingSchema },
      },
    },
    async (request) => shops.linkListing(viewerOf(request), request.params.id, request.body.variantId),
  );

  api.delete(
    '/api/listings/:id/link',
    {
      schema: {
        tags: ['shops'],
        summary: 'Unlinks a listing',
        params: idParams,
        response: { 200: listingSchema },
      },
    },
    async (request) => shops.unlinkListing(viewerOf(request), request.params.id),
  );
}
