import { createHash, randomBytes } from 'node:crypto';
import {
  PLATFORM_LABELS,
  type ImpersonatedPlatform,
  type Listing,
  type ListingList,
  type Platform,
  type ShopConnection,
  type ShopPlatforms,
  type ShopSyncResult,
  type VariantOption,
} from '@layerline/contracts';
import { AppError, notFound } from '../../errors.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import type { OrderIngestion } from '../orders/order-ingestion.ts';
import type { ConnectorRegistry } from './connector-registry.ts';
import {
  isSimulatingConnector,
  MarketplaceRejectedError,
  type ConnectionGrant,
  type MarketplaceOrder,
  type ShopConnector,
  type ShopCredentials,
  type TrackingUpdate,
} from './connector.ts';
import type { ListingView, ShopRepository, ShopRow } from './shop-repository.ts';

export interface ShopViewer {
  readonly id: string;
  readonly isAdmin: boolean;
  readonly requestId?: string;
}

/** Thrown by the OAuth callback with a message fit for the seller (it goes into ?error=). */
export class OAuthCallbackError extends Error {}

export const OAUTH_STATE_TTL_MS = 10 * 60 * 1000;
/** Refresh an access token this long before it expires. */
const TOKEN_REFRESH_MARGIN_MS = 60 * 1000;

function shopDto(row: ShopRow & { listingCount: number }): ShopConnection {
  return {
    id: row.id,
    platform: row.platform as Platform,
    name: row.name,
    externalShopId: row.externalShopId,
    status: row.status as ShopConnection['status'],
    statusMessage: row.statusMessage,
    lastSyncedAt: row.lastSyncedAt?.toISOString() ?? null,
    listingCount: row.listingCount,
    createdAt: row.createdAt.toISOString(),
  };
}

function listingDto(view: ListingView): Listing {
  const l = view.listing;
  return {
    id: l.id,
    shopId: l.shopId,
    shopName: view.shopName,
    platform: view.platform as Platform,
    externalListingId: l.externalListingId,
    externalVariantId: l.externalVariantId,
    title: l.title,
    sku: l.sku,
    priceCents: l.priceCents,
    currency: l.currency,
    url: l.url,
    imageUrl: l.imageUrl,
    linkedVariantId: l.linkedVariantId,
    linkedVariantLabel: view.productName
      ? `${view.productName} — ${view.variantName ?? ''}`.replace(/ — $/, '')
      : null,
    linkSource: (l.linkSource as 'sku' | 'manual' | null) ?? null,
  };
}

/**
 * Shop connections and listings: connecting (the sandbox at once, marketplaces by OAuth with
 * state and PKCE), syncing listings and orders through the platform's connector, linking
 * listings to product variants, and disconnecting (revoke, then delete the tokens).
 */
export function createShopService(deps: {
  repository: ShopRepository;
  connectors: ConnectorRegistry;
  ingestion: OrderIngestion;
  /** Releases on-hold orders whose SKUs now match (the orders service's rematchOnHold). */
  rematchOnHold: (ownerId: string) => Promise<number>;
  audit: AuditRepository;
  /** PUBLIC_URL: marketplace webhooks are subscribed to `${publicUrl}/api/webhooks/<platform>`; none without it. */
  publicUrl?: string | undefined;
}) {
  const { repository, connectors, audit } = deps;

  function connectorFor(platform: string): ShopConnector {
    const connector = connectors.shop(platform);
    if (!connector)
      throw new AppError(
        'bad-request',
        `${PLATFORM_LABELS[platform as Platform] ?? platform} cannot be connected on this server yet`,
      );
    return connector;
  }

  /** An admin acting on another seller's shop or listings is recorded with the real actor (AC-2). */
  async function auditIfForOther(
    viewer: ShopViewer,
    ownerId: string,
    action: string,
    detail: Record<string, unknown>,
  ): Promise<void> {
    if (viewer.id === ownerId) return;
    await audit.record({
      actorId: viewer.id,
      targetUserId: ownerId,
      action,
      detail,
      requestId: viewer.requestId,
    });
  }

  async function visibleShop(viewer: ShopViewer, shopId: string): Promise<ShopRow> {
    const row = await repository.find(shopId);
    if (!row || (row.ownerId !== viewer.id && !viewer.isAdmin)) throw notFound('Shop');
    return row;
  }

  async function shopConnection(id: string): Promise<ShopConnection> {
    const row = await repository.find(id);
    if (!row) throw notFound('Shop');
    const list = await repository.listForOwner(row.ownerId);
    return shopDto(list.find((s) => s.id === id)!);
  }

  /**
   * Refreshes in flight, per connection: concurrent jobs for one shop share one refresh (TOK-1),
   * which matters where the marketplace rotates refresh tokens (Etsy) — a second refresh with the
   * old token would fail with invalid_grant.
   */
  const refreshing = new Map<string, Promise<ShopCredentials>>();

  /** Credentials with a fresh access token (refreshed and stored first when about to expire). */
  async function freshCredentials(row: ShopRow, connector: ShopConnector): Promise<ShopCredentials> {
    const credentials = repository.credentials(row);
    const expiresAt = credentials.tokenExpiresAt?.getTime();
    if (
      !connector.refreshTokens ||
      expiresAt === undefined ||
      expiresAt - Date.now() >= TOKEN_REFRESH_MARGIN_MS
    ) {
      return credentials;
    }
    const pending = refreshing.get(row.id);
    if (pending) return pending;
    const refresh = (async () => {
      // Another process (or an earlier refresh here) may have refreshed already: read the row again.
      const latest = await repository.find(row.id);
      const current = latest ? repository.credentials(latest) : credentials;
      const currentExpiry = current.tokenExpiresAt?.getTime();
      if (currentExpiry !== undefined && currentExpiry - Date.now() >= TOKEN_REFRESH_MARGIN_MS)
        return current;
      const tokens = await connector.refreshTokens!(current);
      await repository.updateTokens(row, tokens);
      return {
        ...current,
        accessToken: tokens.accessToken,
        refreshToken: tokens.refreshToken ?? current.refreshToken,
        tokenExpiresAt: tokens.tokenExpiresAt,
      };
    })().finally(() => refreshing.delete(row.id));
    refreshing.set(row.id, refresh);
    return refresh;
  }

  async function importListings(
    row: ShopRow,
    connector: ShopConnector,
    credentials: ShopCredentials,
  ): Promise<{ listings: number; linked: number }> {
    const listings = await connector.listListings(credentials);
    await repository.upsertListings(row, listings);
    const linked = await repository.autoLinkBySku(row.ownerId);
    if (linked > 0) await deps.rematchOnHold(row.ownerId);
    return { listings: listings.length, linked };
  }

  /** One marketplace order into the seller's orders (idempotent per shop and external id): the sync's and the webhooks' path. */
  function ingestFor(row: ShopRow, order: MarketplaceOrder) {
    return deps.ingestion.ingest({
      ownerId: row.ownerId,
      channel: row.id,
      shopId: row.id,
      platform: row.platform,
      order,
      actor: { kind: 'marketplace', id: null },
    });
  }

  /**
   * Right after an OAuth connection: subscribes the marketplace's webhooks where the connector
   * can. Never fatal: a failure (or no PUBLIC_URL) is shown as the connection's status message,
   * and orders still arrive by the periodic poll.
   */
  async function subscribeWebhooks(shopId: string, platform: string): Promise<string> {
    const connector = connectors.shop(platform);
    if (!connector?.subscribeWebhooks) return 'not supported';
    if (!deps.publicUrl) {
      await repository.setStatus(shopId, 'connected', 'Webhooks need PUBLIC_URL; orders arrive by polling');
      return 'skipped: no PUBLIC_URL';
    }
    const row = await repository.find(shopId);
    if (!row) return 'skipped: shop gone';
    try {
      await connector.subscribeWebhooks(
        repository.credentials(row),
        `${deps.publicUrl}/api/webhooks/${platform}`,
      );
      return 'subscribed';
    } catch (error) {
      const reason = (error instanceof Error ? error.message : String(error)).slice(0, 200);
      await repository.setStatus(
        shopId,
        'connected',
        `Webhooks could not be subscribed (${reason}); orders arrive by polling`,
      );
      return `failed: ${reason}`;
    }
  }

  /** Stores a completed connection (tokens sealed), subscribes its webhooks and records it. */
  async function saveGrant(
    ownerId: string,
    platform: string,
    granted: ConnectionGrant,
  ): Promise<string | 'taken'> {
    const saved = await repository.saveConnection({
      ownerId,
      platform,
      externalShopId: granted.externalShopId,
      name: granted.shopName,
      tokens: granted.tokens,
      scopes: granted.scopes,
      settings: granted.settings,
    });
    if (saved === 'taken') return 'taken';
    // Logged in the connect audit entry; a failure is also the connection's status message.
    const webhooks = await subscribeWebhooks(saved.id, platform);
    await audit.record({
      actorId: ownerId,
      targetUserId: ownerId,
      action: 'shop.connect',
      detail: { platform, shopId: saved.id, webhooks },
    });
    return saved.id;
  }

  async function syncListingsAfterConnect(shopId: string): Promise<void> {
    try {
      await sync(shopId, { listings: true, orders: false });
    } catch (error) {
      const reason = (error instanceof Error ? error.message : String(error)).slice(0, 200);
      await repository.setStatus(
        shopId,
        error instanceof MarketplaceRejectedError ? 'error' : 'connected',
        `Listings could not be imported yet: ${reason}`,
      );
    }
  }

  /**
   * One sync of a shop: listings (unless only orders are wanted), then orders since the cursor,
   * each ingested idempotently. Marketplace errors propagate (the job decides about retries).
   */
  async function sync(shopId: string, what: { listings: boolean; orders: boolean }): Promise<ShopSyncResult> {
    const row = await repository.find(shopId);
    if (!row) throw notFound('Shop');
    const connector = connectorFor(row.platform);
    const credentials = await freshCredentials(row, connector);
    const result: ShopSyncResult = { listings: 0, linked: 0, ordersReceived: 0, ordersCreated: 0 };
    if (what.listings) Object.assign(result, await importListings(row, connector, credentials));
    let cursor: string | undefined;
    let note: string | null = null;
    if (what.orders) {
      const page = await connector.fetchOrders(credentials, row.syncCursor);
      for (const order of page.orders) {
        const ingested = await ingestFor(row, order);
        result.ordersReceived += 1;
        if (ingested.created) result.ordersCreated += 1;
      }
      cursor = page.nextCursor;
      const failed = page.failed ?? [];
      if (failed.length > 0)
        note =
          `${failed.length} order${failed.length === 1 ? '' : 's'} could not be read and ${failed.length === 1 ? 'was' : 'were'} skipped (order ${failed[0]!.externalId}: ${failed[0]!.reason})`.slice(
            0,
            500,
          );
    }
    await repository.recordSync(row.id, cursor, note);
    return result;
  }

  return {
    sync,

    /** One order from a webhook, ingested exactly as the sync ingests it. */
    async ingestMarketplaceOrder(
      shopId: string,
      order: MarketplaceOrder,
    ): Promise<{ orderId: string; created: boolean }> {
      const row = await repository.find(shopId);
      if (!row) throw notFound('Shop');
      return ingestFor(row, order);
    },

    /** An order a webhook named by id only: fetched with fresh credentials, then ingested like any other. */
    async ingestMarketplaceOrderById(
      shopId: string,
      externalOrderId: string,
    ): Promise<{ orderId: string; created: boolean } | null> {
      const row = await repository.find(shopId);
      if (!row) throw notFound('Shop');
      const connector = connectorFor(row.platform);
      if (!connector.fetchOrder) return null;
      const order = await connector.fetchOrder(await freshCredentials(row, connector), externalOrderId);
      return order ? ingestFor(row, order) : null;
    },

    async platforms(): Promise<ShopPlatforms> {
      const oauth = new Set(connectors.oauthPlatforms());
      return {
        platforms: connectors.platforms().map((platform) => ({
          platform,
          label: PLATFORM_LABELS[platform],
          oauth: oauth.has(platform),
          fields: (connectors.credentials(platform)?.connectFields ?? []).map((field) => ({ ...field })),
        })),
      };
    },

    async list(ownerId: string): Promise<ShopConnection[]> {
      return (await repository.listForOwner(ownerId)).map(shopDto);
    },

    countConnected: (ownerId: string) => repository.countConnected(ownerId),

    /** Sends an order's tracking to the marketplace it came from (with fresh credentials). */
    async pushTracking(shopId: string, externalOrderId: string, tracking: TrackingUpdate): Promise<void> {
      const row = await repository.find(shopId);
      if (!row) throw notFound('Shop');
      const connector = connectorFor(row.platform);
      await connector.pushTracking(await freshCredentials(row, connector), externalOrderId, tracking);
    },

    /**
     * A shop as checkout rates need it (issue 24): whose it is, what it is, and whether its
     * marketplace takes a carrier service (Shopify, or a sandbox shop acting as Shopify).
     */
    async carrierServiceShop(viewer: ShopViewer | null, shopId: string): Promise<{ id: string; ownerId: string; name: string; platform: string; takesCarrierService: boolean } | null> {
      const row = viewer ? await visibleShop(viewer, shopId) : await repository.find(shopId);
      if (!row) return null;
      const takesCarrierService = row.platform === 'shopify' || (row.platform === 'sandbox' && row.settings.impersonate === 'shopify');
      return { id: row.id, ownerId: row.ownerId, name: row.name, platform: row.platform, takesCarrierService };
    },

    /** The seller's shops that take a carrier service (the checkout-rates page lists them). */
    async shopsTakingCarrierService(ownerId: string): Promise<{ id: string; ownerId: string; name: string; platform: string; takesCarrierService: boolean }[]> {
      return (await repository.listForOwner(ownerId))
        .filter((row) => row.platform === 'shopify' || (row.platform === 'sandbox' && row.settings.impersonate === 'shopify'))
        .map((row) => ({ id: row.id, ownerId: row.ownerId, name: row.name, platform: row.platform, takesCarrierService: true }));
    },

    /** Registers the checkout-rates callback as the shop's carrier service; its id. */
    async registerCarrierService(shopId: string, service: { name: string; callbackUrl: string }): Promise<string> {
      const row = await repository.find(shopId);
      if (!row) throw notFound('Shop');
      const connector = connectorFor(row.platform);
      if (!connector.registerCarrierService) throw new AppError('unprocessable', 'This marketplace takes no carrier service');
      return connector.registerCarrierService(await freshCredentials(row, connector), service);
    },

    async removeCarrierService(shopId: string, carrierServiceId: string): Promise<void> {
      const row = await repository.find(shopId);
      if (!row) return;
      const connector = connectorFor(row.platform);
      await connector.removeCarrierService?.(await freshCredentials(row, connector), carrierServiceId);
    },

    /**
     * A sandbox shop acting as Shopify for checkout rates only (the demo; docs/checkout-rates.md):
     * its carrier service registers as Shopify's would, so the Connect Store card can be tried
     * without a Shopify plan. Its orders are the sandbox's own, not in Shopify's shape.
     */
    async connectSandboxForCheckoutRates(ownerId: string): Promise<ShopConnection> {
      connectorFor('sandbox');
      const externalShopId = `sandbox-${randomBytes(6).toString('hex')}`;
      const saved = await repository.saveConnection({
        ownerId,
        platform: 'sandbox',
        externalShopId,
        name: `Sandbox Shopify store ${externalShopId.slice(-4).toUpperCase()} (checkout rates)`,
        tokens: null,
        scopes: '',
        settings: { openedAt: new Date().toISOString(), impersonate: 'shopify' },
      });
      if (saved === 'taken') throw new AppError('conflict', 'Could not create a sandbox shop; try again');
      return shopConnection(saved.id);
    },

    /** Every connected shop (for the periodic sync). */
    listConnected: () => repository.listConnected(),

    /**
     * The sandbox shop: no OAuth, a new simulated shop, its listings imported at once. Impersonating
     * a marketplace, its orders arrive in that marketplace's shape, through its mapping.
     */
    async connectSandbox(ownerId: string, impersonate?: ImpersonatedPlatform): Promise<ShopConnection> {
      connectorFor('sandbox');
      const externalShopId = `sandbox-${randomBytes(6).toString('hex')}`;
      const saved = await repository.saveConnection({
        ownerId,
        platform: 'sandbox',
        externalShopId,
        name: `Sandbox shop ${externalShopId.slice(-4).toUpperCase()}${impersonate ? ` (as ${PLATFORM_LABELS[impersonate]})` : ''}`,
        tokens: null,
        scopes: '',
        settings: { openedAt: new Date().toISOString(), ...(impersonate ? { impersonate } : {}) },
      });
      if (saved === 'taken') throw new AppError('conflict', 'Could not create a sandbox shop; try again');
      await sync(saved.id, { listings: true, orders: false });
      return shopConnection(saved.id);
    },

    /** Starts OAuth: a 256-bit state and a PKCE verifier, bound to the seller, valid 10 minutes. */
    async startOAuth(
      ownerId: string,
      platform: string,
      redirectUri: string,
      shopHost: string | undefined,
    ): Promise<{ authorizeUrl: string }> {
      const oauth = connectors.oauth(platform);
      if (!oauth)
        throw new AppError(
          'bad-request',
          `${PLATFORM_LABELS[platform as Platform] ?? platform} cannot be connected by OAuth on this server`,
        );
      if (platform === 'shopify' && !shopHost)
        throw new AppError('bad-request', 'Enter your Shopify store domain first');
      if (oauth.deliversKeys && !shopHost)
        throw new AppError('bad-request', 'Enter your store address first');
      const state = randomBytes(32).toString('base64url');
      const codeVerifier = randomBytes(48).toString('base64url');
      const codeChallenge = createHash('sha256').update(codeVerifier).digest('base64url');
      await repository.insertState({
        state,
        ownerId,
        platform,
        codeVerifier,
        shopHost: shopHost ?? null,
        expiresAt: new Date(Date.now() + OAUTH_STATE_TTL_MS),
      });
      return {
        authorizeUrl: oauth.authorizeUrl({
          state,
          codeChallenge,
          redirectUri,
          ...(shopHost ? { shopHost } : {}),
          ...(oauth.deliversKeys
            ? { keyDeliveryUri: redirectUri.replace(/\/callback$/, '/key-delivery') }
            : {}),
        }),
      };
    },

    /**
     * The OAuth callback: the state must be this seller's, for this platform, unexpired and unused
     * (it is used up here, atomically); then the connector checks the rest and exchanges the code.
     * Nothing is stored unless all of that passes.
     */
    async completeOAuth(
      ownerId: string,
      platform: string,
      query: Record<string, string>,
      redirectUri: string,
    ): Promise<ShopConnection> {
      const oauth = connectors.oauth(platform);
      if (!oauth) throw new OAuthCallbackError('This marketplace cannot be connected on this server');
      if (query.error) throw new OAuthCallbackError(query.error_description || 'Access was not granted');
      const state = query.state;
      if (!state)
        throw new OAuthCallbackError('This connection request is not recognised; please start again');
      // Amazon's consent page answers spapi_oauth_code; the others, code.
      if (!query.code && !query.spapi_oauth_code)
        throw new OAuthCallbackError('The marketplace answered without an authorisation code');
      const consumed = await repository.consumeState(state, ownerId, platform);
      if (!consumed) {
        const known = await repository.findState(state);
        if (!known || known.ownerId !== ownerId || known.platform !== platform)
          throw new OAuthCallbackError('This connection request is not recognised; please start again');
        if (known.usedAt)
          throw new OAuthCallbackError('This connection request was already used; please start again');
        throw new OAuthCallbackError('This connection request expired; please start again');
      }
      let granted;
      try {
        granted = await oauth.completeAuthorization({
          query,
          codeVerifier: consumed.codeVerifier,
          redirectUri,
          ...(consumed.shopHost ? { shopHost: consumed.shopHost } : {}),
        });
      } catch (error) {
        if (error instanceof MarketplaceRejectedError)
          throw new OAuthCallbackError(`The marketplace refused the connection: ${error.message}`);
        throw error;
      }
      const saved = await saveGrant(ownerId, platform, granted);
      if (saved === 'taken')
        throw new OAuthCallbackError('That shop is already connected to another Layerline account');
      return shopConnection(saved);
    },

    /**
     * A marketplace connected with pasted keys (WooCommerce, Walmart): the connector checks them
     * with the marketplace first; nothing is stored unless it accepts them. Listings are imported
     * at once (a failure there leaves the shop connected, with the reason as its status).
     */
    async connectWithCredentials(
      ownerId: string,
      platform: string,
      values: Readonly<Record<string, string>>,
    ): Promise<ShopConnection> {
      const connector = connectors.credentials(platform);
      if (!connector)
        throw new AppError(
          'bad-request',
          `${PLATFORM_LABELS[platform as Platform] ?? platform} cannot be connected with keys on this server`,
        );
      const missing = connector.connectFields.filter((field) => !values[field.name]?.trim());
      if (missing.length > 0)
        throw new AppError('bad-request', `Fill in ${missing.map((field) => field.label).join(', ')}`);
      const known = new Set(connector.connectFields.map((field) => field.name));
      const unknown = Object.keys(values).filter((name) => !known.has(name));
      if (unknown.length > 0) throw new AppError('bad-request', `Unknown field ${unknown.join(', ')}`);
      let granted: ConnectionGrant;
      try {
        granted = await connector.connectWithCredentials(values);
      } catch (error) {
        if (error instanceof MarketplaceRejectedError)
          throw new AppError(
            'bad-request',
            `${PLATFORM_LABELS[platform as Platform]} refused these keys: ${error.message}`,
          );
        throw error;
      }
      const saved = await saveGrant(ownerId, platform, granted);
      if (saved === 'taken')
        throw new AppError('conflict', 'That shop is already connected to another Layerline account');
      await syncListingsAfterConnect(saved);
      return shopConnection(saved);
    },

    /**
     * WooCommerce's application authorisation: the store POSTs the new keys to us (no session; the
     * 256-bit state it echoes as user_id is the proof), before sending the seller back. The state is
     * used up here, whoever's it is; the keys are checked like pasted ones.
     */
    async completeKeyDelivery(
      platform: string,
      state: string,
      values: Readonly<Record<string, string>>,
    ): Promise<void> {
      const pending = await repository.findState(state);
      if (
        !pending ||
        pending.platform !== platform ||
        pending.usedAt ||
        pending.expiresAt.getTime() < Date.now()
      )
        throw new AppError('unauthenticated', 'This connection request is not recognised');
      if (!(await repository.consumeState(state, pending.ownerId, platform)))
        throw new AppError('unauthenticated', 'This connection request is not recognised');
      const connector = connectors.credentials(platform);
      if (!connector || !connectors.oauth(platform)?.deliversKeys)
        throw new AppError('unavailable', 'This marketplace cannot be connected on this server');
      const granted = await connector.connectWithCredentials({
        ...values,
        ...(pending.shopHost ? { storeUrl: pending.shopHost } : {}),
      });
      const saved = await saveGrant(pending.ownerId, platform, granted);
      if (saved === 'taken')
        throw new AppError('conflict', 'That shop is already connected to another Layerline account');
      await syncListingsAfterConnect(saved);
    },

    /** True for a marketplace that POSTs keys to key-delivery and then only sends the seller back (WooCommerce). */
    deliversKeys: (platform: string): boolean => connectors.oauth(platform)?.deliversKeys === true,

    /** Where WooCommerce sends the seller after the keys: connected when the keys arrived for this seller's state. */
    async keyDeliveryOutcome(
      ownerId: string,
      platform: string,
      state: string,
    ): Promise<'connected' | 'pending' | 'unknown'> {
      const known = await repository.findState(state);
      if (!known || known.ownerId !== ownerId || known.platform !== platform) return 'unknown';
      return known.usedAt ? 'connected' : 'pending';
    },

    /** Disconnects: revokes the marketplace grant where possible, then deletes the row (tokens, listings). */
    async disconnect(viewer: ShopViewer, shopId: string): Promise<void> {
      const row = await visibleShop(viewer, shopId);
      const connector = connectors.shop(row.platform);
      if (connector?.revoke && row.accessTokenEnc) {
        try {
          await connector.revoke(repository.credentials(row));
        } catch {
          // The tokens are deleted below whatever the marketplace answered; the grant expires on its side.
        }
      }
      await repository.delete(row.id);
      await audit.record({
        actorId: viewer.id,
        targetUserId: row.ownerId,
        action: 'shop.disconnect',
        detail: { platform: row.platform, shopId: row.id },
        requestId: viewer.requestId,
      });
    },

    async syncNow(viewer: ShopViewer, shopId: string): Promise<ShopSyncResult> {
      const row = await visibleShop(viewer, shopId);
      await auditIfForOther(viewer, row.ownerId, 'shop.synced-for-user', { shopId });
      try {
        return await sync(row.id, { listings: true, orders: true });
      } catch (error) {
        if (error instanceof MarketplaceRejectedError) {
          await repository.setStatus(row.id, 'error', error.message);
          throw new AppError('bad-request', `The marketplace refused: ${error.message}`);
        }
        throw error;
      }
    },

    /** Every shop of the seller, one after another (getMakerforgeListings/Orders ?refresh=true). */
    async syncOwner(ownerId: string, what: { listings: boolean; orders: boolean }): Promise<void> {
      for (const row of await repository.listForOwner(ownerId)) {
        if (row.status !== 'connected') continue;
        try {
          await sync(row.id, what);
        } catch (error) {
          if (error instanceof MarketplaceRejectedError)
            await repository.setStatus(row.id, 'error', error.message);
          // Other shops still sync; the periodic job retries this one.
        }
      }
    },

    async markError(shopId: string, message: string): Promise<void> {
      await repository.setStatus(shopId, 'error', message);
    },

    /** The sandbox: makes an order arrive now (sandbox connections only) and ingests it. */
    async simulateOrder(
      viewer: ShopViewer,
      shopId: string,
      includeUnmatched: boolean,
    ): Promise<{ orderId: string; created: boolean }> {
      const row = await visibleShop(viewer, shopId);
      const connector = connectors.shop(row.platform);
      if (row.platform !== 'sandbox' || !connector || !isSimulatingConnector(connector)) {
        throw new AppError('bad-request', 'Only a sandbox shop can simulate orders');
      }
      await auditIfForOther(viewer, row.ownerId, 'shop.order-simulated-for-user', { shopId });
      const sequence = Date.now();
      const order = await connector.simulateOrder(repository.credentials(row), {
        sequence,
        includeUnmatched,
      });
      return deps.ingestion.ingest({
        ownerId: row.ownerId,
        channel: row.id,
        shopId: row.id,
        platform: row.platform,
        order,
        actor: { kind: 'marketplace', id: null },
      });
    },

    async listings(
      ownerId: string,
      filter: {
        shopId: string | null;
        link: 'all' | 'unmatched' | 'linked';
        search: string;
        cursor?: string | undefined;
        limit: number;
      },
    ): Promise<ListingList> {
      const result = await repository.listListings({ ownerId, ...filter });
      return { items: result.items.map(listingDto), nextCursor: result.nextCursor, total: result.total };
    },

    async linkListing(viewer: ShopViewer, listingId: string, variantId: string): Promise<Listing> {
      const found = await repository.findListing(listingId);
      if (!found || (found.ownerId !== viewer.id && !viewer.isAdmin)) throw notFound('Listing');
      // The variant must be the listing owner's: another seller's variant is answered as missing.
      if (!(await repository.findOwnedVariant(found.ownerId, variantId))) throw notFound('Product variant');
      await repository.setListingLink(found.id, variantId, 'manual');
      await auditIfForOther(viewer, found.ownerId, 'listing.linked-for-user', { listingId, variantId });
      await deps.rematchOnHold(found.ownerId);
      const view = await repository.listingView(found.id);
      return listingDto(view!);
    },

    async unlinkListing(viewer: ShopViewer, listingId: string): Promise<Listing> {
      const found = await repository.findListing(listingId);
      if (!found || (found.ownerId !== viewer.id && !viewer.isAdmin)) throw notFound('Listing');
      await repository.setListingLink(found.id, null, null);
      await auditIfForOther(viewer, found.ownerId, 'listing.unlinked-for-user', { listingId });
      const view = await repository.listingView(found.id);
      return listingDto(view!);
    },

    /** After products change: link listings by SKU again and release what now matches. */
    async relinkOwner(ownerId: string): Promise<number> {
      const linked = await repository.autoLinkBySku(ownerId);
      await deps.rematchOnHold(ownerId);
      return linked;
    },

    async variantOptions(ownerId: string, search: string): Promise<VariantOption[]> {
      return repository.variantOptions(ownerId, search, 50);
    },
  };
}

export type ShopService = ReturnType<typeof createShopService>;
