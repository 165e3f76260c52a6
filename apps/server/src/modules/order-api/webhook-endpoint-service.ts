import { randomUUID } from 'node:crypto';
import { AppError, notFound } from '../../errors.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import { isInternalAddress, webhookUrlProblem } from './url-policy.ts';
import type { WebhookEndpointRepository, WebhookEndpointRow } from './webhook-endpoint-repository.ts';
import type { WebhookEndpointDto } from './order-api-schemas.ts';
import { newWebhookSecret } from './webhook-signature.ts';

/** Resolves a host name to its addresses (production checks each against internal ranges). */
export type HostResolver = (hostname: string) => Promise<string[]>;

const secretContext = (row: { id: string; ownerId: string }) => ({
  table: 'webhook_endpoint',
  rowId: row.id,
  ownerId: row.ownerId,
  purpose: 'signing_secret',
});

function toDto(row: WebhookEndpointRow, secret?: string): WebhookEndpointDto {
  return {
    url: row.url,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    ...(secret ? { secret } : {}),
  };
}

/**
 * The seller's webhook endpoint: where order status changes are sent, signed with a secret that
 * is shown once (at creation and at each rotation) and stored sealed (AES-256-GCM, bound to the
 * row and its owner).
 */
export function createWebhookEndpointService(deps: {
  endpoints: WebhookEndpointRepository;
  secretBox: SecretBox;
  /** Off (the default, and always in production): https only and public hosts only (SSRF). */
  allowLocal: boolean;
  resolveHost: HostResolver;
}) {
  const { endpoints, secretBox } = deps;

  async function checkUrl(url: string): Promise<void> {
    // 422: the body is well formed, but this URL may not receive webhooks.
    const problem = webhookUrlProblem(url, { allowLocal: deps.allowLocal });
    if (problem) throw new AppError('unprocessable', problem);
    if (deps.allowLocal) return;
    const addresses = await deps.resolveHost(new URL(url).hostname.replace(/^\[|\]$/g, '')).catch(() => []);
    if (addresses.length === 0) throw new AppError('unprocessable', 'The URL’s host name does not resolve');
    if (addresses.some(isInternalAddress)) throw new AppError('unprocessable', 'The URL must point to a public address');
  }

  return {
    checkUrl,

    async get(ownerId: string): Promise<WebhookEndpointDto> {
      const row = await endpoints.findForOwner(ownerId);
      if (!row) throw notFound('Webhook endpoint');
      return toDto(row);
    },

    /** Sets the URL; the first time, creates the signing secret and returns it (once). */
    async set(ownerId: string, url: string): Promise<WebhookEndpointDto> {
      await checkUrl(url);
      const existing = await endpoints.findForOwner(ownerId);
      if (!existing) {
        const id = randomUUID();
        const secret = newWebhookSecret();
        const inserted = await endpoints.insertIfAbsent({ id, ownerId, url, secretEnc: secretBox.seal(secret, secretContext({ id, ownerId })) });
        if (inserted) return toDto(inserted, secret);
      }
      // It existed (or a concurrent request created it): only the URL changes; the secret stays.
      const updated = await endpoints.update(ownerId, { url });
      if (!updated) throw new AppError('conflict', 'The endpoint was removed meanwhile; try again');
      return toDto(updated);
    },

    /** A new secret, effective at once for every delivery from now on (retries included). */
    async rotateSecret(ownerId: string): Promise<WebhookEndpointDto> {
      const existing = await endpoints.findForOwner(ownerId);
      if (!existing) throw notFound('Webhook endpoint');
      const secret = newWebhookSecret();
      const updated = await endpoints.update(ownerId, { secretEnc: secretBox.seal(secret, secretContext(existing)) });
      if (!updated) throw notFound('Webhook endpoint');
      return toDto(updated, secret);
    },

    async remove(ownerId: string): Promise<void> {
      if (!(await endpoints.delete(ownerId))) throw notFound('Webhook endpoint');
    },

    /**
     * For delivery, a batch at a time: each seller's URL and opened secret, in one query. Sellers
     * with no endpoint are left out; a secret that does not open is that seller's error (the others'
     * deliveries go on).
     */
    async signingTargets(ownerIds: readonly string[]): Promise<Map<string, { url: string; secret: string } | Error>> {
      const targets = new Map<string, { url: string; secret: string } | Error>();
      for (const row of await endpoints.findForOwners(ownerIds)) {
        try {
          targets.set(row.ownerId, { url: row.url, secret: secretBox.open(row.secretEnc, secretContext(row)) });
        } catch (error) {
          targets.set(row.ownerId, error instanceof Error ? error : new Error(String(error)));
        }
      }
      return targets;
    },

    async hasEndpoint(ownerId: string): Promise<boolean> {
      return (await endpoints.findForOwner(ownerId)) !== undefined;
    },

    /** Which of these sellers have an endpoint. */
    ownersWithEndpoint: (ownerIds: readonly string[]): Promise<Set<string>> => endpoints.ownersWithEndpoint(ownerIds),
  };
}

export type WebhookEndpointService = ReturnType<typeof createWebhookEndpointService>;
