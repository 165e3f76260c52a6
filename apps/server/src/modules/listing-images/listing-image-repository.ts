import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { design, listingImageSet, printConfiguration, product, productVariant, variantPart } from '../../db/schema.ts';

export type ListingImageSetRow = typeof listingImageSet.$inferSelect;

/** What rendering a configuration needs: its colour and version, and the design file the farm slices. */
export interface RenderSource {
  configId: string;
  ownerId: string;
  configName: string;
  colour: string;
  settingsVersion: number;
  sliced: boolean;
  storageKey: string;
  fileName: string;
}

/** A product's variants with the configurations of their parts (in part order, each once). */
export interface ProductConfigs {
  productId: string;
  ownerId: string;
  variants: { id: string; name: string; sku: string; configIds: string[] }[];
}

export function createListingImageRepository(db: Database) {
  return {
    async source(configId: string): Promise<RenderSource | undefined> {
      const [row] = await db
        .select({
          configId: printConfiguration.id,
          ownerId: printConfiguration.ownerId,
          configName: printConfiguration.name,
          colour: printConfiguration.colour,
          settingsVersion: printConfiguration.settingsVersion,
          sliced: sql<boolean>`${printConfiguration.sliced} is not null`,
          storageKey: design.storageKey,
          fileName: design.fileName,
        })
        .from(printConfiguration)
        .innerJoin(design, eq(design.id, printConfiguration.designId))
        .where(eq(printConfiguration.id, configId));
      return row;
    },

    async sources(configIds: readonly string[]): Promise<RenderSource[]> {
      if (configIds.length === 0) return [];
      return db
        .select({
          configId: printConfiguration.id,
          ownerId: printConfiguration.ownerId,
          configName: printConfiguration.name,
          colour: printConfiguration.colour,
          settingsVersion: printConfiguration.settingsVersion,
          sliced: sql<boolean>`${printConfiguration.sliced} is not null`,
          storageKey: design.storageKey,
          fileName: design.fileName,
        })
        .from(printConfiguration)
        .innerJoin(design, eq(design.id, printConfiguration.designId))
        .where(inArray(printConfiguration.id, [...configIds]));
    },

    async productConfigs(productId: string): Promise<ProductConfigs | undefined> {
      const [head] = await db.select({ id: product.id, ownerId: product.ownerId }).from(product).where(eq(product.id, productId));
      if (!head) return undefined;
      const rows = await db
        .select({ variantId: productVariant.id, name: productVariant.name, sku: productVariant.sku, configId: variantPart.printConfigId, partId: variantPart.id })
        .from(productVariant)
        .leftJoin(variantPart, eq(variantPart.variantId, productVariant.id))
        .where(eq(productVariant.productId, productId))
        .orderBy(productVariant.createdAt, productVariant.id, variantPart.id);
      const variants = new Map<string, ProductConfigs['variants'][number]>();
      for (const row of rows) {
        const variant = variants.get(row.variantId) ?? { id: row.variantId, name: row.name, sku: row.sku, configIds: [] };
        if (row.configId && !variant.configIds.includes(row.configId)) variant.configIds.push(row.configId);
        variants.set(row.variantId, variant);
      }
      return { productId: head.id, ownerId: head.ownerId, variants: [...variants.values()] };
    },

    async sets(configIds: readonly string[]): Promise<ListingImageSetRow[]> {
      if (configIds.length === 0) return [];
      return db.select().from(listingImageSet).where(inArray(listingImageSet.printConfigId, [...configIds]));
    },

    /**
     * Marks the configuration's set as rendering for this version, unless a set for the same or a
     * later version is already done. Answers the keys of the set it replaces (to delete once the new
     * images are stored), or null when there is nothing to do.
     */
    async startRendering(source: RenderSource, sizePx: number): Promise<{ replacedKeys: string[] } | null> {
      return db.transaction(async (tx) => {
        const [current] = await tx.select().from(listingImageSet).where(eq(listingImageSet.printConfigId, source.configId)).for('update');
        const upToDate = current && current.settingsVersion >= source.settingsVersion && current.colour === source.colour && current.sizePx === sizePx;
        if (upToDate && current.status === 'done') return null;
        const values = { settingsVersion: source.settingsVersion, colour: source.colour, status: 'rendering' as const, error: null, sizePx };
        await tx
          .insert(listingImageSet)
          .values({ printConfigId: source.configId, ownerId: source.ownerId, ...values })
          .onConflictDoUpdate({ target: listingImageSet.printConfigId, set: { ...values, updatedAt: sql`now()` } });
        return { replacedKeys: current?.imageKeys ?? [] };
      });
    },

    /** Records the stored images; false when the set moved to another version meanwhile. */
    async finish(configId: string, settingsVersion: number, imageKeys: string[]): Promise<boolean> {
      const rows = await db
        .update(listingImageSet)
        .set({ status: 'done', imageKeys, renderedAt: sql`now()`, updatedAt: sql`now()` })
        .where(and(eq(listingImageSet.printConfigId, configId), eq(listingImageSet.settingsVersion, settingsVersion)))
        .returning({ id: listingImageSet.id });
      return rows.length > 0;
    },

    /** Sets whose configuration was deleted: their files are still to delete. */
    async orphans(limit: number): Promise<{ id: string; imageKeys: string[] }[]> {
      return db.select({ id: listingImageSet.id, imageKeys: listingImageSet.imageKeys }).from(listingImageSet).where(isNull(listingImageSet.printConfigId)).limit(limit);
    },

    async forget(id: string): Promise<void> {
      await db.delete(listingImageSet).where(and(eq(listingImageSet.id, id), isNull(listingImageSet.printConfigId)));
    },

    async fail(configId: string, settingsVersion: number, error: string): Promise<void> {
      await db
        .update(listingImageSet)
        .set({ status: 'failed', error, imageKeys: [], updatedAt: sql`now()` })
        .where(and(eq(listingImageSet.printConfigId, configId), eq(listingImageSet.settingsVersion, settingsVersion)));
    },
  };
}

export type ListingImageRepository = ReturnType<typeof createListingImageRepository>;
