import { z } from 'zod';

/**
 * Listing images (issue 24, point 5): renders of a print configuration's model in its colour, made in
 * the background after the exact slice, for sellers to download for their marketplace listings.
 */
export const LISTING_IMAGE_SIZE_PX = 2000;
/** The angles rendered, in order: the file names' suffixes. */
export const LISTING_IMAGE_ANGLES = ['front', 'right', 'back', 'top'] as const;
export type ListingImageAngle = (typeof LISTING_IMAGE_ANGLES)[number];

export const listingImageSetSchema = z.object({
  printConfigId: z.uuid(),
  configName: z.string(),
  colour: z.string(),
  /** pending: the exact slice or the render is still to come; done: images ready; failed: see error. */
  status: z.enum(['pending', 'rendering', 'done', 'failed']),
  error: z.string().nullable(),
  settingsVersion: z.number().int(),
  images: z.array(z.object({ angle: z.enum(LISTING_IMAGE_ANGLES), url: z.string(), widthPx: z.number().int(), heightPx: z.number().int() })),
  /** All images of this configuration as one zip, when done. */
  zipUrl: z.string().nullable(),
});
export type ListingImageSet = z.infer<typeof listingImageSetSchema>;

/** A variant's listing images: one set per print configuration among its parts. */
export const variantListingImagesSchema = z.object({
  variantId: z.uuid(),
  variantName: z.string(),
  sku: z.string(),
  sets: z.array(listingImageSetSchema),
});
export const productListingImagesSchema = z.object({
  productId: z.uuid(),
  variants: z.array(variantListingImagesSchema),
});
export type ProductListingImages = z.infer<typeof productListingImagesSchema>;
