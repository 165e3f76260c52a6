import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { failedDeliverySchema } from '@layerline/contracts';
import { requireAdmin } from '../../http/viewer.ts';
import type { WebhookIntakeService } from './webhook-intake-service.ts';

const MAX_WEBHOOK_BYTES = 2 * 1024 * 1024;

/** Marketplaces that push orders to us over HTTPS (eBay and Amazon are polled). */
const WEBHOOK_PLATFORMS = ['shopify', 'woocommerce', 'walmart', 'tiktok'] as const;

/** Every header as one string, names lower-cased (what a WebhookReceiver reads). */
const headersOf = (request: FastifyRequest): Record<string, string | undefined> => {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(request.headers))
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  return headers;
};

/**
 * Marketplace webhooks. The marketplace calls these, so there is no session: the signature is the
 * authentication. They need the exact bytes that were signed, so this plugin scope keeps JSON
 * bodies as raw Buffers (the rest of the app still parses JSON). Nothing here calls the
 * marketplace: store, queue, answer.
 */
export async function registerWebhookIntakeRoutes(
  app: FastifyInstance,
  deps: { webhookIntake: WebhookIntakeService },
): Promise<void> {
  await app.register(async (scope) => {
    // WooCommerce pings a new webhook with a form body; it is answered, never stored.
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'buffer', bodyLimit: MAX_WEBHOOK_BYTES },
      (_request, body, done) => done(null, body),
    );
    scope.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: MAX_WEBHOOK_BYTES },
      (_request, body, done) => done(null, body),
    );

    scope.post(
      '/api/webhooks/:platform',
      {
        bodyLimit: MAX_WEBHOOK_BYTES,
        // A busy store's deliveries come from a few marketplace addresses: more room than the per-IP API limit.
        config: { rateLimit: { max: 6000, timeWindow: '1 minute' } },
        schema: {
          tags: ['webhooks'],
          summary:
            "Marketplace webhooks (Shopify orders/* and app/uninstalled, WooCommerce order.*, TikTok Shop order status, Walmart PO events), verified by the marketplace's signature over the raw body, stored, then processed",
          params: z.object({ platform: z.enum(WEBHOOK_PLATFORMS) }).strict(),
        },
      },
      async (request, reply) => {
        const { platform } = request.params as { platform: string };
        const receiver = deps.webhookIntake.receiverFor(platform);
        const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const headers = headersOf(request);
        if (receiver.isPing?.(headers, rawBody)) return reply.status(200).send({ ok: true });
        const result = await deps.webhookIntake.receive(platform, {
          rawBody,
          ...receiver.read(headers, rawBody),
        });
        if (result.outcome === 'unknown-shop') {
          request.log.warn(
            { event: 'webhook.unknown_shop', id: result.id, platform },
            'Webhook for a shop that is not connected; stored and acknowledged',
          );
        } else if (result.outcome === 'stored' && !result.enqueued) {
          request.log.error(
            { err: result.enqueueError, event: 'webhook.enqueue_failed', id: result.id },
            'Webhook stored but not queued; the sweep will process it',
          );
        }
        return reply.status(200).send({ ok: true });
      },
    );
  });

  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/admin/marketplace-deliveries/failed',
    {
      schema: {
        tags: ['admin'],
        summary:
          'Marketplace webhook deliveries kept as failed (the payload was not a readable order), newest first, with the reason',
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(200).default(50) }).strict(),
        response: { 200: z.object({ items: z.array(failedDeliverySchema) }) },
      },
    },
    async (request) => {
      requireAdmin(request);
      return { items: await deps.webhookIntake.failedDeliveries(request.query.limit) };
    },
  );
}
