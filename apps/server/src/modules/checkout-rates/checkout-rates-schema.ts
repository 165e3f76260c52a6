import { boolean, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { user } from '../../db/auth-schema.ts';
import { shopConnection } from '../shops/shops-schema.ts';

/*
 * The checkout-rates module's table (issue 24; docs/checkout-rates.md). Re-exported by db/schema.ts.
 */

/**
 * Checkout rates of one Shopify shop: on or off, the carrier service registered with Shopify, and
 * the generation of its callback URL's secret (derived from APP_SECRET, never stored: turning the
 * rates off and on again makes a new one, so an old URL stops working).
 */
export const checkoutRatesSetting = pgTable('checkout_rates_setting', {
  shopId: uuid('shop_id')
    .primaryKey()
    .references(() => shopConnection.id, { onDelete: 'cascade' }),
  ownerId: text('owner_id')
    .notNull()
    .references(() => user.id, { onDelete: 'cascade' }),
  enabled: boolean('enabled').notNull().default(false),
  generation: integer('generation').notNull().default(0),
  /** Shopify's id of our carrier service (gid://shopify/DeliveryCarrierService/…), while registered. */
  carrierServiceId: text('carrier_service_id'),
  registeredAt: timestamp('registered_at', { withTimezone: true }),
  /** Why the last registration failed, in the marketplace's words ('' when it did not). */
  lastError: text('last_error').notNull().default(''),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
