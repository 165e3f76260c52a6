import { and, asc, count, eq, gt, ilike, isNotNull, isNull, or, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { listing, oauthState, product, productVariant, shopConnection } from '../../db/schema.ts';
import { afterKey, decodeCursor, pageFrom } from '../../platform/keyset-cursor.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import { assertCursorUuid } from '../../platform/time-id-keyset.ts';
import type { MarketplaceListing, RefreshedTokens, ShopCredentials } from './connector.ts';

export type ShopRow = typeof shopConnection.$inferSelect;
export type ListingRow = typeof listing.$inferSelect;
export type OAuthStateRow = typeof oauthState.$inferSelect;

export interface ListingFilter {
  ownerId: string;
  shopId: string | null;
  link: 'all' | 'unmatched' | 'linked';
  search: string;
  cursor?: string | undefined;
  limit: number;
}

export interface ListingView {
  listing: ListingRow;
  shopName: string;
  platform: string;
  variantName: string | null;
  productName: string | null;
}

const escapeLike = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Shop connections (tokens sealed with the secret box, bound to their row and owner), OAuth
 * states and imported listings.
 */
export function createShopRepository(db: Database, box: SecretBox) {
  const tokenContext = (row: { id: string; ownerId: string }, purpose: 'access_token' | 'refresh_token') => ({
    table: 'shop_connection',
    rowId: row.id,
    ownerId: row.ownerId,
    purpose,
  });
  const verifierContext = (state: string, ownerId: string) => ({
    table: 'oauth_state',
    rowId: state,
    ownerId,
    purpose: 'code_verifier',
  });

  function sealTokens(row: { id: string; ownerId: string }, tokens: RefreshedTokens | null) {
    return {
      accessTokenEnc: tokens?.accessToken
        ? box.seal(tokens.accessToken, tokenContext(row, 'access_token'))
        : null,
      refreshTokenEnc: tokens?.refreshToken
        ? box.seal(tokens.refreshToken, tokenContext(row, 'refresh_token'))
        : null,
      tokenExpiresAt: tokens?.tokenExpiresAt ?? null,
    };
  }

  return {
    /**
     * Stores a connection, or renews the seller's existing connection to the same marketplace
     * shop. Returns 'taken' when that shop is connected to another seller.
     */
    async saveConnection(input: {
      ownerId: string;
      platform: string;
      externalShopId: string;
      name: string;
      tokens: RefreshedTokens | null;
      scopes: string;
      settings: Record<string, unknown>;
    }): Promise<{ id: string } | 'taken'> {
      const [existing] = await db
        .select()
        .from(shopConnection)
        .where(
          and(
            eq(shopConnection.platform, input.platform),
            eq(shopConnection.externalShopId, input.externalShopId),
          ),
        );
      if (existing) {
        if (existing.ownerId !== input.ownerId) return 'taken';
        await db
          .update(shopConnection)
          .set({
            name: input.name,
            ...sealTokens(existing, input.tokens),
            scopes: input.scopes,
            settings: input.settings,
            status: 'connected',
            statusMessage: null,
            updatedAt: new Date(),
          })
          .where(eq(shopConnection.id, existing.id));
        return { id: existing.id };
      }
      const id = crypto.randomUUID();
      const inserted = await db
        .insert(shopConnection)
        .values({
          id,
          ownerId: input.ownerId,
          platform: input.platform,
          externalShopId: input.externalShopId,
          name: input.name,
          ...sealTokens({ id, ownerId: input.ownerId }, input.tokens),
          scopes: input.scopes,
          settings: input.settings,
        })
        .onConflictDoNothing()
        .returning({ id: shopConnection.id });
      return inserted[0] ?? 'taken';
    },

    async find(id: string): Promise<ShopRow | undefined> {
      const [row] = await db.select().from(shopConnection).where(eq(shopConnection.id, id));
      return row;
    },

    async listForOwner(ownerId: string): Promise<(ShopRow & { listingCount: number })[]> {
      // Spelled out: without a join drizzle leaves column names unqualified inside the subquery.
      const listingCount = sql<number>`(select count(*)::int from "listing" where "listing"."shop_id" = "shop_connection"."id")`;
      const rows = await db
        .select({ shop: shopConnection, listingCount })
        .from(shopConnection)
        .where(eq(shopConnection.ownerId, ownerId))
        .orderBy(asc(shopConnection.createdAt));
      return rows.map((row) => ({ ...row.shop, listingCount: Number(row.listingCount) }));
    },

    /** Every connected shop, for the periodic sync. */
    async listConnected(): Promise<ShopRow[]> {
      return db.select().from(shopConnection).where(eq(shopConnection.status, 'connected'));
    },

    async countConnected(ownerId: string): Promise<number> {
      const [row] = await db
        .select({ total: count() })
        .from(shopConnection)
        .where(and(eq(shopConnection.ownerId, ownerId), eq(shopConnection.status, 'connected')));
      return row?.total ?? 0;
    },

    /** The decrypted credentials, for a connector call. */
    credentials(row: ShopRow): ShopCredentials {
      return {
        externalShopId: row.externalShopId,
        accessToken: row.accessTokenEnc
          ? box.open(row.accessTokenEnc, tokenContext(row, 'access_token'))
          : null,
        refreshToken: row.refreshTokenEnc
          ? box.open(row.refreshTokenEnc, tokenContext(row, 'refresh_token'))
          : null,
        tokenExpiresAt: row.tokenExpiresAt,
        settings: row.settings,
      };
    },

    async updateTokens(row: ShopRow, tokens: RefreshedTokens): Promise<void> {
      const sealed = sealTokens(row, tokens);
      await db
        .update(shopConnection)
        .set({
          accessTokenEnc: sealed.accessTokenEnc,
          // Marketplaces that do not rotate refresh tokens answer none: keep the one we have.
          ...(sealed.refreshTokenEnc ? { refreshTokenEnc: sealed.refreshTokenEnc } : {}),
          tokenExpiresAt: sealed.tokenExpiresAt,
          updatedAt: new Date(),
        })
        .where(eq(shopConnection.id, row.id));
    },

    async setStatus(id: string, status: 'connected' | 'error', message: string | null): Promise<void> {
      await db
        .update(shopConnection)
        .set({ status, statusMessage: message, updatedAt: new Date() })
        .where(eq(shopConnection.id, id));
    },

    /** A sync went through: the cursor moves on, the shop is connected, with a note (orders skipped) or none. */
    async recordSync(id: string, cursor: string | undefined, note: string | null = null): Promise<void> {
      await db
        .update(shopConnection)
        .set({
          ...(cursor !== undefined ? { syncCursor: cursor } : {}),
          lastSyncedAt: new Date(),
          status: 'connected',
          statusMessage: note,
          updatedAt: new Date(),
        })
        .where(eq(shopConnection.id, id));
    },

    /** Deletes the connection: its sealed tokens go with the row, its listings by cascade. */
    async delete(id: string): Promise<void> {
      await db.delete(shopConnection).where(eq(shopConnection.id, id));
    },

    /* ---------- OAuth states ---------- */

    async insertState(input: {
      state: string;
      ownerId: string;
      platform: string;
      codeVerifier: string;
      shopHost: string | null;
      expiresAt: Date;
    }) {
      await db.insert(oauthState).values({
        state: input.state,
        ownerId: input.ownerId,
        platform: input.platform,
        codeVerifierEnc: box.seal(input.codeVerifier, verifierContext(input.state, input.ownerId)),
        shopHost: input.shopHost,
        expiresAt: input.expiresAt,
      });
    },

    /**
     * Uses a state once: only an unexpired, unused state of this seller and platform; marking it
     * used is the same statement, so two callbacks with one state cannot both pass.
     */
    async consumeState(
      state: string,
      ownerId: string,
      platform: string,
    ): Promise<{ codeVerifier: string; shopHost: string | null } | null> {
      const [row] = await db
        .update(oauthState)
        .set({ usedAt: new Date() })
        .where(
          and(
            eq(oauthState.state, state),
            eq(oauthState.ownerId, ownerId),
            eq(oauthState.platform, platform),
            isNull(oauthState.usedAt),
            gt(oauthState.expiresAt, new Date()),
          ),
        )
        .returning();
      if (!row || !row.codeVerifierEnc) return null;
      return {
        codeVerifier: box.open(row.codeVerifierEnc, verifierContext(row.state, row.ownerId)),
        shopHost: row.shopHost,
      };
    },

    /** Why a state was refused (only for the message; the decision was consumeState's). */
    async findState(state: string): Promise<OAuthStateRow | undefined> {
      const [row] = await db.select().from(oauthState).where(eq(oauthState.state, state));
      return row;
    },

    async deleteExpiredStates(before: Date): Promise<void> {
      await db.delete(oauthState).where(sql`${oauthState.expiresAt} < ${before}`);
    },

    /* ---------- Listings ---------- */

    /** Inserts or refreshes imported listings by (shop, listing, variation); links are kept. */
    async upsertListings(
      shop: { id: string; ownerId: string },
      listings: readonly MarketplaceListing[],
    ): Promise<void> {
      const chunk = 200;
      for (let i = 0; i < listings.length; i += chunk) {
        await db
          .insert(listing)
          .values(
            listings.slice(i, i + chunk).map((item) => ({
              shopId: shop.id,
              ownerId: shop.ownerId,
              externalListingId: item.externalListingId,
              externalVariantId: item.externalVariantId,
              title: item.title,
              sku: item.sku.trim(),
              priceCents: item.priceCents,
              currency: item.currency,
              url: item.url,
              imageUrl: item.imageUrl,
            })),
          )
          .onConflictDoUpdate({
            target: [listing.shopId, listing.externalListingId, listing.externalVariantId],
            set: {
              title: sql`excluded.title`,
              sku: sql`excluded.sku`,
              priceCents: sql`excluded.price_cents`,
              currency: sql`excluded.currency`,
              url: sql`excluded.url`,
              imageUrl: sql`excluded.image_url`,
              updatedAt: new Date(),
            },
          });
      }
    },

    /**
     * Links the seller's listings to the variant with the same SKU. Manual links are never touched;
     * an automatic link whose SKUs no longer agree is dropped first. Returns how many were linked.
     */
    async autoLinkBySku(ownerId: string): Promise<number> {
      await db
        .update(listing)
        .set({ linkedVariantId: null, linkSource: null, updatedAt: new Date() })
        .where(
          and(
            eq(listing.ownerId, ownerId),
            eq(listing.linkSource, 'sku'),
            sql`not exists (select 1 from "product_variant" pv where pv."id" = "listing"."linked_variant_id" and pv."sku" = "listing"."sku")`,
          ),
        );
      const linked = await db
        .update(listing)
        .set({
          linkedVariantId: sql`(select pv."id" from "product_variant" pv where pv."owner_id" = "listing"."owner_id" and pv."sku" = "listing"."sku")`,
          linkSource: 'sku',
          updatedAt: new Date(),
        })
        .where(
          and(
            eq(listing.ownerId, ownerId),
            isNull(listing.linkedVariantId),
            sql`${listing.sku} <> ''`,
            sql`exists (select 1 from "product_variant" pv where pv."owner_id" = "listing"."owner_id" and pv."sku" = "listing"."sku")`,
          ),
        )
        .returning({ id: listing.id });
      return linked.length;
    },

    async findListing(id: string): Promise<ListingRow | undefined> {
      const [row] = await db.select().from(listing).where(eq(listing.id, id));
      return row;
    },

    /**
     * A seller's listings by title then id, keyset-paged on (title, id): from
     * listing_owner_title_id_idx, listing_owner_shop_title_id_idx (one shop) or the partial
     * listing_owner_unmatched_title_id_idx (the unmatched inbox).
     */
    async listListings(
      filter: ListingFilter,
    ): Promise<{ items: ListingView[]; nextCursor: string | null; total: number }> {
      const key = decodeCursor(filter.cursor, ['string', 'string']);
      if (key) assertCursorUuid(String(key[1]));
      const pattern = filter.search ? escapeLike(filter.search) : null;
      const where = and(
        eq(listing.ownerId, filter.ownerId),
        filter.shopId ? eq(listing.shopId, filter.shopId) : undefined,
        filter.link === 'unmatched'
          ? isNull(listing.linkedVariantId)
          : filter.link === 'linked'
            ? isNotNull(listing.linkedVariantId)
            : undefined,
        pattern ? or(ilike(listing.title, pattern), ilike(listing.sku, pattern)) : undefined,
      );
      const [rows, [totalRow]] = await Promise.all([
        db
          .select({
            listing,
            shopName: shopConnection.name,
            platform: shopConnection.platform,
            variantName: productVariant.name,
            productName: product.name,
          })
          .from(listing)
          .innerJoin(shopConnection, eq(shopConnection.id, listing.shopId))
          .leftJoin(productVariant, eq(productVariant.id, listing.linkedVariantId))
          .leftJoin(product, eq(product.id, productVariant.productId))
          .where(and(where, key ? afterKey([listing.title, listing.id], key, 'asc') : undefined))
          .orderBy(asc(listing.title), asc(listing.id))
          .limit(filter.limit + 1),
        db.select({ total: count() }).from(listing).where(where),
      ]);
      const page = pageFrom(
        rows,
        filter.limit,
        (row) => [row.listing.title, row.listing.id],
        (row) => row,
      );
      return { ...page, total: totalRow?.total ?? 0 };
    },

    async listingView(id: string): Promise<ListingView | undefined> {
      const [row] = await db
        .select({
          listing,
          shopName: shopConnection.name,
          platform: shopConnection.platform,
          variantName: productVariant.name,
          productName: product.name,
        })
        .from(listing)
        .innerJoin(shopConnection, eq(shopConnection.id, listing.shopId))
        .leftJoin(productVariant, eq(productVariant.id, listing.linkedVariantId))
        .leftJoin(product, eq(product.id, productVariant.productId))
        .where(eq(listing.id, id));
      return row;
    },

    async setListingLink(id: string, variantId: string | null, source: 'manual' | null): Promise<void> {
      await db
        .update(listing)
        .set({ linkedVariantId: variantId, linkSource: source, updatedAt: new Date() })
        .where(eq(listing.id, id));
    },

    /** The seller's variant (or undefined when it is not theirs). */
    async findOwnedVariant(ownerId: string, variantId: string): Promise<{ id: string } | undefined> {
      const [row] = await db
        .select({ id: productVariant.id })
        .from(productVariant)
        .where(and(eq(productVariant.id, variantId), eq(productVariant.ownerId, ownerId)));
      return row;
    },

    /** The seller's variants for the link picker. */
    async variantOptions(ownerId: string, search: string, limit: number) {
      const pattern = search ? escapeLike(search) : null;
      return db
        .select({
          id: productVariant.id,
          sku: productVariant.sku,
          variantName: productVariant.name,
          productName: product.name,
        })
        .from(productVariant)
        .innerJoin(product, eq(product.id, productVariant.productId))
        .where(
          and(
            eq(productVariant.ownerId, ownerId),
            pattern
              ? or(
                  ilike(productVariant.sku, pattern),
                  ilike(productVariant.name, pattern),
                  ilike(product.name, pattern),
                )
              : undefined,
          ),
        )
        .orderBy(asc(product.name), asc(productVariant.name))
        .limit(limit);
    },
  };
}

export type ShopRepository = ReturnType<typeof createShopRepository>;
