import { z } from 'zod';
import { pageQueryFields, pageSchema } from './paging.ts';

export const skuSchema = z
  .string()
  .trim()
  .min(1, 'SKU is required')
  .max(100)
  .regex(/^[A-Za-z0-9._\-/]+$/, 'SKU may use letters, digits, dot, dash, underscore and slash');

export const variantPartInputSchema = z
  .object({ printConfigId: z.uuid(), quantity: z.number().int().min(1).max(1000) })
  .strict();

export const variantInputSchema = z
  .object({
    /** On an update, the id of an existing variant to keep (its listings stay linked); absent = new variant. */
    id: z.uuid('Not a valid variant id').optional(),
    name: z.string().trim().min(1).max(120),
    sku: skuSchema,
    packaging: z.string().trim().max(120).default('standard'),
    parts: z.array(variantPartInputSchema).min(1, 'A variant needs at least one printed part').max(64),
  })
  .strict();
export type VariantInput = z.infer<typeof variantInputSchema>;

export const productInputSchema = z
  .object({
    name: z.string().trim().min(1, 'Give the product a name').max(200),
    description: z.string().trim().max(5000).default(''),
    variants: z.array(variantInputSchema).min(1, 'A product needs at least one variant').max(100),
  })
  .strict();
export type ProductInput = z.infer<typeof productInputSchema>;

export const productSchema = z.object({
  id: z.string(),
  ownerId: z.string(),
  name: z.string(),
  description: z.string(),
  variants: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      sku: z.string(),
      packaging: z.string(),
      parts: z.array(
        z.object({
          printConfigId: z.string(),
          designId: z.string(),
          designName: z.string(),
          configName: z.string(),
          quantity: z.number().int(),
          unitCostUsd: z.number().nullable(),
        }),
      ),
      /** Sum of the parts' quotes × quantities; null while a part has no quote yet. */
      unitCostUsd: z.number().nullable(),
      linkedListings: z.number().int(),
    }),
  ),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Product = z.infer<typeof productSchema>;

/** Packaging names the web app suggests; packaging is free text the print farm reads. */
export const PACKAGING_SUGGESTIONS = ['standard', 'gift box', 'kit', 'bulk'] as const;

/** GET /api/products: the seller's products, newest first, keyset-paged. */
export const productListQuerySchema = z
  .object({
    search: z.string().trim().max(200).default(''),
    ...pageQueryFields(24),
    targetUserId: z.string().max(100).optional(),
  })
  .strict();
export type ProductListQuery = z.infer<typeof productListQuerySchema>;

/** `total`: the seller's products matching the search (one seller's rows: cheap to count). */
export const productListSchema = pageSchema(productSchema).extend({ total: z.number().int() });
export type ProductList = z.infer<typeof productListSchema>;
export type ProductVariant = Product['variants'][number];
export type ProductPart = ProductVariant['parts'][number];
