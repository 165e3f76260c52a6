import { sql } from 'drizzle-orm';
import { integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { user } from '../../db/auth-schema.ts';
import { printConfiguration } from '../designs/designs-schema.ts';

/*
 * The listing-images module's table (issue 24, point 5; docs/listing-images.md).
 * Re-exported by db/schema.ts, the one entry point of the ORM and drizzle-kit.
 */

/** The stored renders of one print configuration, for one settings version (the latest asked for). */
export const listingImageSet = pgTable(
  'listing_image_set',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    printConfigId: uuid('print_config_id')
      .notNull()
      .references(() => printConfiguration.id, { onDelete: 'cascade' }),
    ownerId: text('owner_id')
      .notNull()
      .references(() => user.id, { onDelete: 'cascade' }),
    settingsVersion: integer('settings_version').notNull(),
    /** The colour drawn: a configuration recoloured since (no re-slice) has stale images until rendered again. */
    colour: text('colour').notNull(),
    /** rendering, done or failed (pending is the absence of a row for a configuration not yet sliced). */
    status: text('status').$type<'rendering' | 'done' | 'failed'>().notNull(),
    error: text('error'),
    /** One stored PNG per angle, in LISTING_IMAGE_ANGLES order; [] until done. */
    imageKeys: jsonb('image_keys').$type<string[]>().notNull().default([]),
    sizePx: integer('size_px').notNull(),
    renderedAt: timestamp('rendered_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('listing_image_set_config_idx').on(table.printConfigId)],
);
