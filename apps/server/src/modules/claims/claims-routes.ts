import type { FastifyInstance, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  CLAIM_PHOTO_MAX_BYTES,
  CLAIM_PHOTO_MAX_COUNT,
  claimDecisionInputSchema,
  claimInputSchema,
  claimListQuerySchema,
  claimListSchema,
  claimOptionsSchema,
  claimSchema,
  claimStatsSchema,
} from '@layerline/contracts';
import { AppError } from '../../errors.ts';
import { requireAdmin, requireViewer } from '../../http/viewer.ts';
import type { ClaimActor, ClaimsService, UploadedPhoto } from './claims-service.ts';

const idParams = z.object({ id: z.uuid('Not a valid id') });
const photoParams = z.object({ id: z.uuid('Not a valid id'), photoId: z.uuid('Not a valid id') });

function actorOf(request: FastifyRequest): ClaimActor {
  const viewer = requireViewer(request);
  return { id: viewer.id, isAdmin: viewer.isAdmin, requestId: request.id };
}

/**
 * The form of a new claim: `kind`, `description`, `partIds` (the field repeated, one id each) and up to
 * CLAIM_PHOTO_MAX_COUNT files in `photos`, each read whole (they are small) to be checked by content.
 */
async function readClaimForm(request: FastifyRequest): Promise<{ fields: unknown; photos: UploadedPhoto[] }> {
  if (!request.isMultipart()) throw new AppError('unsupported-media-type', 'Send the claim as multipart/form-data');
  const fields: { kind?: string; description?: string; partIds: string[] } = { partIds: [] };
  const photos: UploadedPhoto[] = [];
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'photos') throw new AppError('bad-request', `Unknown file field "${part.fieldname}"; attach photos in "photos"`);
        photos.push({ fileName: part.filename, bytes: await part.toBuffer() });
      } else if (typeof part.value === 'string') {
        if (part.fieldname === 'partIds') fields.partIds.push(part.value);
        else if (part.fieldname === 'kind' || part.fieldname === 'description') fields[part.fieldname] = part.value;
        else throw new AppError('bad-request', `Unknown field "${part.fieldname}"`);
      }
    }
  } catch (error) {
    // The parser's own refusals (limits) carry their 4xx; a body that ends mid-form is the client's fault too.
    const status = (error as { statusCode?: unknown }).statusCode;
    if (error instanceof AppError || (typeof status === 'number' && status < 500)) throw error;
    throw new AppError('bad-request', `The form could not be read: ${(error as Error).message}`);
  }
  return { fields, photos };
}

/** Claims on orders (docs/claims.md). */
export async function registerClaimRoutes(app: FastifyInstance, deps: { claims: ClaimsService }): Promise<void> {
  const { claims } = deps;
  await app.register(multipart, {
    limits: { fileSize: CLAIM_PHOTO_MAX_BYTES, files: CLAIM_PHOTO_MAX_COUNT, fields: 210, parts: 220, fieldSize: 4000 },
    throwFileSizeLimit: true,
  });
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['claims'];

  api.post(
    '/api/orders/:id/claims',
    {
      schema: {
        tags,
        summary: `File a claim on a shipped or delivered order (multipart: kind, description, partIds repeated, up to ${CLAIM_PHOTO_MAX_COUNT} JPEG/PNG/WebP files in photos)`,
        params: idParams,
        consumes: ['multipart/form-data'],
        response: { 201: claimSchema },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      // Who asks is checked before a byte of the upload is read.
      await claims.assertClaimant(actor, request.params.id);
      const form = await readClaimForm(request);
      const parsed = claimInputSchema.safeParse(form.fields);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new AppError('bad-request', `${issue.path.join('.') || 'form'}: ${issue.message}`);
      }
      return reply.status(201).send(await claims.file(actor, request.params.id, parsed.data, form.photos));
    },
  );

  api.get(
    '/api/orders/:id/claim-options',
    { schema: { tags, summary: 'What a claim on this order may name now: its received parts and the kinds open (or why none is)', params: idParams, response: { 200: claimOptionsSchema } } },
    async (request) => claims.options(actorOf(request), request.params.id),
  );

  api.get(
    '/api/claims',
    { schema: { tags, summary: 'The signed-in seller’s claims, newest first', querystring: claimListQuerySchema, response: { 200: claimListSchema } } },
    async (request) => claims.list(actorOf(request), request.query, 'own'),
  );

  api.get(
    '/api/admin/claims',
    { schema: { tags: ['admin', ...tags], summary: 'The claims queue: every seller’s claims, newest first', querystring: claimListQuerySchema, response: { 200: claimListSchema } } },
    async (request) => {
      requireAdmin(request);
      return claims.list(actorOf(request), request.query, 'all');
    },
  );

  api.get(
    '/api/admin/claims/stats',
    { schema: { tags: ['admin', ...tags], summary: 'Claims per printer and per material (declined claims left out)', response: { 200: claimStatsSchema } } },
    async (request) => {
      requireAdmin(request);
      return claims.stats(actorOf(request));
    },
  );

  api.get(
    '/api/claims/:id',
    { schema: { tags, summary: 'A claim with its parts’ production record and its photos', params: idParams, response: { 200: claimSchema } } },
    async (request) => claims.get(actorOf(request), request.params.id),
  );

  api.get(
    '/api/claims/:id/photos/:photoId',
    { schema: { tags, summary: 'A claim’s photo (JPEG, metadata removed)', params: photoParams } },
    async (request, reply) => {
      const photo = await claims.photo(actorOf(request), request.params.id, request.params.photoId);
      return reply
        .type('image/jpeg')
        .header('content-disposition', 'inline')
        .header('cache-control', 'private, no-store')
        .header('Content-Security-Policy', 'sandbox')
        .send(photo);
    },
  );

  api.post(
    '/api/admin/claims/:id/decision',
    {
      schema: {
        tags: ['admin', ...tags],
        summary: 'Decide a claim: reprint (free, new parcel), refund (amountCents, default all left) or decline (note required)',
        params: idParams,
        body: claimDecisionInputSchema,
        response: { 200: claimSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      return claims.decide(actorOf(request), request.params.id, request.body);
    },
  );
}
