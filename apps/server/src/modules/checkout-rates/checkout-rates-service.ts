import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CheckoutRate, CheckoutRatesList, CheckoutRatesPreview, CheckoutRatesPreviewInput, CheckoutRatesSettings, ShippingAddress } from '@layerline/contracts';
import { AppError, notFound } from '../../errors.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import type { CheckoutQuote } from '../shipping/checkout-quote.ts';
import type { PackedPart } from '../shipping/parcel-plan.ts';
import type { CheckoutRatesRepository, CheckoutRatesRow } from './checkout-rates-repository.ts';

export interface CheckoutRatesViewer {
  readonly id: string;
  readonly isAdmin: boolean;
  readonly requestId?: string;
}

/** A shop as checkout rates need it (the shops module). */
export interface CarrierServiceShop {
  readonly id: string;
  readonly ownerId: string;
  readonly name: string;
  readonly platform: string;
  readonly takesCarrierService: boolean;
}

/** A rate request as a marketplace's checkout asks it, translated (integrations/shopify). */
export interface CheckoutRateRequest {
  readonly destination: ShippingAddress;
  readonly items: readonly { sku: string; quantity: number; requiresShipping: boolean }[];
}

/** The vendor's side of the callback: its request body in, its answer out (integrations/shopify). */
export interface CarrierCallbackFormat {
  parse(body: unknown): CheckoutRateRequest;
  answer(rates: readonly CheckoutRate[]): unknown;
}

/** What the callback answers: rates (maybe none: the carrier service cannot ship this cart), or nothing in time. */
export type CallbackAnswer = { readonly status: 200; readonly body: unknown } | { readonly status: 404 | 503; readonly body: { error: string } };

/**
 * How long Shopify's checkout may wait for our rates before we answer 503 (its backup rates): well
 * under its shortest read timeout, 3 s (integrations/shopify/carrier-service-callback.md).
 */
export const CHECKOUT_RATES_BUDGET_MS = 2000;

const DAY_MS = 24 * 60 * 60 * 1000;
/** Shopify caches a successful answer for 15 minutes (its CarrierService description); so do we, per cart and destination. */
const CACHE_MS = 15 * 60 * 1000;
const CACHE_ENTRIES = 2000;

/**
 * Checkout rates (issue 24 point 6; docs/checkout-rates.md): a Shopify shop's checkout asks our
 * callback for shipping rates, and gets what shipping the cart will cost, quoted from the seller's
 * shipping profile. The callback URL carries a secret per shop and generation (derived from
 * APP_SECRET, checked in constant time), because Shopify's description of the callback names no
 * signature. The answer comes within a budget well under Shopify's shortest timeout (3 s); a quote
 * that takes longer answers 503, so Shopify shows the shop's backup rates, and fills the cache for
 * the next asking.
 */
export function createCheckoutRatesService(deps: {
  repository: CheckoutRatesRepository;
  audit: AuditRepository;
  appSecret: string;
  /** Where Shopify reaches this server (PUBLIC_URL); the callback URL starts with it. */
  publicUrl: string;
  shops: {
    carrierServiceShop(viewer: CheckoutRatesViewer | null, shopId: string): Promise<CarrierServiceShop | null>;
    shopsTakingCarrierService(ownerId: string): Promise<CarrierServiceShop[]>;
    registerCarrierService(shopId: string, service: { name: string; callbackUrl: string }): Promise<string>;
    removeCarrierService(shopId: string, carrierServiceId: string): Promise<void>;
  };
  partsOfSkus(ownerId: string, skus: readonly string[]): Promise<Map<string, PackedPart[]>>;
  quote(ownerId: string, to: ShippingAddress, parts: readonly PackedPart[]): Promise<CheckoutQuote | null>;
  shopify: CarrierCallbackFormat;
  /** How long a callback may take before it answers 503 (backup rates). */
  budgetMs: number;
  now?: () => Date;
  log?: { error(obj: unknown, msg?: string): void };
}) {
  const { repository, shops } = deps;
  const now = deps.now ?? (() => new Date());
  const key = createHmac('sha256', deps.appSecret).update('layerline:checkout-rates').digest();
  const tokenOf = (shopId: string, generation: number) => createHmac('sha256', key).update(`${shopId}:${generation}`).digest('base64url');
  const callbackUrlOf = (row: CheckoutRatesRow) => `${deps.publicUrl}/api/checkout-rates/shopify/${row.shopId}/${tokenOf(row.shopId, row.generation)}`;
  const cache = new Map<string, { at: number; rates: readonly CheckoutRate[]; reason: string }>();

  function settingsDto(shop: CarrierServiceShop, row: CheckoutRatesRow | undefined): CheckoutRatesSettings {
    const enabled = row?.enabled ?? false;
    return {
      shopId: shop.id,
      shopName: shop.name,
      platform: shop.platform,
      enabled,
      callbackUrl: row && enabled ? callbackUrlOf(row) : null,
      carrierServiceId: row?.carrierServiceId ?? null,
      registeredAt: row?.registeredAt?.toISOString() ?? null,
      lastError: row?.lastError ?? '',
    };
  }

  async function shopFor(viewer: CheckoutRatesViewer, shopId: string): Promise<CarrierServiceShop> {
    const shop = await shops.carrierServiceShop(viewer, shopId);
    if (!shop) throw notFound('Shop');
    if (!shop.takesCarrierService) throw new AppError('unprocessable', 'Checkout rates are for Shopify shops (or a sandbox shop acting as Shopify)');
    return shop;
  }

  const isoDay = (at: Date) => at.toISOString().slice(0, 10);

  /** Our quote as rates: a name and a stable code per carrier service, the price, and dates from handling + transit and the promise. */
  function ratesOf(quote: CheckoutQuote, at: Date): CheckoutRate[] {
    return quote.options.map((option) => {
      const days = option.transitDays === null ? null : quote.handlingDays + option.transitDays;
      const meetsPromise = days !== null && days <= quote.promiseDays;
      return {
        serviceName: `${option.carrier} ${option.service}`,
        serviceCode: `${option.carrierCode}:${option.serviceCode}`,
        description:
          days === null
            ? `Ships within ${quote.handlingDays} days`
            : meetsPromise
              ? `${quote.promiseLabel}: arrives within ${quote.promiseDays} days`
              : `Arrives in about ${days} days`,
        totalCents: option.amountCents,
        currency: option.currency,
        minDeliveryDate: days === null ? null : isoDay(new Date(at.getTime() + days * DAY_MS)),
        maxDeliveryDate: days === null ? null : isoDay(new Date(at.getTime() + (meetsPromise ? quote.promiseDays : days) * DAY_MS)),
      };
    });
  }

  /** The rates for a cart of the seller's SKUs (none, with the reason, when we cannot ship it all). */
  async function ratesFor(ownerId: string, request: CheckoutRateRequest): Promise<{ rates: readonly CheckoutRate[]; reason: string }> {
    const shipped = request.items.filter((item) => item.requiresShipping);
    if (shipped.length === 0) return { rates: [], reason: 'Nothing in the cart needs shipping' };
    const skus = [...new Set(shipped.map((item) => item.sku))];
    const cacheKey = JSON.stringify([ownerId, request.destination.country, request.destination.postalCode, request.destination.region, request.destination.city, shipped.map((i) => [i.sku, i.quantity]).sort()]);
    const cached = cache.get(cacheKey);
    if (cached && now().getTime() - cached.at < CACHE_MS) return cached;
    const parts = await deps.partsOfSkus(ownerId, skus);
    const missing = skus.filter((sku) => !parts.has(sku));
    let answer: { rates: readonly CheckoutRate[]; reason: string };
    if (missing.length > 0) {
      // Not all ours: another carrier service (or the shop's own rates) must ship this cart.
      answer = { rates: [], reason: `No product of yours has the SKU ${missing.map((sku) => `“${sku}”`).join(', ')}` };
    } else {
      const cart = shipped.flatMap((item) => Array.from({ length: item.quantity }, () => parts.get(item.sku)!).flat());
      const quote = await deps.quote(ownerId, request.destination, cart);
      answer = quote ? { rates: ratesOf(quote, now()), reason: '' } : { rates: [], reason: 'No parcel of your shipping profile takes this cart, or no carrier rated it' };
    }
    if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    cache.set(cacheKey, { ...answer, at: now().getTime() });
    return answer;
  }

  /** Races the quote against the budget; null when the budget ran out (the quote still fills the cache). */
  async function withinBudget<T>(work: Promise<T>): Promise<T | null> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), deps.budgetMs);
    });
    work.catch((error: unknown) => deps.log?.error({ err: error }, 'a checkout rate quote failed'));
    try {
      return await Promise.race([work, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    /** The seller's shops that take checkout rates, each with its settings. */
    async list(ownerId: string): Promise<CheckoutRatesList> {
      const owned = await shops.shopsTakingCarrierService(ownerId);
      return { items: await Promise.all(owned.map(async (shop) => settingsDto(shop, await repository.find(shop.id)))) };
    },

    async get(viewer: CheckoutRatesViewer, shopId: string): Promise<CheckoutRatesSettings> {
      const shop = await shopFor(viewer, shopId);
      return settingsDto(shop, await repository.find(shopId));
    },

    /**
     * Turns a shop's checkout rates on (registers our callback as its carrier service, with a fresh
     * secret) or off (removes it). A refused registration leaves them off, with the reason.
     */
    async setEnabled(viewer: CheckoutRatesViewer, shopId: string, enabled: boolean): Promise<CheckoutRatesSettings> {
      const shop = await shopFor(viewer, shopId);
      const before = await repository.find(shopId);
      if (before?.carrierServiceId) {
        // On again (a new secret) or off: the old registration goes either way.
        await shops.removeCarrierService(shopId, before.carrierServiceId);
        await repository.disable(shopId);
      }
      if (enabled) {
        const row = await repository.enable(shopId, shop.ownerId);
        try {
          const id = await shops.registerCarrierService(shopId, { name: 'Layerline shipping', callbackUrl: callbackUrlOf(row) });
          await repository.registered(shopId, id);
        } catch (error) {
          await repository.refused(shopId, (error as Error).message);
        }
      }
      if (viewer.isAdmin && viewer.id !== shop.ownerId)
        await deps.audit.record({ actorId: viewer.id, targetUserId: shop.ownerId, action: 'checkout-rates.set', detail: { shopId, enabled }, requestId: viewer.requestId });
      return settingsDto(shop, await repository.find(shopId));
    },

    /** The seller tries their checkout rates for a cart and a destination, as a checkout would get them. */
    async preview(viewer: CheckoutRatesViewer, shopId: string, input: CheckoutRatesPreviewInput): Promise<CheckoutRatesPreview> {
      const shop = await shopFor(viewer, shopId);
      const started = performance.now();
      const destination: ShippingAddress = {
        name: 'Checkout preview',
        company: '',
        line1: '',
        line2: '',
        city: input.destination.city,
        region: input.destination.region,
        postalCode: input.destination.postalCode,
        country: input.destination.country,
        phone: '',
        email: '',
      };
      const answer = await ratesFor(shop.ownerId, { destination, items: input.items.map((item) => ({ ...item, requiresShipping: true })) });
      return { rates: [...answer.rates], reason: answer.reason, elapsedMs: Math.round((performance.now() - started) * 10) / 10 };
    },

    /**
     * Shopify's rate request at checkout. An unknown shop, a wrong secret, or rates turned off: 404
     * (Shopify then uses backup rates). A body that is not Shopify's rate request: 400. Else rates
     * within the budget (maybe none: we cannot ship this cart), or 503 when the quote ran late.
     */
    async answerShopify(shopId: string, token: string, body: unknown): Promise<CallbackAnswer> {
      const row = /^[0-9a-f-]{36}$/i.test(shopId) ? await repository.find(shopId) : undefined;
      const expected = row ? Buffer.from(tokenOf(row.shopId, row.generation)) : null;
      const given = Buffer.from(token);
      if (!row || !row.enabled || !expected || expected.length !== given.length || !timingSafeEqual(expected, given))
        return { status: 404, body: { error: 'No checkout rates here' } };
      let request: CheckoutRateRequest;
      try {
        request = deps.shopify.parse(body);
      } catch (error) {
        throw new AppError('bad-request', (error as Error).message);
      }
      const answer = await withinBudget(ratesFor(row.ownerId, request));
      if (!answer) return { status: 503, body: { error: 'The rates took too long; Shopify shows the backup rates' } };
      return { status: 200, body: deps.shopify.answer(answer.rates) };
    },
  };
}

export type CheckoutRatesService = ReturnType<typeof createCheckoutRatesService>;
