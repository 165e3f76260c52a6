import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { user } from '../../db/auth-schema.ts';
import { printConfiguration } from '../designs/designs-schema.ts';

/*
 * The products module's tables: products, their variants and each variant's printed parts.
 * Re-exported by db/schema.ts, the one entry point of the ORM and drizzle-kit.
 */

/** Something a buyer orders: a group of designs, sold in variants. */
export const product = pgTable(
  'product',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  // A seller's products, newest first: keyset on (created_at, id).
  (table) => [index('product_owner_created_id_idx').on(table.ownerId, table.createdAt, table.id)],
);

/** A sellable version of a product, identified on marketplaces by its SKU (unique per seller). */
export const productVariant = pgTable(
  'product_variant',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    productId: uuid('product_id')
      .notNull()
      .references(() => product.id, { onDelete: 'cascade' }),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    sku: text('sku').notNull(),
    /** How a unit is packed (e.g. 'standard', 'gift box', 'kit'): free text the farm reads. */
    packaging: text('packaging').notNull().default('standard'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('product_variant_owner_sku_idx').on(table.ownerId, table.sku),
    // A product's variants (its page, and the products search's EXISTS).
    index('product_variant_product_idx').on(table.productId),
  ],
);

/** The printed parts of one unit of a variant: which configuration, how many. */
export const variantPart = pgTable(
  'variant_part',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    variantId: uuid('variant_id')
      .notNull()
      .references(() => productVariant.id, { onDelete: 'cascade' }),
    printConfigId: uuid('print_config_id')
      .notNull()
      .references(() => printConfiguration.id, { onDelete: 'restrict' }),
    quantity: integer('quantity').notNull(),
  },
  (table) => [index('variant_part_variant_idx').on(table.variantId)],
);
