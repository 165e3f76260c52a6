import { z } from 'zod';

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
