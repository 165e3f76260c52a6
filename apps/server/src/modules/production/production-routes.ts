import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  moveInputSchema,
  packInputSchema,
  pinInputSchema,
  printJobSchema,
  productionBoardSchema,
  qcInputSchema,
  skipPartInputSchema,
} from '@layerline/contracts';
import { requireAdmin } from '../../http/viewer.ts';
import { renderPackingSlip } from './packing-slip.ts';
import type { ProductionService } from './production-service.ts';

const idParams = (what: string) => z.object({ id: z.uuid(`Not a valid ${what} id`) }).strict();

/** The farm at work: the production board, QC and packing (admins only; docs/api.md, "Production"). */
export function registerProductionRoutes(app: FastifyInstance, deps: { production: ProductionService }): void {
  const { production } = deps;
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['production'];

  api.get(
    '/api/admin/production/board',
    {
      schema: {
        tags,
        summary: 'The production board: printers, the queue, jobs on printers, QC, packing and held orders',
        response: { 200: productionBoardSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      return production.board();
    },
  );

  api.post(
    '/api/admin/production/printers/:id/bed-clear',
    {
      schema: {
        tags,
        summary: 'Confirm a printer’s bed is clear after its last print, so it may take the next job',
        params: idParams('printer'),
      },
    },
    async (request, reply) => {
      const admin = requireAdmin(request);
      await production.confirmBedClear(admin.id, request.params.id);
      return reply.status(204).send();
    },
  );

  api.post(
    '/api/admin/production/jobs/:id/qc',
    {
      schema: {
        tags,
        summary: 'QC of a printed part: pass, or fail with a reason (reprinted, or the order held after the last attempt)',
        params: idParams('print job'),
        body: qcInputSchema,
        response: { 200: printJobSchema },
      },
    },
    async (request) => production.qc(requireAdmin(request).id, request.params.id, request.body),
  );

  api.post(
    '/api/admin/production/jobs/:id/skip',
    {
      schema: {
        tags,
        summary: 'A part failing mid-print on a plate of several: its printer skips it and prints the rest; the part is reprinted alone (409 when the printer cannot skip)',
        params: idParams('print job'),
        body: skipPartInputSchema,
        response: { 200: printJobSchema },
      },
    },
    async (request) => production.skipPart(requireAdmin(request).id, request.params.id, request.body),
  );

  api.post(
    '/api/admin/production/jobs/:id/pin',
    {
      schema: {
        tags,
        summary: 'Pin a queued job to a printer (it runs there next), or unpin it (null)',
        params: idParams('print job'),
        body: pinInputSchema,
        response: { 200: printJobSchema },
      },
    },
    async (request) => production.pin(requireAdmin(request).id, request.params.id, request.body.printerId),
  );

  api.post(
    '/api/admin/production/jobs/:id/move',
    {
      schema: {
        tags,
        summary: 'Reorder the queue: the job goes just before another queued job (or to the end)',
        params: idParams('print job'),
        body: moveInputSchema,
        response: { 200: printJobSchema },
      },
    },
    async (request) => production.move(requireAdmin(request).id, request.params.id, request.body.beforeJobId),
  );

  api.post(
    '/api/admin/production/jobs/:id/spool-loaded',
    {
      schema: {
        tags,
        summary: 'The spool the job asked for is loaded: the job starts',
        params: idParams('print job'),
        response: { 200: printJobSchema },
      },
    },
    async (request) => production.spoolLoaded(requireAdmin(request).id, request.params.id),
  );

  api.post(
    '/api/admin/production/orders/:id/pack',
    {
      schema: {
        tags,
        summary: 'Packing confirmed: the printed order becomes packed',
        params: idParams('order'),
        body: packInputSchema,
      },
    },
    async (request, reply) => {
      const admin = requireAdmin(request);
      await production.pack(admin.id, request.params.id, request.body.message);
      return reply.status(204).send();
    },
  );

  api.get(
    '/api/admin/production/orders/:id/packing-slip.pdf',
    {
      schema: {
        tags,
        summary: 'The packing slip as a PDF: the seller’s name and return address, the pick list, a message, the order id as a barcode',
        params: idParams('order'),
        querystring: z.object({ message: z.string().trim().max(500).default('') }).strict(),
      },
    },
    async (request, reply) => {
      requireAdmin(request);
      const slip = await production.packingSlip(request.params.id, request.query.message);
      const pdf = await renderPackingSlip(slip);
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="packing-slip-${request.params.id}.pdf"`)
        .header('cache-control', 'no-store')
        .send(Buffer.from(pdf));
    },
  );
}
