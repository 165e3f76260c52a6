import type { Platform, ShippingAddress } from '@layerline/contracts';

/**
 * The one interface a marketplace module implements (integrations/<platform>/). The shops and
 * orders modules talk only to this; what a marketplace calls a receipt, an order or a purchase
 * order is translated inside its module.
 */
export interface ShopCredentials {
  readonly externalShopId: string;
  readonly accessToken: string | null;
  readonly refreshToken: string | null;
  readonly tokenExpiresAt: Date | null;
  /** Per-connection settings the module stored at connect time (e.g. the Shopify shop domain). */
  readonly settings: Readonly<Record<string, unknown>>;
}

export interface MarketplaceListing {
  readonly externalListingId: string;
  /** The variation's id, or '' for a listing without variations. */
  readonly externalVariantId: string;
  readonly title: string;
  readonly sku: string;
  readonly priceCents: number | null;
  readonly currency: string | null;
  readonly url: string | null;
  readonly imageUrl: string | null;
}

export interface MarketplaceOrder {
  readonly externalId: string;
  readonly placedAt: Date;
  readonly customerName: string;
  readonly shippingAddress: ShippingAddress;
  readonly currency: string;
  readonly totalCents: number | null;
  /** The marketplace cancelled or refunded it before we shipped. */
  readonly cancelled: boolean;
  /** A note for the print farm (a manual order's note, a buyer's message). */
  readonly note?: string;
  readonly items: readonly {
    externalItemId: string;
    sku: string;
    title: string;
    quantity: number;
    unitPriceCents: number | null;
  }[];
}

/**
 * Where an order poll starts (ms since the epoch): the first poll (no cursor, or one that does
 * not parse) looks back `firstSyncLookbackMs` from `nowMs`; later polls start `overlapMs` before
 * the cursor, so an order changed while the previous poll paged is not missed.
 */
export function pollSinceMs(cursor: string | null, nowMs: number, firstSyncLookbackMs: number, overlapMs: number): number {
  const cursorMs = cursor === null ? Number.NaN : Date.parse(cursor);
  return Number.isNaN(cursorMs) ? nowMs - firstSyncLookbackMs : cursorMs - overlapMs;
}

export interface TrackingUpdate {
  readonly trackingNumber: string;
  /** Carrier name as the marketplace knows it (Etsy: usps, ups, fedex…). */
  readonly carrierName: string;
}

/** New tokens after a refresh; the shops module stores them (encrypted) before using them. */
export interface RefreshedTokens {
  readonly accessToken: string;
  readonly refreshToken: string | null;
  readonly tokenExpiresAt: Date | null;
}

export interface ShopConnector {
  readonly platform: Platform;
  /** Every active listing (and variation) with its SKU. */
  listListings(credentials: ShopCredentials): Promise<MarketplaceListing[]>;
  /**
   * Orders created or changed since the cursor (null: the first sync). The cursor overlaps the
   * previous window on purpose; ingestion is idempotent, so repeats change nothing.
   */
  fetchOrders(credentials: ShopCredentials, cursor: string | null): Promise<{ orders: MarketplaceOrder[]; nextCursor: string }>;
  /** Marks the order shipped on the marketplace with its tracking number (Etsy: createReceiptShipment). */
  pushTracking(credentials: ShopCredentials, externalOrderId: string, tracking: TrackingUpdate): Promise<void>;
  /** Gets a new access token when the current one has expired (OAuth marketplaces). */
  refreshTokens?(credentials: ShopCredentials): Promise<RefreshedTokens>;
  /** Revokes the marketplace's grant when a seller disconnects, where the marketplace supports it. */
  revoke?(credentials: ShopCredentials): Promise<void>;
  /**
   * Subscribes the shop's order (and uninstall) webhooks to our callback URL, right after it is
   * connected. Subscriptions that already exist are fine.
   */
  subscribeWebhooks?(credentials: ShopCredentials, callbackUrl: string): Promise<void>;
}

/** The OAuth side of a marketplace that uses it (Etsy, Shopify). */
export interface OAuthConnector {
  readonly platform: Platform;
  /** Where to send the seller to approve access. `shopHost` is the Shopify store domain. */
  authorizeUrl(input: { state: string; codeChallenge: string; redirectUri: string; shopHost?: string }): string;
  /** Checks the callback (state is checked by the caller; Shopify: HMAC and host) and exchanges the code. */
  completeAuthorization(input: {
    query: Readonly<Record<string, string>>;
    codeVerifier: string;
    redirectUri: string;
    shopHost?: string;
  }): Promise<{ externalShopId: string; shopName: string; tokens: RefreshedTokens; scopes: string; settings: Record<string, unknown> }>;
}

/** The marketplace refused for a reason a retry will not fix (bad request, revoked grant). */
export class MarketplaceRejectedError extends Error {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.name = 'MarketplaceRejectedError';
    this.status = status;
  }
}

/** The marketplace asked us to slow down, or was unavailable: retry after the given delay. */
export class MarketplaceUnavailableError extends Error {
  readonly retryAfterSeconds: number | null;
  constructor(message: string, retryAfterSeconds: number | null) {
    super(message);
    this.name = 'MarketplaceUnavailableError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * A simulated marketplace (the sandbox shop) can also make an order arrive now, for demos and
 * tests. `sequence` makes the order deterministic; `includeUnmatched` adds the catalogue's SKU
 * that no product has.
 */
export interface SimulatingConnector extends ShopConnector {
  simulateOrder(credentials: ShopCredentials, options: { sequence: number; includeUnmatched: boolean }): Promise<MarketplaceOrder>;
}

export function isSimulatingConnector(connector: ShopConnector): connector is SimulatingConnector {
  return typeof (connector as Partial<SimulatingConnector>).simulateOrder === 'function';
}
