import type { Database } from '../../db/client.ts';
import { createSecretBox } from '../../platform/secret-box.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import { createApiKeyRateRepository } from './api-key-rate-limit.ts';
import { createApiKeyRepository } from './api-key-repository.ts';
import { createApiKeyService } from './api-key-service.ts';
import { createOrderApiRepository } from './order-api-repository.ts';
import { createOrderApiService, type OrderChangePort, type OrderIngestionPort, type OrderReaderPort } from './order-api-service.ts';
import { createWebhookDeliveryRepository } from './webhook-delivery-repository.ts';
import { createWebhookDeliveryService, type WebhookTransport } from './webhook-delivery-service.ts';
import { createWebhookEndpointRepository } from './webhook-endpoint-repository.ts';
import { createWebhookEndpointService } from './webhook-endpoint-service.ts';
import { createHttpWebhookTransport, resolveHost } from './webhook-http-transport.ts';

/**
 * The order API module, built once by app-context: API keys, the seller's webhook endpoint and
 * its deliveries, API and manual orders. The orders module is reached through the ports it
 * implements (OrderIngestionPort, OrderReaderPort).
 */
export function createOrderApiModule(deps: {
  db: Database;
  appSecret: string;
  /**
   * Webhooks to http:// and to local, private or internal addresses (a receiver on this machine,
   * for testing). Off unless ALLOW_LOCAL_WEBHOOK_RECEIVERS says so; never in production.
   */
  allowLocalWebhookReceivers: boolean;
  /**
   * The base of our own links in the seller's webhooks (a sandbox parcel's tracking page): PUBLIC_URL,
   * else this server's address (`http://localhost:${port}`, as the emails' links).
   */
  siteUrl: string;
  audit: AuditRepository;
  ingestion: OrderIngestionPort;
  orders: OrderReaderPort;
  /** The change window's calls (issue 24). */
  changes: OrderChangePort;
  transport?: WebhookTransport;
}) {
  const allowLocal = deps.allowLocalWebhookReceivers;
  const apiKeys = createApiKeyService({ keys: createApiKeyRepository(deps.db), rates: createApiKeyRateRepository(deps.db) });
  const webhookEndpoints = createWebhookEndpointService({
    endpoints: createWebhookEndpointRepository(deps.db),
    secretBox: createSecretBox(deps.appSecret),
    allowLocal,
    resolveHost,
  });
  const orderApi = createOrderApiService({
    ingestion: deps.ingestion,
    orders: deps.orders,
    changes: deps.changes,
    repository: createOrderApiRepository(deps.db),
    audit: deps.audit,
  });
  const webhookDeliveries = createWebhookDeliveryService({
    endpoints: webhookEndpoints,
    orders: deps.orders,
    repository: createWebhookDeliveryRepository(deps.db),
    transport: deps.transport ?? createHttpWebhookTransport({ blockInternal: !allowLocal }),
    allowLocal,
    siteUrl: deps.siteUrl,
  });
  return { apiKeys, webhookEndpoints, orderApi, webhookDeliveries };
}

export type OrderApiModule = ReturnType<typeof createOrderApiModule>;
