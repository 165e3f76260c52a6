import { and, asc, count, desc, eq, ilike, inArray, ne, or, sql } from 'drizzle-orm';
import type { ProductInput } from '@layerline/contracts';
import type { Database } from '../../db/client.ts';
import { namedStatement } from '../../db/named-statement.ts';
import { design, listing, printConfiguration, product, productVariant, variantPart } from '../../db/schema.ts';
import { pageFrom } from '../../platform/keyset-cursor.ts';
import { beforeTimeId, decodeTimeIdCursor, microsOf, timeIdKey } from '../../platform/time-id-keyset.ts';
import { isUniqueViolation } from '../../db/unique-violation.ts';

export type ProductRow = typeof product.$inferSelect;
export type VariantRow = typeof productVariant.$inferSelect;
type PrintConfigRow = typeof printConfiguration.$inferSelect;
type DesignRow = typeof design.$inferSelect;

/** One printed part of a variant, with the configuration and design it is printed from (for pricing). */
export interface PartRecord {
  readonly id: string;
  readonly printConfigId: string;
  readonly quantity: number;
  readonly config: PrintConfigRow;
  readonly design: DesignRow;
}

export interface VariantRecord extends VariantRow {
  readonly parts: PartRecord[];
  /** Marketplace listings linked to this variant. */
  readonly linkedListings: number;
}

export interface ProductRecord {
  readonly product: ProductRow;
  readonly variants: VariantRecord[];
}

/** What a variant of one SKU is, for the orders module's matching. */
export interface VariantBySku {
  readonly variantId: string;
  readonly productName: string;
  readonly variantName: string;
}

/** Why a write was refused; nothing was written. */
export type ProductWriteFailure =
  | { readonly reason: 'sku-taken'; readonly sku: string; readonly productName: string }
  | { readonly reason: 'print-config-missing'; readonly printConfigId: string }
  | { readonly reason: 'variant-missing'; readonly variantId: string }
  | { readonly reason: 'product-missing' };

export type ProductWriteResult = { readonly ok: true; readonly id: string } | ({ readonly ok: false } & ProductWriteFailure);

/** Thrown inside a transaction to roll it back; turned into a ProductWriteResult before leaving here. */
class WriteRefused extends Error {
  readonly failure: ProductWriteFailure;
  constructor(failure: ProductWriteFailure) {
    super(failure.reason);
    this.failure = failure;
  }
}

type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Products, their variants and each variant's printed parts. A product is always written whole,
 * in one transaction: either every variant and part is stored or nothing is.
 */
export function createProductRepository(db: Database) {
  // Every ingested order matches its SKUs here: prepared once per connection (db/named-statement.ts).
  const variantsBySkus = namedStatement<{ sku: string; variantId: string; variantName: string; productName: string }>(
    db,
    'product_variants_by_skus',
    `SELECT v.sku, v.id::text AS "variantId", v.name AS "variantName", p.name AS "productName"
     FROM product_variant v JOIN product p ON p.id = v.product_id
     WHERE v.owner_id = $1::text AND v.sku = ANY($2::text[])`,
  );
  async function hydrate(rows: ProductRow[]): Promise<ProductRecord[]> {
    if (rows.length === 0) return [];
    const variants = await db
      .select()
      .from(productVariant)
      .where(inArray(productVariant.productId, rows.map((row) => row.id)))
      .orderBy(asc(productVariant.createdAt), asc(productVariant.id));
    const variantIds = variants.map((v) => v.id);
    const [parts, linked] =
      variantIds.length === 0
        ? [[], []]
        : await Promise.all([
            db
              .select({ part: variantPart, config: printConfiguration, design })
              .from(variantPart)
              .innerJoin(printConfiguration, eq(printConfiguration.id, variantPart.printConfigId))
              .innerJoin(design, eq(design.id, printConfiguration.designId))
              .where(inArray(variantPart.variantId, variantIds))
              .orderBy(asc(design.name), asc(printConfiguration.name), asc(variantPart.id)),
            db
              .select({ variantId: listing.linkedVariantId, n: count() })
              .from(listing)
              .where(inArray(listing.linkedVariantId, variantIds))
              .groupBy(listing.linkedVariantId),
          ]);
    const linkedCount = new Map(linked.map((row) => [row.variantId, row.n]));
    return rows.map((row) => ({
      product: row,
      variants: variants
        .filter((v) => v.productId === row.id)
        .map((v) => ({
          ...v,
          linkedListings: linkedCount.get(v.id) ?? 0,
          parts: parts
            .filter((p) => p.part.variantId === v.id)
            .map((p) => ({ id: p.part.id, printConfigId: p.part.printConfigId, quantity: p.part.quantity, config: p.config, design: p.design })),
        })),
    }));
  }

  /** Refuses parts whose configuration does not exist or belongs to another seller. */
  async function assertConfigsOwned(tx: Tx, ownerId: string, input: ProductInput): Promise<void> {
    const wanted = [...new Set(input.variants.flatMap((v) => v.parts.map((p) => p.printConfigId)))];
    const owned = await tx
      .select({ id: printConfiguration.id })
      .from(printConfiguration)
      .where(and(eq(printConfiguration.ownerId, ownerId), inArray(printConfiguration.id, wanted)));
    const ownedIds = new Set(owned.map((row) => row.id));
    const missing = wanted.find((id) => !ownedIds.has(id));
    if (missing) throw new WriteRefused({ reason: 'print-config-missing', printConfigId: missing });
  }

  /** Refuses SKUs another product of the same seller already uses. */
  async function assertSkusFree(tx: Tx | Database, ownerId: string, skus: string[], exceptProductId: string | null): Promise<void> {
    if (skus.length === 0) return;
    const [taken] = await tx
      .select({ sku: productVariant.sku, productName: product.name })
      .from(productVariant)
      .innerJoin(product, eq(product.id, productVariant.productId))
      .where(
        and(
          eq(productVariant.ownerId, ownerId),
          inArray(productVariant.sku, skus),
          exceptProductId ? ne(productVariant.productId, exceptProductId) : undefined,
        ),
      )
      .orderBy(asc(productVariant.sku))
      .limit(1);
    if (taken) throw new WriteRefused({ reason: 'sku-taken', sku: taken.sku, productName: taken.productName });
  }

  async function insertParts(tx: Tx, variantId: string, parts: ProductInput['variants'][number]['parts']): Promise<void> {
    if (parts.length === 0) return;
    await tx.insert(variantPart).values(parts.map((p) => ({ variantId, printConfigId: p.printConfigId, quantity: p.quantity })));
  }

  /** Runs a write; a refusal (or a unique violation from a concurrent write) becomes a typed result. */
  async function write(ownerId: string, input: ProductInput, exceptProductId: string | null, body: (tx: Tx) => Promise<string>): Promise<ProductWriteResult> {
    try {
      const id = await db.transaction(async (tx) => {
        await assertConfigsOwned(tx, ownerId, input);
        await assertSkusFree(tx, ownerId, input.variants.map((v) => v.sku), exceptProductId);
        return body(tx);
      });
      return { ok: true, id };
    } catch (error) {
      if (error instanceof WriteRefused) return { ok: false, ...error.failure };
      if (isUniqueViolation(error)) {
        // Another request took one of the SKUs between our check and our insert: name it if we can.
        try {
          await assertSkusFree(db, ownerId, input.variants.map((v) => v.sku), exceptProductId);
        } catch (again) {
          if (again instanceof WriteRefused) return { ok: false, ...again.failure };
        }
        return { ok: false, reason: 'sku-taken', sku: input.variants[0]?.sku ?? '', productName: 'another product' };
      }
      throw error;
    }
  }

  return {
    async find(id: string): Promise<ProductRecord | undefined> {
      const rows = await db.select().from(product).where(eq(product.id, id));
      return (await hydrate(rows))[0];
    },

    /** The products that own these variants (the shipping module prices what it ships). */
    async findByVariantIds(variantIds: readonly string[]): Promise<ProductRecord[]> {
      if (variantIds.length === 0) return [];
      const owning = db.select({ id: productVariant.productId }).from(productVariant).where(inArray(productVariant.id, [...variantIds]));
      return hydrate(await db.select().from(product).where(inArray(product.id, owning)));
    },

    /** A seller's products, newest first, keyset-paged on (created_at, id) (product_owner_created_id_idx). */
    async list(options: {
      ownerId: string;
      search: string;
      cursor?: string | undefined;
      limit: number;
    }): Promise<{ items: ProductRecord[]; nextCursor: string | null; total: number }> {
      const after = decodeTimeIdCursor(options.cursor, 'uuid');
      const pattern = options.search ? `%${escapeLike(options.search)}%` : null;
      const where = and(
        eq(product.ownerId, options.ownerId),
        pattern
          ? or(
              ilike(product.name, pattern),
              sql`exists (select 1 from ${productVariant} where ${productVariant.productId} = ${product.id} and (${productVariant.sku} ilike ${pattern} or ${productVariant.name} ilike ${pattern}))`,
            )
          : undefined,
      );
      const [rows, [total]] = await Promise.all([
        db
          .select({ product, micros: microsOf(product.createdAt) })
          .from(product)
          .where(and(where, after ? beforeTimeId(product.createdAt, product.id, after) : undefined))
          .orderBy(desc(product.createdAt), desc(product.id))
          .limit(options.limit + 1),
        db.select({ n: count() }).from(product).where(where),
      ]);
      const page = pageFrom(rows, options.limit, (row) => timeIdKey(row.micros, row.product.id), (row) => row.product);
      return { items: await hydrate(page.items), nextCursor: page.nextCursor, total: total?.n ?? 0 };
    },

    async countForOwner(ownerId: string): Promise<number> {
      const [row] = await db.select({ n: count() }).from(product).where(eq(product.ownerId, ownerId));
      return row?.n ?? 0;
    },

    /** Inserts a product with its variants and parts, all or nothing. */
    async create(ownerId: string, input: ProductInput): Promise<ProductWriteResult> {
      return write(ownerId, input, null, async (tx) => {
        const [row] = await tx
          .insert(product)
          .values({ ownerId, name: input.name, description: input.description })
          .returning({ id: product.id });
        if (!row) throw new Error('insert returned no row');
        // now() is fixed for a transaction: spread the variants' times so they keep the order given.
        const base = Date.now();
        for (const [index, variant] of input.variants.entries()) {
          const at = new Date(base + index);
          const [inserted] = await tx
            .insert(productVariant)
            .values({ productId: row.id, ownerId, name: variant.name, sku: variant.sku, packaging: variant.packaging, createdAt: at, updatedAt: at })
            .returning({ id: productVariant.id });
          if (!inserted) throw new Error('insert returned no row');
          await insertParts(tx, inserted.id, variant.parts);
        }
        return row.id;
      });
    },

    /**
     * Replaces name, description and variants. Variants sent with their id are kept (and so stay
     * linked to their listings); variants not sent are deleted (their listings become unlinked).
     */
    async replace(productId: string, ownerId: string, input: ProductInput): Promise<ProductWriteResult> {
      return write(ownerId, input, productId, async (tx) => {
        // Lock the product so a concurrent delete or replace waits for this one.
        const [locked] = await tx.select({ id: product.id }).from(product).where(eq(product.id, productId)).for('update');
        if (!locked) throw new WriteRefused({ reason: 'product-missing' });
        const existing = await tx
          .select({ id: productVariant.id, sku: productVariant.sku })
          .from(productVariant)
          .where(eq(productVariant.productId, productId));
        const existingIds = new Set(existing.map((v) => v.id));
        const unknown = input.variants.find((v) => v.id !== undefined && !existingIds.has(v.id));
        if (unknown?.id) throw new WriteRefused({ reason: 'variant-missing', variantId: unknown.id });
        const keptIds = new Set(input.variants.flatMap((v) => (v.id ? [v.id] : [])));
        const removed = existing.filter((v) => !keptIds.has(v.id)).map((v) => v.id);
        if (removed.length > 0) await tx.delete(productVariant).where(inArray(productVariant.id, removed));
        // Free every kept variant's SKU first, so two variants may swap SKUs without a conflict.
        for (const v of existing) {
          if (keptIds.has(v.id)) await tx.update(productVariant).set({ sku: `~moving~${v.id}` }).where(eq(productVariant.id, v.id));
        }
        const now = new Date();
        for (const [index, variant] of input.variants.entries()) {
          let variantId = variant.id;
          if (variantId) {
            await tx
              .update(productVariant)
              .set({ name: variant.name, sku: variant.sku, packaging: variant.packaging, updatedAt: now })
              .where(eq(productVariant.id, variantId));
            await tx.delete(variantPart).where(eq(variantPart.variantId, variantId));
          } else {
            const at = new Date(now.getTime() + index);
            const [inserted] = await tx
              .insert(productVariant)
              .values({ productId, ownerId, name: variant.name, sku: variant.sku, packaging: variant.packaging, createdAt: at, updatedAt: at })
              .returning({ id: productVariant.id });
            if (!inserted) throw new Error('insert returned no row');
            variantId = inserted.id;
          }
          await insertParts(tx, variantId, variant.parts);
        }
        await tx.update(product).set({ name: input.name, description: input.description, updatedAt: now }).where(eq(product.id, productId));
        return productId;
      });
    },

    /** Deletes the product; its variants and parts go with it and linked listings become unlinked. */
    async delete(id: string): Promise<boolean> {
      const rows = await db.delete(product).where(eq(product.id, id)).returning({ id: product.id });
      return rows.length > 0;
    },

    /**
     * Names of the products with a part printed from this design (or this one configuration):
     * such a configuration cannot be deleted (variant_part.print_config_id is ON DELETE RESTRICT).
     */
    async productsUsing(target: { designId: string } | { printConfigId: string }): Promise<string[]> {
      const rows = await db
        .selectDistinct({ name: product.name })
        .from(variantPart)
        .innerJoin(productVariant, eq(productVariant.id, variantPart.variantId))
        .innerJoin(product, eq(product.id, productVariant.productId))
        .innerJoin(printConfiguration, eq(printConfiguration.id, variantPart.printConfigId))
        .where('designId' in target ? eq(printConfiguration.designId, target.designId) : eq(variantPart.printConfigId, target.printConfigId))
        .orderBy(asc(product.name));
      return rows.map((row) => row.name);
    },

    /** The seller's variants for these SKUs (exact match after trimming), keyed by SKU. */
    async findVariantsBySkus(ownerId: string, skus: readonly string[]): Promise<Map<string, VariantBySku>> {
      const wanted = [...new Set(skus.map((s) => s.trim()).filter((s) => s.length > 0))];
      const found = new Map<string, VariantBySku>();
      if (wanted.length === 0) return found;
      const rows = await variantsBySkus([ownerId, wanted]);
      for (const row of rows) found.set(row.sku, { variantId: row.variantId, productName: row.productName, variantName: row.variantName });
      return found;
    },
  };
}

export type ProductRepository = ReturnType<typeof createProductRepository>;
