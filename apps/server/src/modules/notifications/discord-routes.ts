import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import {
  discordMessageInputSchema,
  discordSendResultSchema,
  discordStatusSchema,
} from '@layerline/contracts';
import { requireAdmin } from '../../http/viewer.ts';
import type { FarmAlerts } from './farm-alerts.ts';

/** The farm's Discord channel (docs/discord.md): admins only. */
export function registerDiscordRoutes(app: FastifyInstance, deps: { farmAlerts: FarmAlerts }): void {
  const { farmAlerts } = deps;
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['notifications'];

  api.get(
    '/api/notifications/discord',
    {
      schema: {
        tags,
        summary:
          'Whether the farm’s Discord webhook is configured (else its alerts go to the server log only)',
        response: { 200: discordStatusSchema },
      },
    },
    async (request) => {
      requireAdmin(request);
      return { configured: farmAlerts.configured };
    },
  );

  api.post(
    '/api/notifications/discord',
    {
      schema: {
        tags,
        summary:
          'sendDiscordNotification: post a message to the farm’s Discord channel now (audited; no mentions ever ping)',
        body: discordMessageInputSchema,
        response: { 200: discordSendResultSchema },
      },
    },
    async (request) => {
      const admin = requireAdmin(request);
      return farmAlerts.sendMessage(request.body.message, { actorId: admin.id, requestId: request.id });
    },
  );
}
