import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  billingSettingsSchema,
  chargeAuthenticationSchema,
  chargeDtoSchema,
  chargeListQuerySchema,
  chargePageSchema,
  chargeStoredCardInputSchema,
  confirmChargeInputSchema,
  refundChargeInputSchema,
  sandboxCardInputSchema,
  setupIntentSchema,
  storeDefaultPaymentMethodInputSchema,
  storedCardSchema,
} from '@layerline/contracts';
import { AppError } from '../../errors.ts';
import { requireAdmin, requireViewer, subjectUserId } from '../../http/viewer.ts';
import type { PaymentActor, PaymentService } from './payment-service.ts';

/**
 * Stripe's events about a PaymentIntent are a few kilobytes (10 KB with every field); 256 KB leaves
 * room and bounds what one verified delivery can make us store (issue 21: 893 KB bodies were stored).
 */
const MAX_WEBHOOK_BYTES = 256 * 1024;
const chargeParams = z.object({ id: z.uuid('Not a valid charge id') }).strict();
const targetQuery = z.object({ targetUserId: z.string().max(100).optional() }).strict();
const emptyBody = z.object({}).strict().nullish();

export interface PaymentRouteDeps {
  readonly payments: PaymentService;
  /**
   * The sandbox's stand-in for Stripe Elements' createPaymentMethod (test mode only): a typed card
   * checked the way Elements would, answered as a payment method id. Null with Stripe.
   */
  readonly sandboxCards: ((input: z.infer<typeof sandboxCardInputSchema>) => { ok: true; card: { paymentMethodId: string; brand: string; last4: string; expMonth: number; expYear: number } } | { ok: false; field: string; message: string }) | null;
  /** Whether the provider's webhook route exists (config.payments.webhooks: off in production without Stripe keys). */
  readonly webhooks: boolean;
  /** Deliveries per minute per address (RateLimits.paymentWebhooksPerMinute). */
  readonly webhooksPerMinute: number;
}

function actorOf(request: FastifyRequest): PaymentActor {
  const viewer = requireViewer(request);
  return { id: viewer.id, isAdmin: viewer.isAdmin };
}

/** Payments: the seller's card, charges and refunds, the provider's webhooks (docs/payments.md). */
export async function registerPaymentRoutes(app: FastifyInstance, deps: PaymentRouteDeps): Promise<void> {
  const { payments } = deps;
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['payments'];
  const subject = (request: FastifyRequest, targetUserId: string | undefined) => subjectUserId(requireViewer(request), targetUserId);

  api.get(
    '/api/payments/billing',
    { schema: { tags, summary: 'The seller’s card (brand, last 4, expiry), the provider and test mode, orders held for payment', querystring: targetQuery, response: { 200: billingSettingsSchema } } },
    async (request) => payments.billing(subject(request, request.query.targetUserId)),
  );

  api.post(
    '/api/payments/setup-intent',
    { schema: { tags, summary: 'createSetupIntent: what the card form needs to collect a card for later off-session charges', body: emptyBody, response: { 200: setupIntentSchema } } },
    async (request) => payments.createSetupIntent(actorOf(request).id),
  );

  api.post(
    '/api/payments/sandbox/payment-methods',
    {
      schema: {
        tags,
        summary: 'Test mode only: a card typed into the sandbox card form, checked as Stripe Elements would, answered as a payment method id',
        body: sandboxCardInputSchema,
        response: {
          200: z.object({ paymentMethodId: z.string(), brand: z.string(), last4: z.string(), expMonth: z.number().int(), expYear: z.number().int() }),
          400: z.object({ error: z.string(), field: z.string().optional() }),
        },
      },
    },
    async (request, reply) => {
      actorOf(request);
      if (!deps.sandboxCards) throw new AppError('not-found', 'This server takes cards through Stripe');
      const checked = deps.sandboxCards(request.body);
      if (!checked.ok) return reply.code(400).send({ error: checked.message, field: checked.field });
      return checked.card;
    },
  );

  api.post(
    '/api/payments/default-payment-method',
    { schema: { tags, summary: 'storeDefaultPaymentMethod: the card becomes the seller’s default; orders held for payment are released', body: storeDefaultPaymentMethodInputSchema, response: { 200: storedCardSchema } } },
    async (request) => payments.storeDefaultPaymentMethod(actorOf(request).id, request.body.paymentMethodId),
  );

  api.get(
    '/api/payments/charges',
    { schema: { tags, summary: 'Charges and their refunds, newest first (a seller’s own; admins everyone’s or one seller’s)', querystring: chargeListQuerySchema, response: { 200: chargePageSchema } } },
    async (request) => payments.listCharges(actorOf(request), request.query, subject(request, request.query.targetUserId)),
  );

  api.get(
    '/api/payments/charges/:id/authentication',
    { schema: { tags, summary: 'What the authenticate page needs for a charge the card’s bank wants confirmed', params: chargeParams, response: { 200: chargeAuthenticationSchema } } },
    async (request) => payments.authentication(actorOf(request), request.params.id),
  );

  api.post(
    '/api/payments/charges/:id/confirm',
    { schema: { tags, summary: 'After the seller authenticated: the charge read back from the provider (test mode: the sandbox’s answer)', params: chargeParams, body: confirmChargeInputSchema, response: { 200: chargeDtoSchema } } },
    async (request) => payments.confirm(actorOf(request), request.params.id, request.body?.sandboxOutcome),
  );

  api.post(
    '/api/payments/charge-stored-card',
    { schema: { tags, summary: 'chargeStoredCard (admins): charges a seller’s stored card for an order, once per requestId', body: chargeStoredCardInputSchema, response: { 200: chargeDtoSchema } } },
    async (request) => payments.chargeStoredCard({ id: requireAdmin(request).id, isAdmin: true }, request.body),
  );

  api.post(
    '/api/payments/charges/:id/refund',
    { schema: { tags, summary: 'Admins: refunds what is left of a charge, or part of it (the same request twice is one refund)', params: chargeParams, body: refundChargeInputSchema, response: { 200: chargeDtoSchema } } },
    async (request) => payments.refund({ id: requireAdmin(request).id, isAdmin: true }, request.params.id, request.body),
  );

  // The provider calls this: no session; the signature over the exact bytes is the authentication.
  if (!deps.webhooks) return;
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: MAX_WEBHOOK_BYTES }, (_request, body, done) => done(null, body));
    scope.post(
      '/api/payments/webhook',
      {
        bodyLimit: MAX_WEBHOOK_BYTES,
        // Stripe retries and bursts come from a few addresses: more room than the per-IP API limit.
        config: { rateLimit: { max: deps.webhooksPerMinute, timeWindow: '1 minute' } },
        schema: {
          tags: ['webhooks'],
          summary: 'Stripe (or sandbox) payment webhooks, verified by Stripe-Signature (300 s tolerance; 401 otherwise), stored once, processed once',
        },
      },
      async (request) => {
        const signature = request.headers['stripe-signature'];
        if (typeof signature !== 'string') throw new AppError('unauthenticated', 'The Stripe-Signature header is missing');
        const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const { duplicate } = await payments.receiveWebhook(rawBody, signature);
        return { received: true, duplicate };
      },
    );
  });
}
