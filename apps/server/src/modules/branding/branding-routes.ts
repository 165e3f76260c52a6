import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { brandingInputSchema, brandingSchema, LOGO_MAX_BYTES } from '@layerline/contracts';
import { AppError, notFound } from '../../errors.ts';
import { requireViewer, subjectUserId } from '../../http/viewer.ts';
import type { Actor, BrandingService } from './branding-service.ts';

const actingQuery = z.object({ targetUserId: z.string().max(100).optional() }).strict();
/** `v`: the logo's upload time, so the web page's address changes when the logo does. */
const logoQuery = z.object({ targetUserId: z.string().max(100).optional(), v: z.string().max(100).optional() }).strict();
const tags = ['branding'];

function actorOf(request: FastifyRequest): Actor {
  return { id: requireViewer(request).id, requestId: request.id };
}

/** Branded parcels (issue 24, point 4): the seller's logo, insert message and thank-you card. */
export async function registerBrandingRoutes(app: FastifyInstance, deps: { branding: BrandingService }): Promise<void> {
  const { branding } = deps;
  await app.register(multipart, {
    limits: { fileSize: LOGO_MAX_BYTES, files: 1, fields: 0, parts: 1 },
    throwFileSizeLimit: false,
  });
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/api/branding',
    { schema: { tags, summary: 'The seller’s parcel branding: logo, insert message, thank-you card (admins: another seller’s with targetUserId)', querystring: actingQuery, response: { 200: brandingSchema } } },
    async (request) => branding.get(subjectUserId(requireViewer(request), request.query.targetUserId)),
  );

  api.put(
    '/api/branding',
    { schema: { tags, summary: 'Set the insert message printed on the packing slip and whether a thank-you card goes with it', querystring: actingQuery, body: brandingInputSchema, response: { 200: brandingSchema } } },
    async (request) => {
      const ownerId = subjectUserId(requireViewer(request), request.query.targetUserId);
      return branding.saveInsert(actorOf(request), ownerId, request.body);
    },
  );

  api.put(
    '/api/branding/logo',
    {
      schema: {
        tags,
        summary: 'Upload the logo (multipart field `file`: PNG, or SVG which is sanitised and rasterised; at most 1 MB and 4096 × 4096 px)',
        querystring: actingQuery,
        consumes: ['multipart/form-data'],
        response: { 200: brandingSchema },
      },
    },
    async (request) => {
      const ownerId = subjectUserId(requireViewer(request), request.query.targetUserId);
      if (!request.isMultipart()) throw new AppError('unsupported-media-type', 'Send the logo as multipart/form-data in the field "file"');
      const part = await request.file();
      if (!part || part.fieldname !== 'file') throw new AppError('bad-request', 'Attach the logo in the field "file"');
      const bytes = await part.toBuffer().catch(() => null);
      if (bytes === null || part.file.truncated) throw new AppError('payload-too-large', `The logo is larger than ${LOGO_MAX_BYTES / 1024} KB`);
      return branding.uploadLogo(actorOf(request), ownerId, bytes);
    },
  );

  api.delete(
    '/api/branding/logo',
    { schema: { tags, summary: 'Remove the logo', querystring: actingQuery, response: { 200: brandingSchema } } },
    async (request) => {
      const ownerId = subjectUserId(requireViewer(request), request.query.targetUserId);
      return branding.removeLogo(actorOf(request), ownerId);
    },
  );

  api.get(
    '/api/branding/logo.png',
    { schema: { tags, summary: 'The stored logo as a PNG (an SVG upload as rasterised)', querystring: logoQuery } },
    async (request, reply) => {
      const ownerId = subjectUserId(requireViewer(request), request.query.targetUserId);
      const png = await branding.logoPng(ownerId);
      if (!png) throw notFound('Logo');
      return reply.type('image/png').header('cache-control', 'private, no-store').send(png);
    },
  );
}
