import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import swagger from '@fastify/swagger';
import {
  hasZodFastifySchemaValidationErrors,
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
} from '@fastify/type-provider-zod';
import { fromNodeHeaders } from 'better-auth/node';
import type { AppContext } from '../app-context.ts';
import { registerAccountRoutes } from '../modules/accounts/account-routes.ts';
import { registerAuthRoutes } from '../modules/accounts/auth-routes.ts';
import { registerAnalyticsRoutes } from '../modules/analytics/analytics-routes.ts';
import { registerDashboardRoutes } from '../modules/dashboard/dashboard-routes.ts';
import { registerSiteRoutes } from '../modules/site/site-routes.ts';
import { registerDesignRoutes } from '../modules/designs/design-routes.ts';
import { registerShopRoutes } from '../modules/shops/shop-routes.ts';
import { registerMarketplaceRoutes } from '../integrations/marketplaces/marketplaces.ts';
import { listPrinterPresets } from '../integrations/prusa-slicer/vendor-bundles.ts';
import { registerWebhookIntakeRoutes } from '../modules/shops/webhook-intake-routes.ts';
import { registerOrderRoutes } from '../modules/orders/order-routes.ts';
import { registerBrandingRoutes } from '../modules/branding/branding-routes.ts';
import { registerListingImageRoutes } from '../modules/listing-images/listing-image-routes.ts';
import { registerProductRoutes } from '../modules/products/product-routes.ts';
import { registerOrderApiRoutes } from '../modules/order-api/order-api-routes.ts';
import { registerJobsAdminRoutes } from '../modules/jobs-admin/jobs-admin-routes.ts';
import { registerSlicerPresetRoutes } from '../modules/production/printer-preset-routes.ts';
import { registerPrinterRoutes } from '../modules/production/printer-routes.ts';
import { registerProductionRoutes } from '../modules/production/production-routes.ts';
import { registerFulfillmentRoutes } from '../modules/fulfillment/fulfillment-routes.ts';
import { registerShippingRoutes } from '../modules/shipping/shipping-routes.ts';
import { registerDiscordRoutes } from '../modules/notifications/discord-routes.ts';
import { registerAffiliateRoutes } from '../modules/affiliates/affiliate-routes.ts';
import { registerClaimRoutes } from '../modules/claims/claims-routes.ts';
import { registerPaymentRoutes } from '../modules/payments/payment-routes.ts';
import { registerWalletRoutes } from '../modules/payments/wallet-routes.ts';
import { registerNotificationRoutes } from '../modules/notifications/notification-routes.ts';
import { registerCheckoutRatesRoutes } from '../modules/checkout-rates/checkout-rates-routes.ts';
import { AppError } from '../errors.ts';
import { API_REFERENCE_DOCUMENT, registerApiReference } from './api-reference.ts';
import { registerCompression } from './compression.ts';
import { registerSecurity } from './security.ts';
import { registerTextInputGuard } from './text-input.ts';
import { refuseForeignTarget, refuseUnknownTarget, type Viewer } from './viewer.ts';
import { registerWebApp } from './web-app.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered on this server: method (HEAD included) and URL. Read-only use. */
    readonly routeTable: readonly { readonly method: string; readonly url: string }[];
  }
}

export interface RateLimits {
  /** Requests per minute per IP on /api. */
  readonly apiPerMinute: number;
  /** Contact-form messages per 10 minutes per IP. */
  readonly contactPer10Minutes: number;
  /** Payment webhook deliveries per minute per IP: Stripe sends from a handful of addresses, a few a second at most for a farm. */
  readonly paymentWebhooksPerMinute: number;
}

const DEFAULT_RATE_LIMITS: RateLimits = { apiPerMinute: 600, contactPer10Minutes: 5, paymentWebhooksPerMinute: 1200 };

export interface HttpOptions {
  /** The process logger; tests pass none and get a silent one. */
  readonly logger?: FastifyBaseLogger;
  /** Per-IP limits; tests raise them, since one address makes every request there. */
  readonly rateLimits?: Partial<RateLimits>;
}

/** Builds the whole HTTP server: security, the API, its OpenAPI document and the web app. */
export async function buildHttpServer(
  context: AppContext,
  options: HttpOptions = {},
): Promise<FastifyInstance> {
  const { config } = context;
  const limits = { ...DEFAULT_RATE_LIMITS, ...options.rateLimits };
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    // Only the configured number of proxy hops may set the client address (AUTH-5).
    trustProxy: (_address: string, hop: number) => hop < config.trustProxyHops,
    bodyLimit: 1024 * 1024,
    genReqId: () => crypto.randomUUID(),
    // Fastify's own refusals before any route (a malformed percent-encoding in the path) answer in
    // the API's shape too, naming what was wrong.
    frameworkErrors: (error, _request, reply) => {
      const status = typeof error.statusCode === 'number' && error.statusCode < 500 ? error.statusCode : 400;
      void (reply as FastifyReply).status(status).send({ error: `The address (URL path) is not valid: ${error.message}` });
    },
  });
  // The route table (method and URL of every route, as added), for the authorization-matrix test
  // that proves every route has a reviewed entry. Registered first so that no route escapes it.
  const routeTable: { method: string; url: string }[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routeTable.push({ method, url: route.url });
  });
  app.decorate('routeTable', routeTable);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler((error, request, reply) => {
    const { status, body, retryAfter } = toErrorResponse(error);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    else if (status === 401 || status === 403) {
      request.log.warn(
        { event: 'authz.denied', status, url: request.url, userId: request.viewer?.id },
        body.error,
      );
    }
    if (retryAfter !== undefined) reply.header('Retry-After', String(retryAfter));
    return reply.status(status).send(body);
  });

  await registerSecurity(app, {
    publicUrl: config.publicUrl,
    connectSources: config.sentryDsn ? [new URL(config.sentryDsn).origin] : [],
    apiRateLimitPerMinute: limits.apiPerMinute,
    trustProxyHops: config.trustProxyHops,
    stripe: config.payments.stripe !== null,
  });
  await registerCompression(app);
  await app.register(swagger, {
    openapi: {
      ...API_REFERENCE_DOCUMENT,
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: 'layerline.session_token' },
          bearer: { type: 'http', scheme: 'bearer' },
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'll_live_…',
            description: 'Order API key (/api/v1 only): Authorization: Bearer ll_live_…',
          },
        },
      },
      security: [{ session: [] }, { bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });

  app.decorateRequest('viewer', null);
  app.addHook('preValidation', async (request) => {
    if (!request.url.startsWith('/api/') || request.url.startsWith('/api/auth/')) return;
    // /api/v1 (the order API) answers to API keys only and ignores any session: looking one up for
    // its Bearer key would cost a query per order for nothing.
    if (request.url.startsWith('/api/v1/')) return;
    request.viewer = await resolveViewer(context, request.headers);
  });
  // The spec's targetUserId: only admins act for another user. Checked once for every route, on the
  // raw query and body, so a route that does not take it cannot silently act for the caller instead.
  // Before anything reads the input: a NUL or a broken surrogate is refused with its field.
  registerTextInputGuard(app);
  app.addHook('preValidation', async (request) => refuseForeignTarget(request));
  app.addHook('preValidation', async (request) =>
    refuseUnknownTarget(request, async (id) => (await context.users.findAdminUser(id)) !== undefined),
  );

  registerAuthRoutes(app, {
    auth: context.auth,
    loginThrottle: context.loginThrottle,
    sessions: context.sessions,
    deviceCookies: context.deviceCookies,
  });
  registerAccountRoutes(app, { accounts: context.accounts, audit: context.audit });
  registerSiteRoutes(app, {
    contacts: context.contacts,
    testimonial: context.testimonial,
    publicConfig: context.publicConfig,
    contactLimitPer10Minutes: limits.contactPer10Minutes,
    businessDetails: context.businessDetails,
  });
  registerAnalyticsRoutes(app, { pageViews: context.pageViews });
  registerDashboardRoutes(app, { dashboard: context.dashboard, accounts: context.accounts });
  await app.register(async (scope) =>
    registerDesignRoutes(scope, { designs: context.designs, prices: context.prices }),
  );
  // ── issue 4 routes: each module registers its routes here ──
  // Marketplace webhooks: their own scope, raw JSON bodies (signatures), no session.
  await registerWebhookIntakeRoutes(app, { webhookIntake: context.webhookIntake });
  await registerMarketplaceRoutes(app, {
    config,
    detachAccount: (platform, externalShopId, message) =>
      context.webhookIntake.detachAccount(platform, externalShopId, message),
  });
  registerJobsAdminRoutes(app, { jobsAdmin: context.jobsAdmin });
  registerPrinterRoutes(app, { printers: context.printers });
  registerSlicerPresetRoutes(app, {
    listPresets: () => listPrinterPresets(config.prusaSlicerPath ? { binaryPath: config.prusaSlicerPath } : {}),
  });
  registerProductionRoutes(app, { production: context.production });
  registerShopRoutes(app, { shops: context.shops, publicUrl: config.publicUrl });
  registerOrderRoutes(app, {
    orders: context.orders,
    tracking: context.tracking,
    syncOwnerOrders: (ownerId) => context.shops.syncOwner(ownerId, { listings: false, orders: true }),
  });
  await registerOrderApiRoutes(app, {
    apiKeys: context.apiKeys,
    orderApi: context.orderApi,
    webhookEndpoints: context.webhookEndpoints,
    webhookDeliveries: context.webhookDeliveries,
    publicUrl: config.publicUrl,
  });
  registerProductRoutes(app, { products: context.products });
  registerFulfillmentRoutes(app, { fulfillment: context.fulfillment });
  await registerPaymentRoutes(app, { payments: context.payments, sandboxCards: context.sandboxCards, webhooks: config.payments.webhooks, webhooksPerMinute: limits.paymentWebhooksPerMinute });
  registerWalletRoutes(app, { wallet: context.wallet });
  registerShippingRoutes(app, {
    settings: context.shipping.settings,
    labels: context.shipping.labels,
    tracking: context.shipping.tracking,
    accountCalls: context.shipping.accountCalls,
    queueWriteback: context.shipping.queueWriteback,
  });
  await registerNotificationRoutes(app, { notifications: context.notifications });
  registerDiscordRoutes(app, { farmAlerts: context.farmAlerts });
  registerAffiliateRoutes(app, { affiliates: context.affiliates });
  await app.register(async (scope) => registerClaimRoutes(scope, { claims: context.claims }));
  await app.register(async (scope) => registerBrandingRoutes(scope, { branding: context.branding }));
  registerListingImageRoutes(app, { listingImages: context.listingImages });
  registerCheckoutRatesRoutes(app, { checkoutRates: context.checkoutRates });
  await registerApiReference(app);

  await registerWebApp(app, config.webDistDir);
  app.addHook('onClose', async () => context.close());
  return app;
}

async function resolveViewer(
  context: AppContext,
  headers: Record<string, string | string[] | undefined>,
): Promise<Viewer | null> {
  const session = await context.auth.api.getSession({ headers: fromNodeHeaders(headers) });
  if (!session) return null;
  const user = session.user as typeof session.user & {
    role?: string;
    isBetaTester?: boolean;
    isInternal?: boolean;
  };
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    isAdmin: user.role === 'admin',
    isBetaTester: user.isBetaTester === true,
    isInternal: user.isInternal === true,
  };
}

interface ErrorResponse {
  status: number;
  body: { error: string };
  retryAfter?: number;
}

function toErrorResponse(error: unknown): ErrorResponse {
  if (error instanceof AppError) {
    return { status: error.status, body: { error: error.message }, retryAfter: error.retryAfterSeconds };
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const first = error.validation[0];
    // The whole part is wrong (a body that is not an object): name the part, body or querystring.
    const where = (first?.instancePath ?? '').replace(/^\//, '').replaceAll('/', '.') || (error.validationContext ?? '');
    const message = first?.message ?? 'Invalid request';
    return { status: 400, body: { error: where ? `${where}: ${message}` : message } };
  }
  const statusCode = (error as { statusCode?: unknown }).statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    return { status: statusCode, body: { error: (error as Error).message || 'Bad request' } };
  }
  return { status: 500, body: { error: 'Internal server error' } };
}
