import { boolean, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { user } from '../../db/auth-schema.ts';

/*
 * The branding module's table: a seller's logo and insert for their parcels (issue 24, point 4).
 * Re-exported by db/schema.ts, the one entry point of the ORM and drizzle-kit.
 */

/** One row per seller who set any branding; no row reads as no logo, no message, no card. */
export const sellerBranding = pgTable('seller_branding', {
  ownerId: text('owner_id')
    .primaryKey()
    .references(() => user.id, { onDelete: 'cascade' }),
  /** The stored PNG (the upload re-encoded, or the sanitised SVG rasterised); null without a logo. */
  logoKey: text('logo_key'),
  /** What the seller uploaded, for the settings page. */
  logoFormat: text('logo_format').$type<'png' | 'svg'>(),
  logoWidthPx: integer('logo_width_px'),
  logoHeightPx: integer('logo_height_px'),
  logoUpdatedAt: timestamp('logo_updated_at', { withTimezone: true }),
  insertMessage: text('insert_message').notNull().default(''),
  thankYouCard: boolean('thank_you_card').notNull().default(false),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
