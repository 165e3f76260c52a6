import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  emailMessageSchema,
  emailOutboxPageSchema,
  emailOutboxQuerySchema,
  notificationPreferencesSchema,
  sendCustomEmailInputSchema,
  unsubscribeQuerySchema,
  unsubscribeStatusSchema,
  updateNotificationPreferencesInputSchema,
} from '@layerline/contracts';
import { requireAdmin, requireViewer, subjectUserId } from '../../http/viewer.ts';
import type { NotificationActor, NotificationService } from './notification-service.ts';

const idParams = z.object({ id: z.uuid('Not a valid email id') }).strict();
const targetQuery = z.object({ targetUserId: z.string().max(100).optional() }).strict();
/**
 * What a mail client sends to the List-Unsubscribe address (RFC 8058: a form post of
 * `List-Unsubscribe=One-Click`), or nothing (the unsubscribe page's button).
 */
const oneClickBody = z.object({ 'List-Unsubscribe': z.literal('One-Click').optional() }).strict().nullish();

function actorOf(request: FastifyRequest): NotificationActor {
  const viewer = requireViewer(request);
  return { id: viewer.id, isAdmin: viewer.isAdmin, requestId: request.id };
}

/** Email notifications (docs/notifications.md): custom emails and the outbox for admins, preferences, unsubscribe links. */
export async function registerNotificationRoutes(app: FastifyInstance, deps: { notifications: NotificationService }): Promise<void> {
  const { notifications } = deps;
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['notifications'];

  api.post(
    '/api/notifications/send-custom-email',
    { schema: { tags, summary: 'sendCustomEmail (admins): subject and message with {{vars}}, to any address; sent through SMTP or kept in the outbox', body: sendCustomEmailInputSchema, response: { 200: emailMessageSchema } } },
    async (request) => {
      requireAdmin(request);
      return notifications.sendCustomEmail(actorOf(request), request.body);
    },
  );

  api.get(
    '/api/notifications/preferences',
    { schema: { tags, summary: 'The kinds of email a seller turned off', querystring: targetQuery, response: { 200: notificationPreferencesSchema } } },
    async (request) => notifications.preferences(subjectUserId(requireViewer(request), request.query.targetUserId)),
  );

  api.put(
    '/api/notifications/preferences',
    { schema: { tags, summary: 'Choose which kinds of email a seller gets (the list is the ones turned off)', body: updateNotificationPreferencesInputSchema, response: { 200: notificationPreferencesSchema } } },
    async (request) => notifications.setPreferences(actorOf(request), subjectUserId(requireViewer(request), request.body.targetUserId), request.body.disabled),
  );

  api.get(
    '/api/notifications/outbox',
    { schema: { tags, summary: 'Every email (outbox and sent mail), newest first, with its status (admins)', querystring: emailOutboxQuerySchema, response: { 200: emailOutboxPageSchema } } },
    async (request) => {
      requireAdmin(request);
      return notifications.outbox(request.query);
    },
  );

  api.get(
    '/api/notifications/outbox/:id',
    { schema: { tags, summary: 'One email with its HTML and text (admins)', params: idParams, response: { 200: emailMessageSchema } } },
    async (request) => {
      requireAdmin(request);
      return notifications.message(request.params.id);
    },
  );

  // Public: the token is the only gate. Its own scope reads form posts (a mail client's one-click).
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 1024 }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    const publicApi = scope.withTypeProvider<ZodTypeProvider>();
    publicApi.get(
      '/api/notifications/unsubscribe',
      { schema: { tags, summary: 'What an unsubscribe link turns off, and whether it is still on (changes nothing)', security: [], querystring: unsubscribeQuerySchema, response: { 200: unsubscribeStatusSchema } } },
      async (request) => notifications.unsubscribeStatus(request.query.token),
    );
    publicApi.post(
      '/api/notifications/unsubscribe',
      {
        schema: {
          tags,
          summary: 'Unsubscribe: turns off the kind of email the link names (RFC 8058 one-click: List-Unsubscribe=One-Click)',
          security: [],
          querystring: unsubscribeQuerySchema,
          body: oneClickBody,
          response: { 200: unsubscribeStatusSchema },
        },
      },
      async (request) => notifications.unsubscribe(request.query.token),
    );
  });
}
