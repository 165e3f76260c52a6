import { formatCents, type PublicConfig } from '@layerline/contracts';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import path from 'node:path';
import { createOutboxMailer } from './integrations/outbox-mailer/outbox-mailer.ts';
import { createSmtpMailer } from './integrations/smtp-mailer/smtp-mailer.ts';
import { createAccountService } from './modules/accounts/account-service.ts';
import { createSignIn } from './modules/accounts/sign-in.ts';
import { verifyPassword } from './modules/accounts/passwords.ts';
import { createUserRepository } from './modules/accounts/user-repository.ts';
import { createPageViewRepository } from './modules/analytics/page-view-repository.ts';
import { createAuditRepository } from './modules/audit/audit-repository.ts';
import { createDashboardService } from './modules/dashboard/dashboard-service.ts';
import { createContactRepository } from './modules/site/contact-repository.ts';
import { createSiteSettingRepository } from './modules/site/site-setting-repository.ts';
import { createTestimonialService } from './modules/site/testimonial-service.ts';
import { createDesignRepository } from './modules/designs/design-repository.ts';
import { createDesignService, type SlicingScheduler } from './modules/designs/design-service.ts';
import type { FileStorage } from './modules/designs/file-storage.ts';
import { createModelWorker } from './modules/designs/model-worker.ts';
import { createPriceTableRepository } from './modules/quotes/price-table-repository.ts';
import { createProductRepository } from './modules/products/product-repository.ts';
import { createProductService } from './modules/products/product-service.ts';
import { createOrderRepository } from './modules/orders/order-repository.ts';
import { createOrderService } from './modules/orders/order-service.ts';
import { createOrderIngestion } from './modules/orders/order-ingestion.ts';
import { createCheckoutRatesRepository } from './modules/checkout-rates/checkout-rates-repository.ts';
import { CHECKOUT_RATES_BUDGET_MS, createCheckoutRatesService } from './modules/checkout-rates/checkout-rates-service.ts';
import { shopifyCarrierCallback } from './integrations/shopify/shopify-carrier-service.ts';
import { createConnectorRegistry } from './modules/shops/connector-registry.ts';
import { createShopRepository } from './modules/shops/shop-repository.ts';
import { createShopService } from './modules/shops/shop-service.ts';
import { createTrackingService } from './modules/orders/tracking-service.ts';
import { checkPrinterHost, lookupWithin } from './integrations/http-client/printer-host-policy.ts';
import { createSandboxConnector } from './integrations/sandbox-shop/sandbox-connector.ts';
import { createEtsyConnector } from './integrations/etsy/etsy-connector.ts';
import { createShopifyConnector } from './integrations/shopify/shopify-connector.ts';
import { createShopifyWebhookReceiver } from './integrations/shopify/shopify-webhook-receiver.ts';
import {
  marketplaceWebhookReceivers,
  registerMarketplaces,
  SANDBOX_IMPERSONATORS,
} from './integrations/marketplaces/marketplaces.ts';
import { createInboundWebhookRepository } from './modules/shops/inbound-webhook-repository.ts';
import { createWebhookIntakeService } from './modules/shops/webhook-intake-service.ts';
import { createSecretBox } from './platform/secret-box.ts';
import { createOrderApiModule } from './modules/order-api/order-api-module.ts';
import { createJobsAdminService } from './modules/jobs-admin/jobs-admin-service.ts';
import { createPrinterRepository } from './modules/production/printer-repository.ts';
import { createPrinterService, printerBuildVolumes } from './modules/production/printer-service.ts';
import { createPrinterDriverFactory } from './integrations/printer-drivers/printer-drivers.ts';
import { createSimulatedPrinterFarm } from './integrations/simulated-printer/simulated-printer.ts';
import { createPrintJobRepository } from './modules/production/print-job-repository.ts';
import { createJobOutcomes } from './modules/production/job-outcomes.ts';
import { createFarmDispatcher, type FarmFiles } from './modules/production/farm-dispatcher.ts';
import { createBrandingRepository } from './modules/branding/branding-repository.ts';
import { createBrandingService } from './modules/branding/branding-service.ts';
import { createListingImageRepository } from './modules/listing-images/listing-image-repository.ts';
import { createListingImageService } from './modules/listing-images/listing-image-service.ts';
import { createProductionService } from './modules/production/production-service.ts';
import { createShippingModule } from './modules/shipping/shipping-module.ts';
import { createSandboxCarrier } from './integrations/sandbox-carrier/sandbox-carrier.ts';
import { createShipStationProvider } from './integrations/shipstation/shipstation-provider.ts';
import { createShippoProvider } from './integrations/shippo/shippo-provider.ts';
import { createFulfillmentRepository, searchTextOf } from './modules/fulfillment/fulfillment-repository.ts';
import { createFulfillmentService } from './modules/fulfillment/fulfillment-service.ts';
import { createStripePayments } from './integrations/stripe/stripe-payments.ts';
import {
  createSandboxPayments,
  sandboxPaymentMethodFor,
} from './integrations/sandbox-payments/sandbox-payments.ts';
import { createPaymentRepository } from './modules/payments/payment-repository.ts';
import { createPaymentService } from './modules/payments/payment-service.ts';
import { createOrderPrices, itemsCentsOf } from './modules/payments/order-price.ts';
import { createOrderPriceRepository } from './modules/payments/order-price-repository.ts';
import type { ChargeChangedEvent } from './modules/payments/payment-events.ts';
import { createWalletRepository } from './modules/payments/wallet-repository.ts';
import { createWalletService } from './modules/payments/wallet-service.ts';
import { createBusinessDetailsService } from './modules/site/business-details-service.ts';
import { createDiscordWebhookClient } from './integrations/discord/discord-webhook.ts';
import { createFarmAlerts } from './modules/notifications/farm-alerts.ts';
import { createNotificationRepository } from './modules/notifications/notification-repository.ts';
import { createNotificationService } from './modules/notifications/notification-service.ts';
import { createAffiliateRepository } from './modules/affiliates/affiliate-repository.ts';
import { createAffiliateService } from './modules/affiliates/affiliate-service.ts';
import { createClaimsRepository } from './modules/claims/claims-repository.ts';
import { createClaimsService } from './modules/claims/claims-service.ts';

/** Where the Stripe SDK sends requests: Stripe itself, or (tests) a local fake at STRIPE_API_URL. */
function stripeHostOf(apiUrl: string | null): { host?: string; port?: number; protocol?: 'http' | 'https' } {
  if (!apiUrl) return {};
  const url = new URL(apiUrl);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { host: url.hostname, port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443, protocol };
}

/**
 * Wires configuration, the database and every module together, once. The HTTP server, the CLI
 * and the tests all start from here, so they run the same code.
 */
export function createAppContext(
  config: Config,
  db: Database,
  runtime: { slicing: SlicingScheduler; printFiles: Pick<FarmFiles, 'requestSlicing' | 'requestPlateSlicing'>; storage: FileStorage },
) {
  const users = createUserRepository(db);
  // Mail (sign-in links, security alerts): SMTP when SMTP_URL is set, else the local outbox under the
  // data directory, each message also printed for a developer (not in tests).
  const mailer = config.smtpUrl
    ? createSmtpMailer({ url: config.smtpUrl, from: config.mailFrom })
    : createOutboxMailer(path.join(config.dataDir, 'outbox'), (message, file) => {
        if (config.mode !== 'test')
          console.log(`[outbox] to ${message.to}: ${message.subject}\n${message.text}\n(saved as ${file})`);
      });
  const signIn = createSignIn(config, db, {
    mailer,
    findUserIdByEmail: (email) => users.findIdByEmail(email),
    // `notifications` and `affiliates` are built below; this runs only when someone signs up. The referral
    // from `?ref=` (user.affiliateRef) is attached here; one the hook misses is attached by the affiliates' sweep.
    onUserCreated: async (user) => {
      await Promise.all([notifications.welcome(user.id, user.name), affiliates.attachReferral(user.id)]);
    },
  });
  const audit = createAuditRepository(db);
  const accounts = createAccountService({
    users,
    audit,
    verifyCurrentPassword: async (userId, password) => {
      const hash = await users.passwordHash(userId);
      return hash !== undefined && (await verifyPassword({ hash, password }));
    },
    signInThrottle: signIn.loginThrottle,
  });
  const { storage } = runtime;
  // print farm (issue 11): the printers table (connections sealed like shop tokens) and one driver
  // factory per process, with this process's simulated printers. Loopback printer hosts only with PRINTER_ALLOW_LOOPBACK.
  const printerRepository = createPrinterRepository(db, createSecretBox(config.appSecret));
  const simulatedPrinters = createSimulatedPrinterFarm();
  // What an upload must fit: the active printers' build volumes; MAX_BUILD_VOLUME_MM while none is active.
  const buildVolumes = printerBuildVolumes(printerRepository, config.models.maxBuildVolumeMm);
  const printerHostPolicy = { allowLoopback: config.printerAllowLoopback };
  // The demo's simulated Bambu Lab printer runs in this process (demo-data.ts): its endpoints and how to stop it.
  const inProcessPrinters = { endpoints: new Set<string>(), stops: [] as Array<() => Promise<void>> };
  const printerDrivers = createPrinterDriverFactory({
    policy: printerHostPolicy,
    simulatedFarm: simulatedPrinters,
    inProcessPrinters: inProcessPrinters.endpoints,
    // Bambu Lab printers' certificates, trusted on first use and pinned in the printers table (issue 22).
    certificatePins: (printerId) => ({
      pinned: () => printerRepository.certificatePin(printerId),
      pin: (sha256) => printerRepository.pinCertificate(printerId, sha256),
    }),
  });
  const designRepository = createDesignRepository(db);
  const prices = createPriceTableRepository(db);
  // Model work: a small pool of threads with per-job time and memory budgets and per-seller fair
  // queues; the farm's build volume (configured until printers are listed) bounds what is accepted.
  const modelWorker = createModelWorker({
    threads: config.models.workers,
    jobCpuMs: config.models.jobCpuMs,
    heapMb: config.models.workerHeapMb,
    maxQueuedPerSeller: config.models.maxQueuedPerSeller,
    buildVolumes,
  });
  const productRepository = createProductRepository(db);
  const designs = createDesignService({
    designs: designRepository,
    storage,
    worker: modelWorker,
    prices,
    audit,
    slicing: runtime.slicing,
    limits: { maxUploadBytes: config.maxUploadBytes, quotaBytes: config.storageQuotaBytes },
    productsUsing: productRepository.productsUsing,
  });
  // ── issue 4 modules: each adds its construction here (one block per module) ──
  // marketplace webhooks (issue 4, WH-2/3/7): verified, stored, queued ('process-webhook'); orders go through
  // the shops service (built below, reached by closure once a job runs). bootstrap connects the queue.
  const webhookIntake = createWebhookIntakeService({
    repository: createInboundWebhookRepository(db),
    receivers: {
      ...(config.marketplaces.shopify
        ? { shopify: createShopifyWebhookReceiver(config.marketplaces.shopify.apiSecret) }
        : {}),
      ...marketplaceWebhookReceivers(config),
    },
    shops: {
      ingestMarketplaceOrder: (shopId, order) => shops.ingestMarketplaceOrder(shopId, order),
      ingestMarketplaceOrderById: (shopId, externalOrderId) =>
        shops.ingestMarketplaceOrderById(shopId, externalOrderId),
    },
  });
  // jobs admin (issue 4): queue counts and dead letters for admins; bootstrap connects the running job queue.
  const jobsAdmin = createJobsAdminService({ audit });
  // order API (issue 4): keys, webhooks to sellers, API and manual orders. `orders`/`orderIngestion` are
  // built below, so they are reached through closures (called only once requests or jobs run).
  const orderApiModule = createOrderApiModule({
    db,
    appSecret: config.appSecret,
    allowLocalWebhookReceivers: config.allowLocalWebhookReceivers,
    // Our own links in sellers' webhooks (a sandbox parcel's tracking page), made as the emails' links are.
    siteUrl: config.publicUrl ?? `http://localhost:${config.port}`,
    audit,
    ingestion: { ingest: (input) => orderIngestion.ingest(input) },
    orders: {
      get: (viewer, orderId) => orders.get(viewer, orderId),
      getMany: (orderIds) => orders.getMany(orderIds),
    },
    // The change window (issue 24): `orders` is built below; these run only on a request.
    changes: {
      changeAddress: (viewer, orderId, address) => orders.changeAddress(viewer, orderId, address),
      cancelBeforeRelease: (viewer, orderId, reason) => orders.cancelBeforeRelease(viewer, orderId, reason),
    },
  });
  const products = createProductService({
    products: productRepository,
    prices,
    audit,
    slicerAvailable: runtime.slicing.available,
    // `shops` is built below; this runs only when a request changes a product.
    onSkusChanged: (ownerId) => shops.relinkOwner(ownerId),
  });
  // orders (issue 4, orders core). VariantLookup: the products module's findVariantsBySkus.
  const orderRepository = createOrderRepository(db);
  const orders = createOrderService({
    repository: orderRepository,
    audit,
    lookupVariants: (ownerId, skus) => products.findVariantsBySkus(ownerId, skus),
    // `production` is built below; this runs only when an order is read.
    productionOf: (orderIds) => production.progressOf(orderIds),
    // `shipping` is built below; this runs only when an order is read.
    shipmentsOf: (orderIds) => shipping.labels.shipmentsByOrder(orderIds),
  });
  const orderIngestion = createOrderIngestion({ repository: orderRepository, orders });
  // shops (issue 4, shops core): the connector registry (Etsy/Shopify: `shopConnectors.register(connector, oauth)`
  // AFTER this line), the sandbox shop, and the shops service.
  const shopConnectors = createConnectorRegistry();
  shopConnectors.register(createSandboxConnector({ impersonators: SANDBOX_IMPERSONATORS }));
  if (config.marketplaces.etsy) {
    const etsy = createEtsyConnector(config.marketplaces.etsy);
    shopConnectors.register(etsy, etsy);
  }
  if (config.marketplaces.shopify) {
    const shopify = createShopifyConnector({ ...config.marketplaces.shopify, apiVersion: '2026-01' });
    shopConnectors.register(shopify, shopify);
  }
  registerMarketplaces(shopConnectors, config);
  const shopRepository = createShopRepository(db, createSecretBox(config.appSecret));
  const shops = createShopService({
    repository: shopRepository,
    connectors: shopConnectors,
    ingestion: orderIngestion,
    rematchOnHold: (ownerId) => orders.rematchOnHold(ownerId),
    audit,
    publicUrl: config.publicUrl,
  });
  const tracking = createTrackingService({
    orders,
    repository: orderRepository,
    pushToMarketplace: (shopId, externalOrderId, update) =>
      shops.pushTracking(shopId, externalOrderId, update),
    audit,
  });
  // print farm at work (issue 11): print jobs from accepted orders, the dispatcher (a tick on the job queue,
  // started by bootstrap), the board, QC and packing. Jobs are made when an order is announced accepted.
  const printJobs = createPrintJobRepository(db);
  const farmOrders = { find: (id: string) => orderRepository.find(id), tryTransition: orders.tryTransition };
  // the farm's Discord alerts (issue 13; docs/discord.md): queued on 'discord-alert' (connected by bootstrap);
  // without DISCORD_WEBHOOK_URL they are written to the log only.
  const farmAlerts = createFarmAlerts({
    discord: config.discord
      ? createDiscordWebhookClient({
          webhookId: config.discord.webhookId,
          webhookToken: config.discord.webhookToken,
          apiBaseUrl: config.discord.apiUrl,
        })
      : null,
    lookups: {
      orders: async (ids) =>
        new Map(
          [...(await orders.getMany(ids))].map(([id, order]) => [
            id,
            { number: order.externalId, channel: order.shopName ?? order.platform },
          ]),
        ),
      printerName: async (id) => (await printerRepository.find(id))?.name ?? null,
    },
    audit,
    log: (line) => {
      if (config.mode !== 'test') console.log(`[farm alert] ${line}`);
    },
    logError: (obj, msg) => {
      if (config.mode !== 'test') console.error(msg, obj);
    },
  });
  const jobOutcomes = createJobOutcomes({
    jobs: printJobs,
    orders: farmOrders,
    onRepeatedFailure: (failure) => farmAlerts.alert({ kind: 'print_failed_twice', ...failure }),
  });
  const farmDispatcher = createFarmDispatcher({
    jobs: printJobs,
    printers: printerRepository,
    drivers: printerDrivers,
    storage,
    files: {
      settingsVersion: async (configId) =>
        (await designRepository.findConfig(configId))?.settingsVersion ?? null,
      requestSlicing: (request) => runtime.printFiles.requestSlicing(request),
      requestPlateSlicing: (request) => runtime.printFiles.requestPlateSlicing(request),
    },
    outcomes: jobOutcomes,
    options: {
      autopilot: { enabled: config.farm.autopilot, delayMs: config.farm.autopilotDelayMs },
      partsPerPlate: config.farm.partsPerPlate,
    },
    onPrinterOffline: (printer, reason) =>
      farmAlerts.alert({
        kind: 'printer_offline',
        printerId: printer.id,
        printerName: printer.name,
        reason,
        lastSeenAt: printer.lastStateAt?.toISOString() ?? null,
      }),
    onContinuousStopped: (printer, reason, jobId) =>
      farmAlerts.alert({ kind: 'continuous_stopped', printerId: printer.id, printerName: printer.name, reason, jobId }),
  });
  // branded parcels (issue 24, point 4): the seller's logo and insert on the packing slip.
  const branding = createBrandingService({ repository: createBrandingRepository(db), storage, audit });
  // listing images (issue 24, point 5): renders after the exact slice, on the model worker's threads.
  const listingImages = createListingImageService({ repository: createListingImageRepository(db), storage, worker: modelWorker, audit });
  const production = createProductionService({
    jobs: printJobs,
    printers: printerRepository,
    orders: farmOrders,
    outcomes: jobOutcomes,
    dispatcher: farmDispatcher,
    slicerAvailable: runtime.slicing.available,
    sellers: {
      find: (id) =>
        users
          .findMe(id)
          .then((me) => me && { ...me, returnAddress: me.returnAddress.line1 ? me.returnAddress : null }),
      branding: (id) => branding.forPackingSlip(id),
    },
    audit,
    autopilot: config.farm.autopilot,
    // `payments` is built below; this runs only when an order is released to the farm.
    printable: (orderIds) => payments.printableOrders(orderIds),
  });
  // fulfilment history (issue 12): reads the records the shipping module writes; admins record shipments by hand.
  const fulfillment = createFulfillmentService({ repository: createFulfillmentRepository(db), audit });
  // shipping (issue 12): labels on the seller's own ShipStation or Shippo account, or the built-in sandbox
  // carrier (its tracking page is ours: under PUBLIC_URL, else a path of this site); packed orders get their label from
  // the job queue (connected by bootstrap).
  const shippingConfig = config.shipping;
  const shipping = createShippingModule({
    db,
    box: createSecretBox(config.appSecret),
    appSecret: config.appSecret,
    publicUrl: config.publicUrl,
    providers: {
      sandbox: shippingConfig.sandbox
        ? createSandboxCarrier({
            secondsPerDay: shippingConfig.sandboxDaySeconds,
            trackingBaseUrl: `${config.publicUrl ?? ''}/tracking`,
          })
        : null,
      shipstation: createShipStationProvider({
        v1BaseUrl: shippingConfig.shipStation.v1Url,
        v2BaseUrl: shippingConfig.shipStation.v2Url,
      }),
      shippo: createShippoProvider({
        baseUrl: shippingConfig.shippo.apiUrl,
        authorizeBaseUrl: shippingConfig.shippo.oauthUrl,
        clientId: shippingConfig.shippo.clientId,
        clientSecret: shippingConfig.shippo.clientSecret,
      }),
      shippoOAuth: Boolean(shippingConfig.shippo.clientId && shippingConfig.shippo.clientSecret),
    },
    storage,
    audit,
    oauthStates: {
      insert: (input) => shopRepository.insertState(input),
      consume: (state, ownerId, platform) => shopRepository.consumeState(state, ownerId, platform),
    },
    orders: {
      detail: (id) => orderRepository.detail(id),
      find: (id) => orderRepository.find(id),
      tryTransition: orders.tryTransition,
    },
    partsOf: async (orderId) =>
      (await printJobs.ofOrder(orderId))
        .filter((job) => job.status === 'qc_passed')
        .map((job) => ({ sizeMm: { x: job.sizeXMm, y: job.sizeYMm, z: job.sizeZMm }, grams: job.grams })),
    // `orderPrices` is built below; this runs only when a label is bought.
    priceOf: async (orderId) => {
      const price = await orderPrices.priceOf(orderId);
      return price && { printCostCents: itemsCentsOf(price), packagingCents: price.packagingCents, shippingCents: price.shippingCents };
    },
    searchTextOf,
    pushToMarketplace: (shopId, externalOrderId, update) =>
      shops.pushTracking(shopId, externalOrderId, update),
    autoBuy: shippingConfig.autoBuy,
  });
  // payments (issue 13; docs/payments.md): Stripe with keys, else the sandbox provider (test cards). An order
  // released to production is charged before the farm hears of it; the farm prints only paid orders.
  const paymentProvider = config.payments.stripe
    ? createStripePayments({
        secretKey: config.payments.stripe.secretKey,
        webhookSecret: config.payments.stripe.webhookSecret ?? '',
        ...stripeHostOf(config.payments.stripe.apiUrl),
      })
    : createSandboxPayments({ publicUrl: config.publicUrl });
  // One stored price per order (docs/payments.md): what the charge, the fulfilment record and Billing read.
  const orderPrices = createOrderPrices({
    repository: createOrderPriceRepository(db),
    order: async (orderId) => {
      const detail = await orderRepository.detail(orderId);
      return detail ? { ownerId: detail.order.ownerId, items: detail.items } : null;
    },
    unitQuotes: (variantIds) => products.unitQuotesOf(variantIds),
    expectedParts: async (orderId) =>
      (await printJobs.partsOfOrder(orderId)).flatMap((part) => {
        const [x, y, z] = part.design.bboxMm;
        const grams = (part.config.adminCost ?? part.config.sliced ?? part.config.estimate)?.grams ?? 0;
        return Array.from({ length: part.itemQuantity * part.partQuantity }, () => ({
          sizeMm: { x, y, z },
          grams,
        }));
      }),
    estimateShipping: (orderId, parts) => shipping.labels.estimate(orderId, parts),
  });
  // wallet (issue 24; docs/wallet.md): the prepaid balance orders are paid from first, its ledger, receipts
  // (issued by the platform's business details, which admins edit) and statements.
  const paymentRepository = createPaymentRepository(db);
  const businessDetails = createBusinessDetailsService({ settings: createSiteSettingRepository(db), audit });
  const wallet = createWalletService({
    repository: createWalletRepository(db),
    provider: paymentProvider,
    cardOf: async (ownerId) => {
      const customer = await paymentRepository.customerOf(ownerId);
      if (!customer || customer.provider !== paymentProvider.kind || !customer.paymentMethodId) return null;
      return { customerId: customer.customerId, paymentMethodId: customer.paymentMethodId };
    },
    sellers: {
      detailsOf: async (id) => users.findMe(id).then((me) => me && { name: me.name, businessName: me.businessName ?? '', email: me.email }),
    },
    businessDetails: async () => (await businessDetails.get()).details,
    rechargeFailed: async (event) => {
      await notifications.notify({
        userId: event.ownerId,
        template: 'wallet_recharge_failed',
        vars: { amount: formatCents(event.amountCents, 'USD'), reason: event.reason, billingUrl: `${config.publicUrl ?? `http://localhost:${config.port}`}/billing` },
        dedupeKey: `wallet_recharge_failed:${event.topUpId}`,
      });
    },
    audit,
    log: {
      error: (obj, msg) => {
        if (config.mode !== 'test') console.error(msg, obj);
      },
    },
  });
  const payments = createPaymentService({
    repository: paymentRepository,
    provider: paymentProvider,
    publishableKey: config.stripePublishableKey,
    chargeOrders: config.payments.chargeOrders,
    orders: {
      find: (id) => orderRepository.find(id),
      tryTransition: orders.tryTransition,
      setHoldReason: (id, reason) => orderRepository.setHoldReason(id, reason),
    },
    prices: orderPrices,
    sellers: {
      contactOf: async (id) =>
        users.findMe(id).then((me) => me && { email: me.email, name: me.businessName || me.name }),
    },
    releaseToFarm: (orderId) => production.createJobsForOrder(orderId),
    audit,
    publicUrl: config.publicUrl,
    wallet,
  });
  // New orders are announced in batches: payments charges those released to production first, then the farm reads
  // the parts of a whole batch in one query; packed orders get labels.
  orders.onStatusChanges((events) => payments.onOrderStatusChanges(events));
  orders.onStatusChanges((events) => production.onOrderStatusChanges(events));
  orders.onStatusChanges((events) => shipping.labels.onOrderStatusChanges(events));
  // email notifications (issue 13; docs/notifications.md): the product's emails, stored and then sent through SMTP
  // from the job queue (connected by bootstrap), or kept in the admins' outbox without SMTP_URL.
  const notifications = createNotificationService({
    repository: createNotificationRepository(db),
    audit,
    appSecret: config.appSecret,
    baseUrl: config.publicUrl ?? `http://localhost:${config.port}`,
    transport: config.smtpUrl ? mailer : null,
    orders: {
      find: (id) => orderRepository.find(id),
      shipments: async (id) => (await shipping.labels.shipmentsByOrder([id])).get(id) ?? [],
    },
    retry: { maxAttempts: config.email.maxAttempts, baseDelayMs: config.email.retryDelayMs },
  });
  // On hold (not for payment: payments mails its own), shipped, delivered.
  orders.onStatusChanges((events) => notifications.onOrderStatusChanges(events));
  // The farm hears of new orders on Discord, one message per announcement batch.
  orders.onStatusChanges((events) => farmAlerts.onOrderStatusChanges(events));
  // affiliates (issue 13; docs/affiliates.md): codes, referrals, the ledger from payments' events (an earning per
  // succeeded order charge of a referred seller, a reversal per refund), payable once delivered + held; Connect
  // payouts through the payments provider. The sweep (bootstrap) fills in what a crash missed.
  const affiliates = createAffiliateService({
    repository: createAffiliateRepository(db),
    audit,
    provider: paymentProvider,
    settings: config.affiliates,
    publicUrl: config.publicUrl,
    // Links in the earning email: as the notifications' own links are made.
    emailBaseUrl: config.publicUrl ?? `http://localhost:${config.port}`,
    notifications,
    log: {
      error: (obj, msg) => {
        if (config.mode !== 'test') console.error(msg, obj);
      },
    },
  });
  payments.onChargeChanged((event) => affiliates.onChargeChanged(event));
  // Every charge and refund gets its receipt (docs/wallet.md); those paid through the balance have theirs already.
  payments.onChargeChanged(async (event) => {
    if (event.to === 'succeeded') await wallet.receiptForCharge(event.chargeId, event.ownerId);
  });
  payments.onRefundSucceeded((event) => wallet.receiptForRefund(event.refundId, event.ownerId));
  payments.onRefundSucceeded((event) => affiliates.onRefundSucceeded(event));
  orders.onStatusChanges((events) => affiliates.onOrderStatusChanges(events));
  // A charge that failed or needs authentication: the seller is emailed (once per charge), the farm hears of failures.
  payments.onChargeChanged((event) => paymentNotices(event));
  // Sellers' endpoints hear `order.charged` (`order.adjusted`) once per succeeded charge, `order.refunded` once per refund.
  payments.onChargeChanged((event) => orderApiModule.webhookDeliveries.announceCharged(event));
  payments.onRefundSucceeded((event) => orderApiModule.webhookDeliveries.announceRefunded(event));
  // The change window (issue 24): a new address before release is `order.address_changed`.
  orders.onAddressChange((event) => orderApiModule.webhookDeliveries.announceAddressChanged(event));
  // The seller is emailed each refund and each adjustment charged after an exact quote (once each).
  payments.onRefundSucceeded((event) => moneyNotice('order_refunded', event.refundId, { ...event, refundedTo: event.toBalance ? 'your prepaid balance' : 'your card' }));
  payments.onChargeChanged(async (event) => {
    if (event.kind === 'adjustment' && event.to === 'succeeded') await moneyNotice('order_price_adjusted', event.chargeId, { ...event, reason: event.failureReason ?? '' });
  });
  async function moneyNotice(
    template: 'order_refunded' | 'order_price_adjusted',
    key: string,
    event: { ownerId: string; orderNumber: string | null; amountCents: number; currency: string; reason: string; refundedTo?: string },
  ): Promise<void> {
    const siteUrl = config.publicUrl ?? `http://localhost:${config.port}`;
    await notifications.notify({
      userId: event.ownerId,
      template,
      vars: { orderNumber: event.orderNumber ?? '', amount: formatCents(event.amountCents, event.currency), reason: event.reason, billingUrl: `${siteUrl}/billing`, ...(event.refundedTo ? { refundedTo: event.refundedTo } : {}) },
      dedupeKey: `${template}:${key}`,
    });
  }
  async function paymentNotices(event: ChargeChangedEvent): Promise<void> {
    if (event.kind !== 'order' || (event.to !== 'failed' && event.to !== 'requires_action')) return;
    const siteUrl = config.publicUrl ?? `http://localhost:${config.port}`;
    const template = event.to === 'failed' ? 'payment_failed' : 'payment_action_required';
    await notifications.notify({
      userId: event.ownerId,
      template,
      vars: {
        orderNumber: event.orderNumber ?? '',
        amount: formatCents(event.amountCents, event.currency),
        reason: event.failureReason ?? '',
        actionUrl: event.actionUrl?.startsWith('/')
          ? `${siteUrl}${event.actionUrl}`
          : (event.actionUrl ?? `${siteUrl}/billing`),
        billingUrl: `${siteUrl}/account-settings`,
      },
      dedupeKey: `${template}:${event.chargeId}`,
    });
    if (event.to === 'failed') {
      const seller = await users.findMe(event.ownerId);
      await farmAlerts.alert({
        kind: 'payment_failed',
        orderNumber: event.orderNumber,
        sellerName: seller?.businessName || seller?.name || 'a seller',
        reason: event.failureReason ?? 'declined',
        key: event.chargeId,
      });
    }
  }
  // claims (issue 24; docs/claims.md): sellers claim damaged, lost or misprinted parts; an admin decides a free
  // reprint (production's reprint, shipping's replacement label), a refund (payments) or a decline.
  const claims = createClaimsService({
    repository: createClaimsRepository(db),
    storage,
    audit,
    timeline: (orderId, actor, reason) => orders.addTimelineEvent(orderId, actor, reason),
    reprint: (orderId, jobIds, adminId, reason) => production.reprintParts(orderId, jobIds, { kind: 'admin', id: adminId }, reason),
    replacementLabels: (actor, orderId, parts) => shipping.labels.buyReplacementLabels(actor, orderId, parts),
    refund: (actor, orderId, claimId, amountCents, reason) => payments.refundForClaim(actor, orderId, claimId, amountCents, reason),
    email: async (userId, dedupeKey, vars) => {
      await notifications.notify({ userId, template: 'claim_updated', vars, dedupeKey });
    },
    announce: (ownerId, orderId, step, claim) => orderApiModule.webhookDeliveries.announceClaim(ownerId, orderId, step, claim),
    siteUrl: config.publicUrl ?? `http://localhost:${config.port}`,
  });
  // Checkout rates (issue 24; docs/checkout-rates.md): Shopify's carrier service callback, answered from the seller's shipping profile.
  const checkoutRates = createCheckoutRatesService({
    repository: createCheckoutRatesRepository(db),
    audit,
    appSecret: config.appSecret,
    publicUrl: config.publicUrl ?? `http://localhost:${config.port}`,
    shops: {
      carrierServiceShop: (viewer, shopId) => shops.carrierServiceShop(viewer, shopId),
      shopsTakingCarrierService: (ownerId) => shops.shopsTakingCarrierService(ownerId),
      registerCarrierService: (shopId, service) => shops.registerCarrierService(shopId, service),
      removeCarrierService: (shopId, carrierServiceId) => shops.removeCarrierService(shopId, carrierServiceId),
    },
    partsOfSkus: (ownerId, skus) => products.packedPartsOfSkus(ownerId, skus),
    quote: (ownerId, to, parts) => shipping.checkoutQuotes.quote(ownerId, to, parts),
    shopify: shopifyCarrierCallback,
    budgetMs: CHECKOUT_RATES_BUDGET_MS,
  });
  const publicConfig: PublicConfig = {
    mode: config.mode,
    sentryDsn: config.sentryDsn,
    analyticsKey: config.analyticsKey,
    stripePublishableKey: config.stripePublishableKey,
    // The spec's sample rates (§7): session 20 %, replay 10 %, trace 20 %.
    monitoringSampleRates: { session: 0.2, replay: 0.1, trace: 0.2 },
  };
  return {
    config,
    db,
    // auth, loginThrottle, sessions, deviceCookies, mailer
    ...signIn,
    users,
    audit,
    accounts,
    contacts: createContactRepository(db),
    testimonial: createTestimonialService({ settings: createSiteSettingRepository(db), audit }),
    pageViews: createPageViewRepository(db),
    dashboard: createDashboardService({
      designs: designRepository.countForOwner,
      products: products.countForOwner,
      openOrders: orders.countOpen,
      connectedShops: shops.countConnected,
    }),
    publicConfig,
    storage,
    prices,
    designs,
    // ── issue 4 modules: each adds its exported services here ──
    webhookIntake,
    jobsAdmin,
    apiKeys: orderApiModule.apiKeys,
    webhookEndpoints: orderApiModule.webhookEndpoints,
    orderApi: orderApiModule.orderApi,
    webhookDeliveries: orderApiModule.webhookDeliveries,
    products,
    orders,
    orderIngestion,
    tracking,
    shopConnectors,
    shops,
    printers: createPrinterService({
      repository: printerRepository,
      drivers: printerDrivers,
      audit,
      // The policy the drivers apply before each call, applied when an admin saves an address too.
      addressProblem: (baseUrl) => checkPrinterHost(new URL(baseUrl), printerHostPolicy, lookupWithin(2000)),
    }),
    printerRepository,
    simulatedPrinters,
    inProcessPrinters,
    printJobs,
    farmDispatcher,
    production,
    fulfillment,
    shipping,
    payments,
    wallet,
    businessDetails,
    /** The sandbox card form's stand-in for Stripe Elements (null with Stripe). */
    sandboxCards: config.payments.stripe
      ? null
      : (card: { cardNumber: string; expMonth: number; expYear: number; cvc: string }) =>
          sandboxPaymentMethodFor(card.cardNumber, card.expMonth, card.expYear, card.cvc),
    /** Email notifications; other modules email a seller with `notifications.notify(...)`. */
    notifications,
    /** The farm's Discord alerts; the payments module raises `farmAlerts.alert({ kind: 'payment_failed', … })`. */
    farmAlerts,
    affiliates,
    claims,
    branding,
    listingImages,
    checkoutRates,
    /**
     * The payment provider in use (its Connect half pays affiliates; tests answer the sandbox's
     * authentication requests and read its transfers through it).
     */
    paymentProvider,
    /** The designs module's BuildVolumes port, answered from the farm. */
    buildVolumes,
    /** The model worker pool (its stats are read by tests and the bench). */
    modelWorker,
    /** Stops background threads; the database is closed by whoever opened it. */
    close: async () => {
      await modelWorker.close();
      await printerDrivers.close(); // Bambu Lab printers' MQTT connections
      await Promise.all(inProcessPrinters.stops.splice(0).map((stop) => stop()));
    },
  };
}

export type AppContext = ReturnType<typeof createAppContext>;
