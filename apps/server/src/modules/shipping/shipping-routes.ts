import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  assignShippingProfileInputSchema,
  buyLabelInputSchema,
  exchangeShippoTokenInputSchema,
  failedWritebackSchema,
  markShipStationOrderShippedInputSchema,
  orderRatesSchema,
  purchaseShippoLabelInputSchema,
  setShippingIntegrationInputSchema,
  shipmentSchema,
  shipStationKeysSchema,
  shipStationLabelForOrderInputSchema,
  shipStationLabelInputSchema,
  shipStationRatesInputSchema,
  shippingProfileInputSchema,
  shippingProfileSchema,
  shippingRateSchema,
  shippingSettingsSchema,
  shippoConnectionSchema,
  shippoOrderSchema,
  shippoRatesInputSchema,
  storeShipStationKeysInputSchema,
  trackingEventSchema,
} from '@layerline/contracts';
import { requireAdmin, requireViewer, subjectUserId } from '../../http/viewer.ts';
import type { LabelService } from './label-service.ts';
import type { AccountCalls } from './account-calls.ts';
import type { ShippingActor, ShippingSettingsService } from './shipping-settings-service.ts';
import type { TrackingUpdates } from './tracking-updates.ts';

const idParams = (what: string) => z.object({ id: z.uuid(`Not a valid ${what} id`) }).strict();
const targetQuery = z.object({ targetUserId: z.string().max(100).optional() }).strict();
/** A body that may be left out (no body arrives as null); fields it does not name are refused, not ignored. */
const targetBody = z.object({ targetUserId: z.string().max(100).optional() }).strict().nullish();
const emptyBody = z.object({}).strict().nullish();
const shipmentsAnswer = z.object({ shipments: z.array(shipmentSchema) });

export interface ShippingRouteDeps {
  readonly settings: ShippingSettingsService;
  readonly labels: LabelService;
  readonly tracking: TrackingUpdates;
  readonly accountCalls: AccountCalls;
  /** Queues a tracking write-back (an admin's retry). */
  readonly queueWriteback: (shipmentId: string) => Promise<void>;
}

function actorOf(request: FastifyRequest): ShippingActor {
  const viewer = requireViewer(request);
  return { id: viewer.id, isAdmin: viewer.isAdmin, requestId: request.id };
}

/** Shipping: settings and the spec's ShipStation and Shippo calls, labels, profiles, tracking (docs/shipping.md). */
export function registerShippingRoutes(app: FastifyInstance, deps: ShippingRouteDeps): void {
  const { settings, labels, tracking, accountCalls } = deps;
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['shipping'];
  /** The seller a call is for: the caller, or (admins) the targetUserId. */
  const subject = (request: FastifyRequest, targetUserId: string | undefined) => subjectUserId(requireViewer(request), targetUserId);

  /* ---------- settings ---------- */

  api.get(
    '/api/shipping/settings',
    { schema: { tags, summary: 'The seller’s shipping settings: integration, ShipStation keys (last 4), Shippo, profile', querystring: targetQuery, response: { 200: shippingSettingsSchema } } },
    async (request) => settings.settings(subject(request, request.query.targetUserId)),
  );

  api.post(
    '/api/shipping/integration',
    { schema: { tags, summary: 'setShippingIntegration: which integration buys this seller’s labels', body: setShippingIntegrationInputSchema, response: { 200: shippingSettingsSchema } } },
    async (request) => settings.setIntegration(actorOf(request), subject(request, request.body.targetUserId), request.body.integration),
  );

  api.post(
    '/api/shipstation/keys',
    { schema: { tags, summary: 'storeShipStationKeys: checked with ShipStation, then sealed at rest', body: storeShipStationKeysInputSchema, response: { 200: shipStationKeysSchema } } },
    async (request) => settings.storeShipStationKeys(actorOf(request), subject(request, request.body.targetUserId), request.body),
  );

  api.get(
    '/api/shipstation/keys',
    { schema: { tags, summary: 'getShipStationKeys: whether keys are saved and their last 4 characters', querystring: targetQuery, response: { 200: shipStationKeysSchema } } },
    async (request) => settings.shipStationKeys(subject(request, request.query.targetUserId)),
  );

  api.delete(
    '/api/shipstation/keys',
    { schema: { tags, summary: 'Forget the seller’s ShipStation keys', querystring: targetQuery, response: { 200: shipStationKeysSchema } } },
    async (request) => settings.removeShipStationKeys(actorOf(request), subject(request, request.query.targetUserId)),
  );

  api.get(
    '/api/shippo/connection',
    { schema: { tags, summary: 'checkShippoConnection', querystring: targetQuery, response: { 200: shippoConnectionSchema } } },
    async (request) => settings.shippoConnection(subject(request, request.query.targetUserId)),
  );

  api.post(
    '/api/shippo/authorize',
    { schema: { tags, summary: 'Start connecting Shippo: where to send the seller (a state bound to them, 10 minutes)', body: emptyBody, response: { 200: z.object({ authorizeUrl: z.string() }) } } },
    async (request) => ({ authorizeUrl: await settings.shippoAuthorizeUrl(requireViewer(request).id) }),
  );

  api.post(
    '/api/shippo/exchange-token',
    { schema: { tags, summary: 'exchangeShippoToken: the code and state from Shippo’s redirect (/shippo-oauth-redirect)', body: exchangeShippoTokenInputSchema, response: { 200: shippoConnectionSchema } } },
    async (request) => settings.exchangeShippoToken(actorOf(request), request.body.code, request.body.state),
  );

  api.post(
    '/api/shippo/disconnect',
    { schema: { tags, summary: 'disconnectShippo', body: targetBody, response: { 200: shippoConnectionSchema } } },
    async (request) => settings.disconnectShippo(actorOf(request), subject(request, request.body?.targetUserId)),
  );

  api.post(
    '/api/shippo/orders',
    { schema: { tags, summary: 'fetchShippoOrders: the orders in the seller’s Shippo account', body: targetBody, response: { 200: z.object({ orders: z.array(shippoOrderSchema) }) } } },
    async (request) => ({ orders: await accountCalls.shippoOrders(subject(request, request.body?.targetUserId)) }),
  );

  api.post(
    '/api/shippo/rates',
    { schema: { tags, summary: 'getShippoRates: Shippo’s rates for each parcel of one of the seller’s orders', body: shippoRatesInputSchema, response: { 200: orderRatesSchema } } },
    async (request) => {
      subject(request, request.body.targetUserId);
      return labels.orderRates(actorOf(request), request.body.shippingInfo.orderId, 'shippo');
    },
  );

  api.post(
    '/api/shippo/labels',
    { schema: { tags, summary: 'purchaseShippoLabel: buys the order’s labels on the seller’s Shippo account (once)', body: purchaseShippoLabelInputSchema, response: { 200: shipmentsAnswer } } },
    async (request) => {
      subject(request, request.body.targetUserId);
      const { orderId, rateId } = request.body;
      return { shipments: await labels.buyLabels(actorOf(request), orderId, { only: 'shippo', ...(rateId ? { rateIds: [rateId] } : {}) }) };
    },
  );

  api.post(
    '/api/shipstation/rates',
    { schema: { tags, summary: 'getShipStationRates: ShipStation’s rates for a parcel (rate data plus targetUserId)', body: shipStationRatesInputSchema, response: { 200: z.object({ rates: z.array(shippingRateSchema) }) } } },
    async (request) => ({ rates: await accountCalls.shipStationRates(subject(request, request.body.targetUserId), request.body) }),
  );

  api.post(
    '/api/shipstation/labels',
    { schema: { tags, summary: 'createShipStationLabel: buys the order’s labels on the seller’s ShipStation account (once)', body: shipStationLabelInputSchema, response: { 200: shipmentsAnswer } } },
    async (request) => {
      subject(request, request.body.targetUserId);
      const { orderId, rateId } = request.body;
      return { shipments: await labels.buyLabels(actorOf(request), orderId, { only: 'shipstation', ...(rateId ? { rateIds: [rateId] } : {}) }) };
    },
  );

  api.post(
    '/api/shipstation/labels/for-order',
    {
      schema: {
        tags,
        summary: 'createShipStationLabelForOrder: a label for an order that lives in ShipStation',
        body: shipStationLabelForOrderInputSchema,
        response: { 200: z.object({ trackingNumber: z.string(), carrier: z.string(), service: z.string(), costCents: z.number().int(), labelPdfBase64: z.string().nullable(), labelUrl: z.string().nullable() }) },
      },
    },
    async (request) => accountCalls.shipStationLabelForOrder(actorOf(request), subject(request, request.body.targetUserId), request.body),
  );

  api.post(
    '/api/shipstation/orders/mark-shipped',
    { schema: { tags, summary: 'markShipStationOrderShipped', body: markShipStationOrderShippedInputSchema, response: { 200: z.object({ orderId: z.number().int(), orderNumber: z.string() }) } } },
    async (request) => accountCalls.markShipStationOrderShipped(actorOf(request), subject(request, request.body.targetUserId), request.body),
  );

  /* ---------- labels (the packing station) ---------- */

  api.get(
    '/api/admin/shipping/orders/:id/rates',
    { schema: { tags, summary: 'The parcel plan and each parcel’s rates from the seller’s integration, the recommended one marked', params: idParams('order'), response: { 200: orderRatesSchema } } },
    async (request) => {
      requireAdmin(request);
      return labels.orderRates(actorOf(request), request.params.id);
    },
  );

  api.post(
    '/api/admin/shipping/orders/:id/labels',
    { schema: { tags, summary: 'Buy the order’s labels (chosen rates, else the recommended); once: a repeat answers the same labels', params: idParams('order'), body: buyLabelInputSchema.nullish(), response: { 200: shipmentsAnswer } } },
    async (request) => {
      requireAdmin(request);
      const rateIds = request.body?.rateIds;
      return { shipments: await labels.buyLabels(actorOf(request), request.params.id, rateIds ? { rateIds } : {}) };
    },
  );

  api.post(
    '/api/admin/shipping/shipments/:id/void',
    { schema: { tags, summary: 'Void a label (refunded through the provider); the order is packed again', params: idParams('shipment'), body: emptyBody, response: { 200: shipmentSchema } } },
    async (request) => {
      requireAdmin(request);
      return labels.voidShipment(actorOf(request), request.params.id);
    },
  );

  api.get(
    '/api/shipping/shipments/:id/label',
    { schema: { tags, summary: 'The label PDF (the seller’s own, or any for admins)', params: idParams('shipment') } },
    async (request, reply) => {
      const pdf = await labels.labelPdf(actorOf(request), request.params.id);
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="label-${request.params.id}.pdf"`)
        .header('cache-control', 'private, no-store')
        .send(pdf);
    },
  );

  api.get(
    '/api/admin/shipping/writebacks',
    { schema: { tags, summary: 'Tracking the marketplaces refused (or that kept failing), newest first', response: { 200: z.object({ items: z.array(failedWritebackSchema) }) } } },
    async (request) => {
      requireAdmin(request);
      return { items: await tracking.failedWritebacks() };
    },
  );

  api.post(
    '/api/admin/shipping/shipments/:id/writeback',
    { schema: { tags, summary: 'Send a refused tracking to the marketplace again', params: idParams('shipment'), body: emptyBody } },
    async (request, reply) => {
      requireAdmin(request);
      await tracking.retryWriteback(actorOf(request), request.params.id, deps.queueWriteback);
      return reply.status(204).send();
    },
  );

  /* ---------- profiles (admins) ---------- */

  api.get(
    '/api/admin/shipping-profiles',
    {
      schema: {
        tags,
        summary: 'Shipping profiles, the default first, and the URL to give Shippo for track webhooks',
        response: { 200: z.object({ items: z.array(shippingProfileSchema), shippoWebhookUrl: z.string() }) },
      },
    },
    async (request) => {
      requireAdmin(request);
      return { items: await settings.listProfiles(), shippoWebhookUrl: settings.shippoWebhookUrl() };
    },
  );

  api.post(
    '/api/admin/shipping-profiles',
    { schema: { tags, summary: 'Create a shipping profile', body: shippingProfileInputSchema, response: { 201: shippingProfileSchema } } },
    async (request, reply) => {
      requireAdmin(request);
      return reply.status(201).send(await settings.saveProfile(actorOf(request), null, request.body));
    },
  );

  api.put(
    '/api/admin/shipping-profiles/:id',
    { schema: { tags, summary: 'Replace a shipping profile', params: idParams('shipping profile'), body: shippingProfileInputSchema, response: { 200: shippingProfileSchema } } },
    async (request) => {
      requireAdmin(request);
      return settings.saveProfile(actorOf(request), request.params.id, request.body);
    },
  );

  api.delete(
    '/api/admin/shipping-profiles/:id',
    { schema: { tags, summary: 'Delete a shipping profile (not the default); its sellers use the default', params: idParams('shipping profile') } },
    async (request, reply) => {
      requireAdmin(request);
      await settings.deleteProfile(actorOf(request), request.params.id);
      return reply.status(204).send();
    },
  );

  api.post(
    '/api/admin/shipping-profiles/assign',
    { schema: { tags, summary: 'Give a seller a shipping profile (null: the default)', body: assignShippingProfileInputSchema, response: { 200: shippingSettingsSchema } } },
    async (request) => {
      requireAdmin(request);
      return settings.assignProfile(actorOf(request), request.body.targetUserId, request.body.profileId);
    },
  );

  /* ---------- tracking (public and webhooks) ---------- */

  api.get(
    '/api/tracking/:trackingNumber',
    {
      schema: {
        tags,
        summary: 'Public: a sandbox carrier label’s tracking (the tracking page)',
        params: z.object({ trackingNumber: z.string().min(3).max(60) }).strict(),
        response: {
          200: z.object({ trackingNumber: z.string(), carrier: z.string(), service: z.string(), status: z.string(), delivered: z.boolean(), events: z.array(trackingEventSchema) }),
        },
      },
    },
    async (request) => tracking.publicTracking(request.params.trackingNumber),
  );

  api.post(
    '/api/webhooks/shippo/:token',
    { schema: { tags, summary: 'Shippo track_updated webhooks (the status is read back from Shippo)', params: z.object({ token: z.string().max(200) }).strict() } },
    async (request) => tracking.onShippoWebhook(request.params.token, request.body),
  );

  api.post(
    '/api/webhooks/shipstation/:token',
    { schema: { tags, summary: 'ShipStation webhooks (the resource is fetched from ShipStation with the seller’s keys)', params: z.object({ token: z.string().max(400) }).strict() } },
    async (request) => tracking.onShipStationWebhook(request.params.token, request.body),
  );
}
