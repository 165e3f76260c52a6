import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebhookIntakeService } from './webhook-intake-service.ts';

const MAX_WEBHOOK_BYTES = 2 * 1024 * 1024;

const headerOf = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
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
    scope.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: MAX_WEBHOOK_BYTES },
      (_request, body, done) => done(null, body),
    );

    scope.post(
      '/api/webhooks/shopify',
      {
        bodyLimit: MAX_WEBHOOK_BYTES,
        // A busy store's deliveries come from a few Shopify addresses: more room than the per-IP API limit.
        config: { rateLimit: { max: 6000, timeWindow: '1 minute' } },
        schema: {
          tags: ['webhooks'],
          summary:
            'Shopify webhooks (orders/create, orders/updated, orders/cancelled, app/uninstalled), verified by X-Shopify-Hmac-Sha256 over the raw body',
        },
      },
      async (request, reply) => {
        const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const result = await deps.webhookIntake.receive('shopify', {
          rawBody,
          signature: headerOf(request, 'x-shopify-hmac-sha256'),
          shopId: headerOf(request, 'x-shopify-shop-domain'),
          topic: headerOf(request, 'x-shopify-topic'),
          deliveryId: headerOf(request, 'x-shopify-webhook-id'),
        });
        if (result.outcome === 'unknown-shop') {
          request.log.warn(
            {
              event: 'webhook.unknown_shop',
              id: result.id,
              shop: headerOf(request, 'x-shopify-shop-domain'),
            },
            'Shopify webhook for a shop that is not connected; stored and acknowledged',
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
}
