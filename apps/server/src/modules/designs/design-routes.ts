import type { FastifyInstance, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  costDataInputSchema,
  designListQuerySchema,
  designListSchema,
  designSchema,
  estimateCostInputSchema,
  fileMetadataSchema,
  placeholderCostInputSchema,
  printConfigInputSchema,
  printConfigSchema,
  printConfigUpdateSchema,
  priceTableSchema,
  quoteSchema,
  renameDesignSchema,
} from '@layerline/contracts';
import { AppError } from '../../errors.ts';
import { requireAdmin, requireViewer, subjectUserId } from '../../http/viewer.ts';
import type { PriceTableRepository } from '../quotes/price-table-repository.ts';
import { attachmentHeader, type Actor, type DesignService } from './design-service.ts';

const idParams = z.object({ id: z.uuid('Not a valid id') });
const listQuery = designListQuerySchema;

function actorOf(request: FastifyRequest): Actor {
  const viewer = requireViewer(request);
  return { id: viewer.id, isAdmin: viewer.isAdmin, requestId: request.id };
}

export async function registerDesignRoutes(
  app: FastifyInstance,
  deps: { designs: DesignService; prices: PriceTableRepository },
): Promise<void> {
  const { designs, prices } = deps;
  await app.register(multipart, {
    // At the limit busboy stops passing bytes on but keeps draining the request, so the client
    // gets its 413 (the service checks `truncated`); failing the stream instead would stall it.
    limits: { fileSize: designs.limits.maxUploadBytes, files: 1, fields: 4, parts: 6, fieldSize: 1024 },
    throwFileSizeLimit: true,
  });
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.post(
    '/api/designs',
    {
      schema: {
        tags: ['designs'],
        summary: 'Upload a 3D model (multipart field `file`: STL, OBJ or 3MF); it is analysed and priced at once',
        querystring: z.object({ targetUserId: z.string().max(100).optional() }).strict(),
        consumes: ['multipart/form-data'],
        response: { 201: designSchema },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const ownerId = subjectUserId(requireViewer(request), request.query.targetUserId);
      if (!request.isMultipart()) throw new AppError('unsupported-media-type', 'Send the model as multipart/form-data in the field "file"');
      const part = await request.file();
      if (!part || part.fieldname !== 'file') throw new AppError('bad-request', 'Attach the model in the field "file"');
      const nameField = part.fields.name;
      const name = nameField && 'value' in nameField && typeof nameField.value === 'string' ? nameField.value : undefined;
      const design = await designs.upload(actor, ownerId, {
        fileName: part.filename,
        stream: part.file,
        name,
        truncated: () => part.file.truncated,
        // The whole request's size (the file and its form framing): the room held in the quota.
        declaredBytes: Number(request.headers['content-length']) || undefined,
      });
      return reply.status(201).send(design);
    },
  );

  api.get(
    '/api/designs',
    { schema: { tags: ['designs'], summary: 'The seller’s designs (admins: another seller’s with targetUserId)', querystring: listQuery, response: { 200: designListSchema } } },
    async (request) => {
      const ownerId = subjectUserId(requireViewer(request), request.query.targetUserId);
      return designs.list(actorOf(request), { ...request.query, ownerId });
    },
  );

  api.get(
    '/api/admin/designs',
    { schema: { tags: ['admin'], summary: 'Every seller’s designs', querystring: listQuery.omit({ targetUserId: true }), response: { 200: designListSchema } } },
    async (request) => {
      requireAdmin(request);
      return designs.list(actorOf(request), { ...request.query, ownerId: null });
    },
  );

  api.get(
    '/api/designs/:id',
    { schema: { tags: ['designs'], summary: 'A design with its print configurations and quotes', params: idParams, response: { 200: designSchema } } },
    async (request) => designs.get(actorOf(request), request.params.id),
  );

  api.patch(
    '/api/designs/:id',
    { schema: { tags: ['designs'], summary: 'Rename a design', params: idParams, body: renameDesignSchema, response: { 200: designSchema } } },
    async (request) => designs.rename(actorOf(request), request.params.id, request.body.name),
  );

  api.delete(
    '/api/designs/:id',
    { schema: { tags: ['designs'], summary: 'Delete a design, its configurations and its files', params: idParams, response: { 204: z.null() } } },
    async (request, reply) => {
      await designs.delete(actorOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );

  api.get(
    '/api/designs/:id/file',
    { schema: { tags: ['designs'], summary: 'Download the original file (always as an attachment)', params: idParams } },
    async (request, reply) => {
      const file = await designs.download(actorOf(request), request.params.id);
      return reply
        .header('Content-Type', file.contentType)
        .header('Content-Length', String(file.sizeBytes))
        .header('Content-Disposition', attachmentHeader(file.fileName))
        .header('Content-Security-Policy', 'sandbox')
        .send(file.stream);
    },
  );

  api.get(
    '/api/designs/:id/metadata',
    { schema: { tags: ['designs'], summary: 'Stored-file metadata of the design', params: idParams, response: { 200: fileMetadataSchema } } },
    async (request) => designs.metadata(actorOf(request), request.params.id),
  );

  api.get(
    '/api/designs/:id/thumbnail.png',
    { schema: { tags: ['designs'], summary: 'A rendered picture of the model', params: idParams, querystring: z.object({ v: z.string().optional() }) } },
    async (request, reply) => {
      const png = await designs.thumbnail(actorOf(request), request.params.id);
      return reply.header('Content-Type', 'image/png').header('Cache-Control', 'private, max-age=86400').send(png);
    },
  );

  api.get(
    '/api/designs/:id/viewer-mesh',
    {
      schema: {
        tags: ['designs'],
        summary: 'The mesh for the 3D viewer: u32 vertex count, u32 triangle count, f32 positions (mm), u32 indices; little-endian',
        params: idParams,
      },
    },
    async (request, reply) => {
      const mesh = await designs.viewerMesh(actorOf(request), request.params.id);
      return reply.header('Content-Type', 'application/octet-stream').header('Cache-Control', 'private, max-age=3600').send(mesh);
    },
  );

  api.get(
    '/api/designs/:id/problem-areas',
    {
      schema: {
        tags: ['designs'],
        summary: 'Triangles (indices into the viewer mesh) showing each problem',
        params: idParams,
        response: { 200: z.object({ areas: z.array(z.object({ code: z.string(), message: z.string(), triangles: z.array(z.number().int()) })) }) },
      },
    },
    async (request) => designs.problemAreas(actorOf(request), request.params.id),
  );

  api.post(
    '/api/designs/:id/print-configs',
    { schema: { tags: ['designs'], summary: 'Add a print configuration (priced at once)', params: idParams, body: printConfigInputSchema, response: { 201: printConfigSchema } } },
    async (request, reply) => reply.status(201).send(await designs.createConfig(actorOf(request), request.params.id, request.body)),
  );

  api.patch(
    '/api/print-configs/:id',
    {
      schema: {
        tags: ['designs'],
        summary: 'Change a print configuration (re-priced)',
        params: idParams,
        body: printConfigUpdateSchema,
        response: { 200: printConfigSchema },
      },
    },
    async (request) => designs.updateConfig(actorOf(request), request.params.id, request.body),
  );

  api.delete(
    '/api/print-configs/:id',
    { schema: { tags: ['designs'], summary: 'Remove a print configuration', params: idParams, response: { 204: z.null() } } },
    async (request, reply) => {
      await designs.deleteConfig(actorOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );

  api.post(
    '/api/estimate-print-cost',
    {
      schema: {
        tags: ['quotes'],
        summary: 'The spec’s estimatePrintCostThreeJS: a quote for a design and settings, saving nothing',
        body: estimateCostInputSchema,
        response: { 200: quoteSchema },
      },
    },
    async (request) => {
      const viewer = requireViewer(request);
      subjectUserId(viewer, request.body.targetUserId);
      return designs.estimateCost(actorOf(request), request.body);
    },
  );

  api.get(
    '/api/admin/price-table',
    { schema: { tags: ['admin'], summary: 'The price table', response: { 200: priceTableSchema } } },
    async (request) => {
      requireAdmin(request);
      return prices.get();
    },
  );

  api.put(
    '/api/admin/price-table',
    { schema: { tags: ['admin'], summary: 'Replace the price table', body: priceTableSchema, response: { 200: priceTableSchema } } },
    async (request) => {
      const admin = requireAdmin(request);
      return prices.set(request.body, { actorId: admin.id, requestId: request.id });
    },
  );

  api.post(
    '/api/admin/cost-data',
    { schema: { tags: ['admin'], summary: 'The spec’s createCostData: set a configuration’s exact cost data', body: costDataInputSchema, response: { 200: printConfigSchema } } },
    async (request) => {
      requireAdmin(request);
      return designs.setCostData(actorOf(request), request.body);
    },
  );

  api.post(
    '/api/admin/placeholder-cost-3mf',
    {
      schema: {
        tags: ['admin'],
        summary: 'The spec’s createPlaceholderCost3MF: a provisional cost for a 3MF configuration',
        body: placeholderCostInputSchema,
        response: { 200: printConfigSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      return designs.setPlaceholderCost3mf(actorOf(request), request.body);
    },
  );
}
