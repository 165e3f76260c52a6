import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  businessDetailsSchema,
  businessDetailsStateSchema,
  contactMessageRecordSchema,
  contactMessageSchema,
  landingTestimonialSchema,
  pageQueryFields,
  publicConfigSchema,
  testimonialSchema,
  type PublicConfig,
} from '@layerline/contracts';
import { requireAdmin } from '../../http/viewer.ts';
import type { ContactRepository } from './contact-repository.ts';
import type { TestimonialService } from './testimonial-service.ts';
import type { BusinessDetailsService } from './business-details-service.ts';

export function registerSiteRoutes(
  app: FastifyInstance,
  deps: {
    contacts: ContactRepository;
    testimonial: TestimonialService;
    publicConfig: PublicConfig;
    contactLimitPer10Minutes: number;
    businessDetails: BusinessDetailsService;
  },
) {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/api/health',
    { schema: { tags: ['site'], summary: 'Liveness', response: { 200: z.object({ ok: z.boolean() }) } } },
    async () => ({ ok: true }),
  );

  api.get(
    '/api/config',
    { schema: { tags: ['site'], summary: 'Public settings for the web app', response: { 200: publicConfigSchema } } },
    async () => deps.publicConfig,
  );

  api.post(
    '/api/contact',
    {
      config: { rateLimit: { max: deps.contactLimitPer10Minutes, timeWindow: '10 minutes' } },
      schema: {
        tags: ['site'],
        summary: 'Send a message from the contact form (signed in or not)',
        body: contactMessageSchema,
        response: { 201: z.object({ id: z.string() }) },
      },
    },
    async (request, reply) => {
      const id = await deps.contacts.insert(request.body, request.viewer?.id ?? null);
      return reply.status(201).send({ id });
    },
  );

  api.get(
    '/api/admin/contact-messages',
    {
      schema: {
        tags: ['admin'],
        summary: 'Messages sent through the contact form, newest first',
        querystring: z.object(pageQueryFields(100, 500)).strict(),
        response: { 200: z.object({ messages: z.array(contactMessageRecordSchema), nextCursor: z.string().nullable() }) },
      },
    },
    async (request) => {
      requireAdmin(request);
      const page = await deps.contacts.list(request.query);
      return { messages: page.items, nextCursor: page.nextCursor };
    },
  );

  api.get(
    '/api/site/testimonial',
    {
      schema: {
        tags: ['site'],
        summary: 'The landing page’s creator testimonial (the sample, marked `sample`, until an admin sets one)',
        response: { 200: landingTestimonialSchema },
      },
    },
    async () => deps.testimonial.get(),
  );

  api.put(
    '/api/admin/site/testimonial',
    {
      schema: {
        tags: ['admin'],
        summary: 'Set the landing page’s creator testimonial (audited)',
        body: testimonialSchema,
        response: { 200: landingTestimonialSchema },
      },
    },
    async (request) => {
      const admin = requireAdmin(request);
      return deps.testimonial.set({ id: admin.id, requestId: request.id }, request.body);
    },
  );

  api.delete(
    '/api/admin/site/testimonial',
    { schema: { tags: ['admin'], summary: 'Show the sample testimonial again (audited)', response: { 204: z.null() } } },
    async (request, reply) => {
      const admin = requireAdmin(request);
      await deps.testimonial.reset({ id: admin.id, requestId: request.id });
      return reply.status(204).send(null);
    },
  );

  // The platform's business details: the issuer printed on every receipt and statement (docs/wallet.md).
  api.get(
    '/api/admin/site/business-details',
    { schema: { tags: ['admin'], summary: 'The platform’s business details printed on receipts and statements (`sample` until set)', response: { 200: businessDetailsStateSchema } } },
    async (request) => {
      requireAdmin(request);
      return deps.businessDetails.get();
    },
  );

  api.put(
    '/api/admin/site/business-details',
    { schema: { tags: ['admin'], summary: 'Set the platform’s business details (audited; receipts issued from now on carry them)', body: businessDetailsSchema, response: { 200: businessDetailsStateSchema } } },
    async (request) => {
      const admin = requireAdmin(request);
      return deps.businessDetails.set({ id: admin.id, requestId: request.id }, request.body);
    },
  );
}
