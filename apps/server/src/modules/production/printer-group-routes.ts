import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { printerGroupInputSchema, printerGroupSchema } from '@layerline/contracts';
import { requireAdmin } from '../../http/viewer.ts';
import { printerGroupIdParams, type PrinterGroupService } from './printer-group-service.ts';
import type { PrinterActor } from './printer-actor.ts';

function actorOf(request: FastifyRequest): PrinterActor {
  const admin = requireAdmin(request);
  return { id: admin.id, requestId: request.id };
}

/** Power groups of printers (staggered starts per circuit): admins only (docs/api.md, "Printers"). */
export function registerPrinterGroupRoutes(app: FastifyInstance, deps: { groups: PrinterGroupService }): void {
  const { groups } = deps;
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['printers'];

  api.get(
    '/api/admin/printer-groups',
    {
      schema: {
        tags,
        summary: 'Power groups: printers on one circuit start at most maxStarts prints per perSeconds',
        response: { 200: z.array(printerGroupSchema) },
      },
    },
    async (request) => {
      actorOf(request);
      return groups.list();
    },
  );

  api.post(
    '/api/admin/printer-groups',
    {
      schema: {
        tags,
        summary: 'Add a power group (its name is unique)',
        body: printerGroupInputSchema,
        response: { 201: printerGroupSchema },
      },
    },
    async (request, reply) => reply.status(201).send(await groups.create(actorOf(request), request.body)),
  );

  api.put(
    '/api/admin/printer-groups/:id',
    {
      schema: {
        tags,
        summary: 'Edit a power group’s name and stagger',
        params: printerGroupIdParams,
        body: printerGroupInputSchema,
        response: { 200: printerGroupSchema },
      },
    },
    async (request) => groups.update(actorOf(request), request.params.id, request.body),
  );

  api.delete(
    '/api/admin/printer-groups/:id',
    {
      schema: {
        tags,
        summary: 'Delete a power group: its printers stay, in no group',
        params: printerGroupIdParams,
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      await groups.remove(actorOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );
}
