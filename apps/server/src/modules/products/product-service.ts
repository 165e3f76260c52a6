import { productInputSchema, type PriceTable, type Product, type ProductInput, type ProductList } from '@layerline/contracts';
import { AppError, notFound } from '../../errors.ts';
import type { AuditRepository } from '../audit/audit-repository.ts';
import { quoteOf } from '../designs/design-dto.ts';
import type { ProductRecord, ProductRepository, ProductWriteResult, VariantBySku } from './product-repository.ts';

/** Who acts: the signed-in user, and whether they are an admin (admins reach every seller's products). */
export interface Actor {
  readonly id: string;
  readonly isAdmin: boolean;
  readonly requestId: string;
}

export interface ProductServiceDeps {
  readonly products: ProductRepository;
  /** The current price table (the quotes module's), so a variant's cost follows the designs' quotes. */
  readonly prices: { get(): Promise<PriceTable> };
  readonly audit: AuditRepository;
  /** Only changes the wording of an estimate's basis note; the cost is the same either way. */
  readonly slicerAvailable: boolean;
  /** New or changed SKUs: listings may now link by SKU, and orders on hold for them may go ahead. */
  readonly onSkusChanged: (ownerId: string) => Promise<unknown>;
}

const cents = (usd: number): number => Math.round(usd * 100) / 100;

/**
 * Prices a stored product with the designs module's own quote of each part's configuration:
 * a part costs its configuration's quote for one piece; a variant costs the sum of its parts'
 * quotes × their quantities, or null while any part has no quote yet.
 */
export function toProductDto(record: ProductRecord, table: PriceTable, slicerAvailable: boolean): Product {
  const p = record.product;
  return {
    id: p.id,
    ownerId: p.ownerId,
    name: p.name,
    description: p.description,
    variants: record.variants.map((v) => {
      const parts = v.parts.map((part) => ({
        printConfigId: part.printConfigId,
        designId: part.design.id,
        designName: part.design.name,
        configName: part.config.name,
        quantity: part.quantity,
        unitCostUsd: quoteOf(part.config, part.design, table, slicerAvailable)?.costUsd ?? null,
      }));
      const priced = parts.every((part) => part.unitCostUsd !== null);
      return {
        id: v.id,
        name: v.name,
        sku: v.sku,
        packaging: v.packaging,
        parts,
        unitCostUsd: priced ? cents(parts.reduce((sum, part) => sum + (part.unitCostUsd ?? 0) * part.quantity, 0)) : null,
        linkedListings: v.linkedListings,
      };
    }),
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

/** A refused write, in words the seller understands. */
function refusal(result: Exclude<ProductWriteResult, { ok: true }>): AppError {
  switch (result.reason) {
    case 'sku-taken':
      return new AppError('conflict', `SKU “${result.sku}” is already used by your product “${result.productName}”. Each SKU may belong to one variant only.`);
    case 'print-config-missing':
      return new AppError('not-found', `Print configuration ${result.printConfigId} not found among this seller’s designs`);
    case 'variant-missing':
      return new AppError('bad-request', `Variant ${result.variantId} is not a variant of this product`);
    case 'product-missing':
      return notFound('Product');
  }
}

export function createProductService(deps: ProductServiceDeps) {
  const { products, prices, audit, slicerAvailable, onSkusChanged } = deps;

  async function visible(actor: Actor, productId: string): Promise<ProductRecord> {
    const found = await products.find(productId);
    // Another seller's product answers exactly like a missing one.
    if (!found || (found.product.ownerId !== actor.id && !actor.isAdmin)) throw notFound('Product');
    return found;
  }

  async function dto(actor: Actor, productId: string): Promise<Product> {
    return toProductDto(await visible(actor, productId), await prices.get(), slicerAvailable);
  }

  /** SKUs repeated inside one product cannot be told apart on a marketplace either. */
  function validated(input: ProductInput): ProductInput {
    const parsed = productInputSchema.parse(input);
    const seen = new Set<string>();
    for (const variant of parsed.variants) {
      if (seen.has(variant.sku)) throw new AppError('conflict', `SKU “${variant.sku}” is used by two variants of this product. Each variant needs its own SKU.`);
      seen.add(variant.sku);
    }
    const ids = parsed.variants.flatMap((v) => (v.id ? [v.id] : []));
    if (new Set(ids).size !== ids.length) throw new AppError('bad-request', 'A variant id appears twice');
    return parsed;
  }

  async function auditForOther(actor: Actor, ownerId: string, action: string, detail: Record<string, unknown>): Promise<void> {
    if (actor.id === ownerId) return;
    await audit.record({ actorId: actor.id, targetUserId: ownerId, action, detail, requestId: actor.requestId });
  }

  return {
    async list(
      actor: Actor,
      query: { ownerId: string; search: string; cursor?: string | undefined; limit: number },
    ): Promise<ProductList> {
      if (query.ownerId !== actor.id && !actor.isAdmin) throw new AppError('forbidden', 'Only admins may act for another user');
      const [{ items, nextCursor, total }, table] = await Promise.all([products.list(query), prices.get()]);
      await auditForOther(actor, query.ownerId, 'product.listed-for-user', { search: query.search });
      return { items: items.map((item) => toProductDto(item, table, slicerAvailable)), nextCursor, total };
    },

    get: dto,

    async create(actor: Actor, ownerId: string, input: ProductInput): Promise<Product> {
      if (ownerId !== actor.id && !actor.isAdmin) throw new AppError('forbidden', 'Only admins may act for another user');
      const parsed = validated(input);
      if (parsed.variants.some((v) => v.id !== undefined)) throw new AppError('bad-request', 'A new product’s variants cannot carry ids');
      const result = await products.create(ownerId, parsed);
      if (!result.ok) throw refusal(result);
      await auditForOther(actor, ownerId, 'product.created-for-user', { productId: result.id, name: parsed.name });
      await onSkusChanged(ownerId);
      return dto(actor, result.id);
    },

    /** Replaces name, description and variants; variants sent with their id keep it (and their listings). */
    async update(actor: Actor, productId: string, input: ProductInput): Promise<Product> {
      const current = await visible(actor, productId);
      const parsed = validated(input);
      const result = await products.replace(productId, current.product.ownerId, parsed);
      if (!result.ok) throw refusal(result);
      await auditForOther(actor, current.product.ownerId, 'product.updated-for-user', { productId, name: parsed.name });
      await onSkusChanged(current.product.ownerId);
      return dto(actor, productId);
    },

    async delete(actor: Actor, productId: string): Promise<void> {
      const current = await visible(actor, productId);
      if (!(await products.delete(productId))) return;
      await auditForOther(actor, current.product.ownerId, 'product.deleted-for-user', { productId, name: current.product.name });
    },

    countForOwner: products.countForOwner,

    /** For the designs module: products that would lose a part if this design or configuration were deleted. */
    productsUsing: products.productsUsing,

    /** For order matching: the seller's variants by SKU (exact after trimming). */
    findVariantsBySkus(ownerId: string, skus: readonly string[]): Promise<Map<string, VariantBySku>> {
      return products.findVariantsBySkus(ownerId, skus);
    },

    /**
     * What one unit of each of the seller's SKUs puts in a parcel (checkout rates, issue 24): each
     * printed part's bounding box and grams (the farm's figure, else the slice, else the estimate),
     * repeated by its quantity. A SKU that is not one of the seller's variants is left out.
     */
    async packedPartsOfSkus(ownerId: string, skus: readonly string[]): Promise<Map<string, { sizeMm: { x: number; y: number; z: number }; grams: number }[]>> {
      const bySku = await products.findVariantsBySkus(ownerId, skus);
      const skuOf = new Map([...bySku].map(([sku, variant]) => [variant.variantId, sku]));
      const parts = new Map<string, { sizeMm: { x: number; y: number; z: number }; grams: number }[]>();
      for (const record of await products.findByVariantIds([...skuOf.keys()])) {
        for (const variant of record.variants) {
          const sku = skuOf.get(variant.id);
          if (sku === undefined) continue;
          parts.set(
            sku,
            variant.parts.flatMap((part) => {
              const [x, y, z] = part.design.bboxMm ?? [0, 0, 0];
              const grams = (part.config.adminCost ?? part.config.sliced ?? part.config.estimate)?.grams ?? 0;
              return Array.from({ length: part.quantity }, () => ({ sizeMm: { x, y, z }, grams }));
            }),
          );
        }
      }
      return parts;
    },

    /**
     * Each variant's quoted unit cost in USD and whether every part's quote is exact (sliced, or set by
     * the farm) rather than estimated from the geometry; null while a part has no quote.
     */
    async unitQuotesOf(variantIds: readonly string[]): Promise<Map<string, { costUsd: number; exact: boolean } | null>> {
      const table = await prices.get();
      const quotes = new Map<string, { costUsd: number; exact: boolean } | null>();
      for (const record of await products.findByVariantIds(variantIds)) {
        for (const variant of record.variants) {
          const parts = variant.parts.map((part) => ({ part, quote: quoteOf(part.config, part.design, table, slicerAvailable) }));
          const priced = parts.every(({ quote }) => quote !== null);
          quotes.set(
            variant.id,
            priced
              ? {
                  costUsd: cents(parts.reduce((sum, { part, quote }) => sum + quote!.costUsd * part.quantity, 0)),
                  exact: parts.every(({ quote }) => quote!.basis !== 'estimate'),
                }
              : null,
          );
        }
      }
      return quotes;
    },
  };
}

export type ProductService = ReturnType<typeof createProductService>;
