import { z } from 'zod';

/** Branded parcels (issue 24, point 4): the seller's logo and insert message on the packing slip. */

/** A logo upload's limits: bytes on the wire and pixels once decoded (PNG) or rasterised (SVG). */
export const LOGO_MAX_BYTES = 1024 * 1024;
export const LOGO_MAX_PIXELS = 4096 * 4096;
/** The longest side of the stored logo: ample for a 2-inch mark on a slip at 300 dpi. */
export const LOGO_STORED_MAX_SIDE = 800;
export const INSERT_MESSAGE_MAX = 600;

export const brandingSchema = z.object({
  /** The stored logo (a PNG, an SVG rasterised), or null when the seller has none. */
  logo: z
    .object({
      format: z.enum(['png', 'svg']),
      widthPx: z.number().int(),
      heightPx: z.number().int(),
      updatedAt: z.string(),
    })
    .nullable(),
  /** Printed on the slip in its own box; '' prints none. */
  insertMessage: z.string(),
  /** Whether a thank-you card (a page to cut out) is printed with the slip. */
  thankYouCard: z.boolean(),
});
export type Branding = z.infer<typeof brandingSchema>;

export const brandingInputSchema = z
  .object({
    insertMessage: z.string().trim().max(INSERT_MESSAGE_MAX, `The insert message is at most ${INSERT_MESSAGE_MAX} characters`),
    thankYouCard: z.boolean(),
  })
  .strict();
export type BrandingInput = z.infer<typeof brandingInputSchema>;
