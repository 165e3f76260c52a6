import { createHash, randomBytes } from 'node:crypto';
import type { ImpersonatedPlatform, ShippingAddress } from '@layerline/contracts';
import {
  MarketplaceRejectedError,
  type MarketplaceListing,
  type MarketplaceOrder,
  type ShopCredentials,
  type SimulatingConnector,
  type TrackingUpdate,
} from '../../modules/shops/connector.ts';

/**
 * The built-in sandbox shop: a simulated marketplace for demos, trying Layerline out, and tests.
 * Everything is deterministic given the shop id and the cursor:
 *
 * - the catalogue is fixed (SANDBOX_CATALOGUE), one listing's SKU deliberately matches nothing;
 * - the cursor is the number of the last order generated; each fetchOrders call returns the next
 *   order (`SBX-<1000+n>`), the previous one again (the overlap real marketplaces have), and on
 *   every 5th call the order before that again, now cancelled;
 * - orders numbered n % 6 === 0 contain the unmatched SKU, so they arrive on hold;
 * - an order is never placed in the future: order n is placed n minutes after the shop opened,
 *   or now when that minute has not come yet (a shop synced more often than once a minute);
 * - simulateOrder makes a new order arrive now (`SBX-SIM-<sequence>-<8 random characters>`: every
 *   call is a different order, however many run at once), without the unmatched SKU unless asked.
 */
export interface SandboxProduct {
  readonly listingId: string;
  readonly title: string;
  readonly variations: readonly { variantId: string; name: string; sku: string; priceCents: number }[];
}

export const SANDBOX_UNMATCHED_SKU = 'LL-MYSTERY-BOX';

export const SANDBOX_CATALOGUE: readonly SandboxProduct[] = [
  {
    listingId: '5100101',
    title: 'Twisted Spiral Vase',
    variations: [{ variantId: '', name: '', sku: 'LL-VASE-TWIST', priceCents: 2400 }],
  },
  {
    listingId: '5100102',
    title: 'Geometric Planter',
    variations: [
      { variantId: '7100201', name: 'Small', sku: 'LL-PLANTER-S', priceCents: 1800 },
      { variantId: '7100202', name: 'Medium', sku: 'LL-PLANTER-M', priceCents: 2600 },
      { variantId: '7100203', name: 'Large', sku: 'LL-PLANTER-L', priceCents: 3400 },
    ],
  },
  {
    listingId: '5100103',
    title: 'Articulated Dragon',
    variations: [{ variantId: '', name: '', sku: 'LL-DRAGON-ART', priceCents: 2900 }],
  },
  {
    listingId: '5100104',
    title: 'Cable Organiser (set of 4)',
    variations: [{ variantId: '', name: '', sku: 'LL-CABLE-ORG-4', priceCents: 1200 }],
  },
  {
    listingId: '5100105',
    title: 'Mystery Desk Toy',
    variations: [{ variantId: '', name: '', sku: SANDBOX_UNMATCHED_SKU, priceCents: 1500 }],
  },
];

/** The SKUs a seller can match (every catalogue SKU but the deliberately unmatched one). */
export const SANDBOX_MATCHABLE_SKUS: readonly string[] = SANDBOX_CATALOGUE.flatMap((p) =>
  p.variations.map((v) => v.sku),
).filter((sku) => sku !== SANDBOX_UNMATCHED_SKU);

const ALL_ITEMS = SANDBOX_CATALOGUE.flatMap((p) =>
  p.variations.map((v) => ({
    sku: v.sku,
    title: v.name ? `${p.title} – ${v.name}` : p.title,
    priceCents: v.priceCents,
  })),
);
const MATCHABLE_ITEMS = ALL_ITEMS.filter((item) => item.sku !== SANDBOX_UNMATCHED_SKU);
const UNMATCHED_ITEM = ALL_ITEMS.find((item) => item.sku === SANDBOX_UNMATCHED_SKU)!;

const BUYERS: readonly (Omit<ShippingAddress, 'company' | 'line2' | 'phone'> & { line2?: string })[] = [
  {
    name: 'Maya Thompson',
    line1: '1420 Larkin Street',
    city: 'San Francisco',
    region: 'CA',
    postalCode: '94109',
    country: 'US',
    email: 'maya.t@example.com',
  },
  {
    name: 'James Carter',
    line1: '88 Elm Avenue',
    line2: 'Apt 4B',
    city: 'Brooklyn',
    region: 'NY',
    postalCode: '11215',
    country: 'US',
    email: 'jcarter@example.com',
  },
  {
    name: 'Priya Patel',
    line1: '27 Kingsley Road',
    city: 'Manchester',
    region: '',
    postalCode: 'M14 6NB',
    country: 'GB',
    email: 'priya.patel@example.co.uk',
  },
  {
    name: 'Oliver Bennett',
    line1: '5 Harbour Lane',
    city: 'Bristol',
    region: '',
    postalCode: 'BS1 5TT',
    country: 'GB',
    email: 'o.bennett@example.co.uk',
  },
  {
    name: 'Lena Fischer',
    line1: 'Kastanienallee 12',
    city: 'Berlin',
    region: 'BE',
    postalCode: '10435',
    country: 'DE',
    email: 'lena.fischer@example.de',
  },
  {
    name: 'Jonas Weber',
    line1: 'Sendlinger Straße 45',
    city: 'München',
    region: 'BY',
    postalCode: '80331',
    country: 'DE',
    email: 'jonas.weber@example.de',
  },
  {
    name: 'Sofia Martinez',
    line1: '3100 Congress Avenue',
    city: 'Austin',
    region: 'TX',
    postalCode: '78701',
    country: 'US',
    email: 'sofia.m@example.com',
  },
];

/** A deterministic stream of numbers from a seed (SHA-256 in counter mode). */
function numbers(seed: string): () => number {
  let counter = 0;
  let buffer = Buffer.alloc(0);
  return () => {
    if (buffer.length < 4) {
      buffer = createHash('sha256').update(`${seed}:${counter++}`).digest();
    }
    const value = buffer.readUInt32BE(0);
    buffer = buffer.subarray(4);
    return value;
  };
}

const EPOCH = Date.UTC(2025, 0, 1);
const CURRENCY_BY_COUNTRY: Record<string, string> = { US: 'USD', GB: 'GBP', DE: 'EUR' };

/** The sandbox's order for (shop, key): same input, same order. */
export function sandboxOrder(
  shopId: string,
  externalId: string,
  options: { includeUnmatched: boolean; placedAt: Date; cancelled?: boolean },
): MarketplaceOrder {
  const next = numbers(`${shopId}:${externalId}`);
  const buyer = BUYERS[next() % BUYERS.length]!;
  const count = 1 + (next() % 3);
  const picked = new Map<string, { sku: string; title: string; priceCents: number; quantity: number }>();
  for (let i = 0; i < count; i++) {
    const item = MATCHABLE_ITEMS[next() % MATCHABLE_ITEMS.length]!;
    const existing = picked.get(item.sku);
    if (existing) existing.quantity += 1;
    else picked.set(item.sku, { ...item, quantity: 1 + (next() % 4 === 0 ? 1 : 0) });
  }
  if (options.includeUnmatched) picked.set(UNMATCHED_ITEM.sku, { ...UNMATCHED_ITEM, quantity: 1 });
  const items = [...picked.values()].map((item, index) => ({
    externalItemId: `${externalId}-${index + 1}`,
    sku: item.sku,
    title: item.title,
    quantity: item.quantity,
    unitPriceCents: item.priceCents,
  }));
  return {
    externalId,
    placedAt: options.placedAt,
    customerName: buyer.name,
    shippingAddress: { company: '', line2: '', phone: '', ...buyer },
    currency: CURRENCY_BY_COUNTRY[buyer.country] ?? 'USD',
    totalCents: items.reduce((sum, item) => sum + item.quantity * (item.unitPriceCents ?? 0), 0),
    cancelled: options.cancelled ?? false,
    items,
  };
}

/**
 * Order number n of a shop's stream, placed n minutes after the shop opened (the connection's
 * `settings.openedAt`, else 2025-01-01), but never after `now`.
 */
export function sandboxStreamOrder(
  shopId: string,
  n: number,
  cancelled = false,
  openedAt = EPOCH,
  now: number = Date.now(),
): MarketplaceOrder {
  return sandboxOrder(shopId, `SBX-${1000 + n}`, {
    includeUnmatched: n % 6 === 0,
    placedAt: new Date(Math.min(openedAt + n * 60_000, now)),
    cancelled,
  });
}

function openedAtOf(credentials: ShopCredentials): number {
  const value = credentials.settings.openedAt;
  const time = typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isFinite(time) ? time : EPOCH;
}

/**
 * Turns a sandbox order into a marketplace's own payload and back through that marketplace's
 * mapping (integrations/<platform>/<platform>-sandbox-order.ts), so a sandbox shop that
 * impersonates it exercises the same parsing as a real shop. `sequence` is stable per order.
 */
export type SandboxImpersonator = (order: MarketplaceOrder, sequence: number) => MarketplaceOrder;

/** A stable number for an order id (the impersonated marketplace's order number is built from it). */
function sequenceOf(externalId: string): number {
  return createHash('sha256').update(externalId).digest().readUInt32BE(0);
}

export function createSandboxConnector(
  options: {
    now?: () => number;
    impersonators?: Partial<Record<ImpersonatedPlatform, SandboxImpersonator>>;
  } = {},
): SimulatingConnector & {
  readonly shipped: Map<string, TrackingUpdate>;
  readonly closed: Set<string>;
} {
  const now = options.now ?? Date.now;
  /** The order as the impersonated marketplace would deliver it (the shop's settings.impersonate), else as is. */
  const asDelivered = (credentials: ShopCredentials, order: MarketplaceOrder): MarketplaceOrder => {
    const platform = credentials.settings.impersonate as ImpersonatedPlatform | undefined;
    const impersonate = platform ? options.impersonators?.[platform] : undefined;
    return impersonate
      ? impersonate(order, sequenceOf(`${credentials.externalShopId}:${order.externalId}`))
      : order;
  };
  /** Tracking pushed to the sandbox, by '<shop>:<order>' (in memory: the sandbox has no back end). */
  const shipped = new Map<string, TrackingUpdate>();
  /** Orders the buyer or the marketplace closed ('<shop>:<order>'): they refuse tracking, as Etsy does for a closed receipt. */
  const closed = new Set<string>();
  return {
    platform: 'sandbox',
    shipped,
    closed,

    async listListings(credentials: ShopCredentials): Promise<MarketplaceListing[]> {
      const shop = credentials.externalShopId;
      return SANDBOX_CATALOGUE.flatMap((product) =>
        product.variations.map((variation) => ({
          externalListingId: product.listingId,
          externalVariantId: variation.variantId,
          title: variation.name ? `${product.title} – ${variation.name}` : product.title,
          sku: variation.sku,
          priceCents: variation.priceCents,
          currency: 'USD',
          url: `https://sandbox.layerline.invalid/${shop}/listing/${product.listingId}`,
          imageUrl: null,
        })),
      );
    },

    async fetchOrders(
      credentials: ShopCredentials,
      cursor: string | null,
    ): Promise<{ orders: MarketplaceOrder[]; nextCursor: string }> {
      const shop = credentials.externalShopId;
      const opened = openedAtOf(credentials);
      const last = cursor && /^\d+$/.test(cursor) ? Number(cursor) : 0;
      const n = last + 1;
      const at = now();
      const orders: MarketplaceOrder[] = [];
      if (last >= 1) orders.push(sandboxStreamOrder(shop, last, false, opened, at)); // the overlap: delivered again
      orders.push(sandboxStreamOrder(shop, n, false, opened, at));
      if (n % 5 === 0 && n - 2 >= 1) orders.push(sandboxStreamOrder(shop, n - 2, true, opened, at)); // the buyer cancelled
      return { orders: orders.map((order) => asDelivered(credentials, order)), nextCursor: String(n) };
    },

    /**
     * A sandbox shop impersonating Shopify has a carrier service as Shopify would (an id like
     * Shopify's), so checkout rates can be tried without a Shopify plan; the callback is then
     * called by hand (the checkout-rates page's preview) rather than by a checkout.
     */
    async registerCarrierService(credentials: ShopCredentials, service: { name: string; callbackUrl: string }): Promise<string> {
      if (credentials.settings.impersonate !== 'shopify')
        throw new MarketplaceRejectedError('Checkout rates are for Shopify shops (or a sandbox shop acting as Shopify)', 422);
      return `gid://shopify/DeliveryCarrierService/${createHash('sha256').update(`${credentials.externalShopId}:${service.callbackUrl}`).digest('hex').slice(0, 12)}`;
    },

    async removeCarrierService(): Promise<void> {
      // Nothing is kept for a sandbox carrier service: removing it always succeeds.
    },

    async pushTracking(
      credentials: ShopCredentials,
      externalOrderId: string,
      tracking: TrackingUpdate,
    ): Promise<void> {
      const key = `${credentials.externalShopId}:${externalOrderId}`;
      if (closed.has(key))
        throw new MarketplaceRejectedError(
          'The order is closed on the marketplace; it takes no tracking',
          400,
        );
      shipped.set(key, tracking);
    },

    async simulateOrder(
      credentials: ShopCredentials,
      options: { sequence: number; includeUnmatched: boolean },
    ): Promise<MarketplaceOrder> {
      // The sequence is the caller's clock: two simulations in one millisecond share it, so a random
      // suffix keeps them two orders (with one id, the second would be a duplicate of the first).
      const unique = randomBytes(6).toString('base64url');
      const order = sandboxOrder(credentials.externalShopId, `SBX-SIM-${options.sequence}-${unique}`, {
        includeUnmatched: options.includeUnmatched,
        placedAt: new Date(now()),
      });
      return asDelivered(credentials, order);
    },
  };
}
