import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  printerCreateInputSchema,
  printerSchema,
  printerSpoolsInputSchema,
  printerTestResultSchema,
  printerUpdateInputSchema,
} from '@layerline/contracts';
import { requireAdmin } from '../../http/viewer.ts';
import type { PrinterActor } from './printer-actor.ts';
import { registerPrinterGroupRoutes } from './printer-group-routes.ts';
import { printerIdParams, type PrinterService } from './printer-service.ts';

function actorOf(request: FastifyRequest): PrinterActor {
  const admin = requireAdmin(request);
  return { id: admin.id, requestId: request.id };
}

/** The farm's printers and their power groups: admins only (docs/api.md, "Printers"). */
export function registerPrinterRoutes(app: FastifyInstance, deps: { printers: PrinterService }): void {
  const { printers } = deps;
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['printers'];

  api.get(
    '/api/admin/printers',
    {
      schema: {
        tags,
        summary: 'The farm’s printers, retired ones included (no secrets)',
        response: { 200: z.array(printerSchema) },
      },
    },
    async (request) => {
      actorOf(request);
      return printers.list();
    },
  );

  api.post(
    '/api/admin/printers',
    {
      schema: {
        tags,
        summary: 'Add a printer (its connection secret is sealed at rest and never returned)',
        body: printerCreateInputSchema,
        response: { 201: printerSchema },
      },
    },
    async (request, reply) => {
      const created = await printers.create(actorOf(request), request.body);
      return reply.status(201).send(created);
    },
  );

  api.get(
    '/api/admin/printers/:id',
    { schema: { tags, summary: 'One printer', params: printerIdParams, response: { 200: printerSchema } } },
    async (request) => {
      actorOf(request);
      return printers.get(request.params.id);
    },
  );

  api.put(
    '/api/admin/printers/:id',
    {
      schema: {
        tags,
        summary: 'Edit a printer; an empty secret keeps the stored one (same kind)',
        params: printerIdParams,
        body: printerUpdateInputSchema,
        response: { 200: printerSchema },
      },
    },
    async (request) => printers.update(actorOf(request), request.params.id, request.body),
  );

  for (const [action, to] of [
    ['pause', 'paused'],
    ['resume', 'active'],
    ['retire', 'retired'],
  ] as const) {
    api.post(
      `/api/admin/printers/:id/${action}`,
      {
        schema: {
          tags,
          summary:
            action === 'retire'
              ? 'Retire a printer: kept for history, never dispatched to or changed again'
              : action === 'pause'
                ? 'Pause a printer: no new jobs go to it'
                : 'Resume a paused printer',
          params: printerIdParams,
          response: { 200: printerSchema },
        },
      },
      async (request) => printers.setStatus(actorOf(request), request.params.id, to),
    );
  }

  api.post(
    '/api/admin/printers/:id/clear-attention',
    {
      schema: {
        tags,
        summary: 'A person looked at a printer the farm flagged: it takes jobs again',
        params: printerIdParams,
        response: { 200: printerSchema },
      },
    },
    async (request) => printers.clearAttention(actorOf(request), request.params.id),
  );

  api.post(
    '/api/admin/printers/:id/trust-certificate',
    {
      schema: {
        tags,
        summary:
          'Trust a Bambu Lab printer’s certificate again: the pin is cleared and the next contact pins the certificate it shows',
        params: printerIdParams,
        response: { 200: printerSchema },
      },
    },
    async (request) => printers.trustCertificate(actorOf(request), request.params.id),
  );

  api.put(
    '/api/admin/printers/:id/spools',
    {
      schema: {
        tags,
        summary: 'Replace the printer’s spools (material, colour, grams left; at most one loaded)',
        params: printerIdParams,
        body: printerSpoolsInputSchema,
        response: { 200: printerSchema },
      },
    },
    async (request) => printers.setSpools(actorOf(request), request.params.id, request.body.spools),
  );

  api.post(
    '/api/admin/printers/:id/test',
    {
      schema: {
        tags,
        summary:
          'Test connection: the printer’s answer (software, firmware, latency) or why it failed, in words',
        params: printerIdParams,
        response: { 200: printerTestResultSchema },
      },
    },
    async (request) => {
      actorOf(request);
      return printers.test(request.params.id);
    },
  );

  registerPrinterGroupRoutes(app, { groups: printers.groups });
}
