import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { user } from '../../db/auth-schema.ts';
import { printConfiguration } from '../designs/designs-schema.ts';

/*
 * The listing-images module's table (issue 24, point 5; docs/listing-images.md).
 * Re-exported by db/schema.ts, the one entry point of the ORM and drizzle-kit.
 */

/**
 * The stored renders of one print configuration, for one settings version (the latest asked for).
 * When the configuration (or its seller) is deleted the row stays, its references nulled, so the
 * module's sweep can still delete the files it names (listing-image-jobs.ts): no file is orphaned.
 */
export const listingImageSet = pgTable(
  'listing_image_set',
  {
    id: uuid('id')
      .primaryKey()
      .default(sql`gen_random_uuid()`),
    printConfigId: uuid('print_config_id').references(() => printConfiguration.id, { onDelete: 'set null' }),
    ownerId: text('owner_id').references(() => user.id, { onDelete: 'set null' }),
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
  (table) => [
    uniqueIndex('listing_image_set_config_idx').on(table.printConfigId),
    // The sweep's rows: those whose configuration is gone.
    index('listing_image_set_orphan_idx').on(table.id).where(sql`${table.printConfigId} is null`),
  ],
);
