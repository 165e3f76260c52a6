import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import {
  createFulfillmentRecordInputSchema,
  fulfillmentHistoryPageSchema,
  fulfillmentHistoryQuerySchema,
  fulfillmentMonthlySchema,
  fulfillmentRecordSchema,
} from '@layerline/contracts';
import { requireAdmin, requireViewer } from '../../http/viewer.ts';
import type { FulfillmentService, FulfillmentViewer } from './fulfillment-service.ts';

/** The chart takes the list's filters; its order and paging mean nothing there. */
const monthlyQuery = fulfillmentHistoryQuerySchema.omit({ page: true, limit: true, orderBy: true, orderDirection: true });
/** The export is the whole filtered list, in the list's order. */
const exportQuery = fulfillmentHistoryQuerySchema.omit({ page: true, limit: true });
/** getUserFulfillmentHistory is the caller's own: naming a seller there is a mistake, refused as an unknown key. */
const userQuery = fulfillmentHistoryQuerySchema.omit({ sellerId: true });

function viewerOf(request: FastifyRequest): FulfillmentViewer {
  const viewer = requireViewer(request);
  return { id: viewer.id, isAdmin: viewer.isAdmin, requestId: request.id };
}

/** The fulfilment history (docs/shipping.md, "HTTP API"). */
export function registerFulfillmentRoutes(app: FastifyInstance, deps: { fulfillment: FulfillmentService }): void {
  const { fulfillment } = deps;
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['fulfillment'];

  api.get(
    '/api/fulfillment-history',
    {
      schema: {
        tags,
        summary: "getFulfillmentHistory: one page of shipments, newest first (sellers: their own; admins: everyone's, sellerId filters)",
        querystring: fulfillmentHistoryQuerySchema,
        response: { 200: fulfillmentHistoryPageSchema },
      },
    },
    async (request) => fulfillment.history(viewerOf(request), request.query),
  );

  api.get(
    '/api/fulfillment-history/user',
    {
      schema: {
        tags,
        summary: "getUserFulfillmentHistory: one page of the signed-in user's own shipments",
        querystring: userQuery,
        response: { 200: fulfillmentHistoryPageSchema },
      },
    },
    async (request) => fulfillment.userHistory(viewerOf(request), request.query),
  );

  api.get(
    '/api/fulfillment-history/monthly',
    {
      schema: {
        tags,
        summary: 'Shipments and spend per month (UTC) of the filtered history, for the chart',
        querystring: monthlyQuery,
        response: { 200: fulfillmentMonthlySchema },
      },
    },
    async (request) => fulfillment.monthly(viewerOf(request), request.query),
  );

  api.get(
    '/api/fulfillment-history/export.csv',
    {
      schema: {
        tags,
        summary: 'The whole filtered history as CSV, streamed (same filters and scope as the list)',
        querystring: exportQuery,
      },
    },
    async (request, reply) => {
      const { filename, chunks } = fulfillment.exportCsv(viewerOf(request), request.query);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${filename}"`)
        // One batch's text waits for the socket at most (object mode would queue 16): memory stays flat
        // however slowly the client reads.
        .send(Readable.from(chunks, { highWaterMark: 1 }));
    },
  );

  api.post(
    '/api/admin/fulfillment-history',
    {
      schema: {
        tags,
        summary: "createFulfillmentHistoryRecord (admins): record a shipment for targetUserId's seller",
        body: createFulfillmentRecordInputSchema,
        response: { 201: fulfillmentRecordSchema },
      },
    },
    async (request, reply) => {
      requireAdmin(request);
      return reply.status(201).send(await fulfillment.create(viewerOf(request), request.body));
    },
  );
}
