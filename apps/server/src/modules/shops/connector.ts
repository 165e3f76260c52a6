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
export function pollSinceMs(
  cursor: string | null,
  nowMs: number,
  firstSyncLookbackMs: number,
  overlapMs: number,
): number {
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
  fetchOrders(
    credentials: ShopCredentials,
    cursor: string | null,
  ): Promise<{
    orders: MarketplaceOrder[];
    nextCursor: string;
    /** Orders of the poll that could not be read (MalformedOrderError): skipped, and shown on the shop. */
    failed?: readonly { externalId: string; reason: string }[];
  }>;
  /** Marks the order shipped on the marketplace with its tracking number (Etsy: createReceiptShipment). */
  pushTracking(
    credentials: ShopCredentials,
    externalOrderId: string,
    tracking: TrackingUpdate,
  ): Promise<void>;
  /**
   * One order by the marketplace's id, for webhooks that carry only the id (TikTok Shop); null when
   * the marketplace does not know it.
   */
  fetchOrder?(credentials: ShopCredentials, externalOrderId: string): Promise<MarketplaceOrder | null>;
  /** Gets a new access token when the current one has expired (OAuth marketplaces). */
  refreshTokens?(credentials: ShopCredentials): Promise<RefreshedTokens>;
  /** Revokes the marketplace's grant when a seller disconnects, where the marketplace supports it. */
  revoke?(credentials: ShopCredentials): Promise<void>;
  /**
   * Subscribes the shop's order (and uninstall) webhooks to our callback URL, right after it is
   * connected. Subscriptions that already exist are fine.
   */
  subscribeWebhooks?(credentials: ShopCredentials, callbackUrl: string): Promise<void>;
  /**
   * Registers our checkout-rates callback as the shop's carrier service (Shopify's CarrierService),
   * so the marketplace asks us for shipping rates at checkout. Answers the carrier service's id.
   */
  registerCarrierService?(credentials: ShopCredentials, service: { name: string; callbackUrl: string }): Promise<string>;
  /** Removes a carrier service registered above; one already gone is fine. */
  removeCarrierService?(credentials: ShopCredentials, carrierServiceId: string): Promise<void>;
}

/** The OAuth side of a marketplace that uses it (Etsy, Shopify). */
export interface OAuthConnector {
  readonly platform: Platform;
  /**
   * Where to send the seller to approve access. `shopHost` is the Shopify store domain, or the
   * WooCommerce store's address; `keyDeliveryUri` is where a marketplace that hands over API keys
   * instead of a code (WooCommerce) POSTs them.
   */
  authorizeUrl(input: {
    state: string;
    codeChallenge: string;
    redirectUri: string;
    shopHost?: string;
    keyDeliveryUri?: string;
  }): string;
  /**
   * True when the marketplace POSTs keys to `keyDeliveryUri` (CredentialConnector values) and then
   * only sends the seller back, so completeAuthorization is never called.
   */
  readonly deliversKeys?: boolean;
  /** Checks the callback (state is checked by the caller; Shopify: HMAC and host) and exchanges the code. */
  completeAuthorization(input: {
    query: Readonly<Record<string, string>>;
    codeVerifier: string;
    redirectUri: string;
    shopHost?: string;
  }): Promise<ConnectionGrant>;
}

/** What a completed connection hands to the shops module to store (tokens encrypted, settings in clear). */
export interface ConnectionGrant {
  readonly externalShopId: string;
  readonly shopName: string;
  /** Secrets: the access token and what renews it (a refresh token, or pasted API keys). */
  readonly tokens: RefreshedTokens;
  readonly scopes: string;
  /** Non-secret per-connection settings (a store address, a region, a seller id). */
  readonly settings: Record<string, unknown>;
}

/** A value the seller types to connect: a store address, an API key. */
export interface ConnectField {
  readonly name: string;
  readonly label: string;
  /** Shown as a password field and never echoed back. */
  readonly secret: boolean;
  readonly placeholder?: string;
  readonly help?: string;
}

/**
 * A marketplace connected with values the seller pastes (WooCommerce REST keys, Walmart client
 * credentials) instead of, or besides, an OAuth redirect.
 */
export interface CredentialConnector {
  readonly platform: Platform;
  readonly connectFields: readonly ConnectField[];
  /**
   * Checks the values with one authenticated call to the marketplace and returns the connection.
   * Bad values: MarketplaceRejectedError with a message fit for the seller.
   */
  connectWithCredentials(values: Readonly<Record<string, string>>): Promise<ConnectionGrant>;
}

/** A marketplace payload that cannot be read as an order: stored as a failed delivery with this reason. */
export class MalformedOrderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedOrderError';
  }
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
  simulateOrder(
    credentials: ShopCredentials,
    options: { sequence: number; includeUnmatched: boolean },
  ): Promise<MarketplaceOrder>;
}

export function isSimulatingConnector(connector: ShopConnector): connector is SimulatingConnector {
  return typeof (connector as Partial<SimulatingConnector>).simulateOrder === 'function';
}
